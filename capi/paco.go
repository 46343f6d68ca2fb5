package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// pacoParams is the type paco's parameters decode into: paco's own
// (paco.Params, paramsType), then the C ABI's center (null or "": the
// header's, else measured; "auto"; or [y, x], pixels, 0-based) and
// precision (f32 or f64, or NumPy's names; "" or auto: the cube's).
var pacoParams = sync.OnceValue(func() reflect.Type {
	return paramsType(paco.Params(),
		reflect.StructField{Name: "Center", Type: reflect.TypeFor[any](), Tag: `json:"center"`},
		reflect.StructField{Name: "Precision", Type: reflect.TypeFor[string](), Tag: `json:"precision"`})
})

// runPaco runs paco.Run, the whole analysis vkstat paco does, on array
// cube (T, H, W), float32 or float64, read where it lies, angles (T,)
// float64 and, unless FWHM is given, psf (an odd square stamp). Outputs:
// snr, flux and sigma (float64 (H, W), as the command's files), psf (the
// stamp used, before normalisation), and three tables as one output per
// column, named table.column: detections (detections.csv's columns),
// contrast (contrast.csv's) and, with ContrastCheck, contrast_check
// (contrast_check.csv's).
func runPaco(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	p := reflect.New(pacoParams())
	if err := c.Params(p.Interface()); err != nil {
		return nil, err
	}
	cube, err := c.Tensor("cube", Floats...)
	if err != nil {
		return nil, err
	}
	at, err := c.Tensor("angles", tensor.F64)
	if err != nil {
		return nil, err
	}
	// As the command line reads an angles file: one axis longer than 1,
	// so the (T, 1) and (1, T) columns of FITS tables are T angles.
	if long := 0; len(at.Shape) > 0 {
		for _, s := range at.Shape {
			if s != 1 {
				long++
			}
		}
		if long > 1 {
			return nil, inputf("angles has shape %s; want (T,), one parallactic angle per frame (or (T, 1), (1, T))", tensor.ShapeString(at.Shape))
		}
		at = tensor.FromF64(at.F64, at.Len())
	} else {
		return nil, inputf("angles is a scalar; want (T,), one parallactic angle per frame")
	}
	opt, err := pacoOptions(p)
	if err != nil {
		return nil, err
	}
	if err := paco.PSFGiven(c.Has("psf"), opt.FWHM); err != nil {
		return nil, inputError(err)
	}
	if c.Has("psf") {
		if opt.PSF, err = c.Tensor("psf", Floats...); err != nil {
			return nil, err
		}
	}
	res := c.Result()
	var notes []string
	opt.Note = func(msg string) { notes = append(notes, msg) }
	r, err := paco.Run(ctx, dev, paco.ADI{Cube: cube, Angles: at.F64}, opt)
	if errors.Is(err, paco.ErrCPUFloat64) {
		return nil, inputf("precision %s: the PACO CPU path computes in float64 only; ask for float64 (or None) there, or open a Vulkan device (lavapipe, gpu) for float32", opt.DType)
	}
	if err != nil {
		return nil, inputError(err)
	}
	m := r.Maps
	snr, flux, sigma := m.Tensors()
	res.add("snr", snr)
	res.add("flux", flux)
	res.add("sigma", sigma)
	res.add("psf", r.PSF)
	addTable(res, paco.DetectionTable(r.Detections, opt.PixelScale > 0, opt.Unbiased))
	addTable(res, paco.ContrastTable(r.Contrast, opt.PixelScale > 0))
	if opt.ContrastCheck {
		addTable(res, paco.CheckTable(r.Checks))
	}
	for _, w := range r.Warnings {
		res.Warnings = append(res.Warnings, w.Words(pySetting))
	}
	res.Info = paco.NewInfo(opt, r, notes)
	return res.timed(r.Timing), nil
}

// pacoOptions turns p, a pacoParams, into paco.Options, which paco.Run
// checks.
func pacoOptions(p reflect.Value) (paco.Options, error) {
	opt := paco.DefaultOptions()
	err := setParams(p.Elem(), paco.Params(), &opt)
	if err != nil {
		return opt, err
	}
	if opt.Center, opt.CenterYX, err = pacoCenter(p.Elem().FieldByName("Center").Interface()); err != nil {
		return opt, err
	}
	if pr := p.Elem().FieldByName("Precision").String(); pr != "" && pr != "auto" {
		d, err := tensor.ParseDType(pr)
		if err != nil || d.Is16() {
			return opt, inputf("precision %q: want float32 or float64 (f32, f64), or None for the cube's own", pr)
		}
		opt.Convert, opt.DType = true, d
	}
	return opt, nil
}

// pacoCenter reads the centre: null or "" (measured, used when it rules
// out (H/2, W/2)), "auto", or [y, x] in pixels, 0-based.
func pacoCenter(v any) (paco.CenterChoice, [2]float64, error) {
	var yx [2]float64
	switch c := v.(type) {
	case nil:
		return paco.CenterDefault, yx, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(c)) {
		case "":
			return paco.CenterDefault, yx, nil
		case "auto":
			return paco.CenterAuto, yx, nil
		}
	case []any:
		ok := len(c) == 2
		for i := 0; ok && i < 2; i++ {
			n, isNum := c[i].(json.Number)
			var err error
			yx[i], err = n.Float64()
			ok = isNum && err == nil
		}
		if ok {
			return paco.CenterGiven, yx, nil
		}
	}
	return 0, yx, inputf("center: want (y, x) in pixels, 0-based, or auto; got %s", jsonWords(v))
}

// addTable adds the columns of t as outputs table.column (NaN, 0 or
// false for a cell the row has none of).
func addTable(r *Result, t paco.Table) {
	n := t.Rows
	for _, c := range t.Columns {
		size := int64(n)
		if c.Kind != "bool" {
			size *= 8
		}
		r.addRaw(t.Name+"."+c.Name, c.Kind, []int{n}, size, func(b []byte) {
			for i := range n {
				switch v := c.Cell(i).(type) {
				case nil:
					switch c.Kind {
					case "float64":
						binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(math.NaN()))
					case "int64":
						binary.LittleEndian.PutUint64(b[8*i:], 0)
					default:
						b[i] = 0
					}
				case float64:
					binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
				case int:
					binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(v)))
				case bool:
					b[i] = 0
					if v {
						b[i] = 1
					}
				}
			}
		})
	}
}
