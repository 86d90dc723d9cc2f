package report

import (
	"context"
	"database/sql"
	"math"
)

// Rules are the thresholds the views apply, read from the warehouse's
// macros (sql/views/000_statistics.sql) so that the report states the
// rule the numbers were made by rather than a copy that could drift.
type Rules struct {
	// MinN is etalake_min_n(): the fewest clusters of an interval
	// (distinct vessel calls for ETAs, distinct vessels for schedules) a
	// group needs to be ranked or compared; the views' enough column
	// applies it.
	MinN int
	// MaxStalenessHours is etalake_max_staleness_hours(): an ETA seen
	// longer than this before a horizon's cut is stale, not used there.
	MaxStalenessHours float64
}

// readRules reads the rules from the warehouse's macros.
func readRules(ctx context.Context, db *sql.DB, r *Report) error {
	return db.QueryRowContext(ctx, `SELECT etalake_min_n(), etalake_max_staleness_hours()`).
		Scan(&r.Rules.MinN, &r.Rules.MaxStalenessHours)
}

// tQuantiles returns the 97.5 % quantile of Student's t for each number
// of degrees of freedom of dfs, from the warehouse's etalake_t975: the
// multiplier the views' intervals use, so that the report's ties agree
// with them. A df below 1 has none (NaN).
func tQuantiles(ctx context.Context, db *sql.DB, dfs []int) (map[int]float64, error) {
	out := map[int]float64{}
	for _, df := range dfs {
		if _, done := out[df]; done {
			continue
		}
		var t sql.NullFloat64
		if err := db.QueryRowContext(ctx, `SELECT etalake_t975(?)`, df).Scan(&t); err != nil {
			return nil, err
		}
		out[df] = math.NaN()
		if t.Valid {
			out[df] = t.Float64
		}
	}
	return out, nil
}
