package chol

import (
	"context"
	"fmt"
	"slices"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// tuning is the chol pipeline's resolved parameters (device/tune,
// defaults/chol.json).
type tuning struct {
	kernel        string // workgroup (chol.comp) or subgroup (chol_sg.comp)
	order         string // chol_sg.comp's order: right, left or dot
	sgMatrices    int    // chol_sg.comp matrices per workgroup, at most
	sgMaxP        int    // the largest P for chol_sg.comp
	wgInvocations int    // chol.comp's invocations per workgroup for small P
}

// resolveTuning reads the parameters for info's device (ctx may carry an
// override) and checks them against its limits.
func resolveTuning(ctx context.Context, info engine.DeviceInfo) (tuning, error) {
	p, err := tune.Resolve(ctx, "chol", info)
	if err != nil {
		return tuning{}, err
	}
	t := tuning{p.Str("kernel"), p.Str("sg_order"), p.Int("sg_matrices"), p.Int("sg_max_p"), p.Int("wg_invocations")}
	if lim := int(info.MaxWorkgroupInvocation); lim > 0 && t.wgInvocations > lim {
		return t, p.Errorf("wg_invocations", "%s runs at most %d invocations per workgroup", info.Name, lim)
	}
	if t.order == "dot" && !slices.Contains(info.SubgroupOps, "arithmetic") {
		t.order = "left"
	}
	return t, nil
}

// hasSubgroups reports whether chol_sg.comp can run on info's device: a
// known subgroup size and subgroup operations in compute shaders (it uses
// only GL_KHR_shader_subgroup_basic's barriers).
func hasSubgroups(info engine.DeviceInfo) bool {
	return info.SubgroupSize > 0 && slices.Contains(info.SubgroupOps, "basic")
}

// sgBytes is the workgroup memory chol_sg.comp takes per matrix: the packed
// lower triangle with its diagonal and P elements of solve work space.
func sgBytes(p, es int) int { return (p*(p+1)/2 + p) * es }

// sgLoops bounds the loop iterations one lane of chol_sg.comp spends on
// everything but the solves (flags), with lanes lanes per matrix. lavapipe
// runs a subgroup's lanes as one SIMD program, so a loop whose lanes run
// different trip counts counts as its longest lane: the bound takes the
// longest. The load and the L output P²/lanes each; the factorisation
// P³/(6·lanes) + P²/2 + P²/lanes + lanes·P (right and left: each step
// loops over the lane's rows of the trailing part, and over up to P − j
// entries of each; dot: each step loops over the P − j rows, and over
// j/lanes entries of each, P²/2 more); the float64 log-det's 12 iterations
// per pivot; the inverse (below).
func sgLoops(p, lanes int, double, dot bool, flags uint32) int {
	n := p*p*p/(6*lanes) + p*p/2 + 3*p*p/lanes + lanes*p + 4*p + 8
	if dot {
		n += p * p / 2
	}
	if double && flags&flagLogDet != 0 {
		n += 12 * p
	}
	if flags&flagInverse != 0 {
		// L⁻¹ a column at a time (P³/(6·lanes) + P²/2, and 2P²/lanes to
		// set and store the columns), then XᵀX entry by entry (P³/(3·lanes)
		// + P²/lanes on average; the longest of a subgroup's entries costs
		// up to 1.5P² more in all). Measured on lavapipe (8 lanes): a bound
		// without the 1.5P² let P = 82 through, whose inverse came out 0.4
		// off.
		n += p*p*p/(2*lanes) + 2*p*p + 4*p*p/lanes + 4*p
	}
	return n
}

// sgPerColumn bounds the loop iterations of one right-hand side: the two
// substitutions loop over the lane's rows below (above) each pivot, the
// load and store over P/lanes.
func sgPerColumn(p, lanes int) int { return p*p/lanes + 2*p + 2*p/lanes + 6 }

// planSubgroup says how chol_sg.comp would run P on info's device: the
// matrices per workgroup (the fewest of t.sgMatrices, what workgroup
// memory holds and what the workgroup size holds), or why it cannot (it
// then goes to chol.comp): no subgroup operations in compute, P above
// sg_max_p, one matrix over the workgroup memory, or, on lavapipe, a
// factorisation past its 65,535-iteration loop limit. A function of the
// device report alone, as planLayout.
func planSubgroup(info engine.DeviceInfo, p int, double bool, flags uint32, t tuning) (int, string) {
	if !hasSubgroups(info) {
		return 0, "no subgroup operations in compute"
	}
	if p > t.sgMaxP {
		return 0, fmt.Sprintf("P = %d is above sg_max_p = %d", p, t.sgMaxP)
	}
	es := 4
	if double {
		es = 8
	}
	lanes := int(info.SubgroupSize)
	shared := int(info.MaxSharedMemory)
	if shared <= 0 {
		shared = defaultSharedMemory
	}
	maxInv := int(info.MaxWorkgroupInvocation)
	if maxInv <= 0 {
		maxInv = 128
	}
	if lim := int(info.MaxWorkgroupSize[0]); lim > 0 {
		maxInv = min(maxInv, lim)
	}
	mpw := min(t.sgMatrices, shared/sgBytes(p, es), maxInv/lanes, maxMPW)
	if mpw < 1 {
		return 0, fmt.Sprintf("one %d×%d matrix takes %d B of workgroup memory, over the %d B of %s", p, p, sgBytes(p, es), shared, info.Name)
	}
	if info.IsLavapipe() && sgLoops(p, lanes, double, t.order == "dot", flags&^(flagSolve|flagQuad)) > 60000 {
		return 0, fmt.Sprintf("P = %d loops past lavapipe's limit", p)
	}
	return mpw, ""
}

// pickKernel is the kernel that serves r on dev: chol_sg.comp where the
// tuning asks for it and planSubgroup allows it, else chol.comp.
func pickKernel(ctx context.Context, dev *engine.Device, r Request, d dims) (*kernel, error) {
	t, err := resolveTuning(ctx, dev.Info)
	if err != nil {
		return nil, err
	}
	if m := r.test.mpwCap(); m < t.sgMatrices {
		t.sgMatrices = m
	}
	if t.kernel == "subgroup" && !r.test.get().global {
		var flags uint32
		if r.LogDet {
			flags |= flagLogDet
		}
		if r.Inverse {
			flags |= flagInverse
		}
		if mpw, _ := planSubgroup(dev.Info, d.p, r.A.DType == tensor.F64, flags, t); mpw > 0 {
			return newSGKernel(dev, d.p, r.A.DType, mpw, t.order)
		}
	}
	return newKernelFor(dev, d.p, r.A.DType, t.wgInvocations, r.test)
}

// newSGKernel compiles chol_sg.comp for P, mpw matrices per workgroup, in
// order (right, left or dot).
func newSGKernel(dev *engine.Device, p int, dt tensor.DType, mpw int, order string) (*kernel, error) {
	name, es := "chol_sg_", 4
	if order == "dot" {
		name += "dot_"
	}
	name += "f32"
	if dt == tensor.F64 {
		if err := dev.RequireFloat64(); err != nil {
			return nil, fmt.Errorf("chol: %w", err)
		}
		name, es = name[:len(name)-3]+"f64", 8
	}
	lanes := int(dev.Info.SubgroupSize)
	var l uint32
	if order == "left" {
		l = 1
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: cholPush{},
		Spec: []uint32{uint32(mpw * lanes), uint32(p), uint32(mpw), l}})
	if err != nil {
		return nil, err
	}
	return &kernel{k: k, dev: dev, p: p, tpm: lanes, mpw: mpw, lsz: max(p*(p-1)/2, 1), es: es, sg: lanes, dot: order == "dot"}, nil
}

// Candidates are what `vkstat bench --tune` searches for the chol pipeline
// on dev (on the cases of package suite's chol operation): chol.comp (the
// built-in choice first) against chol_sg.comp right- and left-looking (and
// dot, where the device has subgroup arithmetic) with 1, 2, 4 and 8
// matrices per workgroup (where the device has subgroup operations in
// compute).
func Candidates(dev *engine.Device) []map[string]any {
	builtin := map[string]any{"kernel": "workgroup"}
	if b, err := tune.Builtin("chol", dev.Info); err == nil {
		builtin = map[string]any{"kernel": b.Str("kernel")}
		if b.Str("kernel") == "subgroup" {
			builtin["sg_order"], builtin["sg_matrices"] = b.Str("sg_order"), b.Int("sg_matrices")
		}
	}
	cands := []map[string]any{builtin}
	if builtin["kernel"] != "workgroup" {
		cands = append(cands, map[string]any{"kernel": "workgroup"})
	}
	if hasSubgroups(dev.Info) {
		orders := []string{"right", "left"}
		if slices.Contains(dev.Info.SubgroupOps, "arithmetic") {
			orders = append(orders, "dot")
		}
		for _, o := range orders {
			for _, m := range []int{1, 2, 4, 8} {
				if builtin["kernel"] == "subgroup" && builtin["sg_order"] == o && builtin["sg_matrices"] == m {
					continue
				}
				cands = append(cands, map[string]any{"kernel": "subgroup", "sg_order": o, "sg_matrices": m})
			}
		}
	}
	return cands
}
