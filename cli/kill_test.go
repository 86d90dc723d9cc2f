package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// killTransit is how long after the simulator wrote the last byte of an
// answer etalake may still be getting it on disk: reading it from loopback
// and fsyncing it take a few milliseconds, and the rest is room for a loaded
// machine. An answer written before kill−killTransit was etalake's to keep,
// and buying it again is a loss; one written within the band is reported,
// not blamed.
const killTransit = 50 * time.Millisecond

// The kill comes this long after the start of the run, uniformly.
const killEarliest, killLatest = 300 * time.Millisecond, 15 * time.Second

// killConcurrency trials run at once, each with its own key: a trial mostly
// waits for its key's rate window, so more trials than cores fit.
const killConcurrency = 5

// killShipments and a port make a run of 30 requests with the balances:
// three windows of the service's 10 per 10 s, about 25 s, so that a kill in
// [killEarliest, killLatest] finds the first or the second window's
// answers arriving, landed, or being loaded.
const killShipments = 25

// killTrialsEnv sets how many runs the slow tier kills (default 50).
const killTrialsEnv = "ETALAKE_KILL_TRIALS"

// killSeedEnv repeats the kill moments of an earlier test run (its log
// names the seed); the processes' timing is not repeated.
const killSeedEnv = "ETALAKE_KILL_SEED"

// A nightly run killed with SIGKILL at a random moment, then run again to
// the end, buys again only what it had asked for and not yet received: the
// simulator's ledger says when each answer was written, and no answer
// written before the kill (less killTransit) may be charged twice. Its
// warehouse then equals that of a run never killed.
func TestKillsAtRandomMomentsRebuyOnlyWhatWasInFlight(t *testing.T) {
	slowtest.Require(t, "kills 50 real runs against a simulator answering in 1 s, about 6 minutes")
	killTrials(t, 50, simtest.Options{}, nil)
}

// The same with a provider speaking DCSA Commercial Schedules 1.0 in pages
// of one item, the port chosen for its many terminals: a run killed
// between pages resumes at the page after the last one landed, and buys
// again only what was in flight.
func TestKillsOfAPagedDCSARunRebuyOnlyWhatWasInFlight(t *testing.T) {
	slowtest.Require(t, "kills 20 real runs against a DCSA simulator answering pages in 1 s, about 3 minutes")
	killTrials(t, 20, simtest.Options{ScheduleAPI: string(wire.ScheduleAPIDCSA), PageSize: 1}, []string{"--schedule-api", string(wire.ScheduleAPIDCSA)})
}

// busiestPort is the port with the most terminals in the world at its
// start: its DCSA answer has a page per terminal.
func busiestPort(t *testing.T, w *sim.World) string {
	t.Helper()
	best, most := "", -1
	for _, p := range w.Ports() {
		ps, err := w.PortSchedule(p.Locode, w.Config().Start)
		if err != nil {
			continue
		}
		terminals := map[string]bool{}
		for _, vs := range ps.VesselSchedules {
			if vs.Facility != nil && vs.Facility.SMDGCode != nil {
				terminals[*vs.Facility.SMDGCode] = true
			}
		}
		if len(terminals) > most {
			best, most = p.Locode, len(terminals)
		}
	}
	if best == "" {
		t.Fatal("no port has a schedule")
	}
	return best
}

// killTrials kills trials runs (ETALAKE_KILL_TRIALS overrides) against a
// simulator started with opt plus the trials' keys and a 1 s latency, each
// run with the extra arguments.
func killTrials(t *testing.T, trials int, opt simtest.Options, extra []string) {
	seed := uint64(time.Now().UnixNano())
	for name, dst := range map[string]any{killTrialsEnv: &trials, killSeedEnv: &seed} {
		if v := os.Getenv(name); v != "" {
			if _, err := fmt.Sscan(v, dst); err != nil {
				t.Fatalf("%s=%q: %v", name, v, err)
			}
		}
	}
	t.Logf("%d trials, %s=%d", trials, killSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	ref := &killTrial{key: "kill-reference-5e1", dir: t.TempDir(), state: t.TempDir()}
	keys := []sim.KeySpec{{Key: ref.key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)}}
	runs := make([]*killTrial, trials)
	for i := range runs {
		span := int64(killLatest - killEarliest)
		runs[i] = &killTrial{n: i + 1, key: fmt.Sprintf("kill-trial-%02d-5e1", i+1), dir: t.TempDir(), state: t.TempDir(),
			after: killEarliest + time.Duration(rng.Int64N(span+1))}
		keys = append(keys, sim.KeySpec{Key: runs[i].key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)})
	}
	opt.Keys = keys
	opt.Faults = sim.Faults{LatencyMedian: time.Second, LatencyP99: 3 * time.Second, Seed: int64(seed)}
	env := simtest.Start(t, opt)
	w := env.Service.World()
	port := simtest.Port(t, w, w.Config().Start)
	if opt.ScheduleAPI != "" {
		port = busiestPort(t, w)
	}
	sc := &killScene{env: env, args: append([]string{"run", "--date", "2026-01-05",
		"--shipments", shipmentsCSV(t, w, killShipments), "--ports", port}, extra...)}

	began := time.Now()
	p := pool.New().WithMaxGoroutines(killConcurrency)
	p.Go(func() {
		if out, err := sc.command(t, ref).CombinedOutput(); err != nil {
			ref.err = fmt.Errorf("the run never killed: %v\n%s", err, lastLines(out))
		}
	})
	for _, k := range runs {
		p.Go(func() { k.err = k.play(t, sc) })
	}
	p.Wait()
	t.Logf("%d trials and the run never killed in %s, %d at a time", trials, time.Since(began).Round(time.Second), killConcurrency)
	if ref.err != nil {
		t.Fatal(ref.err)
	}

	ctx := context.Background()
	want, err := warehouseRows(ctx, ref.dir)
	if err != nil {
		t.Fatal(err)
	}
	// Equal warehouses prove nothing if they are empty.
	if n, calls := len(want[schema.Shipments.Name]), len(want[schema.PortCalls.Name]); n != killShipments || calls == 0 {
		t.Fatalf("the run never killed loaded %d shipments and %d port calls, want %d and some", n, calls, killShipments)
	}
	ledger := env.Service.Ledger()
	if opt.PageSize > 0 {
		pages := 0
		for _, e := range ledger {
			if e.Charged && strings.Contains(e.Request, "cursor=") {
				pages++
			}
		}
		t.Logf("port %s: %d pages after a first were bought by the %d keys", port, pages, len(keys))
	}
	var total killVerdict
	table := []string{
		"| trial | kill at | answers received | in flight | charged twice | of them received (must be 0) | of them in the " + killTransit.String() + " band | rows equal |",
		"|---:|---:|---:|---:|---:|---:|---:|---|",
	}
	for _, k := range runs {
		if k.err != nil {
			t.Errorf("trial %d (kill at %s): %v", k.n, k.after.Round(time.Millisecond), k.err)
			table = append(table, fmt.Sprintf("| %d | %s | harness failed | | | | | |", k.n, k.after.Round(time.Millisecond)))
			continue
		}
		v, problems := k.judge(ledger)
		got, err := warehouseRows(ctx, k.dir)
		if err != nil {
			t.Fatal(err)
		}
		diffs := diffRows(want, got)
		v.rowsEqual = len(diffs) == 0
		for _, d := range diffs {
			problems = append(problems, "rows differ from the run never killed: "+d)
		}
		if v.twice > v.inFlight {
			problems = append(problems, fmt.Sprintf("%d requests charged twice, more than the %d in flight at the kill", v.twice, v.inFlight))
		}
		for _, p := range problems {
			t.Errorf("trial %d (kill at %s): %s", k.n, k.after.Round(time.Millisecond), p)
		}
		table = append(table, v.row(strconv.Itoa(k.n), k.after.Round(time.Millisecond).String()))
		total.add(v)
	}
	table = append(table, total.row("total", fmt.Sprintf("%d kills", trials)))
	t.Logf("kill table (seed %d):\n%s", seed, strings.Join(table, "\n"))
}

// killScene is what every trial shares: the simulator and the command.
type killScene struct {
	env  *simtest.Env
	args []string
}

// command is the scene's run for k's key, warehouse and limiter state.
func (sc *killScene) command(t *testing.T, k *killTrial) *exec.Cmd {
	return etalakeProcess(t, []string{"ETALAKE_SCHEDULE_URL=" + sc.env.ScheduleURL, "ETALAKE_TRACKING_URL=" + sc.env.TrackingURL,
		"ETALAKE_API_KEY=" + k.key, "ETALAKE_RATE=" + extract.DefaultRate.String(), "ETALAKE_STATE_DIR=" + k.state,
		"ETALAKE_WAREHOUSE=" + k.dir}, sc.args...)
}

// killTrial is one run killed and run again, or the run never killed.
type killTrial struct {
	n          int
	key        string
	dir, state string        // its warehouse and its limiter's state
	after      time.Duration // the kill, after the start of the run
	kill       time.Time     // just before SIGKILL: the process surely ran until then
	rerun      time.Time     // the start of the re-run: the key's requests before it are the killed run's
	err        error         // the harness failed: the trial says nothing
}

// play starts the run, kills it after k.after, and runs it again to the end.
func (k *killTrial) play(t *testing.T, sc *killScene) error {
	var out bytes.Buffer
	cmd := sc.command(t, k)
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		return fmt.Errorf("the run ended before its kill (%v): make the run longer\n%s", err, lastLines(out.Bytes()))
	case <-time.After(time.Until(start.Add(k.after))):
	}
	k.kill = time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-exited
	k.rerun = time.Now()
	if b, err := sc.command(t, k).CombinedOutput(); err != nil {
		return fmt.Errorf("the re-run: %v\n%s", err, lastLines(b))
	}
	return nil
}

// killVerdict is what a trial measured, a row of the kill table.
type killVerdict struct {
	// received and inFlight count the killed run's charged requests whose
	// answer was written before kill−killTransit, and the others.
	received, inFlight int
	// twice counts requests charged twice; lost, of them, those whose
	// first answer had been received; band those written within
	// killTransit of the kill.
	twice, lost, band int
	rowsEqual         bool
	trials, unequal   int // of a total
}

func (v killVerdict) row(name, kill string) string {
	eq := "yes"
	switch {
	case v.trials > 0:
		eq = fmt.Sprintf("%d of %d", v.trials-v.unequal, v.trials)
	case !v.rowsEqual:
		eq = "no"
	}
	return fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %d | %s |", name, kill, v.received, v.inFlight, v.twice, v.lost, v.band, eq)
}

func (v *killVerdict) add(o killVerdict) {
	v.received += o.received
	v.inFlight += o.inFlight
	v.twice += o.twice
	v.lost += o.lost
	v.band += o.band
	v.trials++
	if !o.rowsEqual {
		v.unequal++
	}
}

// judge reads k's charges from the simulator's ledger.
func (k *killTrial) judge(ledger []sim.LedgerEntry) (v killVerdict, problems []string) {
	id, edge := sim.KeyID(k.key), k.kill.Add(-killTransit)
	first := map[string]sim.LedgerEntry{}
	charges := map[string]int{}
	for _, e := range ledger { // in arrival order
		if e.KeyID != id || !e.Charged {
			continue
		}
		if charges[e.Request] == 0 {
			first[e.Request] = e
		}
		charges[e.Request]++
		switch {
		case !e.At.Before(k.rerun):
		case writtenBefore(e, edge):
			v.received++
		default:
			v.inFlight++
		}
	}
	var requests []string
	for req, n := range charges {
		if n > 1 {
			requests = append(requests, req)
		}
	}
	sort.Strings(requests)
	for _, req := range requests {
		v.twice++
		f := first[req]
		switch {
		case charges[req] > 2:
			problems = append(problems, fmt.Sprintf("%s charged %d times", req, charges[req]))
		case !f.At.Before(k.rerun):
			problems = append(problems, fmt.Sprintf("%s charged twice by the re-run", req))
		case writtenBefore(f, edge):
			v.lost++
			problems = append(problems, fmt.Sprintf("%s charged again: its answer was written %s before the kill", req, k.kill.Sub(f.WrittenAt).Round(time.Millisecond)))
		case writtenBefore(f, k.kill):
			v.band++
		}
	}
	return v, problems
}

// writtenBefore reports whether e's answer had been written whole before t.
func writtenBefore(e sim.LedgerEntry, t time.Time) bool {
	return !e.WrittenAt.IsZero() && e.WrittenAt.Before(t)
}

// What of each table a trial's warehouse must share with the run never
// killed. Every table of schema.Tables is compared, row for row, but for:
var (
	// the tables a kill changes legitimately,
	killSkipped = map[string]string{
		schema.ETLRuns.Name:            "a row per run, and a killed trial ran twice",
		schema.ConsumptionPeriods.Name: "the balances, lower where a trial bought twice",
	}
	// the rows that differ legitimately (raw_responses: the balances, and a
	// 429 one run got and another did not),
	killWhere = map[string]string{
		schema.RawResponses.Name: "endpoint NOT LIKE 'consumption%' AND status IN (200, 404)",
	}
	// and the columns naming a run of ours, our clock, or our attempts.
	killOmitted = map[string][]string{
		// The body is compared by body_sha256; segment is the writer's
		// (readers see none), and where a kill cut the segments differs.
		schema.RawResponses.Name:     {"run_id", "fetched_at", "attempt", "body", "segment"},
		schema.TrackedShipments.Name: {"added_at", "added_by", "removed_at", "added_date"},
	}
)

// warehouseRows reads the compared rows of every table, each row as JSON,
// sorted, read-only.
func warehouseRows(ctx context.Context, dir string) (map[string][]string, error) {
	db, err := load.OpenReadOnly(ctx, dir, load.DefaultOptions())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := map[string][]string{}
	for _, tbl := range schema.Tables {
		if _, skip := killSkipped[tbl.Name]; skip {
			continue
		}
		var cols []string
		for _, c := range tbl.ColumnNames() {
			if !slices.Contains(killOmitted[tbl.Name], c) {
				cols = append(cols, schema.Ident(c))
			}
		}
		where := ""
		if w, ok := killWhere[tbl.Name]; ok {
			where = " WHERE " + w
		}
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT CAST(to_json(r) AS VARCHAR) AS j FROM (SELECT %s FROM %s%s) r ORDER BY j",
			strings.Join(cols, ", "), schema.Ident(tbl.Name), where))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tbl.Name, err)
		}
		for rows.Next() {
			var j string
			if err := rows.Scan(&j); err != nil {
				rows.Close()
				return nil, err
			}
			out[tbl.Name] = append(out[tbl.Name], j)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, fmt.Errorf("%s: %w", tbl.Name, err)
		}
	}
	return out, nil
}

// diffRows describes, per table, the first rows only one side has.
func diffRows(want, got map[string][]string) []string {
	var out []string
	for _, tbl := range schema.Tables {
		missing, extra := multisetMinus(want[tbl.Name], got[tbl.Name]), multisetMinus(got[tbl.Name], want[tbl.Name])
		if len(missing)+len(extra) == 0 {
			continue
		}
		d := fmt.Sprintf("%s: %d rows, want %d; %d missing, %d extra", tbl.Name, len(got[tbl.Name]), len(want[tbl.Name]), len(missing), len(extra))
		for _, r := range missing[:min(3, len(missing))] {
			d += "\n\tmissing " + r
		}
		for _, r := range extra[:min(3, len(extra))] {
			d += "\n\textra   " + r
		}
		out = append(out, d)
	}
	return out
}

// multisetMinus is a without b, counting repeats.
func multisetMinus(a, b []string) []string {
	left := map[string]int{}
	for _, r := range b {
		left[r]++
	}
	var out []string
	for _, r := range a {
		if left[r] > 0 {
			left[r]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// lastLines is the end of a process's output, enough to say why it failed.
func lastLines(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// The judgement of a trial, on a ledger made up: what the killed run
// received and had in flight, and which second charges are losses.
func TestKillJudgeReadsTheLedger(t *testing.T) {
	t0 := time.Date(2026, 1, 5, 2, 15, 0, 0, time.UTC)
	k := &killTrial{key: "judged-key-1", kill: t0.Add(10 * time.Second), rerun: t0.Add(11 * time.Second)}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var ledger []sim.LedgerEntry
	charge := func(id, req string, arrived, written time.Time) {
		ledger = append(ledger, sim.LedgerEntry{Seq: int64(len(ledger) + 1), KeyID: id, Request: req, Charged: true, At: arrived, WrittenAt: written})
	}
	fp := sim.KeyID(k.key)
	charge(fp, "/a", at(1), at(2))                            // received, bought again: a loss
	charge(fp, "/b", at(9), time.Time{})                      // never written: in flight
	charge(fp, "/c", at(9), k.kill.Add(-10*time.Millisecond)) // written within the band
	charge(fp, "/d", at(10.5), time.Time{})                   // on the wire at the kill
	charge(fp, "/f", at(3), at(4))                            // received, kept
	charge(sim.KeyID("another-key"), "/a", at(1), at(2))      // another key's
	free := sim.LedgerEntry{KeyID: fp, Request: "/g", At: at(1)}
	ledger = append(ledger, free)
	for _, req := range []string{"/a", "/b", "/c", "/d", "/e", "/e"} {
		charge(fp, req, at(12), at(13))
	}
	v, problems := k.judge(ledger)
	want := killVerdict{received: 2, inFlight: 3, twice: 5, lost: 1, band: 1}
	if v != want || len(problems) != 2 || !strings.Contains(problems[0], "/a charged again") || !strings.Contains(problems[1], "/e charged twice by the re-run") {
		t.Fatalf("verdict %+v, problems %q; want %+v, /a lost and /e bought twice by the re-run", v, problems, want)
	}

	d := diffRows(map[string][]string{"shipments": {"a", "b", "b"}}, map[string][]string{"shipments": {"a", "b", "c"}})
	if len(d) != 1 || !strings.Contains(d[0], "missing b") || !strings.Contains(d[0], "extra   c") {
		t.Fatalf("diff = %q, want b missing and c extra", d)
	}
}
