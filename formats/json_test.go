package formats

import (
	"bytes"
	"testing"
)

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(map[string]any{"a": []int{1, 2}, "b": "x"})(&b); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": \"x\"\n}\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := JSON(func() {})(&b); err == nil {
		t.Error("a func encoded without error")
	}
}
