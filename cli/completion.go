package cli

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// completionCommand prints a shell's completion script for vkstat.
func completionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		UsageText: "vkstat completion bash|zsh|fish",
		Description: `Prints a script that completes vkstat's commands, subcommands and flags
in your shell. Load it for this session, or for every new one:

   source <(vkstat completion bash)                          # bash; add the line to ~/.bashrc
   vkstat completion zsh > "${fpath[1]}/_vkstat"             # zsh, then start a new shell
   vkstat completion fish > ~/.config/fish/completions/vkstat.fish

The bash and zsh scripts ask vkstat itself for the words that fit, so they
follow the vkstat on your PATH as it changes; fish's lists them.`,
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion: name one shell: bash, zsh or fish")
			}
			return writeCompletion(c.App.Writer, c.App, c.Args().First())
		},
	}
}

// The bash and zsh scripts, shell code kept as shell files (TestCompletion
// checks them with bash -n and zsh -n).
var (
	//go:embed completion/vkstat.bash
	bashCompletion string
	//go:embed completion/vkstat.zsh
	zshCompletion string
)

// writeCompletion writes shell's completion script. Bash and zsh ask
// vkstat for the candidates (urfave/cli's --generate-bash-completion:
// the subcommands, or the flags after a "-").
func writeCompletion(w io.Writer, app *ucli.App, shell string) error {
	switch shell {
	case "bash":
		_, err := io.WriteString(w, bashCompletion)
		return err
	case "zsh":
		_, err := io.WriteString(w, zshCompletion)
		return err
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	}
	return usagef("completion %q: want bash, zsh or fish", shell)
}

// manCommand prints vkstat's manual page, made from the help (make man).
func manCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "man",
		Usage:  "print the manual page (roff) made from the help; make man writes bin/vkstat.1",
		Hidden: true,
		Action: func(c *ucli.Context) error {
			_, err := io.WriteString(c.App.Writer, manPage(c.App))
			return err
		},
	}
}

// manPage is the manual page: the help of vkstat and of every command
// (urfave/cli's ToMan leaves out the commands' descriptions), in roff.
// The descriptions are set as written, line by line, since their lists and
// tables are laid out by hand.
func manPage(app *ucli.App) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH VKSTAT 1 \"\" \"vkstat %s\" \"User Commands\"\n", roff(app.Version))
	fmt.Fprintf(&b, ".SH NAME\nvkstat \\- %s\n", roff(app.Usage))
	b.WriteString(".SH SYNOPSIS\n.B vkstat\n[global options] command [command options] [arguments...]\n")
	fmt.Fprintf(&b, ".SH DESCRIPTION\n%s", preformatted(app.Description))
	b.WriteString(".SH GLOBAL OPTIONS\n")
	manFlags(&b, app.Flags)
	b.WriteString(".SH COMMANDS\n")
	walkCommands(app.Commands, "", func(path string, c *ucli.Command) {
		if c.Hidden || c.Name == "help" {
			return // neither has subcommands
		}
		fmt.Fprintf(&b, ".SS \"vkstat %s\"\n%s\n", roff(path), roff(c.Usage))
		if c.UsageText != "" {
			fmt.Fprintf(&b, ".PP\n%s", preformatted(c.UsageText))
		}
		if c.Description != "" {
			fmt.Fprintf(&b, ".PP\n%s", preformatted(c.Description))
		}
		var own []ucli.Flag
		for _, f := range c.Flags {
			if cf, ok := f.(ucli.CategorizableFlag); ok && cf.GetCategory() == globalCategory {
				continue // the global flags, listed once above
			}
			own = append(own, f)
		}
		manFlags(&b, own)
	})
	b.WriteString(".SH SEE ALSO\nREADME.md and docs/ in vkstat's sources; vkstat COMMAND --help.\n")
	return b.String()
}

// manFlags lists flags, one tagged paragraph each.
func manFlags(b *strings.Builder, flags []ucli.Flag) {
	for _, f := range flags {
		df, ok := f.(ucli.DocGenerationFlag)
		if vf, visible := f.(ucli.VisibleFlag); !ok || visible && !vf.IsVisible() {
			continue
		}
		var names []string
		for i, n := range f.Names() {
			dash := "\\-\\-"
			if i > 0 && len(n) == 1 {
				dash = "\\-"
			}
			names = append(names, "\\fB"+dash+roff(n)+"\\fR")
		}
		value := ""
		if df.TakesValue() {
			value = " \\fIvalue\\fR"
		}
		usage := df.GetUsage()
		if d := df.GetDefaultText(); d != "" && d != "false" {
			usage += " (default: " + d + ")"
		}
		fmt.Fprintf(b, ".TP\n%s%s\n%s\n", strings.Join(names, ", "), value, roff(usage))
	}
}

// preformatted sets text line by line as written (no filling).
func preformatted(text string) string {
	var b strings.Builder
	b.WriteString(".nf\n")
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(roff(l) + "\n")
	}
	b.WriteString(".fi\n")
	return b.String()
}

// roff escapes a line of text for roff: backslashes, a leading dot or
// quote (which would start a request), and characters beyond ASCII as
// \[uXXXX], which groff and mandoc read whatever the locale.
func roff(s string) string {
	var b strings.Builder
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		b.WriteString("\\&")
	}
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString("\\e")
		case r > 127:
			fmt.Fprintf(&b, "\\[u%04X]", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
