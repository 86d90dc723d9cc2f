package report

import (
	"fmt"
	"math"
	"strings"
)

// chart is one SVG chart laid out in Go: primitives in page coordinates,
// drawn in order (grid, rects, lines, paths, texts) by the page template,
// which escapes every string.
type chart struct {
	ID            string
	Title         string // the SVG <title> and aria-label
	Desc          string // the SVG <desc>: what it shows, in words
	Width, Height float64
	Grid          []line // under everything else
	Rects         []rect
	Lines         []line
	Paths         []path
	Texts         []text
}

type rect struct {
	X, Y, W, H float64
	Fill       string
	Title      string // a tooltip; "" for none
}

type line struct {
	X1, Y1, X2, Y2 float64
	Class          string // grid, axis, zero
}

// path is a stroked line, or a filled mark when Fill is set.
type path struct {
	D      string
	Stroke string
	Fill   string // "none" for a line
	Width  float64
	Dash   string // stroke-dasharray; "" for solid
	Title  string
}

type text struct {
	X, Y   float64
	Anchor string // start, middle, end
	Class  string // tick, label, legend, value, panel
	Text   string
	Rotate bool // vertical, reading upwards
}

// Colours: a palette of distinguishable hues (after Tableau 10, darkened
// where too light on white) for the carriers, ink for every carrier
// together.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#499894", "#9c755f", "#d37295", "#b6992d", "#79706e"}

const (
	inkAll        = "#222222"
	colorCarrier  = "#4e79a7"
	colorLater    = "#76a1c9" // the carrier ETA closer to arrival
	colorPredict  = "#f28e2b"
	colorTrack    = "#eceff3"
	colorOnTime   = "#59a14f"
	colorAllTotal = "#555555"
	colorFew      = "#aab1b9" // a share of too few to compare, hatched
)

// scale maps a domain [D0, D1] linearly onto a range [R0, R1].
type scale struct{ D0, D1, R0, R1 float64 }

func (s scale) at(v float64) float64 {
	if s.D1 == s.D0 {
		return s.R0
	}
	return px(s.R0 + (v-s.D0)/(s.D1-s.D0)*(s.R1-s.R0))
}

// px rounds a coordinate to a tenth of a pixel, for a compact SVG.
func px(v float64) float64 { return math.Round(v*10) / 10 }

// niceTicks returns about n ticks from 0 to at least hi, at a round step
// (1, 2, 2.5 or 5 times a power of ten); the last tick is the axis' end.
func niceTicks(hi float64, n int) []float64 {
	if hi <= 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		hi = 1
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := 0.0; ; v += step {
		ticks = append(ticks, roundTo(v, 6))
		if v >= hi-1e-9 {
			break
		}
	}
	return ticks
}

// tickLabel renders a tick value without needless decimals.
func tickLabel(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(fmt.Sprintf("%.2f", v), "0")
}

// marker is the path of a mark centred on (x, y): the shapes alternate so
// that series stay apart without their colours.
func marker(shape int, x, y, r float64) string {
	switch shape % 4 {
	case 1: // square
		s := r * 0.9
		return fmt.Sprintf("M%.1f %.1fh%.1fv%.1fh%.1fz", x-s, y-s, 2*s, 2*s, -2*s)
	case 2: // diamond
		s := r * 1.25
		return fmt.Sprintf("M%.1f %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz", x, y-s, s, s, -s, s, -s, -s)
	case 3: // triangle
		s := r * 1.2
		return fmt.Sprintf("M%.1f %.1fl%.1f %.1fh%.1fz", x, y-s, s, 1.8*s, -2*s)
	}
	// circle, as two arcs
	return fmt.Sprintf("M%.1f %.1fa%.1f %.1f 0 1 0 %.1f 0a%.1f %.1f 0 1 0 %.1f 0", x-r, y, r, r, 2*r, r, r, -2*r)
}

// polyline is the path through the points.
func polyline(xs, ys []float64) string {
	var b strings.Builder
	for i := range xs {
		if i == 0 {
			fmt.Fprintf(&b, "M%.1f %.1f", xs[i], ys[i])
		} else {
			fmt.Fprintf(&b, "L%.1f %.1f", xs[i], ys[i])
		}
	}
	return b.String()
}

// yAxis draws the horizontal grid lines and labels of ticks on the left
// of the plot area [x0, x1], and the axis title, rotated.
func (c *chart) yAxis(s scale, ticks []float64, x0, x1 float64, title string) {
	for _, t := range ticks {
		y := s.at(t)
		class := "grid"
		if t == 0 {
			class = "axis"
		}
		c.Grid = append(c.Grid, line{X1: x0, Y1: y, X2: x1, Y2: y, Class: class})
		c.Texts = append(c.Texts, text{X: x0 - 8, Y: y + 4, Anchor: "end", Class: "tick", Text: tickLabel(t)})
	}
	if title != "" {
		mid := (s.R0 + s.R1) / 2
		c.Texts = append(c.Texts, text{X: x0 - 48, Y: mid, Anchor: "middle", Class: "label", Text: title, Rotate: true})
	}
}
