package cli

import (
	"errors"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/survey"
	"strconv"
	"strings"
)

// flagOf is the flag, without its dashes, of a library field: flags are
// named as survey manifests' columns (survey.ColumnName), "psf_norm"
// --psf-norm.
func flagOf(field string) string { return survey.ColumnName(field) }

// flagName is the flag of a library field, as a user types it.
func flagName(field string) string { return "--" + flagOf(field) }

// fieldError is err a usage error, a *engine.FieldError (or another
// error that names options, as an *engine.OptionsError) worded with the
// flags' names.
func fieldError(err error) error {
	var fe interface {
		error
		Words(set engine.Setting) string
	}
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe) && err.Error() == fe.Error():
		return usageError{errors.New(fe.Words(flagSetting))}
	case errors.As(err, &fe):
		return usageError{err}
	}
	return err
}

// flagSetting names a library field set to value as the command line
// does: "--center auto", or the flag alone ("--radius") when value is "".
func flagSetting(field, value string) string {
	if value == "" {
		return flagName(field)
	}
	return flagName(field) + " " + value
}

// joinInts lists v comma-separated, as list flags take them: "-2,-1".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
