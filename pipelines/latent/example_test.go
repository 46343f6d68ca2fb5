package latent_test

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// Moments, channel correlations and the PCA of a small latent in memory,
// on the CPU path. To run on a GPU, open one (engine.NewInstance, then
// its Open) and pass the device instead of nil.
func Example() {
	// Two samples of 3 channels, 4 frames of 8×8 pixels: channel 1 is
	// 2·channel 0 + 1 and channel 2 is −channel 0.
	const n, c, f, hw = 2, 3, 4, 64
	x := tensor.New(tensor.F32, n, c, f, 8, 8)
	for s := range n {
		for t := range f * hw {
			v := float32(math.Sin(float64(s+1)*0.7*float64(t) + float64(t/hw)))
			x.F32[(s*c+0)*f*hw+t] = v
			x.F32[(s*c+1)*f*hw+t] = 2*v + 1
			x.F32[(s*c+2)*f*hw+t] = -v
		}
	}
	res, err := latent.Run(context.Background(), nil, x, latent.Options{
		Moments: true, Axes: []int{-2, -1}, // over each frame's pixels
		Corr: true, PCA: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Arrays() {
		fmt.Println(a.Name, a.T.Shape)
	}
	corr := res.MeanCorr()
	for i := range c {
		fmt.Printf("corr row %d: %5.2f\n", i, corr.F64[i*c:(i+1)*c])
	}
	ratio, _ := res.PCA.MeanRatio()
	fmt.Printf("explained variance: %.3f\n", ratio)
	// Output:
	// mean [2 3 4]
	// var [2 3 4]
	// std [2 3 4]
	// min [2 3 4]
	// max [2 3 4]
	// skew [2 3 4]
	// kurt [2 3 4]
	// corr [2 3 3]
	// pca_values [2 3]
	// pca_ratio [2 3]
	// pca_vectors [2 3 3]
	// corr row 0: [ 1.00  1.00 -1.00]
	// corr row 1: [ 1.00  1.00 -1.00]
	// corr row 2: [-1.00 -1.00  1.00]
	// explained variance: [1.000 0.000 0.000]
}
