package engine

import (
	"errors"
	"strings"
	"testing"
)

// flags names field set to value as a command line does.
func flags(field, value string) string { return strings.TrimSpace("--" + field + " " + value) }

// TestWarningWords: a warning that names options is worded by the caller's
// names for them, the library's own in Message; one that names none is
// its Message whatever the caller's words.
func TestWarningWords(t *testing.T) {
	w := Warn("centre-unmeasured", nil, "{center=auto}: no star (%d); give {center=y,x}, or a {radius}", 3)
	if want := "center auto: no star (3); give center y,x, or a radius"; w.Message != want || w.String() != want {
		t.Errorf("Message %q, want %q", w.Message, want)
	}
	if got, want := w.Words(flags), "--center auto: no star (3); give --center y,x, or a --radius"; got != want {
		t.Errorf("Words %q, want %q", got, want)
	}
	plain := Warning{Code: "cube-all-nan", Message: "every value is NaN {not an option}"}
	if got := plain.Words(flags); got != plain.Message {
		t.Errorf("a warning without marks: %q", got)
	}
	if got, want := Marked("{x=1}, {y} and a { without its end", flags), "--x 1, --y and a { without its end"; got != want {
		t.Errorf("Marked %q, want %q", got, want)
	}
}

// TestOptionsWords: an OptionsError and a FieldError are worded with the
// same Setting as a warning: the library's names in Error, the caller's in
// Words.
func TestOptionsWords(t *testing.T) {
	var oe *OptionsError
	err := Optionsf("{enl} goes with {filter} %s", "lee")
	if !errors.As(err, &oe) || err.Error() != "enl goes with filter lee" || oe.Words(flags) != "--enl goes with --filter lee" {
		t.Errorf("%v: worded %q", err, oe.Words(flags))
	}
	var fe *FieldError
	err = AtLeast("ddof", -1, 0)
	if !errors.As(err, &fe) || err.Error() != "ddof must be 0 or more, got -1" || fe.Words(flags) != "--ddof must be 0 or more, got -1" {
		t.Errorf("%v: worded %q", err, fe.Words(flags))
	}
}
