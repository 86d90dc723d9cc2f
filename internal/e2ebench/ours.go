package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// pathOursPart is the mode of a process the ours path starts for one part
// of its input, as `etalake import --part` is for the command.
const pathOursPart = "ours-part"

// runOurs is the child of mode ours: `etalake import DIR`, as the command
// does it. An input of at most partBytes is imported in this process
// (load.Open with the default options, jobs.ImportInProcess, Close); a
// larger one in parts, each by a process of this program in mode
// ours-part, as the command starts itself with --part. Every body is
// landed raw, derived through the transform, the rows loaded in batches,
// and the Parquet mirror written at the end.
func runOurs(ctx context.Context, input, warehouse string, partBytes int64) (childStats, error) {
	parts, err := jobs.PlanImport([]string{input}, partBytes)
	if err != nil {
		return childStats{}, err
	}
	run, err := jobs.PartRunnerFor(parts, opener(ctx, warehouse), []string{"-mode", pathOursPart, "-warehouse", warehouse}, os.Stderr)
	if err != nil {
		return childStats{}, err
	}
	opt := jobs.ImportOptions{Version: "e2ebench"}
	if len(parts) > 1 {
		// Each part's wall time and peak RSS, on stderr.
		opt.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	st, err := jobs.ImportParts(ctx, parts, opt, run)
	if err != nil {
		return childStats{}, err
	}
	if st.DeadLetters > 0 {
		return childStats{}, fmt.Errorf("%d dead letters: the duckdb path writes none, so the paths would not compare", st.DeadLetters)
	}
	return childStats{Bodies: int64(st.Bodies), Rows: st.Rows, Parts: len(parts)}, nil
}

// opener opens the warehouse as the command does.
func opener(ctx context.Context, warehouse string) func() (*load.Warehouse, error) {
	return func() (*load.Warehouse, error) { return load.Open(ctx, warehouse, load.DefaultOptions()) }
}

// runOursPart is mode ours-part: one part, read from standard input, its
// report written to standard output.
func runOursPart(ctx context.Context, warehouse string) error {
	return jobs.ImportPartFrom(ctx, opener(ctx, warehouse), os.Stdin, os.Stdout, jobs.ImportOptions{Version: "e2ebench"})
}
