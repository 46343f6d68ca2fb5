package engine

import (
	"fmt"
	"reflect"
)

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

// Defaults lists the fields of opt, an options struct filled with its
// defaults, that carry a `param:"name"` tag, by that name: the
// parameters' defaults as the front ends show them. A field whose type has
// a String method (an enumeration) is listed by its name, as the front
// ends take it; any other by its value.
func Defaults(opt any) map[string]any {
	v := reflect.ValueOf(opt)
	t := v.Type()
	out := map[string]any{}
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("param")
		if name == "" {
			continue
		}
		f := v.Field(i).Interface()
		if s, ok := f.(fmt.Stringer); ok {
			f = s.String()
		}
		out[name] = f
	}
	return out
}

// AtLeast refuses a value of field below least, as a *FieldError: "ddof
// must be 0 or more, got -1".
func AtLeast(field string, value, least int) error {
	if value < least {
		return Fieldf(field, " must be %d or more, got %d", least, value)
	}
	return nil
}
