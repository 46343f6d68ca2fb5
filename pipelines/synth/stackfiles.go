package synth

import (
	"context"
	"fmt"
	"strings"
)

// Files draws s's files in turn and gives each to add, by name: the
// reflectivity map (reflectivity.tif) and, when s.Change is not 1, the
// changed map (reflectivity_changed.tif), then the dates (date true):
// date_001<ext>, ... It returns dates.txt, the list of the dates for
// vkstat stack @dates.txt. progress, when set, hears of each date before
// it is drawn (t of Dates, 0-based) and of the last one done.
func (s Stack) Files(ctx context.Context, ext string, add func(name string, date bool, data []float32) error, progress func(t, dates int)) (string, error) {
	sigma, changed := s.Maps()
	if err := add("reflectivity.tif", false, sigma); err != nil {
		return "", err
	}
	if s.Change != 1 {
		if err := add("reflectivity_changed.tif", false, changed); err != nil {
			return "", err
		}
	}
	per := 1
	if s.Complex {
		per = 2
	}
	data := make([]float32, per*s.H*s.W)
	var list strings.Builder
	list.WriteString("# vkstat synth stack: one date per line\n")
	for t := 0; t < s.Dates; t++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if progress != nil {
			progress(t, s.Dates)
		}
		if err := s.Date(ctx, t, sigma, changed, data); err != nil {
			return "", err
		}
		name := fmt.Sprintf("date_%03d%s", t+1, ext)
		if err := add(name, true, data); err != nil {
			return "", err
		}
		list.WriteString(name + "\n")
	}
	if progress != nil {
		progress(s.Dates, s.Dates)
	}
	return list.String(), nil
}
