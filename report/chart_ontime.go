package report

import (
	"fmt"
	"strings"
)

// onTimeChart is the horizontal bar chart of each carrier's on-time share,
// the most punctual first, and every carrier's below them. Nil without a
// port call.
func (r *Report) onTimeChart() *chart {
	if r.Span.Calls == 0 {
		return nil
	}
	type bar struct {
		name  string
		share float64
		calls int
		color string
	}
	var bars []bar
	for _, s := range r.Schedule {
		bars = append(bars, bar{s.Carrier, s.OnTimeShare, s.Calls, colorOnTime})
	}
	if len(r.Schedule) > 1 {
		bars = append(bars, bar{"all carriers", r.OnTimeShare(), r.Span.Calls, colorAllTotal})
	}
	const (
		width                  = 1000.0
		left, right, top, foot = 130.0, 190.0, 34.0, 46.0
		rowH, barH             = 36.0, 22.0
	)
	height := top + rowH*float64(len(bars)) + foot
	c := &chart{
		ID:     "chart-ontime",
		Title:  "Share of port calls on time (within ±24 h of plan), per carrier",
		Width:  width,
		Height: height,
	}
	x := scale{D0: 0, D1: 1, R0: left, R1: width - right}
	bottom := top + rowH*float64(len(bars))
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		xv := x.at(t)
		class := "grid"
		if t == 0 {
			class = "axis"
		}
		c.Grid = append(c.Grid, line{X1: xv, Y1: top - 6, X2: xv, Y2: bottom, Class: class})
		c.Texts = append(c.Texts, text{X: xv, Y: bottom + 20, Anchor: "middle", Class: "tick", Text: percent(t)})
	}
	c.Texts = append(c.Texts, text{X: (x.R0 + x.R1) / 2, Y: height - 6, Anchor: "middle", Class: "label",
		Text: "port calls on time, % of the carrier's calls"})
	var desc []string
	for i, b := range bars {
		y := top + rowH*float64(i) + (rowH-barH)/2
		tip := fmt.Sprintf("%s: %s of %s on time", b.name, percent(b.share), plural(b.calls, "port call", "port calls"))
		desc = append(desc, tip)
		c.Rects = append(c.Rects,
			rect{X: x.R0, Y: px(y), W: px(x.R1 - x.R0), H: barH, Fill: colorTrack},
			rect{X: x.R0, Y: px(y), W: px(x.at(b.share) - x.R0), H: barH, Fill: b.color, Title: tip})
		c.Texts = append(c.Texts,
			text{X: left - 12, Y: px(y + barH/2 + 5), Anchor: "end", Class: "legend", Text: b.name},
			text{X: x.R1 + 12, Y: px(y + barH/2 + 5), Anchor: "start", Class: "value",
				Text: fmt.Sprintf("%s of %s", percent(b.share), plural(b.calls, "call", "calls"))})
	}
	c.Desc = strings.Join(desc, "; ") + "."
	return c
}
