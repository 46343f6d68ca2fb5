// Package mapx evaluates the elementwise map z = a·x² + b·y + c, the
// copy-versus-compute benchmark of the project's seed documents.
package mapx

// Params are the scalar coefficients of z = a·x² + b·y + c.
type Params struct{ A, B, C float64 }
