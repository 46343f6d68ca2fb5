package cov_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

// The sample covariance of one set of four samples of two variables held
// in memory, (N, T, P) = (1, 4, 2), on the CPU path; the estimators PACO,
// LedoitWolf and OAS shrink it (Result.Rho). To run on a GPU, open one
// (engine.Open) and pass the device instead of nil.
func Example() {
	x := tensor.FromF64([]float64{
		1, 2,
		2, 4,
		3, 6,
		4, 8,
	}, 1, 4, 2)
	res, err := cov.Run(context.Background(), nil, x, cov.Options{Estimator: cov.None, DDof: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean %.4g\ncov  %.4g\nrho  %.4g\n", res.Mean.F64, res.Cov.F64, res.Rho.F64)
	// Output:
	// mean [2.5 5]
	// cov  [1.667 3.333 3.333 6.667]
	// rho  [0]
}
