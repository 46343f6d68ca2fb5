package figure

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"

	"github.com/vkstat/vkstat/internal/par"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// encodePNG writes img as a PNG of 8-bit RGB when it is opaque (every
// picture drawn here is: its background is paper), each row filtered one
// way, not tried five ways as image/png does (a third of a small picture's
// encoding time): Up where the row repeats the one above (a map's pixels
// scaled up are blocks of equal rows, which then compress to nothing),
// else Sub (runs of one colour along the row), compressed by zlib at
// level 2, in pieces of 512 KiB of rows compressed at once over the cores
// (so many whatever the cores: the same bytes on every machine). A
// picture with any transparency goes to image/png. Level 2 (compress/
// flate's hash chains, not BestSpeed's single-entry table) is the faster
// on such pictures: a PACO SNR map 3.4 → 2.7 ms, its contrast curve 2.1
// → 1.7 ms, each 10–15 % larger. Its writer clears 0.6 MB of hash tables
// for each piece, which pieces of 128 KiB did four times over the bytes
// they compressed (PACO's two pictures, encoded at once, 5.9 → 5.1 ms).
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	return encodePNGPieces(w, img, max(1, b.Dy()*(1+3*b.Dx())/(512<<10)))
}

// compressors are the pieces' deflate writers, reset for each piece (the
// output of a new one: compress/flate's TestWriterReset) and kept for the
// process: each holds 0.8 MB, mostly hash tables, and made for every
// picture, the two of a PACO run took four of them, in fresh pages (2 ms
// of a VM's time each), where the pieces in flight at once need one each.
var compressors = par.Pool[*flate.Writer]{New: func() *flate.Writer {
	fw, _ := flate.NewWriter(nil, 2) // a valid level: no error
	return fw
}}

// encodePNGPieces is encodePNG with the rows in that many pieces (at most
// one a row), compressed as pigz does: each piece's deflate stream ended
// by a sync flush (an empty stored block, so that the next one starts on
// a byte) but the last's, closed; the pieces' Adler-32 sums combined. One
// piece is zlib's own stream.
func encodePNGPieces(w io.Writer, img *image.RGBA, pieces int) error {
	b := img.Bounds()
	wd, ht := b.Dx(), b.Dy()
	pieces = max(1, min(pieces, ht))
	ps := make([]pngPiece, pieces)
	compressors.Each(pieces, 1, func(fw *flate.Writer, k int) {
		ps[k].encode(fw, img, k*ht/pieces, (k+1)*ht/pieces, k == pieces-1)
	})
	var idat bytes.Buffer
	idat.Write([]byte{0x78, 0x5e}) // zlib: deflate, 32 KiB window; a fast level
	var sum uint32 = 1             // Adler-32 of nothing
	for _, p := range ps {
		if !p.opaque {
			bw := bufio.NewWriter(w)
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(bw, img); err != nil {
				return err
			}
			return bw.Flush()
		}
		if p.err != nil {
			return p.err
		}
		idat.Write(p.data.Bytes())
		sum = adler32Combine(sum, p.adler, p.n)
	}
	idat.Write(binary.BigEndian.AppendUint32(nil, sum))
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(wd))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(ht))
	ihdr[8], ihdr[9] = 8, 2 // bit depth, colour type RGB; compression, filter, interlace 0
	bw := bufio.NewWriter(w)
	bw.WriteString("\x89PNG\r\n\x1a\n")
	for _, c := range []struct {
		kind string
		data []byte
	}{{"IHDR", ihdr[:]}, {"IDAT", idat.Bytes()}, {"IEND", nil}} {
		var head [8]byte
		binary.BigEndian.PutUint32(head[:4], uint32(len(c.data)))
		copy(head[4:], c.kind)
		crc := crc32.NewIEEE()
		crc.Write(head[4:])
		crc.Write(c.data)
		bw.Write(head[:])
		bw.Write(c.data)
		bw.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	}
	return bw.Flush()
}

// pngPiece is rows y0…y1−1 of a picture filtered and deflated (by fw):
// data, the Adler-32 sum of the n filtered bytes; opaque false when a
// pixel is not.
type pngPiece struct {
	data   bytes.Buffer
	adler  uint32
	n      int64
	opaque bool
	err    error
}

func (p *pngPiece) encode(fw *flate.Writer, img *image.RGBA, y0, y1 int, last bool) {
	b := img.Bounds()
	wd := b.Dx()
	n := 3 * wd
	// Two bytes more than a row in cur and prev: rgb writes eight at a
	// time.
	prev, cur, line := make([]byte, n+2), make([]byte, n+2), make([]byte, 1+n)
	le := binary.LittleEndian
	// rgb puts row y's RGB in dst and says whether the row is opaque: two
	// pixels at a time, their alphas (in the eight bytes written, two past
	// the pair's six) overwritten by the next.
	rgb := func(y int, dst []byte) bool {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*wd]
		const rgbMask = 0xffffff
		opaque := uint64(0xff000000ff000000)
		x := 0
		for ; x+2 <= wd; x += 2 {
			v := le.Uint64(row[4*x:])
			opaque &= v
			le.PutUint64(dst[3*x:], v&rgbMask|v>>8&(rgbMask<<24))
		}
		if x < wd {
			v := uint64(le.Uint32(row[4*x:]))
			opaque &= v | 0xff00000000000000
			le.PutUint32(dst[3*x:], uint32(v))
		}
		return opaque == 0xff000000ff000000
	}
	if y0 > 0 {
		rgb(y0-1, prev) // the row above, for Up
	}
	fw.Reset(&p.data)
	ad := adler32.New()
	for y := y0; y < y1; y++ {
		if !rgb(y, cur) {
			return
		}
		if y > 0 && bytes.Equal(cur[:n], prev[:n]) {
			line[0] = 2 // Up: every byte less the one above, 0
			clear(line[1:])
		} else {
			line[0] = 1 // Sub: every byte less the one 3 to its left
			copy(line[1:4], cur)
			// Eight bytes at a time, none borrowing from the next.
			const hi = 0x8080808080808080
			i := 3
			for ; i+8 <= n; i += 8 {
				a, c := le.Uint64(cur[i:]), le.Uint64(cur[i-3:])
				le.PutUint64(line[1+i:], ((a|hi)-(c&^hi))^((a^^c)&hi))
			}
			for ; i < n; i++ {
				line[1+i] = cur[i] - cur[i-3]
			}
		}
		fw.Write(line) // a bytes.Buffer takes every byte
		ad.Write(line)
		prev, cur = cur, prev
	}
	if last {
		p.err = fw.Close()
	} else {
		p.err = fw.Flush()
	}
	p.adler, p.n, p.opaque = ad.Sum32(), int64(y1-y0)*int64(1+n), true
}

// adler32Combine is the Adler-32 sum of A then B from theirs, a and b, and
// B's length (zlib's adler32_combine).
func adler32Combine(a, b uint32, lenB int64) uint32 {
	const base = 65521
	rem := uint32(lenB % base)
	s1 := a & 0xffff
	s2 := rem * s1 % base
	s1 += (b & 0xffff) + base - 1
	s2 += (a >> 16) + (b >> 16) + base - rem
	if s1 >= base {
		s1 -= base
	}
	if s1 >= base {
		s1 -= base
	}
	if s2 >= 2*base {
		s2 -= 2 * base
	}
	if s2 >= base {
		s2 -= base
	}
	return s2<<16 | s1
}

// pngCanvas is vgimg's canvas, which vgimg painted paper at once (its
// background, white with an image of ours, as paper is): then
// filling the whole canvas with paper before anything else is drawn (every
// figure's first step) and any fill in a colour of no opacity (gonum/plot's
// background) change no pixel, and are not rasterised (3 ms each at 664×654
// pixels, a third of drawing a map).
type pngCanvas struct {
	*vgimg.Canvas
	whole vg.Path // the canvas, vgimg's size: whole pixels
	col   color.Color
	blank bool // img is paper only
}

func newPNGCanvas(c *vgimg.Canvas) *pngCanvas {
	w, h := c.Size()
	return &pngCanvas{Canvas: c, whole: vg.Rectangle{Max: vg.Point{X: w, Y: h}}.Path(), blank: true}
}

func (c *pngCanvas) SetColor(col color.Color) { c.col = col; c.Canvas.SetColor(col) }

func (c *pngCanvas) Fill(p vg.Path) {
	if c.col != nil {
		if _, _, _, a := c.col.RGBA(); a == 0 {
			return
		}
	}
	if c.blank && c.col == paper && samePath(p, c.whole) {
		return
	}
	c.blank = false
	c.Canvas.Fill(p)
}

// The other drawing and the transforms (after which a path's points are
// no longer the picture's) end the blank.

func (c *pngCanvas) Stroke(p vg.Path) { c.blank = false; c.Canvas.Stroke(p) }
func (c *pngCanvas) DrawImage(r vg.Rectangle, i image.Image) {
	c.blank = false
	c.Canvas.DrawImage(r, i)
}
func (c *pngCanvas) FillString(f font.Face, p vg.Point, s string) {
	c.blank = false
	c.Canvas.FillString(f, p, s)
}
func (c *pngCanvas) Translate(p vg.Point) { c.blank = false; c.Canvas.Translate(p) }
func (c *pngCanvas) Rotate(a float64)     { c.blank = false; c.Canvas.Rotate(a) }
func (c *pngCanvas) Scale(x, y float64)   { c.blank = false; c.Canvas.Scale(x, y) }

// samePath says whether a and b are the same straight segments.
func samePath(a, b vg.Path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Pos != b[i].Pos || a[i].Type == vg.ArcComp || len(a[i].Control) > 0 {
			return false
		}
	}
	return true
}

// fill sets every 4 bytes of pix to px, doubling what is set with each
// copy.
func fill(pix []byte, px [4]byte) {
	if len(pix) < 4 {
		return
	}
	copy(pix, px[:])
	for n := 4; n < len(pix); n *= 2 {
		copy(pix[n:], pix[:n])
	}
}
