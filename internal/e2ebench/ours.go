package main

import (
	"context"
	"fmt"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// runOurs is the child of mode ours: `etalake import DIR`, as the command
// does it (load.Open with the default options, jobs.Import, Close). The
// import lands every body raw, derives it through the transform, loads
// the rows in batches and writes the Parquet mirror at the end.
func runOurs(ctx context.Context, input, warehouse string) (childStats, error) {
	wh, err := load.Open(ctx, warehouse, load.DefaultOptions())
	if err != nil {
		return childStats{}, err
	}
	defer wh.Close()
	st, err := jobs.Import(ctx, wh, []string{input}, jobs.ImportOptions{Version: "e2ebench"})
	if err != nil {
		return childStats{}, err
	}
	if st.DeadLetters > 0 {
		return childStats{}, fmt.Errorf("%d dead letters: the duckdb path writes none, so the paths would not compare", st.DeadLetters)
	}
	return childStats{Bodies: int64(st.Bodies), Rows: st.Rows}, wh.Close()
}
