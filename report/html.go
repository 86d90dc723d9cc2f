package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

//go:embed page.html.tmpl
var pageTemplate string

// page is parsed once; it is not changed afterwards, so it is safe to share.
var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}).Parse(pageTemplate))

// htmlPage is what the page template shows.
type htmlPage struct {
	Title     string
	Warehouse string
	Span      string
	Figures   []figure
	Sections  []htmlSection
	Credits   []string
	HeatScale []htmlCell
	// Made says when and by which etalake the page was made; "" when
	// the caller gave no time.
	Made string
}

// figure is one headline number.
type figure struct {
	Label, Value, Sub string
}

// htmlSection is a section with what only the page shows: its chart.
type htmlSection struct {
	section
	HTMLTable *htmlTable
	Chart     *chart
	// ChartAfter puts the chart under the table rather than above it.
	ChartAfter bool
	Caption    string
}

// WriteHTML writes the report as one self-contained HTML page: the
// headline figures, the same tables as WriteText, and inline SVG charts of
// the error by horizon, of its distribution and of the on-time share. It
// needs no network and no script; every string from the warehouse is
// escaped.
func (r *Report) WriteHTML(w io.Writer) error {
	p := htmlPage{Title: "ETA accuracy report", Warehouse: r.Warehouse, Span: r.spanLine(), Figures: r.figures(), Credits: r.creditLines(),
		HeatScale: heatScale, Made: r.madeLine()}
	for _, s := range r.sections() {
		hs := htmlSection{section: s, HTMLTable: newHTMLTable(s.Table)}
		switch s.ID {
		case secRanking:
			hs.Chart, hs.ChartAfter = r.errorsChart(), true
			hs.Caption = fmt.Sprintf("How the errors spread, all carriers together: the carrier's ETA %s and %s before arrival, "+
				"and the predictive ETA %s before, in bins of %s h. Hover a bar for its count.",
				days(RankHorizon), days(PredictiveHorizon), days(PredictiveHorizon), tickLabel(binHours))
		case secHorizon:
			hs.Chart = r.horizonChart()
			shown, left := r.chartCarriers()
			hs.Caption = fmt.Sprintf("One line per carrier, in the order of the ranking; dashed: all carriers together; the whisker: "+
				"the 95 %% interval of each MAE, clustered by vessel call. A hollow point rests on fewer than %d vessel calls and does "+
				"not set the scale; an arrow marks one above it. Hover a point for its value.", r.Rules.MinN)
			if left > 0 && len(shown) > 0 {
				hs.Caption += fmt.Sprintf(" %s with fewer than %d vessel calls %s out are in the table only.",
					plural(left, "carrier", "carriers"), r.Rules.MinN, days(RankHorizon))
			}
		case secSchedule:
			hs.Chart = r.onTimeChart()
			hs.Caption = "Green: the share of the carrier's calls on time, within ±24 h of the first planned arrival seen; " +
				"dark grey: every carrier's calls together; hatched light grey: a carrier of too few vessels to compare; the " +
				"whisker: its 95 % interval, clustered by vessel. Where two whiskers overlap, the calls do not tell which " +
				"carrier was the more punctual."
		}
		p.Sections = append(p.Sections, hs)
	}
	var b strings.Builder
	if err := page.Execute(&b, p); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// madeLine says when, in UTC to the minute, and by which etalake the page
// was made: a page kept or mailed on says how old it is. "" without a
// time.
func (r *Report) madeLine() string {
	if r.Made.IsZero() {
		return ""
	}
	return fmt.Sprintf("made %s UTC by etalake %s", r.Made.UTC().Format("2006-01-02 15:04"), cmp.Or(r.Version, "of an unknown version"))
}

// htmlTable is a table's cells with their classes.
type htmlTable struct {
	Head  []htmlCell
	Rows  [][]htmlCell
	Total []htmlCell
	// Heat: some cells are shaded by the size of their error; the page
	// shows the scale.
	Heat bool
}

type htmlCell struct {
	Text  string
	Class string
	Span  int // columns a header spans: 2 over a value and its Sub note
}

// heatSteps are the upper bounds, in hours, of the shades of an error:
// a quarter, half a day, a day, two days, four days, and more.
var heatSteps = []float64{6, 12, 24, 48, 96}

// heatScale is the legend of the shades.
var heatScale = []htmlCell{
	{Text: "under 6 h", Class: "heat1"}, {Text: "6–12 h", Class: "heat2"}, {Text: "12–24 h", Class: "heat3"},
	{Text: "1–2 days", Class: "heat4"}, {Text: "2–4 days", Class: "heat5"}, {Text: "4 days or more", Class: "heat6"},
}

func newHTMLTable(t *table) *htmlTable {
	if t == nil {
		return nil
	}
	ht := &htmlTable{}
	cells := func(row []string) []htmlCell {
		out := make([]htmlCell, len(row))
		for i, text := range row {
			out[i] = htmlCell{Text: text, Class: cellClass(t.Cols[i], text)}
			// A note shares the shade of its value.
			if t.Cols[i].Sub && i > 0 && t.Cols[i-1].Heat {
				if _, shade, ok := strings.Cut(out[i-1].Class, " "); ok {
					out[i].Class += " " + shade
				}
			}
		}
		return out
	}
	for i, c := range t.Cols {
		ht.Heat = ht.Heat || c.Heat
		switch {
		case c.Sub && i > 0:
			continue // under the header of its value
		case i+1 < len(t.Cols) && t.Cols[i+1].Sub:
			ht.Head = append(ht.Head, htmlCell{Text: c.Name, Class: "group", Span: 2})
		default:
			ht.Head = append(ht.Head, htmlCell{Text: c.Name, Class: cellClass(c, ""), Span: 1})
		}
	}
	for _, row := range t.Rows {
		ht.Rows = append(ht.Rows, cells(row))
	}
	if t.Total != nil {
		ht.Total = cells(t.Total)
	}
	return ht
}

// cellClass is the class of a cell of column c: its alignment and, for
// an error in hours, its shade.
func cellClass(c column, text string) string {
	var class []string
	switch {
	case c.Sub:
		class = append(class, "sub")
	case c.Right:
		class = append(class, "num")
	}
	if v, err := strconv.ParseFloat(text, 64); c.Heat && err == nil {
		level := len(heatSteps)
		for i, top := range heatSteps {
			if v < top {
				level = i
				break
			}
		}
		class = append(class, heatScale[level].Class)
	}
	return strings.Join(class, " ")
}

// figures are the headline numbers the page opens with, those whose data
// exist, each with the uncertainty the tables give it.
func (r *Report) figures() []figure {
	var out []figure
	if a := r.All.ETA[RankHorizon]; a.N > 0 {
		out = append(out, figure{
			Label: fmt.Sprintf("Carrier ETA %s out", days(RankHorizon)),
			Value: hours(a.MAEHours) + " h",
			Sub: strings.TrimSpace(fmt.Sprintf("mean absolute error %s; %s within ±1 day, over %s on %s", hoursCI(a.MAE),
				percent(a.Within1DShare), plural(a.N, "shipment", "shipments"), plural(a.NCalls, "vessel call", "vessel calls"))),
		})
	}
	for _, c := range r.Comparison {
		if c.HorizonDays != PredictiveHorizon {
			continue
		}
		out = append(out, figure{
			Label: fmt.Sprintf("Predictive ETA %s out", days(c.HorizonDays)),
			Value: hours(c.PredictiveMAEHours) + " h",
			Sub: fmt.Sprintf("against %s h for the carrier's ETA on the same %s: %s", hours(c.CarrierMAEHours),
				plural(c.N, "shipment", "shipments"), c.verdict()),
		})
	}
	if f, ok := r.bestCarrier(); ok {
		out = append(out, f)
	}
	if s := r.ScheduleAll; s.judged() {
		out = append(out, figure{
			Label: "Port calls on time",
			Value: percent(s.OnTimeShare),
			Sub:   strings.TrimSpace(fmt.Sprintf("%s of %s, within ±24 h of plan", percentCI(s.OnTimeCI), plural(s.Calls, "call", "calls"))),
		})
	}
	return out
}

// bestCarrier is the figure of the most accurate carrier: the one listed
// first (the lowest MAE of those ranked) when it is clearly below every
// other, else said to be unclear, naming the carriers that may be first.
func (r *Report) bestCarrier() (figure, bool) {
	var first []string
	ranked := 0
	for _, c := range r.Carriers {
		if c.Rank == 1 {
			first = append(first, c.Carrier)
		}
		if c.Rank > 0 {
			ranked++
		}
	}
	if len(first) == 0 {
		return figure{}, false
	}
	lead := r.Carriers[0]
	a := lead.ETA[RankHorizon]
	label := fmt.Sprintf("Most accurate carrier, %s out", days(RankHorizon))
	mae := fmt.Sprintf("MAE %s h over %s", hours(a.MAEHours), plural(a.N, "shipment", "shipments"))
	switch {
	case ranked == 1:
		return figure{Label: label, Value: lead.Carrier, Sub: mae + ", the only carrier ranked"}, true
	case lead.RankWorst == 1:
		return figure{Label: label, Value: lead.Carrier, Sub: mae + ", clearly below every other carrier ranked"}, true
	case len(first) == 1:
		return figure{Label: label, Value: lead.Carrier, Sub: fmt.Sprintf("%s; places %d–%d: not clearly below every other carrier",
			mae, lead.Rank, lead.RankWorst)}, true
	}
	return figure{
		Label: label,
		Value: "not clear",
		Sub: fmt.Sprintf("%s may be first: the data do not tell them apart (lowest MAE: %s, %s h)",
			strings.Join(first, ", "), lead.Carrier, hours(a.MAEHours)),
	}, true
}
