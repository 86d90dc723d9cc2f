package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dagTask is a BashOperator the DAG file made.
type dagTask struct {
	TaskID         string            `json:"task_id"`
	BashCommand    string            `json:"bash_command"`
	Env            map[string]string `json:"env"`
	AppendEnv      bool              `json:"append_env"`
	Pool           string            `json:"pool"`
	PoolSlots      int               `json:"pool_slots"`
	SkipOnExitCode int               `json:"skip_on_exit_code"`
	Retries        int               `json:"retries"`
}

// The stand-ins for Airflow's DAG and BashOperator: they record each
// task's arguments, and the DAG's schedule. They sit where Airflow 2 or
// Airflow 3 has them (argv[2]), and nowhere else: Airflow 3 moved the
// DAG to airflow.sdk (airflow.DAG is deprecated) and BashOperator to the
// standard provider (airflow.operators.bash is gone); Airflow 2 has
// neither of the new places (the provider aside).
const airflowStandIn = `
import json, runpy, sys, types
tasks, dags = [], []
class DAG:
    def __init__(self, dag_id, **kw): dags.append(dict(kw, dag_id=dag_id, schedule=kw.get("schedule"), start_date=str(kw.get("start_date"))))
    def __enter__(self): return self
    def __exit__(self, *a): return False
class BashOperator:
    def __init__(self, **kw):
        kw["retry_delay"] = str(kw.get("retry_delay"))
        tasks.append(kw)
def module(name, **attrs):
    m = types.ModuleType(name)
    m.__path__ = []
    m.__dict__.update(attrs)
    sys.modules[name] = m
if sys.argv[2] == "2":
    module("airflow", DAG=DAG); module("airflow.operators"); module("airflow.operators.bash", BashOperator=BashOperator)
else:
    module("airflow"); module("airflow.sdk", DAG=DAG)
    for p in ("airflow.providers", "airflow.providers.standard", "airflow.providers.standard.operators"):
        module(p)
    module("airflow.providers.standard.operators.bash", BashOperator=BashOperator)
runpy.run_path(sys.argv[1])
print(json.dumps({"dags": [{k: str(v) for k, v in d.items()} for d in dags], "tasks": tasks}))
`

// parsedDAG is what the DAG file made.
type parsedDAG struct {
	Dags  []map[string]string
	Tasks []dagTask
}

// loadDAG executes the DAG file with the stand-ins of Airflow major
// version airflow ("2" or "3"), as Airflow parses a DAG file.
func loadDAG(t *testing.T, dag, airflow string) parsedDAG {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 here: the README's DAG is not read")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "etalake.py"), []byte(dag), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", airflowStandIn, filepath.Join(dir, "etalake.py"), airflow).CombinedOutput()
	if err != nil {
		t.Fatalf("the README's DAG does not load under Airflow %s: %v\n%s", airflow, err, out)
	}
	var parsed parsedDAG
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(parsed.Dags) != 1 || len(parsed.Tasks) != 2*fleetShards {
		t.Fatalf("the DAG file makes %d DAGs and %d tasks under Airflow %s; want 1 and %d (two keys of %d shards)", len(parsed.Dags), len(parsed.Tasks), airflow, 2*fleetShards, fleetShards)
	}
	return parsed
}

// airflowContext is what a DAG run's templates see, for the run of a
// cron schedule that fires at fires. Airflow 2 makes a cron schedule a
// CronDataIntervalTimetable: the run that fires at the end of an interval
// has that interval's start as its logical date. Airflow 3 makes it a
// CronTriggerTimetable ([scheduler] create_cron_data_intervals, False
// from 3.0: "for CronTriggerTimetable, the logical_date is the same as
// the time the DAG Run will try to schedule, while for
// CronDataIntervalTimetable, the logical_date is the beginning of the
// data interval, but the DAG Run will try to schedule at the end of the
// data interval"), with no interval: its start and end are that time.
func airflowContext(airflow string, fires time.Time, period time.Duration) map[string]time.Time {
	logical := fires
	if airflow == "2" {
		logical = fires.Add(-period)
	}
	return map[string]time.Time{"logical_date": logical, "data_interval_start": logical, "data_interval_end": fires}
}

var jinjaRE = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)

// renderAirflow renders the template expressions a bash_command may use
// — {{ ds }} and {{ X | ds }} of the context's dates — as Airflow does
// (ds: the date as YYYY-MM-DD); anything else fails the test, which then
// has to learn it.
func renderAirflow(t *testing.T, s string, ctx map[string]time.Time) string {
	t.Helper()
	return jinjaRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := jinjaRE.FindStringSubmatch(m)[1]
		name, filter, piped := strings.Cut(expr, "|")
		name, filter = strings.TrimSpace(name), strings.TrimSpace(filter)
		if !piped && name == "ds" {
			return ctx["logical_date"].Format(time.DateOnly)
		}
		if v, ok := ctx[name]; ok && piped && filter == "ds" {
			return v.Format(time.DateOnly)
		}
		t.Fatalf("the test does not render {{ %s }}", expr)
		return ""
	})
}

// TestREADMEAirflowDAGRunsItsNight loads the README's DAG as Airflow 2 and
// Airflow 3 would (each with its own imports), and renders each task's
// command for the run that fires at 02:15 UTC on 2026-03-10: under both,
// the job runs for 2026-03-10, the night cron and the systemd timer run
// at that moment (`run`'s default date is today, UTC), and the schedule
// is read in UTC whatever Airflow's default_timezone.
func TestREADMEAirflowDAGRunsItsNight(t *testing.T) {
	var dag string
	for _, b := range docBlocks(t) {
		if b.lang == "python" && strings.HasPrefix(b.text, "# dags/etalake.py\n") {
			dag = b.text
		}
	}
	if dag == "" {
		t.Fatal("README.md and docs/*.md have no ```python block starting # dags/etalake.py")
	}
	fires := time.Date(2026, 3, 10, 2, 15, 0, 0, time.UTC)
	for _, airflow := range []string{"2", "3"} {
		parsed := loadDAG(t, dag, airflow)
		d := parsed.Dags[0]
		if d["schedule"] != "15 2 * * *" || !strings.HasSuffix(d["start_date"], "+00:00") {
			t.Errorf("Airflow %s: schedule %q, start_date %s; want 15 2 * * * from a start_date in UTC (a naive one takes the installation's default_timezone)", airflow, d["schedule"], d["start_date"])
		}
		ctx := airflowContext(airflow, fires, 24*time.Hour)
		for _, task := range parsed.Tasks {
			command := renderAirflow(t, task.BashCommand, ctx)
			if !strings.Contains(command, "--date 2026-03-10 ") {
				t.Errorf("Airflow %s, the run firing at %s: %s runs %q; want --date 2026-03-10, the night it fires on", airflow, fires.Format(time.RFC3339), task.TaskID, command)
			}
		}
	}
}

// runDAG reads the DAG file as Airflow does, checks the pools and the
// exit-code handling, and runs each task's bash command with its env, as
// a pool of one slot per key runs them: a key's shards one after another.
func runDAG(t *testing.T, dag string) {
	parsed := loadDAG(t, dag, "3")
	f := newFleet(t)
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// etalake on the PATH: this test binary, as etalake.
	wrapper := fmt.Sprintf("#!/bin/sh\nETALAKE_TEST_AS_MAIN=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(bin, "etalake"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	m := remap{"/etc/etalake": filepath.Join(root, "etc"), "/var/lib/etalake": filepath.Join(root, "var"),
		"/var/lib/node_exporter/textfile": filepath.Join(root, "textfile")}
	for _, d := range m {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "b"} {
		f.writeSelection(t, filepath.Join(m["/etc/etalake"], k), k)
	}
	before := len(f.env.Service.Ledger())
	ctx := airflowContext("3", f.env.Service.Clock().Now(), 24*time.Hour)
	pools := map[string][]string{}
	var files []string
	for _, task := range parsed.Tasks {
		if task.PoolSlots != 1 || !strings.HasPrefix(task.Pool, "etalake-") || task.SkipOnExitCode != exitBusy || !task.AppendEnv || task.Retries < 1 {
			t.Errorf("%s: pool %q of %d slots, skip_on_exit_code %d, append_env %v, retries %d; want a pool per key of 1 slot, 75 skipped, the environment appended, retries",
				task.TaskID, task.Pool, task.PoolSlots, task.SkipOnExitCode, task.AppendEnv, task.Retries)
		}
		pools[task.Pool] = append(pools[task.Pool], task.TaskID)
		// Airflow renders the template; the shell splits the words.
		command := renderAirflow(t, task.BashCommand, ctx)
		var words []string
		for _, w := range strings.Fields(command) {
			words = append(words, m.apply(w))
		}
		env := map[string]string{}
		for k, v := range task.Env {
			env[k] = m.apply(v)
		}
		f.settings(t, env)
		// The key's limit is the service's, whole: the pool runs a key's
		// shards one at a time. Here the simulator's stands for it.
		if _, set := env["ETALAKE_RATE"]; set {
			t.Errorf("%s sets ETALAKE_RATE %q: the pool of one slot per key keeps its shards within the key's limit", task.TaskID, env["ETALAKE_RATE"])
		}
		env["ETALAKE_RATE"] = "1000/1s"
		vars := []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
		for k, v := range env {
			vars = append(vars, k+"="+v)
		}
		files = append(files, env["ETALAKE_METRICS_FILE"])
		cmd := exec.Command("bash", "-c", strings.Join(words, " "))
		cmd.Env = append(os.Environ(), vars...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %s: %v\n%s", task.TaskID, strings.Join(words, " "), err, out)
		}
	}
	if len(pools) != 2 {
		t.Errorf("pools %v: want one per key", pools)
	}
	f.check(t, before, files)
}
