package formats

import (
	"encoding/json"
	"math"
	"testing"
)

func TestJSONNumber(t *testing.T) {
	b, err := json.Marshal([]any{JSONNumber(1.5), JSONNumber(math.NaN()), JSONNumber(math.Inf(-1)), JSONNumber(0)})
	if err != nil || string(b) != "[1.5,null,null,0]" {
		t.Errorf("%s, %v; want [1.5,null,null,0]", b, err)
	}
}
