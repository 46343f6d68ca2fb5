package stack

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// memDate is a date held in memory (float32 samples, as read from a file).
type memDate struct {
	name   string
	g      Grid
	data   []float32
	nodata *float64
	opened *int
}

func (d *memDate) Name() string { return d.name }
func (d *memDate) Open() (Reader, error) {
	if d.opened != nil {
		*d.opened++
	}
	return d, nil
}
func (d *memDate) Close() error { return nil }
func (d *memDate) NoData() (float64, bool) {
	if d.nodata == nil {
		return 0, false
	}
	return *d.nodata, true
}
func (d *memDate) Read(x0, y0, w, h int, dst []float32) error {
	per := 1
	if d.g.Complex {
		per = 2
	}
	if x0 < 0 || y0 < 0 || x0+w > d.g.Width || y0+h > d.g.Height {
		return fmt.Errorf("window outside")
	}
	for y := 0; y < h; y++ {
		copy(dst[y*w*per:(y+1)*w*per], d.data[((y0+y)*d.g.Width+x0)*per:((y0+y)*d.g.Width+x0+w)*per])
	}
	return nil
}

// refCase is one case of testdata/stack/cases.json (made by make.py).
type refCase struct {
	Name     string   `json:"name"`
	Dates    int      `json:"dates"`
	Height   int      `json:"height"`
	Width    int      `json:"width"`
	Complex  bool     `json:"complex"`
	Looks    [2]int   `json:"looks"`
	Crop     [4]int   `json:"crop"`
	Quantity string   `json:"quantity"`
	Filter   string   `json:"filter"`
	Size     int      `json:"size"`
	ENL      float64  `json:"enl"`
	Ddof     int      `json:"ddof"`
	NoData   *float64 `json:"nodata"`
	Out      [2]int   `json:"out"`
}

func (c refCase) config() Config {
	// make.py's crop is (row, column, rows, columns) of the multilooked
	// grid: the window of input pixels (x, y, width, height) at those boxes.
	a, r := max(c.Looks[0], 1), max(c.Looks[1], 1)
	cfg := Config{LooksAz: c.Looks[0], LooksRg: c.Looks[1], Window: Window{X: c.Crop[1] * r, Y: c.Crop[0] * a, W: c.Crop[3] * r, H: c.Crop[2] * a}, Ddof: c.Ddof}
	if c.Quantity == "amplitude" {
		cfg.Quantity = Amplitude
	}
	switch c.Filter {
	case "boxcar":
		cfg.Filter = Filter{Kind: Boxcar, Size: c.Size, ENL: c.ENL}
	case "lee":
		cfg.Filter = Filter{Kind: Lee, Size: c.Size, ENL: c.ENL}
	case "refined":
		cfg.Filter = Filter{Kind: RefinedLee, Size: c.Size, ENL: c.ENL}
	}
	return cfg
}

type loaded struct {
	refCase
	plan  *Plan
	dates []Date
	ref   []RefDate
	want  [6][]float64 // mean, std, cv, min, max, count
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func readLE[T float32 | float64](t *testing.T, path string) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z T
	v := make([]T, len(b)/binary.Size(z))
	if err := binary.Read(bytesReader(b), binary.LittleEndian, v); err != nil {
		t.Fatal(err)
	}
	return v
}

func loadCases(t *testing.T) []loaded {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "stack")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []refCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	var out []loaded
	for _, c := range cases {
		g := Grid{Width: c.Width, Height: c.Height, Complex: c.Complex}
		p, err := NewPlan(c.config(), g)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if p.H != c.Out[0] || p.W != c.Out[1] {
			t.Fatalf("%s: plan %d×%d, NumPy %v", c.Name, p.H, p.W, c.Out)
		}
		in := readLE[float32](t, filepath.Join(dir, c.Name+".in.f32"))
		want := readLE[float64](t, filepath.Join(dir, c.Name+".want.f64"))
		l := loaded{refCase: c, plan: p}
		per := len(in) / c.Dates
		for d := 0; d < c.Dates; d++ {
			data := in[d*per : (d+1)*per]
			l.dates = append(l.dates, &memDate{name: fmt.Sprintf("%s[%d]", c.Name, d), g: g, data: data, nodata: c.NoData})
			rd := RefDate{Data: make([]float64, per)}
			for i, v := range data {
				rd.Data[i] = float64(v)
			}
			if c.NoData != nil {
				rd.NoData, rd.HasNoData = *c.NoData, true
			}
			l.ref = append(l.ref, rd)
		}
		n := p.H * p.W
		for k := range l.want {
			l.want[k] = want[k*n : (k+1)*n]
		}
		out = append(out, l)
	}
	return out
}

var statNames = [6]string{"mean", "std", "cv", "min", "max", "count"}

// compare checks each statistic of got against want (checks.Within): NaN
// where NaN, else within tol relative to the largest magnitude of that
// statistic. The first statistic that fails stops the test.
func compare(t *testing.T, what string, got [6][]float64, want [6][]float64, tol float64) {
	t.Helper()
	for k := range want {
		if !checks.Within(t, what+": "+statNames[k], got[k], want[k], tol) {
			t.FailNow()
		}
	}
}

func resultArrays(r *Result) [6][]float64 {
	var a [6][]float64
	for k, s := range [][]float32{r.Mean, r.Std, r.CV, r.Min, r.Max, r.Count} {
		a[k] = make([]float64, len(s))
		for i, v := range s {
			a[k][i] = float64(v)
		}
	}
	return a
}

// TestReferenceMatchesNumPy: the Go float64 reference equals NumPy's.
func TestReferenceMatchesNumPy(t *testing.T) {
	for _, c := range loadCases(t) {
		r := Reference(c.plan, c.ref)
		compare(t, c.Name, [6][]float64{r.Mean, r.Std, r.CV, r.Min, r.Max, r.Count}, c.want, 1e-12)
	}
}

type impl func(ctx context.Context, p *Plan, dates []Date) (*Result, error)

// runSuite holds an implementation to NumPy's float64 results, with strips
// of the default size and of one row (many strips per date, the buffer pool
// cycling).
func runSuite(t *testing.T, run impl) {
	for _, c := range loadCases(t) {
		for _, sb := range []int64{stripBytes, 1} {
			c.plan.test = &testOptions{stripBytes: sb}
			res, err := run(context.Background(), c.plan, c.dates)
			c.plan.test = nil
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if res.Dates != c.Dates || res.H != c.plan.H || res.W != c.plan.W {
				t.Fatalf("%s: result %d dates %d×%d", c.Name, res.Dates, res.H, res.W)
			}
			compare(t, fmt.Sprintf("%s (strips of %d bytes)", c.Name, sb), resultArrays(res), c.want, 2e-5)
			// the valid samples per look box over the dates: the
			// reference's count of each box's values, exactly
			ref := Reference(c.plan, c.ref)
			for i, v := range res.Samples {
				if float64(v) != ref.Samples[i] {
					t.Fatalf("%s (strips of %d bytes): samples[%d] = %g, want %g", c.Name, sb, i, v, ref.Samples[i])
				}
			}
		}
	}
}

func TestCPU(t *testing.T) {
	runSuite(t, func(ctx context.Context, p *Plan, dates []Date) (*Result, error) { return CPU(ctx, p, dates) })
}

func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runSuite(t, func(ctx context.Context, p *Plan, dates []Date) (*Result, error) {
				return Vulkan(ctx, dev, p, dates)
			})
		})
	}
}

// TestPlanErrors: windows outside the image or smaller than a box, bad
// factors and filter windows.
func TestPlanErrors(t *testing.T) {
	g := Grid{Width: 11, Height: 13, Complex: true}
	for _, cfg := range []Config{
		{LooksAz: 2, LooksRg: 3, Window: Window{X: 0, Y: 12, W: 3, H: 2}},
		{LooksAz: 2, LooksRg: 3, Window: Window{X: 9}},
		{LooksAz: 2, LooksRg: 3, Window: Window{X: 1, Y: 1, W: 2, H: 5}},
		{LooksAz: 14},
		{LooksAz: -1},
		{Filter: Filter{Kind: Lee, Size: 4}},
		{Filter: Filter{Kind: Boxcar, Size: 1}},
		{Ddof: -1},
	} {
		if _, err := NewPlan(cfg, g); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	p, err := NewPlan(Config{LooksAz: 4, LooksRg: 4}, g)
	if err != nil || p.H != 3 || p.W != 2 || p.InH != 12 || p.InW != 8 {
		t.Errorf("4×4 of 13×11: %+v %v (remainder dropped: 3×2)", p, err)
	}
	// GDAL's -srcwin 3 1 7 9 (xoff yoff xsize ysize) in input pixels, then
	// 2×3 looks from its corner: 4 rows × 2 columns, read from (3, 1).
	p, err = NewPlan(Config{LooksAz: 2, LooksRg: 3, Window: Window{X: 3, Y: 1, W: 7, H: 9}}, g)
	if err != nil || p.H != 4 || p.W != 2 || p.InX != 3 || p.InY != 1 || p.InH != 8 || p.InW != 6 {
		t.Errorf("window 3,1,7,9 with 2×3 looks: %+v %v", p, err)
	}
}

// failDate fails to open, or to read.
type failDate struct {
	memDate
	openErr, readErr error
}

func (d *failDate) Open() (Reader, error) {
	if d.openErr != nil {
		return nil, d.openErr
	}
	return d, nil
}
func (d *failDate) Read(x0, y0, w, h int, dst []float32) error { return d.readErr }

// TestErrorStopsStream: a date that fails stops the run with its error, on
// both paths, and the reader goroutine ends.
func TestErrorStopsStream(t *testing.T) {
	c := loadCases(t)[0]
	opens := 0
	dates := []Date{c.dates[0], &failDate{openErr: fmt.Errorf("open boom")}, &memDate{opened: &opens}}
	if _, err := CPU(context.Background(), c.plan, dates); err == nil || err.Error() != "open boom" {
		t.Errorf("CPU: %v", err)
	}
	if opens != 0 {
		t.Errorf("a date after the failing one was opened")
	}
	dates[1] = &failDate{memDate: memDate{name: "bad.tif"}, readErr: fmt.Errorf("read boom")}
	for _, dev := range testdev.Devices(t) {
		if _, err := Vulkan(context.Background(), dev, c.plan, dates); err == nil || err.Error() != "bad.tif: read boom" {
			t.Errorf("Vulkan: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CPU(ctx, c.plan, c.dates); err == nil {
		t.Error("cancelled: no error")
	}
}

// TestWindowThenLooks (issue 40, item 7): the window is GDAL's -srcwin
// (xoff, yoff, xsize, ysize) in input pixels and the looks start at its
// corner: on a 5×4 date valued 10·row + column, window 1,1,4,2 with 2×2
// looks gives the boxes {11, 12, 21, 22} and {13, 14, 23, 24}, means
// 16.5 and 18.5 by hand, on the CPU path and every device.
func TestWindowThenLooks(t *testing.T) {
	g := Grid{Width: 5, Height: 4}
	v := make([]float32, 20)
	for y := range 4 {
		for x := range 5 {
			v[y*5+x] = float32(10*y + x)
		}
	}
	dates, err := MemoryDates(v, 1, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(Config{LooksAz: 2, LooksRg: 2, Window: Window{X: 1, Y: 1, W: 4, H: 2}}, g)
	if err != nil {
		t.Fatal(err)
	}
	devs := append([]*engine.Device{nil}, testdev.Devices(t)...)
	for _, dev := range devs {
		r, err := Run(context.Background(), dev, dates, Options{Plan: p})
		if err != nil {
			t.Fatal(err)
		}
		if r.H != 1 || r.W != 2 || r.Mean[0] != 16.5 || r.Mean[1] != 18.5 {
			t.Errorf("device %v: %d×%d mean %v, want 1×2 [16.5 18.5]", dev, r.H, r.W, r.Mean)
		}
	}
}
