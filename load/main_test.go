package load_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/childproc"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/schema"
)

// helperEnv makes the test binary a helper process (see TestMain): its
// value is "<mode> <dir>".
const helperEnv = "ETALAKE_LOAD_TEST_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		mode, dir, _ := strings.Cut(v, " ")
		os.Exit(helper(mode, dir))
	}
	childproc.QuickExit()
	os.Exit(loadtest.Main(m))
}

// holdReadWrite opens the published database read-write, as a notebook's
// duckdb.connect(path) does, says "held", and holds it until its stdin
// closes.
func holdReadWrite(ctx context.Context, dir string) int {
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb"))
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer db.Close()
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// helper runs in a child process: "hold-rw" holds the published database
// open read-write (holdReadWrite); "open" tries to open the warehouse and
// says how it went; "load-and-die" loads rows and exits without closing
// anything, as a crashed job would; "count" opens the published warehouse
// read-only and prints how many ETA observations it holds.
func helper(mode, dir string) int {
	ctx := context.Background()
	if mode == "hold-rw" {
		return holdReadWrite(ctx, dir)
	}
	if mode == "count" {
		db, err := load.OpenReadOnly(ctx, dir, load.DefaultOptions())
		if err != nil {
			fmt.Println(err)
			return 1
		}
		defer db.Close()
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM eta_observations").Scan(&n); err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Println(n)
		return 0
	}
	w, err := load.Open(ctx, dir, load.Options{Now: clock})
	var busy *load.BusyError
	switch {
	case errors.As(err, &busy):
		fmt.Printf("busy pid=%d: %v\n", busy.Holder.PID, err)
		return 0
	case err != nil:
		fmt.Printf("error: %v\n", err)
		return 1
	}
	switch mode {
	case "open":
		fmt.Println("opened")
		return errorCode(w.Close())
	case "load-and-die":
		rec, err := newRecord(memory.DefaultAllocator, schema.ETAObservations, crashRows...)
		if err == nil {
			_, err = w.Load(ctx, []schema.Rows{{Table: schema.ETAObservations, Rec: rec}})
		}
		if err != nil {
			fmt.Println(err)
			return 1
		}
		os.Exit(3) // no Close, no SyncParquet
	}
	return 1
}

var crashRows = []row{
	etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"),
	etaObs("S2", "2024-01-02T10:00:00Z", "2024-01-09T00:00:00Z", "r2"),
}

func errorCode(err error) int {
	if err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// child runs the test binary as a helper on dir and returns its output.
func child(t *testing.T, mode, dir string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode+" "+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
