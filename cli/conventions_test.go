package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/suite"
	"github.com/vkstat/vkstat/tensor"
)

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
		// One name per concept: --stat for what to compute, --out-dir for
		// a folder of outputs (--out is one file).
		for _, f := range c.Flags {
			df, ok := f.(ucli.DocGenerationFlag)
			if !ok {
				continue
			}
			switch n := f.Names()[0]; {
			case n == "out-dir" && !slices.Contains(f.Names(), "out") && !hasFlag(c, "out"):
				t.Errorf("%s --out-dir: --out is its alias in every command that has no --out of its own", name)
			case n == "out" && hasFlagPrefix(c, "out-", "out-dir"):
				t.Errorf("%s: --out beside --out-WHAT flags: name each of several outputs --out-WHAT", name)
			case n == "stats":
				t.Errorf("%s --stats: the flag is --stat everywhere", name)
			case n == "out" && strings.Contains(df.GetUsage(), "folder"):
				t.Errorf("%s --out names a folder (%q): that is --out-dir", name, df.GetUsage())
			}
		}
	})
}

// hasFlag says whether c has a flag of that name (its own name, not an alias).
func hasFlag(c *ucli.Command, name string) bool {
	return slices.ContainsFunc(c.Flags, func(f ucli.Flag) bool { return f.Names()[0] == name })
}

// hasFlagPrefix says whether c has a flag named prefix... other than except.
func hasFlagPrefix(c *ucli.Command, prefix, except string) bool {
	return slices.ContainsFunc(c.Flags, func(f ucli.Flag) bool {
		n := f.Names()[0]
		return strings.HasPrefix(n, prefix) && n != except
	})
}

// TestUnknownFlag: a flag a command does not take is a usage error that
// spells it with two dashes and names the closest flag the command takes.
func TestUnknownFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reduce", "--outdir", "x"}, "reduce: unknown flag --outdir; did you mean --out-dir?"},
		{[]string{"synth", "latent", "-seeed", "3"}, "synth latent: unknown flag --seeed; did you mean --seed?"},
		{[]string{"--devce", "cpu", "devices"}, "unknown flag --devce; did you mean --device? (vkstat --help lists the flags)"},
		{[]string{"chol", "--inverted", "x.npy"}, "did you mean --out-inverse?"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want a usage error with %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRenamedFlags: an old spelling still works, with a one-line note
// naming the new one; the new one gives no note.
func TestRenamedFlags(t *testing.T) {
	dir := t.TempDir()
	lat := filepath.Join(dir, "lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,3,4,8,8", "--out", lat); code != 0 {
		t.Fatalf("synth latent: exit %d: %s", code, stderr)
	}
	spd := writeNPY(t, dir, "spd.npy", tensor.FromF64([]float64{4, 2, 2, 3}, 2, 2))
	rhs := writeNPY(t, dir, "b.npy", tensor.FromF64([]float64{1, 2}, 2))
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"latent", "--in", lat, "--stats", "moments", "--out=" + filepath.Join(dir, "a")}, "latent --stats is now --stat\n"},
		{[]string{"latent", "--in", lat, "--stat", "moments", "--out-dir", filepath.Join(dir, "b")}, ""},
		{[]string{"chol", "--in", spd, "--inverse", filepath.Join(dir, "inv.npy"), "-logdet=" + filepath.Join(dir, "ld.npy"), "--solve", rhs, "-o", filepath.Join(dir, "x.npy")},
			"chol --inverse is now --out-inverse\nvkstat: note: chol -logdet is now --out-logdet\nvkstat: note: chol -o is now --out-x\n"},
	} {
		code, _, stderr := run(t, append([]string{"--device", "cpu"}, c.args...)...)
		if code != 0 || !strings.Contains(stderr, c.note) || c.note == "" && strings.Contains(stderr, "note:") {
			t.Errorf("%v: exit %d, stderr %q; want the note %q", c.args, code, stderr, c.note)
		}
	}
	for _, p := range []string{filepath.Join(dir, "a", "summary.json"), filepath.Join(dir, "inv.npy"), filepath.Join(dir, "ld.npy"), filepath.Join(dir, "x.npy")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the old spellings did not write: %v", err)
		}
	}
}

// commandHelp returns the help of the command at path ("synth paco"), as
// vkstat prints it.
func commandHelp(t *testing.T, path string) string {
	t.Helper()
	var out bytes.Buffer
	args := append(append([]string{"vkstat"}, strings.Fields(path)...), "--help")
	if err := New(&out, &out).Run(args); err != nil {
		t.Fatalf("%s --help: %v", path, err)
	}
	return out.String()
}

// findCommand returns the command at path ("synth paco"), or nil.
func findCommand(app *ucli.App, path string) *ucli.Command {
	var found *ucli.Command
	walkCommands(app.Commands, "", func(name string, c *ucli.Command) {
		if name == path {
			found = c
		}
	})
	return found
}

// flagNames are the names (aliases included) of c's flags, the global
// flags and help.
func flagNames(app *ucli.App, c *ucli.Command) map[string]bool {
	names := map[string]bool{"help": true, "h": true}
	for _, fs := range [][]ucli.Flag{c.Flags, app.Flags} {
		for _, f := range fs {
			for _, n := range f.Names() {
				names[n] = true
			}
		}
	}
	return names
}

var (
	goIdentifier = regexp.MustCompile(`\b[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*\b`)
	flagToken    = regexp.MustCompile(`(?:^|[\s(\[,|'"` + "`" + `])--([a-z][a-z0-9-]*)`)
	vkstatWord   = regexp.MustCompile(`\bvkstat\s`)
	clauseEnd    = regexp.MustCompile(`\.(\s|$)|;|\)`)
)

// quotedCalls are the spans of line that quote a command line: from
// "vkstat" to the end of its clause.
func quotedCalls(line string) [][2]int {
	var spans [][2]int
	for _, m := range vkstatWord.FindAllStringIndex(line, -1) {
		end := len(line)
		if e := clauseEnd.FindStringIndex(line[m[0]:]); e != nil {
			end = m[0] + e[0]
		}
		spans = append(spans, [2]int{m[0], end})
	}
	return spans
}

// calledCommand is the command a quoted command line ("vkstat --device
// cpu synth paco --size 5") names: its words that name a command, level
// by level, flags and values skipped; "" for none.
func calledCommand(app *ucli.App, call string) string {
	cmds, path := app.Commands, ""
	for _, w := range strings.Fields(call)[1:] {
		for _, c := range cmds {
			if c.Name == w {
				path, cmds = strings.TrimSpace(path+" "+w), c.Subcommands
				break
			}
		}
	}
	return path
}

// TestHelpNamesWhatExists reads every command's help as a newcomer does:
// no Go identifier (formats.Outputs) in the words, and every --flag it
// names is a flag of the command it talks about: its own (or a sibling
// subcommand's, or a subcommand's for a command that has them), or the
// command a quoted "vkstat synth paco ..." before it on the line names.
func TestHelpNamesWhatExists(t *testing.T) {
	app := New(io.Discard, io.Discard)
	paths := []string{""}
	walkCommands(app.Commands, "", func(name string, c *ucli.Command) { paths = append(paths, name) })
	// accepted are the flag names a command's own text may use.
	accepted := func(path string) map[string]bool {
		if path == "" {
			names := flagNames(app, &ucli.Command{})
			names["version"], names["v"] = true, true
			return names
		}
		c := findCommand(app, path)
		names := flagNames(app, c)
		family := c.Subcommands
		if i := strings.LastIndex(path, " "); i > 0 {
			family = findCommand(app, path[:i]).Subcommands
		}
		for _, s := range family {
			for n := range flagNames(app, s) {
				names[n] = true
			}
		}
		return names
	}
	for _, path := range paths {
		help := commandHelp(t, path)
		if m := goIdentifier.FindAllString(help, -1); len(m) > 0 {
			t.Errorf("vkstat %s --help names Go identifiers %v: say what they mean", path, m)
		}
		for _, line := range strings.Split(help, "\n") {
			calls := quotedCalls(line)
			for _, m := range flagToken.FindAllStringSubmatchIndex(line, -1) {
				name, at := line[m[2]:m[3]], m[2]
				cmd := path
				for _, c := range calls {
					if c[0] < at && at < c[1] {
						if called := calledCommand(app, line[c[0]:c[1]]); called != "" {
							cmd = called
						}
					}
				}
				names := accepted(cmd)
				if cmd != path { // a quoted command line: its own flags only
					names = flagNames(app, findCommand(app, cmd))
				}
				if !names[name] {
					t.Errorf("vkstat %s --help names --%s, which vkstat %s does not take: %s", path, name, cmd, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestHelpSpellings: help spells flags as the README does (map's --x and
// --a, not -x), and bench's usage line offers every suite --suite takes
// (suite.Suites) and every one --tune takes.
func TestHelpSpellings(t *testing.T) {
	help := commandHelp(t, "map")
	for _, f := range []string{"--x value", "--y value", "--a value", "--out value, -o value"} {
		if !strings.Contains(help, f) {
			t.Errorf("map --help lacks %q:\n%s", f, help)
		}
	}
	usage := findCommand(New(io.Discard, io.Discard), "bench").UsageText
	lines := strings.Split(usage, "\n")
	tunable, err := suite.TuneSuites("all")
	if err != nil || len(lines) != 2 {
		t.Fatalf("bench usage %q, tune suites %v", usage, err)
	}
	for i, names := range [][]string{suite.Suites, tunable} {
		m := regexp.MustCompile(`--suite ([a-z|]+)`).FindStringSubmatch(lines[i])
		if m == nil || m[1] != strings.Join(names, "|")+"|all" {
			t.Errorf("bench usage %q offers %v, want %s|all", lines[i], m, strings.Join(names, "|"))
		}
	}
}
