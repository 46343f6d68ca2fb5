package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

// walkCommands calls fn for every command and subcommand of the app, with
// its full name ("synth paco").
func walkCommands(cmds []*ucli.Command, prefix string, fn func(name string, c *ucli.Command)) {
	for _, c := range cmds {
		name := strings.TrimSpace(prefix + " " + c.Name)
		fn(name, c)
		walkCommands(c.Subcommands, name, fn)
	}
}

// TestFlagConventions walks every command's help: no flag states its
// default twice ("(default: min(3, F−1)) (default: 0)"): a default that is
// not a plain value goes in DefaultText, not in the usage text.
func TestFlagConventions(t *testing.T) {
	walkCommands(New(io.Discard, io.Discard).Commands, "", func(name string, c *ucli.Command) {
		var out bytes.Buffer
		args := append(append([]string{"vkstat"}, strings.Fields(name)...), "--help")
		if err := New(&out, &out).Run(args); err != nil {
			t.Fatalf("%s --help: %v", name, err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.Count(line, "(default:") > 1 {
				t.Errorf("%s: a default stated twice: %s", name, strings.TrimSpace(line))
			}
		}
	})
}
