package capi

import (
	"context"
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
	sel, err := suite.SelectOps(suite.Ops(), p.Ops)
	if err != nil {
		return nil, InputError{err}
	}
	var dts []tensor.DType
	for _, s := range p.Precisions {
		dt, err := tensor.ParseDType(s)
		if err != nil || dt.Is16() {
			return nil, inputf("precision %q: want float32 or float64", s)
		}
		dts = append(dts, dt)
	}
	t0 := time.Now()
	v, err := suite.Verify(ctx, []*engine.Device{dev}, sel, suite.VerifyOptions{Precisions: dts, Version: Version})
	if err != nil {
		return nil, err
	}
	d := v.Devices[0]
	rep := &VerifyReport{Version: Version, Date: v.Date, Results: d.Results, Passed: d.Passed, Failed: d.Failed, Skipped: d.Skipped, Seconds: since(t0)}
	return &Result{Info: rep}, nil
}
