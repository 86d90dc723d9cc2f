package report_test

import (
	stdhtml "html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// svgOf is the chart id of the page.
func svgOf(t *testing.T, html, id string) string {
	t.Helper()
	s := regexp.MustCompile(`(?s)<svg id="` + id + `".*?</svg>`).FindString(html)
	if s == "" {
		t.Fatalf("the page has no chart %s", id)
	}
	return s
}

// titles are the tooltips of a chart's marks, unescaped.
func titles(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<title>(.*?)</title>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, stdhtml.UnescapeString(m[1]))
	}
	return out
}

// axisTop is the highest tick label of a chart's y axis: the tick texts
// anchored at their end, left of the plot.
func axisTop(t *testing.T, svg string) float64 {
	t.Helper()
	top := -1.0
	for _, m := range regexp.MustCompile(`<text class="tick" x="[0-9.]+" y="[0-9.]+" text-anchor="end">([0-9.]+)</text>`).FindAllStringSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		top = max(top, v)
	}
	if top < 0 {
		t.Fatal("the chart has no y axis")
	}
	return top
}

func TestHorizonChartDrawsEachPointsInterval(t *testing.T) {
	slowtest.Long(t)
	r := build(t, small())
	svg := svgOf(t, page(t, r), "chart-horizon")
	// AAAA's MAE 3 days out and its interval, as the ranking prints them:
	// the chart draws the same interval as a whisker.
	a := r.Carriers[0].ETA[3]
	if r.Carriers[0].Carrier != "AAAA" || !a.MAE.Known {
		t.Fatalf("the fixture changed: first carrier %s, interval %+v", r.Carriers[0].Carrier, a.MAE)
	}
	want := "AAAA, 3 days before arrival: 95 % interval of the MAE " + strconv.FormatFloat(a.MAE.Lo, 'f', 1, 64) + "–" +
		strconv.FormatFloat(a.MAE.Hi, 'f', 1, 64) + " h"
	intervals := 0
	for _, s := range titles(svg) {
		if strings.Contains(s, "95 % interval of the MAE") {
			intervals++
		}
		if s == want {
			want = ""
		}
	}
	if want != "" {
		t.Errorf("no whisker titled %q among %q", want, titles(svg))
	}
	// Every point with an interval has its whisker: the carriers' lines
	// and every carrier together, at each horizon with two vessel calls.
	if intervals < 8 {
		t.Errorf("%d whiskers in the horizon chart, want one per point with an interval (at least 8)", intervals)
	}
}

func TestHorizonChartScaleIgnoresPointsOfTooFewCalls(t *testing.T) {
	r := build(t, small())
	svg := svgOf(t, page(t, r), "chart-horizon")
	// AAAA's 14-day MAE, 48 h, rests on three vessel calls: it must not
	// squash the lines of the points that have enough.
	few := r.Carriers[0].ETA[14]
	if few.Enough || few.MAEHours < 40 {
		t.Fatalf("the fixture changed: AAAA 14 days out %+v", few)
	}
	most := 0.0
	for _, c := range append(r.Carriers, r.All) {
		for _, a := range c.ETA {
			if a.Enough {
				most = max(most, a.MAEHours)
			}
		}
	}
	if top := axisTop(t, svg); top >= few.MAEHours || top < most {
		t.Errorf("the axis reaches %v h; want at least the %v h of the points with enough calls, below AAAA's %v h of too few",
			top, most, few.MAEHours)
	}
	shown := stdhtml.UnescapeString(svg)
	for _, want := range []string{
		"AAAA, 14 days before arrival: MAE 48.0 h over 3 shipments, fewer than 5 vessel calls: off the scale",
		"hollow: fewer than 5 vessel calls",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the horizon chart does not say %q", want)
		}
	}
}

func TestOnTimeChartSetsTooFewApart(t *testing.T) {
	r := build(t, small())
	svg := svgOf(t, page(t, r), "chart-ontime")
	fill := func(carrier string) string {
		t.Helper()
		m := regexp.MustCompile(`<rect [^>]*fill="(#[0-9a-f]{6})"><title>`+carrier+`: [0-9]`).FindAllStringSubmatch(svg, -1)
		if len(m) == 0 {
			t.Fatalf("no bar of %s", carrier)
		}
		return m[len(m)-1][1]
	}
	// HHHH's two calls on two vessels are too few to compare, AAAA's are
	// not: they must not look alike.
	if fill("HHHH") == fill("AAAA") {
		t.Errorf("HHHH, too few to compare, has AAAA's bar colour %s", fill("AAAA"))
	}
	if !strings.Contains(stdhtml.UnescapeString(svg), "too few to compare: fewer than 5 vessels") {
		t.Error("the on-time chart has no legend entry for the bars of too few vessels")
	}
}

func TestPageSaysWhenAndByWhatItWasMade(t *testing.T) {
	slowtest.Long(t)
	r := build(t, small())
	r.Made = time.Date(2026, 12, 7, 12, 30, 5, 0, time.FixedZone("CET", 3600))
	r.Version = "v1.4.0 (0123456789ab)"
	shown := stdhtml.UnescapeString(page(t, r))
	if want := "made 2026-12-07 11:30 UTC by etalake v1.4.0 (0123456789ab)"; !strings.Contains(shown, want) {
		t.Errorf("the page does not say %q", want)
	}
	// Without a time given, the page says nothing rather than a zero time.
	r.Made, r.Version = time.Time{}, ""
	if shown := page(t, r); strings.Contains(shown, `class="made"`) || strings.Contains(shown, "0001-01-01") {
		t.Error("a page of no making time says one")
	}
}
