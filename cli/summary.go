package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/outputs"
)

// jsonFlag is --json of the commands that print a summary (summary).
func jsonFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "json", Usage: "print the summary on standard output as one JSON object (the files written, with their types and shapes, and the figures the text gives) instead of text"}
}

// summary is what a command prints on standard output when it is done:
// the files it wrote and a few figures, as lines of text or, with --json,
// one JSON object with the command's name, the device, "files" and the
// figures.
type summary struct {
	doc   map[string]any
	files []map[string]any
	text  strings.Builder
}

func newSummary(c *ucli.Context) *summary {
	return &summary{doc: map[string]any{"command": strings.TrimPrefix(c.Command.FullName(), c.App.Name+" ")}}
}

// file records a file written: its path, type and shape (a nil shape: not
// an array), with its line of text (File.Text).
func (s *summary) file(o outputs.File) {
	f := map[string]any{"path": o.Path}
	if o.DType != "" {
		f["dtype"] = o.DType
	}
	if o.Shape != nil {
		f["shape"] = append([]int{}, o.Shape...)
	}
	s.files = append(s.files, f)
	s.line("%s", o.Text())
}

// set records a figure of the JSON object.
func (s *summary) set(key string, v any) { s.doc[key] = v }

// line adds a line to the text.
func (s *summary) line(format string, args ...any) {
	fmt.Fprintf(&s.text, format+"\n", args...)
}

// print writes the summary to standard output: JSON with --json, else the
// text.
func (s *summary) print(c *ucli.Context) error {
	if !c.Bool("json") {
		_, err := fmt.Fprint(c.App.Writer, s.text.String())
		return err
	}
	if s.files != nil || s.doc["files"] == nil {
		s.doc["files"] = append([]map[string]any{}, s.files...)
	}
	e := json.NewEncoder(c.App.Writer)
	e.SetIndent("", "  ")
	return e.Encode(s.doc)
}
