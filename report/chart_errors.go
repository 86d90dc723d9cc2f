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

// The error chart's frame, in pixels.
const (
	errorsWidth                                    = 1000.0
	errorsLeft, errorsRight, errorsTop, errorsFoot = 78.0, 40.0, 10.0, 60.0
	errorsPanelH, errorsPanelGap                   = 140.0, 40.0
	errorsTailGap                                  = 14.0
)

// errorsPlot is the error chart being drawn: the bins' range shared by
// its panels and where each slot of bins lies.
type errorsPlot struct {
	c      *chart
	lo, hi float64
	slots  int // the bins and two tails
	binW   float64
	// below, above: some panel has errors in the low or the high tail.
	below, above bool
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
	// The panels, one above the other; the shared axis under the last.
	base := errorsTop + float64(len(samples))*(errorsPanelH+errorsPanelGap) - errorsPanelGap
	slots := int(math.Round((hi-lo)/binHours)) + 2
	p := &errorsPlot{
		c: &chart{
			ID:     "chart-errors",
			Title:  "Distribution of the ETA error (actual − ETA, hours), every carrier",
			Width:  errorsWidth,
			Height: base + errorsFoot,
		},
		lo: lo, hi: hi, slots: slots,
		binW: (errorsWidth - errorsLeft - errorsRight - 2*errorsTailGap) / float64(slots),
	}
	var desc []string
	for i, s := range samples {
		desc = append(desc, p.panel(i, s))
	}
	p.hoursAxis(base)
	p.c.Desc = fmt.Sprintf("Histograms of the error in bins of %s h: ", tickLabel(binHours)) + strings.Join(desc, "; ") + "."
	return p.c
}

// slotX is the left edge of slot i: 0 is the low tail, slots-1 the high.
func (p *errorsPlot) slotX(i int) float64 {
	x := errorsLeft + float64(i)*p.binW
	if i > 0 {
		x += errorsTailGap
	}
	if i == p.slots-1 {
		x += errorsTailGap
	}
	return px(x)
}

// edgeX is where an error of that many hours lies on the bins' axis.
func (p *errorsPlot) edgeX(hours float64) float64 {
	return px(p.slotX(1) + (hours-p.lo)/binHours*p.binW)
}

// panel draws the histogram of sample s in the panel i from the top, with
// its own count axis and the line of no error; it returns what the panel
// shows, in words.
func (p *errorsPlot) panel(i int, s ErrorSample) string {
	h := newHistogram(s.Hours, p.lo, p.hi, binHours)
	p.below, p.above = p.below || h.Below > 0, p.above || h.Above > 0
	counts := append(append([]int{h.Below}, h.Counts...), h.Above)
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	ticks := niceTicks(float64(most), 3)
	y0 := errorsTop + float64(i)*(errorsPanelH+errorsPanelGap) + 24
	y := scale{D0: 0, D1: ticks[len(ticks)-1], R0: y0 + errorsPanelH - 24, R1: y0}
	p.c.yAxis(y, ticks, errorsLeft, errorsWidth-errorsRight, "shipments")
	color := colorCarrier
	switch {
	case s.Source == "PREDICTIVE":
		color = colorPredict
	case s.HorizonDays != RankHorizon:
		color = colorLater
	}
	name := sampleName(s)
	p.c.Texts = append(p.c.Texts, text{X: errorsLeft, Y: y0 - 10, Anchor: "start", Class: "panel",
		Text: fmt.Sprintf("%s: %s", name, plural(len(s.Hours), "shipment", "shipments"))})
	for j, n := range counts {
		if n == 0 {
			continue
		}
		top := y.at(float64(n))
		p.c.Rects = append(p.c.Rects, rect{X: px(p.slotX(j) + 1), Y: top, W: px(p.binW - 2), H: px(y.R0 - top), Fill: color,
			Title: fmt.Sprintf("%s, %s: %s", name, binLabel(j, p.slots, p.lo, p.hi), plural(n, "shipment", "shipments"))})
	}
	p.c.Lines = append(p.c.Lines, line{X1: p.edgeX(0), Y1: y0 - 4, X2: p.edgeX(0), Y2: y.R0, Class: "zero"})
	return fmt.Sprintf("%s: %d earlier than %s h, %d later than %s h", name, h.Below, tickLabel(p.lo), h.Above, tickLabel(p.hi))
}

// hoursAxis draws the shared axis of hours at base, under the last panel:
// a tick every 12 h (24 h over a wider range), the tails' labels and the
// axis' title.
func (p *errorsPlot) hoursAxis(base float64) {
	c := p.c
	step := 24.0
	if p.hi-p.lo <= 120 {
		step = 12
	}
	for v := math.Ceil(p.lo/step) * step; v <= p.hi; v += step {
		c.Lines = append(c.Lines, line{X1: p.edgeX(v), Y1: base, X2: p.edgeX(v), Y2: base + 6, Class: "axis"})
		c.Texts = append(c.Texts, text{X: p.edgeX(v), Y: base + 22, Anchor: "middle", Class: "tick", Text: signedTick(v)})
	}
	if p.below {
		c.Texts = append(c.Texts, text{X: p.slotX(0) + p.binW/2, Y: base + 22, Anchor: "middle", Class: "tick", Text: "< " + signedTick(p.lo)})
	}
	if p.above {
		c.Texts = append(c.Texts, text{X: p.slotX(p.slots-1) + p.binW/2, Y: base + 22, Anchor: "middle", Class: "tick", Text: "≥ " + signedTick(p.hi)})
	}
	c.Texts = append(c.Texts,
		text{X: (errorsLeft + errorsWidth - errorsRight) / 2, Y: base + 48, Anchor: "middle", Class: "label",
			Text: "error = actual − ETA, hours (left of 0: earlier than promised; right: later)"})
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
