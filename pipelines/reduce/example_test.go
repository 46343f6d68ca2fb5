package reduce_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// The mean and the sample standard deviation down the columns of a 2×3
// array in memory (NumPy's x.mean(axis=0), x.std(axis=0, ddof=1)), on the
// CPU path. To run on a GPU, open one (engine.Open) and pass the device
// instead of nil.
func Example() {
	x := tensor.FromF64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	stats, err := reduce.ParseStats("mean,std")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := reduce.Run(context.Background(), nil, x, reduce.Options{Axes: reduce.Axes{0}, DDof: 1, Stats: stats})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range stats {
		fmt.Printf("%s %v %.4g\n", s, out.Stats[s].Shape, out.Stats[s].F64)
	}
	// Output:
	// mean [3] [2.5 3.5 4.5]
	// std [3] [2.121 2.121 2.121]
}
