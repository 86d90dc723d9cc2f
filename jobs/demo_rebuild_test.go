package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// A demo run again over a previous demo's warehouse keeps the readers'
// promise a job keeps: a reader of the published database, and one of
// the Parquet mirror, sees the previous demo's last published state
// until the new demo publishes, then whole published states only —
// never an error ("database does not exist", "No files found") and
// never an empty warehouse between the two demos.
func TestDemoRebuiltKeepsItsReaders(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	opt := jobs.DemoOptions{Days: 2, WorldDays: 9, Dir: dir, Seed: 3, Shipments: 10}
	if _, err := jobs.Demo(ctx, opt); err != nil {
		t.Fatal(err)
	}
	r := &demoReader{dir: dir}
	if got := r.poll(ctx); got != "" {
		t.Fatalf("the first demo's warehouse: %s", got)
	}
	// A reader polls at the moments the rebuild could blank it: once the
	// second demo has set the directory up (Began, before its first
	// night), and after each of its nights' publishes, while the demo
	// waits.
	opt.Began = func(jobs.DemoSetup) { r.poll(ctx) }
	opt.Night = func(jobs.DemoNight) { r.poll(ctx) }
	if _, err := jobs.Demo(ctx, opt); err != nil {
		t.Fatal(err)
	}
	r.poll(ctx)
	if len(r.seen) == 0 {
		t.Fatal("no reader polled during the second demo: the test tests nothing")
	}
	for _, s := range r.seen {
		if s != "" {
			t.Errorf("a reader during the demo's rebuild: %s", s)
		}
	}
}

// demoReader reads a warehouse directory as its readers do: the
// published database (load.OpenReadOnly) and the mirror's files through
// a DuckDB of its own, as a notebook globs them.
type demoReader struct {
	dir  string
	mu   sync.Mutex
	seen []string // "" for a poll that read runs, else what went wrong
}

// poll reads the runs both ways, records what it saw, and returns it.
func (r *demoReader) poll(ctx context.Context) string {
	got := errors.Join(r.published(ctx), r.mirror(ctx))
	s := ""
	if got != nil {
		s = got.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
	return s
}

func (r *demoReader) published(ctx context.Context) error {
	db, err := load.OpenReadOnly(ctx, r.dir, load.Options{})
	if err != nil {
		return fmt.Errorf("opening the published database: %w", err)
	}
	defer db.Close()
	return countRuns(ctx, db, "SELECT count(*) FROM etl_runs", "the published database")
}

func (r *demoReader) mirror(ctx context.Context) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	glob := filepath.Join(r.dir, "parquet", "etl_runs", "**", "*.parquet")
	return countRuns(ctx, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning = true)", glob), "the mirror")
}

func countRuns(ctx context.Context, db *sql.DB, q, what string) error {
	var n int64
	if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s has 0 runs", what)
	}
	return nil
}

// The demo refuses a directory holding any warehouse but a previous
// demo's, and leaves it as it was.
func TestDemoRefusesAnotherWarehouse(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.SaveRun(ctx, &load.Run{ID: "nightly-1", Job: "run", StartedAt: time.Now(), Status: load.StatusOK}); err != nil {
		t.Fatal(err)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = jobs.Demo(ctx, jobs.DemoOptions{Days: 1, Dir: dir, Seed: 3, Shipments: 10})
	if !errors.Is(err, jobs.ErrNotADemo) {
		t.Fatalf("a demo over a nightly run's warehouse: %v, want %v", err, jobs.ErrNotADemo)
	}
	r := &demoReader{dir: dir}
	if got := r.poll(ctx); got != "" {
		t.Errorf("the warehouse the demo refused: %s", got)
	}
}
