package cli

import (
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// renamed holds, per command, the old spellings of flags that now have one
// name across commands (--stat for what to compute, --out-dir for a folder
// of outputs (--out is its alias), --out for a command's one output file,
// --out-WHAT for each of several): still accepted, with a one-line note,
// and not shown in help.
var renamed = map[string]map[string]string{
	"latent": {"stats": "stat"},
	"chol":   {"inverse": "out-inverse", "logdet": "out-logdet", "out": "out-x", "o": "out-x"},
}

// renameFlags rewrites the old spellings among the command's own flags in
// args (os.Args) to the new names, with a note on stderr for each.
func renameFlags(app *ucli.App, args []string, stderr io.Writer) []string {
	if len(args) < 2 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	// The command's name: the first word that is not a global flag or its value.
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if args[i] == "--" {
			return args
		}
		i++
		if takesValue[name] && !hasValue {
			i++
		}
	}
	if i >= len(args) {
		return args
	}
	table := renamed[args[i]]
	if table == nil {
		return args
	}
	out := append([]string(nil), args...)
	for j := i + 1; j < len(out); j++ {
		a := out[j]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
		name, value, hasValue := strings.Cut(a[len(dashes):], "=")
		if n, ok := table[name]; ok {
			fmt.Fprintf(stderr, "vkstat: note: %s %s%s is now --%s\n", args[i], dashes, name, n)
			out[j] = "--" + n
			if hasValue {
				out[j] += "=" + value
			}
		}
	}
	return out
}
