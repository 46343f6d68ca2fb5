package cov

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// sklearnScript computes, for each data set it reads (JSON on stdin), the
// shrinkage weights and shrunk covariances independently of vkstat:
// scikit-learn's own ledoit_wolf and oas when scikit-learn is installed,
// and always a NumPy transcription of their formulas and of PACO.md's.
const sklearnScript = `
import json, sys
import numpy as np
try:
    from sklearn.covariance import ledoit_wolf, oas
    have_sklearn = True
except Exception:
    have_sklearn = False

def np_lw(X):
    n, p = X.shape
    if p == 1:
        return 0.0
    X = X - X.mean(0)
    X2 = X ** 2
    emp_cov_trace = np.sum(X2, axis=0) / n
    mu = np.sum(emp_cov_trace) / p
    beta_ = np.sum(np.dot(X2.T, X2))
    delta_ = np.sum(np.dot(X.T, X) ** 2) / n ** 2
    beta = 1.0 / (p * n) * (beta_ / n - delta_)
    delta = (delta_ - 2.0 * mu * emp_cov_trace.sum() + p * mu ** 2) / p
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta

def np_oas(X):
    n, p = X.shape
    if p == 1:
        return 0.0
    S = np.cov(X.T, bias=True)
    alpha = np.mean(S ** 2)
    mu = np.trace(S) / p
    num = alpha + mu ** 2
    den = (n + 1) * (alpha - mu ** 2 / p)
    return 1.0 if den == 0 else min(num / den, 1.0)

def np_paco(X):
    n, p = X.shape
    if p == 1:
        return 0.0  # 0/0 in the formula; vkstat's convention (the target equals S)
    S = np.cov(X.T, bias=True).reshape(p, p)
    d2 = np.sum(np.diag(S) ** 2)
    num = np.sum(S * S) + np.trace(S) ** 2 - 2 * d2
    den = (n + 1) * (np.sum(S * S) - d2)
    return float(min(max(num / den, 0.0), 1.0))

out = []
for X in json.load(sys.stdin):
    X = np.asarray(X, dtype=np.float64)
    r = {"numpy_lw": np_lw(X), "numpy_oas": np_oas(X), "numpy_paco": np_paco(X), "sklearn": have_sklearn}
    if have_sklearn:
        c, s = ledoit_wolf(X)
        r["sk_lw"], r["sk_lw_cov"] = float(s), c.ravel().tolist()
        c, s = oas(X)
        r["sk_oas"], r["sk_oas_cov"] = float(s), c.ravel().tolist()
    out.append(r)
json.dump(out, sys.stdout)
`

func pythonWithNumPy(t *testing.T) string {
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with numpy")
	return ""
}

type sklearnOut struct {
	NumPyLW   float64   `json:"numpy_lw"`
	NumPyOAS  float64   `json:"numpy_oas"`
	NumPyPACO float64   `json:"numpy_paco"`
	Sklearn   bool      `json:"sklearn"`
	SkLW      float64   `json:"sk_lw"`
	SkLWCov   []float64 `json:"sk_lw_cov"`
	SkOAS     float64   `json:"sk_oas"`
	SkOASCov  []float64 `json:"sk_oas_cov"`
}

// TestAgainstScikitLearn checks ρ and C of Reference and CPU against
// scikit-learn's ledoit_wolf and oas (when installed) and a NumPy
// transcription of the three formulas, on sets of several shapes: T < P
// (singular S), T > P, P = 1 and 2, and the hand case.
func TestAgainstScikitLearn(t *testing.T) {
	py := pythonWithNumPy(t)
	shapes := [][2]int{{8, 3}, {5, 12}, {30, 7}, {252, 49}, {24, 49}, {40, 2}, {6, 1}}
	var sets []*tensor.Tensor
	var js [][][]float64
	for i, s := range shapes {
		x := sampleSets(1, s[0], s[1], uint64(31+i), false)
		if i == 0 {
			for r, row := range handCase.x {
				copy(x.F64[r*3:], row[:])
			}
		}
		sets = append(sets, x)
		m := make([][]float64, s[0])
		for r := range m {
			m[r] = x.F64[r*s[1] : (r+1)*s[1]]
		}
		js = append(js, m)
	}
	in, _ := json.Marshal(js)
	cmd := exec.Command(py, "-c", sklearnScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var outs []sklearnOut
	if err := json.Unmarshal(outb, &outs); err != nil {
		t.Fatalf("python output: %v\n%.500s", err, outb)
	}
	if !outs[0].Sklearn {
		t.Log("scikit-learn is not installed: checking against the NumPy transcription only")
	}
	const tol = 1e-12
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }
	for i, x := range sets {
		o := outs[i]
		for name, impl := range map[string]func(*tensor.Tensor, Options) (*Result, error){"reference": Reference, "cpu": CPU} {
			for _, c := range []struct {
				est    Estimator
				numpy  float64
				sk     float64
				skCov  []float64
				skName string
			}{
				{PACO, o.NumPyPACO, math.NaN(), nil, ""},
				{LedoitWolf, o.NumPyLW, o.SkLW, o.SkLWCov, "ledoit_wolf"},
				{OAS, o.NumPyOAS, o.SkOAS, o.SkOASCov, "oas"},
			} {
				r, err := impl(x, Options{Estimator: c.est})
				if err != nil {
					t.Fatal(err)
				}
				rho := r.Rho.F64[0]
				if !near(rho, c.numpy) {
					t.Errorf("%s %v, T=%d P=%d: ρ = %.17g, NumPy transcription %.17g", name, c.est, x.Shape[1], x.Shape[2], rho, c.numpy)
				}
				if o.Sklearn && c.skCov != nil {
					if !near(rho, c.sk) {
						t.Errorf("%s %v, T=%d P=%d: ρ = %.17g, sklearn.covariance.%s %.17g", name, c.est, x.Shape[1], x.Shape[2], rho, c.skName, c.sk)
					}
					checkBlocks(t, name+" "+c.skName+" covariance", r.Cov.F64, c.skCov, 1, 1e-12, false)
				}
			}
		}
	}
	// The hand case agrees with the exact constants too.
	if !near(outs[0].NumPyPACO, handCase.rhoPACO) || !near(outs[0].NumPyLW, handCase.rhoLW) || !near(outs[0].NumPyOAS, handCase.rhoOAS) {
		t.Errorf("hand case: NumPy gives PACO %g LW %g OAS %g; exact %g %g %g", outs[0].NumPyPACO, outs[0].NumPyLW, outs[0].NumPyOAS,
			handCase.rhoPACO, handCase.rhoLW, handCase.rhoOAS)
	}
}
