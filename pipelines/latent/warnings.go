package latent

// Doubts about a run's options that do not stop it, as values with a code
// and the figures behind them, which the front ends word.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// Warning is a doubt about a run's options that does not stop it. Code
// names its kind (the Warn constants), Data holds the figures it rests on,
// by name, and Message says it in the library's words; Words says it in a
// front end's.
type Warning struct {
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Data    map[string]float64 `json:"data,omitempty"`
	// Axes are the moments' axes (WarnDDof).
	Axes []int `json:"axes,omitempty"`
	// Budget is the budget the batch outgrows (WarnBatch); a front end
	// may name its source in its own terms before Words.
	Budget engine.MemoryBudget `json:"-"`
}

// The warnings' codes.
const (
	WarnDDof  = "ddof-nan"   // the ddof is at least the values each moment reduces: var and std are NaN
	WarnBatch = "batch-over" // the batch asked for is more than the samples estimated to fit
	WarnEmpty = "empty-nan"  // the moments' axes hold no value: every moment is NaN
)

// Words says w with set's words for the options it names: set(field,
// value) is how the caller names field set to value ("--ddof 2",
// "ddof 2"); for "axes", how it names the moments' axes, value listed
// comma-separated.
func (w Warning) Words(set func(field, value string) string) string {
	n := func(k string) string { return strconv.Itoa(int(w.Data[k])) }
	switch w.Code {
	case WarnDDof:
		return fmt.Sprintf("%s with %s value(s) over %s: var and std are NaN (they divide by n − ddof)",
			set("ddof", n("ddof")), n("n"), set("axes", joinAxes(w.Axes)))
	case WarnEmpty:
		return fmt.Sprintf("no values over %s (an axis of length 0): every moment is NaN, as NumPy's mean of an empty slice",
			set("axes", joinAxes(w.Axes)))
	case WarnBatch:
		return fmt.Sprintf("%s is more than the %s samples estimated to fit (%s); it may run out of memory",
			set("batch", n("batch")), n("fit"), w.Budget)
	}
	return w.Message
}

func (w Warning) String() string { return w.Message }

// libraryWords names field set to value as the library does: "ddof 2".
func libraryWords(field, value string) string { return field + " " + value }

func joinAxes(axes []int) string {
	s := make([]string, len(axes))
	for i, a := range axes {
		s[i] = strconv.Itoa(a)
	}
	return strings.Join(s, ",")
}

func warning(w Warning) Warning {
	w.Message = w.Words(libraryWords)
	return w
}

// Warnings are the doubts about o for a tensor of shape, before a run:
// var and std NaN because the ddof is at least the values each moment
// reduces (WarnDDof).
func (o Options) Warnings(shape []int) []Warning {
	n := MomentCount(shape, o.Axes)
	if o.Moments && n == 0 {
		return []Warning{warning(Warning{Code: WarnEmpty, Axes: o.Axes})}
	}
	if o.Moments && o.DDof >= n {
		return []Warning{warning(Warning{Code: WarnDDof, Data: map[string]float64{"ddof": float64(o.DDof), "n": float64(n)}, Axes: o.Axes})}
	}
	return nil
}

// Warnings are the doubts about p: a batch asked for that is more than
// the samples estimated to fit the budget (WarnBatch).
func (p Plan) Warnings() []Warning {
	if !p.Auto && p.Batch > p.Fit {
		return []Warning{warning(Warning{Code: WarnBatch, Data: map[string]float64{"batch": float64(p.Batch), "fit": float64(p.Fit)}, Budget: p.Budget})}
	}
	return nil
}
