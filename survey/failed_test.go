package survey

import (
	"errors"
	"testing"
)

// TestTableErr: no failed target, no error; one failed of three, a
// FailedError that says so and names the table.
func TestTableErr(t *testing.T) {
	s := &Table{Rows: []Row{{Name: "a", Status: "ok"}, {Name: "b", Status: "ok"}}}
	if err := s.Err("survey.csv"); err != nil {
		t.Errorf("no target failed: %v", err)
	}
	s.Rows = append(s.Rows, Row{Name: "c", Status: "failed", Reason: "no cube"})
	err := s.Err("survey.csv")
	var fe FailedError
	if !errors.As(err, &fe) || fe != (FailedError{Failed: 1, Total: 3, Table: "survey.csv"}) ||
		err.Error() != "survey: 1 of 3 targets failed (the reasons are in survey.csv)" {
		t.Errorf("one target failed: %#v", err)
	}
}
