package lake

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// A commit in flight writes files no snapshot references yet — data
// files, manifests, a metadata file — and only then swings the catalog's
// pointer. Nothing in the files tells them from the orphans a killed job
// left, so a writer says it is committing with a lease: a row of
// etalake_leases, a table of etalake's own in the catalog's database
// (SQLite or Postgres, beside iceberg_tables), taken before its first
// file and dropped after its last commit, renewed meanwhile. Maintain
// removes an orphan only when it is older than the start of every live
// lease (so no setting of --orphan-grace reaches a commit in flight); a
// lease whose writer died expires after LeaseTTL and holds nothing back.
const leaseDDL = `CREATE TABLE IF NOT EXISTS etalake_leases (
	lease_id VARCHAR(64) NOT NULL PRIMARY KEY,
	holder VARCHAR(255) NOT NULL,
	started_ms BIGINT NOT NULL,
	expires_ms BIGINT NOT NULL
)`

// LeaseTTL is how long a lease lasts unless renewed; its holder renews it
// every LeaseTTL/4.
const LeaseTTL = 2 * time.Minute

// ErrLeaseLapsed: a writer's lease expired before its commit (the process
// stood still for longer than LeaseTTL), so maintain may have removed the
// files it wrote; it does not commit them. The job fails and its changes
// stay pending for the next.
var ErrLeaseLapsed = errors.New("lake: the lease of this commit expired before it ended (the process was paused for longer than the lease); nothing was committed after it, the next job commits it")

// lease is a lease held, renewed in the background until released.
type lease struct {
	l     *Lake
	id    string
	start time.Time
	stop  chan struct{}
	done  chan struct{}

	mu  sync.Mutex
	err error // the renewal's failure, if any
}

// ensureLeases creates etalake_leases, etalake_mends and
// etalake_mend_seen when absent.
func (l *Lake) ensureLeases(ctx context.Context) error {
	for _, ddl := range append([]string{leaseDDL}, strings.Split(mendDDL, ";\n")...) {
		if _, err := l.db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("lake: creating etalake's tables in catalog %s: %w", redact(l.cfg.Catalog), err)
		}
	}
	return nil
}

// bind rewrites the ? placeholders of q into the catalog's dialect:
// Postgres numbers them.
func (l *Lake) bind(q string) string {
	if l.dialect != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// takeLease takes a lease for holder (a writer's id, or "maintain") and
// renews it every LeaseTTL/4 until released.
func (l *Lake) takeLease(ctx context.Context, holder string) (*lease, error) {
	now := l.opt.Now()
	ls := &lease{l: l, id: uuid.NewString(), start: now, stop: make(chan struct{}), done: make(chan struct{})}
	_, err := l.db.ExecContext(ctx, l.bind(`INSERT INTO etalake_leases (lease_id, holder, started_ms, expires_ms) VALUES (?, ?, ?, ?)`),
		ls.id, holder, now.UnixMilli(), now.Add(LeaseTTL).UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("lake: taking the lease of a commit: %w", err)
	}
	go ls.renewing(context.WithoutCancel(ctx))
	return ls, nil
}

func (ls *lease) renewing(ctx context.Context) {
	defer close(ls.done)
	t := time.NewTicker(LeaseTTL / 4)
	defer t.Stop()
	for {
		select {
		case <-ls.stop:
			return
		case <-t.C:
			if err := ls.renew(ctx); err != nil {
				ls.mu.Lock()
				if ls.err == nil {
					ls.err = err
				}
				ls.mu.Unlock()
			}
		}
	}
}

// renew extends the lease by LeaseTTL from now, failing with
// ErrLeaseLapsed when it had expired already: maintain may have taken the
// files it protected for orphans.
func (ls *lease) renew(ctx context.Context) error {
	now := ls.l.opt.Now()
	res, err := ls.l.db.ExecContext(ctx, ls.l.bind(`UPDATE etalake_leases SET expires_ms = ? WHERE lease_id = ? AND expires_ms > ?`),
		now.Add(LeaseTTL).UnixMilli(), ls.id, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("lake: renewing the lease of a commit: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrLeaseLapsed
	}
	return nil
}

// check renews the lease now: a commit calls it right before it swings
// the catalog's pointer to files written under the lease.
func (ls *lease) check(ctx context.Context) error {
	ls.mu.Lock()
	err := ls.err
	ls.mu.Unlock()
	if errors.Is(err, ErrLeaseLapsed) {
		return err
	}
	return ls.renew(ctx)
}

// release stops the renewal and drops the lease.
func (ls *lease) release(ctx context.Context) error {
	close(ls.stop)
	<-ls.done
	_, err := ls.l.db.ExecContext(context.WithoutCancel(ctx), ls.l.bind(`DELETE FROM etalake_leases WHERE lease_id = ?`), ls.id)
	if err != nil {
		return fmt.Errorf("lake: dropping the lease of a commit: %w", err)
	}
	return nil
}

// Lease is a live lease as maintain sees it.
type Lease struct {
	ID, Holder       string
	Started, Expires time.Time
}

// Leases lists the leases live at now: those not expired by more than
// skew (the clocks of the writer and of the reader may disagree). It also
// forgets the leases expired long since (a day), which dead writers left.
func (l *Lake) Leases(ctx context.Context, now time.Time, skew time.Duration) ([]Lease, error) {
	if _, err := l.db.ExecContext(ctx, l.bind(`DELETE FROM etalake_leases WHERE expires_ms < ?`), now.Add(-24*time.Hour).UnixMilli()); err != nil {
		return nil, fmt.Errorf("lake: forgetting the expired leases: %w", err)
	}
	rows, err := l.db.QueryContext(ctx, l.bind(`SELECT lease_id, holder, started_ms, expires_ms FROM etalake_leases WHERE expires_ms >= ? ORDER BY started_ms`),
		now.Add(-skew).UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("lake: reading the leases of the commits in flight: %w", err)
	}
	defer rows.Close()
	var out []Lease
	for rows.Next() {
		var ls Lease
		var start, exp int64
		if err := rows.Scan(&ls.ID, &ls.Holder, &start, &exp); err != nil {
			return nil, err
		}
		ls.Started, ls.Expires = time.UnixMilli(start).UTC(), time.UnixMilli(exp).UTC()
		out = append(out, ls)
	}
	return out, rows.Err()
}
