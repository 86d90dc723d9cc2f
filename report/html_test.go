package report_test

import (
	"bytes"
	"encoding/xml"
	stdhtml "html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/report"
)

func page(t *testing.T, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteHTMLIsOneSelfContainedPage(t *testing.T) {
	slowtest.Long(t)
	r := build(t, small())
	r.Warehouse = "/data/warehouse"
	html := page(t, r)
	if !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, "<title>ETA accuracy report: /data/warehouse</title>") {
		t.Errorf("no doctype or title:\n%.300s", html)
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "@import", "url(", "src="} {
		if strings.Contains(html, bad) {
			t.Errorf("the page refers to something outside it: %q", bad)
		}
	}
	// One chart per figure, each accessible: a title, a description, a label.
	for _, id := range []string{"chart-errors", "chart-horizon", "chart-ontime"} {
		if n := strings.Count(html, `<svg id="`+id+`"`); n != 1 {
			t.Errorf("%d SVG %s, want 1", n, id)
		}
	}
	if n := strings.Count(html, "<svg"); n != 3 {
		t.Errorf("%d <svg, want 3", n)
	}
	if n := strings.Count(html, `role="img" aria-label="`); n != 3 {
		t.Errorf("%d charts with role img and a label, want 3", n)
	}
	for _, s := range svgs(html) {
		if !strings.Contains(s, "<title>") || !strings.Contains(s, "<desc ") {
			t.Errorf("a chart without its title or description: %.200s", s)
		}
		// The charts' markup is well-formed XML (the SVG namespace aside).
		if err := wellFormed(s); err != nil {
			t.Errorf("chart is not well-formed: %v", err)
		}
	}
	// The same tables as the terminal: five, the matrix included, and
	// etalake's estimate's two (nothing of small's is due in the next
	// days: the outlook has no table).
	if n := strings.Count(html, "<table>"); n != 7 {
		t.Errorf("%d tables, want 7", n)
	}
	shown := stdhtml.UnescapeString(html)
	for _, want := range []string{"Carrier ranking", "Error by horizon", "Predictive ETA vs", "Schedule reliability by carrier",
		"Schedule reliability by month", "AAAA", "BBBB", "CCCC", ">2–3<", ">+7.2<", ">(-6.7 to +21.1)<", ">12.0<", ">(8.1–15.9)<",
		">15.2<", ">60%<", ">(13–94%)<", ">incomplete<", ">predictive closer<", "balance after the last run", ">1.8 h<",
		"against 4.1 h for the carrier's ETA on the same 18 shipments: predictive closer", "Most accurate carrier, 3 days out"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	// The on-time chart draws each interval as a whisker: a line and two
	// caps for the three carriers with one, and for every call together.
	if n := strings.Count(html, `class="whisker"`); n != 3*4 {
		t.Errorf("%d whisker lines, want 12", n)
	}
}

// svgs returns each <svg …>…</svg> of the page.
func svgs(html string) []string {
	return regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(html, -1)
}

// wellFormed reports the first XML error of s, nil when s is well-formed.
func wellFormed(s string) error {
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestWriteHTMLEscapesTheData(t *testing.T) {
	slowtest.Long(t)
	const evil = `<b>&"x`
	f := small()
	for i := range f.Shipments {
		if f.Shipments[i].Carrier == "AAAA" {
			f.Shipments[i].Carrier = evil
		}
	}
	for i := range f.Calls {
		if f.Calls[i].Carrier == "AAAA" {
			f.Calls[i].Carrier = evil
		}
	}
	r := build(t, f)
	r.Warehouse = `/tmp/<i>"wh"</i>`
	html := page(t, r)
	if strings.Contains(html, evil) || strings.Contains(html, "<b>") || strings.Contains(html, "<i>") {
		t.Error("a carrier or the warehouse's name reached the page unescaped")
	}
	const escaped = "&lt;b&gt;&amp;&#34;x"
	// In the ranking, the matrix, the schedule table, the line chart's
	// legend and tooltips, and the bar chart.
	if n := strings.Count(html, escaped); n < 6 {
		t.Errorf("the carrier appears escaped %d times, want at least 6", n)
	}
	for _, s := range svgs(html) {
		if err := wellFormed(s); err != nil {
			t.Fatalf("a chart is not well-formed with the carrier in it: %v", err)
		}
	}
}
