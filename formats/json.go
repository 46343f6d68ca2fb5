package formats

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON (two spaces, a newline at the end): a
// write function for AtomicWrite and Outputs.Add, for the JSON documents
// the commands write (reports, summaries, truth files).
func JSON(v any) func(w io.Writer) error {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
}
