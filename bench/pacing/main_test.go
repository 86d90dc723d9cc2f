package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
)

// A short run of every policy on a small world: nightly's credits are
// what its runs counted and the simulator charged, every other policy
// spends less, the webhooks land, the warehouse's arrivals are the
// truth's, and the report has a row per policy and the acceptance.
func TestEveryPolicyRunsAndIsJudged(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("runs 4 warehouses over 6 nights")
	}
	c, err := parse([]string{"-seeds", "7", "-nights", "6", "-shipments", "50", "-boot", "50"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	worlds, err := trials(context.Background(), c, t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(worlds) != 1 || len(worlds[0].Outcomes) != 4 {
		t.Fatalf("%d worlds, want 1 with 4 policies", len(worlds))
	}
	nightly := worlds[0].Outcomes[0]
	if nightly.Charged == 0 || nightly.Charged != nightly.Calls {
		t.Errorf("nightly: the simulator charged %d credits, the runs counted %d tracking calls", nightly.Charged, nightly.Calls)
	}
	// What a policy costs outside the report's POD horizons is measured:
	// asked every night, a shipment shows its ETA's revisions, and asked
	// less often, fewer of them.
	if nightly.M.Outside.Revisions <= 0 {
		t.Errorf("nightly saw %.2f revisions of the POD ETA per shipment arrived, want some", nightly.M.Outside.Revisions)
	}
	for _, o := range worlds[0].Outcomes {
		if o.Trial.Policy.Name == polAdaptive && o.M.Outside.Revisions > nightly.M.Outside.Revisions {
			t.Errorf("adaptive saw %.2f revisions per shipment, more than nightly's %.2f", o.M.Outside.Revisions, nightly.M.Outside.Revisions)
		}
	}
	for _, o := range worlds[0].Outcomes {
		name := o.Trial.Policy.Name
		switch {
		case o.Charged > nightly.Charged:
			t.Errorf("%s spent %d credits, more than nightly's %d", name, o.Charged, nightly.Charged)
		case o.M.InTransit.Pairs == 0 || o.M.InTransit.Held != o.M.InTransit.Pairs:
			t.Errorf("%s: %d of %d in-transit pairs with an ETA held", name, o.M.InTransit.Held, o.M.InTransit.Pairs)
		case o.M.Arrivals.N == 0 || o.M.Arrivals.Seen == 0:
			t.Errorf("%s: %d of %d arrivals seen", name, o.M.Arrivals.Seen, o.M.Arrivals.N)
		case o.M.Mismatched != 0:
			t.Errorf("%s: %d arrivals the warehouse holds are not the truth's", name, o.M.Mismatched)
		case o.Partial != 0:
			t.Errorf("%s: %d nights not ok", name, o.Partial)
		}
		for _, r := range o.M.Older {
			if r.Known && r.AgeDays < 1 {
				t.Errorf("%s: an ETA a night before the %d-day cut of %s is %.2f days old, want 1 or more", name, r.Horizon, r.Shipment, r.AgeDays)
				break
			}
		}
		if len(o.M.Older) != len(o.M.ETAs) {
			t.Errorf("%s: %d ETAs a night older, %d at the cuts: want one for one", name, len(o.M.Older), len(o.M.ETAs))
		}
		if o.Trial.Policy.Pushes && o.Pushes == 0 {
			t.Errorf("%s: no push landed in 8 nights of 60 shipments", name)
		}
	}
	var out bytes.Buffer
	if err := report(&out, c, worlds, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 7 | nightly |", "| 7 | adaptive |", "| 7 | paced |", "| 7 | webhooks |", "reference", "| nightly, a night older | 7 |",
		"| POSTPOD ETAs usable 1 d | POD ETA revisions seen per shipment |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, out.String())
		}
	}
}

// -guard-below, -guard-above and -guard-every set the adaptive
// policies' horizon guard, as etalake's --refresh-guard does, and the
// report says so; nightly keeps its own policy; a guard the policy
// refuses is refused here.
func TestTheGuardFlagsSetTheAdaptivePolicies(t *testing.T) {
	c, err := parse([]string{"-guard-below", "4", "-guard-above", "3", "-guard-every", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := jobs.Guard{Below: 4, Above: 3, Every: 1}
	for _, p := range c.policies {
		if p.Name != polNightly && p.Refresh.Guard != want {
			t.Errorf("%s: guard %v, want %v", p.Name, p.Refresh.Guard, want)
		}
		if d := p.describe(); (p.Name != polNightly) != strings.Contains(d, "below=4,above=3,every=1") {
			t.Errorf("%s is described as %q", p.Name, d)
		}
	}
	if _, err := parse([]string{"-guard-every", "0"}, io.Discard); err == nil || !strings.Contains(err.Error(), "every=0: want 1 to 60 nights") {
		t.Errorf("-guard-every 0: %v; want refused", err)
	}
}
