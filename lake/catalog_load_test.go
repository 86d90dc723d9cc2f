package lake_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load/loadtest"
)

// envCatalogLoad turns on the measurement of the Postgres catalog under
// concurrent writers (docs/scale.md): it takes minutes on two cores and
// asserts only that every commit lands, so it runs only when asked.
const envCatalogLoad = "ETALAKE_MEASURE_CATALOG"

// The Postgres catalog under 1, 4 and 16 writer processes committing at
// once: each job's lake commit (every table, one snapshot each) and its
// conflict retries, as the publish line of each job logs them.
func TestCatalogUnderConcurrentWriters(t *testing.T) {
	if os.Getenv(envCatalogLoad) != "1" {
		t.Skipf("a measurement for docs/scale.md: run with %s=1", envCatalogLoad)
	}
	const jobsEach = 2
	tpl := template(t)
	for _, writers := range []int{1, 4, 16} {
		t.Run(strconv.Itoa(writers), func(t *testing.T) {
			cfg := postgresLake(t)
			var cmds []*exec.Cmd
			var logs []*bytes.Buffer
			for range writers {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), envDir+"="+loadtest.CopyDir(t, tpl), envCatalog+"="+cfg.Catalog, envWarehouse+"="+cfg.Warehouse,
					envJobs+"="+strconv.Itoa(jobsEach), envLog+"=1")
				var buf bytes.Buffer
				cmd.Stderr = &buf
				logs = append(logs, &buf)
				cmds = append(cmds, cmd)
			}
			start := time.Now()
			for _, c := range cmds {
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("writer %d failed: %v\n%s", i, err, logs[i])
				}
			}
			wall := time.Since(start)
			var took []time.Duration
			retries, tables := 0, 0
			for _, buf := range logs {
				lines := bufio.NewScanner(buf)
				lines.Buffer(nil, 1<<20)
				for lines.Scan() {
					var ev struct {
						Msg     string `json:"msg"`
						Lake    string `json:"lake"`
						Tables  int    `json:"lake_tables"`
						Retries int    `json:"lake_retries"`
					}
					if json.Unmarshal(lines.Bytes(), &ev) != nil || ev.Msg != "published the warehouse for readers" || ev.Lake == "" {
						continue
					}
					d, err := time.ParseDuration(ev.Lake)
					if err != nil {
						t.Fatal(err)
					}
					took = append(took, d)
					retries += ev.Retries
					tables += ev.Tables
				}
			}
			if len(took) != writers*jobsEach {
				t.Fatalf("%d lake commits logged; want %d", len(took), writers*jobsEach)
			}
			slices.Sort(took)
			lk := open(t, cfg, lake.Options{})
			if runs := commitsPerRun(t, lk, "etl_runs"); len(runs) != writers*jobsEach {
				t.Errorf("%d runs committed to etl_runs, want %d", len(runs), writers*jobsEach)
			}
			t.Logf("%2d writers × %d jobs: a job's lake commit (%d table commits in all) median %v, p95 %v, max %v; %d conflict retries (%.2f a table commit); wall %v",
				writers, jobsEach, tables, took[len(took)/2].Round(time.Millisecond), took[len(took)*95/100].Round(time.Millisecond),
				took[len(took)-1].Round(time.Millisecond), retries, float64(retries)/float64(max(tables, 1)), wall.Round(time.Millisecond))
		})
	}
}
