package report

import (
	"fmt"
	"math"
	"strings"
)

// horizonSeries is one line of the horizon chart.
type horizonSeries struct {
	Name  string
	Color string
	Shape int
	Width float64
	Dash  string
	ETA   map[int]Accuracy
	// Dodge shifts the series sideways, in pixels, so that the whiskers
	// of several series at one horizon stand apart.
	Dodge float64
}

// chartCarriers are the carriers the horizon chart draws: the ranked ones
// (or, when none is, those with an ETA at RankHorizon), at most as many as
// the palette has colours. left says how many carriers are left out.
func (r *Report) chartCarriers() (shown []CarrierAccuracy, left int) {
	for _, c := range r.Carriers {
		if c.Rank > 0 {
			shown = append(shown, c)
		}
	}
	if len(shown) == 0 {
		for _, c := range r.Carriers {
			if c.ETA[RankHorizon].N > 0 {
				shown = append(shown, c)
			}
		}
	}
	shown = shown[:min(len(shown), len(palette))]
	return shown, len(r.Carriers) - len(shown)
}

// horizonSeries are the lines of the horizon chart: the carriers drawn,
// then every carrier together, each dodged a few pixels from the next.
func (r *Report) horizonSeries() []horizonSeries {
	carriers, _ := r.chartCarriers()
	var series []horizonSeries
	for i, c := range carriers {
		series = append(series, horizonSeries{Name: c.Carrier, Color: palette[i], Shape: i, Width: 2.5, ETA: c.ETA})
	}
	series = append(series, horizonSeries{Name: "all carriers", Color: inkAll, Shape: 0, Width: 3.5, Dash: "7 5", ETA: r.All.ETA})
	for i := range series {
		series[i].Dodge = (float64(i) - float64(len(series)-1)/2) * 4
	}
	return series
}

// The horizon chart's frame, in pixels.
const (
	horizonWidth                                       = 1000.0
	horizonLeft, horizonRight, horizonTop, horizonFoot = 78.0, 220.0, 24.0, 60.0
	horizonLegendRow                                   = 26.0
	horizonLegendX                                     = horizonWidth - horizonRight + 24
)

// horizonPlot is the horizon chart being drawn: its scales and the rule
// of the points that set the y axis.
type horizonPlot struct {
	c    *chart
	x    func(h int) float64
	y    scale
	minN int
	// few: a point of too few vessel calls was drawn, hollow.
	few bool
}

// horizonChart is the line chart of the MAE of the carrier ETA by days
// before arrival, one line per carrier and one for every carrier, each
// point with the whisker of its 95 % interval, and a legend on the right.
// Only the points of enough vessel calls set the y axis: a point of too
// few is hollow, and one above the axis is clipped at its top with an
// arrow, so that one carrier's few shipments far out do not squash every
// other line. Nil without an arrived shipment.
func (r *Report) horizonChart() *chart {
	if r.Span.Arrived == 0 || len(r.Horizons) == 0 {
		return nil
	}
	series := r.horizonSeries()
	p := r.newHorizonPlot(series)
	var desc []string
	for i, s := range series {
		if d := p.drawSeries(r.Horizons, s); d != "" {
			desc = append(desc, d)
		}
		p.legendRow(i, s)
	}
	p.legendMarks(len(series))
	p.c.Desc = "Mean absolute error of the carrier's ETA, in hours. " + strings.Join(desc, "; ") + ". " +
		fmt.Sprintf("Whiskers: the 95 %% interval of each MAE, clustered by vessel call; hollow: fewer than %d vessel calls, "+
			"not setting the scale; an arrow: off the scale.", r.Rules.MinN)
	return p.c
}

// newHorizonPlot lays out the chart's frame: the y axis up to the highest
// MAE of the points of enough vessel calls (of every point when none has
// enough), the days on a log scale, the axes' titles and the legend's head.
func (r *Report) newHorizonPlot(series []horizonSeries) *horizonPlot {
	rows := float64(len(series) + 2) // the series, the whisker and the hollow mark
	height := max(420.0, horizonTop+30+rows*horizonLegendRow+horizonFoot)
	c := &chart{
		ID:     "chart-horizon",
		Title:  "Mean absolute error of the carrier ETA by days before arrival, per carrier, with its 95 % interval",
		Width:  horizonWidth,
		Height: height,
	}
	ticks := niceTicks(r.horizonAxisTop(series), 6)
	// Days on a log scale: 1 and 3 days apart as much as 3 and 7, where
	// most of the difference between carriers is.
	lo, hi := math.Log(float64(r.Horizons[0])), math.Log(float64(r.Horizons[len(r.Horizons)-1]))
	pad := max((hi-lo)*0.08, 0.5)
	lx := scale{D0: lo - pad, D1: hi + pad, R0: horizonLeft, R1: horizonWidth - horizonRight}
	p := &horizonPlot{c: c, x: func(h int) float64 { return lx.at(math.Log(float64(h))) }, minN: r.Rules.MinN,
		y: scale{D0: 0, D1: ticks[len(ticks)-1], R0: height - horizonFoot, R1: horizonTop}}
	c.yAxis(p.y, ticks, horizonLeft, horizonWidth-horizonRight, "mean absolute error, hours")
	base := height - horizonFoot
	for _, h := range r.Horizons {
		xv := p.x(h)
		c.Lines = append(c.Lines, line{X1: xv, Y1: base, X2: xv, Y2: base + 6, Class: "axis"})
		c.Texts = append(c.Texts, text{X: xv, Y: base + 22, Anchor: "middle", Class: "tick", Text: fmt.Sprint(h)})
	}
	c.Texts = append(c.Texts,
		text{X: (lx.R0 + lx.R1) / 2, Y: height - 12, Anchor: "middle", Class: "label", Text: "days before arrival the ETA was given (log scale)"},
		text{X: horizonLegendX, Y: horizonTop + 6, Anchor: "start", Class: "legend-head", Text: "carrier"},
		text{X: horizonWidth - 8, Y: horizonTop + 6, Anchor: "end", Class: "legend-head", Text: fmt.Sprintf("MAE %s", days(RankHorizon))})
	return p
}

// horizonAxisTop is the highest MAE the y axis must show: that of the
// points of enough vessel calls, or of every point when none has enough.
func (r *Report) horizonAxisTop(series []horizonSeries) float64 {
	enough, every := 0.0, 0.0
	for _, s := range series {
		for _, h := range r.Horizons {
			a := s.ETA[h]
			if a.N == 0 {
				continue
			}
			every = max(every, a.MAEHours)
			if a.Enough {
				enough = max(enough, a.MAEHours)
			}
		}
	}
	if enough > 0 {
		return enough
	}
	return every
}

// legendY is the middle of the legend's row, from 0 at the top.
func legendY(row int) float64 { return horizonTop + 30 + float64(row)*horizonLegendRow }

// yTop is the MAE at the top of the y axis.
func (p *horizonPlot) yTop() float64 { return p.y.D1 }

// drawSeries draws a series' line, whiskers and points; it returns what
// they show, in words, "" when the series has no point.
func (p *horizonPlot) drawSeries(horizons []int, s horizonSeries) string {
	var xs, ys []float64
	var vals []string
	for _, h := range horizons {
		if a := s.ETA[h]; a.N > 0 {
			xs, ys = append(xs, px(p.x(h)+s.Dodge)), append(ys, p.y.at(min(a.MAEHours, p.yTop())))
			vals = append(vals, fmt.Sprintf("%s h at %s", hours(a.MAEHours), days(h)))
		}
	}
	if len(xs) == 0 {
		return ""
	}
	p.c.Paths = append(p.c.Paths, path{D: polyline(xs, ys), Stroke: s.Color, Fill: "none", Width: s.Width, Dash: s.Dash, Title: s.Name})
	j := 0
	for _, h := range horizons {
		if a := s.ETA[h]; a.N > 0 {
			p.whisker(s, h, a, xs[j])
			p.point(s, h, a, xs[j], ys[j])
			j++
		}
	}
	return s.Name + ": " + strings.Join(vals, ", ")
}

// whisker draws the 95 % interval of a point's MAE as a vertical line
// with caps; an end beyond the axis is clipped there, with an arrow head.
func (p *horizonPlot) whisker(s horizonSeries, h int, a Accuracy, x float64) {
	if !a.MAE.Known {
		return
	}
	lo, hi := p.y.at(max(a.MAE.Lo, 0)), p.y.at(min(a.MAE.Hi, p.yTop()))
	d := fmt.Sprintf("M%.1f %.1fV%.1fM%.1f %.1fh8", x, lo, hi, x-4, lo)
	if a.MAE.Hi > p.yTop() {
		d += fmt.Sprintf("M%.1f %.1fl4 -6l4 6", x-4, hi+6)
	} else {
		d += fmt.Sprintf("M%.1f %.1fh8", x-4, hi)
	}
	width := 1.6
	if !a.Enough {
		width = 1
	}
	p.c.Paths = append(p.c.Paths, path{D: d, Stroke: s.Color, Fill: "none", Width: width,
		Title: fmt.Sprintf("%s, %s before arrival: 95 %% interval of the MAE %s h", s.Name, days(h), strings.Trim(hoursCI(a.MAE), "()"))})
}

// point draws a point's mark: filled when of enough vessel calls, hollow
// when not, and an arrow at the axis' top when off the scale.
func (p *horizonPlot) point(s horizonSeries, h int, a Accuracy, x, y float64) {
	title := fmt.Sprintf("%s, %s before arrival: MAE %s h over %s", s.Name, days(h), hours(a.MAEHours), plural(a.N, "shipment", "shipments"))
	fill := s.Color
	if !a.Enough {
		title += fmt.Sprintf(", fewer than %d vessel calls", p.minN)
		fill, p.few = "#ffffff", true
	}
	if a.MAEHours > p.yTop() {
		title += ": off the scale"
		p.c.Paths = append(p.c.Paths, path{D: fmt.Sprintf("M%.1f %.1fv-14m-5 6l5 -6l5 6", x, y+10), Stroke: s.Color, Fill: "none", Width: 2,
			Title: title})
		return
	}
	stroke, width := "#ffffff", 1.0
	if !a.Enough {
		stroke, width = s.Color, 2
	}
	p.c.Paths = append(p.c.Paths, path{D: marker(s.Shape, x, y, 4.5), Fill: fill, Stroke: stroke, Width: width, Title: title})
}

// legendRow is a series' row of the legend, in the ranking's order, with
// its MAE at RankHorizon.
func (p *horizonPlot) legendRow(i int, s horizonSeries) {
	gx, ly := horizonLegendX, legendY(i)
	p.c.Paths = append(p.c.Paths,
		path{D: fmt.Sprintf("M%.1f %.1fh30", gx, ly), Stroke: s.Color, Fill: "none", Width: s.Width, Dash: s.Dash},
		path{D: marker(s.Shape, gx+15, ly, 4.5), Fill: s.Color, Stroke: "#ffffff", Width: 1})
	p.c.Texts = append(p.c.Texts, text{X: gx + 40, Y: ly + 5, Anchor: "start", Class: "legend", Text: s.Name})
	if a := s.ETA[RankHorizon]; a.N > 0 {
		p.c.Texts = append(p.c.Texts, text{X: horizonWidth - 8, Y: ly + 5, Anchor: "end", Class: "value", Text: hours(a.MAEHours) + " h"})
	}
}

// legendMarks explains the whisker and, when one was drawn, the hollow
// mark, under the series' rows.
func (p *horizonPlot) legendMarks(rows int) {
	gx, ly := horizonLegendX, legendY(rows)
	p.c.Paths = append(p.c.Paths, path{D: fmt.Sprintf("M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8", gx+15, ly+8, ly-8, gx+11, ly+8, gx+11, ly-8),
		Stroke: inkAll, Fill: "none", Width: 1.6})
	p.c.Texts = append(p.c.Texts, text{X: gx + 40, Y: ly + 5, Anchor: "start", Class: "tick", Text: "95 % interval"})
	if !p.few {
		return
	}
	ly = legendY(rows + 1)
	p.c.Paths = append(p.c.Paths, path{D: marker(0, gx+15, ly, 4.5), Fill: "#ffffff", Stroke: inkAll, Width: 2,
		Title: fmt.Sprintf("hollow: fewer than %d vessel calls, not setting the scale", p.minN)})
	p.c.Texts = append(p.c.Texts, text{X: gx + 40, Y: ly + 5, Anchor: "start", Class: "tick", Text: fmt.Sprintf("fewer than %d calls", p.minN)})
}
