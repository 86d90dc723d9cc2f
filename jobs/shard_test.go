package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
)

// Four workers of one key, each with its own warehouse and --shard i/4,
// given the same selection: their plans split every kind of it into four
// parts that add up to the whole, and their runs against one simulator
// together ask each resource exactly once, each recording its shard in
// etl_runs and tracking only its part of the shipments.
func TestFourShardsAskEachResourceOnce(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	w := b.env.Service.World()
	sel := jobs.Selection{Ports: portsOf(t, w, 12), Shipments: visible(t, w, 40)}
	for _, l := range w.Lanes()[:4] {
		sel.Lanes = append(sel.Lanes, jobs.Lane{POL: l.POL, POD: l.POD})
	}
	for _, v := range w.Vessels()[:3] {
		sel.Vessels = append(sel.Vessels, v.IMO)
	}
	const n = 4
	whs := make([]*load.Warehouse, n)
	for i := range whs {
		wh, err := load.Open(context.Background(), loadtest.Fresh(t, nil), load.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wh.Close() })
		whs[i] = wh
	}
	shard := func(i int) jobs.Shard { return jobs.Shard{Index: i + 1, Count: n} }

	var sum jobs.Requests
	for i, wh := range whs {
		b.wh = wh
		p := b.run(t, jobs.RunOptions{Selection: sel, Shard: shard(i), DryRun: true}).Plan
		sp := p.Shard
		if sp.Shard != shard(i) || sp.Ports.Of != 12 || sp.Lanes.Of != 4 || sp.Vessels.Of != 3 || sp.Shipments.Of != 40 {
			t.Fatalf("shard %d's plan: %+v; want the whole selection counted", i+1, sp)
		}
		if p.Ports != sp.Ports.Mine || p.Lanes != sp.Lanes.Mine || p.Vessels != sp.Vessels.Mine || p.Shipments != sp.Shipments.Mine {
			t.Errorf("shard %d plans %+v requests, but says its part is %+v", i+1, p.Requests, sp)
		}
		if sp.Shipments.Mine == 0 || sp.Shipments.Mine == 40 {
			t.Errorf("shard %d has %d of 40 shipments: the hash does not spread them", i+1, sp.Shipments.Mine)
		}
		sum.Ports += p.Ports
		sum.Lanes += p.Lanes
		sum.Vessels += p.Vessels
		sum.Shipments += p.Shipments
	}
	if want := (jobs.Requests{Ports: 12, Lanes: 4, Vessels: 3, Shipments: 40}); sum != want {
		t.Fatalf("the four plans ask %+v in all, want %+v", sum, want)
	}
	if len(b.env.Service.Ledger()) > 4*n { // the balances, free
		t.Fatalf("the dry runs sent %d requests", len(b.env.Service.Ledger()))
	}

	before := len(b.env.Service.Ledger())
	mine := make([]int, n)
	for i, wh := range whs {
		b.wh = wh
		res := b.run(t, jobs.RunOptions{Selection: sel, Shard: shard(i)})
		if res.Run.Status != load.StatusOK {
			t.Fatalf("shard %d: %s (%s)", i+1, res.Run.Status, res.Run.StopReason)
		}
		mine[i] = res.Plan.Shard.Shipments.Mine
	}
	asked := map[string]int{}
	for _, e := range b.env.Service.Ledger()[before:] {
		if e.Charged {
			asked[e.Request]++
		}
	}
	var twice []string
	for req, k := range asked {
		if k > 1 {
			twice = append(twice, fmt.Sprintf("%s ×%d", req, k))
		}
	}
	if len(asked) != 12+4+3+40 || len(twice) > 0 {
		t.Errorf("the four runs asked %d resources (want %d), some more than once: %v", len(asked), 12+4+3+40, twice)
	}
	for i, wh := range whs {
		shardCol := queryString(t, wh, "SELECT coalesce(string_agg(DISTINCT shard, ','), 'null') FROM etl_runs")
		tracked := queryCount(t, wh, "SELECT count(*) FROM tracked_shipments")
		if shardCol != shard(i).String() || tracked != mine[i] {
			t.Errorf("shard %d's warehouse: etl_runs.shard %s, %d shipments tracked; want %s and its %d", i+1, shardCol, tracked, shard(i), mine[i])
		}
	}
}

// queryString is the one string the query q returns.
func queryString(t *testing.T, wh *load.Warehouse, q string) string {
	t.Helper()
	var s string
	if err := wh.DB().QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// A shard is I/N with 1 ≤ I ≤ N ≤ 1024; anything else is refused naming
// what it wants; every resource is exactly one shard's.
func TestShardsAreParsedAndPartition(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "4", "a/b", "1/0", "1/2000", "-1/4"} {
		if _, err := jobs.ParseShard(bad); err == nil || !strings.Contains(err.Error(), "I/N") {
			t.Errorf("shard %q: %v, want a refusal saying I/N", bad, err)
		}
	}
	for _, name := range []string{"port:NLRTM", "p2p:CNSHA-NLRTM", "vessel:9321483", "shipment:CT:MSCU1234566"} {
		for _, count := range []int{1, 2, 3, 7, 16} {
			k := 0
			for i := 1; i <= count; i++ {
				s, err := jobs.ParseShard(fmt.Sprintf("%d/%d", i, count))
				if err != nil {
					t.Fatal(err)
				}
				if s.Has(name) {
					k++
				}
			}
			if k != 1 {
				t.Errorf("%s is %d of %d shards'", name, k, count)
			}
		}
	}
}

// The key's balance is every shard's: a shard's pace allows it its share
// of the night's credits, 1/N of what one worker of the key is allowed.
func TestAShardPacesItsShareOfTheKey(t *testing.T) {
	b := newBench(t, 1000, 1000)
	ships := visible(t, b.env.Service.World(), 10)
	whole := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, DryRun: true}).Plan.Refresh
	half := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, DryRun: true, Shard: jobs.Shard{Index: 1, Count: 2}}).Plan.Refresh
	if !whole.Paced || !half.Paced || whole.Allowance.Credits < 2 || half.Allowance.Credits != whole.Allowance.Credits/2 {
		t.Errorf("allowance: one worker %+v (paced %v), shard 1/2 %+v (paced %v); want half of it", whole.Allowance, whole.Paced, half.Allowance, half.Paced)
	}
}
