package cli

import (
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"

	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// arrayEncoder chooses how an output array is written from its file name
// (formats.ArrayEncoder); any other name is a usage error naming the flag.
func arrayEncoder(flag, path string) (func(w io.Writer, t *tensor.Tensor) error, error) {
	if enc, ok := formats.ArrayEncoder(path, formats.FITSCard{Key: "CREATOR", Value: "vkstat " + Version, Comment: "software"}); ok {
		return enc, nil
	}
	return nil, usagef("--%s %s: the name must end in .npy (NumPy) or .fits, .fit, .fts (FITS)", flag, path)
}

// plotFormat is --plot-format: the format of the pictures a command draws.
func plotFormat(c *ucli.Context) (figure.Format, error) {
	if c.IsSet("plot-format") && strings.TrimSpace(c.String("plot-format")) == "" {
		return "", usagef("--plot-format: empty; want png, svg or pdf")
	}
	f, err := figure.ParseFormat(c.String("plot-format"))
	if err != nil {
		return "", usagef("--plot-format: %v", err)
	}
	return f, nil
}

// mapFormats reads a --format of FITS and NPY maps as every command takes
// formats: a comma-separated list ("fits", "npy", "fits,npy"; "both" is
// kept for fits,npy). It returns fits, npy or both.
func mapFormats(flag, v string) (string, error) {
	f, err := survey.ParseFormat(v)
	if err != nil {
		return "", usagef("--%s: %v", flag, err)
	}
	return f, nil
}
