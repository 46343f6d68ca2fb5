package benchchart

import (
	"bytes"
	"testing"

	"github.com/vkstat/vkstat/suite"
)

// A bench report without results draws no chart.
func TestWriteNoResults(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, &suite.BenchReport{}, "x.png"); err == nil || err.Error() != "no results to plot" {
		t.Errorf("a chart of no results: %v", err)
	}
}
