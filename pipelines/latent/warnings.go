package latent

// Doubts about a run's options that do not stop it, as engine.Warning
// values with a code and the figures behind them, which the front ends
// word: the options they name are marked {ddof=2}, {axes=-2,-1}, {batch=64}.

import (
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// The warnings' codes.
const (
	WarnDDof  = "ddof-nan"   // the ddof is at least the values each moment reduces: var and std are NaN
	WarnBatch = "batch-over" // the batch asked for is more than the samples estimated to fit
	WarnEmpty = "empty-nan"  // the moments' axes hold no value: every moment is NaN
)

func joinAxes(axes []int) string {
	s := make([]string, len(axes))
	for i, a := range axes {
		s[i] = strconv.Itoa(a)
	}
	return strings.Join(s, ",")
}

// Warnings are the doubts about o for a tensor of shape, before a run:
// var and std NaN because the ddof is at least the values each moment
// reduces (WarnDDof).
func (o Options) Warnings(shape []int) []engine.Warning {
	n := MomentCount(shape, o.Axes)
	if o.Moments && n == 0 {
		return []engine.Warning{engine.Warn(WarnEmpty, nil, "no values over {axes=%s} (an axis of length 0): every moment is NaN, as NumPy's mean of an empty slice",
			joinAxes(o.Axes))}
	}
	if o.Moments && o.DDof >= n {
		return []engine.Warning{engine.Warn(WarnDDof, map[string]float64{"ddof": float64(o.DDof), "n": float64(n)},
			"{ddof=%d} with %d value(s) over {axes=%s}: var and std are NaN (they divide by n − ddof)", o.DDof, n, joinAxes(o.Axes))}
	}
	return nil
}

// Warnings are the doubts about p: a batch asked for that is more than
// the samples estimated to fit the budget (WarnBatch).
func (p Plan) Warnings() []engine.Warning {
	if !p.Auto && p.Batch > p.Fit {
		return []engine.Warning{engine.Warn(WarnBatch, map[string]float64{"batch": float64(p.Batch), "fit": float64(p.Fit)},
			"{batch=%d} is more than the %d samples estimated to fit (%s); it may run out of memory", p.Batch, p.Fit, p.Budget)}
	}
	return nil
}
