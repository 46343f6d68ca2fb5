package engine

import "fmt"

// FieldError is an option a library call cannot use, shared by the
// engine's options and every pipeline's Options.Check. Field names the
// option as the library's parameter: snake_case, as the Python package
// spells its keyword ("radius", "ddof", "device_memory"); Msg says what is
// wrong, starting with ": " or " ". Front ends word it with their own name
// for the field (Words, as a Warning or an OptionsError), as they word an
// OpenError: the command line "--radius", Python "radius".
type FieldError struct {
	Field string
	Msg   string
}

// Fieldf is a *FieldError for field with the message format, args.
func Fieldf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Error words the error with the library's name for the field.
func (e *FieldError) Error() string { return e.Field + e.Msg }

// Words words the error with the caller's name for the field,
// set(field, "").
func (e *FieldError) Words(set Setting) string { return set(e.Field, "") + e.Msg }

// AtLeast refuses a value of field below least, as a *FieldError: "ddof
// must be 0 or more, got -1".
func AtLeast(field string, value, least int) error {
	if value < least {
		return Fieldf(field, " must be %d or more, got %d", least, value)
	}
	return nil
}
