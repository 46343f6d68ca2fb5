package cli

import (
	"fmt"
	"io"
	"slices"
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
// args (os.Args) to the new names, with a note on stderr for each, and
// refuses a long alias (longAliases) given with one dash, which Go's flag
// parser would take.
func renameFlags(app *ucli.App, args []string, stderr io.Writer) ([]string, error) {
	cmd, path, i, _ := commandAt(app, args)
	if cmd == nil {
		return args, nil
	}
	table := renamed[args[i]]
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
		if long, ok := longAliases[name]; ok && dashes == "-" && slices.ContainsFunc(cmd.Flags, func(f ucli.Flag) bool { return f.Names()[0] == long[0] }) {
			return nil, usagef("%s: -%s is ambiguous here: give --%s (or --%s), or --%s (the global -%s, before the command)", path, name, long[0], name, long[1], name)
		}
		if n, ok := table[name]; ok {
			fmt.Fprintf(stderr, "vkstat: note: %s %s%s is now --%s\n", args[i], dashes, name, n)
			out[j] = "--" + n
			if hasValue {
				out[j] += "=" + value
			}
		}
	}
	return out, nil
}

// commandAt finds the command that args (os.Args) run: start is the index
// of its first word, after the global flags and their values; cmd is the
// command its words name, a subcommand where they go on to name one, path
// its names ("synth stack"), and end the index after its words. cmd is nil
// when args name no command.
func commandAt(app *ucli.App, args []string) (cmd *ucli.Command, path string, start, end int) {
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	for end = 1; end < len(args) && args[end] != "--"; end++ {
		if a := args[end]; cmd == nil && strings.HasPrefix(a, "-") {
			if name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "="); takesValue[name] && !hasValue {
				end++ // the global flag's value
			}
			continue
		}
		next := app.Command(args[end])
		if cmd != nil {
			next = cmd.Command(args[end])
		} else {
			start = end
		}
		if next == nil {
			break
		}
		cmd, path = next, strings.TrimPrefix(path+" "+next.Name, " ")
	}
	return cmd, path, start, end
}
