// Package mapx evaluates the elementwise map z = a·x² + b·y + c, the
// copy-versus-compute benchmark of the project's seed documents.
package mapx

import "github.com/vkstat/vkstat/engine"

// Params are the scalar coefficients of z = a·x² + b·y + c, named by
// their `param` tags.
type Params struct {
	A float64 `param:"a"`
	B float64 `param:"b"`
	C float64 `param:"c"`
}

// DefaultParams are the coefficients the front ends take unless told:
// z = x² + y.
func DefaultParams() Params { return Params{A: 1, B: 1, C: 0} }

// Defaults are DefaultParams by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(DefaultParams()) }
