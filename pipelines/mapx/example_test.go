package mapx_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/tensor"
)

// z = 3.5·x² + 2.8·y + 10 on arrays in memory, on the CPU path. To run on
// a GPU, open one (engine.Open) and pass the device instead of nil;
// RunInto writes into a z you hold, RunOver over x.
func Example() {
	x := tensor.FromF64([]float64{0, 1, 2, -1}, 4)
	y := tensor.FromF64([]float64{1, 1, 0, 2}, 4)
	z, _, err := mapx.Run(context.Background(), nil, x, y, mapx.Params{A: 3.5, B: 2.8, C: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4g\n", z.F64)
	// Output: [12.8 16.3 24 19.1]
}
