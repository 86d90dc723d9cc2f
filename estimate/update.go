package estimate

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"
)

// Scope is what an Update recomputes: Whole, everything; else what the
// shipments Shipments (a query of shipment_number values) landed that
// the tables do not hold yet, and everything observed after it.
type Scope struct {
	Whole     bool
	Shipments string
}

// Result says what an Update did: the UTC day it recomputed from (zero:
// nothing to do), the estimates and the arrivals' rows it wrote.
type Result struct {
	From      time.Time
	Estimates int
	Learned   int
}

// chunk is how many days of observations are read at once.
const chunk = 7

// Update brings arrival_estimates and arrival_learning up to the
// warehouse's observations on conn, in one transaction: it finds the
// earliest observation of scope not yet estimated (or arrival not yet
// learned), deletes both tables' rows from its UTC day on, and computes
// them again day by day, each day's estimates from the model of the
// arrivals known before it. A night's job thus costs one day, the 120
// days of arrivals the model reads and that day's observations, whatever
// the warehouse's age.
func Update(ctx context.Context, conn *sql.Conn, scope Scope) (Result, error) {
	from, err := start(ctx, conn, scope)
	if err != nil || from.IsZero() {
		return Result{}, err
	}
	res := Result{From: from}
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return res, err
	}
	if err := update(ctx, conn, &res); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return res, fmt.Errorf("estimate: computing the arrival estimates from %s: %w", from.Format(time.DateOnly), err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return res, fmt.Errorf("estimate: commit: %w", err)
	}
	return res, nil
}

// update is Update inside its transaction.
func update(ctx context.Context, conn *sql.Conn, res *Result) error {
	from := res.From
	for _, q := range []string{
		"DELETE FROM arrival_estimates WHERE observed_at >= ?",
		"DELETE FROM arrival_learning WHERE known_at >= ?",
	} {
		if _, err := conn.ExecContext(ctx, q, from); err != nil {
			return err
		}
	}
	learned, err := readLearned(ctx, conn, from.Add(-Window), from)
	if err != nil {
		return err
	}
	arrivals, err := readArrivals(ctx, conn, from)
	if err != nil {
		return err
	}
	p := newPass(learned, arrivals)
	if err := p.readPast(ctx, conn, from); err != nil {
		return err
	}
	last, err := lastObserved(ctx, conn, from)
	if err != nil {
		return err
	}
	w, err := newWriter(ctx, conn)
	if err != nil {
		return err
	}
	for d := from; !d.After(last); d = d.Add(chunk * day) {
		obs, err := readObs(ctx, conn, d, d.Add(chunk*day))
		if err != nil {
			return w.close(err)
		}
		for t := d; t.Before(d.Add(chunk*day)) && !t.After(last); t = t.Add(day) {
			if err := p.day(t, obs, w); err != nil {
				return w.close(err)
			}
		}
	}
	res.Estimates, res.Learned = w.estimates, w.learned
	return w.close(nil)
}

// pass is one Update's state: the arrivals known so far in the model's
// reach, the arrivals still to come, and the estimates of their targets.
type pass struct {
	learned  []Learned
	arrivals []Arrival // by KnownAt
	next     int       // the first arrival not yet learned
	rows     map[Key][]Row
}

func newPass(learned []Learned, arrivals []Arrival) *pass {
	p := &pass{learned: learned, arrivals: arrivals, rows: map[Key][]Row{}}
	for _, a := range arrivals {
		p.rows[a.Key] = nil
	}
	return p
}

// day estimates the observations of the day that starts at d (obs are
// by ObservedAt), then learns the arrivals known that day.
func (p *pass) day(d time.Time, obs []Obs, w *writer) error {
	end := d.Add(24 * time.Hour)
	keep := p.learned[:0]
	for _, l := range p.learned {
		if !l.KnownAt.Before(d.Add(-Window)) {
			keep = append(keep, l)
		}
	}
	p.learned = keep
	m := NewModel(d, p.learned)
	i := sort.Search(len(obs), func(i int) bool { return !obs[i].ObservedAt.Before(d) })
	for ; i < len(obs) && obs[i].ObservedAt.Before(end); i++ {
		r := m.Estimate(obs[i])
		if rows, ok := p.rows[r.Key]; ok {
			p.rows[r.Key] = append(rows, r)
		}
		if err := w.estimate(r); err != nil {
			return err
		}
	}
	for ; p.next < len(p.arrivals) && p.arrivals[p.next].KnownAt.Before(end); p.next++ {
		a := p.arrivals[p.next]
		for _, l := range learn(a, p.rows[a.Key]) {
			p.learned = append(p.learned, l)
			if err := w.learn(l, a); err != nil {
				return err
			}
		}
		delete(p.rows, a.Key)
	}
	return nil
}
