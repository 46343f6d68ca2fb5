package chol_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/tensor"
)

// The Cholesky factor of A = [[4 2] [2 3]], the solution of A·x = b for
// b = (2, 1) and log det A, for one matrix in memory, on the CPU path. To
// run on a GPU, open one (engine.Open) and pass the device instead of nil.
func Example() {
	a := tensor.FromF64([]float64{4, 2, 2, 3}, 1, 2, 2)
	b := tensor.FromF64([]float64{2, 1}, 1, 2)
	res, err := chol.Run(context.Background(), nil, chol.Input{A: a, B: b}, chol.Options{L: true, LogDet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("info   %v\nL      %.4g\nx      %.4g\nlogdet %.4g\n", res.Info, res.L.F64, res.X.F64, res.LogDet.F64)
	// Output:
	// info   [0]
	// L      [2 0 1 1.414]
	// x      [0.5 0]
	// logdet [2.079]
}
