package report

import "database/sql"

// Interval is the 95 % confidence interval the views give of an estimate,
// clustered by vessel call (ETAs) or by vessel (schedules): the units
// whose errors move together. Known is false when there is none, with
// fewer than 2 clusters.
type Interval struct {
	Lo, Hi float64
	Known  bool
}

// newInterval is the interval of two nullable bounds: known when both are.
func newInterval(lo, hi sql.NullFloat64) Interval {
	return Interval{Lo: lo.Float64, Hi: hi.Float64, Known: lo.Valid && hi.Valid}
}
