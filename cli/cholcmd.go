package cli

import (
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/pipelines/chol"
)

func cholCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "chol",
		Usage:     "batched Cholesky factorisation, solve, inverse and log-determinant",
		UsageText: "vkstat [global options] chol --in A.npy [--out-l L.npy] [--out-inverse AINV.npy] [--out-logdet LD.npy] [--solve B.npy --out-x X.npy] [--out-quad Q.npy] [--out-info INFO.npy] [--factored]",
		Description: `--in holds N symmetric positive-definite matrices, shape (N, P, P), or one,
shape (P, P); only the lower triangle is read, as LAPACK's potrf (uplo 'L')
and numpy.linalg.cholesky read it. Each matrix is factored A = L·Lᵀ.

--solve B with --out-x X solves A·X = B for B of shape (N, P, K) or (N, P)
(or (P, K) and (P,) for one matrix); --out-quad writes bᵀA⁻¹b for each
right-hand side. --out-info writes, as int32, potrf's info code per matrix:
0, or the 1-based index of the first pivot that is not positive. A matrix
that is not positive definite (a negative eigenvalue, a zero matrix, NaNs)
gets NaN in every output and never disturbs the others; the summary line
counts them.

--factored reads --in as factors L, lower triangular (a previous run's
--out-l, or numpy.linalg.cholesky's), and uses them as they are, as SciPy's
cho_solve does: nothing is factored again, only the lower triangle is read,
and info is the index of the first diagonal entry that is not positive.
Two triangular solves per right-hand side are little work, memory-bound:
they run on the host (the CPU path) whatever --device says.

Examples:
   vkstat chol --in C.npy --out-l L.npy --out-logdet ld.npy --out-info info.npy
   vkstat chol --in C.npy --solve B.npy --out-x X.npy
   vkstat chol --in L.npy --factored --solve B2.npy --out-x X2.npy
   vkstat --device cpu --precision f64 chol --in C.npy --out-inverse Cinv.npy`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "matrices (N, P, P) or one (P, P) (.npy or FITS)"},
			&ucli.StringFlag{Name: "solve", Usage: "right-hand sides B (.npy or FITS); needs --out-x"},
			&ucli.StringFlag{Name: "out-x", Usage: "solutions X of A·X = B (.npy); needs --solve"},
			&ucli.StringFlag{Name: "out-info", Usage: "potrf info codes, int32 (.npy)"},
			jsonFlag(),
		}, paramFlags(chol.Params())...),
		Action: runChol,
	}
}

func runChol(c *ucli.Context) error {
	start := time.Now()
	if err := requireFlag(c, "in"); err != nil {
		return err
	}
	if c.IsSet("solve") != c.IsSet("out-x") {
		return usagef("chol: --solve and --out-x go together")
	}
	if c.IsSet("out-quad") && !c.IsSet("solve") {
		return usagef("chol: --out-quad needs --solve")
	}
	tr := time.Now()
	a, err := readInput(c, "in")
	if err != nil {
		return err
	}
	aShape := a.Shape
	a, single, err := chol.Matrices(a)
	if err != nil {
		return fmt.Errorf("--in: %s has %w", c.String("in"), err)
	}
	dt, err := precision(c, a.DType)
	if err != nil {
		return err
	}
	req := chol.Request{Input: chol.Input{A: a.As(dt)}, Options: chol.DefaultOptions()}
	if err := setParams(c, chol.Params(), &req.Options); err != nil {
		return err
	}
	n, p := a.Shape[0], a.Shape[1]
	var bShape []int
	if c.IsSet("solve") {
		b, err := readInput(c, "solve")
		if err != nil {
			return err
		}
		bShape = b.Shape
		if b, err = chol.RightHandSides(b, aShape); err != nil {
			return fmt.Errorf("--solve: %s has %w", c.String("solve"), err)
		}
		req.B = b.As(dt)
	}

	res, s, err := runOn(c, priced(chol.Spec)(chol.Work([]int{n, p, p}, dt, chol.Options{}, 1)), time.Since(tr),
		func(dev *engine.Device) (*chol.Result, error) {
			return chol.Run(c.Context, dev, req.Input, req.Options)
		})
	if err != nil {
		return err
	}
	if single {
		res.Squeeze(bShape)
	}
	tw := time.Now()
	files := flagArrays(c, nil, []string{"out-l", "out-inverse", "out-logdet", "out-x", "out-quad"}, res.L, res.Inverse, res.LogDet, res.X, res.Quad)
	if c.IsSet("out-info") {
		shape := []int{n}
		if single {
			shape = []int{}
		}
		files = append(files, outputs.File{Path: c.String("out-info"), DType: "int32", Shape: shape,
			Write: func(w io.Writer) error { return formats.EncodeRawNPY(w, "<i4", shape, res.InfoBytes()) }})
	}
	sum := newSummary(c)
	if err := writeOutputs(c, "", "", files, sum); err != nil {
		return err
	}
	sum.line("%s", res.Words(p))
	sum.set("input", c.String("in"))
	sum.set("device", s.name())
	sum.set("matrices", len(res.Info))
	sum.set("size", p)
	sum.set("failed", res.Failed())
	if failures := res.Failures(maxFailuresListed); failures != nil {
		sum.set("failures", failures) // the first few; --out-info has all
	}
	return s.finish(c, sum, res.Timing, tw, start)
}

// maxFailuresListed is how many failed matrices --json lists.
const maxFailuresListed = 100
