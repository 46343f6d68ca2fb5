package survey

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzSurveyManifest parses the input as a CSV and as a JSON manifest:
// it must never panic, and a manifest it accepts has targets numbered
// 1..n in order, with valid, distinct names.
func FuzzSurveyManifest(f *testing.F) {
	for _, seed := range []string{
		"name,cube,angles,psf\nt01,t01/cube.fits,t01/angles.fits,t01/psf.fits\nt02,c.npy,a.txt,\n",
		"name,cube,angles,fwhm,radius,threshold,min-sep,center,unbiased\nA,c.fits,header,3,4,5,2,\"10,12\",true\n",
		`[{"name": "a", "cube": "c.fits", "angles": "a.fits", "fwhm": 3}, {"name": "b", "cube": "d.fits", "angles": "header", "psf": "p.fits"}]`,
		`{"targets": [{"name": "x", "cube": "c.npy", "angles": "a.npy", "radius": "2", "contrast-check": "false"}]}`,
		"name\n\"unterminated\n",
		"name,bogus\nA,1\n",
		"\xef\xbb\xbfname,cube\nA,a\nA,b\n",
	} {
		f.Add([]byte(seed))
	}
	defaults := Defaults{"radius": "3", "fwhm": "2.5"}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range []string{"m.csv", "m.json"} {
			m, err := ParseManifest(filepath.Join("/data", name), b, defaults)
			if err != nil {
				continue
			}
			if len(m.Targets) == 0 {
				t.Fatalf("%s: accepted with no targets", name)
			}
			seen := map[string]bool{}
			for i, tg := range m.Targets {
				if tg.Index != i+1 || !TargetName().MatchString(tg.Name) || Reserved(tg.Name) || seen[tg.Name] {
					t.Fatalf("%s: target %d: index %d, name %q (seen %v)", name, i, tg.Index, tg.Name, seen[tg.Name])
				}
				seen[tg.Name] = true
			}
		}
	})
}

// FuzzShardFiles parses two inputs as shard files and merges them: it must
// never panic (or allocate what a count in a file claims), and a merge it
// accepts has every target once, in manifest order.
func FuzzShardFiles(f *testing.F) {
	shard := func(i, n, targets int, rows string, settings string) []byte {
		return []byte(`{"shard": ` + strconv.Itoa(i) + `, "shards": ` + strconv.Itoa(n) + `, "manifest": "m.csv", "manifest_sha256": "ab", "targets": ` + strconv.Itoa(targets) +
			settings + `, "rows": [` + rows + `], "timings": []}`)
	}
	row := func(k int) string {
		return `{"index": ` + strconv.Itoa(k) + `, "name": "t` + strconv.Itoa(k) + `", "status": "ok"}`
	}
	f.Add(shard(1, 2, 3, row(1)+","+row(3), ""), shard(2, 2, 3, row(2), ""))
	f.Add(shard(1, 2, 3, row(1)+","+row(3), `, "settings": {"radius": "3"}`), shard(2, 2, 3, row(2), `, "settings": {}`))
	f.Add(shard(1, 1, 2, row(1)+","+row(2), ""), shard(1, 1, 2, row(1)+","+row(2), ""))
	f.Add(shard(1, 2, 1000000000, "", ""), shard(2, 2000000000, 3, "", ""))
	f.Add([]byte(`{"shard": 1}`), []byte("not json"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		files := map[string]ShardFile{}
		for i, data := range [][]byte{a, b} {
			p := "/r/shard" + strconv.Itoa(i) + ".json"
			sf, err := ParseShardFile(p, data)
			if err != nil {
				continue
			}
			files[p] = sf
		}
		if len(files) == 0 {
			return
		}
		s, err := Merge(files, []string{"/r"})
		if err != nil {
			return
		}
		if len(s.Rows) != s.Targets {
			t.Fatalf("merged %d rows of %d targets", len(s.Rows), s.Targets)
		}
		for i, r := range s.Rows {
			if r.Index != i+1 {
				t.Fatalf("row %d is target #%d", i, r.Index)
			}
		}
		var buf bytes.Buffer
		if err := s.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
	})
}
