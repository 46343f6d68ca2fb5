package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/tensor"
)

// checkOutputFile checks, before any work, that the output file path of
// flag can be written: its directory exists and is writable, and path is
// not a directory. A device or FIFO (/dev/null, a pipe's reader) is written
// into, not replaced, so its directory need not be writable.
func checkOutputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--%s %s: is a directory; give a file name", flag, path)
	} else if err == nil && !st.Mode().IsRegular() {
		return nil
	}
	if err := formats.CheckDirWritable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	return nil
}

// checkOutputDir checks, before any work, that the output directory of flag
// is a writable directory or can be created: its nearest existing ancestor
// is a writable directory.
func checkOutputDir(flag, dir string) error {
	if dir == "" {
		return usagef("--%s: empty; give a folder (. for the current one)", flag)
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("--%s %s: exists and is not a directory", flag, dir)
		}
		if err := formats.CheckDirWritable(dir); err != nil {
			return fmt.Errorf("--%s: %w", flag, err)
		}
		return nil
	}
	if err := formats.CheckDirWritable(filepath.Dir(formats.MissingTop(dir))); err != nil {
		return fmt.Errorf("--%s %s: cannot be created: %w", flag, dir, err)
	}
	return nil
}

// flagArrays are the outputs of those of flags that are set: arrays[i] to
// the file of flags[i], by its encoder in encoders (NPY when none).
func flagArrays(c *ucli.Context, encoders map[string]func(io.Writer, *tensor.Tensor) error, flags []string, arrays ...*tensor.Tensor) []outputs.File {
	var files []outputs.File
	for i, f := range flags {
		if c.IsSet(f) {
			files = append(files, outputs.Array(c.String(f), arrays[i], encoders[f]))
		}
	}
	return files
}

// writeOutputs writes files, all or none, into dir, which command by then
// owns, unless dir is "" (outputs.Write), and adds them to sum (if any).
func writeOutputs(c *ucli.Context, dir, by string, files []outputs.File, sum *summary) error {
	if err := outputs.Write(c.Context, dir, by, files); err != nil || sum == nil {
		return err
	}
	for _, f := range files {
		sum.file(f)
	}
	return nil
}

// outputEncoders chooses how the output file of each of flags that is set
// is written, from its name (arrayEncoder); checkFiles has checked that
// it can be.
func outputEncoders(c *ucli.Context, flags ...string) (map[string]func(io.Writer, *tensor.Tensor) error, error) {
	encoders := map[string]func(io.Writer, *tensor.Tensor) error{}
	for _, f := range flags {
		if c.IsSet(f) {
			enc, err := arrayEncoder(f, c.String(f))
			if err != nil {
				return nil, err
			}
			encoders[f] = enc
		}
	}
	return encoders, nil
}

// runOn opens the device for job (openSessionFor), its inputs read in
// read, runs call there and closes it.
func runOn[R any](c *ucli.Context, job engine.Job, read time.Duration, call func(*engine.Device) (R, error)) (R, *session, error) {
	s, err := openSessionFor(c, job)
	if err != nil {
		var none R
		return none, nil, err
	}
	s.Read = read
	r, err := call(s.dev)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return r, s, err
}

// finish prints the summary sum and then, with --time, where the time
// went (reportTime): the call's t, and the files and the summary written
// since tw.
func (s *session) finish(c *ucli.Context, sum *summary, t engine.Timing, tw, start time.Time) error {
	if sum != nil {
		if err := sum.print(c); err != nil {
			return err
		}
	}
	s.Write = time.Since(tw)
	reportTime(c, s, t, time.Since(start))
	return nil
}
