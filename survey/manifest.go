package survey

// A survey manifest: one PACO target per CSV row or JSON object, with the
// options of vkstat paco as columns or keys.

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
)

// Column is one manifest column (or JSON key): a target's option, whose
// default a survey's caller may give (vkstat survey run's flag of the same
// name).
type Column struct {
	Name  string
	Usage string
	// Default is the value an empty cell takes, as text ("" for none):
	// paco's default for its options (what a 0 means, where it means
	// something: "2×radius").
	Default string
	Path    bool // a file: relative to the manifest's folder (a default's: to the working directory)
	Bool    bool // true/false
	set     func(t *Target, v string) error
}

// Columns are the per-target options, in the order the survey table's
// documentation lists them; "name" is the target's folder, apart. The
// files come first, then paco's parameters as paco.Params describes them
// (a column's set reads its text as the command line's flag does, and
// what the value may be is paco's contract, paco.Options.Check, which
// Target.Check runs), then the centre, the map formats and the truth.
var Columns = columns()

func columns() []Column {
	cols := []Column{
		{Name: "cube", Path: true, Usage: "the ADI cube (T, H, W): .fits or .npy", set: func(t *Target, v string) error { t.Cube = v; return nil }},
		{Name: "angles", Path: true, Usage: "T parallactic angles in degrees: .fits, .npy or text, or header (ESO's PARANG START/END in the cube's header)", set: func(t *Target, v string) error { t.Angles = v; return nil }},
		{Name: "psf", Path: true, Usage: "off-axis PSF stamp, odd-sized and centred (or fwhm)", set: func(t *Target, v string) error { t.PSF, t.Options.FWHM = v, 0; return nil }},
	}
	for _, p := range paco.Params() {
		def := p.DefaultText
		if def == "" && p.Kind != reflect.Bool {
			def = fmt.Sprint(p.Default)
		}
		cols = append(cols, Column{Name: p.Flag, Usage: p.Help, Default: def, Bool: p.Kind == reflect.Bool, set: func(t *Target, v string) error {
			if p.Name == "fwhm" { // a Gaussian instead of the stamp
				t.PSF = ""
			}
			return p.SetText(&t.Options, v)
		}})
	}
	return append(cols,
		Column{Name: "center", Usage: "star centre: y,x (0-based pixels), auto or header", Default: "header, else auto", set: func(t *Target, v string) error {
			var err error
			t.Options.Center, t.Options.CenterYX, err = paco.ParseCenter(v)
			return err
		}},
		Column{Name: "format", Usage: "map formats, comma-separated: fits, npy", Default: "fits", set: func(t *Target, v string) error {
			f, err := ParseFormat(v)
			t.Format = f
			return err
		}},
		Column{Name: "truth", Path: true, Usage: "truth.json of vkstat synth paco (its comparison goes in the target's summary.txt)", set: func(t *Target, v string) error { t.Truth = v; return nil }},
	)
}

func findColumn(name string) *Column {
	for i := range Columns {
		if Columns[i].Name == name {
			return &Columns[i]
		}
	}
	return nil
}

// canonicalColumn is a column or key as the manifest gives it, lower case,
// with _ read as - (pixel_scale is pixel-scale).
func canonicalColumn(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// Manifest is a parsed manifest.
type Manifest struct {
	Path    string
	SHA256  string // of the file's bytes: shards of one survey must agree
	Targets []Target
}

// Defaults are the values, by column, that a target's empty cells (missing
// keys) take, as text, with paths relative to the working directory: vkstat
// survey run's flags.
type Defaults map[string]string

var TargetName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$`) })

// ReadManifest reads a CSV (header row, one target per row) or JSON
// (an array of objects, or {"targets": [...]}) manifest. Paths in it are
// relative to its folder. Errors in its structure (unknown column, no
// name, a name twice, malformed CSV or JSON) fail the whole manifest and
// name the line or target; a bad value fails only its target (the
// target's err).
func ReadManifest(path string, defaults Defaults) (*Manifest, error) {
	b, err := formats.ReadText(path, 0, "a survey manifest")
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return ParseManifest(path, b, defaults)
}

// ParseManifest is ReadManifest on the manifest's bytes b.
func ParseManifest(path string, b []byte, defaults Defaults) (*Manifest, error) {
	sum := sha256.Sum256(b)
	m := &Manifest{Path: path, SHA256: hex.EncodeToString(sum[:])}
	var rows []manifestRow
	var err error
	trimmed := bytes.TrimSpace(b)
	if strings.HasSuffix(strings.ToLower(path), ".json") || (len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{')) {
		rows, err = parseManifestJSON(trimmed)
	} else {
		rows, err = parseManifestCSV(b)
	}
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("manifest %s: no targets", path)
	}
	base := filepath.Dir(path)
	seen := map[string]string{}
	for i, r := range rows {
		name := strings.TrimSpace(r.cells["name"])
		switch {
		case name == "":
			return nil, fmt.Errorf("manifest %s: %s has no name", path, r.where)
		case !TargetName().MatchString(name) || Reserved(name):
			return nil, fmt.Errorf("manifest %s: %s: name %q: want letters, digits, '.', '_', '+' or '-', starting with a letter or digit, at most 100 characters, and not a survey table's name (it is the target's folder)", path, r.where, name)
		case seen[name] != "":
			return nil, fmt.Errorf("manifest %s: %s: name %q is already the name of %s", path, r.where, name, seen[name])
		}
		seen[name] = r.where
		t, err := target(r.cells, defaults, base)
		t.Index, t.Name, t.Where, t.Err = i+1, name, r.where, err
		m.Targets = append(m.Targets, t)
	}
	return m, nil
}

// Reserved reports whether name is one of the survey's own files.
func Reserved(name string) bool {
	l := strings.ToLower(name)
	return l == "survey.csv" || l == "survey.json" || l == TimingsFile || strings.HasPrefix(l, "survey-shard-")
}

// withDefaults is a target of vkstat paco's defaults, then the survey's.
func withDefaults(defaults Defaults) (Target, error) {
	t := Target{Options: paco.DefaultOptions(), Format: "fits"}
	for _, o := range Columns {
		if v, ok := defaults[o.Name]; ok {
			if err := o.set(&t, v); err != nil {
				return t, fmt.Errorf("the default %s: %w", o.Name, err)
			}
		}
	}
	return t, nil
}

// CheckDefaults refuses defaults that no target could run with
// (paco.Options.Check, as Target.Check, and a PSF given as both a stamp
// and a FWHM), worded by word (vkstat survey run's flags: "--radius"),
// before a manifest is read.
func CheckDefaults(defaults Defaults, word func(field string) string) error {
	t, err := withDefaults(defaults)
	if err != nil {
		return err
	}
	_, psf := defaults["psf"]
	_, fwhm := defaults["fwhm"]
	if psf && fwhm {
		return errors.New(paco.ErrBothPSF.Words(func(field, _ string) string { return word(field) }))
	}
	if !psf && !fwhm {
		t.PSF = "cells" // the targets' cells give the PSF
	}
	t.Word = word
	return t.CheckOptions()
}

// target is a target's settings: vkstat paco's defaults, then the
// survey's (defaults), then the target's own cells.
func target(cells map[string]string, defaults Defaults, base string) (Target, error) {
	t, err := withDefaults(defaults)
	if err != nil {
		return t, err
	}
	if cells["psf"] != "" && cells["fwhm"] != "" {
		return t, paco.ErrBothPSF
	}
	for _, o := range Columns {
		v := strings.TrimSpace(cells[o.Name])
		if v == "" {
			continue
		}
		if o.Path && !filepath.IsAbs(v) && !(o.Name == "angles" && v == "header") {
			v = filepath.Join(base, v)
		}
		if err := o.set(&t, v); err != nil {
			return t, fmt.Errorf("%s: %w", o.Name, err)
		}
	}
	switch {
	case t.Cube == "":
		return t, errors.New("cube: not given")
	case t.Angles == "":
		return t, errors.New("angles: not given")
	}
	return t, paco.PSFGiven(t.PSF != "", t.Options.FWHM) // paco.ErrNoPSF: neither the cells nor the defaults give one
}

// manifestRow is one target's cells, by canonical column name.
type manifestRow struct {
	where string
	cells map[string]string
}

// checkColumn errors on a column that is neither name nor an option.
func checkColumn(col, raw string) error {
	if col == "name" || findColumn(col) != nil {
		return nil
	}
	known := []string{"name"}
	for _, o := range Columns {
		known = append(known, o.Name)
	}
	return fmt.Errorf("unknown column %q; the columns are %s (_ may stand for -)", raw, strings.Join(known, ", "))
}

func parseManifestCSV(b []byte) ([]manifestRow, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err == io.EOF {
		return nil, errors.New("empty: want a header row (name,cube,angles,psf,...) and one row per target")
	}
	if err != nil {
		return nil, err
	}
	cols := make([]string, len(head))
	at := map[string]int{}
	for i, h := range head {
		h = strings.TrimPrefix(h, "\ufeff") // a spreadsheet's byte-order mark
		cols[i] = canonicalColumn(h)
		if err := checkColumn(cols[i], h); err != nil {
			return nil, fmt.Errorf("line 1: %w", err)
		}
		if j, dup := at[cols[i]]; dup {
			return nil, fmt.Errorf("line 1: column %q given twice (columns %d and %d)", h, j+1, i+1)
		}
		at[cols[i]] = i
	}
	if _, ok := at["name"]; !ok {
		return nil, errors.New(`line 1: no "name" column: every target needs a name (its output folder)`)
	}
	var rows []manifestRow
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // csv.ParseError names the line
		}
		line, _ := r.FieldPos(0)
		row := manifestRow{where: fmt.Sprintf("line %d", line), cells: map[string]string{}}
		for i, v := range rec {
			row.cells[cols[i]] = v
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func parseManifestJSON(b []byte) ([]manifestRow, error) {
	var list []map[string]any
	if len(b) > 0 && b[0] == '{' {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k != "targets" {
				return nil, fmt.Errorf(`unknown key %q at the top level; want {"targets": [{"name": ..., "cube": ..., ...}, ...]} or a plain array`, k)
			}
		}
		raw, ok := doc["targets"]
		if !ok {
			return nil, errors.New(`no "targets" key; want {"targets": [...]} or a plain array of targets`)
		}
		b = raw
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("want an array of objects, one per target: %w", err)
	}
	rows := make([]manifestRow, len(list))
	for i, obj := range list {
		where := fmt.Sprintf("target %d", i+1)
		row := manifestRow{where: where, cells: map[string]string{}}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			col := canonicalColumn(k)
			if err := checkColumn(col, k); err != nil {
				return nil, fmt.Errorf("%s: %s", where, strings.Replace(err.Error(), "column", "key", 1))
			}
			if _, dup := row.cells[col]; dup {
				return nil, fmt.Errorf("%s: key %q given twice", where, k)
			}
			v, err := jsonCell(obj[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", where, k, err)
			}
			row.cells[col] = v
		}
		rows[i] = row
	}
	return rows, nil
}

// jsonCell turns a JSON value into the text a CSV cell would hold: strings
// as they are, numbers and booleans spelt out, [y, x] as "y,x", null empty.
func jsonCell(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []any:
		if len(x) == 2 {
			a, ok1 := x[0].(float64)
			b, ok2 := x[1].(float64)
			if ok1 && ok2 {
				return strconv.FormatFloat(a, 'g', -1, 64) + "," + strconv.FormatFloat(b, 'g', -1, 64), nil
			}
		}
	}
	return "", fmt.Errorf("want a string, a number, true/false or [y, x], got %v", v)
}

// Shard is shard I of N: shards are numbered from 1 (I = 1..N); the
// target at 1-based manifest position k belongs to shard ((k−1) mod N) + 1.
type Shard struct{ I, N int }

// ParseShard reads "I/N".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 {
		return Shard{}, errors.New("want I/N, shard I of N, numbered from 1 (1/4 … 4/4)")
	}
	if i < 1 || i > n {
		return Shard{}, fmt.Errorf("shards are numbered from 1 to %d; Kubernetes' JOB_COMPLETION_INDEX and Slurm arrays started at 0 count from 0: add 1", n)
	}
	return Shard{i, n}, nil
}

// Has reports whether the target at 1-based manifest position k is in the
// shard.
func (s Shard) Has(k int) bool { return (k-1)%s.N == s.I-1 }

// Count is how many of m's targets shard s holds (all of them when s is
// nil).
func (m *Manifest) Count(s *Shard) int {
	n := 0
	for _, t := range m.Targets {
		if s == nil || s.Has(t.Index) {
			n++
		}
	}
	return n
}

// Describe is what vkstat survey run says of m as it starts: its path,
// how many targets shard s holds and which shard (all when s is nil).
func (m *Manifest) Describe(s *Shard) string {
	where := "all"
	if s != nil {
		where = fmt.Sprintf("shard %d/%d", s.I, s.N)
	}
	return fmt.Sprintf("%s, %d targets (%s)", m.Path, m.Count(s), where)
}

// ParseDefaults reads the survey's defaults (vkstat survey run's flags)
// from given, which tells a column's text and whether it is given (a Bool
// column's "true" or "false"). A value its column cannot read is a
// *engine.FieldError naming the column.
func ParseDefaults(given func(column string) (string, bool)) (Defaults, error) {
	defaults := Defaults{}
	var scratch Target
	for _, o := range Columns {
		v, ok := given(o.Name)
		if !ok {
			continue
		}
		if err := o.set(&scratch, v); err != nil {
			return nil, engine.Fieldf(o.Name, ": %v", err)
		}
		defaults[o.Name] = v
	}
	return defaults, nil
}

// FormatExts are the file extensions of format (ParseFormat's): .fits,
// .npy or both.
func FormatExts(format string) []string {
	return map[string][]string{"fits": {".fits"}, "npy": {".npy"}, "both": {".fits", ".npy"}}[format]
}

// ParseFormat reads the map formats: fits, npy, both, or a comma-separated
// list of fits and npy; it returns fits, npy or both.
func ParseFormat(v string) (string, error) {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "both" || v == "all" {
		return "both", nil
	}
	fits, npy := false, false
	for _, f := range strings.Split(v, ",") {
		switch strings.TrimSpace(f) {
		case "":
		case "fits":
			fits = true
		case "npy":
			npy = true
		default:
			return "", fmt.Errorf("unknown %q; want fits, npy", strings.TrimSpace(f))
		}
	}
	switch {
	case fits && npy:
		return "both", nil
	case npy:
		return "npy", nil
	case fits:
		return "fits", nil
	}
	return "", errors.New("nothing named; want fits, npy or fits,npy")
}

// datasetManifest is the manifest of targets each in a folder of its name
// that holds cube.fits, angles.fits, psf.fits and truth.json, as vkstat
// synth survey writes them: manifest.csv's and manifest.json's writers,
// with paths relative to the manifest's folder.
func datasetManifest(names []string) (csvFile, jsonFile func(io.Writer) error) {
	cols := []string{"name", "cube", "angles", "psf", "truth"}
	files := func(name string) []string {
		return []string{name, name + "/cube.fits", name + "/angles.fits", name + "/psf.fits", name + "/truth.json"}
	}
	csvFile = func(wr io.Writer) error {
		cw := csv.NewWriter(wr)
		cw.Write(cols)
		for _, n := range names {
			cw.Write(files(n))
		}
		cw.Flush()
		return cw.Error()
	}
	list := make([]map[string]string, len(names))
	for i, n := range names {
		m := map[string]string{}
		for j, v := range files(n) {
			m[cols[j]] = v
		}
		list[i] = m
	}
	jsonFile = func(w io.Writer) error { return encodeJSON(w, map[string]any{"targets": list}) }
	return csvFile, jsonFile
}
