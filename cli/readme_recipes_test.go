package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"

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
	slowtest.Require(t, "runs the README's CronJob and Airflow commands as 4 processes against one simulator and lake, about 30 s")
	text := docsText(t)
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
	root := t.TempDir()
	f.catalog, f.lk = "sqlite:///"+filepath.Join(root, "catalog.db"), "file://"+filepath.Join(root, "files")
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
