package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// The README's recipes for a fleet, rendered for two keys of two shards
// each as their own instructions say (envsubst of KEY, I and N into the
// CronJob template; the Airflow DAG file as Airflow reads it), and the
// four workers' commands run as etalake processes against a simulator
// that serves both keys: every worker exits 0, writes its metrics file
// and commits to the one lake, and each key's resources are asked once
// across its shards. Kubernetes and Airflow are not run: the YAML is
// parsed (the exit-code contract read from podFailurePolicy) and the DAG
// file is executed with stand-ins for Airflow's DAG and BashOperator,
// which is how Airflow parses a DAG, so the commands run here are the
// DAG's own.
func TestREADMERecipesRun(t *testing.T) {
	text := readmeText(t)
	var tmpl, dag, loop string
	for _, b := range mdBlocks(text) {
		switch {
		case b.lang == "yaml" && strings.HasPrefix(b.text, "# etalake-worker.yaml\n"):
			tmpl = b.text
		case b.lang == "python" && strings.HasPrefix(b.text, "# dags/etalake.py\n"):
			dag = b.text
		case b.lang == "sh" && strings.Contains(b.text, "envsubst"):
			loop = b.text
		}
	}
	if tmpl == "" || dag == "" || !strings.Contains(loop, `envsubst '$KEY $I $N' < etalake-worker.yaml`) {
		t.Fatal("README.md's recipes: want a ```yaml block starting # etalake-worker.yaml, the ```sh loop that renders it with envsubst '$KEY $I $N', and a ```python block starting # dags/etalake.py")
	}
	t.Run("kubernetes", func(t *testing.T) { runCronJobs(t, tmpl) })
	t.Run("airflow", func(t *testing.T) { runDAG(t, dag) })
}

// fleet is a simulator serving two keys, each with its own shipments and
// ports, the files that select them, and the lake the workers share.
type fleet struct {
	env         *simtest.Env
	keys        map[string]string // name → the key
	ships       map[string][]wire.ShipmentRef
	ports       map[string][]string
	catalog, lk string
}

const fleetShards = 2

func newFleet(t *testing.T) *fleet {
	t.Helper()
	keys := map[string]string{"a": "fleet-KEY-a-3f9c", "b": "fleet-KEY-b-81d2"}
	var specs []sim.KeySpec
	for _, k := range []string{"a", "b"} {
		specs = append(specs, sim.KeySpec{Key: keys[k], Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)})
	}
	f := &fleet{keys: keys, ships: map[string][]wire.ShipmentRef{}, ports: map[string][]string{}}
	f.env = simtest.Start(t, simtest.Options{Keys: specs, Rate: sim.Rate{N: 1000, Window: time.Second}})
	w := f.env.Service.World()
	at := w.Config().Start
	var ships []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if s, err := w.Shipment(ref, at); err == nil && s.Route != nil && s.Route.Pod != nil && (s.Route.Pod.Actual == nil || !*s.Route.Pod.Actual) {
			ships = append(ships, ref)
		}
	}
	var ports []string
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, at); err == nil {
			ports = append(ports, p.Locode)
		}
	}
	if len(ships) < 24 || len(ports) < 8 {
		t.Fatalf("the world shows %d shipments and %d ports with schedules; want 24 and 8", len(ships), len(ports))
	}
	f.ships["a"], f.ships["b"] = ships[:12], ships[12:24]
	f.ports["a"], f.ports["b"] = ports[:4], ports[4:8]
	lake := t.TempDir()
	f.catalog, f.lk = "sqlite://"+filepath.Join(lake, "catalog.db"), "file://"+filepath.Join(lake, "files")
	return f
}

// writeSelection writes key k's shipments.csv, ports.txt and api-key
// into dir.
func (f *fleet) writeSelection(t *testing.T, dir, k string) {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("shipment_number,shipment_type,sealine\n")
	for _, s := range f.ships[k] {
		fmt.Fprintf(&csv, "%s,%s,%s\n", s.Number, s.Type, s.Sealine)
	}
	for name, body := range map[string]string{"shipments.csv": csv.String(), "ports.txt": strings.Join(f.ports[k], "\n") + "\n", "api-key": f.keys[k]} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// settings replaces the deployment's own settings (the provider's URLs,
// the lake's catalog and storage) with the simulator's and the test's.
func (f *fleet) settings(t *testing.T, env map[string]string) {
	t.Helper()
	want := map[string]string{"ETALAKE_SCHEDULE_URL": f.env.ScheduleURL, "ETALAKE_TRACKING_URL": f.env.TrackingURL,
		"ETALAKE_LAKE_CATALOG": f.catalog, "ETALAKE_LAKE_WAREHOUSE": f.lk}
	for k := range want {
		if env[k] == "" {
			t.Errorf("the recipe does not set %s", k)
		}
	}
	for k, v := range want {
		env[k] = v
	}
}

// check runs the workers' end checks: each key's resources asked once
// across its shards (no more, no fewer), every metrics file written and
// saying ok, and the lake holding every worker's runs.
func (f *fleet) check(t *testing.T, before int, metricsFiles []string) {
	t.Helper()
	asked := map[string]map[string]int{}
	byID := map[string]string{}
	for name, key := range f.keys {
		byID[sim.KeyID(key)] = name
	}
	for _, e := range f.env.Service.Ledger()[before:] {
		if e.Status == 429 {
			t.Errorf("a 429: %s", e.Request)
		}
		if !e.Charged {
			continue
		}
		k := byID[e.KeyID]
		if asked[k] == nil {
			asked[k] = map[string]int{}
		}
		asked[k][e.Request]++
	}
	for k := range f.keys {
		want := len(f.ships[k]) + len(f.ports[k])
		var twice []string
		for r, n := range asked[k] {
			if n > 1 {
				twice = append(twice, r)
			}
		}
		if len(asked[k]) != want || len(twice) > 0 {
			t.Errorf("key %s: its shards asked %d resources, want %d; more than once: %v", k, len(asked[k]), want, twice)
		}
	}
	for _, file := range metricsFiles {
		mf := readMetrics(t, file)
		checkStatus(t, file, mf, "ok", exitOK)
	}
	code, out, stderr := run(t, map[string]string{"ETALAKE_LAKE_CATALOG": f.catalog, "ETALAKE_LAKE_WAREHOUSE": f.lk}, "lake", "status")
	line := regexp.MustCompile(`(?m)^\s*etl_runs\s.*$`).FindString(out)
	if code != exitOK || strings.Count(line, ": ") != 2*fleetShards {
		t.Errorf("lake status: exit %d; want the runs of %d writers in etl_runs' line %q\n%s%s", code, 2*fleetShards, line, out, stderr)
	}
}

// remap moves an absolute path of the recipe under the test's root: the
// directory each mount (or host directory) stands for.
type remap map[string]string

func (m remap) apply(s string) string {
	prefixes := make([]string, 0, len(m))
	for p := range m {
		prefixes = append(prefixes, p)
	}
	// The longest first: /secrets/a before /secrets.
	slices.SortFunc(prefixes, func(a, b string) int { return len(b) - len(a) })
	for _, p := range prefixes {
		if i := strings.Index(s, p); i >= 0 && (i == 0 || s[i-1] == '@' || s[i-1] == '=') &&
			(len(s) == i+len(p) || s[i+len(p)] == '/') {
			return s[:i] + m[p] + s[i+len(p):]
		}
	}
	return s
}

// runCronJobs renders the CronJob for each key and shard, checks the
// exit-code contract it states, and runs each worker's container as a
// process: its args, its env, the ConfigMap's settings, and each mount a
// directory of its volume.
func runCronJobs(t *testing.T, tmpl string) {
	f := newFleet(t)
	root := t.TempDir()
	before := len(f.env.Service.Ledger())
	var files []string
	type worker struct {
		name string
		cmd  *exec.Cmd
	}
	var workers []worker
	for _, key := range []string{"a", "b"} {
		for i := 1; i <= fleetShards; i++ {
			doc := strings.NewReplacer("${KEY}", key, "${I}", fmt.Sprint(i), "${N}", fmt.Sprint(fleetShards)).Replace(tmpl)
			job, cm := parseWorkerYAML(t, doc)
			name := fmt.Sprintf("%s-%dof%d", key, i, fleetShards)
			if job.Metadata.Name != "etalake-"+name {
				t.Errorf("the CronJob of key %s shard %d is named %q", key, i, job.Metadata.Name)
			}
			js := job.Spec.JobTemplate.Spec
			pod := js.Template.Spec
			if job.Spec.ConcurrencyPolicy != "Forbid" || pod.RestartPolicy != "Never" || len(pod.Containers) != 1 {
				t.Fatalf("%s: concurrencyPolicy %q, restartPolicy %q, %d containers; want Forbid, Never (podFailurePolicy needs it), one", name, job.Spec.ConcurrencyPolicy, pod.RestartPolicy, len(pod.Containers))
			}
			contract := map[int]string{}
			for _, r := range js.PodFailurePolicy.Rules {
				for _, v := range r.OnExitCodes.Values {
					if r.OnExitCodes.Operator == "In" && r.OnExitCodes.ContainerName == pod.Containers[0].Name {
						contract[v] = r.Action
					}
				}
			}
			if contract[exitUsage] != "FailJob" || contract[exitBusy] != "Ignore" || contract[exitPartial] != "" || js.BackoffLimit < 1 {
				t.Errorf("%s: podFailurePolicy %v, backoffLimit %d; want 2 FailJob, 75 Ignore, 3 retried (backoffLimit ≥ 1)", name, contract, js.BackoffLimit)
			}
			c := pod.Containers[0]
			// Each mount is a directory of its volume: the worker's own
			// claim, its key's secret, the shared selection and textfile.
			m := remap{}
			for _, vm := range c.VolumeMounts {
				var dir string
				for _, v := range pod.Volumes {
					if v.Name != vm.Name {
						continue
					}
					switch {
					case v.PersistentVolumeClaim.ClaimName != "":
						dir = filepath.Join(root, "pvc", v.PersistentVolumeClaim.ClaimName)
					case v.Secret.SecretName != "":
						dir = filepath.Join(root, "secret", v.Secret.SecretName)
						f.writeSelection(t, dir, key)
					case v.ConfigMap.Name != "":
						dir = filepath.Join(root, "configmap", v.ConfigMap.Name)
						f.writeSelection(t, filepath.Join(dir, key), key)
					case v.HostPath.Path != "":
						dir = filepath.Join(root, "host", v.HostPath.Path)
					}
				}
				if dir == "" {
					t.Fatalf("%s: mount %s names no volume the test knows", name, vm.Name)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				m[vm.MountPath] = dir
			}
			env := map[string]string{}
			for k, v := range cm.Data {
				env[k] = v
			}
			f.settings(t, env)
			for _, e := range c.Env {
				env[e.Name] = m.apply(e.Value)
			}
			// The key's limit, shared by its shards as the recipe shares
			// the service's 10/10s: the simulator's 1000/1s, over N.
			if env["ETALAKE_RATE"] != fmt.Sprintf("%d/10s", 10/fleetShards) {
				t.Errorf("%s: ETALAKE_RATE %q, want the key's 10/10s shared by its %d shards", name, env["ETALAKE_RATE"], fleetShards)
			}
			env["ETALAKE_RATE"] = fmt.Sprintf("%d/1s", 1000/fleetShards)
			var args []string
			for _, a := range c.Args {
				args = append(args, m.apply(a))
			}
			var vars []string
			for k, v := range env {
				vars = append(vars, k+"="+v)
			}
			files = append(files, env["ETALAKE_METRICS_FILE"])
			workers = append(workers, worker{name, etalakeProcess(t, vars, args...)})
		}
	}
	// The CronJobs start at once.
	var outs []*bytes.Buffer
	for _, w := range workers {
		var out bytes.Buffer
		w.cmd.Stdout, w.cmd.Stderr = &out, &out
		outs = append(outs, &out)
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range workers {
		if err := w.cmd.Wait(); err != nil {
			t.Errorf("%s: %v\n%s", w.name, err, outs[i])
		}
	}
	f.check(t, before, files)
}

// workerYAML is what the test reads of the rendered template.
type workerYAML struct {
	Kind     string
	Metadata struct{ Name string }
	Data     map[string]string
	Spec     struct {
		ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
		JobTemplate       struct {
			Spec struct {
				BackoffLimit     int `yaml:"backoffLimit"`
				PodFailurePolicy struct {
					Rules []struct {
						Action      string
						OnExitCodes struct {
							ContainerName string `yaml:"containerName"`
							Operator      string
							Values        []int
						} `yaml:"onExitCodes"`
					}
				} `yaml:"podFailurePolicy"`
				Template struct {
					Spec struct {
						RestartPolicy string `yaml:"restartPolicy"`
						Containers    []struct {
							Name         string
							Args         []string
							Env          []struct{ Name, Value string }
							VolumeMounts []struct {
								Name      string
								MountPath string `yaml:"mountPath"`
							} `yaml:"volumeMounts"`
						}
						Volumes []struct {
							Name                  string
							PersistentVolumeClaim struct {
								ClaimName string `yaml:"claimName"`
							} `yaml:"persistentVolumeClaim"`
							Secret struct {
								SecretName string `yaml:"secretName"`
							}
							ConfigMap struct{ Name string } `yaml:"configMap"`
							HostPath  struct{ Path string } `yaml:"hostPath"`
						}
					}
				}
			}
		} `yaml:"jobTemplate"`
	}
}

// parseWorkerYAML parses the rendered template: a CronJob and the
// ConfigMap its container reads.
func parseWorkerYAML(t *testing.T, doc string) (job, cm workerYAML) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(doc))
	for {
		var d workerYAML
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("the README's CronJob template does not parse as YAML: %v", err)
		}
		switch d.Kind {
		case "CronJob":
			job = d
		case "ConfigMap":
			cm = d
		}
	}
	if job.Kind == "" || cm.Kind == "" {
		t.Fatal("the README's template wants a CronJob and a ConfigMap")
	}
	return job, cm
}

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
