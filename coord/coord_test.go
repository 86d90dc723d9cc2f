package coord_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/childproc"
	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// The environment of a child process of these tests.
const (
	envChildDB  = "ETALAKE_COORD_CHILD_DB"
	envChildSim = "ETALAKE_COORD_CHILD_SIM"
)

const childRequests = 15

// TestWindowChild is one process of TestProcessesShareOneWindow: it asks
// the simulator childRequests times through the shared window. Alone it
// skips.
func TestWindowChild(t *testing.T) {
	db, simURL := os.Getenv(envChildDB), os.Getenv(envChildSim)
	if db == "" || simURL == "" {
		t.Skip("runs as a child of TestProcessesShareOneWindow")
	}
	client := sharedClient(t, open(t, db), simURL, extract.Unlimited)
	for range childRequests {
		if _, err := simtest.Drain(client.CurrentPeriod(t.Context(), wire.ProductSchedule)); err != nil {
			t.Fatal(err)
		}
	}
}

// Four processes of one key, each with its own connection to the
// coordinator, stay together within the key's limit as the server counts
// it: at most 10 requests in any second by the simulator's stamps, and no
// 429.
func TestProcessesShareOneWindow(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Rate: sim.Rate{N: testRate.N, Window: testRate.Window},
		Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	open(t, pg.URL) // the tables, before the children race to them
	const processes = 4
	childproc.RunTest(t, processes, "TestWindowChild", envChildDB+"="+pg.URL, envChildSim+"="+env.Server.URL)
	st := env.Service.Stats()
	ledger := env.Service.Ledger()
	slices.SortFunc(ledger, func(a, b sim.LedgerEntry) int { return a.At.Compare(b.At) })
	if st.Requests != processes*childRequests || st.RateLimited != 0 {
		for i, e := range ledger {
			if e.Status == 429 {
				var gaps []string
				for _, p := range ledger[max(0, i-11):i] {
					gaps = append(gaps, fmt.Sprintf("%d:%v", p.Status, e.At.Sub(p.At).Round(time.Millisecond)))
				}
				t.Logf("a 429; the requests before it arrived this long before: %v", gaps)
			}
		}
		t.Fatalf("the server saw %d requests, %d of them 429; want %d and none", st.Requests, st.RateLimited, processes*childRequests)
	}
	if peak := peakInWindow(ledger, testRate.Window); peak > testRate.N {
		t.Errorf("%d requests arrived within one %v; the key's limit is %d", peak, testRate.Window, testRate.N)
	}
	// The limit is also used: 60 requests at 10 a second take about 5 s
	// (the first 10 at once), not one process's 15 after another's.
	span := ledger[len(ledger)-1].At.Sub(ledger[0].At)
	if span < 5*testRate.Window-time.Second/2 {
		t.Errorf("60 requests within %v: faster than the limit allows", span)
	}
	t.Logf("%d requests in %v, at most %d in any %v", len(ledger), span, peakInWindow(ledger, testRate.Window), testRate.Window)
}

// capEach is the cap of each process of TestProcessesShareOneCap.
const capEach = 7

// TestCapChild is one process of TestProcessesShareOneCap: it buys port
// schedules until its cap stops it. Alone it skips.
func TestCapChild(t *testing.T) {
	db, simURL := os.Getenv(envChildDB), os.Getenv(envChildSim)
	if db == "" || simURL == "" {
		t.Skip("runs as a child of TestProcessesShareOneCap")
	}
	client := sharedClient(t, open(t, db), simURL, capEach)
	for {
		_, err := simtest.Drain(client.PortSchedule(t.Context(), "NLRTM"))
		if errors.Is(err, extract.ErrBudgetSpent) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes of one key, each with a cap of 7 credits, never spend
// past 7 together: the cap is the key's, not each process's.
func TestProcessesShareOneCap(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Rate: sim.Rate{N: 1000, Window: time.Second},
		Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	open(t, pg.URL)
	childproc.RunTest(t, 2, "TestCapChild", envChildDB+"="+pg.URL, envChildSim+"="+env.Server.URL)
	if got := env.Service.Stats().Charged[string(wire.ProductSchedule)]; got != capEach {
		t.Errorf("the server charged the two processes %d credits; want the key's cap, %d", got, capEach)
	}
}

// TestHolderChild is the holder TestAKilledHoldersCreditsAreCountedAtOnce
// kills: it reserves a credit, says so, and waits to be killed. Alone it
// skips.
func TestHolderChild(t *testing.T) {
	db := os.Getenv(envChildDB)
	if db == "" {
		t.Skip("runs as a child of TestAKilledHoldersCreditsAreCountedAtOnce")
	}
	c := open(t, db)
	ledger, err := c.Ledger("holder", wire.ProductTracking)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Reserve(t.Context(), "p", 3); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("reserved\n")
	time.Sleep(time.Minute)
}

// A holder killed with SIGKILL in the middle of a request does not hold
// its credit for its lease (15 minutes): its lock went with its process,
// and the next process of the key counts the credit uncertain at once —
// it may have been charged — and takes the rest of the cap.
func TestAKilledHoldersCreditsAreCountedAtOnce(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	c := open(t, pg.URL)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHolderChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envChildDB+"="+pg.URL)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && !strings.Contains(lines.Text(), "reserved") {
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ledger, err := c.Ledger("holder", wire.ProductTracking)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for range 2 {
		id, err := ledger.Reserve(ctx, "p", 3)
		if err != nil {
			t.Fatalf("the credits the dead holder did not hold: %v", err)
		}
		if err := ledger.Settle(t.Context(), id, extract.SettleCommit); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ledger.Reserve(ctx, "p", 3); !errors.Is(err, extract.ErrBudgetSpent) {
		t.Errorf("a third credit under a cap of 3, the dead holder's counted: %v; want ErrBudgetSpent at once", err)
	}
}

// A holder that lives and keeps its credits (hung mid-request) keeps them
// for its lease; another process of the key that needs them says it
// waits, for whom and until when, and gives up after Config.Wait with
// ErrBudgetSpent (the job ends partial), not polling silently until the
// lease ends.
func TestAJobWaitingOnOthersLeasesSaysSoAndGivesUp(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	hung := open(t, pg.URL)
	held, err := hung.Ledger("hung", wire.ProductSchedule)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := held.Reserve(t.Context(), "p", 2); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	c, err := coord.Open(t.Context(), coord.Config{URL: pg.URL, Wait: time.Second, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ledger, err := c.Ledger("hung", wire.ProductSchedule)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ledger.Reserve(t.Context(), "p", 2)
	if !errors.Is(err, extract.ErrBudgetSpent) || !strings.Contains(err.Error(), "2 leased by other workers until") {
		t.Errorf("waiting on a hung holder's credits: %v; want ErrBudgetSpent naming the credits leased by other workers", err)
	}
	if s := log.String(); !strings.Contains(s, "waiting for credits leased by other workers") || !strings.Contains(s, "leases_until=") ||
		!strings.Contains(s, "gives_up_after=1s") {
		t.Errorf("the log does not say the job waits for others' leases, until when and for how long:\n%s", s)
	}
}

// A coordinator stopped mid-run stops the process's requests: the next
// one fails with ErrCoordinatorLost, and the server sees nothing more.
func TestCoordinatorLostStopsRequests(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Rate: sim.Rate{N: 1000, Window: time.Second},
		Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	client := sharedClient(t, open(t, pg.URL), env.Server.URL, 50)
	for range 3 {
		if _, err := simtest.Drain(client.PortSchedule(t.Context(), "NLRTM")); err != nil {
			t.Fatal(err)
		}
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, call := range []extract.Responses{client.PortSchedule(t.Context(), "NLRTM"), client.CurrentPeriod(t.Context(), wire.ProductSchedule)} {
		if _, err := simtest.Drain(call); !errors.Is(err, extract.ErrCoordinatorLost) {
			t.Errorf("a call with the coordinator stopped: %v; want ErrCoordinatorLost", err)
		}
	}
	if n := env.Service.Stats().Requests; n != 3 {
		t.Errorf("the server saw %d requests; want the 3 before the coordinator stopped", n)
	}
}

// The key reaches the coordinator only as its id.
func TestCoordinatorHoldsNoKey(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	c := open(t, pg.URL)
	client := sharedClient(t, c, env.Server.URL, 5)
	if _, err := simtest.Drain(client.PortSchedule(t.Context(), "NLRTM")); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pg_dump", "--data-only", pg.URL).CombinedOutput()
	if err != nil {
		t.Skipf("pg_dump: %v: %s", err, out)
	}
	k, _ := extract.NewKey(testKey)
	if strings.Contains(string(out), testKey) || !strings.Contains(string(out), k.Fingerprint()) {
		t.Errorf("the coordinator's tables hold the key, or not its id:\n%s", out)
	}
}

// A database user that may only read and write the coordinator's tables,
// once they exist, is enough: the tables are not created again.
func TestAUserThatOnlyReadsAndWritesIsEnough(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	open(t, pg.URL) // the tables, created by their owner
	grant := []string{
		"CREATE ROLE worker LOGIN",
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO worker",
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO worker",
	}
	for _, q := range grant {
		if out, err := exec.Command("psql", pg.URL, "-v", "ON_ERROR_STOP=1", "-c", q).CombinedOutput(); err != nil {
			t.Skipf("psql: %v: %s", err, out)
		}
	}
	c := open(t, strings.Replace(pg.URL, "etalake@", "worker@", 1))
	w, err := c.Window("worker-key")
	if err != nil {
		t.Fatal(err)
	}
	if wait, _, err := w.Admit(t.Context(), 10, time.Second); err != nil || wait != 0 {
		t.Fatalf("a grant as a user that only reads and writes: wait %v, %v", wait, err)
	}
	l, err := c.Ledger("worker-key", wire.ProductTracking)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.Reserve(t.Context(), "", 5)
	if err == nil {
		err = l.Settle(t.Context(), id, extract.SettleCommit)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Requests waiting for the key's window hold no credit in the ledger: a
// credit is taken there only once its request's slot is granted, so that
// a process killed, hung or cut from the database while its requests
// queue leaves nothing taken for the other processes of the key.
func TestCreditsWaitingForTheWindowAreNotTaken(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	c := open(t, pg.URL)
	k, _ := extract.NewKey(testKey)
	win, _ := c.Window(k.Fingerprint())
	ledger, _ := c.Ledger(k.Fingerprint(), wire.ProductSchedule)
	// One request a minute: the first goes, the others queue.
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: 1, Window: time.Minute}, Shared: win})
	if err != nil {
		t.Fatal(err)
	}
	client, err := extract.NewClient(extract.Config{ScheduleURL: env.Server.URL + sim.SchedulePrefix, Key: k, Limiter: lim,
		ScheduleBudget: extract.NewSharedBudget(wire.ProductSchedule, 10, ledger)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 5)
	for range 5 {
		go func() {
			_, err := simtest.Drain(client.PortSchedule(ctx, "NLRTM"))
			done <- err
		}()
	}
	first := <-done
	if first != nil {
		t.Fatal(first)
	}
	time.Sleep(200 * time.Millisecond) // the four others asked for their slot by now
	conn, err := pgx.Connect(t.Context(), pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var taken int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM etalake_credit_reservations").Scan(&taken); err != nil {
		t.Fatal(err)
	}
	cancel()
	for range 4 {
		<-done
	}
	if taken != 0 {
		t.Errorf("%d credits taken in the ledger by requests waiting for the window; want none", taken)
	}
}

// A request the server counts well after the client wrote it — the
// server's process held back on a loaded machine, longer than the
// limiter's margin — does not let the window's next request in early: a
// grant is counted from when its answer began to arrive, by which time
// the server had counted the request, not only from when it was written.
//
// "Requests per key: 10 requests per 10 seconds (sliding window)"
// (service.md §5): the simulator counts a request when its handler runs.
func TestAServerCountingLateStillSeesTheWindowKept(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	const rate = 2
	env := simtest.Start(t, simtest.Options{Rate: sim.Rate{N: rate, Window: time.Second},
		Keys: []sim.KeySpec{{Key: testKey, Schedule: simtest.Credits(100)}}})
	var mu sync.Mutex
	n := 0
	// The first request of every other window is counted 300 ms after it
	// arrived, six times the margin; the others at once.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		late := n%(2*rate) == 1
		mu.Unlock()
		if late {
			time.Sleep(300 * time.Millisecond)
		}
		env.Service.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := open(t, pg.URL)
	k, _ := extract.NewKey(testKey)
	win, _ := c.Window(k.Fingerprint())
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: rate, Window: time.Second}, Margin: 50 * time.Millisecond, Shared: win})
	if err != nil {
		t.Fatal(err)
	}
	client, err := extract.NewClient(extract.Config{ScheduleURL: srv.URL + sim.SchedulePrefix, Key: k, Limiter: lim,
		Retry: extract.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for range 3 {
				_, _ = simtest.Drain(client.CurrentPeriod(t.Context(), wire.ProductSchedule))
			}
		})
	}
	wg.Wait()
	if st := env.Service.Stats(); st.RateLimited > 0 {
		t.Errorf("the server refused %d of %d requests with 429; want none", st.RateLimited, st.Requests)
	}
}
