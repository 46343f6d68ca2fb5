package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
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
		// One name per concept: --stat for what to compute, --out-dir for
		// a folder of outputs (--out is one file).
		for _, f := range c.Flags {
			df, ok := f.(ucli.DocGenerationFlag)
			if !ok {
				continue
			}
			switch n := f.Names()[0]; {
			case n == "stats":
				t.Errorf("%s --stats: the flag is --stat everywhere", name)
			case n == "out" && strings.Contains(df.GetUsage(), "folder"):
				t.Errorf("%s --out names a folder (%q): that is --out-dir", name, df.GetUsage())
			}
		}
	})
}

// TestRenamedFlags: an old spelling still works, with a one-line note
// naming the new one; the new one gives no note.
func TestRenamedFlags(t *testing.T) {
	dir := t.TempDir()
	lat := filepath.Join(dir, "lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,3,4,8,8", "--out", lat); code != 0 {
		t.Fatalf("synth latent: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"latent", "--in", lat, "--stats", "moments", "--out=" + filepath.Join(dir, "a")}, "latent --stats is now --stat\nvkstat: note: latent --out is now --out-dir\n"},
		{[]string{"latent", "--in", lat, "--stat", "moments", "--out-dir", filepath.Join(dir, "b")}, ""},
	} {
		code, _, stderr := run(t, append([]string{"--device", "cpu"}, c.args...)...)
		if code != 0 || !strings.Contains(stderr, c.note) || c.note == "" && strings.Contains(stderr, "note:") {
			t.Errorf("%v: exit %d, stderr %q; want the note %q", c.args, code, stderr, c.note)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "summary.json")); err != nil {
		t.Errorf("the old spellings did not write: %v", err)
	}
}

func TestRateText(t *testing.T) {
	for v, want := range map[float64]string{12.34e6: "12.3 MB/s", 2.5e9: "2.5 GB/s", 999: "999 B/s", 3.2e12: "3.2 TB/s", 4500: "4.5 kB/s"} {
		if got := rateText(v); got != want {
			t.Errorf("rateText(%g) = %q, want %q", v, got, want)
		}
	}
}
