package figure

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
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
