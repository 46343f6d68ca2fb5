package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCompletion: vkstat completion bash|zsh|fish prints a script the
// shell parses (bash -n; zsh and fish where installed), an unknown shell
// is a usage error, and the candidates the bash and zsh scripts ask for
// are the commands, subcommands and flags.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, script, stderr := run(t, "completion", shell)
		if code != 0 || !strings.Contains(script, "vkstat") {
			t.Fatalf("completion %s: exit %d: %s", shell, code, stderr)
		}
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		cmd := exec.Command(shell, "-n")
		cmd.Stdin = strings.NewReader(script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s -n on the %s script: %v\n%s", shell, shell, err, out)
		}
	}
	if code, _, _ := run(t, "completion", "tcsh"); code != ExitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, ExitUsage)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--generate-bash-completion"}, []string{"reduce", "synth", "completion"}},
		{[]string{"synth", "--generate-bash-completion"}, []string{"latent", "paco", "stack"}},
		{[]string{"reduce", "--o", "--generate-bash-completion"}, []string{"--out-dir", "--out"}},
	} {
		// urfave/cli reads the word before --generate-bash-completion
		// from os.Args.
		saved := os.Args
		os.Args = append([]string{"vkstat"}, c.args...)
		_, stdout, _ := run(t, c.args...)
		os.Args = saved
		for _, w := range c.want {
			if !strings.Contains("\n"+stdout, "\n"+w+"\n") {
				t.Errorf("%v: candidates %q lack %s", c.args, stdout, w)
			}
		}
	}
}

// TestManPage: vkstat man writes every visible command with its usage,
// description and own flags (the global ones once), as roff that groff
// reads without warnings beyond glyphs its fonts lack.
func TestManPage(t *testing.T) {
	code, page, stderr := run(t, "man")
	if code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`.SS "vkstat synth paco"`, `.SS "vkstat reduce"`, ".SH GLOBAL OPTIONS", `\fB\-\-window\fR`, "Multilook remainder"} {
		if !strings.Contains(page, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
	if n := strings.Count(page, `\fB\-\-shader\-dir\fR`) + strings.Count(page, `\fB\-\-shader-dir\fR`); n != 1 {
		t.Errorf("--shader-dir listed %d times, want once (the global options)", n)
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		return
	}
	cmd := exec.Command(groff, "-man", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	var warn bytes.Buffer
	cmd.Stderr = &warn
	if err := cmd.Run(); err != nil {
		t.Fatalf("groff: %v: %s", err, warn.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(warn.String()), "\n") {
		if l != "" && !strings.Contains(l, "can't find special character") {
			t.Errorf("groff: %s", l)
		}
	}
}
