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

// horizonChart is the line chart of the MAE of the carrier ETA by days
// before arrival, one line per carrier and one for every carrier, with a
// legend on the right. Nil without an arrived shipment.
func (r *Report) horizonChart() *chart {
	if r.Span.Arrived == 0 || len(r.Horizons) == 0 {
		return nil
	}
	carriers, _ := r.chartCarriers()
	var series []horizonSeries
	for i, c := range carriers {
		series = append(series, horizonSeries{Name: c.Carrier, Color: palette[i], Shape: i, Width: 2.5, ETA: c.ETA})
	}
	series = append(series, horizonSeries{Name: "all carriers", Color: inkAll, Shape: 0, Width: 3.5, Dash: "7 5", ETA: r.All.ETA})

	const (
		width, height          = 1000.0, 420.0
		left, right, top, foot = 78.0, 220.0, 24.0, 60.0
	)
	c := &chart{
		ID:     "chart-horizon",
		Title:  "Mean absolute error of the carrier ETA by days before arrival, per carrier",
		Width:  width,
		Height: height,
	}
	hi := 0.0
	for _, s := range series {
		for _, h := range r.Horizons {
			if a := s.ETA[h]; a.N > 0 {
				hi = max(hi, a.MAEHours)
			}
		}
	}
	ticks := niceTicks(hi, 6)
	// Days on a log scale: 1 and 3 days apart as much as 3 and 7, where
	// most of the difference between carriers is.
	lo, hi := math.Log(float64(r.Horizons[0])), math.Log(float64(r.Horizons[len(r.Horizons)-1]))
	pad := max((hi-lo)*0.08, 0.5)
	lx := scale{D0: lo - pad, D1: hi + pad, R0: left, R1: width - right}
	x := func(h int) float64 { return lx.at(math.Log(float64(h))) }
	y := scale{D0: 0, D1: ticks[len(ticks)-1], R0: height - foot, R1: top}
	c.yAxis(y, ticks, left, width-right, "mean absolute error, hours")
	for _, h := range r.Horizons {
		xv := x(h)
		c.Lines = append(c.Lines, line{X1: xv, Y1: height - foot, X2: xv, Y2: height - foot + 6, Class: "axis"})
		c.Texts = append(c.Texts, text{X: xv, Y: height - foot + 22, Anchor: "middle", Class: "tick", Text: fmt.Sprint(h)})
	}
	c.Texts = append(c.Texts, text{X: (lx.R0 + lx.R1) / 2, Y: height - 12, Anchor: "middle", Class: "label",
		Text: "days before arrival the ETA was given (log scale)"})

	gx := width - right + 24
	c.Texts = append(c.Texts, text{X: gx, Y: top + 6, Anchor: "start", Class: "legend-head", Text: "carrier"},
		text{X: width - 8, Y: top + 6, Anchor: "end", Class: "legend-head", Text: fmt.Sprintf("MAE %s", days(RankHorizon))})
	var desc []string
	for i, s := range series {
		var xs, ys []float64
		var vals []string
		for _, h := range r.Horizons {
			a := s.ETA[h]
			if a.N == 0 {
				continue
			}
			xs, ys = append(xs, x(h)), append(ys, y.at(a.MAEHours))
			vals = append(vals, fmt.Sprintf("%s h at %s", hours(a.MAEHours), days(h)))
		}
		if len(xs) == 0 {
			continue
		}
		desc = append(desc, s.Name+": "+strings.Join(vals, ", "))
		c.Paths = append(c.Paths, path{D: polyline(xs, ys), Stroke: s.Color, Fill: "none", Width: s.Width, Dash: s.Dash, Title: s.Name})
		j := 0
		for _, h := range r.Horizons {
			a := s.ETA[h]
			if a.N == 0 {
				continue
			}
			c.Paths = append(c.Paths, path{D: marker(s.Shape, xs[j], ys[j], 4.5), Fill: s.Color, Stroke: "#ffffff", Width: 1,
				Title: fmt.Sprintf("%s, %s before arrival: MAE %s h over %s", s.Name, days(h), hours(a.MAEHours), plural(a.N, "shipment", "shipments"))})
			j++
		}
		// The legend, in the series' order: the ranking's.
		ly := top + 30 + float64(i)*26
		c.Paths = append(c.Paths,
			path{D: fmt.Sprintf("M%.1f %.1fh30", gx, ly), Stroke: s.Color, Fill: "none", Width: s.Width, Dash: s.Dash},
			path{D: marker(s.Shape, gx+15, ly, 4.5), Fill: s.Color, Stroke: "#ffffff", Width: 1})
		c.Texts = append(c.Texts, text{X: gx + 40, Y: ly + 5, Anchor: "start", Class: "legend", Text: s.Name})
		if a := s.ETA[RankHorizon]; a.N > 0 {
			c.Texts = append(c.Texts, text{X: width - 8, Y: ly + 5, Anchor: "end", Class: "value", Text: hours(a.MAEHours) + " h"})
		}
	}
	c.Desc = "Mean absolute error of the carrier's ETA, in hours. " + strings.Join(desc, "; ") + "."
	return c
}
