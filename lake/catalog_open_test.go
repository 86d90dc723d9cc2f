package lake_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
)

// A fleet's workers start at one moment, and on the first night they
// find the Postgres catalog empty: each creates the catalog's tables and
// the namespace. Postgres's CREATE TABLE IF NOT EXISTS is not safe
// against itself — two sessions creating one table at once, one fails on
// pg_type's unique index (SQLSTATE 23505) — and a slow-tier run of four
// writers once failed so. Eight workers open each of several fresh
// catalogs at once: every one opens.
func TestWorkersOpenAFreshPostgresCatalogAtOnce(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	admin, err := sql.Open("pgx", pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const rounds, workers = 3, 8
	for r := range rounds {
		name := fmt.Sprintf("catalog%d", r)
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			t.Fatal(err)
		}
		cfg := lake.Config{
			Catalog:   strings.Replace(pg.URL, "/postgres?", "/"+name+"?", 1),
			Warehouse: "file://" + filepath.Join(t.TempDir(), "files"),
		}
		start := make(chan struct{})
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				lk, err := lake.Open(context.Background(), cfg, lake.Options{})
				if err == nil {
					err = lk.Close()
				}
				errs <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", r, err)
			}
		}
	}
}
