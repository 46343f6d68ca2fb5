package suite_test

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/suite"
)

// Verify the map operation on the CPU path (a nil device) against its
// float64 reference, in float32 and float64, and print each row's
// verdict. With devices opened from an engine.Instance in the list, the
// same call checks each of them on the same inputs.
func ExampleVerify() {
	ops, err := suite.SelectOps(suite.Ops(), []string{"map"})
	if err != nil {
		panic(err)
	}
	rep, err := suite.Verify(context.Background(), []*engine.Device{nil}, ops, suite.VerifyOptions{})
	if err != nil {
		panic(err)
	}
	for _, d := range rep.Devices {
		fmt.Println(d.Device.Name)
		for _, r := range d.Results {
			fmt.Printf("  %s %s %s: %s\n", r.Op, r.Case, r.Precision, r.Status)
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", rep.Passed, rep.Failed, rep.Skipped)
	// Output:
	// CPU path (native Go)
	//   map (1,) float32: pass
	//   map (1,) float64: pass
	//   map (257,) float32: pass
	//   map (257,) float64: pass
	//   map (1000003,) with NaNs float32: pass
	//   map (1000003,) with NaNs float64: pass
	//   map (3, 257, 5) float32: pass
	//   map (3, 257, 5) float64: pass
	// 8 passed, 0 failed, 0 skipped
}
