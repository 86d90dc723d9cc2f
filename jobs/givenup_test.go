package jobs_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// forever breaks, while on, every answer to the port and the shipment it
// is given, and counts how often each was asked since the last reset.
type forever struct {
	breaker
	port     string
	shipment wire.ShipmentRef
	mu       sync.Mutex
	asked    map[string]int
}

func newForever(port string, shipment wire.ShipmentRef) *forever {
	f := &forever{port: port, shipment: shipment, asked: map[string]int{}}
	f.broken = func(r *http.Request) bool { return f.name(r) != "" }
	return f
}

// name is the broken resource r asks, "" when none.
func (f *forever) name(r *http.Request) string {
	switch {
	case strings.HasSuffix(r.URL.Path, "/"+f.port):
		return "port:" + f.port
	case r.URL.Query().Get("shipmentNumber") == f.shipment.Number:
		return "shipment:" + f.shipment.Number
	}
	return ""
}

// wrap counts the asks of the broken resources, whether on or not, and
// breaks them while on.
func (f *forever) wrap(next http.Handler) http.Handler {
	inner := f.breaker.wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name := f.name(r); name != "" {
			f.mu.Lock()
			f.asked[name]++
			f.mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	})
}

// reset returns how often each broken resource was asked, and starts
// counting again.
func (f *forever) reset() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.asked
	f.asked = map[string]int{}
	return out
}

// published opens what the bench's last job published for readers. The
// caller closes it before the next job: a reader open in the process
// keeps the file it opened (see load.OpenReadOnly).
func published(t *testing.T, b *bench) *sql.DB {
	t.Helper()
	db, err := load.OpenReadOnly(context.Background(), b.dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// givenUpOf reads etl_runs.given_up of run id from the published file,
// and checks the Parquet mirror says the same.
func givenUpOf(t *testing.T, b *bench, id string) []load.GivenUp {
	t.Helper()
	db := published(t, b)
	defer db.Close()
	var text, mirrored *string
	if err := db.QueryRowContext(context.Background(), "SELECT CAST(given_up AS VARCHAR) FROM etl_runs WHERE run_id = ?", id).Scan(&text); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(b.dir, "parquet", "etl_runs", "**", "*.parquet")
	if err := db.QueryRowContext(context.Background(), "SELECT CAST(given_up AS VARCHAR) FROM read_parquet(?, hive_partitioning = true) WHERE run_id = ?", mirror, id).Scan(&mirrored); err != nil {
		t.Fatal(err)
	}
	if (text == nil) != (mirrored == nil) || text != nil && *text != *mirrored {
		t.Fatalf("etl_runs.given_up of %s: %v in the file, %v in the Parquet mirror", id, text, mirrored)
	}
	var out []load.GivenUp
	if text != nil {
		if err := json.Unmarshal([]byte(*text), &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// freshness is the given-up columns of data_freshness as published, by
// resource.
func freshness(t *testing.T, b *bench) map[string]string {
	t.Helper()
	db := published(t, b)
	defer db.Close()
	rows, err := db.Query(`SELECT resource, state || ' ' || strftime(given_up_date, '%Y-%m-%d') || ' ' || failed_jobs || ' ' || reask_command
		FROM data_freshness WHERE given_up_date IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var res, s string
		if err := rows.Scan(&res, &s); err != nil {
			t.Fatal(err)
		}
		out[res] = s
	}
	return out
}

// A port schedule and a tracked shipment whose answers always break in
// transfer: each job of the date asks each at most 3 times although the
// retry policy allows 6 attempts; after --max-reasks (3) jobs they are
// given up, and the summary's command, etl_runs.given_up and
// data_freshness name them; the next job spends nothing on them. Once the
// service recovers, the first job of the date that answers other ports
// and shipments whole asks them again at its end: they land, nothing is
// given up any more, and the published tables equal those of one job
// without faults.
func TestAResourceBrokenForeverIsGivenUpNamedAndAskedAgainOnceTheServiceRecovers(t *testing.T) {
	slowtest.Long(t)
	chaos, clean := newBench(t, 1000, 1000), newBench(t, 1000, 1000)
	chaos.retry = extract.RetryPolicy{MaxAttempts: 6, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	w := chaos.env.Service.World()
	ports, ships := portsOf(t, w, 5), visible(t, w, 7)
	k := newForever(ports[0], ships[0])
	chaos.wrap(t, k.wrap)
	sel := jobs.Selection{Ports: ports[:4], Shipments: ships[:6]}
	day := chaos.env.Service.Clock().Now().Format(time.DateOnly)
	port, ship := "port:"+ports[0], "shipment:"+string(ships[0].Type)+":"+ships[0].Number

	k.on.Store(true)
	var last jobs.RunResult
	for job := 1; job <= 3; job++ {
		last = chaos.run(t, jobs.RunOptions{Selection: sel, ExitCodes: exitCodes})
		asked := k.reset()
		if asked["port:"+ports[0]] != 3 || asked["shipment:"+ships[0].Number] != 3 {
			t.Fatalf("job %d asked the broken port and shipment %v times: want 3 each, whatever the 6 attempts allowed", job, asked)
		}
		if *last.Run.ExitCode != 3 || last.Run.UncertainSchedule != 3 || last.Run.UncertainTracking != 3 {
			t.Fatalf("job %d: exit %d, %d schedule and %d tracking credits possibly charged: want 3, 3 each", job,
				*last.Run.ExitCode, last.Run.UncertainSchedule, last.Run.UncertainTracking)
		}
		if given := len(last.Run.GivenUp); (job < 3) != (given == 0) {
			t.Fatalf("job %d: %d given up", job, given)
		}
	}
	// The third job asked them in vain for the third time: given up, with
	// the command that asks them again, in its result and in etl_runs.
	want := "etalake backfill --date " + day + " --reask " + port + "," + reaskName(ships[0])
	if last.Reask != want || !strings.Contains(last.Run.StopReason, want) {
		t.Fatalf("third job: command %q, stop reason %q: want %q", last.Reask, last.Run.StopReason, want)
	}
	recorded := givenUpOf(t, chaos, last.Run.ID)
	if len(recorded) != 2 || recorded[0].Resource != port || recorded[1].Resource != ship || recorded[0].FailedJobs != 3 || !recorded[0].Asked ||
		!strings.Contains(recorded[0].Why, "bytes") || !strings.HasSuffix(recorded[1].Command, "--reask "+reaskName(ships[0])) {
		t.Fatalf("etl_runs.given_up of the third job: %+v", recorded)
	}
	fresh := freshness(t, chaos)
	if !strings.HasPrefix(fresh[port], "given_up "+day+" 3 etalake backfill") || !strings.HasPrefix(fresh[ship], "active "+day+" 3 etalake backfill") {
		t.Fatalf("data_freshness does not list them given up with the command: %v", fresh)
	}

	// A fourth job of the date, the service still broken: nothing asked,
	// partial, both named as given up and not asked.
	fourth := chaos.run(t, jobs.RunOptions{Selection: sel, ExitCodes: exitCodes})
	if asked := k.reset(); len(asked) != 0 || fourth.Run.Requests != 0 {
		t.Fatalf("fourth job asked %v, %d requests: want nothing", asked, fourth.Run.Requests)
	}
	if *fourth.Run.ExitCode != 3 || fourth.Run.Shortfalls[jobs.ShortNotAskedAgain] != 2 || fourth.Reask != want ||
		len(givenUpOf(t, chaos, fourth.Run.ID)) != 2 || givenUpOf(t, chaos, fourth.Run.ID)[0].Asked {
		t.Fatalf("fourth job: exit %d, shortfalls %v, command %q, given up %+v", *fourth.Run.ExitCode, fourth.Run.Shortfalls, fourth.Reask,
			givenUpOf(t, chaos, fourth.Run.ID))
	}

	// The service recovers. A job of the date with a port and a shipment
	// more: those come whole, so it asks the given-up ones at its end.
	k.on.Store(false)
	more := jobs.Selection{Ports: ports[4:5], Shipments: ships[6:7]}
	fifth := chaos.run(t, jobs.RunOptions{Selection: sel.With(more), ExitCodes: exitCodes})
	if asked := k.reset(); asked["port:"+ports[0]] != 1 || asked["shipment:"+ships[0].Number] != 1 {
		t.Fatalf("fifth job asked the given-up ones %v: want once each", asked)
	}
	if fifth.Run.Status != load.StatusOK || len(fifth.Run.GivenUp) != 0 || strings.Join(fifth.Reopened, ",") != port+","+ship {
		t.Fatalf("fifth job: %s (%s), given up %v, reopened %v: want ok, both asked again", fifth.Run.Status, fifth.Run.StopReason, fifth.Run.GivenUp, fifth.Reopened)
	}
	if fresh := freshness(t, chaos); len(fresh) != 0 {
		t.Fatalf("data_freshness still lists given up: %v", fresh)
	}

	clean.run(t, jobs.RunOptions{Selection: sel.With(more)})
	chaosDB, cleanDB := published(t, chaos), published(t, clean)
	defer chaosDB.Close()
	defer cleanDB.Close()
	got, wantRows := snapshot(t, chaosDB), snapshot(t, cleanDB)
	for table, rows := range wantRows {
		// The broken answers' dead letters, and the balances they cost,
		// are the faults' own trace.
		if table == "dead_letters" || table == "consumption_periods" {
			continue
		}
		if strings.Join(got[table], "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s after the recovery differs from a run without faults (%d rows, want %d)", table, len(got[table]), len(rows))
		}
	}
}

// reaskName is a shipment's name as --reask takes it.
func reaskName(ref wire.ShipmentRef) string {
	name := "shipment:" + string(ref.Type) + ":" + ref.Number
	if ref.Sealine != "" {
		name += ":" + ref.Sealine
	}
	return name
}

// A resource given up for a date is asked again by the next job of that
// date once a later job — here the nightly job of the next day — has had
// whole answers of its product; until then, --reask asks it at once.
func TestAGivenUpResourceIsAskedAgainAfterALaterJobAnsweredItsProductWell(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	b.retry = extract.RetryPolicy{MaxAttempts: 6, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	w := b.env.Service.World()
	ports := portsOf(t, w, 3)
	k := newForever(ports[0], wire.ShipmentRef{Number: "none"})
	b.wrap(t, k.wrap)
	sel := jobs.Selection{Ports: ports}
	day := b.env.Service.Clock().Now()
	backfill := func(opt jobs.RunOptions) jobs.RunResult {
		opt.Job, opt.LogicalDate, opt.MaxReasks, opt.ExitCodes = "backfill", day, 2, exitCodes
		return b.run(t, opt)
	}
	k.on.Store(true)
	backfill(jobs.RunOptions{Selection: sel})
	second := backfill(jobs.RunOptions{Selection: sel})
	if len(second.Run.GivenUp) != 1 {
		t.Fatalf("given up after 2 jobs: %v", second.Run.GivenUp)
	}
	k.reset()

	// --reask asks it at once, given up or not: in vain here, 3 asks more.
	one, err := jobs.ParseResource(strings.TrimPrefix(second.Reask[strings.Index(second.Reask, "--reask "):], "--reask "))
	if err != nil {
		t.Fatal(err)
	}
	forced := backfill(jobs.RunOptions{Reask: one})
	if asked := k.reset(); asked["port:"+ports[0]] != 3 || forced.Plan.Reopened != 1 || forced.Run.GivenUp[0].FailedJobs != 3 {
		t.Fatalf("--reask: asked %v, reopened %d, given up %+v: want asked, in vain, given up after 3 jobs", asked, forced.Plan.Reopened, forced.Run.GivenUp)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM etl_runs WHERE run_id = '"+forced.Run.ID+"' AND json_extract_string(args, '$.reask[0]') = 'port:"+ports[0]+"'"); n != 1 {
		t.Errorf("etl_runs.args of the --reask job does not name what it was told to ask again")
	}

	// The service recovers; the nightly job of the next day answers the
	// ports whole. The next job of the first date asks the given-up port
	// again, first thing, and it lands.
	k.on.Store(false)
	b.env.Service.Clock().Advance(24 * time.Hour)
	if next := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel}); next.Run.Status != load.StatusOK {
		t.Fatalf("the next day's job: %s", next.Run.Status)
	}
	b.env.Service.Clock().Advance(time.Minute) // an answer of its own, not the next day's again
	again := backfill(jobs.RunOptions{Selection: sel})
	if again.Plan.Reopened != 1 || len(again.Plan.GivenUp) != 0 || again.Run.Status != load.StatusOK || len(again.Run.GivenUp) != 0 {
		t.Fatalf("the first date again: reopened %d, held %v, %s, given up %v: want it asked and answered", again.Plan.Reopened,
			again.Plan.GivenUp, again.Run.Status, again.Run.GivenUp)
	}
	if fresh := freshness(t, b); len(fresh) != 0 {
		t.Fatalf("still given up in data_freshness: %v", fresh)
	}
}
