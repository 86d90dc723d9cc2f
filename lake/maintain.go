package lake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/schema"
)

// MaintainOptions say what Maintain keeps.
type MaintainOptions struct {
	// KeepDays: snapshots older than that many days are expired (the
	// current one never is), and the files only they referenced removed.
	KeepDays int
	// OrphanGrace: files no snapshot references are removed once older
	// than that, and than the start of every commit in flight (its
	// lease: lease.go), whatever the grace: 0 is safe beside writers.
	OrphanGrace time.Duration
	// ClockSkew: how far the clocks of writers, maintain and the storage
	// may disagree (DefaultClockSkew); orphans younger than that stay.
	ClockSkew time.Duration
	// SmallFile: a partition with two files or more smaller than that, or
	// with deletes, is compacted: those files, deletes applied, into one
	// (0: DefaultSmallFile).
	SmallFile int64
	Now       func() time.Time
}

// DefaultMaintainOptions keep a week of snapshots, and orphans for a day.
func DefaultMaintainOptions() MaintainOptions {
	return MaintainOptions{KeepDays: DefaultKeepDays, OrphanGrace: DefaultOrphanGrace, ClockSkew: DefaultClockSkew, SmallFile: DefaultSmallFile, Now: time.Now}
}

// Defaults of MaintainOptions.
const (
	DefaultKeepDays    = 7
	DefaultOrphanGrace = 24 * time.Hour
	DefaultSmallFile   = 32 << 20
)

// Validate checks the options, naming the flag each comes from.
func (o MaintainOptions) Validate() error {
	var errs []error
	if o.KeepDays < 0 {
		errs = append(errs, fmt.Errorf("--keep-days %d: want 0 or more days (default %d)", o.KeepDays, DefaultKeepDays))
	}
	if o.OrphanGrace < 0 {
		errs = append(errs, fmt.Errorf("--orphan-grace %s: want a duration of 0s or more (default %s)", o.OrphanGrace, DefaultOrphanGrace))
	}
	if o.ClockSkew < 0 {
		errs = append(errs, fmt.Errorf("clock skew %s: want a duration of 0s or more (default %s)", o.ClockSkew, DefaultClockSkew))
	}
	return errors.Join(errs...)
}

// TableUpkeep is what Maintain did to one table.
type TableUpkeep struct {
	Name      string
	Compacted int // partitions compacted
	Rewritten int // small files replaced by the compaction
	Expired   int // snapshots expired
	Orphans   int // unreferenced files removed
	Freed     int64
}

// Maintain keeps the lake small and fast, table by table: it compacts
// small files per partition, expires snapshots older than KeepDays, and
// removes the files no snapshot references (after OrphanGrace, and never
// one a commit in flight may still reference: orphans). Each change is
// one commit, retried on a conflict with a writer. It holds a lease
// itself, so that another maintain spares its compactions' files.
func (l *Lake) Maintain(ctx context.Context, opt MaintainOptions) (_ []TableUpkeep, err error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	ls, err := l.takeLease(ctx, "maintain")
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := ls.release(ctx); err == nil && rerr != nil {
			err = rerr
		}
	}()
	return l.maintain(ctx, opt, ls)
}

// maintain is Maintain under the lease ls.
func (l *Lake) maintain(ctx context.Context, opt MaintainOptions, ls *lease) ([]TableUpkeep, error) {
	if opt.SmallFile == 0 {
		opt.SmallFile = DefaultSmallFile
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	var out []TableUpkeep
	for _, t := range Tables() {
		up := TableUpkeep{Name: t.Name}
		tbl, err := l.cat.LoadTable(ctx, ident(t))
		if errors.Is(err, catalog.ErrNoSuchTable) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("lake: table %s: %w", t.Name, err)
		}
		// A table no writer has opened since an older binary made it
		// keeps every metadata file: the properties set, this
		// maintain's commits remove the files past the last 20.
		if _, err := l.setProps(ctx, t, tbl); err != nil {
			return out, err
		}
		err = l.retry(ctx, t, func(tbl *table.Table) error {
			parts, files, _, err := compactFiles(ctx, tbl, iceberg.AlwaysTrue{}, opt.SmallFile)
			up.Compacted, up.Rewritten = parts, files
			return err
		})
		if err != nil {
			return out, fmt.Errorf("lake: compacting %s: %w", t.Name, err)
		}
		if err := l.expire(ctx, t, opt, &up); err != nil {
			return out, fmt.Errorf("lake: expiring the snapshots of %s: %w", t.Name, err)
		}
		gone, freed, err := l.orphans(ctx, t, nil, opt.Now(), max(opt.OrphanGrace, opt.ClockSkew), opt.ClockSkew, ls)
		if err != nil {
			return out, fmt.Errorf("lake: removing the orphan files of %s: %w", t.Name, err)
		}
		up.Orphans, up.Freed = len(gone), freed
		if err := l.hint(ctx, t); err != nil {
			return out, err
		}
		out = append(out, up)
	}
	return out, nil
}

// retry runs try until it does not fail with a commit conflict, reloading
// the table before each new try.
func (l *Lake) retry(ctx context.Context, t *schema.Table, try func(*table.Table) error) error {
	for attempt := 0; ; attempt++ {
		tbl, err := l.cat.LoadTable(ctx, ident(t))
		if err != nil {
			return err
		}
		err = try(tbl)
		if err == nil || !l.conflict(ctx, t, tbl, err) || attempt+1 >= l.opt.MaxAttempts {
			return err
		}
		if err := l.backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// expire expires the snapshots of t older than opt.KeepDays but the
// current one.
func (l *Lake) expire(ctx context.Context, t *schema.Table, opt MaintainOptions, up *TableUpkeep) error {
	return l.retry(ctx, t, func(tbl *table.Table) error {
		before := len(tbl.Metadata().Snapshots())
		keep := opt.Now().Sub(opt.Now().AddDate(0, 0, -opt.KeepDays))
		if keep <= 0 {
			keep = time.Millisecond // iceberg-go refuses an age of 0
		}
		txn := tbl.NewTransaction()
		if err := txn.ExpireSnapshots(table.WithOlderThan(keep), table.WithRetainLast(1)); err != nil {
			return err
		}
		next, err := txn.Commit(ctx)
		if err != nil {
			return err
		}
		up.Expired = before - len(next.Metadata().Snapshots())
		return nil
	})
}
