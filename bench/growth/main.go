package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	sizes := flag.String("sizes", "500,2000,8000", "shipments of each world, comma-separated; the first is 1×")
	big := flag.Bool("big", false, "add the 64× world (32 000 shipments; about an hour to build on 2 cores)")
	night := flag.Int("night", 300, "answers of day 31 the nightly job imports")
	runs := flag.Int("runs", 3, "nights timed per size (medians are reported)")
	dir := flag.String("dir", "", "where the worlds and warehouses go (default: a temporary directory, removed at the end)")
	bin := flag.String("bin", "", "a built etalake binary (default: build one from the module root)")
	asJSON := flag.Bool("json", false, "print the results as JSON instead of a Markdown table")
	nightly := flag.Int("nightly", 0, "instead: feed a lake from a 1× world night by night for that many nights (60 for the acceptance) and report its files per table and rows written")
	flag.Parse()
	if *nightly > 0 {
		if err := nightlyRun(*nightly, *sizes, *dir, *bin); err != nil {
			fmt.Fprintln(os.Stderr, "growth:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*sizes, *big, *night, *runs, *dir, *bin, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "growth:", err)
		os.Exit(1)
	}
}

func run(sizeList string, big bool, night, runs int, dir, bin string, asJSON bool) error {
	var sizes []int
	for _, f := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-sizes %q: want shipment counts like 500,2000,8000", sizeList)
		}
		sizes = append(sizes, n)
	}
	if big {
		sizes = append(sizes, sizes[0]*64)
	}
	if night < 1 || runs < 1 {
		return fmt.Errorf("-night and -runs must be at least 1")
	}
	dir, bin, cleanup, err := setup(dir, bin)
	if err != nil {
		return err
	}
	defer cleanup()
	var results []nightResult
	for _, s := range sizes {
		w, err := buildWorld(bin, filepath.Join(dir, fmt.Sprintf("s%d", s)), s, night)
		if err != nil {
			return err
		}
		var nights []nightResult
		for i := 0; i < runs; i++ {
			n, err := w.night(bin)
			if err != nil {
				return err
			}
			nights = append(nights, n)
		}
		r := median(nights)
		r.Shipments, r.Scale, r.StoredAnswers, r.BuildSeconds = s, float64(s)/float64(sizes[0]), w.answers, w.build.Seconds()
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "growth: %d shipments: %.2f s wall, %.2f CPU-s, %d MiB RSS\n", s, r.WallSeconds, r.CPUSeconds, r.PeakRSSKiB>>10)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	printTable(os.Stdout, results)
	return nil
}

// setup makes the working directory (a temporary one when dir is empty,
// removed by cleanup) and builds the binary when bin is empty.
func setup(dir, bin string) (string, string, func(), error) {
	cleanup := func() {}
	if dir == "" {
		d, err := os.MkdirTemp("", "etalake-growth-")
		if err != nil {
			return "", "", cleanup, err
		}
		cleanup = func() { os.RemoveAll(d) }
		dir = d
	}
	if bin == "" {
		bin = filepath.Join(dir, "etalake")
		build := exec.Command("go", "build", "-tags", "duckdb_arrow", "-o", bin, ".")
		build.Dir = moduleRoot()
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			cleanup()
			return "", "", func() {}, fmt.Errorf("building etalake: %w", err)
		}
	}
	return dir, bin, cleanup, nil
}

// moduleRoot is the directory of go.mod, from the current directory up.
func moduleRoot() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "."
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// world is one size's history, built once, and its night.
type world struct {
	dir      string
	answers  int64 // stored after the night
	build    time.Duration
	nightLen int
	pullOnly time.Duration // lake pull of a lake holding only the night
}

func buildWorld(bin, dir string, shipments, night int) (*world, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	resp := filepath.Join(dir, "responses")
	if err := etalake(bin, "sim", "responses", "--seed", "1", "--shipments", strconv.Itoa(shipments), "--days", "31", "--out", resp); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(resp, "*.ndjson"))
	slices.Sort(files)
	if len(files) < 2 {
		return nil, fmt.Errorf("sim responses wrote %d files in %s; want 31", len(files), resp)
	}
	last := files[len(files)-1]
	n, err := firstLines(last, filepath.Join(dir, "night.ndjson"), night)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(last); err != nil {
		return nil, err
	}
	var answers int64
	for _, f := range files[:len(files)-1] {
		c, err := countLines(f)
		if err != nil {
			return nil, err
		}
		answers += c
	}
	w := &world{dir: dir, answers: answers + int64(n), nightLen: n}
	start := time.Now()
	// The history's import may end partial (3): some simulated answers are
	// dead-lettered on purpose. Anything else is a failure.
	if err := etalake(bin, append([]string{"import"}, append(w.lakeFlags(), resp)...)...); err != nil && exitCode(err) != 3 {
		return nil, fmt.Errorf("importing the history: %w", err)
	}
	w.build = time.Since(start)
	// The analysts' pull of the history, whole: each night's pull then
	// reads what the night changed.
	if err := etalake(bin, append([]string{"lake", "pull"}, w.pullFlags("pull")...)...); err != nil {
		return nil, fmt.Errorf("pulling the history: %w", err)
	}
	// A lake holding only the night, and its pull: what a night's pull
	// is measured against.
	only := &world{dir: filepath.Join(dir, "only")}
	if err := os.MkdirAll(only.dir, 0o755); err != nil {
		return nil, err
	}
	if err := etalake(bin, append([]string{"import"}, append(only.lakeFlags(), filepath.Join(dir, "night.ndjson"))...)...); err != nil && exitCode(err) != 3 {
		return nil, fmt.Errorf("importing the night alone: %w", err)
	}
	var errOnly error
	w.pullOnly, errOnly = timed(bin, append([]string{"lake", "pull"}, only.pullFlags("pull")...)...)
	if errOnly != nil {
		return nil, fmt.Errorf("pulling the night alone: %w", errOnly)
	}
	for _, p := range w.state() {
		if err := cp(filepath.Join(dir, p), filepath.Join(dir, "pristine", p)); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// state is what a night changes, relative to the world's directory: the
// warehouse, the lake, and the SQLite catalog with its WAL and shared
// memory files (a catalog restored without its WAL is an older catalog;
// one restored beside the last night's WAL is a corrupt one).
func (w *world) state() []string {
	files, _ := filepath.Glob(filepath.Join(w.dir, "catalog.db*"))
	out := []string{"wh", "lake", "pull"}
	for _, f := range files {
		out = append(out, filepath.Base(f))
	}
	return out
}

// pristine is what the pristine copy holds, relative to its directory.
func (w *world) pristine() []string {
	entries, _ := os.ReadDir(filepath.Join(w.dir, "pristine"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// pullFlags are lake pull's flags for the world's lake, into dir (under
// the world's).
func (w *world) pullFlags(dir string) []string {
	return append([]string{"--warehouse", filepath.Join(w.dir, dir)}, w.lakeFlags()[2:]...)
}

// timed runs the binary and returns its wall time.
func timed(bin string, args ...string) (time.Duration, error) {
	start := time.Now()
	err := etalake(bin, args...)
	return time.Since(start), err
}

func (w *world) lakeFlags() []string {
	return []string{"--warehouse", filepath.Join(w.dir, "wh"),
		"--lake-catalog", "sqlite:///" + filepath.Join(w.dir, "catalog.db"),
		"--lake-warehouse", "file://" + filepath.Join(w.dir, "lake")}
}

// nightResult is one timed night (or the medians of several).
type nightResult struct {
	Shipments     int     `json:"shipments"`
	Scale         float64 `json:"scale"`
	BuildSeconds  float64 `json:"build_seconds"`
	StoredAnswers int64   `json:"stored_answers"`
	WallSeconds   float64 `json:"wall_seconds"`
	CPUSeconds    float64 `json:"cpu_seconds"`
	PeakRSSKiB    int64   `json:"peak_rss_kib"`
	DiskSteady    int64   `json:"disk_steady_bytes"`
	DiskPeak      int64   `json:"disk_peak_bytes"`
	DiskAfter     int64   `json:"disk_after_bytes"`
	RowsDerived   int64   `json:"rows_derived"`
	LakeRows      int64   `json:"lake_rows"`
	LakeDeleted   int64   `json:"lake_deleted"`
	LakeCompacted int64   `json:"lake_compacted_rows"`
	LakeFilesMax  int     `json:"lake_files_max_per_table"`
	// MirrorSeconds, RefreshSeconds, LakeSeconds: the publish's parts,
	// from its log line (the mirror, the analytic tables, the lake).
	MirrorSeconds  float64 `json:"mirror_seconds"`
	RefreshSeconds float64 `json:"refresh_seconds"`
	LakeSeconds    float64 `json:"lake_seconds"`
	// PullSeconds: lake pull after the night, of a pull of the history;
	// PullOnlySeconds: lake pull of a lake holding only the night.
	PullSeconds     float64 `json:"pull_seconds"`
	PullOnlySeconds float64 `json:"pull_only_seconds"`
	LakeFilesTable  string  `json:"lake_files_max_table"`
}

var (
	rowsLine    = regexp.MustCompile(`(?m)^\s*rows\s+(.*)$`)
	rowsPair    = regexp.MustCompile(`[a-z_]+ (\d+)`)
	lakeRows    = regexp.MustCompile(`lake_rows=(\d+)`)
	mirrorTook  = regexp.MustCompile(` mirror=(\S+)`)
	refreshTook = regexp.MustCompile(` refresh=(\S+)`)
	// analyticsFilesTook is the part of the mirror's time that wrote the
	// analytic tables' files.
	analyticsFilesTook = regexp.MustCompile(` analytics_files=(\S+)`)
	lakeTook           = regexp.MustCompile(` lake=(\S+)`)
	lakeDeleted        = regexp.MustCompile(`lake_deleted=(\d+)`)
	lakeCompacted      = regexp.MustCompile(`lake_compacted_rows=(\d+)`)
)

func (w *world) night(bin string) (nightResult, error) {
	for _, p := range w.state() {
		if err := os.RemoveAll(filepath.Join(w.dir, p)); err != nil {
			return nightResult{}, err
		}
	}
	for _, p := range w.pristine() {
		if err := cp(filepath.Join(w.dir, "pristine", p), filepath.Join(w.dir, p)); err != nil {
			return nightResult{}, err
		}
	}
	syscall.Sync()
	wh := filepath.Join(w.dir, "wh")
	var r nightResult
	r.DiskSteady = diskUsage(wh)
	var peak atomic.Int64
	peak.Store(r.DiskSteady)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if d := diskUsage(wh); d > peak.Load() {
					peak.Store(d)
				}
			}
		}
	}()
	cmd := exec.Command(bin, append([]string{"import"}, append(w.lakeFlags(), filepath.Join(w.dir, "night.ndjson"))...)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r.WallSeconds = time.Since(start).Seconds()
	close(stop)
	<-done
	if err != nil && exitCode(err) != 3 {
		return r, fmt.Errorf("the night on %s: %v\n%s%s", wh, err, out.String(), tail(errOut.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPUSeconds = tv(ru.Utime) + tv(ru.Stime)
		r.PeakRSSKiB = ru.Maxrss
	}
	r.DiskAfter = diskUsage(wh)
	r.DiskPeak = max(peak.Load(), r.DiskAfter)
	r.RowsDerived = derivedRows(out.String())
	r.LakeRows, r.LakeDeleted, r.LakeCompacted = logInt(errOut.String(), lakeRows), logInt(errOut.String(), lakeDeleted), logInt(errOut.String(), lakeCompacted)
	r.MirrorSeconds, r.RefreshSeconds, r.LakeSeconds = logSeconds(errOut.String(), mirrorTook), logSeconds(errOut.String(), refreshTook), logSeconds(errOut.String(), lakeTook)
	if r.LakeFilesMax, r.LakeFilesTable, err = w.lakeFiles(bin); err != nil {
		return r, err
	}
	pull, err := timed(bin, append([]string{"lake", "pull"}, w.pullFlags("pull")...)...)
	if err != nil {
		return r, fmt.Errorf("the night's lake pull: %w", err)
	}
	r.PullSeconds, r.PullOnlySeconds = pull.Seconds(), w.pullOnly.Seconds()
	return r, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// lakeFiles is the most files (data and delete files) the current
// snapshot of any table of the lake holds, as etalake lake status says.
func (w *world) lakeFiles(bin string) (int, string, error) {
	flags := w.lakeFlags()[2:] // lake status takes no --warehouse
	cmd := exec.Command(bin, append([]string{"lake", "status"}, flags...)...)
	out, err := cmd.Output()
	if err != nil {
		return 0, "", fmt.Errorf("etalake lake status: %w", err)
	}
	most, which := 0, ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		data, err1 := strconv.Atoi(f[2])
		deletes, err2 := strconv.Atoi(f[3])
		if err1 == nil && err2 == nil && data+deletes > most {
			most, which = data+deletes, f[0]
		}
	}
	return most, which, nil
}

// diskUsage is the space the files under dir take, each inode once (hard
// links between versions are one file), in allocated blocks.
func diskUsage(dir string) int64 {
	seen := map[uint64]bool{}
	var n int64
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			n += fi.Size()
			return nil
		}
		if seen[st.Ino] {
			return nil
		}
		seen[st.Ino] = true
		n += st.Blocks * 512
		return nil
	})
	return n
}

func median(rs []nightResult) nightResult {
	pick := func(get func(nightResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	m := rs[0]
	m.WallSeconds = pick(func(r nightResult) float64 { return r.WallSeconds })
	m.CPUSeconds = pick(func(r nightResult) float64 { return r.CPUSeconds })
	m.PeakRSSKiB = int64(pick(func(r nightResult) float64 { return float64(r.PeakRSSKiB) }))
	m.DiskPeak = int64(pick(func(r nightResult) float64 { return float64(r.DiskPeak) }))
	m.PullSeconds = pick(func(r nightResult) float64 { return r.PullSeconds })
	m.MirrorSeconds = pick(func(r nightResult) float64 { return r.MirrorSeconds })
	m.RefreshSeconds = pick(func(r nightResult) float64 { return r.RefreshSeconds })
	m.LakeSeconds = pick(func(r nightResult) float64 { return r.LakeSeconds })
	return m
}

func printTable(w io.Writer, rs []nightResult) {
	fmt.Fprint(w, "| |")
	for _, r := range rs {
		fmt.Fprintf(w, " %g× (%d shipments) |", r.Scale, r.Shipments)
	}
	fmt.Fprint(w, " last / first |\n|---|")
	for range rs {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprint(w, "---:|\n")
	row := func(name string, get func(nightResult) float64, format string) {
		fmt.Fprintf(w, "| %s |", name)
		for _, r := range rs {
			fmt.Fprintf(w, " "+format+" |", get(r))
		}
		first, last := get(rs[0]), get(rs[len(rs)-1])
		if first != 0 {
			fmt.Fprintf(w, " %.2f |\n", last/first)
		} else {
			fmt.Fprint(w, " |\n")
		}
	}
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	row("stored answers", func(r nightResult) float64 { return float64(r.StoredAnswers) }, "%.0f")
	row("wall, s", func(r nightResult) float64 { return r.WallSeconds }, "%.2f")
	row("  of which the mirror, s", func(r nightResult) float64 { return r.MirrorSeconds }, "%.2f")
	row("  the analytic tables, s", func(r nightResult) float64 { return r.RefreshSeconds }, "%.2f")
	row("  the lake's commit, s", func(r nightResult) float64 { return r.LakeSeconds }, "%.2f")
	row("CPU, s", func(r nightResult) float64 { return r.CPUSeconds }, "%.2f")
	row("peak RSS, MiB", func(r nightResult) float64 { return float64(r.PeakRSSKiB) / 1024 }, "%.0f")
	row("disk steady, MB", func(r nightResult) float64 { return mb(r.DiskSteady) }, "%.1f")
	row("disk peak, MB", func(r nightResult) float64 { return mb(r.DiskPeak) }, "%.1f")
	row("peak / steady", func(r nightResult) float64 { return float64(r.DiskPeak) / float64(r.DiskSteady) }, "%.3f")
	row("disk per stored answer, KB", func(r nightResult) float64 { return float64(r.DiskAfter) / float64(r.StoredAnswers) / 1e3 }, "%.2f")
	row("rows derived", func(r nightResult) float64 { return float64(r.RowsDerived) }, "%.0f")
	row("lake rows committed (data + deletes)", func(r nightResult) float64 { return float64(r.LakeRows + r.LakeDeleted) }, "%.0f")
	row("lake rows / derived", func(r nightResult) float64 { return float64(r.LakeRows+r.LakeDeleted) / float64(max(r.RowsDerived, 1)) }, "%.2f")
	row("lake rows compacted by the upkeep", func(r nightResult) float64 { return float64(r.LakeCompacted) }, "%.0f")
	row("lake files (data + delete), most of a table", func(r nightResult) float64 { return float64(r.LakeFilesMax) }, "%.0f")
	row("lake pull after the night, s", func(r nightResult) float64 { return r.PullSeconds }, "%.2f")
	row("lake pull of a lake of only the night, s", func(r nightResult) float64 { return r.PullOnlySeconds }, "%.2f")
	row("pull / pull of only the night", func(r nightResult) float64 { return r.PullSeconds / r.PullOnlySeconds }, "%.2f")
}

// etalake runs the binary and returns its error with its stderr's tail.
func etalake(bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return &childError{err: err, args: args, stderr: tail(errOut.String())}
	}
	return nil
}

// etalakeOutput runs the binary and returns its stdout and stderr.
func etalakeOutput(bin string, args ...string) (string, string, error) {
	cmd := exec.Command(bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), &childError{err: err, args: args, stderr: tail(errOut.String())}
	}
	return out.String(), errOut.String(), nil
}

type childError struct {
	err    error
	args   []string
	stderr string
}

func (e *childError) Error() string {
	return fmt.Sprintf("etalake %s: %v\n%s", strings.Join(e.args, " "), e.err, e.stderr)
}
func (e *childError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func tail(s string) string {
	if len(s) > 4096 {
		return "…" + s[len(s)-4096:]
	}
	return s
}

// cp copies a file or tree with cp -a: links, modes and times kept.
func cp(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, out)
	}
	return nil
}

// firstLines copies the first n lines of from to to, keeping from's
// modification time (etalake import takes it as observed_at).
func firstLines(from, to string, n int) (int, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	k := 0
	for k < n && sc.Scan() {
		if _, err := fmt.Fprintln(out, sc.Text()); err != nil {
			out.Close()
			return 0, err
		}
		k++
	}
	if err := sc.Err(); err != nil {
		out.Close()
		return 0, err
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	fi, err := os.Stat(from)
	if err != nil {
		return 0, err
	}
	return k, os.Chtimes(to, fi.ModTime(), fi.ModTime())
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var n int64
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}
