package extract_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
)

var epoch = time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)

func TestParseRate(t *testing.T) {
	good := []struct {
		in   string
		want extract.Rate
	}{
		{"10/10s", extract.Rate{N: 10, Window: 10 * time.Second}},
		{"600/1m", extract.Rate{N: 600, Window: time.Minute}},
		{"5/500ms", extract.Rate{N: 5, Window: 500 * time.Millisecond}},
		{"100/1h", extract.Rate{N: 100, Window: time.Hour}},
		{"  7 / 1m30s ", extract.Rate{N: 7, Window: 90 * time.Second}},
		{"1/24h", extract.Rate{N: 1, Window: 24 * time.Hour}},
		{"10000/1ns", extract.Rate{N: 10000, Window: 1}},
	}
	for _, tc := range good {
		got, err := extract.ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"10", `invalid rate "10": want N/DURATION such as 10/10s`},
		{"", `invalid rate "": want N/DURATION such as 10/10s`},
		{"x/10s", `invalid rate "x/10s": want N/DURATION such as 10/10s, N a whole number`},
		{"/10s", `invalid rate "/10s": want N/DURATION such as 10/10s, N a whole number`},
		{"1.5/10s", `invalid rate "1.5/10s": want N/DURATION such as 10/10s, N a whole number`},
		{"10/10", `invalid rate "10/10": want N/DURATION such as 10/10s, DURATION with a unit (ms, s, m, h)`},
		{"10/", `invalid rate "10/": want N/DURATION such as 10/10s, DURATION with a unit (ms, s, m, h)`},
		{"10/10s/2", `invalid rate "10/10s/2": want N/DURATION such as 10/10s, DURATION with a unit (ms, s, m, h)`},
		{"0/10s", `invalid rate "0/10s": want N/DURATION with N from 1 to 10000, such as 10/10s`},
		{"-3/10s", `invalid rate "-3/10s": want N/DURATION with N from 1 to 10000, such as 10/10s`},
		{"10001/10s", `invalid rate "10001/10s": want N/DURATION with N from 1 to 10000, such as 10/10s`},
		{"10/0s", `invalid rate "10/0s": want N/DURATION with a window longer than 0 and at most 24h, such as 10/10s`},
		{"10/-1s", `invalid rate "10/-1s": want N/DURATION with a window longer than 0 and at most 24h, such as 10/10s`},
		{"10/25h", `invalid rate "10/25h": want N/DURATION with a window longer than 0 and at most 24h, such as 10/10s`},
	}
	for _, tc := range bad {
		_, err := extract.ParseRate(tc.in)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("ParseRate(%q) error = %v; want %s", tc.in, err, tc.msg)
		}
		if !errors.Is(err, extract.ErrInvalidInput) {
			t.Errorf("ParseRate(%q) error does not match ErrInvalidInput", tc.in)
		}
	}
}

func TestRateString(t *testing.T) {
	cases := []struct {
		r    extract.Rate
		want string
	}{
		{extract.DefaultRate, "10/10s"},
		{extract.Rate{N: 600, Window: time.Minute}, "600/1m"},
		{extract.Rate{N: 5, Window: 500 * time.Millisecond}, "5/500ms"},
		{extract.Rate{N: 100, Window: time.Hour}, "100/1h"},
		{extract.Rate{N: 3, Window: 90 * time.Second}, "3/90s"},
		{extract.Rate{N: 1, Window: 1500 * time.Microsecond}, "1/1500us"},
		{extract.Rate{N: 1, Window: 7}, "1/7ns"},
	}
	for _, tc := range cases {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%#v.String() = %q; want %q", tc.r, got, tc.want)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10/10s", "600/1m", "5/500ms", "100/1h", " 7 / 1m30s ", "10", "0/1s", "1/1.5us", "+3/2h", "1/-0s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := extract.ParseRate(s)
		if err != nil {
			return
		}
		again, err := extract.ParseRate(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseRate(%q) = %v, but ParseRate(%q) = %v, %v", s, r, r.String(), again, err)
		}
	})
}

func TestDefaultMargin(t *testing.T) {
	cases := []struct{ window, want time.Duration }{
		{10 * time.Second, 100 * time.Millisecond},
		{time.Minute, 600 * time.Millisecond},
		{time.Second, 50 * time.Millisecond},
		{500 * time.Millisecond, 50 * time.Millisecond},
		{300 * time.Millisecond, 30 * time.Millisecond},
		{time.Hour, 36 * time.Second},
	}
	for _, tc := range cases {
		if got := extract.DefaultMargin(extract.Rate{N: 10, Window: tc.window}); got != tc.want {
			t.Errorf("DefaultMargin(window %v) = %v; want %v", tc.window, got, tc.want)
		}
	}
}

func TestDefaultStateDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := extract.DefaultStateDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "etalake", "ratelimit"); dir != want {
		t.Errorf("DefaultStateDir() = %q; want %q", dir, want)
	}
	assertMode(t, dir, os.ModeDir|0o700)

	if runtime.GOOS != "linux" {
		return
	}
	cache := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "relative/is/ignored")
	t.Setenv("XDG_CACHE_HOME", cache)
	dir, err = extract.DefaultStateDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "etalake", "ratelimit"); dir != want {
		t.Errorf("DefaultStateDir() without XDG_STATE_HOME = %q; want %q", dir, want)
	}
}

func TestNewLimiterRejects(t *testing.T) {
	dir := t.TempDir()
	for name, cfg := range map[string]extract.LimiterConfig{
		"zero rate":       {},
		"negative margin": {Rate: extract.DefaultRate, Margin: -time.Second},
		"dir without key": {Rate: extract.DefaultRate, Dir: dir},
		"key with path":   {Rate: extract.DefaultRate, Dir: dir, KeyID: "../escape"},
		"key with dot":    {Rate: extract.DefaultRate, Dir: dir, KeyID: "a.b"},
	} {
		if l, err := extract.NewLimiter(cfg); err == nil {
			l.Close()
			t.Errorf("%s: NewLimiter(%+v) succeeded", name, cfg)
		}
	}
}

// backend is a way to run a limiter: process-local or through a state file.
type backend struct {
	name string
	new  func(t testing.TB, r extract.Rate, clock extract.Clock) *extract.Limiter
}

var backends = []backend{
	{"process", func(t testing.TB, r extract.Rate, clock extract.Clock) *extract.Limiter {
		return newLimiter(t, extract.LimiterConfig{Rate: r, Clock: clock})
	}},
	{"file", func(t testing.TB, r extract.Rate, clock extract.Clock) *extract.Limiter {
		return newLimiter(t, extract.LimiterConfig{Rate: r, Clock: clock, Dir: t.TempDir(), KeyID: "0123abcd"})
	}},
}

func newLimiter(t testing.TB, cfg extract.LimiterConfig) *extract.Limiter {
	t.Helper()
	l, err := extract.NewLimiter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// assertWithinRate fails when any closed interval of length r.Window holds
// more than r.N of the grants.
func assertWithinRate(t *testing.T, grants []time.Time, r extract.Rate) {
	t.Helper()
	g := slices.Clone(grants)
	slices.SortFunc(g, time.Time.Compare)
	for i := 0; i+r.N < len(g); i++ {
		if d := g[i+r.N].Sub(g[i]); d <= r.Window {
			t.Fatalf("grants %d to %d (%d requests) within %v, more than %v allows", i, i+r.N, r.N+1, d, r)
		}
	}
}

func TestLimiterKeepsRate(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			clock := fakeclock.New(epoch)
			l := b.new(t, extract.DefaultRate, clock)
			var grants []time.Time
			for range 1000 {
				if err := l.Wait(t.Context()); err != nil {
					t.Fatal(err)
				}
				grants = append(grants, clock.Now())
			}
			assertWithinRate(t, grants, extract.DefaultRate)
			elapsed := grants[len(grants)-1].Sub(grants[0])
			perWindow := float64(len(grants)) / (float64(elapsed) / float64(extract.DefaultRate.Window))
			if perWindow < 0.97*float64(extract.DefaultRate.N) {
				t.Errorf("%.2f requests per window; want at least 97%% of %d", perWindow, extract.DefaultRate.N)
			}
			// The waits are exact: one sleep per full window, to the nanosecond.
			life := extract.DefaultRate.Window + extract.DefaultMargin(extract.DefaultRate)
			if want := 99 * life; clock.Slept() != want {
				t.Errorf("slept %v; want %v", clock.Slept(), want)
			}
		})
	}
}

func TestLimiterPause(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			clock := fakeclock.New(epoch)
			l := b.new(t, extract.DefaultRate, clock)
			ctx := t.Context()
			if err := l.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			mustPause(t, l, epoch.Add(30*time.Second))
			mustPause(t, l, epoch.Add(5*time.Second)) // earlier: ignored
			mustPause(t, l, time.Time{})
			if err := l.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := clock.Now(), epoch.Add(30*time.Second); !got.Equal(want) {
				t.Errorf("granted at %v after Pause; want %v", got, want)
			}
			mustPause(t, l, epoch.Add(time.Minute))
			mustPause(t, l, epoch.Add(2*time.Minute)) // later: extends
			mustPause(t, l, epoch.Add(90*time.Second))
			if err := l.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := clock.Now(), epoch.Add(2*time.Minute); !got.Equal(want) {
				t.Errorf("granted at %v after extended Pause; want %v", got, want)
			}
		})
	}
}

func mustPause(t *testing.T, l *extract.Limiter, until time.Time) {
	t.Helper()
	if err := l.Pause(until); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterWindowFreesAt(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			clock := fakeclock.New(epoch)
			r := extract.Rate{N: 3, Window: 10 * time.Second}
			life := r.Window + extract.DefaultMargin(r)
			l := b.new(t, r, clock)
			if got, want := l.WindowFreesAt(), epoch.Add(life); !got.Equal(want) {
				t.Errorf("WindowFreesAt() of an empty window = %v; want now+Window+Margin %v", got, want)
			}
			for range 2 {
				if err := l.Wait(t.Context()); err != nil {
					t.Fatal(err)
				}
				clock.Advance(4 * time.Second)
			}
			if got, want := l.WindowFreesAt(), epoch.Add(life); !got.Equal(want) {
				t.Errorf("WindowFreesAt() = %v; want %v", got, want)
			}
			clock.Advance(life - 6*time.Second) // now epoch+2s+life: only the second is in the window
			if got, want := l.WindowFreesAt(), epoch.Add(4*time.Second+life); !got.Equal(want) {
				t.Errorf("WindowFreesAt() after the first expired = %v; want %v", got, want)
			}
		})
	}
}

func TestLimiterWaitCanceled(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name+"/fake", func(t *testing.T) {
			clock := fakeclock.New(epoch)
			l := b.new(t, extract.Rate{N: 1, Window: 10 * time.Second}, clock)
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Wait with a canceled context = %v; want context.Canceled", err)
			}
			// The canceled Wait took no slot: the next one waits for the first only.
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got, want := clock.Now(), epoch.Add(10*time.Second+extract.DefaultMargin(extract.Rate{N: 1, Window: 10 * time.Second})); !got.Equal(want) {
				t.Errorf("granted at %v; want %v", got, want)
			}
		})
		t.Run(b.name+"/system", func(t *testing.T) {
			l := b.new(t, extract.Rate{N: 1, Window: time.Hour}, extract.SystemClock{})
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			for _, stop := range []struct {
				name string
				ctx  func() (context.Context, context.CancelFunc)
				want error
			}{
				{"cancel", func() (context.Context, context.CancelFunc) {
					ctx, cancel := context.WithCancel(t.Context())
					time.AfterFunc(20*time.Millisecond, cancel)
					return ctx, cancel
				}, context.Canceled},
				{"deadline", func() (context.Context, context.CancelFunc) {
					return context.WithTimeout(t.Context(), 20*time.Millisecond)
				}, context.DeadlineExceeded},
			} {
				ctx, cancel := stop.ctx()
				done := make(chan error, 1)
				go func() { done <- l.Wait(ctx) }()
				select {
				case err := <-done:
					if !errors.Is(err, stop.want) {
						t.Errorf("%s: Wait = %v; want %v", stop.name, err, stop.want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: Wait still blocked after its context ended", stop.name)
				}
				cancel()
			}
		})
	}
}

func TestLimiterClosed(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, extract.DefaultRate, fakeclock.New(epoch))
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
			if err := l.Wait(t.Context()); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Wait after Close = %v; want os.ErrClosed", err)
			}
			if err := l.Pause(epoch.Add(time.Minute)); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Pause after Close = %v; want os.ErrClosed", err)
			}
		})
	}
}

// grantLog collects the times a limiter recorded, from many goroutines.
type grantLog struct {
	mu     sync.Mutex
	grants []time.Time
}

func (g *grantLog) add(at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.grants = append(g.grants, at)
}

func TestLimiterConcurrent(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			const goroutines, each = 64, 10
			r := extract.Rate{N: 7, Window: 3 * time.Second}
			l := b.new(t, r, fakeclock.New(epoch))
			var log grantLog
			extract.SetGrantHook(l, log.add)
			var wg sync.WaitGroup
			for range goroutines {
				wg.Go(func() {
					for range each {
						if err := l.Wait(t.Context()); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if len(log.grants) != goroutines*each {
				t.Fatalf("%d grants; want %d", len(log.grants), goroutines*each)
			}
			assertWithinRate(t, log.grants, r)
		})
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode() != want {
		t.Errorf("mode of %s = %v; want %v", path, info.Mode(), want)
	}
}

func BenchmarkLimiterWait(b *testing.B) {
	for _, bk := range backends {
		b.Run(bk.name, func(b *testing.B) {
			clock := fakeclock.New(epoch)
			l := bk.new(b, extract.DefaultRate, clock)
			ctx := context.Background()
			for b.Loop() {
				// 10 per 10.1 s, one every 1.1 s: never waits.
				clock.Advance(1100 * time.Millisecond)
				if err := l.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A slot moved to when its request left keeps the window closed until that
// later time, in memory and through the shared file.
func TestSlotSentMovesTheWindow(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			clk := fakeclock.New(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
			cfg := extract.LimiterConfig{Rate: extract.Rate{N: 2, Window: 10 * time.Second}, Margin: 100 * time.Millisecond, Clock: clk}
			if shared {
				cfg.Dir, cfg.KeyID = t.TempDir(), "slotkey"
			}
			l, err := extract.NewLimiter(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			ctx := context.Background()
			start := clk.Now()
			first, err := l.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			clk.Advance(3 * time.Second) // the first request left 3 s after its grant
			if err := first.Sent(clk.Now()); err != nil {
				t.Fatal(err)
			}
			// The second slot (granted at start) frees at start + 10.1 s; the
			// first now only at start + 13.1 s.
			if _, err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := clk.Now().Sub(start), 10100*time.Millisecond; got != want {
				t.Fatalf("third request at +%v, want +%v", got, want)
			}
			if _, err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := clk.Now().Sub(start), 13100*time.Millisecond; got != want {
				t.Fatalf("fourth request at +%v, want +%v (the moved slot)", got, want)
			}
			// Moving back in time, or an unknown slot, changes nothing.
			if err := first.Sent(start); err != nil {
				t.Fatal(err)
			}
		})
	}
}
