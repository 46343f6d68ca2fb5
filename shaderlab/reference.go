package shaderlab

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vkstat/vkstat/tensor"
)

// Random is an array of elem and shape drawn from a generator seeded by
// seed and name (so that two bindings of one seed differ): floats uniform
// in [-1, 1) as ggml's test-backend-ops draws its inputs, signed integers
// in [-100, 100], unsigned ones in [0, 100].
func Random(elem string, shape []int, seed uint64, name string) (*Array, error) {
	size := ElemSize(elem)
	if NPYDescr(elem) == "" || size == 0 {
		return nil, fmt.Errorf("unknown element type %q (float32, float16, float64, int32, uint32, ...)", elem)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	n := 1
	for _, d := range shape {
		n *= d
	}
	a := &Array{Elem: elem, Shape: shape, Data: make([]byte, n*size), Source: fmt.Sprintf("random %s%s (seed %d)", elem, tensor.ShapeString(shape), seed)}
	for i := range n {
		p := a.Data[i*size:]
		f := 2*rng.Float64() - 1
		switch elem {
		case "float16":
			binary.LittleEndian.PutUint16(p, tensor.Float32ToHalf(float32(f)))
		case "float32":
			binary.LittleEndian.PutUint32(p, math.Float32bits(float32(f)))
		case "float64":
			binary.LittleEndian.PutUint64(p, math.Float64bits(f))
		default:
			v := uint64(rng.IntN(101))
			if elem[0] == 'i' {
				v = uint64(rng.IntN(201) - 100)
			}
			for b := range size {
				p[b] = byte(v >> (8 * b))
			}
		}
	}
	return a, nil
}

// A reference that calls a Python function: MODULE:FUNCTION, or
// FILE.py:FUNCTION.
var pyFunction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][\w.]*|[^\s:]+\.py):([A-Za-z_]\w*)$`)
})

// IsFunctionRef says whether a reference names a Python function
// (MODULE:FUNCTION or FILE.py:FUNCTION) rather than a NumPy expression.
func IsFunctionRef(ref string) bool { return pyFunction().MatchString(ref) }

// referenceScript computes the references: it reads a request (JSON) on
// stdin, loads the inputs, and writes each output as float64 NPY.
const referenceScript = `
import importlib, importlib.util, json, os, sys, traceback
try:
    import numpy as np
except ImportError as e:
    print("NO NUMPY: %s" % e, file=sys.stderr)
    sys.exit(3)
req = json.load(sys.stdin)
env = {k: np.load(p) for k, p in req["inputs"].items()}
for k, v in req["constants"].items():
    try:
        env[k] = int(v, 0)
    except ValueError:
        env[k] = {"true": True, "false": False}.get(v.lower(), None)
        if env[k] is None:
            env[k] = float(v)
names = sorted(env)
for out, ref in req["refs"].items():
    try:
        m = req["functions"].get(out)
        if m:
            mod, fn = m
            if mod.endswith(".py"):
                spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(mod))[0], mod)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            else:
                sys.path.insert(0, os.getcwd())
                module = importlib.import_module(mod)
            got = getattr(module, fn)(**env)
            if isinstance(got, dict):
                got = got[out]
        else:
            got = eval(ref, {"np": np, "__builtins__": __builtins__}, dict(env))
        got = np.asarray(got, dtype=np.float64)
    except Exception as e:
        print("%s = %s: %s: %s (it is given np and %s)" % (out, ref, type(e).__name__, e, ", ".join(names)), file=sys.stderr)
        sys.exit(2)
    np.save(req["out"][out], np.ascontiguousarray(got))
`

// Python is the Python that computes references: $VKSTAT_PYTHON, else
// /usr/bin/python3 where there is one, else python3 on the PATH.
func Python() string {
	if p := os.Getenv("VKSTAT_PYTHON"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

// Reference computes expected outputs with NumPy: refs gives, per output
// name, a NumPy expression over the inputs (by name, as NumPy arrays of
// their dtype and shape), the constants (by name, as Python numbers) and
// np, or a Python function (MODULE:FUNCTION, imported from the working
// folder or the path; FILE.py:FUNCTION), called with the inputs and the
// constants as keyword arguments and returning the output (or a dict of
// outputs by name). The results are float64 arrays; sizes are the
// caller's to check. Python (with NumPy) runs once for all of refs.
func Reference(ctx context.Context, python string, inputs map[string]*Array, constants []Setting, refs map[string]string) (map[string]*Array, error) {
	dir, err := os.MkdirTemp("", "vkstat-reference-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	req := struct {
		Inputs    map[string]string    `json:"inputs"`
		Constants map[string]string    `json:"constants"`
		Refs      map[string]string    `json:"refs"`
		Functions map[string][2]string `json:"functions"`
		Out       map[string]string    `json:"out"`
	}{map[string]string{}, map[string]string{}, refs, map[string][2]string{}, map[string]string{}}
	i := 0
	for name, a := range inputs {
		p := filepath.Join(dir, fmt.Sprintf("in%d.npy", i))
		i++
		var b bytes.Buffer
		if err := a.EncodeNPY(&b); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
			return nil, err
		}
		req.Inputs[name] = p
	}
	for _, s := range constants {
		req.Constants[s.Name] = s.Value
	}
	outs := make([]string, 0, len(refs))
	for out, ref := range refs {
		outs = append(outs, out)
		req.Out[out] = filepath.Join(dir, fmt.Sprintf("out%d.npy", len(outs)))
		if m := pyFunction().FindStringSubmatch(ref); m != nil {
			mod := m[1]
			if strings.HasSuffix(mod, ".py") {
				if mod, err = filepath.Abs(mod); err != nil {
					return nil, err
				}
				if _, err := os.Stat(mod); err != nil {
					return nil, fmt.Errorf("reference %s = %s: %w", out, ref, err)
				}
			}
			req.Functions[out] = [2]string{mod, m[2]}
		}
	}
	sort.Strings(outs)
	js, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", referenceScript)
	cmd.Stdin = bytes.NewReader(js)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() == 3:
			return nil, fmt.Errorf("a reference needs Python with NumPy: %s has no numpy (%s); install it (pip install numpy) or set VKSTAT_PYTHON to a Python that has it", python, strings.TrimPrefix(msg, "NO NUMPY: "))
		case errors.As(err, &ee) && ee.ExitCode() == 2:
			return nil, fmt.Errorf("reference %s", msg)
		case errors.As(err, &ee):
			return nil, fmt.Errorf("reference: %s failed: %v: %s", python, err, msg)
		}
		return nil, fmt.Errorf("a reference needs Python with NumPy: cannot run %s: %v (set VKSTAT_PYTHON to a Python that has NumPy)", python, err)
	}
	got := map[string]*Array{}
	for _, out := range outs {
		a, err := ReadNPY(req.Out[out])
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", out, err)
		}
		a.Source = "reference " + refs[out]
		got[out] = a
	}
	return got, nil
}

// ReferenceSizeError is a reference that gives another number of elements
// than its array holds.
type ReferenceSizeError struct {
	Name, Ref    string
	Holds, Gives *Array
}

func (e *ReferenceSizeError) Error() string {
	return fmt.Sprintf("reference %s=%s: %s holds %s, the reference gives %s", e.Name, e.Ref, e.Name, e.Holds, e.Gives)
}

// References computes refs (by array index: a NumPy expression or a
// Python function, as Reference takes them) with Python() over t's arrays
// before the run that have a Python name (none with a space or a
// parenthesis) and t's constants. Each must give as many elements as its
// array holds (else a *ReferenceSizeError).
func References(ctx context.Context, t Target, refs map[int]string) (map[int]*Array, error) {
	byName := map[string]string{}
	at := map[string]int{}
	for i, ref := range refs {
		byName[t.Name(i)], at[t.Name(i)] = ref, i
	}
	inputs := map[string]*Array{}
	for i, a := range t.Arrays() {
		if n := t.Name(i); !strings.ContainsAny(n, " ()") {
			inputs[n] = a
		}
	}
	got, err := Reference(ctx, Python(), inputs, t.Constants(), byName)
	if err != nil {
		return nil, err
	}
	want := map[int]*Array{}
	for name, arr := range got {
		i := at[name]
		if holds := t.Arrays()[i]; arr.Len() != holds.Len() {
			return nil, &ReferenceSizeError{name, byName[name], holds, arr}
		}
		want[i] = arr
	}
	return want, nil
}
