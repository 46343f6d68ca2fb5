package cli

import (
	"io"
	"strings"
	"testing"
)

// TestArgsLast: the flags among or after the positional arguments of the
// commands that read them (takesArgs) move before them, behind a "--";
// the global booleans (--time, --validate) take no value there (before,
// `shader info --time FILE --json` read FILE as --time's value); any
// other command line is left as it is.
func TestArgsLast(t *testing.T) {
	app := New(io.Discard, io.Discard)
	for _, c := range [][2]string{
		{"vkstat shader run f.comp -b x=1", "vkstat shader run -b x=1 -- f.comp"},
		{"vkstat --device all shader info f.comp --json", "vkstat --device all shader info --json -- f.comp"},
		{"vkstat shader info f.comp", "vkstat shader info -- f.comp"},
		{"vkstat shader info --time f.comp --json", "vkstat shader info --time --json -- f.comp"},
		{"vkstat shader info --json f.comp -D A", "vkstat shader info --json -D A -- f.comp"},
		{"vkstat shader run -b x=1 f.comp", "vkstat shader run -b x=1 -- f.comp"},
		{"vkstat shader check -I inc -D X=1 -O f.comp -b x=1 --tol=1e-3", "vkstat shader check -I inc -D X=1 -O -b x=1 --tol=1e-3 -- f.comp"},
		{"vkstat shader run -b x=1 -- -f.comp", "vkstat shader run -b x=1 -- -f.comp"},
		{"vkstat shader sweep case.json --repeat 3", "vkstat shader sweep --repeat 3 -- case.json"},
		{"vkstat --device cpu stack --out-dir S a.tif b.tif --json --stat mean c.tif", "vkstat --device cpu stack --out-dir S --json --stat mean -- a.tif b.tif c.tif"},
		{"vkstat --device cpu survey run m.csv --out o --time --shard=1/2 --unbiased --radius 3", "vkstat --device cpu survey run --out o --time --shard=1/2 --unbiased --radius 3 -- m.csv"},
		{"vkstat survey merge a b -o c", "vkstat survey merge -o c -- a b"},
		{"vkstat merge a b --out-dir c", "vkstat merge --out-dir c -- a b"},
		{"vkstat verify --compare a.json b.json --json r.json", "vkstat verify --compare --json r.json -- a.json b.json"},
		// Commands that take no arguments, and command names as values.
		{"vkstat map --x shader", "vkstat map --x shader"},
		{"vkstat paco --cube survey", "vkstat paco --cube survey"},
		{"vkstat bench --suite stack --size small", "vkstat bench --suite stack --size small"},
		{"vkstat synth stack --out-dir d --dates 3", "vkstat synth stack --out-dir d --dates 3"},
		{"vkstat synth stack a --out-dir d", "vkstat synth stack a --out-dir d"},
		{"vkstat --device stack reduce --in x.npy", "vkstat --device stack reduce --in x.npy"},
		{"vkstat -- stack a.tif --json", "vkstat -- stack a.tif --json"},
		{"vkstat nosuch a --b", "vkstat nosuch a --b"},
	} {
		if got := strings.Join(argsLast(app, strings.Fields(c[0])), " "); got != c[1] {
			t.Errorf("%s\n became %s\n want   %s", c[0], got, c[1])
		}
	}
}
