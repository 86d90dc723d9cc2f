package load_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// published makes a warehouse in a new directory with two ETA
// observations, mirrored and published, and returns the directory.
func published(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	load1(t, w, memory.DefaultAllocator, schema.ETAObservations, crashRows...)
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A reader reads the warehouse and its Parquet mirror, and nothing else:
// no file is written, inside the warehouse or out, whatever the query
// tries, and no setting lifts that; the read-only queries an analyst
// writes (DESCRIBE, SUMMARIZE, PRAGMA, EXPLAIN) all run. Allowing files
// lifts it.
func TestAReaderReadsTheMirrorAndWritesNoFile(t *testing.T) {
	slowtest.Long(t)
	dir := published(t)
	outside := t.TempDir()
	mirrorFile := filepath.Join(dir, "parquet", "eta_observations", "x.parquet")
	db, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mirror := "read_parquet('" + filepath.Join(dir, "parquet", "eta_observations", "**", "*.parquet") + "', hive_partitioning = true)"
	for _, q := range []string{
		"SELECT count(*) FROM eta_observations",
		"SELECT count(*) FROM " + mirror,
		"DESCRIBE eta_observations",
		"SUMMARIZE eta_observations",
		"SHOW TABLES",
		"FROM eta_observations LIMIT 1",
		"PRAGMA table_info('eta_observations')",
		"CALL duckdb_tables()",
		"EXPLAIN SELECT * FROM eta_observations",
		"explain analyze SELECT count(*) FROM " + mirror,
	} {
		if err := load.CheckQuery(t.Context(), db, q); err != nil {
			t.Errorf("%s: refused: %v", q, err)
			continue
		}
		rows, err := db.QueryContext(t.Context(), q)
		if err == nil {
			err = rows.Close()
		}
		if err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"COPY eta_observations TO '" + mirrorFile + "'",
		"COPY eta_observations TO '" + filepath.Join(outside, "x.csv") + "'",
		"EXPORT DATABASE '" + filepath.Join(dir, "parquet", "export") + "'",
		"EXPLAIN ANALYZE COPY eta_observations TO '" + mirrorFile + "'",
		"/* first */ EXPLAIN ANALYZE COPY eta_observations TO '" + mirrorFile + "'",
		"SELECT 1; COPY eta_observations TO '" + mirrorFile + "'",
		"SET enable_external_access = true",
		"ATTACH '" + filepath.Join(outside, "new.duckdb") + "' AS n",
		"INSTALL spatial",
	} {
		if err := load.CheckQuery(t.Context(), db, q); !errors.Is(err, load.ErrQueryRefused) {
			t.Errorf("%s: %v, want it refused", q, err)
		}
	}
	// More than one statement is refused as such, in our words, not the
	// driver's ("try using PrepareContext"); SQL that does not parse is
	// DuckDB's syntax error, not a statement of the kind its first word
	// spells ("a SELEC statement").
	for _, q := range []string{"SELECT 1; SELECT 2", "SELECT 1; COPY eta_observations TO '" + mirrorFile + "'"} {
		err := load.CheckQuery(t.Context(), db, q)
		if !errors.Is(err, load.ErrQueryRefused) || !errors.Is(err, load.ErrStatements) || !strings.Contains(err.Error(), "2 statements") || strings.Contains(err.Error(), "PrepareContext") {
			t.Errorf("%s: %v, want it refused as 2 statements, one per call", q, err)
		}
	}
	var de *duckdb.Error
	if err := load.CheckQuery(t.Context(), db, "SELEC 1"); !errors.As(err, &de) || de.Type != duckdb.ErrorTypeParser || errors.Is(err, load.ErrQueryRefused) || !strings.Contains(err.Error(), `syntax error at or near "SELEC"`) {
		t.Errorf("SELEC 1: %v, want DuckDB's syntax error", err)
	}
	// DuckDB's own guard, for what the check would let through: no file
	// outside the mirror is read or written, and nothing unlocks it.
	for _, q := range []string{
		"SELECT count(*) FROM read_text('/etc/hostname')",
		"COPY eta_observations TO '" + filepath.Join(outside, "x.csv") + "'",
		"SET enable_external_access = true",
		"SET allowed_directories = ['/']",
	} {
		if _, err := db.ExecContext(t.Context(), q); err == nil {
			t.Errorf("%s: ran", q)
		}
	}
	for _, f := range []string{mirrorFile, filepath.Join(outside, "x.csv"), filepath.Join(outside, "new.duckdb"), filepath.Join(dir, "parquet", "export")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written: %v", f, err)
		}
	}
	db.Close()

	free, err := load.OpenReader(t.Context(), dir, load.DefaultOptions(), load.ReadOptions{AllowFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	if _, err := free.ExecContext(t.Context(), "COPY eta_observations TO '"+filepath.Join(outside, "x.csv")+"'"); err != nil {
		t.Errorf("with files allowed, COPY … TO: %v", err)
	}
}

// A notebook that opened the published file read-write (the default of
// Python's duckdb.connect(path)) keeps every other process out of it:
// the reader then reads a private copy, says who holds the file and what
// the copy cost, and removes the copy when closed.
func TestAReaderAnswersWhileANotebookHoldsTheFileReadWrite(t *testing.T) {
	slowtest.Long(t)
	if runtime.GOOS == "windows" {
		t.Skip("Windows locks the whole file: no copy can be read")
	}
	dir := published(t)
	nb := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	nb.Env = append(os.Environ(), helperEnv+"=hold-rw "+dir)
	stdin, err := nb.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := nb.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := nb.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = nb.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		t.Fatalf("the notebook did not hold the file: %q", line)
	}

	var snap load.Snapshot
	db, err := load.OpenReader(t.Context(), dir, load.DefaultOptions(), load.ReadOptions{Snapshot: func(s load.Snapshot) { snap = s }})
	if err != nil {
		t.Fatalf("a reader while a notebook holds the file read-write: %v", err)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM eta_observations"); n != 2 {
		t.Errorf("the copy holds %d observations, want the 2 published", n)
	}
	if snap.Holder.PID != nb.Process.Pid || snap.Bytes == 0 || snap.Dir == "" || !strings.Contains(snap.Holder.String(), "process") {
		t.Errorf("the reader was told %+v, want the notebook's pid %d and the copy's size", snap, nb.Process.Pid)
	}
	if err := load.CheckQuery(t.Context(), db, "COPY eta_observations TO '"+filepath.Join(dir, "parquet", "x.parquet")+"'"); !errors.Is(err, load.ErrQueryRefused) {
		t.Errorf("the copy's reader would write into the mirror: %v", err)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM read_parquet('"+filepath.Join(dir, "parquet", "eta_observations", "**", "*.parquet")+"')"); n != 2 {
		t.Errorf("the copy's reader reads %d rows of the mirror, want 2", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(snap.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy outlived its reader: %v", err)
	}
}
