package stack_test

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/pipelines/stack"
)

// Temporal statistics of three dates of a 4×4 intensity image held in
// memory, multilooked 2×2, on the CPU path. To run on a GPU, open one
// (engine.Open) and pass the device instead of nil; dates in files come
// from formats.CheckDates.
func Example() {
	g := stack.Grid{Width: 4, Height: 4}
	// Date t is t+1 everywhere, except that the top-left 2×2 box is
	// missing (NaN) on the second date: its multilooked pixel counts two
	// dates. (A box with some valid samples averages those.)
	data := make([]float32, 3*16)
	for i := range data {
		data[i] = float32(i/16 + 1)
	}
	for _, i := range []int{0, 1, 4, 5} {
		data[16+i] = float32(math.NaN())
	}
	dates, err := stack.MemoryDates(data, 3, g, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := stack.NewPlan(stack.Config{LooksAz: 2, LooksRg: 2, Ddof: 1}, g)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := stack.Run(context.Background(), nil, dates, stack.Options{Plan: plan})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d dates, %d×%d multilooked pixels\n", res.Dates, res.H, res.W)
	for _, s := range stack.Stats {
		fmt.Printf("%-5s %.4g\n", s, res.Stat(s))
	}
	// Output:
	// 3 dates, 2×2 multilooked pixels
	// mean  [2 2 2 2]
	// std   [1.414 1 1 1]
	// cv    [0.7071 0.5 0.5 0.5]
	// min   [1 1 1 1]
	// max   [3 3 3 3]
	// count [2 3 3 3]
	// samples [8 12 12 12]
}
