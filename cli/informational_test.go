package cli

import "testing"

// TestInformational: help, the version and completion skip the command's
// memory set-up; every run of work keeps it.
func TestInformational(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"vkstat"}, true},
		{[]string{"vkstat", "--version"}, true},
		{[]string{"vkstat", "-v"}, true},
		{[]string{"vkstat", "help", "paco"}, true},
		{[]string{"vkstat", "paco", "--help"}, true},
		{[]string{"vkstat", "reduce", "--o", "--generate-bash-completion"}, true},
		{[]string{"vkstat", "devices"}, false},
		{[]string{"vkstat", "--device", "cpu", "reduce", "--in", "x.npy", "--stat", "mean"}, false},
		{[]string{"vkstat", "--verbose", "paco", "--cube", "c.fits"}, false},
	} {
		if got := Informational(c.args); got != c.want {
			t.Errorf("Informational(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
