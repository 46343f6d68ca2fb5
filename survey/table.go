package survey

// The survey table (survey.csv, survey.json), its timings (apart, so that
// two runs' tables compare equal), the shards' files and their merge.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
)

// TimingsFile is the timings table's name beside survey.csv.
const TimingsFile = "survey-timings.csv"

// Row is one target's line in the survey table. Failed targets have
// no threshold, detections, best detection or centre (null in JSON, empty
// in CSV).
type Row struct {
	Index      int         `json:"index"` // 1-based position in the manifest
	Name       string      `json:"name"`
	Status     string      `json:"status"` // ok or failed
	Reason     string      `json:"reason,omitempty"`
	Threshold  *float64    `json:"threshold"`
	Detections *int        `json:"detections"`
	Best       *Best       `json:"best"`
	Center     *CenterUsed `json:"center"`
}

// Best is a target's strongest detection.
type Best struct {
	Y         int      `json:"y"`
	X         int      `json:"x"`
	SepPx     float64  `json:"separation_px"`
	SepArcsec *float64 `json:"separation_arcsec"` // null without a pixel scale
	PA        float64  `json:"pa_east_of_north_deg"`
	SNR       float64  `json:"snr"`
	Flux      float64  `json:"flux"`
	SigmaFlux float64  `json:"sigma_flux"`
}

// CenterUsed is the star centre the maps used.
type CenterUsed struct {
	Y      int    `json:"y"`
	X      int    `json:"x"`
	Source string `json:"source"` // option, header, estimated or geometric
}

// Timing is where and how long a target ran: survey-timings.csv.
type Timing struct {
	Index  int     `json:"index"`
	Name   string  `json:"name"`
	Status string  `json:"status"`
	Host   string  `json:"host"`
	Device string  `json:"device"`
	ReadMs float64 `json:"read_ms"` // reading its files, beside the previous target's computing
	RunMs  float64 `json:"run_ms"`  // centre, maps, detections, outputs
}

// Table is a survey's (or one shard's) results.
type Table struct {
	Manifest       string // the manifest's file name
	ManifestSHA256 string
	Targets        int               // in the manifest
	Shard, Shards  int               // 0 for a whole survey
	Settings       map[string]string // what the run was given (Settings)
	Rows           []Row
	Timings        []Timing
}

// ShardFile is survey-shard-I-of-N.json.
type ShardFile struct {
	Shard          int    `json:"shard"`
	Shards         int    `json:"shards"`
	Manifest       string `json:"manifest"`
	ManifestSHA256 string `json:"manifest_sha256"`
	Targets        int    `json:"targets"`
	// Settings are the run's defaults and precision, by column name (and
	// "precision"), with the values given (paths made absolute); an option
	// left at vkstat paco's default is absent. Shards of one survey must agree. Files written
	// before vkstat recorded them have none.
	Settings map[string]string `json:"settings,omitempty"`
	Rows     []Row             `json:"rows"`
	Timings  []Timing          `json:"timings"`
}

// TableJSON is survey.json.
type TableJSON struct {
	Manifest       string `json:"manifest"`
	ManifestSHA256 string `json:"manifest_sha256"`
	Targets        int    `json:"targets"`
	OK             int    `json:"ok"`
	Failed         int    `json:"failed"`
	PAConvention   string `json:"pa_convention"`
	Rows           []Row  `json:"rows"`
}

// ShardFileName is shard I of N's file name.
func ShardFileName(i, n int) string { return fmt.Sprintf("survey-shard-%d-of-%d.json", i, n) }

var shardFilePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^survey-shard-(\d+)-of-(\d+)\.json$`) })

var surveyCSVHead = []string{"index", "name", "status", "reason", "threshold", "detections",
	"best_y", "best_x", "best_separation_px", "best_separation_arcsec", "best_pa_east_of_north_deg",
	"best_snr", "best_flux", "best_sigma_flux", "center_y", "center_x", "center_source"}

// WriteCSV writes survey.csv.
func (s *Table) WriteCSV(w io.Writer) error {
	rows := s.Rows
	cw := csv.NewWriter(w)
	cw.Write(surveyCSVHead)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, r := range rows {
		rec := make([]string, len(surveyCSVHead))
		rec[0], rec[1], rec[2], rec[3] = strconv.Itoa(r.Index), r.Name, r.Status, r.Reason
		if r.Threshold != nil {
			rec[4] = f(*r.Threshold)
		}
		if r.Detections != nil {
			rec[5] = strconv.Itoa(*r.Detections)
		}
		if b := r.Best; b != nil {
			rec[6], rec[7], rec[8] = strconv.Itoa(b.Y), strconv.Itoa(b.X), f(b.SepPx)
			if b.SepArcsec != nil {
				rec[9] = f(*b.SepArcsec)
			}
			rec[10], rec[11], rec[12], rec[13] = f(b.PA), f(b.SNR), f(b.Flux), f(b.SigmaFlux)
		}
		if c := r.Center; c != nil {
			rec[14], rec[15], rec[16] = strconv.Itoa(c.Y), strconv.Itoa(c.X), c.Source
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteTimings writes survey-timings.csv.
func (s *Table) WriteTimings(w io.Writer) error {
	ts := s.Timings
	cw := csv.NewWriter(w)
	cw.Write([]string{"index", "name", "status", "host", "device", "read_ms", "run_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, t := range ts {
		cw.Write([]string{strconv.Itoa(t.Index), t.Name, t.Status, t.Host, t.Device, f(t.ReadMs), f(t.RunMs)})
	}
	cw.Flush()
	return cw.Error()
}

// Counts are the targets that ran and that failed.
func (s *Table) Counts() (ok, failed int) {
	for _, r := range s.Rows {
		if r.Status == "ok" {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// Summary prints the counts and every failed target, as vkstat survey
// run and merge do, then for a run (device set) the device and the time:
// wall, and the targets' reads and analyses summed (Timing's ReadMs and
// RunMs), then the tables written. It returns the number of failed
// targets.
func (s *Table) Summary(w io.Writer, device string, wall time.Duration, tables []string) int {
	ok, failed := s.Counts()
	part := ""
	if s.Shards > 0 {
		part = fmt.Sprintf(", shard %d/%d: %d of them", s.Shard, s.Shards, len(s.Rows))
	}
	fmt.Fprintf(w, "survey:     %s, %d targets%s: %d ok, %d failed\n", s.Manifest, s.Targets, part, ok, failed)
	if failed > 0 {
		fmt.Fprintln(w, "failed:")
		for _, r := range s.Rows {
			if r.Status != "ok" {
				fmt.Fprintf(w, "  %s (#%d): %s\n", r.Name, r.Index, r.Reason)
			}
		}
	}
	if device != "" {
		var readMs, runMs float64
		for _, t := range s.Timings {
			readMs, runMs = readMs+t.ReadMs, runMs+t.RunMs
		}
		fmt.Fprintf(w, "device:     %s\n", device)
		fmt.Fprintf(w, "time:       %.2f s wall; files read %.2f s (beside the computing), PACO and outputs %.2f s\n", wall.Seconds(), readMs/1e3, runMs/1e3)
	}
	fmt.Fprintf(w, "tables:     %s\n", strings.Join(tables, ", "))
	return failed
}

// FailedError is a survey that ran, its tables written, in which Failed
// of Total targets failed: Table lists why.
type FailedError struct {
	Failed, Total int
	Table         string
}

func (e FailedError) Error() string {
	return fmt.Sprintf("survey: %d of %d targets failed (the reasons are in %s)", e.Failed, e.Total, e.Table)
}

// Err is a FailedError when some of s's targets failed (table, the file
// that lists why), nil when none did.
func (s *Table) Err(table string) error {
	if _, failed := s.Counts(); failed > 0 {
		return FailedError{Failed: failed, Total: len(s.Rows), Table: table}
	}
	return nil
}

// WriteJSON writes survey.json.
func (s *Table) WriteJSON(w io.Writer) error {
	ok, failed := s.Counts()
	rows := s.Rows
	if rows == nil {
		rows = []Row{}
	}
	return encodeJSON(w, TableJSON{Manifest: s.Manifest, ManifestSHA256: s.ManifestSHA256, Targets: s.Targets, OK: ok, Failed: failed,
		PAConvention: paco.PAConvention, Rows: rows})
}

// WriteShard writes the shard's file (ShardFileName).
func (s *Table) WriteShard(w io.Writer) error {
	doc := ShardFile{Shard: s.Shard, Shards: s.Shards, Manifest: s.Manifest, ManifestSHA256: s.ManifestSHA256,
		Targets: s.Targets, Settings: s.Settings, Rows: s.Rows, Timings: s.Timings}
	if doc.Rows == nil {
		doc.Rows = []Row{}
	}
	if doc.Timings == nil {
		doc.Timings = []Timing{}
	}
	return encodeJSON(w, doc)
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadShardFiles finds the shard files among args: folders (every
// survey-shard-I-of-N.json in them) and files.
func ReadShardFiles(args []string) (map[string]ShardFile, error) {
	files := map[string]ShardFile{}
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range entries {
			if shardFilePattern().MatchString(e.Name()) && !e.IsDir() {
				paths = append(paths, filepath.Join(a, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s has no survey-shard-I-of-N.json (a survey run in shards writes one per shard)", a)
		}
	}
	for _, p := range paths {
		b, err := formats.ReadText(p, 0, "a survey shard file")
		if err != nil {
			return nil, err
		}
		f, err := ParseShardFile(p, b)
		if err != nil {
			return nil, err
		}
		files[p] = f
	}
	return files, nil
}

// sameSettings refuses shard files (paths, sorted) whose runs were given
// different settings, naming the first setting that differs and the shards
// on each side: their targets were analysed differently, and one table of
// them would hide it.
func sameSettings(files map[string]ShardFile, paths []string) error {
	keys := map[string]bool{}
	var unknown []string
	for _, p := range paths {
		if files[p].Settings == nil {
			unknown = append(unknown, p)
		}
		for k := range files[p].Settings {
			keys[k] = true
		}
	}
	if len(unknown) > 0 {
		if len(unknown) == len(paths) {
			return nil // all from a vkstat that did not record settings
		}
		return fmt.Errorf("%s record no settings (written by an older vkstat), so they cannot be checked against the other shards': run those shards again", strings.Join(unknown, ", "))
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		e := &SettingsError{Key: k, Of: files[paths[0]].Shards}
		at := map[string]int{} // side by value ("\x00" for the default)
		for _, p := range paths {
			v, ok := files[p].Settings[k]
			key := v
			if !ok {
				key = "\x00"
			}
			i, seen := at[key]
			if !seen {
				i = len(e.Sides)
				at[key] = i
				e.Sides = append(e.Sides, SettingsSide{Value: v, Default: !ok})
			}
			e.Sides[i].Shards = append(e.Sides[i].Shards, files[p].Shard)
		}
		if len(e.Sides) > 1 {
			return e
		}
	}
	return nil
}

// SettingsError is Merge's error for shards run with different settings:
// their targets were analysed differently, and one table of them would
// hide it.
type SettingsError struct {
	Key   string         // the first setting that differs
	Sides []SettingsSide // its values, in the order the shards (by path) show them
	Of    int            // shards in all
}

// SettingsSide is one value of a setting and the shards run with it.
type SettingsSide struct {
	Value   string
	Default bool // not given: vkstat paco's default
	Shards  []int
}

func (e *SettingsError) Error() string {
	return e.Format(func(k, v string) string { return k + " " + v })
}

// Format is the error's message with each setting given (not a default)
// worded by name(key, value).
func (e *SettingsError) Format(name func(key, value string) string) string {
	var sides []string
	for _, s := range e.Sides {
		v := "the default"
		if !s.Default {
			v = name(e.Key, s.Value)
		}
		nums := make([]string, len(s.Shards))
		for i, n := range s.Shards {
			nums[i] = strconv.Itoa(n)
		}
		sides = append(sides, fmt.Sprintf("%s in shard %s", v, strings.Join(nums, ", ")))
	}
	return fmt.Sprintf("the shards were run with different settings: %s (of %d): run them again with the same settings", strings.Join(sides, "; "), e.Of)
}

// maxSurveyShards bounds the shard count a shard file may claim (merge
// lists the missing ones); maxSurveyTargets the target count (merge keeps
// a flag per target).
const (
	maxSurveyShards  = 1 << 20
	maxSurveyTargets = 1 << 24
)

// ParseShardFile decodes the shard file p, whose bytes are b, and checks
// its counts.
func ParseShardFile(p string, b []byte) (ShardFile, error) {
	var f ShardFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("%s: not a shard file of vkstat survey run: %w", p, err)
	}
	switch {
	case f.Shards < 1 || f.Shard < 1 || f.Shard > f.Shards || f.Shards > maxSurveyShards:
		return f, fmt.Errorf("%s: shard %d of %d: not a shard file of vkstat survey run", p, f.Shard, f.Shards)
	case f.Targets < 1 || f.Targets > maxSurveyTargets || len(f.Rows) > f.Targets:
		return f, fmt.Errorf("%s: %d rows of %d targets: not a shard file of vkstat survey run", p, len(f.Rows), f.Targets)
	}
	return f, nil
}

// Merge checks that files are the N shards of one survey, each
// once, and returns the survey in manifest order. where names the places
// searched, for the message about a missing shard.
func Merge(files map[string]ShardFile, where []string) (*Table, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, errors.New("no shard files")
	}
	first := files[paths[0]]
	byShard := map[int]string{}
	for _, p := range paths {
		f := files[p]
		switch {
		case f.ManifestSHA256 != first.ManifestSHA256 || f.Manifest != first.Manifest:
			return nil, fmt.Errorf("%s and %s are shards of different manifests (%s %.12s…, %s %.12s…)", paths[0], p, first.Manifest, first.ManifestSHA256, f.Manifest, f.ManifestSHA256)
		case f.Shards != first.Shards:
			return nil, fmt.Errorf("%s is shard %d of %d but %s is shard %d of %d: remove the files of the other run", paths[0], first.Shard, first.Shards, p, f.Shard, f.Shards)
		case f.Targets != first.Targets:
			return nil, fmt.Errorf("%s and %s disagree on the number of targets (%d, %d)", paths[0], p, first.Targets, f.Targets)
		}
		if q, dup := byShard[f.Shard]; dup {
			return nil, fmt.Errorf("shard %d of %d is given twice: %s and %s", f.Shard, f.Shards, q, p)
		}
		byShard[f.Shard] = p
	}
	if err := sameSettings(files, paths); err != nil {
		return nil, err
	}
	var missing []string
	for i := 1; i <= first.Shards; i++ {
		if _, ok := byShard[i]; !ok {
			missing = append(missing, fmt.Sprintf("shard %d of %d (%s)", i, first.Shards, ShardFileName(i, first.Shards)))
		}
	}
	if len(missing) > 10 {
		missing = append(missing[:10], fmt.Sprintf("%d more", len(missing)-10))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s: not found in %s; run that shard, then merge again", strings.Join(missing, ", "), strings.Join(where, ", "))
	}
	s := &Table{Manifest: first.Manifest, ManifestSHA256: first.ManifestSHA256, Targets: first.Targets}
	seen := make([]bool, first.Targets+1)
	for i := 1; i <= first.Shards; i++ {
		p := byShard[i]
		f := files[p]
		sh := Shard{I: f.Shard, N: f.Shards}
		for _, r := range f.Rows {
			if r.Index < 1 || r.Index > first.Targets || !sh.Has(r.Index) {
				return nil, fmt.Errorf("%s: target %s (#%d) does not belong to shard %d of %d", p, r.Name, r.Index, f.Shard, f.Shards)
			}
			if seen[r.Index] {
				return nil, fmt.Errorf("%s: target %s (#%d) appears twice", p, r.Name, r.Index)
			}
			seen[r.Index] = true
			s.Rows = append(s.Rows, r)
		}
		s.Timings = append(s.Timings, f.Timings...)
	}
	var lack []string
	nlack := 0
	for k := 1; k <= first.Targets; k++ {
		if !seen[k] {
			if nlack++; nlack <= 10 {
				lack = append(lack, fmt.Sprintf("#%d (shard %d)", k, (k-1)%first.Shards+1))
			}
		}
	}
	if nlack > 10 {
		lack = append(lack, fmt.Sprintf("%d more", nlack-10))
	}
	if len(lack) > 0 {
		return nil, fmt.Errorf("targets %s are in no shard file: was a shard cut short?", strings.Join(lack, ", "))
	}
	sort.Slice(s.Rows, func(a, b int) bool { return s.Rows[a].Index < s.Rows[b].Index })
	sort.SliceStable(s.Timings, func(a, b int) bool { return s.Timings[a].Index < s.Timings[b].Index })
	return s, nil
}
