package mapx_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/tensor"
)

// z = 3.5·x² + 2.8·y + 10 on arrays in memory, on the CPU path. To run on
// a GPU, open one (engine.Open) and pass the device instead of nil;
// Input.Z names a z you hold, Input.Over lets z take x's memory.
func Example() {
	x := tensor.FromF64([]float64{0, 1, 2, -1}, 4)
	y := tensor.FromF64([]float64{1, 1, 0, 2}, 4)
	r, err := mapx.Run(context.Background(), nil, mapx.Input{X: x, Y: y}, mapx.Options{A: 3.5, B: 2.8, C: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4g\n", r.Z.F64)
	// Output: [12.8 16.3 24 19.1]
}
