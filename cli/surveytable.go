package cli

// The survey table (survey.csv, survey.json), its timings (apart, so that
// two runs' tables compare equal), the shards' files and their merge.

import (
	"bytes"
	"context"
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

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
)

const surveyTimingsFile = "survey-timings.csv"

// surveyRow is one target's line in the survey table. Failed targets have
// no threshold, detections, best detection or centre (null in JSON, empty
// in CSV).
type surveyRow struct {
	Index      int           `json:"index"` // 1-based position in the manifest
	Name       string        `json:"name"`
	Status     string        `json:"status"` // ok or failed
	Reason     string        `json:"reason,omitempty"`
	Threshold  *float64      `json:"threshold"`
	Detections *int          `json:"detections"`
	Best       *surveyBest   `json:"best"`
	Center     *surveyCenter `json:"center"`
}

// surveyBest is a target's strongest detection.
type surveyBest struct {
	Y         int      `json:"y"`
	X         int      `json:"x"`
	SepPx     float64  `json:"separation_px"`
	SepArcsec *float64 `json:"separation_arcsec"` // null without a pixel scale
	PA        float64  `json:"pa_east_of_north_deg"`
	SNR       float64  `json:"snr"`
	Flux      float64  `json:"flux"`
	SigmaFlux float64  `json:"sigma_flux"`
}

// surveyCenter is the star centre the maps used.
type surveyCenter struct {
	Y      int    `json:"y"`
	X      int    `json:"x"`
	Source string `json:"source"` // option, header, estimated or geometric
}

// surveyTiming is where and how long a target ran: survey-timings.csv.
type surveyTiming struct {
	Index  int     `json:"index"`
	Name   string  `json:"name"`
	Status string  `json:"status"`
	Host   string  `json:"host"`
	Device string  `json:"device"`
	ReadMs float64 `json:"read_ms"` // reading its files, beside the previous target's computing
	RunMs  float64 `json:"run_ms"`  // centre, maps, detections, outputs
}

// survey is a survey's (or one shard's) results.
type survey struct {
	Manifest       string // the manifest's file name
	ManifestSHA256 string
	Targets        int               // in the manifest
	Shard, Shards  int               // 0 for a whole survey
	Settings       map[string]string // what the run was given (see surveySettings)
	Rows           []surveyRow
	Timings        []surveyTiming
}

// surveyShardJSON is survey-shard-I-of-N.json.
type surveyShardJSON struct {
	Shard          int    `json:"shard"`
	Shards         int    `json:"shards"`
	Manifest       string `json:"manifest"`
	ManifestSHA256 string `json:"manifest_sha256"`
	Targets        int    `json:"targets"`
	// Settings are the run's survey flags and --precision, by flag name,
	// with the values given (paths made absolute); a flag left at its
	// default is absent. Shards of one survey must agree. Files written
	// before vkstat recorded them have none.
	Settings map[string]string `json:"settings,omitempty"`
	Rows     []surveyRow       `json:"rows"`
	Timings  []surveyTiming    `json:"timings"`
}

// surveyJSON is survey.json.
type surveyJSON struct {
	Manifest       string      `json:"manifest"`
	ManifestSHA256 string      `json:"manifest_sha256"`
	Targets        int         `json:"targets"`
	OK             int         `json:"ok"`
	Failed         int         `json:"failed"`
	PAConvention   string      `json:"pa_convention"`
	Rows           []surveyRow `json:"rows"`
}

func shardFileName(i, n int) string { return fmt.Sprintf("survey-shard-%d-of-%d.json", i, n) }

var shardFilePattern = regexp.MustCompile(`^survey-shard-(\d+)-of-(\d+)\.json$`)

var surveyCSVHead = []string{"index", "name", "status", "reason", "threshold", "detections",
	"best_y", "best_x", "best_separation_px", "best_separation_arcsec", "best_pa_east_of_north_deg",
	"best_snr", "best_flux", "best_sigma_flux", "center_y", "center_x", "center_source"}

func writeSurveyCSV(w io.Writer, rows []surveyRow) error {
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

func writeTimingsCSV(w io.Writer, ts []surveyTiming) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"index", "name", "status", "host", "device", "read_ms", "run_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, t := range ts {
		cw.Write([]string{strconv.Itoa(t.Index), t.Name, t.Status, t.Host, t.Device, f(t.ReadMs), f(t.RunMs)})
	}
	cw.Flush()
	return cw.Error()
}

func (s *survey) counts() (ok, failed int) {
	for _, r := range s.Rows {
		if r.Status == "ok" {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// writeTables writes survey.csv, survey.json and survey-timings.csv to
// dir, all or none.
func (s *survey) writeTables(ctx context.Context, dir string) error {
	ok, failed := s.counts()
	rows := s.Rows
	if rows == nil {
		rows = []surveyRow{}
	}
	doc := surveyJSON{Manifest: s.Manifest, ManifestSHA256: s.ManifestSHA256, Targets: s.Targets, OK: ok, Failed: failed,
		PAConvention: paco.PAConvention, Rows: rows}
	out := Outputs{Ctx: ctx}
	defer out.Abort()
	out.CreateDir(dir)
	out.Add(filepath.Join(dir, "survey.csv"), func(w io.Writer) error { return writeSurveyCSV(w, s.Rows) })
	out.Add(filepath.Join(dir, "survey.json"), encodeJSON(doc))
	out.Add(filepath.Join(dir, surveyTimingsFile), func(w io.Writer) error { return writeTimingsCSV(w, s.Timings) })
	return out.Commit()
}

// writeShard writes one shard's file.
func (s *survey) writeShard(ctx context.Context, dir, path string) error {
	doc := surveyShardJSON{Shard: s.Shard, Shards: s.Shards, Manifest: s.Manifest, ManifestSHA256: s.ManifestSHA256,
		Targets: s.Targets, Settings: s.Settings, Rows: s.Rows, Timings: s.Timings}
	if doc.Rows == nil {
		doc.Rows = []surveyRow{}
	}
	if doc.Timings == nil {
		doc.Timings = []surveyTiming{}
	}
	out := Outputs{Ctx: ctx}
	defer out.Abort()
	out.CreateDir(dir)
	out.Add(path, encodeJSON(doc))
	return out.Commit()
}

// printSummary prints the counts and every failed target; it returns the
// number of failed targets.
func (s *survey) printSummary(w io.Writer) int {
	ok, failed := s.counts()
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
	return failed
}

// readShardFiles finds the shard files among args: folders (every
// survey-shard-I-of-N.json in them) and files.
func readShardFiles(args []string) (map[string]surveyShardJSON, error) {
	files := map[string]surveyShardJSON{}
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
			if shardFilePattern.MatchString(e.Name()) && !e.IsDir() {
				paths = append(paths, filepath.Join(a, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s has no survey-shard-I-of-N.json (written by vkstat survey run --shard I/N)", a)
		}
	}
	for _, p := range paths {
		b, err := formats.ReadText(p, 0, "a survey shard file")
		if err != nil {
			return nil, err
		}
		f, err := parseShardFile(p, b)
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
func sameSettings(files map[string]surveyShardJSON, paths []string) error {
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
		var values []string // in order of first appearance
		byValue := map[string][]string{}
		for _, p := range paths {
			v, ok := files[p].Settings[k]
			if !ok {
				v = "the default"
			} else {
				v = "--" + k + " " + v
			}
			if _, seen := byValue[v]; !seen {
				values = append(values, v)
			}
			f := files[p]
			byValue[v] = append(byValue[v], fmt.Sprintf("%d", f.Shard))
		}
		if len(values) < 2 {
			continue
		}
		var sides []string
		for _, v := range values {
			sides = append(sides, fmt.Sprintf("%s in shard %s", v, strings.Join(byValue[v], ", ")))
		}
		return fmt.Errorf("the shards were run with different settings: %s (of %d): run them again with the same settings",
			strings.Join(sides, "; "), files[paths[0]].Shards)
	}
	return nil
}

// maxSurveyShards bounds the shard count a shard file may claim (merge
// lists the missing ones); maxSurveyTargets the target count (merge keeps
// a flag per target).
const (
	maxSurveyShards  = 1 << 20
	maxSurveyTargets = 1 << 24
)

// parseShardFile decodes the shard file p, whose bytes are b, and checks
// its counts.
func parseShardFile(p string, b []byte) (surveyShardJSON, error) {
	var f surveyShardJSON
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

// mergeShards checks that files are the N shards of one survey, each
// once, and returns the survey in manifest order. where names the places
// searched, for the message about a missing shard.
func mergeShards(files map[string]surveyShardJSON, where []string) (*survey, error) {
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
			missing = append(missing, fmt.Sprintf("shard %d of %d (%s)", i, first.Shards, shardFileName(i, first.Shards)))
		}
	}
	if len(missing) > 10 {
		missing = append(missing[:10], fmt.Sprintf("%d more", len(missing)-10))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s: not found in %s; run vkstat survey run --shard for it, then merge again", strings.Join(missing, ", "), strings.Join(where, ", "))
	}
	s := &survey{Manifest: first.Manifest, ManifestSHA256: first.ManifestSHA256, Targets: first.Targets}
	seen := make([]bool, first.Targets+1)
	for i := 1; i <= first.Shards; i++ {
		p := byShard[i]
		f := files[p]
		sh := surveyShard{I: f.Shard, N: f.Shards}
		for _, r := range f.Rows {
			if r.Index < 1 || r.Index > first.Targets || !sh.has(r.Index) {
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

func surveyMergeAction(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("survey merge: give the folders (or survey-shard-I-of-N.json files) of the shards")
	}
	args := c.Args().Slice()
	dir := c.String("out-dir")
	if dir == "" {
		dir = args[0]
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	if err := checkOutputDir("out-dir", dir); err != nil {
		return err
	}
	files, err := readShardFiles(args)
	if err != nil {
		return fmt.Errorf("survey merge: %w", err)
	}
	s, err := mergeShards(files, args)
	if err != nil {
		return fmt.Errorf("survey merge: %w", err)
	}
	if err := s.writeTables(c.Context, dir); err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintf(w, "merged:     %d shard files\n", len(files))
	failed := s.printSummary(w)
	table := filepath.Join(dir, "survey.csv")
	fmt.Fprintf(w, "tables:     %s, %s, %s\n", table, filepath.Join(dir, "survey.json"), filepath.Join(dir, surveyTimingsFile))
	if failed > 0 {
		return targetsFailedError{failed: failed, total: len(s.Rows), table: table}
	}
	return nil
}
