package report

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
)

// Reliability is one carrier's row of schedule_reliability over its whole
// history and every port: a call is on time when the vessel arrived within
// ±24 h of the first planned arrival observed.
type Reliability struct {
	Carrier     string
	Calls       int
	OnTime      int
	OnTimeShare float64 // OnTime / Calls, 0 to 1
	// Late counts the calls more than 24 h late (the others off time were
	// early); AvgDelayLateHours is their mean delay, 0 when there is none.
	Late              int
	AvgDelayLateHours float64
}

// unknownCarrier names the port calls of no carrier.
const unknownCarrier = "(unknown)"

// readSchedule reads the whole-history rows of schedule_reliability, the
// most punctual carrier first.
func readSchedule(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT carrier, n_calls, on_time_share, n_late, avg_delay_late_hours
		FROM schedule_reliability
		WHERE port_locode IS NULL AND month IS NULL`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var carrier sql.NullString
		var delay sql.NullFloat64
		var s Reliability
		if err := rows.Scan(&carrier, &s.Calls, &s.OnTimeShare, &s.Late, &delay); err != nil {
			return err
		}
		s.Carrier = cmp.Or(carrier.String, unknownCarrier)
		s.OnTime = int(math.Round(s.OnTimeShare * float64(s.Calls)))
		s.AvgDelayLateHours = delay.Float64
		r.Schedule = append(r.Schedule, s)
		r.Span.Calls += s.Calls
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortFunc(r.Schedule, func(a, b Reliability) int {
		if c := cmp.Compare(b.OnTimeShare, a.OnTimeShare); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Calls, a.Calls); c != 0 {
			return c
		}
		return cmp.Compare(a.Carrier, b.Carrier)
	})
	return nil
}

// OnTimeShare is the share of every carrier's calls that were on time, 0
// to 1 (0 without a call).
func (r *Report) OnTimeShare() float64 {
	var on, all int
	for _, s := range r.Schedule {
		on += s.OnTime
		all += s.Calls
	}
	if all == 0 {
		return 0
	}
	return float64(on) / float64(all)
}
