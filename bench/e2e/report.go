package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// environment is what the report says of where and when it ran.
type environment struct {
	date      time.Time
	commit    string // of the module root, -dirty if it has changes
	goVersion string
	cpus      int
	goEnv     []string // Go's variables that reach the children, as set
	loadStart string
	loadEnd   string
}

func describeEnv(ctx context.Context, root string) environment {
	env := environment{
		date:      time.Now().UTC(),
		commit:    "unknown",
		goVersion: "unknown",
		cpus:      runtime.NumCPU(),
		loadStart: loadAverage(),
	}
	run := func(name string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = root
		b, err := cmd.Output()
		return strings.TrimSpace(string(b)), err
	}
	if s, err := run("git", "rev-parse", "--short", "HEAD"); err == nil {
		env.commit = s
		if st, err := run("git", "status", "--porcelain"); err != nil || st != "" {
			env.commit += "-dirty"
		}
	}
	if s, err := run("go", "version"); err == nil {
		env.goVersion = s
	}
	for _, k := range []string{"GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env.goEnv = append(env.goEnv, k+"="+v)
		}
	}
	return env
}

// line is a child run's line of progress.
func (r result) line(events int64) string {
	s := fmt.Sprintf("run %d  %-6s  %8.2f s  %7.0f MiB peak RSS  exit %d", r.run, r.step, r.wall.Seconds(), mib(r.rssKiB), r.exit)
	if r.exit != 0 {
		return s
	}
	if r.step != stepDemo {
		s += fmt.Sprintf("  %9s events/s", thousands(rate(events, r.wall.Seconds())))
	}
	s += fmt.Sprintf("  warehouse %.1f MB", float64(r.warehouseBytes)/1e6)
	if r.rows != nil {
		s += "  rows: " + r.rows.String()
	}
	return s
}

// report prints the Markdown report: the command, where and when, the
// input and result, and per step the median and maximum wall time and
// peak RSS.
func report(out io.Writer, c config, env environment, in manifest, rs []result) {
	fmt.Fprintf(out, "```sh\n%s\n```\n\n", commandLine(c))
	mem := "not set"
	if c.memoryLimit != "" {
		mem = c.memoryLimit
	}
	fmt.Fprintf(out, "- %s, etalake %s, %s, %d CPUs, load average %s at start and %s at end\n",
		env.date.Format("2006-01-02 15:04 MST"), env.commit, env.goVersion, env.cpus, env.loadStart, env.loadEnd)
	fmt.Fprintf(out, "- ETALAKE_MEMORY_LIMIT: %s", mem)
	if len(env.goEnv) > 0 {
		fmt.Fprintf(out, "; %s", strings.Join(env.goEnv, " "))
	}
	fmt.Fprintf(out, "\n- input: %s\n", in)
	var steps []string
	for _, r := range rs {
		if !slices.Contains(steps, r.step) {
			steps = append(steps, r.step)
		}
	}
	for _, s := range steps {
		last := rs[0]
		for _, r := range rs {
			if r.step == s {
				last = r
			}
		}
		fmt.Fprintf(out, "- after %s (run %d): %s; warehouse %.0f MB\n", s, last.run, last.rows, float64(last.warehouseBytes)/1e6)
	}

	fmt.Fprintf(out, "\n| step | runs | median wall s | max wall s | events/s (median) | median peak RSS MiB | max peak RSS MiB |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|\n")
	for _, s := range steps {
		var walls, rss []float64
		for _, r := range rs {
			if r.step == s {
				walls = append(walls, r.wall.Seconds())
				rss = append(rss, mib(r.rssKiB))
			}
		}
		perSecond := "—"
		if s != stepDemo {
			perSecond = thousands(rate(in.Events, median(walls)))
		}
		fmt.Fprintf(out, "| %s | %d | %.2f | %.2f | %s | %.0f | %.0f |\n",
			stepCommand(s), len(walls), median(walls), slices.Max(walls), perSecond, median(rss), slices.Max(rss))
	}
}

// stepCommand is how the table names a step: its command.
func stepCommand(step string) string {
	switch step {
	case stepImport:
		return "`etalake import`"
	case stepReplay:
		return "`etalake replay` (full)"
	case stepDemo:
		return "`etalake demo --days 30`"
	}
	return step
}

// commandLine is the command that reproduces this run.
func commandLine(c config) string {
	s := "go run ./bench/e2e"
	for _, a := range c.args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!%") {
			a = strconv.Quote(a)
		}
		s += " " + a
	}
	return s
}

// median is the middle of xs, or the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// rate is events per second, rounded.
func rate(events int64, seconds float64) int64 { return int64(math.Round(float64(events) / seconds)) }

func mib(kib int64) float64 { return float64(kib) / 1024 }

// thousands writes n with a space between groups of three digits,
// as BENCHMARKS.md does.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(" ")
		}
		b.WriteRune(d)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// loadAverage is the machine's 1, 5 and 15 minute load, where Linux says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
