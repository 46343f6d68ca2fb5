package paco

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// cases are paco's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{pacoOp()} }

// ---- paco: detection maps of fast PACO ------------------------------------

// pacoArg is a paco case's patch radius and PSF placement.
type pacoArg struct {
	R         int
	Placement Placement
}

// pacoCase is a synthetic ADI sequence (T, H, W) with patch radius r and
// companions; the case's shape is the cube's.
func pacoCase(t, h, w, r int) engine.Case {
	return engine.Case{Shape: []int{t, h, w}, Note: fmt.Sprintf("R=%d", r), Arg: pacoArg{R: r}}
}

// pacoSubpixelCase is pacoCase with the PSF placed at every exact
// trajectory position (PlacementSubpixel).
func pacoSubpixelCase(t, h, w, r int) engine.Case {
	return engine.Case{Shape: []int{t, h, w}, Note: fmt.Sprintf("R=%d subpixel", r), Arg: pacoArg{R: r, Placement: PlacementSubpixel}}
}

func pacoInput(c engine.Case, in []*tensor.Tensor) Input {
	a := c.Arg.(pacoArg)
	return Input{Cube: in[0], Angles: in[1].Float64s(), PSF: in[2], Radius: a.R, Placement: a.Placement}
}

func pacoOp() engine.Op {
	return engine.Op{
		Name:        "paco",
		Suite:       "paco",
		Doc:         "PACO SNR, flux and σ maps of a synthetic ADI sequence (pipelines/paco)",
		CPUComputes: tensor.F64,
		Verify: []engine.Case{
			pacoCase(24, 32, 32, 2), pacoCase(40, 40, 44, 4), pacoSubpixelCase(24, 32, 32, 2),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			engine.BenchSmall: {{Case: pacoCase(64, 64, 64, 4), DType: tensor.F32}, {Case: pacoCase(252, 100, 100, 4), DType: tensor.F32}},
			engine.BenchPaper: {{Case: pacoCase(252, 100, 100, 4), DType: tensor.F32}, {Case: pacoCase(128, 256, 256, 4), DType: tensor.F32}},
		},
		Build: func(c engine.Case, dt tensor.DType) []*tensor.Tensor {
			t, h, w := c.Shape[0], c.Shape[1], c.Shape[2]
			cfg := synth.Default()
			cfg.Frames, cfg.H, cfg.W, cfg.Seed, cfg.DType = t, h, w, c.Seed, tensor.F64
			sep := float64(min(h, w)) / 4
			cfg.Companions = []synth.Companion{{SepPx: sep, ThetaDeg: 45, Flux: 100}, {SepPx: 1.5 * sep, ThetaDeg: 200, Flux: 20}}
			ds, err := synth.Generate(cfg)
			if err != nil {
				panic(fmt.Sprintf("suite: paco case %s: %v", c.Label(), err)) // the cases above are valid
			}
			return []*tensor.Tensor{ds.Cube.As(dt), tensor.FromF64(ds.Angles, t).As(dt), ds.PSF.As(dt)}
		},
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			a := c.Arg.(pacoArg)
			opt := DefaultOptions()
			opt.PSF, opt.Radius, opt.Placement = in[2], a.R, a.Placement
			// The geometric centre, as the reference takes it (not measured).
			opt.Center, opt.CenterYX = CenterGiven, [2]float64{float64(c.Shape[1] / 2), float64(c.Shape[2] / 2)}
			m, err := RunMaps(ctx, dev, ADI{Cube: in[0], Angles: in[1].Float64s()}, opt)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			if os.Getenv("VKSTAT_BENCH_STAGES") != "" {
				// Each run's stages, as `vkstat --time paco` prints them
				// (scripts/gpu-run.sh's paco-time step compares the two).
				where := "the CPU path"
				if dev != nil {
					where = dev.Info.Name
				}
				fmt.Fprintf(os.Stderr, "paco %s on %s:", c.Label(), where)
				for _, st := range m.Stages {
					fmt.Fprintf(os.Stderr, " %s %.3f ms;", st.Name, float64(st.Time.Microseconds())/1000)
				}
				fmt.Fprintln(os.Stderr)
			}
			snr, flux, sigma := m.Tensors()
			dt := in[0].DType // the maps come back in float64 from every path
			return []engine.Output{{Name: "snr", T: snr.As(dt)}, {Name: "flux", T: flux.As(dt)}, {Name: "sigma", T: sigma.As(dt)}}, m.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			pin := pacoInput(c, in)
			pin.Cube = in[0].As(tensor.F64)
			m, err := Reference(pin)
			if err != nil {
				return nil, err
			}
			return []engine.RefOutput{{Name: "snr", V: m.SNR}, {Name: "flux", V: m.Flux}, {Name: "sigma", V: m.Sigma}}, nil
		},
		// float32: PACO.md allows |ΔSNR| ≤ 2e-2 on SNRs of order 10.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 2e-3, NMSE: 1e-6}, tensor.F64: {MaxErr: 1e-9, NMSE: 1e-18}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			a := c.Arg.(pacoArg)
			w, _ := Work(c.Shape, dt, Options{Radius: a.R, Placement: a.Placement}) // every case's patch fits its frames
			return w
		},
		Unit: engine.GFlops,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			a := c.Arg.(pacoArg)
			if a.Placement != PlacementNearest {
				return nil // the peers place the PSF on the nearest pixel
			}
			return &engine.Peer{Script: "paco", Args: []string{"--frames", strconv.Itoa(c.Shape[0]), "--size", strconv.Itoa(c.Shape[1]), "--radius", strconv.Itoa(a.R)}}
		},
	}
}
