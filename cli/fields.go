package cli

import (
	"errors"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// flagRenames are the flags named otherwise than the library's fields
// (engine.FieldError's, the workloads' Defaults): every other field is its
// flag with "-" for "_".
var flagRenames = map[string]string{"placement": "psf-placement"}

// flagOf is the flag, without its dashes, of a library field.
func flagOf(field string) string {
	if f, ok := flagRenames[field]; ok {
		return f
	}
	return strings.ReplaceAll(field, "_", "-")
}

// flagName is the flag of a library field, as a user types it.
func flagName(field string) string { return "--" + flagOf(field) }

// fieldError is err a usage error, a *engine.FieldError worded with the
// flag's name.
func fieldError(err error) error {
	var fe *engine.FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe) && err.Error() == fe.Error():
		return usageError{errors.New(fe.Words(flagName))}
	case errors.As(err, &fe):
		return usageError{err}
	}
	return err
}
