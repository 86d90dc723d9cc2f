package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// task's arguments, and the DAG's schedule.
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
airflow = types.ModuleType("airflow"); airflow.DAG = DAG
ops = types.ModuleType("airflow.operators"); bash = types.ModuleType("airflow.operators.bash"); bash.BashOperator = BashOperator
sys.modules.update({"airflow": airflow, "airflow.operators": ops, "airflow.operators.bash": bash})
runpy.run_path(sys.argv[1])
print(json.dumps({"dags": [{k: str(v) for k, v in d.items()} for d in dags], "tasks": tasks}))
`

// runDAG reads the DAG file as Airflow does, checks the pools and the
// exit-code handling, and runs each task's bash command with its env, as
// a pool of one slot per key runs them: a key's shards one after another.
func runDAG(t *testing.T, dag string) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 here: the README's DAG is not read")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "etalake.py"), []byte(dag), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", airflowStandIn, filepath.Join(dir, "etalake.py")).CombinedOutput()
	if err != nil {
		t.Fatalf("the README's DAG does not load: %v\n%s", err, out)
	}
	var parsed struct {
		Dags  []map[string]string
		Tasks []dagTask
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(parsed.Dags) != 1 || len(parsed.Tasks) != 2*fleetShards {
		t.Fatalf("the DAG file makes %d DAGs and %d tasks; want 1 and %d (two keys of %d shards)", len(parsed.Dags), len(parsed.Tasks), 2*fleetShards, fleetShards)
	}
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
	date := f.env.Service.Clock().Now().Format(time.DateOnly)
	pools := map[string][]string{}
	var files []string
	for _, task := range parsed.Tasks {
		if task.PoolSlots != 1 || !strings.HasPrefix(task.Pool, "etalake-") || task.SkipOnExitCode != exitBusy || !task.AppendEnv || task.Retries < 1 {
			t.Errorf("%s: pool %q of %d slots, skip_on_exit_code %d, append_env %v, retries %d; want a pool per key of 1 slot, 75 skipped, the environment appended, retries",
				task.TaskID, task.Pool, task.PoolSlots, task.SkipOnExitCode, task.AppendEnv, task.Retries)
		}
		pools[task.Pool] = append(pools[task.Pool], task.TaskID)
		if !strings.Contains(task.BashCommand, "--date {{ ds }}") {
			t.Errorf("%s: %q does not run for the DAG run's date ({{ ds }})", task.TaskID, task.BashCommand)
		}
		// Airflow renders {{ ds }}; the shell splits the words.
		command := strings.ReplaceAll(task.BashCommand, "{{ ds }}", date)
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
