package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// etalake runs the built binary as a child process.
type etalake struct {
	bin         string
	memoryLimit string // ETALAKE_MEMORY_LIMIT, "" for none
	verbose     bool   // stream the children's stderr too
}

// result is one measured child.
type result struct {
	step           string
	run            int
	wall           time.Duration
	rssKiB         int64
	exit           int
	warehouseBytes int64
	rows           rowCounts
}

// stderrTail is how much of a failed child's standard error is shown.
const stderrTail = 4 << 10

// command is etalake with args, in the children's environment: the
// benchmark's own less every ETALAKE_* variable, plus
// ETALAKE_MEMORY_LIMIT if asked for.
func (e etalake) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETALAKE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if e.memoryLimit != "" {
		cmd.Env = append(cmd.Env, "ETALAKE_MEMORY_LIMIT="+e.memoryLimit)
	}
	// On Ctrl-C, let etalake stop as it does on its own (and end the
	// processes it started) rather than kill it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

// measure runs etalake with args and measures it. Its standard output is
// dropped; on failure the error holds the tail of its standard error.
func (e etalake) measure(ctx context.Context, args ...string) (result, error) {
	cmd := e.command(ctx, args...)
	tail := &tailBuffer{max: stderrTail}
	cmd.Stderr = tail
	if e.verbose {
		cmd.Stdout, cmd.Stderr = os.Stderr, io.MultiWriter(os.Stderr, tail)
	}
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start), exit: -1}
	if cmd.ProcessState != nil {
		r.exit = cmd.ProcessState.ExitCode()
		r.rssKiB = peakRSSKiB(cmd.ProcessState)
	}
	if err != nil {
		return r, fmt.Errorf("etalake %s: %w; the end of its standard error:\n%s", strings.Join(args, " "), err, tail)
	}
	return r, nil
}

// output runs etalake with args and returns its standard output.
func (e etalake) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := e.command(ctx, args...)
	var stdout bytes.Buffer
	tail := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = &stdout, tail
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("etalake %s: %w; the end of its standard error:\n%s", strings.Join(args, " "), err, tail)
	}
	return stdout.Bytes(), nil
}

// countedTables are the tables whose rows the report counts: the
// warehouse's main facts.
var countedTables = []string{"container_events", "event_observations", "eta_observations"}

// rowCounts are the rows of countedTables, in that order.
type rowCounts []int64

func (rc rowCounts) equal(o rowCounts) bool {
	if len(rc) != len(o) {
		return false
	}
	for i := range rc {
		if rc[i] != o[i] {
			return false
		}
	}
	return true
}

func (rc rowCounts) String() string {
	var b strings.Builder
	for i, n := range rc {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", countedTables[i], thousands(n))
	}
	return b.String()
}

// countRows counts the rows of countedTables in the warehouse, with
// `etalake sql --format csv`.
func (e etalake) countRows(ctx context.Context, warehouse string) (rowCounts, error) {
	cols := make([]string, len(countedTables))
	for i, t := range countedTables {
		cols[i] = fmt.Sprintf("(SELECT count(*) FROM %s) AS %s", t, t)
	}
	out, err := e.output(ctx, "sql", "--warehouse", warehouse, "--format", "csv", "SELECT "+strings.Join(cols, ", "))
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 || len(recs[1]) != len(countedTables) {
		return nil, fmt.Errorf("counting rows: want a header and a line of %d counts, got %q", len(countedTables), out)
	}
	rc := make(rowCounts, len(countedTables))
	for i, s := range recs[1] {
		if rc[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("counting rows: %w", err)
		}
	}
	return rc, nil
}

// dirSize is the sum of the sizes of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}
