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
	// than that. A younger one may be a concurrent writer's commit in the
	// making.
	OrphanGrace time.Duration
	// SmallFile: a partition with two files or more smaller than that, or
	// with deletes, is compacted: those files, deletes applied, into one
	// (0: DefaultSmallFile).
	SmallFile int64
	Now       func() time.Time
}

// DefaultMaintainOptions keep a week of snapshots, and orphans for a day.
func DefaultMaintainOptions() MaintainOptions {
	return MaintainOptions{KeepDays: DefaultKeepDays, OrphanGrace: DefaultOrphanGrace, SmallFile: DefaultSmallFile, Now: time.Now}
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
// removes the files no snapshot references (after OrphanGrace). Each
// change is one commit, retried on a conflict with a writer.
func (l *Lake) Maintain(ctx context.Context, opt MaintainOptions) ([]TableUpkeep, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
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
		tbl, err = l.cat.LoadTable(ctx, ident(t))
		if err != nil {
			return out, err
		}
		res, err := tbl.DeleteOrphanFiles(ctx, table.WithFilesOlderThan(opt.OrphanGrace))
		if err != nil {
			return out, fmt.Errorf("lake: removing the orphan files of %s: %w", t.Name, err)
		}
		up.Orphans, up.Freed = len(res.DeletedFiles), res.TotalSizeBytes
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
