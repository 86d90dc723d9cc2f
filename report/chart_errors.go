package report

import (
	"fmt"
	"math"
	"strings"
)

// Bins of the error distribution: binHours wide, from at least clipLow to
// at most clipHigh hours; errors beyond go to a tail bin at each end.
const (
	binHours = 6.0
	clipLow  = -48.0
	clipHigh = 72.0
)

// histogram counts errors in bins of Width hours from Lo to Hi, and those
// below Lo and from Hi on in two tails.
type histogram struct {
	Lo, Hi, Width float64
	Counts        []int
	Below, Above  int
}

// errorRange is the range of the bins the samples share: the samples'
// extent in whole bins, within [clipLow, clipHigh], with 0 inside.
func errorRange(samples []ErrorSample) (lo, hi float64) {
	lo, hi = -binHours, binHours
	for _, s := range samples {
		if len(s.Hours) == 0 {
			continue
		}
		lo = min(lo, math.Floor(s.Hours[0]/binHours)*binHours)
		hi = max(hi, (math.Floor(s.Hours[len(s.Hours)-1]/binHours)+1)*binHours)
	}
	return max(lo, clipLow), min(hi, clipHigh)
}

// newHistogram bins the errors.
func newHistogram(errs []float64, lo, hi, width float64) histogram {
	h := histogram{Lo: lo, Hi: hi, Width: width, Counts: make([]int, int(math.Round((hi-lo)/width)))}
	for _, e := range errs {
		switch {
		case e < lo:
			h.Below++
		case e >= hi:
			h.Above++
		default:
			h.Counts[min(int((e-lo)/width), len(h.Counts)-1)]++
		}
	}
	return h
}

// errorsChart is the distribution of the errors of each sample, one panel
// above the other on a shared axis of hours. Nil without an error to show.
func (r *Report) errorsChart() *chart {
	var samples []ErrorSample
	for _, s := range r.Errors {
		if len(s.Hours) > 0 {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return nil
	}
	lo, hi := errorRange(samples)
	const (
		width                  = 1000.0
		left, right, top, foot = 78.0, 40.0, 10.0, 60.0
		panelH, panelGap       = 140.0, 40.0
		tailGap                = 14.0
	)
	// The panels, one above the other; the shared axis under the last.
	base := top + float64(len(samples))*(panelH+panelGap) - panelGap
	height := base + foot
	c := &chart{
		ID:     "chart-errors",
		Title:  "Distribution of the ETA error (actual − ETA, hours), every carrier",
		Width:  width,
		Height: height,
	}
	slots := int(math.Round((hi-lo)/binHours)) + 2 // the bins and two tails
	binW := (width - left - right - 2*tailGap) / float64(slots)
	// slotX is the left edge of slot i: 0 is the low tail, slots-1 the high.
	slotX := func(i int) float64 {
		x := left + float64(i)*binW
		if i > 0 {
			x += tailGap
		}
		if i == slots-1 {
			x += tailGap
		}
		return px(x)
	}
	edgeX := func(hours float64) float64 { return px(slotX(1) + (hours-lo)/binHours*binW) }
	var desc []string
	below, above := false, false
	for p, s := range samples {
		h := newHistogram(s.Hours, lo, hi, binHours)
		below, above = below || h.Below > 0, above || h.Above > 0
		counts := append(append([]int{h.Below}, h.Counts...), h.Above)
		most := 0
		for _, n := range counts {
			most = max(most, n)
		}
		ticks := niceTicks(float64(most), 3)
		y0 := top + float64(p)*(panelH+panelGap) + 24
		y := scale{D0: 0, D1: ticks[len(ticks)-1], R0: y0 + panelH - 24, R1: y0}
		c.yAxis(y, ticks, left, width-right, "shipments")
		color := colorCarrier
		switch {
		case s.Source == "PREDICTIVE":
			color = colorPredict
		case s.HorizonDays != RankHorizon:
			color = colorLater
		}
		name := sampleName(s)
		c.Texts = append(c.Texts, text{X: left, Y: y0 - 10, Anchor: "start", Class: "panel",
			Text: fmt.Sprintf("%s: %s", name, plural(len(s.Hours), "shipment", "shipments"))})
		for i, n := range counts {
			if n == 0 {
				continue
			}
			top := y.at(float64(n))
			c.Rects = append(c.Rects, rect{X: px(slotX(i) + 1), Y: top, W: px(binW - 2), H: px(y.R0 - top), Fill: color,
				Title: fmt.Sprintf("%s, %s: %s", name, binLabel(i, slots, lo, hi), plural(n, "shipment", "shipments"))})
		}
		c.Lines = append(c.Lines, line{X1: edgeX(0), Y1: y0 - 4, X2: edgeX(0), Y2: y.R0, Class: "zero"})
		desc = append(desc, fmt.Sprintf("%s: %d earlier than %s h, %d later than %s h", name, h.Below, tickLabel(lo), h.Above, tickLabel(hi)))
	}
	step := 24.0
	if hi-lo <= 120 {
		step = 12
	}
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		c.Lines = append(c.Lines, line{X1: edgeX(v), Y1: base, X2: edgeX(v), Y2: base + 6, Class: "axis"})
		c.Texts = append(c.Texts, text{X: edgeX(v), Y: base + 22, Anchor: "middle", Class: "tick", Text: signedTick(v)})
	}
	if below {
		c.Texts = append(c.Texts, text{X: slotX(0) + binW/2, Y: base + 22, Anchor: "middle", Class: "tick", Text: "< " + signedTick(lo)})
	}
	if above {
		c.Texts = append(c.Texts, text{X: slotX(slots-1) + binW/2, Y: base + 22, Anchor: "middle", Class: "tick", Text: "≥ " + signedTick(hi)})
	}
	c.Texts = append(c.Texts,
		text{X: (left + width - right) / 2, Y: base + 48, Anchor: "middle", Class: "label",
			Text: "error = actual − ETA, hours (left of 0: earlier than promised; right: later)"})
	c.Desc = fmt.Sprintf("Histograms of the error in bins of %s h: ", tickLabel(binHours)) + strings.Join(desc, "; ") + "."
	return c
}

// sampleName says which ETAs a sample is of.
func sampleName(s ErrorSample) string {
	who := "Carrier ETA"
	if s.Source == "PREDICTIVE" {
		who = "Predictive ETA"
	}
	return fmt.Sprintf("%s %s before arrival", who, days(s.HorizonDays))
}

// binLabel names slot i of slots: a tail, or a bin's hours.
func binLabel(i, slots int, lo, hi float64) string {
	switch i {
	case 0:
		return "earlier than " + signedTick(lo) + " h"
	case slots - 1:
		return signedTick(hi) + " h or later"
	}
	from := lo + float64(i-1)*binHours
	return fmt.Sprintf("%s to %s h", signedTick(from), signedTick(from+binHours))
}

// signedTick renders hours of error with their sign: −24, 0, +24.
func signedTick(v float64) string {
	switch {
	case v > 0:
		return "+" + tickLabel(v)
	case v < 0:
		return "−" + tickLabel(-v)
	}
	return "0"
}
