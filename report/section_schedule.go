package report

import (
	"fmt"
	"strings"
)

func (r *Report) scheduleSection() section {
	s := section{
		ID:    secSchedule,
		Title: "Schedule reliability by carrier",
		Intro: "Port calls whose outcome is known, each counted once: arrived, or already more than 24 h past the plan " +
			"when last seen (counted late). A call is on time when the vessel arrived within ±24 h of the first planned " +
			"arrival seen (Sea-Intelligence's definition). In brackets, the 95 % interval of the share, clustered by " +
			"vessel: a vessel's delay carries over to its next calls.",
	}
	if !r.hasSchedule() {
		s.Missing = sentence(missingCalls)
		return s
	}
	t := &table{Cols: reliabilityCols("carrier")}
	t.Cols = append(t.Cols, column{Name: "mean delay of late h", Right: true})
	var seen reliabilityFlags
	for _, c := range r.Schedule {
		seen.see(c)
		t.Rows = append(t.Rows, append(reliabilityRow(c.Carrier, c), delayCell(c)))
	}
	t.Total = append(reliabilityRow("all", r.ScheduleAll), delayCell(r.ScheduleAll))
	s.Table = t
	s.Notes = []string{"Carriers in order of their on-time share, without ranks: where two intervals overlap, the calls " +
		"do not tell which carrier was the more punctual."}
	s.Notes = append(s.Notes, reliabilityColumns)
	s.Notes = append(s.Notes, seen.notes(r.Rules.MinN, "carriers")...)
	return s
}

func (r *Report) monthsSection() section {
	s := section{
		ID:    secMonths,
		Title: "Schedule reliability by month",
		Intro: "Every carrier's port calls by the UTC month of their planned arrival, judged as above. A month is " +
			"complete once it and the 24 h after it are over by the newest schedule observed and none of its calls " +
			"is still pending or late and not yet arrived; until then its figures can still move.",
	}
	if !r.hasSchedule() {
		s.Missing = sentence(missingCalls)
		return s
	}
	t := &table{Cols: append(reliabilityCols("month"), column{Name: "status"})}
	var incomplete []string
	var seen reliabilityFlags
	for _, m := range r.ScheduleMonths {
		name := m.Month.Format("2006-01")
		status := "complete"
		if !m.MonthComplete {
			status = "incomplete"
			left := "calls of it may still come"
			switch {
			case m.Pending > 0:
				left = plural(m.Pending, "call", "calls") + " still pending"
			case m.LateNotArrived > 0:
				left = plural(m.LateNotArrived, "call", "calls") + " late and not yet arrived"
			}
			incomplete = append(incomplete, fmt.Sprintf("%s is incomplete: %s, the share can still move.", name, left))
		}
		seen.see(m)
		t.Rows = append(t.Rows, append(reliabilityRow(name, m), status))
	}
	t.Total = append(reliabilityRow("all", r.ScheduleAll), "")
	s.Table = t
	// The columns are those of the table above, explained there.
	s.Notes = append(incomplete, seen.notes(r.Rules.MinN, "")...)
	return s
}

// hasSchedule reports whether any port call is due, judged or not.
func (r *Report) hasSchedule() bool {
	return r.Span.Calls > 0 || r.Span.Pending > 0 || r.Span.Omitted > 0
}

// reliabilityCols are the columns of a reliability table after its first,
// named first.
func reliabilityCols(first string) []column {
	return []column{{Name: first}, {Name: "calls", Right: true}, {Name: "vessels", Right: true}, {Sub: true},
		{Name: "on time", Right: true}, {Sub: true},
		{Name: "late", Right: true}, {Sub: true}, {Name: "early", Right: true}, {Name: "pending", Right: true}}
}

// tooFew marks a row whose calls were judged but whose vessels, the
// clusters of its interval, are fewer than the views' minimum.
const tooFew = "too few"

// reliabilityRow renders s under the name: a share only when a call was
// judged, "–" otherwise; its vessels marked too few when not enough.
func reliabilityRow(name string, s Reliability) []string {
	share, ci, few := none, "", ""
	if s.judged() {
		share, ci = percent(s.OnTimeShare), percentCI(s.OnTimeCI)
		if !s.Enough {
			few = tooFew
		}
	}
	notArrived := ""
	if s.LateNotArrived > 0 {
		notArrived = "(" + count(s.LateNotArrived) + ")"
	}
	return []string{name, count(s.Calls), count(s.Vessels), few, share, ci, count(s.Late), notArrived, count(s.Early), count(s.Pending)}
}

func delayCell(s Reliability) string {
	if !s.DelayKnown {
		return none
	}
	return hours(s.AvgDelayLateHours)
}

// reliabilityColumns explains the columns of a reliability table.
const reliabilityColumns = "vessels: the distinct vessels of those calls, the clusters of the interval. " +
	"late: more than 24 h after the plan; in brackets, those of them not arrived yet. pending: due, " +
	"but neither arrived nor yet 24 h late when last seen: not judged, not in calls. Calls seen only by " +
	"port-to-port schedules, which show no actual arrivals, and calls whose plan was first seen after they " +
	"were due (no baseline: a warehouse's first nights see the past weeks so), are not counted, nor " +
	"calls the schedule dropped before they were due (omitted: no longer shown by their port's or vessel's " +
	"schedule on two later nights; a port omission, or a voyage sailed by another ship)."

// reliabilityFlags are the kinds of rows a reliability table showed
// that its notes explain.
type reliabilityFlags struct {
	few       bool // judged, on too few vessels to compare
	unjudged  bool // no call judged, only pending ones
	oneVessel bool // judged, but no interval: one vessel
}

func (f *reliabilityFlags) see(s Reliability) {
	f.few = f.few || (s.judged() && !s.Enough)
	f.unjudged = f.unjudged || !s.judged()
	f.oneVessel = f.oneVessel || (s.judged() && !s.OnTimeCI.Known)
}

// notes explain the rows that want it: too few vessels to compare, none
// judged, or no interval. rows names the rows when the table lists those
// of too few vessels after the others ("carriers"); "" when it does not.
func (f reliabilityFlags) notes(minN int, rows string) []string {
	var more []string
	if f.few {
		few := fmt.Sprintf("too few: the calls of fewer than %d vessels, not compared (a vessel's delay carries "+
			"over to its next calls: its calls are one draw, however many)", minN)
		if rows != "" {
			few += ", listed after the other " + rows
		}
		more = append(more, few)
	}
	if f.unjudged {
		more = append(more, "–: no call judged yet, only pending ones")
	}
	if f.oneVessel {
		more = append(more, "no interval: the calls of a single vessel")
	}
	if len(more) == 0 {
		return nil
	}
	return []string{capitalize(strings.Join(more, "; ")) + "."}
}
