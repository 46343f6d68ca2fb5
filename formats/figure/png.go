package figure

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// encodePNG writes img as a PNG of 8-bit RGB when it is opaque (every
// picture drawn here is: its background is paper), each row filtered one
// way, not tried five ways as image/png does (a third of a small picture's
// encoding time): Up where the row repeats the one above (a map's pixels
// scaled up are blocks of equal rows, which then compress to nothing),
// else Sub (runs of one colour along the row), compressed by zlib at its
// fastest. A picture with any transparency goes to image/png.
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	wd, ht := b.Dx(), b.Dy()
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(wd))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(ht))
	ihdr[8], ihdr[9] = 8, 2 // bit depth, colour type RGB; compression, filter, interlace 0
	var idat bytes.Buffer
	zw, err := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	n := 3 * wd
	prev, cur, line := make([]byte, n), make([]byte, n), make([]byte, 1+n)
	for y := range ht {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*wd]
		opaque := byte(255)
		for x := range wd {
			cur[3*x], cur[3*x+1], cur[3*x+2] = row[4*x], row[4*x+1], row[4*x+2]
			opaque &= row[4*x+3]
		}
		if opaque != 255 {
			bw := bufio.NewWriter(w)
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(bw, img); err != nil {
				return err
			}
			return bw.Flush()
		}
		if y > 0 && bytes.Equal(cur, prev) {
			line[0] = 2 // Up: every byte less the one above, 0
			clear(line[1:])
		} else {
			line[0] = 1 // Sub: every byte less the one 3 to its left
			copy(line[1:4], cur)
			for i := 3; i < n; i++ {
				line[1+i] = cur[i] - cur[i-3]
			}
		}
		if _, err := zw.Write(line); err != nil {
			return err
		}
		prev, cur = cur, prev
	}
	if err := zw.Close(); err != nil {
		return err
	}
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

// pngCanvas is vgimg's canvas on img, which it paints paper at once: then
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

func newPNGCanvas(c *vgimg.Canvas, img *image.RGBA) *pngCanvas {
	w, h := c.Size()
	r, g, b, a := paper.RGBA()
	px := [4]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8), byte(a >> 8)}
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:i+4], px[:])
	}
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
