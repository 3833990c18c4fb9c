package game

import (
	"image"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The viewer's text is golang.org/x/image's 7×13 bitmap face, drawn glyph by glyph
// from one atlas image (ebiten batches the draws). ebitenutil's debug font would
// do, but ebitenutil imports net/http (to load files), which the viewer's wasm
// must not link (docs/ARCHITECTURE.md §2); ebiten's text/v2 needs go-text's shaper,
// a module more for text that is ASCII.
const (
	glyphW = 7  // advance of every glyph
	glyphH = 13 // height of a line: ascent 11, descent 2
)

// bitmapText draws strings in basicfont.Face7x13.
type bitmapText struct {
	atlas  *ebiten.Image
	glyphs map[rune]*ebiten.Image
	op     ebiten.DrawImageOptions
}

func newBitmapText() *bitmapText {
	return &bitmapText{atlas: ebiten.NewImageFromImage(basicfont.Face7x13.Mask), glyphs: map[rune]*ebiten.Image{}}
}

// glyph returns r's cell in the atlas: the face's substitute for a rune it lacks.
func (t *bitmapText) glyph(r rune) *ebiten.Image {
	if g, ok := t.glyphs[r]; ok {
		return g
	}
	f := basicfont.Face7x13
	dr, _, maskp, _, _ := f.Glyph(fixed.P(0, f.Ascent), r)
	g := t.atlas.SubImage(image.Rectangle{Min: maskp, Max: maskp.Add(dr.Size())}).(*ebiten.Image)
	t.glyphs[r] = g
	return g
}

// draw draws s in white with its first line's top-left corner at (x, y); a
// newline starts a line glyphH lower.
func (t *bitmapText) draw(dst *ebiten.Image, s string, x, y int) {
	cx, cy := x, y
	for _, r := range s {
		if r == '\n' {
			cx, cy = x, cy+glyphH
			continue
		}
		if r != ' ' {
			t.op.GeoM.Reset()
			t.op.GeoM.Translate(float64(cx+basicfont.Face7x13.Left), float64(cy))
			dst.DrawImage(t.glyph(r), &t.op)
		}
		cx += glyphW
	}
}
