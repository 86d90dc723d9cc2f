package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// A tracking answer with every detail of its places and vessels, then a
// later one naming them only (as some vendors answer), derived into one
// load in either order: the places keep their time zones, states, countries and
// coordinates, and the vessels their call signs, MMSIs and flags, exactly
// as when each answer is loaded on its own — the batch does not merge away
// what the loader would keep.
func TestARichAnswerThenAPoorOneInOneLoadKeepEveryDetail(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	world := simtest.World(sim.WorldConfig{})
	at := world.Config().Start.Add(36 * time.Hour)
	ref := world.Shipments()[0]

	strip := func(sh *wire.Shipment) {
		poor := func(l *wire.Location) {
			if l != nil {
				l.State, l.Country, l.CountryCode, l.Coordinates, l.Timezone = nil, "", "", nil, ""
			}
		}
		if r := sh.Route; r != nil {
			for _, p := range []*wire.RoutePoint{r.Prepol, r.Pol, r.Postpod} {
				if p != nil {
					poor(p.Location)
				}
			}
			if r.Pod != nil {
				poor(r.Pod.Location)
			}
		}
		for i := range sh.Containers {
			for j := range sh.Containers[i].Events {
				e := &sh.Containers[i].Events[j]
				poor(e.Location)
				if e.Vessel != nil {
					e.Vessel.CallSign, e.Vessel.MMSI, e.Vessel.Flag = nil, nil, nil
				}
			}
		}
	}

	tables := map[string]map[string][]string{}
	var richID string
	for _, loads := range []string{"one load", "one load, the later answer first", "a load each"} {
		wh, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		defer wh.Close()
		s := newSink(wh, 0, func() time.Time { return at }, slog.New(slog.DiscardHandler))
		rich := landed(t, s, world, ref, at, nil)
		richID = rich.ID
		poor := landed(t, s, world, ref, at.Add(time.Hour), strip)
		order := []*response.Landed{rich, poor}
		if loads == "one load, the later answer first" {
			order = []*response.Landed{poor, rich}
		}
		for _, r := range order {
			if err := s.derive(ctx, r); err != nil {
				t.Fatal(err)
			}
			if loads == "a load each" {
				if err := s.flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.flush(ctx); err != nil {
			t.Fatal(err)
		}
		tables[loads] = map[string][]string{}
		for _, tbl := range []string{"locations", "facilities", "vessels"} {
			rows, err := wh.DB().QueryContext(ctx, fmt.Sprintf(`SELECT CAST(x AS VARCHAR) AS r FROM %s AS x ORDER BY r`, tbl))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var r string
				if err := rows.Scan(&r); err != nil {
					t.Fatal(err)
				}
				tables[loads][tbl] = append(tables[loads][tbl], r)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if loads != "a load each" {
			var places, kept, vessels, keptVessels int
			if err := wh.DB().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (timezone IS NOT NULL AND country IS NOT NULL AND timezone_kept.response_id = ?) FROM locations`, richID).Scan(&places, &kept); err != nil {
				t.Fatal(err)
			}
			if places == 0 || kept != places {
				t.Errorf("%s of both answers: %d of %d places keep the rich answer's time zone and country", loads, kept, places)
			}
			if err := wh.DB().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (flag IS NOT NULL AND flag_kept.response_id = ?) FROM vessels`, richID).Scan(&vessels, &keptVessels); err != nil {
				t.Fatal(err)
			}
			if vessels == 0 || keptVessels != vessels {
				t.Errorf("%s of both answers: %d of %d vessels keep the rich answer's flag", loads, keptVessels, vessels)
			}
		}
	}
	for _, loads := range []string{"one load", "one load, the later answer first"} {
		for tbl, want := range tables["a load each"] {
			if got := tables[loads][tbl]; strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s after %s of both answers:\n%s\nwant, as after a load each:\n%s", tbl, loads, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}
