package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var vkstatBin struct {
	once sync.Once
	path string
	err  error
}

// buildVkstat builds cmd/vkstat once per test binary: signals are handled
// in its main.
func buildVkstat(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go to build cmd/vkstat from the source tree, which a packed test binary (scripts/gpu-run.sh) has not")
	}
	if _, err := os.Stat("../cmd/vkstat"); err != nil {
		t.Skip("needs the source tree's cmd/vkstat, which a packed test binary (scripts/gpu-run.sh) has not")
	}
	vkstatBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "vkstat-bin-")
		if err != nil {
			vkstatBin.err = err
			return
		}
		vkstatBin.path = filepath.Join(dir, "vkstat")
		out, err := exec.Command("go", "build", "-o", vkstatBin.path, "../cmd/vkstat").CombinedOutput()
		if err != nil {
			vkstatBin.err = err
			vkstatBin.path = string(out)
		}
	})
	if vkstatBin.err != nil {
		t.Fatalf("go build ../cmd/vkstat: %v\n%s", vkstatBin.err, vkstatBin.path)
	}
	return vkstatBin.path
}

// interrupt runs vkstat with args, sends sig after delay, and checks that it
// exits with 130 within two seconds of the signal.
func interrupt(t *testing.T, sig os.Signal, delay time.Duration, args ...string) string {
	t.Helper()
	cmd := exec.Command(buildVkstat(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("%v ended before the signal (%v): %s", args, err, stderr.String())
	case <-time.After(delay):
	}
	cmd.Process.Signal(sig)
	start := time.Now()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("%v: still running 5 s after %v", args, sig)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("%v: took %v to stop after %v, want at most 2 s", args, took, sig)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("%v: exit %d after %v, want %d; stderr %q", args, code, sig, ExitInterrupted, stderr.String())
	}
	return stderr.String()
}

// assertEmpty checks that dir holds nothing: no output, no temporary.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("%s holds %q after the interrupt; want nothing", dir, names)
	}
}

// Issue 9, item 5: SIGINT and SIGTERM stop synth random at once (SIGINT
// was ignored, SIGTERM left a hidden .tmp file), exit 130 and leave
// nothing behind.
func TestInterruptSynthRandom(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		for _, delay := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
			dir := t.TempDir()
			interrupt(t, sig, delay, "synth", "random", "--shape", "400000000", "--out", filepath.Join(dir, "r.npy"))
			assertEmpty(t, dir)
		}
	}
}

// Issue 9, item 5: SIGINT during PACO on lavapipe took 17 s and left an
// empty out-dir; it must stop within two seconds, exit 130 and create
// nothing.
func TestInterruptPacoLavapipe(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100×100×252 PACO run on lavapipe")
	}
	hasLavapipe := false
	for _, d := range devicesUnderTest(t) {
		hasLavapipe = hasLavapipe || d == "lavapipe"
	}
	if !hasLavapipe {
		t.Skip("no lavapipe")
	}
	data := filepath.Join(t.TempDir(), "adi")
	if code, _, stderr := run(t, "synth", "paco", "--size", "100", "--frames", "252", "--rotation", "60", "--fwhm", "4", "--seed", "5", "--out-dir", data); code != 0 {
		t.Fatalf("synth paco: %s", stderr)
	}
	parent := t.TempDir()
	stderr := interrupt(t, os.Interrupt, 2*time.Second, "--device", "lavapipe", "paco", "--cube", filepath.Join(data, "cube.fits"),
		"--angles", filepath.Join(data, "angles.fits"), "--psf", filepath.Join(data, "psf.fits"), "--out-dir", filepath.Join(parent, "results"))
	if !strings.Contains(stderr, "interrupted") {
		t.Errorf("stderr %q does not say it was interrupted", stderr)
	}
	assertEmpty(t, parent)
}
