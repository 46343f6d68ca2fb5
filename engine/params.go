package engine

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Param describes one parameter of a workload's options, as the tags of
// its field say: every front end (the command line's flags, survey
// manifests' columns, the C ABI's JSON keys, Python's keywords) is built
// from it, so a parameter is written once, on its field:
//
//	Radius int `param:"radius" help:"patch radius in pixels"`
//
// Tags beside `param`: `help` (the help text, without the default, which
// the front ends show from Default), `flag` (the command line's flag and
// the manifest's column, where not Name with "-" for "_"), `default` (what
// a zero default means, shown instead of it: "2×radius") and `choices`
// (comma-separated, where the field's type has no Choices method),
// `kind:"text"` (Text), `kind:"output"` (Output) and `key` (Key). A field
// of a slice type ([]float64, []int, or one read from text by its
// UnmarshalText) is a list, Kind reflect.Slice, which the front ends take
// comma-separated (a flag) or as a list (JSON). What a
// value may be is the options' Check, in one place.
type Param struct {
	// Name is the library's name: snake_case, Python's keyword and the C
	// ABI's key ("psf_norm").
	Name string
	// Flag is the command line's flag, without dashes, and the survey
	// manifest's column ("psf-norm").
	Flag string
	// Key is the C ABI's key where not Name (`key:"stats"` for reduce's
	// stat, whose Python keyword is Name); "" otherwise.
	Key string
	// Kind is the value's kind as the front ends take it: reflect.Float64,
	// Int, Bool or String (an enumeration is a String with Choices).
	Kind reflect.Kind
	// Default is the default as Defaults gives it (an enumeration's name).
	Default any
	// DefaultText, when set, is shown for the default instead of its
	// value: what a zero means ("2×radius").
	DefaultText string
	// Help is the parameter's help text.
	Help string
	// Choices are an enumeration's names, when the value is one of them.
	Choices []string
	// Text: the front ends take the value as text, a number or a word
	// (`kind:"text"`: a flux, or "psf"), which the options' SetText reads
	// (TextSetter); Kind is then String.
	Text bool
	// Output: the command line takes the parameter, a bool, as an output
	// file (--out-<flag> FILE), true when given (`kind:"output"`): chol
	// computes what it is asked to write.
	Output bool
	// None: the parameter's type reads decoded JSON itself (ValueSetter),
	// null too, as a value of its own (NumPy's axis=None: every axis); the
	// C ABI then tells null from a key left out, which leaves the default.
	None  bool
	index []int
}

// ValueSetter is a parameter's type (as a pointer) that reads a value
// decoded from JSON itself (Param.SetValue), null included (Param.None):
// an axis takes an integer, a list of them or null, not their text.
type ValueSetter interface{ SetValue(v any) error }

// Chooser is an enumeration's type that names its values, for
// Param.Choices.
type Chooser interface{ Choices() []string }

// TextSetter is an options struct (as a pointer) that reads some of its
// parameters from text itself, where the field's type cannot: a flux
// that may be "psf". SetText reports whether it took the parameter.
type TextSetter interface {
	SetText(param, text string) (bool, error)
}

// TextGetter is an options struct that shows the values of the
// parameters its SetText reads as text itself, as SetText takes them: a
// multilook box of 1×1 rows and columns "1x1". Describe takes a text
// parameter's Default from it.
type TextGetter interface {
	Text(param string) string
}

// Describe lists the parameters of opt, an options struct filled with its
// defaults, in the order of its fields: each field with a `param` tag.
//
// A field of struct type without a `param` tag is described in place: its
// own tagged fields are the options' (a filter's kind, size and looks).
func Describe(opt any) []Param {
	return describe(opt, reflect.ValueOf(opt), nil)
}

// describe lists the parameters of v, a struct at index in opt.
func describe(opt any, v reflect.Value, index []int) []Param {
	t := v.Type()
	var out []Param
	for i := range t.NumField() {
		f := t.Field(i)
		at := append(slices.Clip(index), i)
		name := f.Tag.Get("param")
		if name == "" {
			if f.Type.Kind() == reflect.Struct && f.IsExported() {
				out = append(out, describe(opt, v.Field(i), at)...)
			}
			continue
		}
		p := Param{Name: name, Flag: f.Tag.Get("flag"), Key: f.Tag.Get("key"), Kind: f.Type.Kind(), Default: shownValue(v.Field(i).Interface()),
			DefaultText: f.Tag.Get("default"), Help: f.Tag.Get("help"), index: at}
		if p.Flag == "" {
			p.Flag = strings.ReplaceAll(name, "_", "-")
		}
		if c, ok := v.Field(i).Interface().(Chooser); ok {
			p.Choices = c.Choices()
		} else if s := f.Tag.Get("choices"); s != "" {
			p.Choices = strings.Split(s, ",")
		}
		if _, ok := v.Field(i).Interface().(fmt.Stringer); ok && p.Kind != reflect.Slice { // a list stays one
			p.Kind = reflect.String
		}
		if f.Tag.Get("kind") == "text" {
			p.Kind, p.Text = reflect.String, true
			if tg, ok := opt.(TextGetter); ok {
				p.Default = tg.Text(name)
			}
		}
		p.Output = f.Tag.Get("kind") == "output"
		p.None = reflect.PointerTo(f.Type).Implements(reflect.TypeFor[ValueSetter]())
		out = append(out, p)
	}
	return out
}

// FindParam is the parameter of params named name (or flag name), nil
// when none is.
func FindParam(params []Param, name string) *Param {
	for i := range params {
		if params[i].Name == name || params[i].Flag == name {
			return &params[i]
		}
	}
	return nil
}

// shownValue is a default as the front ends show it: an enumeration (a
// type with a String method) by its name, anything else by its value.
func shownValue(f any) any {
	if s, ok := f.(fmt.Stringer); ok {
		return s.String()
	}
	return f
}

// Defaults lists the parameters of opt, an options struct filled with its
// defaults, by name (Describe): their defaults as the front ends show
// them.
func Defaults(opt any) map[string]any {
	out := map[string]any{}
	for _, p := range Describe(opt) {
		out[p.Name] = p.Default
	}
	return out
}

// SetText sets the parameter of opt (a pointer to the options struct) from
// text, as the command line and survey manifests give it: a number, true
// or false, an enumeration's name (its type's UnmarshalText) or a string;
// or as opt's own SetText reads it. The error says what the text should
// have been, without the parameter's name; the range is left to Check.
func (p Param) SetText(opt any, text string) error {
	if ts, ok := opt.(TextSetter); ok {
		if done, err := ts.SetText(p.Name, text); done || err != nil {
			return err
		}
	}
	f := reflect.ValueOf(opt).Elem().FieldByIndex(p.index)
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(text))
	}
	s := strings.TrimSpace(text)
	switch f.Kind() {
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("want a number, got %q", text)
		}
		f.SetFloat(x)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("want a whole number, got %q", text)
		}
		f.SetInt(int64(n))
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", text)
		}
		f.SetBool(b)
	case reflect.String:
		f.SetString(text)
	case reflect.Slice:
		return setList(f, text)
	default:
		return fmt.Errorf("a %s cannot be set from text", f.Type())
	}
	return nil
}

// SetValue sets the parameter of opt (a pointer to the options struct)
// from a value decoded from JSON (the C ABI's): a float64, int, bool,
// string or json.Number, read as SetText reads its text, or, for a text
// parameter (the options' SetText reads), a list of numbers, read as
// their text comma-separated ("2,8"); or as the parameter's type reads
// JSON itself (ValueSetter).
func (p Param) SetValue(opt any, v any) error {
	if p.None {
		return reflect.ValueOf(opt).Elem().FieldByIndex(p.index).Addr().Interface().(ValueSetter).SetValue(v)
	}
	text, ok := ValueText(v)
	if !ok {
		return fmt.Errorf("want a number or a string, got %v", v)
	}
	return p.SetText(opt, text)
}

// setList sets f, a list of numbers or of words, from text: its
// elements comma-separated, numbers as strconv reads them (NaN and ±Inf
// too: a list's range, as a value's, is its options' Check's); "" is the
// empty list.
func setList(f reflect.Value, text string) error {
	if strings.TrimSpace(text) == "" { // none: the options' Check says whether that will do
		f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		return nil
	}
	items := strings.Split(text, ",")
	l := reflect.MakeSlice(f.Type(), len(items), len(items))
	for i, s := range items {
		s = strings.TrimSpace(s)
		var err error
		switch e := l.Index(i); e.Kind() {
		case reflect.Float64:
			var x float64
			x, err = strconv.ParseFloat(s, 64)
			e.SetFloat(x)
		case reflect.Int:
			var n int
			n, err = strconv.Atoi(s)
			e.SetInt(int64(n))
		case reflect.String:
			e.SetString(s)
		default:
			return fmt.Errorf("a %s cannot be set from text", f.Type())
		}
		if err != nil {
			return fmt.Errorf("want comma-separated numbers, got %q", text)
		}
	}
	f.Set(l)
	return nil
}

// ValueText is v as SetText reads it, and as the front ends show a
// default: a number as strconv writes it (a float64 at its shortest), true
// or false, a string as it is, a list (Go's, or one decoded from JSON) its
// elements' text comma-separated. ok is false for a value of another type,
// whose text is then fmt's; an element of a JSON list that is no number
// or string leaves its place empty, which SetText refuses.
func ValueText(v any) (text string, ok bool) {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case bool:
		return strconv.FormatBool(x), true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case []float64:
		return listText(x), true
	case []int:
		return listText(x), true
	case []string:
		return listText(x), true
	case []any:
		return listText(x), true
	}
	return fmt.Sprint(v), false
}

// listText is ValueText of a list's elements, comma-separated; in a list
// decoded from JSON ([]any) only numbers and strings have text.
func listText[T any](l []T) string {
	_, decoded := any(l).([]any)
	s := make([]string, len(l))
	for i, v := range l {
		switch e := any(v).(type) {
		case int, bool:
			if decoded {
				continue
			}
			s[i], _ = ValueText(e)
		case float64, string, json.Number:
			s[i], _ = ValueText(e)
		}
	}
	return strings.Join(s, ",") // another item leaves its place empty, which the reader refuses
}
