package tune

import (
	"strings"
	"testing"
)

// The text lists pipelines and their parameters sorted by name, whatever
// the maps' order.
func TestDeviceReportText(t *testing.T) {
	d := DeviceReport{Device: 2, Name: "Big GPU", Cache: "/c/tune.json", CacheState: "absent", Pipelines: map[string]map[string]ParamReport{
		"reduce": {"wg": {256, "default"}, "variant": {"subgroup", "rule"}},
		"chol":   {"block": {16, "cache"}},
	}}
	var b strings.Builder
	d.WriteText(&b)
	want := `
tuning of device 2, Big GPU (tune cache /c/tune.json: absent)
  chol    block    16        cache
  reduce  variant  subgroup  rule
  reduce  wg       256       default
`
	if b.String() != want {
		t.Errorf("text:\n%q\nwant:\n%q", b.String(), want)
	}
}
