package engine

import (
	"errors"
	"slices"
	"testing"
)

// TestParseNames: "all" is every name in order, blanks are skipped, an
// unknown name is a FieldError of the field listing the names.
func TestParseNames(t *testing.T) {
	allowed := []string{"mean", "std", "cv"}
	for text, want := range map[string][]string{"all": allowed, "cv, mean,,": {"cv", "mean"}, "": nil, " , ": nil} {
		if got, err := ParseNames("stat", text, allowed); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", text, got, err, want)
		}
	}
	_, err := ParseNames("stat", "mean,median", allowed)
	var fe *FieldError
	if !errors.As(err, &fe) || err.Error() != `stat: unknown "median"; want mean, std, cv` {
		t.Errorf("unknown name: %v", err)
	}
}
