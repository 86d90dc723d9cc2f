package jobs_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// dcsaSelection is ports with the most terminals (so that their answers
// come in several pages) and a vessel, from the world at its start.
func dcsaSelection(t *testing.T, b *bench) jobs.Selection {
	t.Helper()
	w, at := b.env.Service.World(), b.env.Service.Clock().Now()
	type port struct {
		locode    string
		terminals int
	}
	var ports []port
	for _, p := range w.Ports() {
		ps, err := w.PortSchedule(p.Locode, at)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		for _, vs := range ps.VesselSchedules {
			if vs.Facility != nil && vs.Facility.SMDGCode != nil {
				seen[*vs.Facility.SMDGCode] = true
			}
		}
		ports = append(ports, port{p.Locode, len(seen)})
	}
	sort.SliceStable(ports, func(i, j int) bool { return ports[i].terminals > ports[j].terminals })
	var sel jobs.Selection
	for _, p := range ports[:min(4, len(ports))] {
		sel.Ports = append(sel.Ports, p.locode)
	}
	for _, v := range w.Vessels() {
		if _, err := w.VesselSchedule(v.IMO, at); err == nil {
			sel.Vessels = append(sel.Vessels, v.IMO)
			break
		}
	}
	return sel
}

// portCalls are the by-port rows a warehouse holds, as text, without the
// response they came from.
func portCalls(t *testing.T, b *bench) []string {
	t.Helper()
	rows, err := b.wh.DB().Query(`SELECT concat_ws('|', port_locode, vessel_imo, voyage, event_type_code, classifier, observed_at, carrier,
	    service_code, service_name, vessel_name, import_voyage, export_voyage, facility_key, event_at)
	  FROM port_calls WHERE query = 'PORT' ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// A provider speaking DCSA Commercial Schedules 1.0, in pages of one item:
// a run stopped by its cap after some pages, run again for the same date,
// buys every page exactly once, and loads the same by-port calls as the
// service profile's answers of the same world.
func TestADCSAProviderPageByPageStoppedAndResumed(t *testing.T) {
	slowtest.Long(t)
	dcsa := newProfileBench(t, 1000, 1000, wire.ScheduleAPIDCSA, 1)
	sel := dcsaSelection(t, dcsa)

	stopped := dcsa.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, CapSchedule: 3, CapTracking: extract.Unlimited})
	if stopped.Run.Status != "partial" {
		t.Fatalf("a cap of 3 credits ended %s, want partial", stopped.Run.Status)
	}
	first := dcsa.charged()
	if first != 3 {
		t.Fatalf("charged %d pages before the cap, want 3", first)
	}
	done := dcsa.run(t, jobs.RunOptions{Job: "backfill", Selection: sel})
	if done.Run.Status != "ok" {
		t.Fatalf("the second run ended %s (%s), want ok", done.Run.Status, done.Run.StopReason)
	}
	if done.Plan.Resumed == 0 {
		t.Errorf("the plan resumed no resource at a later page")
	}

	charged := map[string]int{}
	pages := 0
	for _, e := range dcsa.env.Service.Ledger() {
		if !e.Charged {
			continue
		}
		charged[e.Request]++
		if strings.Contains(e.Request, "cursor=") {
			pages++
		}
	}
	for req, n := range charged {
		if n != 1 {
			t.Errorf("%s bought %d times", req, n)
		}
	}
	if pages == 0 {
		t.Fatalf("no answer came in more than one page: the test does not test paging")
	}
	if n := queryCount(t, dcsa.wh, "SELECT count(*) FROM raw_responses WHERE next_page IS NOT NULL"); n != pages {
		t.Errorf("%d landed pages name a next page, want one per page after the first: %d", n, pages)
	}
	if n := queryCount(t, dcsa.wh, "SELECT count(*) FROM dead_letters"); n != 0 {
		t.Errorf("%d dead letters", n)
	}

	third := dcsa.run(t, jobs.RunOptions{Job: "backfill", Selection: sel})
	if third.Plan.AlreadyLanded != len(sel.Ports)+len(sel.Vessels) || dcsa.charged() != len(charged) {
		t.Errorf("a third run of the date skipped %d and bought %d more: want everything answered", third.Plan.AlreadyLanded, dcsa.charged()-len(charged))
	}

	service := newProfileBench(t, 1000, 1000, wire.ScheduleAPIService, 0)
	service.run(t, jobs.RunOptions{Job: "backfill", Selection: sel})
	want, got := portCalls(t, service), portCalls(t, dcsa)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("by-port calls differ between the profiles: %d from DCSA, %d from the service profile\nfirst DCSA: %.200q\nfirst service: %.200q",
			len(got), len(want), first3(got), first3(want))
	}
	t.Logf("%d pages bought once each (%d after a first), %d by-port calls equal in both profiles", len(charged), pages, len(want))
	if n := queryCount(t, dcsa.wh, "SELECT count(*) FROM port_calls WHERE query = 'VESSEL'"); n == 0 {
		t.Errorf("no by-vessel calls from the DCSA vessel schedules")
	}
}

func first3(s []string) []string { return s[:min(3, len(s))] }
