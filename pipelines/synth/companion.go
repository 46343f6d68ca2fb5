package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// String is c as ParseCompanion reads it: "sep=20,pa=45,flux=50".
func (c Companion) String() string {
	return fmt.Sprintf("sep=%g,pa=%g,flux=%g", c.SepPx, c.PA(), c.Flux)
}

// ParseCompanion reads a companion as String writes it,
// "sep=20,pa=45,flux=50" (any order; commas, semicolons or spaces between
// the fields): pa east of north, or theta from +x towards +y.
func ParseCompanion(s string) (Companion, error) {
	const form = `want "sep=PIXELS,pa=DEGREES,flux=FLUX" (pa east of north; or theta=DEGREES from +x towards +y), e.g. "sep=20,pa=45,flux=30"`
	var c Companion
	seen := map[string]bool{}
	norm := s
	for _, sp := range []string{" =", "= ", "\t=", "=\t"} {
		for strings.Contains(norm, sp) {
			norm = strings.ReplaceAll(norm, sp, "=")
		}
	}
	fields := strings.FieldsFunc(norm, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return c, fmt.Errorf("companion %q: %q is not key=value; %s", s, f, form)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return c, fmt.Errorf("companion %q: %s=%q is not a finite number; %s", s, k, v, form)
		}
		if seen[k] {
			return c, fmt.Errorf("companion %q: %s given twice; %s", s, k, form)
		}
		seen[k] = true
		switch k {
		case "sep":
			if x < 0 {
				return c, fmt.Errorf("companion %q: negative separation; %s", s, form)
			}
			c.SepPx = x
		case "pa":
			c.ThetaDeg = PAToTheta(x)
		case "theta":
			c.ThetaDeg = x
		case "flux":
			c.Flux = x
		default:
			return c, fmt.Errorf("companion %q: unknown key %q; %s", s, k, form)
		}
	}
	if seen["pa"] && seen["theta"] {
		return c, fmt.Errorf("companion %q: pa and theta both given (pa is theta − 90°); %s", s, form)
	}
	if seen["theta"] {
		seen["pa"] = true
	}
	for _, k := range []string{"sep", "pa", "flux"} {
		if !seen[k] {
			return c, fmt.Errorf("companion %q: no %s; %s", s, k, form)
		}
	}
	return c, nil
}

// Companions is a list of companions read one at a time, as a repeated
// command-line flag gives them (flag.Value): Set reads one
// (ParseCompanion) and adds it; String is the list, space-separated.
type Companions []Companion

func (l *Companions) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, c := range *l {
		parts[i] = c.String()
	}
	return strings.Join(parts, " ")
}

func (l *Companions) Set(s string) error {
	c, err := ParseCompanion(s)
	if err != nil {
		return err
	}
	*l = append(*l, c)
	return nil
}
