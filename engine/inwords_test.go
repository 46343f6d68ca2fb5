package engine

import (
	"errors"
	"fmt"
	"testing"
)

// A refusal that names an option is said in the front end's words when it
// is the whole error; wrapped in more words it stays as it is, though
// named; any other error is neither.
func TestInWords(t *testing.T) {
	flag := func(field, value string) string { return "--" + field }
	fe := Fieldf("radius", " must be 1 or more, got 0")
	if w, named := InWords(fe, flag); !named || w.Error() != "--radius must be 1 or more, got 0" {
		t.Errorf("field error: %v, %v", w, named)
	}
	oe := &OptionsError{Msg: "{a} and {b} do not go together"}
	if w, named := InWords(oe, flag); !named || w.Error() != "--a and --b do not go together" {
		t.Errorf("options error: %v, %v", w, named)
	}
	wrapped := fmt.Errorf("cube.npy: %w", fe)
	if w, named := InWords(wrapped, flag); !named || w != wrapped {
		t.Errorf("wrapped: %v, %v", w, named)
	}
	other := errors.New("disk full")
	if w, named := InWords(other, flag); named || w != other {
		t.Errorf("other: %v, %v", w, named)
	}
	if w, named := InWords(nil, flag); named || w != nil {
		t.Errorf("nil: %v, %v", w, named)
	}
}
