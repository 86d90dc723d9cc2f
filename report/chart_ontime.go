package report

import (
	"fmt"
	"strings"
)

// onTimeBar is one bar of the on-time chart.
type onTimeBar struct {
	name  string
	s     Reliability
	color string
}

// few reports whether the bar's calls are of too few vessels to compare.
func (b onTimeBar) few() bool { return b.s.judged() && !b.s.Enough }

// The on-time chart's frame, in pixels.
const (
	onTimeWidth                                    = 1000.0
	onTimeLeft, onTimeRight, onTimeTop, onTimeFoot = 130.0, 230.0, 46.0, 46.0
	onTimeRowH, onTimeBarH, onTimeCapH             = 36.0, 22.0, 10.0
)

// onTimeChart is the horizontal bar chart of each carrier's on-time share
// with its 95 % interval as a whisker, in the order of the schedule table,
// and every carrier's below them. A carrier without a call judged has an
// empty track; one of too few vessels to compare is grey and hatched,
// labelled so, and the legend says why. Nil without a port call due.
func (r *Report) onTimeChart() *chart {
	if !r.hasSchedule() {
		return nil
	}
	var bars []onTimeBar
	for _, s := range r.Schedule {
		bars = append(bars, onTimeBar{s.Carrier, s, colorOnTime})
	}
	if len(r.Schedule) > 1 {
		bars = append(bars, onTimeBar{"all carriers", r.ScheduleAll, colorAllTotal})
	}
	bottom := onTimeTop + onTimeRowH*float64(len(bars))
	c := &chart{
		ID:     "chart-ontime",
		Title:  "Share of port calls on time (within ±24 h of plan), per carrier, with its 95 % interval",
		Width:  onTimeWidth,
		Height: bottom + onTimeFoot,
	}
	x := scale{D0: 0, D1: 1, R0: onTimeLeft, R1: onTimeWidth - onTimeRight}
	c.shareAxis(x, bottom)
	var desc []string
	few := false
	for i, b := range bars {
		desc = append(desc, c.onTimeBar(x, onTimeTop+onTimeRowH*float64(i)+(onTimeRowH-onTimeBarH)/2, b))
		few = few || b.few()
	}
	c.onTimeLegend(few, r.Rules.MinN)
	c.Desc = strings.Join(desc, "; ") + "."
	return c
}

// shareAxis draws the grid of shares under the bars, from 0 to 100 %, and
// the axis' title.
func (c *chart) shareAxis(x scale, bottom float64) {
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		xv := x.at(t)
		class := "grid"
		if t == 0 {
			class = "axis"
		}
		c.Grid = append(c.Grid, line{X1: xv, Y1: onTimeTop - 6, X2: xv, Y2: bottom, Class: class})
		c.Texts = append(c.Texts, text{X: xv, Y: bottom + 20, Anchor: "middle", Class: "tick", Text: percent(t)})
	}
	c.Texts = append(c.Texts, text{X: (x.R0 + x.R1) / 2, Y: c.Height - 6, Anchor: "middle", Class: "label",
		Text: "port calls on time, % of the carrier's calls judged"})
}

// onTimeBar draws one bar whose top is at y: its track, its share, its
// whisker and its labels. It returns its tooltip, which says it all.
func (c *chart) onTimeBar(x scale, y float64, b onTimeBar) string {
	mid := px(y + onTimeBarH/2)
	tip := b.tip()
	c.Rects = append(c.Rects, rect{X: x.R0, Y: px(y), W: px(x.R1 - x.R0), H: onTimeBarH, Fill: colorTrack, Title: tip})
	if b.s.judged() {
		w := px(x.at(b.s.OnTimeShare) - x.R0)
		fill := b.color
		if b.few() {
			fill = colorFew
		}
		c.Rects = append(c.Rects, rect{X: x.R0, Y: px(y), W: w, H: onTimeBarH, Fill: fill, Title: tip})
		if b.few() {
			c.Paths = append(c.Paths, path{D: hatch(x.R0, px(y), w, onTimeBarH), Stroke: "#ffffff", Fill: "none", Width: 1.5, Title: tip})
		}
	}
	if ci := b.s.OnTimeCI; b.s.judged() && ci.Known {
		lo, hi := x.at(ci.Lo), x.at(ci.Hi)
		c.Lines = append(c.Lines,
			line{X1: lo, Y1: mid, X2: hi, Y2: mid, Class: "whisker"},
			line{X1: lo, Y1: px(mid - onTimeCapH/2), X2: lo, Y2: px(mid + onTimeCapH/2), Class: "whisker"},
			line{X1: hi, Y1: px(mid - onTimeCapH/2), X2: hi, Y2: px(mid + onTimeCapH/2), Class: "whisker"})
	}
	c.Texts = append(c.Texts,
		text{X: onTimeLeft - 12, Y: px(mid + 5), Anchor: "end", Class: "legend", Text: b.name},
		text{X: x.R1 + 12, Y: px(mid + 5), Anchor: "start", Class: "value", Text: b.label()})
	return tip
}

// value is what the bar counts, or that it has nothing judged.
func (b onTimeBar) value() string {
	if !b.s.judged() {
		return "no call judged yet"
	}
	return fmt.Sprintf("%s of %s, %s", percent(b.s.OnTimeShare), plural(b.s.Calls, "call", "calls"), plural(b.s.Vessels, "vessel", "vessels"))
}

// tip is the bar's tooltip: its value, whether it is too few, its
// interval and the calls pending.
func (b onTimeBar) tip() string {
	tip := fmt.Sprintf("%s: %s", b.name, b.value())
	if b.few() {
		tip += ": too few to compare"
	}
	if b.s.OnTimeCI.Known {
		tip += fmt.Sprintf(", 95 %% interval %s to %s", percent(b.s.OnTimeCI.Lo), percent(b.s.OnTimeCI.Hi))
	}
	if b.s.Pending > 0 {
		tip += fmt.Sprintf("; %s pending", count(b.s.Pending))
	}
	return tip
}

// label is the text right of the bar.
func (b onTimeBar) label() string {
	switch {
	case b.few():
		// The bars of too few vessels say so where they are read.
		// As long as the other labels: the calls are in the tooltip.
		return fmt.Sprintf("%s (%s: too few)", percent(b.s.OnTimeShare), plural(b.s.Vessels, "vessel", "vessels"))
	case b.s.judged() && b.s.OnTimeCI.Known:
		return fmt.Sprintf("%s %s of %s", percent(b.s.OnTimeShare), percentCI(b.s.OnTimeCI), plural(b.s.Calls, "call", "calls"))
	}
	return b.value()
}

// onTimeLegend says, above the bars, what the green bars are and, when
// one is drawn, why a bar is grey and hatched.
func (c *chart) onTimeLegend(few bool, minN int) {
	const y, sw = 12.0, 18.0
	x := onTimeLeft
	c.Rects = append(c.Rects, rect{X: x, Y: y, W: sw, H: 12, Fill: colorOnTime})
	c.Texts = append(c.Texts, text{X: x + sw + 6, Y: y + 11, Anchor: "start", Class: "tick", Text: "on time, compared"})
	if !few {
		return
	}
	x += 190
	c.Rects = append(c.Rects, rect{X: x, Y: y, W: sw, H: 12, Fill: colorFew})
	c.Paths = append(c.Paths, path{D: hatch(x, y, sw, 12), Stroke: "#ffffff", Fill: "none", Width: 1.5})
	c.Texts = append(c.Texts, text{X: x + sw + 6, Y: y + 11, Anchor: "start", Class: "tick",
		Text: fmt.Sprintf("too few to compare: fewer than %d vessels", minN)})
}

// hatch is the path of diagonal strokes, 6 px apart, filling the box at
// (x, y) of w by h: drawn over a bar, they set it apart without a colour.
func hatch(x, y, w, h float64) string {
	var b strings.Builder
	const step = 6.0
	for k := step; k < w+h; k += step {
		// The stroke where x' + y' = k, x' and y' from the box's top left:
		// rising to the right, from the bottom (or left) edge to the top
		// (or right) one.
		x0, y0 := x+max(0, k-h), y+min(k, h)
		x1, y1 := x+min(w, k), y+max(0, k-w)
		fmt.Fprintf(&b, "M%.1f %.1fL%.1f %.1f", x0, y0, x1, y1)
	}
	return b.String()
}
