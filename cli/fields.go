package cli

import (
	"errors"
	"reflect"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/survey"
)

// flagName is the flag of a library field, as a user types it: flags are
// named as survey manifests' columns (survey.ColumnName), "psf_norm"
// --psf-norm.
func flagName(field string) string { return "--" + survey.ColumnName(field) }

// fieldError is err a usage error, a *engine.FieldError (or another
// error that names options, as an *engine.OptionsError) worded with the
// flags' names.
func fieldError(err error) error {
	if w, named := engine.InWords(err, flagSetting); named {
		return usageError{w}
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

// flagAliases are the other names of parameters' flags: -r, -e, and
// quantile's --q, its flag's name before --quantiles.
var flagAliases = map[string][]string{"radius": {"r"}, "estimator": {"e"}, "quantiles": {"q"}}

// longAliases are the aliases taken with two dashes only: the flag each
// names and the global flag whose short name it is with one (-q: --quiet).
var longAliases = map[string][2]string{"q": {"quantiles", "quiet"}}

// paramFlags are the flags of a workload's parameters, made from their
// description (engine.Describe): the name, the default (or what it
// means) and the help are the parameter's own.
func paramFlags(params []engine.Param) []ucli.Flag {
	out := make([]ucli.Flag, len(params))
	for i, p := range params {
		al := flagAliases[p.Flag]
		if p.Output { // a file: --out-<flag>
			out[i] = &ucli.StringFlag{Name: paramFlag(p), Aliases: al, Usage: p.Help}
			continue
		}
		if q, ok := p.Default.([]float64); ok { // a list of numbers: --q 0.1,0.9 or --q 0.1 --q 0.9
			out[i] = &ucli.Float64SliceFlag{Name: p.Flag, Aliases: al, Value: ucli.NewFloat64Slice(q...), DefaultText: p.DefaultText, Usage: p.Help}
			continue
		}
		switch p.Kind {
		case reflect.Float64:
			out[i] = &ucli.Float64Flag{Name: p.Flag, Aliases: al, Value: p.Default.(float64), DefaultText: p.DefaultText, Usage: p.Help}
		case reflect.Int:
			out[i] = &ucli.IntFlag{Name: p.Flag, Aliases: al, Value: p.Default.(int), DefaultText: p.DefaultText, Usage: p.Help}
		case reflect.Bool:
			out[i] = &ucli.BoolFlag{Name: p.Flag, Aliases: al, Value: p.Default.(bool), DefaultText: p.DefaultText, Usage: p.Help}
		default: // text, a list of words too (--stat mean,std)
			out[i] = &ucli.StringFlag{Name: p.Flag, Aliases: al, Value: shownDefault(p.Default), DefaultText: p.DefaultText, Usage: p.Help}
		}
	}
	return out
}

// shownDefault is a default as a flag takes it (engine.ValueText): lists
// comma-separated.
func shownDefault(v any) string {
	text, _ := engine.ValueText(v)
	return text
}

// paramFlag is p's flag, without dashes: --out-<flag> for an output
// (chol's --out-l FILE), else p.Flag.
func paramFlag(p engine.Param) string {
	if p.Output {
		return "out-" + p.Flag
	}
	return p.Flag
}

// setParams sets in opt (a pointer to a workload's options) the
// parameters given on the command line, from their flags' text; an
// output is asked for when its file is given, and only then. An error
// that names its parameter (an *engine.FieldError) is worded as it says,
// with the flag's name.
func setParams(c *ucli.Context, params []engine.Param, opt any) error {
	for _, p := range params {
		if p.Output {
			if err := p.SetText(opt, strconv.FormatBool(c.IsSet(paramFlag(p)))); err != nil {
				return err
			}
			continue
		}
		if !c.IsSet(p.Flag) {
			continue
		}
		text := c.String(p.Flag)
		if _, ok := p.Default.([]float64); ok { // paramFlags's Float64SliceFlag
			text = shownDefault(c.Float64Slice(p.Flag))
		}
		if err := p.SetText(opt, text); err != nil {
			if fe := (*engine.FieldError)(nil); errors.As(err, &fe) {
				return fieldError(err)
			}
			return usagef("--%s: %v", p.Flag, err)
		}
	}
	return nil
}
