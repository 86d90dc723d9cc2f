package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// DefaultClockSkew is how far apart the clocks of the writers, of
// maintain and of the storage (which dates the files) may be: a file
// younger than that is never an orphan, and a lease counts from that much
// before its start.
const DefaultClockSkew = time.Minute

// writerData is where writer's data files of tbl are: its first
// partition's folder.
func writerData(tbl *table.Table, writer int64) string {
	return tbl.Location() + "/data/" + load.LakeWriterColumn + "=" + strconv.FormatInt(writer, 10)
}

// removeOrphans removes writer's data files that no snapshot of any lake
// table references: those of its runs killed between their files and
// their commit. Only writer writes its data under its folder, and it
// holds its warehouse's lock, so a lease of writer's but ls is a killed
// run's (dropped here) and needs no grace; maintain compacts there too,
// under a lease, which spares its files.
func (l *Lake) removeOrphans(ctx context.Context, writer int64, ls *lease) (int, error) {
	holder := strconv.FormatInt(writer, 10)
	if _, err := l.db.ExecContext(ctx, l.bind(`DELETE FROM etalake_leases WHERE holder = ? AND lease_id <> ?`), holder, ls.id); err != nil {
		return 0, fmt.Errorf("lake: dropping the leases of killed runs: %w", err)
	}
	n := 0
	for _, t := range Tables() {
		res, _, err := l.orphans(ctx, t, func(tbl *table.Table) string { return writerData(tbl, writer) }, l.opt.Now(), 0, DefaultClockSkew, ls)
		n += len(res)
		if err != nil {
			return n, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return n, nil
}

// orphans deletes the files of table t under dir (nil: the table's
// location) that no snapshot or metadata file of t references, older than
// grace and than the start of every commit in flight but own's (their
// leases, counted from skew before their start), and returns them and
// their bytes. It reads the leases before it loads the table and lists
// the files: a commit whose lease it did not see ended before, and its
// files are in the table it loads, or began after, and its files are
// younger than the cutoff. The table is loaded again after the listing;
// a file is removed only when neither load references it, and never the
// catalog's current metadata file.
func (l *Lake) orphans(ctx context.Context, t *schema.Table, dir func(*table.Table) string, now time.Time, grace, skew time.Duration, own *lease) ([]string, int64, error) {
	leases, err := l.Leases(ctx, now, skew)
	if err != nil {
		return nil, 0, err
	}
	cutoff := now.Add(-grace)
	for _, ls := range leases {
		if own != nil && ls.ID == own.id {
			continue
		}
		if s := ls.Started.Add(-skew); s.Before(cutoff) {
			cutoff = s
		}
	}
	age := max(now.Sub(cutoff), 0)
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	plan := func(tbl *table.Table) (map[string]int64, error) {
		opts := []table.OrphanCleanupOption{table.WithFilesOlderThan(age)}
		if dir != nil {
			opts = append(opts, table.WithLocation(dir(tbl)))
		}
		p, err := tbl.PlanOrphanFiles(ctx, opts...)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		out := map[string]int64{}
		for _, f := range p.OrphanFiles() {
			out[f.Path] = f.SizeBytes
		}
		return out, err
	}
	found, err := plan(tbl)
	if err != nil || len(found) == 0 {
		return nil, 0, err
	}
	again, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil {
		return nil, 0, err
	}
	if again.MetadataLocation() != tbl.MetadataLocation() {
		still, err := plan(again)
		if err != nil {
			return nil, 0, err
		}
		for p := range found {
			if _, ok := still[p]; !ok {
				delete(found, p)
			}
		}
	}
	for p := range found {
		if strings.TrimPrefix(p, "file://") == strings.TrimPrefix(again.MetadataLocation(), "file://") {
			delete(found, p)
		}
	}
	io, err := again.FS(ctx)
	if err != nil {
		return nil, 0, err
	}
	var gone []string
	var freed int64
	for p, size := range found {
		if err := io.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return gone, freed, fmt.Errorf("removing orphan %s: %w", p, err)
		}
		gone = append(gone, p)
		freed += size
	}
	return gone, freed, nil
}
