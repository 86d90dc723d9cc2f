package report_test

import (
	"bytes"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

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

func TestBuildRanksCarriersByTheirErrorThreeDaysOut(t *testing.T) {
	r := build(t, small())
	got := carriersOf(r.Carriers, func(c report.CarrierAccuracy) string { return c.Carrier })
	if want := []string{"AAAA", "BBBB", "CCCC"}; !slices.Equal(got, want) {
		t.Fatalf("carriers %v, want %v (CCCC, the most accurate, has too few shipments to rank)", got, want)
	}
	for i, want := range []int{1, 2, 0} {
		if r.Carriers[i].Rank != want {
			t.Errorf("%s: rank %d, want %d", r.Carriers[i].Carrier, r.Carriers[i].Rank, want)
		}
	}
	for _, tc := range []struct {
		carrier string
		want    report.Accuracy
	}{
		// AAAA: 2, -2, 4, -4, 6, 0; its seventh shipment arrived without an estimate.
		{"AAAA", report.Accuracy{N: 6, Shipments: 7, BiasHours: 1, MAEHours: 3, P50AbsHours: 3, P90AbsHours: 5, Within1DShare: 1}},
		// BBBB: 10, 10, -10, 30, 0.
		{"BBBB", report.Accuracy{N: 5, Shipments: 5, BiasHours: 8, MAEHours: 12, P50AbsHours: 10, P90AbsHours: 22, Within1DShare: 0.8}},
		{"CCCC", report.Accuracy{N: 2, Shipments: 2, BiasHours: 0, MAEHours: 1, P50AbsHours: 1, P90AbsHours: 1, Within1DShare: 1}},
	} {
		i := slices.IndexFunc(r.Carriers, func(c report.CarrierAccuracy) bool { return c.Carrier == tc.carrier })
		got := r.Carriers[i].ETA[report.RankHorizon]
		if !sameAccuracy(got, tc.want) {
			t.Errorf("%s at 3 days: %+v, want %+v", tc.carrier, got, tc.want)
		}
	}
	all := r.All.ETA[report.RankHorizon]
	if all.N != 13 || all.Shipments != 14 || !near(all.MAEHours, (18+60+2)/13.0) {
		t.Errorf("all carriers at 3 days: %+v, want 13 of 14 shipments, MAE 80/13", all)
	}
}

func sameAccuracy(a, b report.Accuracy) bool {
	return a.N == b.N && a.Shipments == b.Shipments && near(a.BiasHours, b.BiasHours) && near(a.MAEHours, b.MAEHours) &&
		near(a.P50AbsHours, b.P50AbsHours) && near(a.P90AbsHours, b.P90AbsHours) && near(a.Within1DShare, b.Within1DShare)
}

func TestBuildReadsEveryHorizon(t *testing.T) {
	r := build(t, small())
	if want := []int{1, 3, 7, 14}; !slices.Equal(r.Horizons, want) {
		t.Fatalf("horizons %v, want %v", r.Horizons, want)
	}
	a := r.Carriers[0] // AAAA
	for h, want := range map[int]report.Accuracy{
		1:  {N: 6, Shipments: 7, MAEHours: 3},
		7:  {N: 6, Shipments: 7, MAEHours: 35},
		14: {N: 3, Shipments: 7, MAEHours: 48},
	} {
		if got := a.ETA[h]; got.N != want.N || got.Shipments != want.Shipments || !near(got.MAEHours, want.MAEHours) {
			t.Errorf("AAAA at %d days: %+v, want n %d of %d, MAE %v", h, got, want.N, want.Shipments, want.MAEHours)
		}
	}
	if got := r.Carriers[1].ETA[14]; got.N != 0 {
		t.Errorf("BBBB at 14 days: %+v, want no ETA", got)
	}
	if got := a.Predictive[1]; got.N != 6 || !near(got.MAEHours, 1) {
		t.Errorf("AAAA's predictive ETA at 1 day: %+v, want MAE 1 over 6", got)
	}
}

func TestBuildComparesThePredictiveETAOnTheSameShipments(t *testing.T) {
	r := build(t, small())
	if len(r.Comparison) != 1 {
		t.Fatalf("comparison %+v: want one horizon (the predictive ETA exists 1 day out only)", r.Comparison)
	}
	c := r.Comparison[0]
	// Carrier: 6×3 + 5×5 + 0 + 1; predictive: 6×1 + 5×2 + 0.5 + 0.5.
	// CCCC's first shipment is the only one where the carrier was closer.
	if c.HorizonDays != 1 || c.N != 13 || !near(c.CarrierMAEHours, 44/13.0) || !near(c.PredictiveMAEHours, 17/13.0) ||
		!near(c.PredictiveCloserShare, 12/13.0) || !c.PredictiveBetter {
		t.Errorf("comparison at 1 day: %+v", c)
	}
}

func TestBuildReadsScheduleReliability(t *testing.T) {
	r := build(t, small())
	want := []report.Reliability{
		{Carrier: "BBBB", Calls: 3, OnTime: 2, OnTimeShare: 2 / 3.0, Late: 1, AvgDelayLateHours: 48},
		// 0 and 10 h on time, 30 h late (against its first plan), 30 h early.
		{Carrier: "AAAA", Calls: 4, OnTime: 2, OnTimeShare: 0.5, Late: 1, AvgDelayLateHours: 30},
	}
	if len(r.Schedule) != len(want) {
		t.Fatalf("schedule %+v, want %+v", r.Schedule, want)
	}
	for i, w := range want {
		g := r.Schedule[i]
		if g.Carrier != w.Carrier || g.Calls != w.Calls || g.OnTime != w.OnTime || !near(g.OnTimeShare, w.OnTimeShare) ||
			g.Late != w.Late || !near(g.AvgDelayLateHours, w.AvgDelayLateHours) {
			t.Errorf("schedule row %d: %+v, want %+v", i, g, w)
		}
	}
	if got := r.OnTimeShare(); !near(got, 4/7.0) {
		t.Errorf("on-time share of every call %v, want 4/7", got)
	}
}

func TestBuildReadsSpanAndCredits(t *testing.T) {
	r := build(t, small())
	want := report.Span{
		First:   time.Date(2026, 2, 15, 12, 0, 0, 0, time.UTC), // the 14-day estimate of the first arrival
		Last:    time.Date(2026, 3, 8, 2, 0, 0, 0, time.UTC),   // the last arrival seen
		Arrived: 14,
		Calls:   7,
	}
	if !r.Span.First.Equal(want.First) || !r.Span.Last.Equal(want.Last) || r.Span.Arrived != want.Arrived || r.Span.Calls != want.Calls {
		t.Errorf("span %+v, want %+v", r.Span, want)
	}
	c := r.Credits
	if c.Runs != 2 || c.RunsNotOK != 1 || c.Days != 2 || c.Requests != 22 || c.Schedule != 7 || c.Tracking != 11 ||
		!c.BalanceKnown || c.BalanceSchedule != 93 || c.BalanceTracking != 89 {
		t.Errorf("credits %+v", c)
	}
}

func TestBuildSaysWhatIsMissing(t *testing.T) {
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
		var text, page bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"text": text.String(), "html": page.String()} {
			if !strings.Contains(out, "No port call has both a planned and an actual arrival yet") {
				t.Errorf("%s report does not say what the schedule section is missing", name)
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
		r := build(t, f)
		var text bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(text.String(), "No tracked shipment has arrived at its port of discharge yet"); got != 3 {
			t.Errorf("%d accuracy sections say what is missing, want 3:\n%s", got, text.String())
		}
		if !strings.Contains(text.String(), "BBBB") {
			t.Error("the schedule section is lost")
		}
	})
	t.Run("no view", func(t *testing.T) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, err = report.Build(t.Context(), db)
		if !errors.Is(err, report.ErrNoViews) || !strings.Contains(err.Error(), "eta_accuracy") {
			t.Fatalf("a database without views: %v, want ErrNoViews naming them", err)
		}
	})
}
