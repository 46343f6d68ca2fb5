package formats

import (
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// ReadArrayHeader is ReadArray that also returns the header cards when the
// file is FITS (nil for NPY and rasters), reading the file once.
func ReadArrayHeader(path string) (*tensor.Tensor, []FITSCard, error) {
	if isRasterName(path) {
		t, err := ReadRaster(path)
		return t, nil, err
	}
	in, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	if f := formatOf(in); f == formatFITS {
		return readFITSInput(in)
	} else {
		t, err := readArrayInput(in, f)
		return t, nil, err
	}
}

// CardFloat is the value of the numeric card key (case-insensitive), if
// cards has one that is finite.
func CardFloat(cards []FITSCard, key string) (float64, bool) {
	for _, c := range cards {
		if strings.EqualFold(c.Key, key) {
			return cardNumber(c.Value)
		}
	}
	return 0, false
}
