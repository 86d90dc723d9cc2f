package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// bigFront is a server in front of the simulator that answers every
// request for one shipment with the simulator's answer grown to about
// size bytes by a string member of text (a provider's fault), streamed
// from a block of 1 MiB: under its Content-Length, or chunked. It writes
// a MiB every pace, and records when it started and finished each such
// answer.
type bigFront struct {
	next    http.Handler
	number  string
	size    int
	chunked bool
	pace    time.Duration

	mu                sync.Mutex
	started, finished []time.Time
}

// padBlock is the text a big answer is grown with: letters and digits
// drawn at random, so that the body is not one byte repeated.
var padBlock = func() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}()

func (f *bigFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.size == 0 || r.URL.Query().Get("shipmentNumber") != f.number {
		f.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	head, tail := []byte(`{"debug":"`), append([]byte(`",`), bytes.TrimPrefix(rec.Body.Bytes(), []byte("{"))...)
	pad := max(f.size-len(head)-len(tail), 0)
	w.Header().Set("Content-Type", "application/json")
	if !f.chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+pad+len(tail)))
	}
	f.mu.Lock()
	f.started = append(f.started, time.Now())
	f.mu.Unlock()
	_, _ = w.Write(head)
	for left := pad; left > 0; left -= len(padBlock) {
		if _, err := w.Write(padBlock[:min(left, len(padBlock))]); err != nil {
			return
		}
		if f.pace > 0 {
			w.(http.Flusher).Flush()
			time.Sleep(f.pace)
		}
	}
	_, _ = w.Write(tail)
	w.(http.Flusher).Flush()
	f.mu.Lock()
	f.finished = append(f.finished, time.Now())
	f.mu.Unlock()
}

// times returns when the big answers were started and finished.
func (f *bigFront) times() (started, finished []time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.started...), append([]time.Time(nil), f.finished...)
}

// bigScene is a simulator, the shipments a run asks, and a run of etalake
// through a bigFront.
type bigScene struct {
	env    *simtest.Env
	key    string
	csv    string
	number string // the shipment answered big
}

func newBigScene(t *testing.T, shipments int) *bigScene {
	t.Helper()
	const key = "big-body-key-7c2"
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(10000), Tracking: simtest.Credits(10000)}},
		Rate: sim.Rate{N: 100, Window: time.Second},
	})
	w := env.Service.World()
	csv := shipmentsCSV(t, w, shipments)
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	second := strings.Split(strings.Split(string(b), "\n")[2], ",")[0]
	return &bigScene{env: env, key: key, csv: csv, number: second}
}

// command is a nightly run of the scene's shipments by the etalake binary
// bin through front, into warehouse dir.
func (sc *bigScene) command(t *testing.T, bin string, front *httptest.Server, dir string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--date", "2026-01-05", "--shipments", sc.csv}, extra...)...)
	cmd.Env = append(os.Environ(), "ETALAKE_SCHEDULE_URL="+front.URL+sim.SchedulePrefix, "ETALAKE_TRACKING_URL="+front.URL+sim.TrackingPrefix,
		"ETALAKE_API_KEY="+sc.key, "ETALAKE_RATE=100/1s", "ETALAKE_STATE_DIR="+t.TempDir(), "ETALAKE_WAREHOUSE="+dir)
	return cmd
}

// buildEtalake builds the etalake binary as the README does, without the
// test's flags: the tiers run with -race, which multiplies the memory of
// the process it instruments and slows it down, and what is measured here
// is the binary's own.
func buildEtalake(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "etalake")
	build := exec.Command("go", "build", "-tags", "duckdb_arrow", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// peakRSS is the peak resident set of an exited child (ru_maxrss: its
// VmHWM, etalake starting no process of its own), in bytes.
func peakRSS(t *testing.T, ps *os.ProcessState) int64 {
	t.Helper()
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this system")
	}
	return ru.Maxrss << 10
}

// bigBodyBound is how much more a run with a body far larger than
// --max-body may take at its peak than the same run without: the issue's
// "within 64 MiB of a normal run's".
const bigBodyBound = 64 << 20

// A run whose provider answers one request with a body far larger than
// --max-body (the default, 64 MiB) — 126 MB or 300 MB, with a
// Content-Length or chunked — peaks within 64 MiB of the same run without
// it: the body is streamed to disk and landed from there, never held
// whole. Each case is a real etalake process on a fresh warehouse, its
// peak RSS read from the kernel (ru_maxrss); the body ends in the body
// store and is dead-lettered, the run partial (exit 3). The binary is
// built as the README builds it (the tiers' -race would instrument it).
func TestABodyLargerThanMaxBodyIsNeverHeldWhole(t *testing.T) {
	slowtest.Require(t, "builds etalake, streams answers of 126 and 300 MB through real runs, about a minute")
	bin := buildEtalake(t)
	sc := newBigScene(t, 20)
	cases := []struct {
		name    string
		size    int
		chunked bool
	}{
		{"no big answer (baseline)", 0, false},
		{"126 MB, Content-Length", 126_000_000, false},
		{"300 MB, Content-Length", 300_000_000, false},
		{"300 MB, chunked", 300_000_000, true},
	}
	table := []string{"| run | exit | wall | peak RSS | over the baseline |", "|---|---:|---:|---:|---:|"}
	var base int64
	for _, c := range cases {
		front := httptest.NewServer(&bigFront{next: sc.env.Service, number: sc.number, size: c.size, chunked: c.chunked})
		dir := t.TempDir()
		cmd := sc.command(t, bin, front, dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		front.Close()
		code := cmd.ProcessState.ExitCode()
		rss := peakRSS(t, cmd.ProcessState)
		if c.size == 0 {
			base = rss
		}
		table = append(table, fmt.Sprintf("| %s | %d | %.1f s | %d MiB | %+d MiB |", c.name, code, wall.Seconds(), rss>>20, (rss-base)>>20))
		want := 0
		if c.size > 0 {
			want = 3
		}
		if code != want {
			t.Errorf("%s: exit %d (%v), want %d\n%s", c.name, code, err, want, lastLines(out.Bytes()))
			continue
		}
		if c.size > 0 {
			checkBigBodyLanded(t, dir, int64(c.size))
			if rss-base > bigBodyBound {
				t.Errorf("%s: peak RSS %d MiB, %d MiB over the run without it: want at most %d MiB over", c.name, rss>>20, (rss-base)>>20, bigBodyBound>>20)
			}
		}
	}
	t.Logf("peak RSS of a nightly run of 20 shipments, one answered big, at the default --max-body:\n%s", strings.Join(table, "\n"))
}

// checkBigBodyLanded checks that the warehouse in dir holds the big
// answer (about size bytes) once, in its body store, dead-lettered as
// larger than --max-body, and nothing left in the landing directory.
func checkBigBodyLanded(t *testing.T, dir string, size int64) {
	t.Helper()
	db, err := load.OpenReadOnly(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, dead int
	var file string
	if err := db.QueryRow(`SELECT count(*), any_value(body_file) FROM raw_responses WHERE body IS NULL AND body_bytes >= ?`, size-1000).Scan(&n, &file); err != nil || n != 1 {
		t.Errorf("%d big bodies in raw_responses (%v): want it once, in the body store", n, err)
		return
	}
	if err := db.QueryRow(`SELECT count(*) FROM dead_letters WHERE reason LIKE '%(--max-body)%'`).Scan(&dead); err != nil || dead != 1 {
		t.Errorf("%d dead letters say the body is larger than --max-body (%v), want 1", dead, err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
		t.Errorf("the body store's file: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ".work", "landing")); len(left) != 0 {
		t.Errorf("%d files left in the landing directory", len(left))
	}
}

// bigKillKept is how long after the last byte of a big answer etalake may
// still be getting it on disk — reading its end, flushing its file,
// hashing it for its id, syncing it and its journal record — on a loaded
// machine: an answer finished longer before the kill was etalake's to
// keep, and buying it again is a loss.
const bigKillKept = 2 * time.Second

// A run killed with SIGKILL while an answer larger than --max-body
// streams in, is kept, or is landed — at a random moment from its first
// byte to 4 s after its last — then run again to the end, buys it again
// only if the kill came before it was on disk, never lands it twice nor
// leaves a file of it behind in the landing directory, and ends with
// every file the raw landing names in the body store.
func TestKillsAroundABigBodyRebuyOnlyWhatWasInFlight(t *testing.T) {
	slowtest.Require(t, "kills 12 real runs around a 24 MB answer, about a minute")
	bin := buildEtalake(t) // not slowed down by -race: the kill comes where it is meant to
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(killSeedEnv); v != "" {
		if _, err := fmt.Sscan(v, &seed); err != nil {
			t.Fatalf("%s=%q: %v", killSeedEnv, v, err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	sc := newBigScene(t, 5)
	const trials, size = 12, 24 << 20
	table := []string{"| trial | kill after its first byte | its last byte before the kill | bought | rows of it |", "|---:|---:|---:|---:|---:|"}
	for i := 1; i <= trials; i++ {
		f := &bigFront{next: sc.env.Service, number: sc.number, size: size, pace: 20 * time.Millisecond}
		front := httptest.NewServer(f)
		dir := t.TempDir()
		cmd := sc.command(t, bin, front, dir, "--max-body", "4MiB")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// A third of the kills within the transfer (about 0.7 s), a third
		// within 0.3 s of its last byte (while the body is flushed,
		// hashed and journaled), a third 2 to 4 s after it.
		var after time.Duration
		var from func() []time.Time
		switch i % 3 {
		case 1:
			after, from = time.Duration(rng.Int64N(int64(500*time.Millisecond))), func() []time.Time { s, _ := f.times(); return s }
		case 2:
			after, from = time.Duration(rng.Int64N(int64(300*time.Millisecond))), func() []time.Time { _, e := f.times(); return e }
		default:
			after, from = bigKillKept+time.Duration(rng.Int64N(int64(2*time.Second))), func() []time.Time { _, e := f.times(); return e }
		}
		var mark time.Time
		for mark.IsZero() {
			select {
			case err := <-exited:
				t.Fatalf("trial %d: the run ended before its kill (%v)\n%s", i, err, lastLines(out.Bytes()))
			case <-time.After(2 * time.Millisecond):
			}
			if ts := from(); len(ts) > 0 {
				mark = ts[0]
			}
		}
		time.Sleep(time.Until(mark.Add(after)))
		kill := time.Now()
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		started, finished := f.times()
		since := kill.Sub(started[0]).Round(time.Millisecond).String()
		before := "—"
		kept := false
		if len(finished) > 0 {
			before = kill.Sub(finished[0]).Round(time.Millisecond).String()
			kept = kill.Sub(finished[0]) >= bigKillKept
		}
		rerun := sc.command(t, bin, front, dir, "--max-body", "4MiB")
		b, err := rerun.CombinedOutput()
		if code := rerun.ProcessState.ExitCode(); code != 0 && code != 3 {
			t.Fatalf("trial %d: the re-run exited %d (%v)\n%s", i, code, err, lastLines(b))
		}
		front.Close()
		started, _ = f.times()
		rows := checkAfterKill(t, i, dir)
		table = append(table, fmt.Sprintf("| %d | %s | %s | %d | %d |", i, since, before, len(started), rows))
		if kept && len(started) > 1 {
			t.Errorf("trial %d: the big answer, whole %s before the kill, was bought again", i, before)
		}
		if rows != len(started) && rows != 1 {
			t.Errorf("trial %d: %d rows of the big answer for %d bought", i, rows, len(started))
		}
	}
	t.Logf("kills around a %d MiB answer (%s=%d):\n%s", size>>20, killSeedEnv, seed, strings.Join(table, "\n"))
}

// checkAfterKill checks the warehouse in dir after a killed run and its
// re-run: no key twice in any table, nothing left in the landing
// directory, every body file the raw landing names in the body store and
// of its recorded size, nothing else there. It returns how many rows hold
// a body in the body store.
func checkAfterKill(t *testing.T, trial int, dir string) int {
	t.Helper()
	db, err := load.OpenReadOnly(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT body_file, count(*) FROM raw_responses WHERE body_file IS NOT NULL GROUP BY body_file`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	named, n := map[string]bool{}, 0
	for rows.Next() {
		var file string
		var k int
		if err := rows.Scan(&file, &k); err != nil {
			t.Fatal(err)
		}
		named[filepath.Base(file)] = true
		n += k
	}
	stored, _ := os.ReadDir(filepath.Join(dir, "bodies"))
	for _, e := range stored {
		if e.IsDir() { // bodies/segments: the bodies of rows, not files of the store
			continue
		}
		if !named[e.Name()] {
			t.Errorf("trial %d: %s in the body store, named by no row", trial, e.Name())
		}
		delete(named, e.Name())
	}
	for name := range named {
		t.Errorf("trial %d: raw_responses names %s, not in the body store", trial, name)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ".work", "landing")); len(left) != 0 {
		t.Errorf("trial %d: %d files left in the landing directory", trial, len(left))
	}
	var dups int
	if err := db.QueryRow(`SELECT count(*) FROM (SELECT response_id FROM raw_responses GROUP BY ALL HAVING count(*) > 1)`).Scan(&dups); err != nil || dups != 0 {
		t.Errorf("trial %d: %d responses landed twice (%v)", trial, dups, err)
	}
	return n
}
