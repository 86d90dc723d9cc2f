package report

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"
)

// Reliability is one row of schedule_reliability: a carrier's port calls
// over its whole history and every port, a month's over every carrier, or
// every call. A call is on time when the vessel arrived within ±24 h of
// the first planned arrival observed.
type Reliability struct {
	Carrier string    // level carrier; "" otherwise
	Month   time.Time // level month, its first day in UTC; zero otherwise
	// Calls counts the calls whose outcome is known: arrived, or already
	// more than 24 h late when last seen. Vessels counts their vessels,
	// the clusters of the interval (a vessel's delay carries over).
	Calls   int
	Vessels int
	OnTime  int
	// OnTimeShare is OnTime / Calls, 0 to 1, meaningless without a call
	// judged (Calls 0); OnTimeCI is its 95 % Wilson interval.
	OnTimeShare float64
	OnTimeCI    Interval
	// Enough: Vessels reaches Rules.MinN, the view's rule: a share of
	// many calls of few vessels is still few draws, and is not compared.
	Enough bool
	// Late counts the calls more than 24 h late, LateNotArrived those of
	// them not arrived yet; Early those more than 24 h early.
	Late, LateNotArrived, Early int
	// Pending counts the calls due but not judged yet: not arrived, and
	// not yet 24 h past the plan when last seen. They are not in Calls.
	Pending int
	// Omitted counts the calls not arrived that their port's or vessel's
	// schedule dropped before they were due: not judged, not in Calls.
	Omitted int
	// AvgDelayLateHours is the mean delay of the late calls that arrived;
	// DelayKnown is false when none did.
	AvgDelayLateHours float64
	DelayKnown        bool
	// MonthComplete (level month): the month and the 24 h after it were
	// over by the newest schedule observed and no call of it was pending
	// or late and not arrived; when not, its figures can still move.
	MonthComplete bool
}

// judged reports whether any of the calls has a known outcome, without
// which there is no share.
func (s Reliability) judged() bool { return s.Calls > 0 }

// readSchedule reads schedule_reliability: each carrier's row into
// Schedule (enough calls first, then by share, the most punctual first),
// each month's into ScheduleMonths, and every call's into ScheduleAll.
func readSchedule(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT level, carrier, month, n_calls, n_vessels, n_on_time, on_time_share, on_time_lo, on_time_hi, enough,
		       n_late, n_late_not_arrived, n_early, n_unknown, n_omitted, avg_delay_late_hours, month_complete
		FROM schedule_reliability
		WHERE level IN ('carrier', 'month', 'all')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level string
		var carrier sql.NullString
		var month sql.NullTime
		var share, lo, hi, delay sql.NullFloat64
		var complete sql.NullBool
		var s Reliability
		if err := rows.Scan(&level, &carrier, &month, &s.Calls, &s.Vessels, &s.OnTime, &share, &lo, &hi, &s.Enough,
			&s.Late, &s.LateNotArrived, &s.Early, &s.Pending, &s.Omitted, &delay, &complete); err != nil {
			return err
		}
		s.OnTimeShare, s.OnTimeCI = share.Float64, newInterval(lo, hi)
		s.AvgDelayLateHours, s.DelayKnown = delay.Float64, delay.Valid
		switch level {
		case "carrier":
			s.Carrier = cmp.Or(carrier.String, unknownCarrier)
			r.Schedule = append(r.Schedule, s)
		case "month":
			s.Month, s.MonthComplete = month.Time.UTC(), complete.Bool
			r.ScheduleMonths = append(r.ScheduleMonths, s)
		case "all":
			r.ScheduleAll = s
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.Span.Calls, r.Span.Pending, r.Span.Omitted = r.ScheduleAll.Calls, r.ScheduleAll.Pending, r.ScheduleAll.Omitted
	// Carriers of too few vessels after the others, since a share of one
	// or two vessels would head the list by luck; those without a call
	// judged (no share) last.
	slices.SortFunc(r.Schedule, func(a, b Reliability) int {
		return cmp.Or(
			-cmp.Compare(b2i(a.Enough), b2i(b.Enough)),
			-cmp.Compare(b2i(a.judged()), b2i(b.judged())),
			cmp.Compare(b.OnTimeShare, a.OnTimeShare),
			cmp.Compare(b.Calls, a.Calls),
			cmp.Compare(a.Carrier, b.Carrier))
	})
	slices.SortFunc(r.ScheduleMonths, func(a, b Reliability) int { return a.Month.Compare(b.Month) })
	return nil
}
