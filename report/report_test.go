package report_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/report"
)

func build(t *testing.T, f fixture) *report.Report {
	t.Helper()
	r, err := report.Build(t.Context(), warehouse(t, f))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reportText renders the report for the terminal.
func reportText(t *testing.T, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sectionOf is the text of the numbered section whose heading starts
// with title, up to the next one.
func sectionOf(t *testing.T, report, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(report, ". "+title)
	if !ok {
		t.Fatalf("no section %q in:\n%s", title, report)
	}
	for i := 1; i < len(rest); i++ {
		if rest[i-1] == '\n' && rest[i] >= '1' && rest[i] <= '9' && strings.HasPrefix(rest[i+1:], ". ") {
			return rest[:i]
		}
	}
	return rest
}

// rowOf is the line of a table in section that names name, trimmed.
func rowOf(t *testing.T, section, name string) string {
	t.Helper()
	for _, l := range strings.Split(section, "\n") {
		if slices.Contains(strings.Fields(l), name) {
			return strings.TrimSpace(l)
		}
	}
	t.Fatalf("no row of %s in:\n%s", name, section)
	return ""
}

func carrier(t *testing.T, r *report.Report, name string) report.CarrierAccuracy {
	t.Helper()
	i := slices.IndexFunc(r.Carriers, func(c report.CarrierAccuracy) bool { return c.Carrier == name })
	if i < 0 {
		t.Fatalf("no carrier %s in %v", name, carriersOf(r.Carriers, func(c report.CarrierAccuracy) string { return c.Carrier }))
	}
	return r.Carriers[i]
}

func TestRankingSharesAPlaceBetweenCarriersNothingSeparates(t *testing.T) {
	r := build(t, small())
	got := carriersOf(r.Carriers, func(c report.CarrierAccuracy) string { return c.Carrier })
	if want := []string{"AAAA", "BBBB", "EEEE", "CCCC", "FFFF"}; !slices.Equal(got, want) {
		t.Fatalf("carriers %v, want %v", got, want)
	}
	// AAAA's MAE (3 h) is clearly below BBBB's (12 h) and EEEE's (14 h);
	// those two are within each other's margin: a tie for second.
	for _, tc := range []struct {
		carrier     string
		rank, worst int
		tied        bool
		shown       string
	}{{"AAAA", 1, 1, false, "1"}, {"BBBB", 2, 3, true, "2–3"}, {"EEEE", 2, 3, true, "2–3"}} {
		c := carrier(t, r, tc.carrier)
		if c.Rank != tc.rank || c.RankWorst != tc.worst || c.Tied() != tc.tied {
			t.Errorf("%s: rank %d–%d (tied %v), want %d–%d (tied %v)", tc.carrier, c.Rank, c.RankWorst, c.Tied(), tc.rank, tc.worst, tc.tied)
		}
		row := rowOf(t, sectionOf(t, reportText(t, r), "Carrier ranking"), tc.carrier)
		if !strings.HasPrefix(row, tc.shown+" ") {
			t.Errorf("%s's row %q does not start with its rank %q", tc.carrier, row, tc.shown)
		}
	}
	if s := sectionOf(t, reportText(t, r), "Carrier ranking"); !strings.Contains(s, "A range (2–4) is a tie") {
		t.Errorf("the ranking does not say what = means:\n%s", s)
	}
}

func TestRankingLeavesCarriersOfFewVesselCallsUnranked(t *testing.T) {
	r := build(t, small())
	s := sectionOf(t, reportText(t, r), "Carrier ranking")
	// FFFF has six shipments, more than BBBB's five, but they arrived on
	// two vessel calls: two draws, not six.
	for _, name := range []string{"FFFF", "CCCC"} {
		c := carrier(t, r, name)
		if c.Rank != 0 {
			t.Errorf("%s ranked %d; want unranked (2 vessel calls)", name, c.Rank)
		}
		if row := rowOf(t, s, name); !strings.HasPrefix(row, "– ") {
			t.Errorf("%s's row %q is not marked unranked", name, row)
		}
	}
	if f := carrier(t, r, "FFFF").ETA[report.RankHorizon]; f.N != 6 || f.NCalls != 2 || f.Enough {
		t.Errorf("FFFF at 3 days: %d shipments on %d calls (enough %v), want 6 on 2, not enough", f.N, f.NCalls, f.Enough)
	}
	if !strings.Contains(s, "rank –: fewer than 5 distinct vessel calls") {
		t.Errorf("the ranking does not state the rule for the unranked:\n%s", s)
	}
}

func TestRankingShowsIntervalsClusteredByVesselCall(t *testing.T) {
	r := build(t, small())
	for _, tc := range []struct {
		carrier string
		want    report.Accuracy
	}{
		// AAAA: 2, -2, 4, -4, 6, 0; its seventh shipment arrived without an estimate.
		{"AAAA", report.Accuracy{N: 6, Shipments: 7, NCalls: 6, BiasHours: 1, MAEHours: 3, P50AbsHours: 3, P90AbsHours: 5, Within1DShare: 1}},
		// BBBB: 10, 14, -12, 16, 8.
		{"BBBB", report.Accuracy{N: 5, Shipments: 5, NCalls: 5, BiasHours: 7.2, MAEHours: 12, P50AbsHours: 12, P90AbsHours: 15.2, Within1DShare: 1}},
		// CCCC: 1, -1, and a shipment whose only ETA is stale.
		{"CCCC", report.Accuracy{N: 2, Shipments: 3, NCalls: 2, NStale: 1, BiasHours: 0, MAEHours: 1, P50AbsHours: 1, P90AbsHours: 1, Within1DShare: 1}},
	} {
		got := carrier(t, r, tc.carrier).ETA[report.RankHorizon]
		if !sameAccuracy(got, tc.want) {
			t.Errorf("%s at 3 days: %+v, want %+v", tc.carrier, got, tc.want)
		}
		if !got.MAE.Known || got.MAE.Lo > got.MAEHours || got.MAE.Hi < got.MAEHours || !got.Bias.Known {
			t.Errorf("%s at 3 days: MAE %v h with interval %+v, want one around it", tc.carrier, got.MAEHours, got.MAE)
		}
	}
	all := r.All.ETA[report.RankHorizon]
	if all.N != 24 || all.Shipments != 26 || all.NCalls != 20 || !all.MAE.Known {
		t.Errorf("all carriers at 3 days: %+v, want 24 of 26 shipments on 20 vessel calls, with an interval", all)
	}
	row := rowOf(t, sectionOf(t, reportText(t, r), "Carrier ranking"), "AAAA")
	// Bias 1 ± t(5) × 1.528 (errors 2, -2, 4, -4, 6, 0, one per call), MAE 3 ± t(5) × 0.856.
	if want := "+1.0 (-2.9 to +4.9)"; !strings.Contains(row, want) {
		t.Errorf("AAAA's row %q does not show its bias and interval %q", row, want)
	}
	if want := "3.0 (0.8–5.2)"; !strings.Contains(row, want) {
		t.Errorf("AAAA's row %q does not show its MAE and interval %q", row, want)
	}
}

func sameAccuracy(a, b report.Accuracy) bool {
	return a.N == b.N && a.Shipments == b.Shipments && a.NCalls == b.NCalls && a.NStale == b.NStale &&
		near(a.BiasHours, b.BiasHours) && near(a.MAEHours, b.MAEHours) &&
		near(a.P50AbsHours, b.P50AbsHours) && near(a.P90AbsHours, b.P90AbsHours) && near(a.Within1DShare, b.Within1DShare)
}

func TestHorizonsSayHowOldTheETAsWereAndLeaveStaleOnesOut(t *testing.T) {
	r := build(t, small())
	if want := []int{1, 3, 7, 14}; !slices.Equal(r.Horizons, want) {
		t.Fatalf("horizons %v, want %v", r.Horizons, want)
	}
	a := carrier(t, r, "AAAA")
	for h, want := range map[int]report.Accuracy{
		1:  {N: 6, Shipments: 7, MAEHours: 3},
		7:  {N: 6, Shipments: 7, MAEHours: 35},
		14: {N: 3, Shipments: 7, MAEHours: 48},
	} {
		if got := a.ETA[h]; got.N != want.N || got.Shipments != want.Shipments || !near(got.MAEHours, want.MAEHours) {
			t.Errorf("AAAA at %d days: %+v, want n %d of %d, MAE %v", h, got, want.N, want.Shipments, want.MAEHours)
		}
	}
	if got := carrier(t, r, "BBBB").ETA[14]; got.N != 0 {
		t.Errorf("BBBB at 14 days: %+v, want no ETA", got)
	}
	// Every hand-made ETA was seen exactly at its horizon.
	for _, h := range r.Horizons {
		if got := r.All.ETA[h].MeanLeadHours; !near(got, float64(24*h)) {
			t.Errorf("mean lead at %d days %v h, want %d", h, got, 24*h)
		}
	}
	s := sectionOf(t, reportText(t, r), "Error by horizon")
	for _, want := range []string{"seen on average 24 h at 1 day, 72 h at 3 days, 168 h at 7 days and 336 h at 14 days before arrival",
		"more than 48 h before a horizon's cut", "shipments left out so: 1 at 1 day, 1 at 3 days and 1 at 7 days"} {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("the horizon section does not say %q:\n%s", want, s)
		}
	}
}

func TestComparisonOnlyWhereBothETAsExistByDesign(t *testing.T) {
	slowtest.Long(t)
	r := build(t, small())
	// AAAA's shipments have a predictive ETA 3 days out: the selective kind.
	if p := r.All.Predictive[3]; p.N == 0 || !p.Selective {
		t.Fatalf("the fixture's predictive ETA 3 days out: %+v, want some, selective", p)
	}
	if len(r.Comparison) != 1 || r.Comparison[0].HorizonDays != 1 {
		t.Fatalf("comparison %+v: want 1 day only", r.Comparison)
	}
	c := r.Comparison[0]
	// Carrier: 6×3 + 5×5 + 5×6 + 0 + 1; predictive: 6×1 + 5×2 + 5×3 + 0.5 + 0.5.
	// CCCC's first shipment is the only one where the carrier was closer.
	if c.N != 18 || c.NCalls != 18 || !c.Enough || !near(c.CarrierMAEHours, 74/18.0) || !near(c.PredictiveMAEHours, 32/18.0) ||
		!near(c.DiffHours, -42/18.0) || !c.Diff.Known || c.Diff.Hi >= 0 || !near(c.PredictiveCloserShare, 17/18.0) || c.Better != "PREDICTIVE" {
		t.Errorf("comparison at 1 day: %+v", c)
	}
	s := sectionOf(t, reportText(t, r), "Predictive ETA vs")
	if strings.Contains(s, "3 days  ") || strings.Contains(s, "At 3 days") {
		t.Errorf("the comparison shows a 3-day row:\n%s", s)
	}
	for _, want := range []string{"1 day", "predictive closer", "within 72 h", "Hence only 1 day here",
		"Per carrier at 1 day: predictive closer for AAAA, BBBB, EEEE; too few for CCCC."} {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("the comparison does not say %q:\n%s", want, s)
		}
	}
}

func TestScheduleShowsIntervalsLateNotArrivedAndPending(t *testing.T) {
	r := build(t, small())
	got := carriersOf(r.Schedule, func(s report.Reliability) string { return s.Carrier })
	// HHHH's two calls on time are too few to head the list; GGGG has
	// only a pending call.
	if want := []string{"AAAA", "BBBB", "HHHH", "GGGG"}; !slices.Equal(got, want) {
		t.Fatalf("schedule %v, want %v", got, want)
	}
	for i, w := range []report.Reliability{
		// 0, 10 h and February's 0 on time; 30 h late (against its first plan), 30 h early.
		{Carrier: "AAAA", Calls: 5, Vessels: 5, OnTime: 3, OnTimeShare: 0.6, Late: 1, Early: 1, AvgDelayLateHours: 30, Enough: true},
		// 5 and 2 h on time; 48 h, February's 40 h, and one already 30 h late not arrived.
		{Carrier: "BBBB", Calls: 5, Vessels: 5, OnTime: 2, OnTimeShare: 0.4, Late: 3, LateNotArrived: 1, AvgDelayLateHours: 44, Enough: true},
		{Carrier: "HHHH", Calls: 2, Vessels: 2, OnTime: 2, OnTimeShare: 1},
		{Carrier: "GGGG", Pending: 1},
	} {
		g := r.Schedule[i]
		if g.Calls != w.Calls || g.Vessels != w.Vessels || g.OnTime != w.OnTime || !near(g.OnTimeShare, w.OnTimeShare) || g.Late != w.Late ||
			g.LateNotArrived != w.LateNotArrived || g.Early != w.Early || g.Pending != w.Pending ||
			!near(g.AvgDelayLateHours, w.AvgDelayLateHours) || g.Enough != w.Enough {
			t.Errorf("schedule row %d: %+v, want %+v", i, g, w)
		}
		if g.Calls > 0 && (!g.OnTimeCI.Known || g.OnTimeCI.Lo > g.OnTimeShare || g.OnTimeCI.Hi < g.OnTimeShare) {
			t.Errorf("%s: share %v with interval %+v, want one around it", g.Carrier, g.OnTimeShare, g.OnTimeCI)
		}
	}
	if all := r.ScheduleAll; all.Calls != 12 || all.OnTime != 7 || all.Pending != 1 || all.LateNotArrived != 1 || r.Span.Calls != 12 {
		t.Errorf("every call: %+v (span %d calls), want 12 judged, 7 on time, 1 pending, 1 late not arrived", all, r.Span.Calls)
	}
	s := sectionOf(t, reportText(t, r), "Schedule reliability by carrier")
	for name, want := range map[string]string{
		"AAAA": "AAAA 5 5 60% (",
		"BBBB": "BBBB 5 5 40% (",
		"HHHH": "HHHH 2 2 too few 100% (",
		"GGGG": "GGGG 0 0 – 0 0 1 –",
		"all":  "all 12 12 58% (",
	} {
		if row := strings.Join(strings.Fields(rowOf(t, s, name)), " "); !strings.HasPrefix(row, want) {
			t.Errorf("%s's row %q, want it to start %q", name, row, want)
		}
	}
	if row := rowOf(t, s, "BBBB"); !strings.Contains(row, "3 (1)") {
		t.Errorf("BBBB's row %q does not show 3 late, 1 of them not arrived", row)
	}
	for _, want := range []string{"without ranks", "Too few: the calls of fewer than 5 vessels, not compared", "listed after the other carriers", "–: no call judged yet"} {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("the schedule section does not say %q:\n%s", want, s)
		}
	}
}

// A carrier whose calls were all made by one vessel is one draw, however
// many calls: IIII's six calls of one vessel, all on time, would head the
// list by their share; they are listed after the carriers of five vessels
// or more, marked too few, without an interval, and the chart says so.
func TestScheduleListsACarrierOfOneVesselAsTooFew(t *testing.T) {
	f := small()
	for i := range 6 {
		f.Calls = append(f.Calls, call{Carrier: "IIII", Port: "CNSHK", IMO: 9500001, Voyage: fmt.Sprintf("V%d", i), Planned: at(i)})
	}
	r := build(t, f)
	got := carriersOf(r.Schedule, func(s report.Reliability) string { return s.Carrier })
	if want := []string{"AAAA", "BBBB", "IIII", "HHHH", "GGGG"}; !slices.Equal(got, want) {
		t.Fatalf("schedule %v, want the carriers of 5 vessels first, then IIII (100 %% of 6 calls, one vessel), HHHH and GGGG", got)
	}
	iiii := r.Schedule[2]
	if iiii.Calls != 6 || iiii.Vessels != 1 || iiii.OnTimeShare != 1 || iiii.Enough || iiii.OnTimeCI.Known {
		t.Errorf("IIII: %+v, want 6 calls of 1 vessel, all on time, not enough, no interval", iiii)
	}
	s := sectionOf(t, reportText(t, r), "Schedule reliability by carrier")
	if row := strings.Join(strings.Fields(rowOf(t, s, "IIII")), " "); !strings.HasPrefix(row, "IIII 6 1 too few 100% 0 0 0") {
		t.Errorf("IIII's row %q, want 6 calls, 1 vessel, too few, 100%% and no interval", row)
	}
	flat := strings.Join(strings.Fields(s), " ")
	for _, want := range []string{"Too few: the calls of fewer than 5 vessels", "no interval: the calls of a single vessel"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the schedule section does not say %q:\n%s", want, s)
		}
	}
	html := page(t, r)
	if !strings.Contains(html, "IIII: 100% of 6 calls, 1 vessel: too few to compare") || !strings.Contains(html, ">100% (1 vessel: too few)<") {
		t.Errorf("the on-time chart does not say, in its label and its tooltip, that IIII's calls are of one vessel, too few to compare")
	}
}

func TestMonthsFlagTheIncompleteMonth(t *testing.T) {
	r := build(t, small())
	if len(r.ScheduleMonths) != 2 {
		t.Fatalf("months %+v, want February and March", r.ScheduleMonths)
	}
	feb, mar := r.ScheduleMonths[0], r.ScheduleMonths[1]
	if !feb.Month.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) || !feb.MonthComplete || feb.Calls != 2 || feb.OnTime != 1 {
		t.Errorf("February: %+v, want complete, 1 of 2 calls on time", feb)
	}
	if !mar.Month.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || mar.MonthComplete || mar.Calls != 10 || mar.Pending != 1 {
		t.Errorf("March: %+v, want incomplete, 10 calls judged, 1 pending", mar)
	}
	s := strings.Join(strings.Fields(sectionOf(t, reportText(t, r), "Schedule reliability by month")), " ")
	for _, want := range []string{"2026-02 2 2 too few 50% (", "2026-02 2 2 too few 50% (0–100%) 1 0 0 complete", "2026-03 10 10 60% (27–86%) 3 (1) 1 1 incomplete",
		"2026-03 is incomplete: 1 call still pending, the share can still move."} {
		if !strings.Contains(s, want) {
			t.Errorf("the month section does not say %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "2026-02 is incomplete") {
		t.Errorf("February, over, is flagged incomplete:\n%s", s)
	}
}

func TestBuildReadsSpanAndCredits(t *testing.T) {
	r := build(t, small())
	want := report.Span{
		First:   time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), // February's first plan
		Last:    time.Date(2026, 3, 11, 2, 0, 0, 0, time.UTC), // the last arrival seen
		Arrived: 26,
		Calls:   12,
		Pending: 1,
	}
	if !r.Span.First.Equal(want.First) || !r.Span.Last.Equal(want.Last) || r.Span.Arrived != want.Arrived ||
		r.Span.Calls != want.Calls || r.Span.Pending != want.Pending {
		t.Errorf("span %+v, want %+v", r.Span, want)
	}
	if r.Rules.MinN != 5 || r.Rules.MaxStalenessHours != 48 {
		t.Errorf("rules %+v, want the views' 5 vessel calls and 48 h", r.Rules)
	}
	c := r.Credits
	if c.Runs != 2 || c.RunsNotOK != 1 || c.Days != 2 || c.Requests != 22 || c.Schedule != 7 || c.Tracking != 11 ||
		!c.BalanceKnown || c.BalanceSchedule != 93 || c.BalanceTracking != 89 {
		t.Errorf("credits %+v", c)
	}
}

func TestBuildSaysWhatIsMissing(t *testing.T) {
	slowtest.Long(t)
	t.Run("nothing", func(t *testing.T) {
		f := small()
		_, err := report.Build(t.Context(), warehouse(t, fixture{Shipments: f.Shipments[len(f.Shipments)-1:], Runs: f.Runs}))
		if !errors.Is(err, report.ErrNothingToReport) {
			t.Fatalf("a warehouse without arrival or port call: %v, want ErrNothingToReport", err)
		}
		for _, want := range []string{"no tracked shipment has arrived", "no port call"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
	})
	t.Run("no port call", func(t *testing.T) {
		f := small()
		f.Calls = nil
		r := build(t, f)
		var page bytes.Buffer
		if err := r.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"text": reportText(t, r), "html": page.String()} {
			if n := strings.Count(out, "No port call a schedule by port or by vessel showed is due yet"); n != 2 {
				t.Errorf("%s report: %d schedule sections say what they are missing, want 2", name, n)
			}
			if strings.Contains(out, "mean delay of late") {
				t.Errorf("%s report prints the empty schedule table", name)
			}
			if !strings.Contains(out, "AAAA") {
				t.Errorf("%s report lost the accuracy sections", name)
			}
		}
		if n := strings.Count(page.String(), "<svg"); n != 2 {
			t.Errorf("%d charts, want 2 (no on-time chart without a port call)", n)
		}
	})
	t.Run("no arrival", func(t *testing.T) {
		f := small()
		f.Shipments = f.Shipments[len(f.Shipments)-1:]
		out := reportText(t, build(t, f))
		// The carrier's ETA's three sections and etalake's estimate's two.
		if got := strings.Count(out, "No tracked shipment has arrived at its port of discharge yet"); got != 5 {
			t.Errorf("%d accuracy sections say what is missing, want 5:\n%s", got, out)
		}
		// What is on its way is listed all the same.
		if s := sectionOf(t, out, "Due in the next 7 days"); !strings.Contains(s, "DDDD0001") {
			t.Errorf("the outlook does not list DDDD0001, on its way:\n%s", s)
		}
		if !strings.Contains(out, "BBBB") {
			t.Error("the schedule section is lost")
		}
	})
	t.Run("only pending calls", func(t *testing.T) {
		f := small()
		r := build(t, fixture{Shipments: f.Shipments[len(f.Shipments)-1:], Calls: []call{
			{Carrier: "GGGG", Port: "USNYC", IMO: 9200001, Planned: at(1), NoActual: true, SeenAfterHours: 12},
			{Carrier: "GGGG", Port: "USNYC", IMO: 9200002, Planned: at(2), NoActual: true, SeenAfterHours: 12},
		}})
		if r.Span.Calls != 0 || r.Span.Pending != 2 {
			t.Errorf("span %+v, want no call judged, 2 pending", r.Span)
		}
		s := sectionOf(t, reportText(t, r), "Schedule reliability by carrier")
		if row := strings.Join(strings.Fields(rowOf(t, s, "GGGG")), " "); row != "GGGG 0 0 – 0 0 2 –" {
			t.Errorf("GGGG's row %q, want no share and 2 pending", row)
		}
		if html := page(t, r); !strings.Contains(html, "GGGG: no call judged yet; 2 pending") {
			t.Error("the on-time chart does not say GGGG has no call judged yet")
		}
	})
	t.Run("no view", func(t *testing.T) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, err = report.Build(t.Context(), db)
		if !errors.Is(err, report.ErrNoViews) || !strings.Contains(err.Error(), "eta_accuracy") || !strings.Contains(err.Error(), "etalake_min_n") {
			t.Fatalf("a database without views: %v, want ErrNoViews naming them and their macros", err)
		}
	})
}
