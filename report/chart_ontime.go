package report

import (
	"fmt"
	"strings"
)

// onTimeChart is the horizontal bar chart of each carrier's on-time share
// with its 95 % interval as a whisker, in the order of the schedule table,
// and every carrier's below them. A carrier without a call judged has an
// empty track; one of too few vessels to compare is labelled so. Nil
// without a port call due.
func (r *Report) onTimeChart() *chart {
	if !r.hasSchedule() {
		return nil
	}
	type bar struct {
		name  string
		s     Reliability
		color string
	}
	var bars []bar
	for _, s := range r.Schedule {
		bars = append(bars, bar{s.Carrier, s, colorOnTime})
	}
	if len(r.Schedule) > 1 {
		bars = append(bars, bar{"all carriers", r.ScheduleAll, colorAllTotal})
	}
	const (
		width                  = 1000.0
		left, right, top, foot = 130.0, 230.0, 34.0, 46.0
		rowH, barH, capH       = 36.0, 22.0, 10.0
	)
	height := top + rowH*float64(len(bars)) + foot
	c := &chart{
		ID:     "chart-ontime",
		Title:  "Share of port calls on time (within ±24 h of plan), per carrier, with its 95 % interval",
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
		Text: "port calls on time, % of the carrier's calls judged"})
	var desc []string
	for i, b := range bars {
		y := top + rowH*float64(i) + (rowH-barH)/2
		mid := px(y + barH/2)
		value := "no call judged yet"
		if b.s.judged() {
			value = fmt.Sprintf("%s of %s, %s", percent(b.s.OnTimeShare), plural(b.s.Calls, "call", "calls"),
				plural(b.s.Vessels, "vessel", "vessels"))
		}
		few := b.s.judged() && !b.s.Enough
		tip := fmt.Sprintf("%s: %s", b.name, value)
		if few {
			tip += ": too few to compare"
		}
		if b.s.OnTimeCI.Known {
			tip += fmt.Sprintf(", 95 %% interval %s to %s", percent(b.s.OnTimeCI.Lo), percent(b.s.OnTimeCI.Hi))
		}
		if b.s.Pending > 0 {
			tip += fmt.Sprintf("; %s pending", count(b.s.Pending))
		}
		desc = append(desc, tip)
		c.Rects = append(c.Rects, rect{X: x.R0, Y: px(y), W: px(x.R1 - x.R0), H: barH, Fill: colorTrack, Title: tip})
		if b.s.judged() {
			c.Rects = append(c.Rects, rect{X: x.R0, Y: px(y), W: px(x.at(b.s.OnTimeShare) - x.R0), H: barH, Fill: b.color, Title: tip})
		}
		if ci := b.s.OnTimeCI; b.s.judged() && ci.Known {
			lo, hi := x.at(ci.Lo), x.at(ci.Hi)
			c.Lines = append(c.Lines,
				line{X1: lo, Y1: mid, X2: hi, Y2: mid, Class: "whisker"},
				line{X1: lo, Y1: px(mid - capH/2), X2: lo, Y2: px(mid + capH/2), Class: "whisker"},
				line{X1: hi, Y1: px(mid - capH/2), X2: hi, Y2: px(mid + capH/2), Class: "whisker"})
		}
		label := value
		switch {
		case few:
			// The bars of too few vessels say so where they are read.
			// As long as the other labels: the calls are in the tooltip.
			label = fmt.Sprintf("%s (%s: too few)", percent(b.s.OnTimeShare), plural(b.s.Vessels, "vessel", "vessels"))
		case b.s.judged() && b.s.OnTimeCI.Known:
			label = fmt.Sprintf("%s %s of %s", percent(b.s.OnTimeShare), percentCI(b.s.OnTimeCI), plural(b.s.Calls, "call", "calls"))
		}
		c.Texts = append(c.Texts,
			text{X: left - 12, Y: px(y + barH/2 + 5), Anchor: "end", Class: "legend", Text: b.name},
			text{X: x.R1 + 12, Y: px(y + barH/2 + 5), Anchor: "start", Class: "value", Text: label})
	}
	c.Desc = strings.Join(desc, "; ") + "."
	return c
}
