package capi

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/quantile"
	"github.com/vkstat/vkstat/pipelines/reduce"
)

func init() { ops["quantile"] = runQuantile }

// quantileParams is the type quantile's parameters decode into
// (quantile.Params).
var quantileParams = sync.OnceValue(func() reflect.Type { return paramsType(quantile.Params()) })

// runQuantile takes the quantiles q of array a along axis (quantile.Run):
// output q, of shape (len(q),) + a's shape without the axis, in a's dtype.
// An axis out of range is an AxisError, as NumPy's.
func runQuantile(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(quantileParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	opt := quantile.DefaultOptions()
	if err := setParams(v.Elem(), quantile.Params(), &opt); err != nil {
		return nil, err
	}
	opt.Out = c.outputs(nil)
	if err := opt.Check(); err != nil {
		return nil, inputError(err)
	}
	a, err := c.Tensor("a", Floats...)
	if err != nil {
		return nil, err
	}
	r, err := quantile.Run(ctx, dev, a, opt)
	var fe *engine.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "axis":
		return nil, AxisError{InputError{errors.New(fe.Words(pySetting))}}
	case errors.Is(err, reduce.ErrEmptyAxis):
		return nil, InputError{err}
	case err != nil:
		return nil, err
	}
	res := c.Result()
	res.add("q", r.Q)
	return res.timed(r.Timing), nil
}
