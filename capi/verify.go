package capi

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/suite"
	"github.com/vkstat/vkstat/tensor"
)

type verifyParams struct {
	// Ops are operation or suite names; empty: every one.
	Ops []string `json:"ops"`
	// Precisions are float32 and/or float64; empty: both.
	Precisions []string `json:"precisions"`
}

// VerifyReport is verify's Info: every row on the session's device.
type VerifyReport struct {
	Version string         `json:"vkstat_version"`
	Date    string         `json:"date"`
	Results []suite.Result `json:"results"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Skipped int            `json:"skipped"`
	Seconds float64        `json:"seconds"`
}

// runVerify checks every case of the selected operations on the session's
// device against the float64 reference, as `vkstat verify` does on one
// device. It looks at ctx between cases.
func runVerify(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	var p verifyParams
	if err := c.Params(&p); err != nil {
		return nil, err
	}
	sel, err := selectOps(suite.Ops(), p.Ops)
	if err != nil {
		return nil, err
	}
	dts := []tensor.DType{tensor.F32, tensor.F64}
	if len(p.Precisions) > 0 {
		dts = nil
		for _, s := range p.Precisions {
			dt, err := tensor.ParseDType(s)
			if err != nil || dt.Is16() {
				return nil, inputf("precision %q: want float32 or float64", s)
			}
			dts = append(dts, dt)
		}
	}
	t0 := time.Now()
	rep := &VerifyReport{Version: Version, Date: t0.UTC().Format(time.RFC3339)}
	for _, op := range sel {
		for _, cs := range op.Verify {
			for _, dt := range dts {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r := suite.Prepare(op, cs, dt).Verify(ctx, dev)
				if err := ctx.Err(); err != nil {
					return nil, err // the row failed because it was cancelled
				}
				r.MaxErr, r.NMSE = finite(r.MaxErr), finite(r.NMSE)
				rep.Results = append(rep.Results, r)
				switch r.Status {
				case suite.Pass:
					rep.Passed++
				case suite.Fail:
					rep.Failed++
				default:
					rep.Skipped++
				}
			}
		}
	}
	rep.Seconds = since(t0)
	return &Result{Info: rep}, nil
}

// selectOps keeps the operations named in names (operation or suite
// names); none keeps all. (cli's selectOps, on a list.)
func selectOps(all []suite.Op, names []string) ([]suite.Op, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []suite.Op
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(strings.ToLower(name))
		if name == "all" {
			return all, nil
		}
		n := len(out)
		for _, op := range all {
			if (op.Name == name || op.Suite == name) && !seen[op.Name] {
				out = append(out, op)
				seen[op.Name] = true
			}
		}
		if len(out) == n {
			var have []string
			for _, op := range all {
				have = append(have, op.Name)
			}
			return nil, inputf("no operation or suite %q (have %s)", name, strings.Join(have, ", "))
		}
	}
	return out, nil
}

// finite keeps a JSON-encodable number: ±Inf and NaN become the largest
// float64.
func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return math.MaxFloat64
	}
	return v
}
