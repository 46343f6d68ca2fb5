package outputs

import (
	"path/filepath"

	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// Reduce are the files of reduce's statistics out: DIR/<stat>.npy for
// each of stats, in order.
func Reduce(dir string, stats []reduce.Stat, out map[reduce.Stat]*tensor.Tensor) []File {
	files := make([]File, len(stats))
	for i, st := range stats {
		files[i] = Array(filepath.Join(dir, st.String()+".npy"), out[st], nil)
	}
	return files
}
