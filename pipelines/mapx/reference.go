package mapx

// Reference evaluates z = a·x² + b·y + c in float64 with a plain loop: the
// obviously-right value that the fast paths are held against. x and y must
// have the same length; Reference returns nil when they do not.
func Reference(x, y []float64, p Options) []float64 {
	if len(x) != len(y) {
		return nil
	}
	z := make([]float64, len(x))
	for i := range x {
		z[i] = p.A*x[i]*x[i] + p.B*y[i] + p.C
	}
	return z
}
