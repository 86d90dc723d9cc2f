package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/metrics"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// The figures --metrics-file writes are the run's, as etl_runs records
// them, read back with the Prometheus text parser: an ok run's, a partial
// run's (a cap, and bodies over --max-body dead-lettered), a refused
// run's (a key the service does not know) and a busy run's (the warehouse
// held) — every one of them writes its file, the key id and never the
// key, and the last success time carried over from the ok run.
func TestTheMetricsFileSaysWhatTheRunDid(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	dir := t.TempDir()
	wh, file := filepath.Join(dir, "wh"), filepath.Join(dir, "textfile", "etalake.prom")
	if err := os.Mkdir(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	ports := []string{simtest.Port(t, env.Service.World(), env.Service.Clock().Now())}
	for _, p := range env.Service.World().Ports() {
		if len(ports) < 3 && p.Locode != ports[0] {
			ports = append(ports, p.Locode)
		}
	}
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": wh, "ETALAKE_METRICS_FILE": file}
	sel := []string{"backfill", "--yes", "--ports", strings.Join(ports, ","), "--lock-timeout", "0"}

	// ok
	code, stdout, stderr := run(t, vars, append(sel, "--date", "2026-01-05")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	ok := readMetrics(t, file)
	checkAgainstRun(t, "the ok run", ok, runRow(t, vars, "2026-01-05"), "ok")
	okAt := gaugeOf(t, ok, metrics.NameEnd, nil)
	if got := gaugeOf(t, ok, metrics.NameLastSuccess, nil); got != okAt {
		t.Errorf("the ok run: last success %v, want its end %v", got, okAt)
	}

	// partial: a cap, and every body over --max-body dead-lettered
	code, stdout, stderr = run(t, vars, append(sel, "--date", "2026-01-06", "--max-credits", "2", "--max-body", "16B")...)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitPartial, stdout, stderr)
	}
	partial := readMetrics(t, file)
	row := runRow(t, vars, "2026-01-06")
	checkAgainstRun(t, "the partial run", partial, row, "partial")
	if got := gaugeOf(t, partial, metrics.NameDeadLetters, nil); got < 1 || got != float64(row.deadLetters) {
		t.Errorf("the partial run: %v dead letters, want %d (dead_letters), at least 1", got, row.deadLetters)
	}
	if got := gaugeOf(t, partial, metrics.NameLastSuccess, nil); got != okAt {
		t.Errorf("the partial run: last success %v, want the ok run's end %v", got, okAt)
	}

	// refused: a key the service does not know (401)
	refusedVars := map[string]string{}
	for k, v := range vars {
		refusedVars[k] = v
	}
	refusedVars["ETALAKE_API_KEY"] = "not-a-key-we-gave"
	if code, stdout, stderr = run(t, refusedVars, append(sel, "--date", "2026-01-07")...); code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitUsage, stdout, stderr)
	}
	refused := readMetrics(t, file)
	checkStatus(t, "the refused run", refused, "refused", exitUsage)
	if got := labelOf(t, refused, metrics.NameExitCode, "key_id"); got == "" || got == labelOf(t, ok, metrics.NameExitCode, "key_id") {
		t.Errorf("the refused run's key id %q: want the other key's, not empty and not %q", got, labelOf(t, ok, metrics.NameExitCode, "key_id"))
	}

	// busy: another writer holds the warehouse
	held, err := load.Open(context.Background(), wh, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, vars, append(sel, "--date", "2026-01-08")...)
	held.Close()
	if code != exitBusy {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitBusy, stdout, stderr)
	}
	busy := readMetrics(t, file)
	checkStatus(t, "the busy run", busy, "busy", exitBusy)
	if got := gaugeOf(t, busy, metrics.NameLastSuccess, nil); got != okAt {
		t.Errorf("the busy run: last success %v, want the ok run's end %v", got, okAt)
	}

	// Nothing but the file is left in its directory (the temporary file
	// was renamed), and the key is in none of it.
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil || len(entries) != 1 {
		t.Errorf("the textfile directory holds %v (%v), want only %s", entries, err, filepath.Base(file))
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), cliKey) {
		t.Errorf("the metrics file holds the key:\n%s", b)
	}
}

// A --metrics-file in a directory that does not exist is refused before
// anything is asked, naming the variable and the flag.
func TestAMetricsFileNowhereIsRefused(t *testing.T) {
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}},
	})
	file := filepath.Join(t.TempDir(), "no-such-dir", "etalake.prom")
	code, stdout, stderr := run(t, map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh"), "ETALAKE_METRICS_FILE": file}, "backfill", "--yes", "--ports", "NLRTM")
	if code != exitUsage || !strings.Contains(stderr, "ETALAKE_METRICS_FILE (--metrics-file) \""+file+"\": want a file in an existing directory") {
		t.Errorf("exit %d, want %d with a message naming the setting:\n%s%s", code, exitUsage, stdout, stderr)
	}
	if n := env.Service.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// runFigures is a run's etl_runs row; its dead letters are the
// dead_letters rows it loaded.
type runFigures struct {
	RunID       string           `json:"run_id"`
	Status      string           `json:"status"`
	ExitCode    int              `json:"exit_code"`
	Requests    int64            `json:"requests"`
	ByStatus    string           `json:"requests_by_status"`
	Spent       int64            `json:"credits_spent_schedule"`
	Unsure      int64            `json:"credits_uncertain_schedule"`
	Calls       int64            `json:"calls_tracking"`
	CallsUnsure int64            `json:"calls_uncertain_tracking"`
	Rows        string           `json:"rows_loaded"`
	Duration    float64          `json:"duration_seconds"`
	byStatus    map[string]int64 // ByStatus decoded
	rows        map[string]int64 // Rows decoded
	deadLetters int64
}

func runRow(t *testing.T, vars map[string]string, date string) runFigures {
	t.Helper()
	q := `SELECT run_id, status, exit_code, requests, requests_by_status::VARCHAR AS requests_by_status, credits_spent_schedule,
		credits_uncertain_schedule, calls_tracking, calls_uncertain_tracking, rows_loaded::VARCHAR AS rows_loaded, duration_seconds
		FROM etl_runs WHERE logical_date = DATE '` + date + `'`
	code, out, stderr := run(t, vars, "sql", "--format", "json", q)
	var rows []runFigures
	if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 {
		t.Fatalf("etl_runs of %s: exit %d, %s%s", date, code, out, stderr)
	}
	r := rows[0]
	for s, m := range map[string]*map[string]int64{r.ByStatus: &r.byStatus, r.Rows: &r.rows} {
		if s != "" {
			if err := json.Unmarshal([]byte(s), m); err != nil {
				t.Fatalf("etl_runs %q: %v", s, err)
			}
		}
	}
	r.deadLetters = r.rows["dead_letters"]
	return r
}

// checkAgainstRun compares the file's figures with the run's row.
func checkAgainstRun(t *testing.T, name string, mf map[string]*dto.MetricFamily, r runFigures, status string) {
	t.Helper()
	checkStatus(t, name, mf, status, r.ExitCode)
	if r.Status != status {
		t.Errorf("%s: etl_runs.status %s, want %s", name, r.Status, status)
	}
	if got := labelOf(t, mf, metrics.NameInfo, "run_id"); got != r.RunID {
		t.Errorf("%s: run_id %q, want etl_runs' %q", name, got, r.RunID)
	}
	var sum float64
	for s, n := range r.byStatus {
		if got := gaugeOf(t, mf, metrics.NameRequests, map[string]string{"status": s}); got != float64(n) {
			t.Errorf("%s: %v requests of status %s, want %d", name, got, s, n)
		}
		sum += float64(n)
	}
	if got := gaugeOf(t, mf, metrics.NameRequests, map[string]string{"status": "no_response"}); sum+got != float64(r.Requests) {
		t.Errorf("%s: %v requests answered and %v not, want %d in all", name, sum, got, r.Requests)
	}
	for _, c := range []struct {
		metric, product string
		want            int64
	}{
		{metrics.NameCreditsSpent, "schedule", r.Spent}, {metrics.NameCreditsUnsure, "schedule", r.Unsure},
		{metrics.NameCreditsSpent, "tracking", r.Calls}, {metrics.NameCreditsUnsure, "tracking", r.CallsUnsure},
	} {
		if got := gaugeOf(t, mf, c.metric, map[string]string{"product": c.product}); got != float64(c.want) {
			t.Errorf("%s: %s{product=%q} %v, want %d", name, c.metric, c.product, got, c.want)
		}
	}
	if r.Spent == 0 || len(r.rows) == 0 {
		t.Errorf("%s: spent %d credits and loaded %v: the test wants a run that did both", name, r.Spent, r.rows)
	}
	for table, n := range r.rows {
		if got := gaugeOf(t, mf, metrics.NameRows, map[string]string{"table": table}); got != float64(n) {
			t.Errorf("%s: %v rows of %s, want %d", name, got, table, n)
		}
	}
	if got := gaugeOf(t, mf, metrics.NameDuration, nil); math.Abs(got-r.Duration) > 0.001 {
		t.Errorf("%s: duration %vs, want etl_runs' %vs", name, got, r.Duration)
	}
	if got := labelOf(t, mf, metrics.NameDuration, "key_id"); got == "" || got == cliKey {
		t.Errorf("%s: key id %q: want the key's fingerprint", name, got)
	}
	if got := labelOf(t, mf, metrics.NameDuration, "shard"); got != "1/1" {
		t.Errorf("%s: shard %q, want 1/1", name, got)
	}
}

// checkStatus checks that the file says status and exit code, and no
// other status.
func checkStatus(t *testing.T, name string, mf map[string]*dto.MetricFamily, status string, code int) {
	t.Helper()
	for _, s := range metrics.Statuses {
		want := 0.0
		if s == status {
			want = 1
		}
		if got := gaugeOf(t, mf, metrics.NameStatus, map[string]string{"status": s}); got != want {
			t.Errorf("%s: %s{status=%q} %v, want %v", name, metrics.NameStatus, s, got, want)
		}
	}
	if got := gaugeOf(t, mf, metrics.NameExitCode, nil); got != float64(code) {
		t.Errorf("%s: exit code %v, want %d", name, got, code)
	}
}

func readMetrics(t *testing.T, file string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s does not parse as the Prometheus text format: %v", file, err)
	}
	return mf
}

// gaugeOf is the value of the one gauge of family name whose labels
// include want.
func gaugeOf(t *testing.T, mf map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	m := metricOf(t, mf, name, want)
	if m == nil {
		return math.NaN()
	}
	return m.GetGauge().GetValue()
}

// labelOf is label's value on family name's first metric.
func labelOf(t *testing.T, mf map[string]*dto.MetricFamily, name, label string) string {
	t.Helper()
	if m := metricOf(t, mf, name, nil); m != nil {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				return l.GetValue()
			}
		}
	}
	return ""
}

func metricOf(t *testing.T, mf map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f, ok := mf[name]
	if !ok {
		t.Errorf("no metric %s", name)
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	t.Errorf("no %s with labels %v", name, want)
	return nil
}

// A job whose coordinator is out of reach at its start still names its
// key in the metrics file: the alert on a failed worker says which key.
func TestTheMetricsOfAJobWithoutItsCoordinatorNameTheKey(t *testing.T) {
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10)}}})
	file := filepath.Join(t.TempDir(), "etalake.prom")
	code, stdout, stderr := run(t, map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh"), "ETALAKE_METRICS_FILE": file,
		"ETALAKE_COORDINATION": "postgres://etalake@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"}, "backfill", "--yes", "--ports", "NLRTM")
	if code == exitOK {
		t.Fatalf("exit 0 without a coordinator\n%s%s", stdout, stderr)
	}
	key, err := extract.NewKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	mf := readMetrics(t, file)
	if got, want := labelOf(t, mf, metrics.NameExitCode, "key_id"), key.Fingerprint(); got != want {
		t.Errorf("key_id %q, want the key's id %q", got, want)
	}
}
