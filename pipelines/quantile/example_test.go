package quantile_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/quantile"
	"github.com/vkstat/vkstat/tensor"
)

// The temporal median and 90th percentile of a stack of 4 frames of 1×3
// pixels (T, H, W), on the CPU path: np.quantile(x, [0.5, 0.9], axis=0).
func Example() {
	x := tensor.New(tensor.F64, 4, 1, 3)
	copy(x.F64, []float64{
		1, 10, 7,
		2, 40, 7,
		3, 30, 7,
		4, 20, 7,
	})
	res, err := quantile.Run(context.Background(), nil, x, quantile.Options{Axis: 0, Q: []float64{0.5, 0.9}})
	if err != nil {
		panic(err)
	}
	fmt.Println(tensor.ShapeString(res.Q.Shape), res.Q.F64)
	// Output: (2, 1, 3) [2.5 25 7 3.7 37 7]
}
