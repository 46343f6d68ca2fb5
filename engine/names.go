package engine

import (
	"strings"
)

// ParseNames parses text, a comma-separated list of names from allowed
// ("all": every one, in allowed's order), for field; blank items are
// skipped. A name not in allowed is a *FieldError listing them.
func ParseNames(field, text string, allowed []string) ([]string, error) {
	if text == "all" {
		return allowed, nil
	}
	var out []string
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == f
		}
		if !ok {
			return nil, Fieldf(field, ": unknown %q; want %s", f, strings.Join(allowed, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
