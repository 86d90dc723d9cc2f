package estimate

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"
)

// Scope is what an Update recomputes: Whole, everything; else what the
// shipments Shipments (a query of shipment_number values; empty: every
// shipment) landed, or lost, that the tables do not hold yet, and
// everything observed after it.
type Scope struct {
	Whole     bool
	Shipments string
	// Changed, when set, is called inside Update's transaction with the
	// UTC day it recomputes from, before anything is written: what the
	// caller records of the change commits, or rolls back, with it.
	Changed func(ctx context.Context, conn *sql.Conn, from time.Time) error
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
	if err != nil {
		return Result{}, fmt.Errorf("estimate: finding what to compute: %w", err)
	}
	if from.IsZero() {
		return Result{}, nil
	}
	res := Result{From: from}
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return res, err
	}
	err = nil
	if scope.Changed != nil {
		err = scope.Changed(ctx, conn, from)
	}
	if err == nil {
		err = update(ctx, conn, &res)
	}
	if err != nil {
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
		// Withdrawals from then on are found again.
		"UPDATE arrival_learning SET withdrawn_at = NULL WHERE withdrawn_at >= ?",
	} {
		if _, err := conn.ExecContext(ctx, q, from); err != nil {
			return err
		}
	}
	learned, err := readLearned(ctx, conn, from.Add(-Window), from)
	if err != nil {
		return err
	}
	last, err := lastObserved(ctx, conn, from)
	if err != nil {
		return err
	}
	w := &writer{conn: conn}
	p := newPass(from, learned)
	for d := from; !d.After(last); d = d.Add(chunk * day) {
		obs, err := readObs(ctx, conn, d, d.Add(chunk*day))
		if err != nil {
			return err
		}
		if err := p.lookUp(ctx, conn, obs); err != nil {
			return err
		}
		for t := d; t.Before(d.Add(chunk*day)) && !t.After(last); t = t.Add(day) {
			if err := p.day(ctx, t, obs, w); err != nil {
				return err
			}
		}
	}
	if err := p.write(ctx, w); err != nil {
		return err
	}
	res.Estimates, res.Learned = w.estimates, w.learned
	return w.flush(ctx)
}

// pass is one Update's state: the arrivals known in the model's reach,
// which targets stand arrived, and the estimates of the targets that may
// yet arrive.
type pass struct {
	from time.Time
	// learned are the arrivals in the model's reach; fresh those of this
	// pass (written at its end, with their withdrawals).
	learned []Learned
	fresh   []Learned
	// standing: the target's latest reported arrival stands (not taken
	// back); looked: standing was read for the target; known: when its
	// latest arrival was reported (an arrival reported again learns from
	// the estimates made since).
	standing, looked map[Key]bool
	known            map[Key]time.Time
	// withdrawn are the arrivals known before from taken back in this
	// pass, by target: when.
	withdrawn map[Key]time.Time
	rows      map[Key][]Row
	pastRead  map[Key]bool
}

func newPass(from time.Time, learned []Learned) *pass {
	return &pass{from: from, learned: learned, standing: map[Key]bool{}, looked: map[Key]bool{}, known: map[Key]time.Time{},
		withdrawn: map[Key]time.Time{}, rows: map[Key][]Row{}, pastRead: map[Key]bool{}}
}

// lookUp reads whether the targets of obs not looked up yet stand
// arrived as of from.
func (p *pass) lookUp(ctx context.Context, conn *sql.Conn, obs []observed) error {
	var keys []Key
	for _, o := range obs {
		if !p.looked[o.Key] {
			p.looked[o.Key] = true
			keys = append(keys, o.Key)
		}
	}
	return readStanding(ctx, conn, p.from, keys, p.standing, p.known)
}

// day estimates the observations of the day that starts at d (obs are
// by ObservedAt) with the model of the arrivals known before it, notes
// the arrivals reported and taken back that day, and learns the arrivals
// that still stand at its end.
func (p *pass) day(ctx context.Context, d time.Time, obs []observed, w *writer) error {
	end := d.Add(day)
	keep := p.learned[:0]
	for _, l := range p.learned {
		if !l.KnownAt.Before(d.Add(-Window)) {
			keep = append(keep, l)
		}
	}
	p.learned = keep
	m := NewModel(d, p.learned)
	// without: the models of the targets whose arrival, learned from by
	// m, was taken back today.
	without := map[Key]*Model{}
	var arrived []Arrival
	i := sort.Search(len(obs), func(i int) bool { return !obs[i].ObservedAt.Before(d) })
	for ; i < len(obs) && obs[i].ObservedAt.Before(end); i++ {
		o := obs[i]
		if o.Actual {
			if !p.standing[o.Key] {
				p.standing[o.Key] = true
				arrived = append(arrived, Arrival{Key: o.Key, KnownAt: o.ObservedAt, ActualAt: o.ETA})
			}
			continue
		}
		if p.standing[o.Key] {
			p.standing[o.Key] = false
			var taught bool
			arrived, taught = p.withdraw(d, o.Key, o.ObservedAt, arrived)
			if taught && without[o.Key] == nil {
				// Its own arrival, taken back: not learned from.
				k := o.Key
				without[o.Key] = newModel(d, p.learned, &k)
			}
		}
		mm := m
		if own := without[o.Key]; own != nil {
			mm = own
		}
		r := mm.Estimate(o.Obs)
		p.rows[r.Key] = append(p.rows[r.Key], r)
		if err := w.estimate(ctx, r); err != nil {
			return err
		}
	}
	return p.learn(ctx, w.conn, d, arrived)
}

// withdraw notes that the arrival of k standing was taken back at at: an
// arrival of this day is dropped (it teaches nothing), an earlier one
// teaches nothing from the day after d. taught says whether the model of
// d learned from it.
func (p *pass) withdraw(d time.Time, k Key, at time.Time, arrived []Arrival) (_ []Arrival, taught bool) {
	for i := len(arrived) - 1; i >= 0; i-- {
		if arrived[i].Key == k {
			return append(arrived[:i], arrived[i+1:]...), false
		}
	}
	fresh := false
	for i := range p.fresh {
		if p.fresh[i].Key == k && p.fresh[i].WithdrawnAt.IsZero() {
			p.fresh[i].WithdrawnAt, fresh = at, true
		}
	}
	for i := range p.learned {
		l := &p.learned[i]
		if l.Key == k && l.WithdrawnAt.IsZero() {
			taught = taught || l.teaches(d, nil)
			l.WithdrawnAt = at
		}
	}
	if !fresh {
		p.withdrawn[k] = at // learned before this pass: its rows are updated
	}
	return arrived, taught
}

// learn learns the arrivals reported on day d that still stand, from
// their estimates (those made before from read once from the table).
func (p *pass) learn(ctx context.Context, conn *sql.Conn, d time.Time, arrived []Arrival) error {
	var need []Key
	for _, a := range arrived {
		if !p.pastRead[a.Key] {
			need = append(need, a.Key)
		}
	}
	if err := p.readPast(ctx, conn, need, d); err != nil {
		return err
	}
	for _, a := range arrived {
		rows := p.rows[a.Key]
		if prev, ok := p.known[a.Key]; ok {
			rows = since(rows, prev)
		}
		p.known[a.Key] = a.KnownAt
		ls := learn(a, rows)
		p.learned = append(p.learned, ls...)
		p.fresh = append(p.fresh, ls...)
		delete(p.rows, a.Key)
	}
	// Estimates older than the model's reach teach nothing.
	for k, rs := range p.rows {
		if len(rs) > 0 && rs[len(rs)-1].ObservedAt.Before(d.Add(-Window)) {
			delete(p.rows, k)
		}
	}
	return nil
}

// readPast adds to rows the estimates of keys made before from, once.
func (p *pass) readPast(ctx context.Context, conn *sql.Conn, keys []Key, d time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		p.pastRead[k] = true
	}
	past, err := readEstimates(ctx, conn, keys, d.Add(-Window), p.from)
	if err != nil {
		return err
	}
	for _, r := range past {
		p.rows[r.Key] = append(p.rows[r.Key], r)
	}
	return nil
}

// write writes the arrivals learned in this pass and the withdrawals of
// earlier ones.
func (p *pass) write(ctx context.Context, w *writer) error {
	for _, l := range p.fresh {
		if err := w.learn(ctx, l); err != nil {
			return err
		}
	}
	// One target's rows each: in any order, the same rows.
	for k, at := range p.withdrawn {
		if _, err := w.conn.ExecContext(ctx, `
UPDATE arrival_learning SET withdrawn_at = ?
WHERE shipment_number = ? AND shipment_type = ? AND target = ? AND withdrawn_at IS NULL AND known_at < ?`,
			at, k.Shipment, k.Type, k.Target, at); err != nil {
			return err
		}
	}
	return nil
}

// since are the rows observed after at.
func since(rows []Row, at time.Time) []Row {
	var out []Row
	for _, r := range rows {
		if r.ObservedAt.After(at) {
			out = append(out, r)
		}
	}
	return out
}
