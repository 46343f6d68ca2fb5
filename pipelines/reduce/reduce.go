// Package reduce computes sum, mean, variance, standard deviation, minimum and
// maximum of an N-d array along one axis, on a Vulkan device or on the CPU;
// on a device, also the second, third and fourth central moments of the
// rows of a 2-d array or the columns of a 3-d one reduced along its middle
// axis (Options.Central, Central).
//
// Every path gives NumPy's answer for ±Inf and overflow: a slice holding
// +Inf (or −Inf) has that sum and mean, NaN with both; its var and std are
// NaN; min and max are exact; finite values whose sum or squared deviations
// overflow the float64 accumulator give ±Inf (float32 data are accumulated
// in float64, except on devices without float64).
package reduce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Stat is one statistic that a reduction can produce.
type Stat int

// The statistics, in the order in which kernels lay them out.
const (
	Sum Stat = iota
	Mean
	Var
	Std
	Min
	Max
	numStats
)

var statNames = [...]string{"sum", "mean", "var", "std", "min", "max"}

// String returns the statistic's lower-case name.
func (s Stat) String() string { return statNames[s] }

// Stats are statistics, in the order asked for: Options.Stats, named
// comma-separated ("mean,std") as the front ends give them.
type Stats []Stat

// String names the statistics comma-separated: "mean,std".
func (ss Stats) String() string { return strings.Join(Names(ss), ",") }

// Choices name the statistics a list may hold (engine.Chooser), besides
// "all".
func (Stats) Choices() []string { return statNames[:] }

// UnmarshalText is ParseStats, for engine.Param.SetText.
func (ss *Stats) UnmarshalText(b []byte) (err error) {
	*ss, err = ParseStats(string(b))
	return err
}

// AllStats lists every statistic.
func AllStats() []Stat { return []Stat{Sum, Mean, Var, Std, Min, Max} }

// ParseStats parses a comma-separated list such as "mean,std", or "all"
// (AllStats).
func ParseStats(s string) ([]Stat, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return AllStats(), nil
	}
	var out []Stat
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		if f == "" {
			continue
		}
		found := false
		for i, n := range statNames {
			if n == f {
				out = append(out, Stat(i))
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown statistic %q (want one of %s)", f, strings.Join(statNames[:], ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no statistic given (want one or more of %s)", strings.Join(statNames[:], ", "))
	}
	return out, nil
}

// Options describe a reduction. DefaultOptions are the front ends'
// defaults (Defaults): the mean along axis 0, ddof 0, NaNs propagated.
// Check refuses what no reduction can
// use, as an *engine.FieldError naming the parameter (the `param` tags).
type Options struct {
	// Axes to reduce, NumPy's axis: one, several, or nil for every axis
	// (Axes). Run merges them (MergeAxes).
	Axes Axes `param:"axis" help:"axis to reduce (negative counts from the end), several as 1,2 or 0,2, or all"`
	// DDof is the delta degrees of freedom of var and std, 0 or more (var
	// and std are NaN where n − ddof ≤ 0).
	DDof int `param:"ddof" help:"delta degrees of freedom of var and std (0: population, 1: sample)"`
	// SkipNaN ignores NaN elements (NumPy's nanmean etc.); otherwise a NaN
	// makes every statistic of its slice NaN.
	SkipNaN bool `param:"skipnan" flag:"skip-nan" help:"ignore NaNs instead of propagating them"`
	// Out gives the results their memory (nil: Go memory); each is named
	// by its statistic.
	Out *tensor.Outputs
	// Stats are the statistics Run computes: Python's stat, the C ABI's
	// stats.
	Stats Stats `param:"stat" key:"stats" help:"comma-separated statistics: sum, mean, var, std, min, max, or all"`
	// Central asks Run for the central moments (Result.Central) as well,
	// on a device only, of each row of a 2-d (rows, n) array or each output
	// column of a 3-d (outer, n, inner) one reduced along axis 1, around
	// the Mean that the reduction computes (so Stats must include Mean).
	// Where the reduction takes one tile and merges its records on the
	// device (an array within one binding and a quarter of the memory
	// budget), the second pass runs in the same submission on the window
	// already uploaded, its centres read from the device's Mean. Otherwise
	// Central runs after it, on the device's held copy of the array
	// (engine.Device.Hold) where it has room to spare; only where it has
	// none does the array go up twice.
	Central bool

	// test steers the Vulkan path in tests; nil is what runs otherwise.
	test *testOptions
}

// DefaultOptions are what the front ends compute unless told: the mean
// (NumPy's np.mean(a, 0), which Python's reduce(a, 0) is) along axis 0.
// Python's axis=None is not a default of its own but NumPy's: every axis,
// as nil Axes are (the zero Options' too).
func DefaultOptions() Options { return Options{Axes: Axes{0}, Stats: []Stat{Mean}} }

// Defaults are DefaultOptions by parameter name (engine.Defaults), "stat"
// the statistics' names and "axis" the axes as NumPy's axis (Axes.NumPy).
func Defaults() map[string]any {
	d := DefaultOptions()
	m := engine.Defaults(d)
	m["stat"] = Names(d.Stats)
	m["axis"] = d.Axes.NumPy()
	return m
}

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// Names are the statistics' names, in order.
func Names(stats []Stat) []string {
	names := make([]string, len(stats))
	for i, s := range stats {
		names[i] = s.String()
	}
	return names
}

// Check refuses a negative ddof.
func (o Options) Check() error { return engine.AtLeast("ddof", o.DDof, 0) }

// WarnDDof is the code of the warning that var and std are NaN: the ddof
// is at least the values along the axis.
const WarnDDof = "ddof-nan"

// Warnings are the doubts about o reducing n values (n > 0) along the
// axis, which the front end names as its user gave it: var and std NaN
// because the ddof is at least n (WarnDDof), when o.Stats has either.
func (o Options) Warnings(n int, axis string) []engine.Warning {
	if o.DDof < n || !slices.ContainsFunc(o.Stats, func(s Stat) bool { return s == Var || s == Std }) {
		return nil
	}
	return []engine.Warning{engine.Warn(WarnDDof, map[string]float64{"ddof": float64(o.DDof), "n": float64(n)},
		"{ddof=%d} with %d value(s) along {axis=%s}: var and std are NaN (they divide by n − ddof)", o.DDof, n, axis)}
}

// Result holds the statistics Run computed, each of the input's shape
// without the axis, with what the call cost.
type Result struct {
	Stats map[Stat]*tensor.Tensor
	// Central holds the central moments that Options.Central asks for.
	Central *CentralMoments
	Timing  engine.Timing
}

// Run reduces in over opt.Axes to opt.Stats on dev, or on the CPU when dev
// is nil; axes that are not adjacent from a transposed copy of in.
func Run(ctx context.Context, dev *engine.Device, in *tensor.Tensor, opt Options) (*Result, error) {
	res := &Result{}
	in, opt, err := opt.transposed(in)
	if err != nil {
		return nil, err
	}
	if in != nil && !opt.Central && slices.Contains(in.Shape, 0) {
		if _, err := opt.plan(in.Shape); errors.Is(err, ErrEmptyAxis) {
			return empty(in.Shape, in.DType, opt)
		}
	}
	switch {
	case opt.Central && dev == nil:
		return nil, fmt.Errorf("reduce: central moments are computed on a device only")
	case opt.Central:
		res.Stats, res.Central, res.Timing, err = runCentral(ctx, dev, in, opt)
	case dev == nil:
		res.Stats, res.Timing, err = engine.TimeCPU(func() (map[Stat]*tensor.Tensor, error) { return cpu(ctx, in, opt, opt.Stats) })
	default:
		res.Stats, res.Timing, err = Vulkan(ctx, dev, in, opt, opt.Stats)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// RunSource is Run on an array that src reads as the copies go (a file, on
// the command line). On a device the array streams through in tiles: each
// tile's window of the input is uploaded (read from src as the copies go)
// and reduced by one dispatch into partial records, which the host merges
// in float64. The device never holds more than one window, so an array
// larger than the device memory, one allocation or one binding reduces in
// bounded memory, as does the host when src reads a file. The CPU path
// loads the array first, as does either path for axes that are not
// adjacent (Run's transposed copy); Options.Central needs an array in
// memory (Run).
func RunSource(ctx context.Context, dev *engine.Device, src tensor.Source, opt Options) (*Result, error) {
	if opt.Central {
		return nil, fmt.Errorf("reduce: central moments need the array in memory (Run)")
	}
	g, err := opt.Geometry(src.Shape)
	if errors.Is(err, ErrEmptyAxis) {
		return empty(src.Shape, src.DType, opt)
	}
	if dev == nil || g.Perm != nil {
		in, err := src.Load()
		if err != nil {
			return nil, err
		}
		return Run(ctx, dev, in, opt)
	}
	out, _, tm, err := vulkanSource(ctx, dev, src, opt, opt.Stats, false)
	if err != nil {
		return nil, err
	}
	return &Result{Stats: out, Timing: tm}, nil
}

// Geometry views a row-major shape reduced along one axis as
// (Outer, N, Inner): element (o, i, j) is at (o*N+i)*Inner+j.
type Geometry struct {
	Outer, N, Inner int
	// OutShape is the shape with the axis removed.
	OutShape []int
	// Perm, for axes that are not adjacent (Options.Geometry), is the
	// transposition of the copy Run reduces: the kept axes, then the
	// reduced ones (Permuted).
	Perm []int
}

// Outputs is the number of reduced values, Outer*Inner.
func (g Geometry) Outputs() int { return g.Outer * g.Inner }

// Plan checks axis against shape and returns the geometry.
func Plan(shape []int, axis int) (Geometry, error) {
	nd := len(shape)
	if nd == 0 {
		return Geometry{}, fmt.Errorf("cannot reduce a 0-d array")
	}
	a := axis
	if a < 0 {
		a += nd
	}
	if a < 0 || a >= nd {
		return Geometry{}, fmt.Errorf("axis %d is out of range for an array of %d dimension(s) (valid: %d..%d)", axis, nd, -nd, nd-1)
	}
	g := Geometry{Outer: 1, N: shape[a], Inner: 1}
	for i, s := range shape {
		switch {
		case i < a:
			g.Outer *= s
		case i > a:
			g.Inner *= s
		}
		if i != a {
			g.OutShape = append(g.OutShape, s)
		}
	}
	if g.N == 0 {
		return g, fmt.Errorf("cannot reduce along axis %d: %w", axis, ErrEmptyAxis)
	}
	return g, nil
}

// ErrEmptyAxis is Plan's refusal of an axis of length 0, which the kernels
// cannot reduce; Run and RunSource answer it as NumPy does (empty).
var ErrEmptyAxis = errors.New("the axis has length 0")

// empty is Run's answer for an axis of length 0 (ErrEmptyAxis), the same
// on every device, as NumPy's: a sum of 0, a NaN mean, var and std (NumPy
// warns: the front ends do), and no min or max (NumPy: "zero-size array to
// reduction operation minimum which has no identity"), unless there is
// nothing to write (an output of size 0).
func empty(shape []int, dt tensor.DType, opt Options) (*Result, error) {
	view, axis, _, err := MergeAxes(shape, opt.Axes)
	if err != nil {
		return nil, err
	}
	g, err := Plan(view, axis)
	if !errors.Is(err, ErrEmptyAxis) {
		return nil, err
	}
	res := &Result{Stats: map[Stat]*tensor.Tensor{}}
	for _, s := range opt.Stats {
		if (s == Min || s == Max) && g.Outputs() > 0 { // worded on the merged view
			return nil, fmt.Errorf("%s of an array of shape %s along axis %d: %w, and %s has no identity (NumPy: zero-size array to reduction operation)", s, tensor.ShapeString(view), axis, ErrEmptyAxis, s)
		}
	}
	for _, s := range opt.Stats {
		t := opt.Out.New(s.String(), outType(dt), g.OutShape...)
		v := math.NaN()
		if s == Sum {
			v = 0
		}
		for i := range t.F32 {
			t.F32[i] = float32(v)
		}
		for i := range t.F64 {
			t.F64[i] = v
		}
		res.Stats[s] = t
	}
	return res, nil
}
