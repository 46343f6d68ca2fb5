package cli

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
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// surveyOption is one manifest column (or JSON key) and the survey run
// flag of the same name that gives its default.
type surveyOption struct {
	name  string
	usage string
	path  bool // a file: relative to the manifest's folder (a flag's: to the working directory)
	bool  bool // true/false: survey run's flag is a boolean (--unbiased)
	set   func(j *pacoJob, v string) error
}

func parseFloatOpt(v string, ok func(float64) bool, want string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || !ok(x) {
		return 0, fmt.Errorf("want %s, got %q", want, v)
	}
	return x, nil
}

func anyFloat(float64) bool { return true }

// surveyOptions are the per-target options, in the order the survey
// table's documentation lists them. "name" is handled apart.
var surveyOptions = []surveyOption{
	{name: "cube", path: true, usage: "the ADI cube (T, H, W): .fits or .npy", set: func(j *pacoJob, v string) error { j.Cube = v; return nil }},
	{name: "angles", path: true, usage: "T parallactic angles in degrees: .fits, .npy or text, or header (ESO's PARANG START/END in the cube's header)", set: func(j *pacoJob, v string) error { j.Angles = v; return nil }},
	{name: "psf", path: true, usage: "off-axis PSF stamp, odd-sized and centred (or fwhm)", set: func(j *pacoJob, v string) error { j.PSF, j.Opt.FWHM = v, 0; return nil }},
	{name: "fwhm", usage: "a Gaussian PSF of this FWHM in pixels instead of psf", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, func(x float64) bool { return x > 0 && x <= 100 }, "a FWHM in pixels between 0 and 100")
		j.Opt.FWHM, j.PSF = x, ""
		return err
	}},
	{name: "psf-norm", usage: "PSF normalisation: sum, peak or none (default sum)", set: func(j *pacoJob, v string) error {
		if v != "sum" && v != "peak" && v != "none" {
			return fmt.Errorf("want sum, peak or none, got %q", v)
		}
		j.Opt.PSFNorm = v
		return nil
	}},
	{name: "radius", usage: "patch radius in pixels (default 4)", set: func(j *pacoJob, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number of pixels ≥ 1, got %q", v)
		}
		j.Opt.Radius = n
		return nil
	}},
	{name: "center", usage: "star centre: y,x (0-based pixels), auto or header (default: header, else auto)", set: func(j *pacoJob, v string) error {
		var err error
		j.Opt.Center, j.Opt.CenterYX, err = paco.ParseCenter(v)
		return err
	}},
	{name: "threshold", usage: "SNR above which local maxima are detections (default 5)", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, anyFloat, "an SNR")
		j.Opt.Threshold = x
		return err
	}},
	{name: "min-sep", usage: "minimum distance in pixels between two detections (default 2×radius)", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, func(x float64) bool { return x >= 0 }, "a distance in pixels ≥ 0")
		j.Opt.MinSep = x
		return err
	}},
	{name: "star-flux", usage: "the star's flux in the flux map's units, for the contrast curve", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, func(x float64) bool { return x >= 0 }, "a flux ≥ 0")
		j.Opt.StarFlux = x
		return err
	}},
	{name: "pixel-scale", usage: "arcseconds per pixel", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, func(x float64) bool { return x > 0 && x < 3600 }, "arcseconds per pixel, above 0")
		j.Opt.PixelScale = x
		return err
	}},
	{name: "north-offset", usage: "true-north correction in degrees, added to position angles", set: func(j *pacoJob, v string) error {
		x, err := parseFloatOpt(v, anyFloat, "an angle in degrees")
		j.Opt.NorthOffset = x
		return err
	}},
	{name: "compat", usage: "none, or vip to reproduce VIP/PynPoint's numerics", set: func(j *pacoJob, v string) error {
		var err error
		j.Opt.Compat, err = paco.ParseCompat(v)
		return err
	}},
	{name: "psf-placement", usage: "PSF model in each frame: nearest (default) or subpixel", set: func(j *pacoJob, v string) error {
		p, err := paco.ParsePlacement(v)
		if err != nil {
			return fmt.Errorf("want nearest or subpixel, got %q", v)
		}
		j.Opt.Placement = p
		return nil
	}},
	{name: "format", usage: "map formats, comma-separated: fits, npy (default fits)", set: func(j *pacoJob, v string) error {
		f, err := mapFormats("format", v)
		j.Format = f
		return err
	}},
	{name: "unbiased", bool: true, usage: "true: PACO's Algorithm 3 for every detection (slow: about 0.5 s each on the CPU)", set: func(j *pacoJob, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want true or false, got %q", v)
		}
		j.Opt.Unbiased = b
		return nil
	}},
	{name: "contrast-check", bool: true, usage: "true: check the contrast curve by injection–recovery of fake companions (" + strconv.Itoa(paco.ContrastCheckRuns) + " more runs of the maps)", set: func(j *pacoJob, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want true or false, got %q", v)
		}
		j.Opt.ContrastCheck = b
		return nil
	}},
	{name: "truth", path: true, usage: "truth.json of vkstat synth paco (its comparison goes in the target's summary.txt)", set: func(j *pacoJob, v string) error { j.Truth = v; return nil }},
}

func findSurveyOption(name string) *surveyOption {
	for i := range surveyOptions {
		if surveyOptions[i].name == name {
			return &surveyOptions[i]
		}
	}
	return nil
}

// canonicalColumn is a column or key as the manifest gives it, lower case,
// with _ read as - (pixel_scale is pixel-scale).
func canonicalColumn(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// surveyTarget is one manifest entry.
type surveyTarget struct {
	Index int    // 1-based position in the manifest
	Name  string // its folder under the survey's output
	Where string // "line 4" or "target 3", for messages
	job   pacoJob
	err   error // a bad value: this target fails with it, the others run
}

// surveyManifest is a parsed manifest.
type surveyManifest struct {
	Path    string
	SHA256  string // of the file's bytes: shards of one survey must agree
	Targets []surveyTarget
}

// surveyDefaults are the values that a target's empty cells (missing keys)
// take: the survey run flags, as text, with paths relative to the working
// directory.
type surveyDefaults map[string]string

var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$`)

// readSurveyManifest reads a CSV (header row, one target per row) or JSON
// (an array of objects, or {"targets": [...]}) manifest. Paths in it are
// relative to its folder. Errors in its structure (unknown column, no
// name, a name twice, malformed CSV or JSON) fail the whole manifest and
// name the line or target; a bad value fails only its target (the
// target's err).
func readSurveyManifest(path string, defaults surveyDefaults) (*surveyManifest, error) {
	b, err := formats.ReadText(path, 0, "a survey manifest")
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return parseSurveyManifest(path, b, defaults)
}

// parseSurveyManifest is readSurveyManifest on the manifest's bytes b.
func parseSurveyManifest(path string, b []byte, defaults surveyDefaults) (*surveyManifest, error) {
	sum := sha256.Sum256(b)
	m := &surveyManifest{Path: path, SHA256: hex.EncodeToString(sum[:])}
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
		case !targetName.MatchString(name) || surveyReserved(name):
			return nil, fmt.Errorf("manifest %s: %s: name %q: want letters, digits, '.', '_', '+' or '-', starting with a letter or digit, at most 100 characters, and not a survey table's name (it is the target's folder)", path, r.where, name)
		case seen[name] != "":
			return nil, fmt.Errorf("manifest %s: %s: name %q is already the name of %s", path, r.where, name, seen[name])
		}
		seen[name] = r.where
		t := surveyTarget{Index: i + 1, Name: name, Where: r.where}
		t.job, t.err = surveyJob(r.cells, defaults, base)
		m.Targets = append(m.Targets, t)
	}
	return m, nil
}

// surveyReserved reports whether name is one of the survey's own files.
func surveyReserved(name string) bool {
	l := strings.ToLower(name)
	return l == "survey.csv" || l == "survey.json" || l == surveyTimingsFile || strings.HasPrefix(l, "survey-shard-")
}

// surveyJob is a target's pacoJob: vkstat paco's defaults, then the
// survey's (flags), then the target's own cells.
func surveyJob(cells map[string]string, defaults surveyDefaults, base string) (pacoJob, error) {
	j := pacoJob{Opt: paco.DefaultOptions(), Format: "fits", Word: func(s string) string { return s }}
	for _, o := range surveyOptions {
		if v, ok := defaults[o.name]; ok {
			if err := o.set(&j, v); err != nil {
				return j, fmt.Errorf("--%s: %w", o.name, err)
			}
		}
	}
	if cells["psf"] != "" && cells["fwhm"] != "" {
		return j, errors.New("psf and fwhm both given: give one")
	}
	for _, o := range surveyOptions {
		v := strings.TrimSpace(cells[o.name])
		if v == "" {
			continue
		}
		if o.path && !filepath.IsAbs(v) && !(o.name == "angles" && v == "header") {
			v = filepath.Join(base, v)
		}
		if err := o.set(&j, v); err != nil {
			return j, fmt.Errorf("%s: %w", o.name, err)
		}
	}
	switch {
	case j.Cube == "":
		return j, errors.New("cube: not given")
	case j.Angles == "":
		return j, errors.New("angles: not given")
	case j.PSF == "" && j.Opt.FWHM == 0:
		return j, errors.New("psf: not given (give psf or fwhm, in the manifest or as survey run --psf/--fwhm)")
	}
	return j, nil
}

// manifestRow is one target's cells, by canonical column name.
type manifestRow struct {
	where string
	cells map[string]string
}

// checkColumn errors on a column that is neither name nor an option.
func checkColumn(col, raw string) error {
	if col == "name" || findSurveyOption(col) != nil {
		return nil
	}
	known := []string{"name"}
	for _, o := range surveyOptions {
		known = append(known, o.name)
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

// surveyShard is --shard I/N: shards are numbered from 1 (I = 1..N); the
// target at 1-based manifest position k belongs to shard ((k−1) mod N) + 1.
type surveyShard struct{ I, N int }

func parseShard(s string) (surveyShard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 {
		return surveyShard{}, usagef("--shard %q: want I/N, shard I of N, numbered from 1 (1/4 … 4/4)", s)
	}
	if i < 1 || i > n {
		return surveyShard{}, usagef("--shard %s: shards are numbered from 1 to %d; Kubernetes' JOB_COMPLETION_INDEX and Slurm arrays started at 0 count from 0: add 1", s, n)
	}
	return surveyShard{i, n}, nil
}

// has reports whether the target at 1-based manifest position k is in the
// shard.
func (s surveyShard) has(k int) bool { return (k-1)%s.N == s.I-1 }
