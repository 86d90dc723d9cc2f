package report_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/report"
)

// The estimate's section shows arrival_estimate_accuracy's rows of every
// carrier as they are — its verdicts, "no clear difference" for a TIE,
// never a verdict on too few calls — and how often the arrivals fell
// inside its intervals; by carrier only the rows with enough calls.
func TestEstimateSectionShowsTheViewsVerdictsAndCoverage(t *testing.T) {
	slowtest.Long(t)
	// small's estimate ties with the carrier's ETA from 3 days out.
	if ties := estimateRows(t, small()); ties == 0 {
		t.Error("small has no TIE: it no longer shows how one is said")
	}
	db := warehouse(t, demoLike())
	estimateRowsOf(t, db)
	r, err := report.Build(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	out := reportText(t, r)
	s := strings.Join(strings.Fields(sectionOf(t, out, "etalake's estimate against")), " ")
	var enoughByCarrier int
	if err := db.QueryRow(`SELECT count(*) FROM arrival_estimate_accuracy WHERE level = 'carrier' AND enough`).Scan(&enoughByCarrier); err != nil {
		t.Fatal(err)
	}
	covered := regexp.MustCompile(`At 1 day, the arrival fell inside the 80 % interval of \d+% \(\d+–\d+%\) of [\d,]+ estimates with intervals: ` +
		`(as promised|too narrow: fewer inside than promised|wider than needed); inside the 95 % interval of \d+% \(\d+–\d+%\): `)
	if !covered.MatchString(s) {
		t.Errorf("the section does not say how often the arrivals fell inside the intervals 1 day out, with their Wilson intervals:\n%s", s)
	}

	byCarrier := sectionOf(t, out, "etalake's estimate by carrier")
	table := strings.Split(strings.TrimSpace(rowsOf(byCarrier)), "\n")
	if len(table) != enoughByCarrier || enoughByCarrier == 0 {
		t.Errorf("%d rows by carrier in the report, %d with enough calls in the view:\n%s", len(table), enoughByCarrier, byCarrier)
	}
	for _, e := range r.EstimateByCarrier {
		if !e.Enough && e.Carrier == "ZIMU" && strings.Contains(rowsOf(byCarrier), "ZIMU") {
			t.Errorf("ZIMU, of 2 shipments, has a row by carrier:\n%s", byCarrier)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(byCarrier), " "), "Too few vessel calls to compare (fewer than 5): ") {
		t.Errorf("the table by carrier does not name the carriers of too few calls:\n%s", byCarrier)
	}
}

// estimateRows builds f's report and checks its estimate section against
// arrival_estimate_accuracy; it returns how many of its rows are a TIE.
func estimateRows(t *testing.T, f fixture) int {
	t.Helper()
	return estimateRowsOf(t, warehouse(t, f))
}

func estimateRowsOf(t *testing.T, db *sql.DB) (ties int) {
	t.Helper()
	r, err := report.Build(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM arrival_estimate_accuracy WHERE level = 'all'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || len(r.Estimate) != rows {
		t.Fatalf("%d rows of every carrier in the report, %d in arrival_estimate_accuracy", len(r.Estimate), rows)
	}
	s := strings.Join(strings.Fields(sectionOf(t, reportText(t, r), "etalake's estimate against")), " ")
	for _, e := range r.Estimate {
		var better, pct string
		if err := db.QueryRow(`SELECT coalesce(better, ''), printf('%+.0f%%', mae_diff_pct) FROM arrival_estimate_accuracy
			WHERE level = 'all' AND horizon_days = ? AND versus = ?`, e.HorizonDays, e.Versus).Scan(&better, &pct); err != nil {
			t.Fatal(err)
		}
		if e.Better != better {
			t.Errorf("%d days against %s: the report says %q, the view %q", e.HorizonDays, e.Versus, e.Better, better)
		}
		if better == "TIE" {
			ties++
		}
		against := map[string]string{"CARRIER": "carrier", "PREDICTIVE": "pred."}[e.Versus]
		want := map[string]string{"ETALAKE": "etalake closer", "CARRIER": "carrier closer", "PREDICTIVE": "predictive closer",
			"TIE": "no clear difference", "": "too few"}[better]
		row := regexp.MustCompile(fmt.Sprintf(`%s %s [\d,]+ [\d,]+ [\d.]+ [\d.]+ %s \([-+\d]+ to [-+\d]+%%\) %s`,
			regexp.QuoteMeta(horizon(e.HorizonDays)), regexp.QuoteMeta(against), regexp.QuoteMeta(strings.NewReplacer("+0%", "0%", "-0%", "0%").Replace(pct)), want))
		if !row.MatchString(s) {
			t.Errorf("no row %q of %d days against %s with its interval and verdict %q in:\n%s", row, e.HorizonDays, e.Versus, want, s)
		}
	}
	return ties
}

// horizon renders a horizon as the report does.
func horizon(h int) string {
	if h == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", h)
}

// rowsOf is a section's table rows: its lines between the rule under the
// header and the first note.
func rowsOf(section string) string {
	_, rest, _ := strings.Cut(section, "─\n")
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.Contains(l, ":") {
			break
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// etalake's estimate is a source of its own: the ranking, the horizons,
// the carrier's and the predictive ETA compared, the schedule and the
// charts are the same with its rows in the warehouse as without them.
func TestEstimateLeavesTheOtherSectionsAsTheyWere(t *testing.T) {
	slowtest.Long(t)
	db := warehouse(t, demoLike())
	with, err := report.Build(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM eta_accuracy_summary WHERE source = 'ETALAKE'`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("%d rows of ETALAKE in eta_accuracy_summary (%v): the test has no teeth", n, err)
	}
	for _, q := range []string{"DELETE FROM eta_accuracy_known WHERE source = 'ETALAKE'", "DELETE FROM eta_accuracy_summary WHERE source = 'ETALAKE'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	without, err := report.Build(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if len(without.Estimate) != 0 {
		t.Fatalf("without ETALAKE rows the estimate still has %d rows", len(without.Estimate))
	}
	for name, pair := range map[string][2]any{
		"Horizons": {with.Horizons, without.Horizons}, "Carriers": {with.Carriers, without.Carriers}, "All": {with.All, without.All},
		"Comparison": {with.Comparison, without.Comparison}, "ComparisonByCarrier": {with.ComparisonByCarrier, without.ComparisonByCarrier},
		"Errors": {with.Errors, without.Errors}, "Span": {with.Span, without.Span},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differs with etalake's estimate in the warehouse:\n%+v\nwithout:\n%+v", name, pair[0], pair[1])
		}
	}
	before := func(text string) string { head, _, _ := strings.Cut(text, "\n6. etalake's estimate"); return head }
	if a, b := before(reportText(t, with)), before(reportText(t, without)); a != b {
		t.Errorf("sections 1 to 5 differ with etalake's estimate in the warehouse:\n%s\n--- without:\n%s", a, b)
	}
	if a, b := svgs(page(t, with)), svgs(page(t, without)); !slices.Equal(a, b) {
		t.Error("the charts differ with etalake's estimate in the warehouse")
	}
}

// The outlook lists what etalake expects within 7 days of the newest
// observation in the warehouse (not of the wall clock: the same
// warehouse gives the same report), the earliest estimate first, 20 at
// most and a count of the rest, and neither what arrived, nor what is due
// later, nor what is overdue.
func TestOutlookListsWhatIsDueFromTheNewestObservation(t *testing.T) {
	slowtest.Long(t)
	f := small()
	asOf := time.Date(2026, 3, 11, 2, 0, 0, 0, time.UTC) // small's newest observation
	seen := at(15)
	for k := 1; k <= 25; k++ {
		f.Shipments = append(f.Shipments, shipment{Number: fmt.Sprintf("WAY%04d", k), Carrier: "AAAA", POD: "NLRTM",
			Due: asOf.Add(time.Duration(k*5) * time.Hour), Seen: seen})
	}
	f.Shipments = append(f.Shipments,
		shipment{Number: "LATER001", Carrier: "AAAA", POD: "NLRTM", Due: asOf.AddDate(0, 0, 9), Seen: seen},
		shipment{Number: "PAST0001", Carrier: "AAAA", POD: "NLRTM", Due: asOf.Add(-30 * time.Hour), Seen: seen})
	db := warehouse(t, f)
	r, err := report.Build(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Span.Last.Equal(asOf) {
		t.Fatalf("the newest observation is %v, want %v: the fixture moved", r.Span.Last, asOf)
	}
	if len(r.Outlook) != report.OutlookRows || r.OutlookDue != 25 || r.OutlookOverdue != 2 {
		t.Fatalf("outlook of %d rows, %d due, %d overdue; want 20 of 25 due, 2 overdue (PAST0001, DDDD0001)",
			len(r.Outlook), r.OutlookDue, r.OutlookOverdue)
	}
	for i, a := range r.Outlook {
		if !strings.HasPrefix(a.Shipment, "WAY") {
			t.Errorf("%s is listed: it is not due within 7 days of %v", a.Shipment, asOf)
		}
		if a.Estimate.Before(asOf) || !a.Estimate.Before(asOf.AddDate(0, 0, 7)) {
			t.Errorf("%s's estimate %v is not within 7 days of %v", a.Shipment, a.Estimate, asOf)
		}
		if i > 0 && a.Estimate.Before(r.Outlook[i-1].Estimate) {
			t.Errorf("%s (%v) is listed after %s (%v): not by estimate", a.Shipment, a.Estimate, r.Outlook[i-1].Shipment, r.Outlook[i-1].Estimate)
		}
	}
	first := r.Outlook[0]
	var est, eta time.Time
	if err := db.QueryRow(`SELECT estimate_at, eta FROM arrival_outlook WHERE shipment_number = ?`, first.Shipment).Scan(&est, &eta); err != nil {
		t.Fatal(err)
	}
	if !first.Estimate.Equal(est) || !first.ETA.Equal(eta) {
		t.Errorf("%s: estimate %v and ETA %v in the report, %v and %v in arrival_outlook", first.Shipment, first.Estimate, first.ETA, est, eta)
	}

	s := sectionOf(t, reportText(t, r), "Due in the next 7 days")
	flat := strings.Join(strings.Fields(s), " ")
	for _, want := range []string{"the newest observation, 2026-03-11 02:00 UTC",
		fmt.Sprintf("%s NLRTM (POD) AAAA %s %s", first.Shipment, first.ETA.Format("Jan 02 15:04"), first.Estimate.Format("Jan 02 15:04")),
		"And 5 more due within those 7 days", "Not listed: 2 shipment targets whose estimate was already past"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the outlook does not say %q:\n%s", want, s)
		}
	}
	for _, no := range []string{"LATER001", "PAST0001", "AAAA0001"} {
		if strings.Contains(s, no) {
			t.Errorf("the outlook lists %s:\n%s", no, s)
		}
	}
	if html := page(t, r); !strings.Contains(html, `<section id="outlook"`) || !strings.Contains(html, ">"+first.Shipment+"<") {
		t.Error("the page has no outlook section listing the first shipment due")
	}
}
