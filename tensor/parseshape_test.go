package tensor

import (
	"slices"
	"testing"
)

// TestParseShape: shapes by hand, and the refusals: a zero, a word, an
// empty part, and 2^41 elements.
func TestParseShape(t *testing.T) {
	for s, want := range map[string][]int{"64,512,512": {64, 512, 512}, " 7 ": {7}, "2, 3": {2, 3}} {
		if got, err := ParseShape(s); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	for s, want := range map[string]string{
		"3,0":                  `"3,0" is not a list of positive integers`,
		"3,x":                  `"3,x" is not a list of positive integers`,
		"3,,4":                 `"3,,4" is not a list of positive integers`,
		"2048,1048576,1048576": "2048,1048576,1048576 is too large",
	} {
		if _, err := ParseShape(s); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", s, err, want)
		}
	}
}
