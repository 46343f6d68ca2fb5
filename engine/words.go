package engine

// Warnings and refusals that name options, as values each front end words:
// a text marks the options it names as {field} or {field=value}, and Words
// puts them in the caller's terms (the command line's flags, Python's
// keywords), the library's own in Message and Error.

import (
	"errors"
	"fmt"
	"strings"
)

// Setting names option field set to value in a front end's words: the
// command line's "--center auto", Python's "center='auto'"; field alone
// ("--radius", "radius") when value is "". Fields are the library's
// parameter names, as FieldError's.
type Setting func(field, value string) string

// LibrarySetting names field set to value as the library does: "center
// auto", "radius".
func LibrarySetting(field, value string) string {
	if value == "" {
		return field
	}
	return field + " " + value
}

// Marked is text with each option it marks, {field} or {field=value},
// named by set.
func Marked(text string, set Setting) string {
	var b strings.Builder
	rest := text
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest[i+1:], '}')
		if i < 0 || j < 0 {
			break
		}
		field, value, _ := strings.Cut(rest[i+1:i+1+j], "=")
		b.WriteString(rest[:i])
		b.WriteString(set(field, value))
		rest = rest[i+2+j:]
	}
	b.WriteString(rest)
	return b.String()
}

// Warning is a doubt about a run's inputs, options or results that does
// not stop it, as every pipeline reports it. Code names its kind (the
// pipeline's Warn constants), Data holds the figures it rests on, by name,
// and Message says it in the library's words; Words says it in a front
// end's.
type Warning struct {
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Data    map[string]float64 `json:"data,omitempty"`
	text    string             // the message with its options marked; "" when it names none
}

// Warn is a Warning whose message, format with args, marks the options it
// names as {field} or {field=value}.
func Warn(code string, data map[string]float64, format string, args ...any) Warning {
	w := Warning{Code: code, Data: data, text: fmt.Sprintf(format, args...)}
	w.Message = w.Words(LibrarySetting)
	return w
}

// Words says w with set's words for the options it names.
func (w Warning) Words(set Setting) string {
	if w.text == "" {
		return w.Message
	}
	return Marked(w.text, set)
}

func (w Warning) String() string { return w.Message }

// OptionsError refuses options that do not go together: Msg marks each as
// {field}, which Words names in a front end's terms ("--filter-size",
// "filter_size").
type OptionsError struct{ Msg string }

// Optionsf is an *OptionsError with the message format, args.
func Optionsf(format string, args ...any) error {
	return &OptionsError{Msg: fmt.Sprintf(format, args...)}
}

// Error words the error with the library's names for the options.
func (e *OptionsError) Error() string { return e.Words(LibrarySetting) }

// Words words the error with set's names for the options.
func (e *OptionsError) Words(set Setting) string { return Marked(e.Msg, set) }

// InWords is err with set's names for the options it names, when err is
// an error that names options (a *FieldError, an *OptionsError, any with
// a Words method) and nothing more; one wrapped in more words is left as
// it is. named says whether err holds such an error at all: the front
// ends take it for their input's fault.
func InWords(err error, set Setting) (worded error, named bool) {
	var fe interface {
		error
		Words(set Setting) string
	}
	if !errors.As(err, &fe) {
		return err, false
	}
	if err.Error() == fe.Error() {
		return errors.New(fe.Words(set)), true
	}
	return err, true
}
