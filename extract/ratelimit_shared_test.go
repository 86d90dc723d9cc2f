package extract_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/internal/slowtest"
)

// Limiters sharing a Dir and KeyID share nothing else: these tests give
// each its own *Limiter, as two processes would have.

func sharedLimiters(t *testing.T, n int, r extract.Rate, clock extract.Clock) []*extract.Limiter {
	dir := t.TempDir()
	ls := make([]*extract.Limiter, n)
	for i := range ls {
		ls[i] = newLimiter(t, extract.LimiterConfig{Rate: r, Clock: clock, Dir: dir, KeyID: "shared"})
	}
	return ls
}

func TestLimitersShareFile(t *testing.T) {
	clock := fakeclock.New(epoch)
	ls := sharedLimiters(t, 2, extract.DefaultRate, clock)
	rnd := rand.New(rand.NewPCG(1, 2))
	var grants []time.Time
	perLimiter := make([]int, len(ls))
	for range 300 {
		i := rnd.IntN(len(ls))
		if err := ls[i].Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		perLimiter[i]++
		grants = append(grants, clock.Now())
	}
	assertWithinRate(t, grants, extract.DefaultRate)
	if perLimiter[0] == 0 || perLimiter[1] == 0 {
		t.Fatalf("grants per limiter %v: both should have sent", perLimiter)
	}
}

func TestLimitersShareFileConcurrently(t *testing.T) {
	r := extract.Rate{N: 5, Window: 2 * time.Second}
	ls := sharedLimiters(t, 4, r, fakeclock.New(epoch))
	var log grantLog
	var wg sync.WaitGroup
	for _, l := range ls {
		extract.SetGrantHook(l, log.add)
		for range 8 {
			wg.Go(func() {
				for range 5 {
					if err := l.Wait(t.Context()); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if len(log.grants) != 4*8*5 {
		t.Fatalf("%d grants; want %d", len(log.grants), 4*8*5)
	}
	assertWithinRate(t, log.grants, r)
}

func TestLimitersSharePause(t *testing.T) {
	clock := fakeclock.New(epoch)
	ls := sharedLimiters(t, 2, extract.DefaultRate, clock)
	mustPause(t, ls[0], epoch.Add(time.Minute))
	mustPause(t, ls[1], epoch.Add(30*time.Second)) // cannot shorten the other's pause
	if err := ls[1].Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := clock.Now(), epoch.Add(time.Minute); !got.Equal(want) {
		t.Errorf("granted at %v; want the shared pause's end %v", got, want)
	}
}

// A writer with a shorter window must not forget the send times that a
// writer with a longer one still counts.
func TestLimitersShareFileAcrossWindows(t *testing.T) {
	clock := fakeclock.New(epoch)
	dir := t.TempDir()
	long := extract.Rate{N: 2, Window: 10 * time.Second}
	short := extract.Rate{N: 1, Window: time.Second}
	ll := newLimiter(t, extract.LimiterConfig{Rate: long, Clock: clock, Dir: dir, KeyID: "k"})
	ls := newLimiter(t, extract.LimiterConfig{Rate: short, Clock: clock, Dir: dir, KeyID: "k"})
	for _, l := range []*extract.Limiter{ll, ls, ls, ll} {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	// The short limiter sent at epoch+1×its life and +2×; its window no
	// longer holds the long limiter's first request, but the long window
	// holds all three, so the long limiter waits for the second to expire.
	shortLife := short.Window + extract.DefaultMargin(short)
	if got, want := clock.Now(), epoch.Add(shortLife+long.Window+extract.DefaultMargin(long)); !got.Equal(want) {
		t.Errorf("long-window limiter granted at %v; want %v", got, want)
	}
}

func TestLimiterCorruptState(t *testing.T) {
	r := extract.Rate{N: 3, Window: 10 * time.Second}
	life := r.Window + extract.DefaultMargin(r)
	now := epoch.UnixNano()
	for name, tc := range map[string]struct {
		content string
		mode    os.FileMode
	}{
		"garbage":       {"\x00\x17not json", 0o600},
		"empty":         {"", 0o600},
		"torn":          {fmt.Sprintf(`{"version":1,"sent":[%d,%d`, now-1, now), 0o600},
		"wrong version": {`{"version":99,"sent":[]}`, 0o600},
		"unsorted":      {fmt.Sprintf(`{"version":1,"sent":[%d,%d]}`, now, now-5), 0o600},
		"negative time": {`{"version":1,"sent":[-5]}`, 0o600},
		"oversized":     {`{"version":1}` + strings.Repeat(" ", 1<<20), 0o600},
		"unreadable":    {`{"version":1}`, 0o000},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.mode == 0 && (runtime.GOOS == "windows" || os.Geteuid() == 0) {
				t.Skip("file modes do not stop this user from reading")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "k.json")
			if err := os.WriteFile(path, []byte(tc.content), tc.mode); err != nil {
				t.Fatal(err)
			}
			clock := fakeclock.New(epoch)
			l := newLimiter(t, extract.LimiterConfig{Rate: r, Clock: clock, Dir: dir, KeyID: "k"})
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got, want := clock.Now(), epoch.Add(life); !got.Equal(want) {
				t.Errorf("first grant after a corrupt state at %v; want a full window later, %v", got, want)
			}
			// Recovered: the file is valid again and the window refills normally.
			for range r.N - 1 {
				if err := l.Wait(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := clock.Now(), epoch.Add(life); !got.Equal(want) {
				t.Errorf("window did not refill at once after recovery: now %v, want %v", got, want)
			}
			var st map[string]any
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatalf("state file not rewritten: %v: %q", err, data)
			}
			assertMode(t, path, 0o600)
		})
	}
}

func TestLimiterStateFileHoldsNoKey(t *testing.T) {
	key, err := extract.NewKey("sk-live-9f8e7d6c5b4a")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	clock := fakeclock.New(epoch)
	l := newLimiter(t, extract.LimiterConfig{Rate: extract.DefaultRate, Clock: clock, Dir: dir, KeyID: key.Fingerprint()})
	for range 25 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	mustPause(t, l, clock.Now().Add(time.Minute))
	assertMode(t, dir, os.ModeDir|0o700)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Name(), "9f8e7d6c5b4a") || bytes.Contains(data, []byte("9f8e7d6c5b4a")) {
			t.Errorf("%s holds the key: %q", e.Name(), data)
		}
		assertMode(t, path, 0o600)
	}
	fp := key.Fingerprint()
	if want := []string{fp + ".json", fp + ".lock"}; !slices.Equal(names, want) {
		t.Errorf("files in the state directory: %v; want %v", names, want)
	}
}

// The two-process test: the test binary runs itself twice, concurrently,
// as children that share one state directory on the real clock.
const (
	childDirEnv  = "ETALAKE_TEST_LIMITER_DIR"
	childGateEnv = "ETALAKE_TEST_LIMITER_GATE"
	childWaits   = 15
)

// twoProcessRate is short enough to run in about two seconds. The margin is
// wider than the default so that the time a child reads after Wait, a
// little after the limiter's own stamp, stays within it.
var twoProcessRate = extract.Rate{N: 5, Window: 300 * time.Millisecond}

const twoProcessMargin = 100 * time.Millisecond

func TestLimiterTwoProcesses(t *testing.T) {
	slowtest.Long(t)
	if dir := os.Getenv(childDirEnv); dir != "" {
		runLimiterChild(t, dir)
		return
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("cross-process locking is tested where flock exists")
	}
	dir, gate := t.TempDir(), t.TempDir()
	type child struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
	}
	children := make([]*child, 2)
	for i := range children {
		c := &child{cmd: exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLimiterTwoProcesses$", "-test.count=1")}
		c.cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childGateEnv+"="+gate)
		c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	// Both children start waiting together, however long a loaded
	// machine takes to start them: each says it is ready, then waits for
	// the gate to open (a fixed start a second ahead was missed by a child
	// started late, and the two did not overlap).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		ready, _ := filepath.Glob(filepath.Join(gate, "ready-*"))
		if len(ready) == len(children) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d children ready after a minute", len(ready), len(children))
		}
	}
	if err := os.WriteFile(filepath.Join(gate, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var all []time.Time
	spans := make([][2]time.Time, len(children))
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s%s", i, err, c.stdout.String(), c.stderr.String())
		}
		grants := parseGrants(t, c.stdout.String())
		if len(grants) != childWaits {
			t.Fatalf("child %d printed %d grants; want %d\n%s", i, len(grants), childWaits, c.stdout.String())
		}
		spans[i] = [2]time.Time{grants[0], grants[len(grants)-1]}
		all = append(all, grants...)
	}
	if spans[0][1].Before(spans[1][0]) || spans[1][1].Before(spans[0][0]) {
		t.Fatalf("children did not overlap (%v, %v): nothing was shared", spans[0], spans[1])
	}
	assertWithinRate(t, all, twoProcessRate)
}

func runLimiterChild(t *testing.T, dir string) {
	gate := os.Getenv(childGateEnv)
	l := newLimiter(t, extract.LimiterConfig{Rate: twoProcessRate, Margin: twoProcessMargin, Dir: dir, KeyID: "twoproc"})
	// The times the limiter stamped, under the shared lock: a time read
	// after Wait returns may come late on a loaded machine, and two grants
	// a window apart would look closer than they were.
	var granted time.Time
	extract.SetGrantHook(l, func(at time.Time) { granted = at })
	if err := os.WriteFile(filepath.Join(gate, fmt.Sprintf("ready-%d", os.Getpid())), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(gate, "go")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for range childWaits {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(out, "grant %d\n", granted.UnixNano())
	}
}

func parseGrants(t *testing.T, out string) []time.Time {
	var grants []time.Time
	for line := range strings.Lines(out) {
		ns, ok := strings.CutPrefix(strings.TrimSpace(line), "grant ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("bad child line %q", line)
		}
		grants = append(grants, time.Unix(0, n))
	}
	return grants
}
