package spirv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// disassembly is what the test reads back from `spirv-dis --raw-id`.
type disassembly struct {
	localSize     [3]uint32
	localSizeSpec [3]int
	bindings      map[[2]uint32]bool // (set, binding) → readonly
	writeonly     map[[2]uint32]bool
	specs         map[uint32]map[uint64]bool // constant_id → the defaults of the constants it decorates
	pushOffsets   []int
	capabilities  []string
}

var instr = regexp.MustCompile(`^\s*(?:%(\d+) = )?(Op\w+)(.*)$`)

// disassemble runs spirv-dis on path and extracts the facts reflection
// must agree with, independently of this package's parser.
func disassemble(t *testing.T, path string) disassembly {
	t.Helper()
	out, err := exec.Command("spirv-dis", "--raw-id", path).Output()
	if err != nil {
		t.Fatalf("spirv-dis %s: %v", path, err)
	}
	d := disassembly{localSizeSpec: [3]int{-1, -1, -1}, bindings: map[[2]uint32]bool{}, writeonly: map[[2]uint32]bool{}, specs: map[uint32]map[uint64]bool{}}
	decor := map[string]map[string]string{} // id → decoration → operand
	member := map[string]map[string][]string{}
	ops := map[string][]string{} // id → op and operands
	var vars [][2]string         // (pointer type, storage)
	varIDs := []string{}
	for _, line := range strings.Split(string(out), "\n") {
		m := instr.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := strings.Fields(m[3])
		switch m[2] {
		case "OpCapability":
			d.capabilities = append(d.capabilities, f[0])
		case "OpExecutionMode":
			if f[1] == "LocalSize" {
				for i := 0; i < 3; i++ {
					v, _ := strconv.Atoi(f[2+i])
					d.localSize[i] = uint32(v)
				}
			}
		case "OpDecorate":
			id := strings.TrimPrefix(f[0], "%")
			if decor[id] == nil {
				decor[id] = map[string]string{}
			}
			decor[id][f[1]] = strings.Join(f[2:], " ")
		case "OpMemberDecorate":
			id := strings.TrimPrefix(f[0], "%")
			if member[id] == nil {
				member[id] = map[string][]string{}
			}
			member[id][f[1]] = append(member[id][f[1]], f[2]+" "+strings.Join(f[3:], " "))
		case "OpVariable":
			vars = append(vars, [2]string{strings.TrimPrefix(f[0], "%"), f[1]})
			varIDs = append(varIDs, m[1])
		}
		if m[1] != "" {
			ops[m[1]] = append([]string{m[2]}, f...)
		}
	}
	word := func(id string) (uint64, bool) {
		o := ops[id]
		switch o[0] {
		case "OpSpecConstant", "OpConstant":
			v, err := strconv.ParseUint(o[2], 10, 64)
			if err != nil {
				t.Fatalf("%s: constant %s %v", path, id, o)
			}
			return v, o[0] == "OpSpecConstant"
		case "OpSpecConstantTrue":
			return 1, true
		case "OpSpecConstantFalse":
			return 0, true
		}
		t.Fatalf("%s: %%%s is %v", path, id, o)
		return 0, false
	}
	for id, dec := range decor {
		if sid, ok := dec["SpecId"]; ok {
			n, _ := strconv.Atoi(sid)
			v, _ := word(id)
			if d.specs[uint32(n)] == nil {
				d.specs[uint32(n)] = map[uint64]bool{}
			}
			d.specs[uint32(n)][v] = true
		}
		if dec["BuiltIn"] == "WorkgroupSize" {
			o := ops[id]
			for i := 0; i < 3; i++ {
				c := strings.TrimPrefix(o[2+i], "%")
				v, spec := word(c)
				d.localSize[i] = uint32(v)
				if spec {
					n, _ := strconv.Atoi(decor[c]["SpecId"])
					d.localSizeSpec[i] = n
				}
			}
		}
	}
	for i, v := range vars {
		ptr := ops[v[0]]
		st := strings.TrimPrefix(ptr[2], "%")
		switch v[1] {
		case "PushConstant":
			for k := 0; ; k++ {
				ds, ok := member[st][strconv.Itoa(k)]
				if !ok {
					break
				}
				for _, x := range ds {
					if strings.HasPrefix(x, "Offset ") {
						n, _ := strconv.Atoi(strings.TrimPrefix(x, "Offset "))
						d.pushOffsets = append(d.pushOffsets, n)
					}
				}
			}
		case "StorageBuffer", "Uniform":
			dec := decor[varIDs[i]]
			if _, ok := dec["Binding"]; !ok {
				continue
			}
			s, _ := strconv.Atoi(dec["DescriptorSet"])
			b, _ := strconv.Atoi(dec["Binding"])
			ro, wo := true, true
			for _, ds := range member[st] {
				joined := strings.Join(ds, ",")
				ro = ro && strings.Contains(joined, "NonWritable")
				wo = wo && strings.Contains(joined, "NonReadable")
			}
			d.bindings[[2]uint32{uint32(s), uint32(b)}] = ro
			d.writeonly[[2]uint32{uint32(s), uint32(b)}] = wo
		}
	}
	return d
}

// TestReflectBuiltins checks the reflection of every built-in shader
// against what spirv-dis prints for it.
func TestReflectBuiltins(t *testing.T) {
	if _, err := exec.LookPath("spirv-dis"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("spirv-dis not found (apt-get install spirv-tools)")
		}
		t.Skip("spirv-dis not found (apt-get install spirv-tools)")
	}
	files, _ := filepath.Glob("../../shaders/spv/*.spv")
	if len(files) < 20 {
		t.Fatalf("found %d built-in shaders", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".spv"), func(t *testing.T) {
			code, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Reflect(code)
			if err != nil {
				t.Fatal(err)
			}
			want := disassemble(t, f)
			for i, sid := range want.localSizeSpec {
				if sid >= 0 && want.specs[uint32(sid)][uint64(m.LocalSize[i])] {
					want.localSize[i] = m.LocalSize[i] // the GLSL constant's default
				}
			}
			if m.LocalSize != want.localSize || m.LocalSizeSpec != want.localSizeSpec {
				t.Errorf("local size %v spec %v, spirv-dis %v spec %v", m.LocalSize, m.LocalSizeSpec, want.localSize, want.localSizeSpec)
			}
			got := map[[2]uint32]bool{}
			gotWO := map[[2]uint32]bool{}
			for _, b := range m.Bindings {
				if b.Kind != "storage" {
					t.Errorf("binding %d: kind %s", b.Binding, b.Kind)
				}
				got[[2]uint32{b.Set, b.Binding}] = b.ReadOnly
				gotWO[[2]uint32{b.Set, b.Binding}] = b.WriteOnly
			}
			if !reflect.DeepEqual(got, want.bindings) || !reflect.DeepEqual(gotWO, want.writeonly) {
				t.Errorf("bindings (readonly) %v writeonly %v, spirv-dis %v %v", got, gotWO, want.bindings, want.writeonly)
			}
			if len(m.SpecConstants) != len(want.specs) {
				t.Errorf("%d spec constants, spirv-dis %d", len(m.SpecConstants), len(want.specs))
			}
			for _, s := range m.SpecConstants {
				if !want.specs[s.ID][s.Default] {
					t.Errorf("spec constant %d default %d, spirv-dis %v", s.ID, s.Default, want.specs[s.ID])
				}
			}
			var offs []int
			if m.Push != nil {
				for _, mem := range m.Push.Members {
					offs = append(offs, mem.Offset)
				}
			}
			if !reflect.DeepEqual(offs, want.pushOffsets) {
				t.Errorf("push constant offsets %v, spirv-dis %v", offs, want.pushOffsets)
			}
			caps := append([]string(nil), m.Capabilities...)
			sort.Strings(caps)
			sort.Strings(want.capabilities)
			if !reflect.DeepEqual(caps, want.capabilities) {
				t.Errorf("capabilities %v, spirv-dis %v", caps, want.capabilities)
			}
		})
	}
}

func TestReflectRejects(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("#version 450\nvoid main(){}\n"), make([]byte, 24)} {
		if _, err := Reflect(b); err == nil {
			t.Errorf("Reflect(%q) succeeded", b)
		}
	}
	// A truncated instruction stream.
	code, err := os.ReadFile("../../shaders/spv/map_f32.spv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Reflect(code[:len(code)/2+2]); err == nil {
		t.Error("a truncated module reflected")
	}
}

func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		typ, s string
		want   uint64
		ok     bool
	}{
		{"uint32", "64", 64, true}, {"uint32", "-1", 0, false}, {"int32", "-1", 0xffffffff, true},
		{"float32", "1.5", 0x3fc00000, true}, {"float64", "2", 0x4000000000000000, true},
		{"bool", "true", 1, true}, {"bool", "maybe", 0, false}, {"uint32", "x", 0, false},
		{"int64", "-2", 0xfffffffffffffffe, true}, {"struct", "1", 0, false},
	} {
		got, err := ParseValue(c.typ, c.s)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseValue(%s, %q) = %#x, %v", c.typ, c.s, got, err)
		}
		if c.ok && c.typ != "int32" && c.typ != "int64" && FormatValue(c.typ, got) != fmt.Sprint(c.s) && c.typ != "float64" && c.typ != "bool" {
			t.Errorf("FormatValue(%s, %#x) = %s", c.typ, got, FormatValue(c.typ, got))
		}
	}
}

// TestSharedBytes: shared arrays sized by specialization constants
// (shaders/cov.comp: tile[TC·PB] with PB = (P+3)/4, smean[P], red[WG_SIZE])
// follow the values given.
func TestSharedBytes(t *testing.T) {
	code, err := os.ReadFile("../../shaders/spv/cov_f32.spv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Reflect(code)
	if err != nil {
		t.Fatal(err)
	}
	// dvec4 tile[1], double smean[1], dvec4 red[64], double srho.
	if want := 32 + 8 + 32*64 + 8; m.SharedBytes != want || m.SharedBytesWith(nil) != want {
		t.Errorf("shared bytes at the defaults: %d, want %d", m.SharedBytes, want)
	}
	// WG_SIZE 64, P 49, TC 8: PB = 13.
	if got, want := m.SharedBytesWith(map[uint32]uint64{1: 49, 2: 8}), 32*8*13+8*49+32*64+8; got != want {
		t.Errorf("shared bytes with P=49, TC=8: %d, want %d", got, want)
	}
}
