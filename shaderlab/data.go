package shaderlab

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxZeros is the most a TYPE:SHAPE binding of zeros may hold.
const maxZeros = 16 << 30

// DataError is a malformed TYPE:SHAPE or random:TYPE:SHAPE.
type DataError struct{ Msg string }

func (e *DataError) Error() string { return e.Msg }

// zerosType is the element type of a TYPE:SHAPE binding (float32:1024),
// "" for anything else (a file).
func zerosType(v string) (elem, shape string) {
	elem, shape, ok := strings.Cut(v, ":")
	letters := strings.TrimRight(elem, "0123456789")
	if !ok || letters == "" || letters == elem || strings.Trim(letters, "abcdefghijklmnopqrstuvwxyz") != "" || strings.HasSuffix(v, ".npy") {
		return "", ""
	}
	return elem, shape
}

// NamesFile says whether a binding's data v names a file rather than
// TYPE:SHAPE zeros or random:TYPE:SHAPE (a file named like float32:16
// is taken as a file where it exists: ReadData).
func NamesFile(v string) bool {
	elem, _ := zerosType(v)
	return elem == "" && !strings.HasPrefix(v, "random:")
}

func fileThere(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ReadData reads a binding's data v: FILE.npy, TYPE:SHAPE zeros (float32:1024,
// uint32:16x16, at most 16 GiB), or random:TYPE:SHAPE drawn by Random from
// seed and key. A malformed TYPE:SHAPE is a *DataError.
func ReadData(v string, seed uint64, key string) (*Array, error) {
	random := strings.HasPrefix(v, "random:")
	if random {
		if elem, _ := zerosType(v[len("random:"):]); elem == "" {
			return nil, &DataError{"want random:TYPE:SHAPE, e.g. random:float32:1024"}
		}
	}
	elem, dims := zerosType(strings.TrimPrefix(v, "random:"))
	if elem == "" || !random && fileThere(v) {
		if st, err := os.Stat(v); err != nil {
			return nil, err
		} else if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a file", v)
		}
		arr, err := ReadNPY(v)
		if err != nil {
			return nil, err
		}
		arr.Source = v
		return arr, nil
	}
	if NPYDescr(elem) == "" {
		return nil, &DataError{fmt.Sprintf("unknown element type %q (float32, float64, int32, uint32, ...)", elem)}
	}
	var shape []int
	n := int64(ElemSize(elem))
	for _, d := range strings.Split(dims, "x") {
		k, err := strconv.ParseInt(d, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || err == nil && k >= 1 && n > maxZeros/k:
			return nil, &DataError{"more than the 16 GiB of zeros a binding may hold (a device binds at most its maxStorageBufferRange, 128 MiB to 4 GiB: see vkstat devices)"}
		case err != nil || k < 1:
			return nil, &DataError{"want TYPE:SHAPE, sizes of 1 or more, e.g. float32:1024 or uint32:16x16"}
		}
		n *= k
		shape = append(shape, int(k))
	}
	if random {
		return Random(elem, shape, seed, key)
	}
	return &Array{Elem: elem, Shape: shape, Data: make([]byte, n), Source: "zeros " + v}, nil
}
