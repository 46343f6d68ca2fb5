package suite

import (
	"encoding/json"
	"fmt"
)

// ParseVerifyReport reads a verify report from its JSON.
func ParseVerifyReport(b []byte) (*VerifyReport, error) {
	var rep VerifyReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("not a verify report: %w", err)
	}
	if rep.Kind != VerifyKind {
		return nil, fmt.Errorf("not a verify report (kind %q, want %q)", rep.Kind, VerifyKind)
	}
	return &rep, nil
}

// Comparison sets the devices of several verify reports side by side:
// one column per device, one row per operation, case and precision.
type Comparison struct {
	// Columns are the reports' devices, report by report.
	Columns []CompareColumn
	// Rows are every row of any report, in the order they first appear.
	Rows []CompareRow
	// Differ counts the rows whose outcome (pass or fail) differs between
	// columns, Partial those missing from some column, Skipped those some
	// device skips.
	Differ, Partial, Skipped int
}

// CompareColumn is one device of one report.
type CompareColumn struct {
	Report int // the index of its report
	Device DeviceRecord
}

// CompareRow is one operation, case and precision across the columns.
type CompareRow struct {
	Op, Case, Precision string
	// Cells holds each column's result, nil where that device has no
	// such row.
	Cells []*Result
	// Differs: two columns' outcomes differ. A skip (the device lacks
	// what the row needs, float64) has no outcome, so it differs from
	// nothing.
	Differs bool
	Missing bool // some column has no such row
	Skipped bool // some column skips it
}

// CompareReports compares the outcomes of reps' rows across all their
// devices.
func CompareReports(reps ...*VerifyReport) Comparison {
	var cmp Comparison
	index := map[string]int{}
	for ri, rep := range reps {
		for _, d := range rep.Devices {
			cmp.Columns = append(cmp.Columns, CompareColumn{Report: ri, Device: d.Device})
			for _, r := range d.Results {
				if _, ok := index[r.Key()]; !ok {
					index[r.Key()] = len(cmp.Rows)
					cmp.Rows = append(cmp.Rows, CompareRow{Op: r.Op, Case: r.Case, Precision: r.Precision})
				}
			}
		}
	}
	for i := range cmp.Rows {
		cmp.Rows[i].Cells = make([]*Result, len(cmp.Columns))
	}
	col := 0
	for _, rep := range reps {
		for _, d := range rep.Devices {
			for j := range d.Results {
				r := &d.Results[j]
				cmp.Rows[index[r.Key()]].Cells[col] = r
			}
			col++
		}
	}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		statuses := map[Status]bool{}
		for _, r := range row.Cells {
			switch {
			case r == nil:
				row.Missing = true
			case r.Status == Skip:
				row.Skipped = true
			default:
				statuses[r.Status] = true
			}
		}
		row.Differs = len(statuses) > 1
		if row.Differs {
			cmp.Differ++
		}
		if row.Missing {
			cmp.Partial++
		}
		if row.Skipped {
			cmp.Skipped++
		}
	}
	return cmp
}
