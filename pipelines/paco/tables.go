package paco

// Run's tables as columns: the one list of their names and cells, which
// every writer takes (survey's CSV files, the C ABI's arrays for Python).

// A Column is one column of a table: its name, its kind ("float64",
// "int64" or "bool") and its cell in row i, a float64, an int or a bool,
// or nil where the row has none (the separation in arcsec without a pixel
// scale, Algorithm 3's cells of a detection without its estimate).
type Column struct {
	Name string
	Kind string
	Cell func(i int) any
}

// A Table is Rows rows of Columns, named as its file: detections,
// contrast, contrast_check.
type Table struct {
	Name    string
	Rows    int
	Columns []Column
}

// JSONRows are the table's rows as JSON objects by column name: NaN and
// infinite cells (JSON has neither) as null, cells the row does not have
// left out.
func (t Table) JSONRows() []map[string]any {
	out := make([]map[string]any, t.Rows)
	for i := range out {
		row := map[string]any{}
		for _, c := range t.Columns {
			switch v := c.Cell(i); {
			case v == nil:
			case c.Kind == "float64" && !finite(v.(float64)):
				row[c.Name] = nil
			default:
				row[c.Name] = v
			}
		}
		out[i] = row
	}
	return out
}

func f64(name string, cell func(i int) any) Column  { return Column{name, "float64", cell} }
func i64(name string, cell func(i int) any) Column  { return Column{name, "int64", cell} }
func flag(name string, cell func(i int) any) Column { return Column{name, "bool", cell} }

// DetectionTable is detections.csv's table: rank, position, separation
// (arcsec with arcsec, a pixel scale), angles, SNR, flux and σ, and with
// unbiased Algorithm 3's columns beside them.
func DetectionTable(dets []Detection, arcsec, unbiased bool) Table {
	d := func(i int) *Detection { return &dets[i] }
	t := Table{Name: "detections", Rows: len(dets), Columns: []Column{
		i64("rank", func(i int) any { return i + 1 }),
		i64("y", func(i int) any { return d(i).Y }),
		i64("x", func(i int) any { return d(i).X }),
		f64("separation_px", func(i int) any { return d(i).Sep }),
		f64("separation_arcsec", func(i int) any {
			if !arcsec {
				return nil
			}
			return d(i).SepArcsec
		}),
		f64("pa_east_of_north_deg", func(i int) any { return d(i).PAEastOfNorth }),
		f64("angle_ccw_from_x_deg", func(i int) any { return d(i).AngleCCWFromX }),
		f64("snr", func(i int) any { return d(i).SNR }),
		f64("flux", func(i int) any { return d(i).Flux }),
		f64("sigma_flux", func(i int) any { return d(i).SigmaFlux }),
	}}
	if !unbiased {
		return t
	}
	u := func(get func(u *Unbiased) any) func(i int) any {
		return func(i int) any {
			if d(i).Unbiased == nil {
				return nil
			}
			return get(d(i).Unbiased)
		}
	}
	t.Columns = append(t.Columns,
		f64("flux_unbiased", u(func(u *Unbiased) any { return u.FluxUnbiased })),
		f64("sigma_unbiased", u(func(u *Unbiased) any { return u.SigmaUnbiased })),
		f64("snr_unbiased", u(func(u *Unbiased) any { return u.SNRUnbiased })),
		f64("y_refined", u(func(u *Unbiased) any { return u.YRefined })),
		f64("x_refined", u(func(u *Unbiased) any { return u.XRefined })),
		i64("iterations", u(func(u *Unbiased) any { return u.Iterations })),
		flag("converged", u(func(u *Unbiased) any { return u.Converged })))
	return t
}

// ContrastTable is contrast.csv's table: the curve's separation (and in
// arcsec with arcsec, a pixel scale), pixels, σ, flux limit and contrast
// (NaN without the star's flux).
func ContrastTable(curve []ContrastPoint, arcsec bool) Table {
	p := func(i int) *ContrastPoint { return &curve[i] }
	return Table{Name: "contrast", Rows: len(curve), Columns: []Column{
		f64("separation_px", func(i int) any { return p(i).Sep }),
		f64("separation_arcsec", func(i int) any {
			if !arcsec {
				return nil
			}
			return p(i).SepArcsec
		}),
		i64("pixels", func(i int) any { return p(i).Pixels }),
		f64("sigma_flux", func(i int) any { return p(i).Sigma }),
		f64("flux_limit", func(i int) any { return p(i).Flux }),
		f64("contrast", func(i int) any { return p(i).Contrast }),
		f64("delta_mag", func(i int) any { return p(i).Mag }),
		f64("flux_limit_uncalibrated", func(i int) any { return p(i).FluxUncalibrated }),
		f64("throughput", func(i int) any { return p(i).Throughput }),
		f64("throughput_err", func(i int) any { return p(i).ThroughputErr }),
	}}
}

// CheckTable is contrast_check.csv's table: each fake companion of the
// contrast check and what came back of it.
func CheckTable(rows []CheckRow) Table {
	r := func(i int) *CheckRow { return &rows[i] }
	return Table{Name: "contrast_check", Rows: len(rows), Columns: []Column{
		i64("run", func(i int) any { return r(i).Run }),
		f64("separation_px", func(i int) any { return r(i).Sep }),
		f64("y", func(i int) any { return r(i).Y }),
		f64("x", func(i int) any { return r(i).X }),
		f64("pa_east_of_north_deg", func(i int) any { return r(i).PA }),
		f64("flux_injected", func(i int) any { return r(i).Injected }),
		f64("snr", func(i int) any { return r(i).SNR }),
		f64("flux", func(i int) any { return r(i).Flux }),
		f64("throughput", func(i int) any { return r(i).Throughput }),
		f64("snr_expected", func(i int) any { return r(i).Expected }),
		flag("detected", func(i int) any { return r(i).Detected }),
	}}
}
