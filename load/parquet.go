package load

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etalake/etalake/schema"
)

// The Parquet mirror is <dir>/parquet/<table>/<partition>=YYYY-MM-DD/data.parquet,
// one file per partition, readable as
//
//	read_parquet('<dir>/parquet/<table>/**/*.parquet', hive_partitioning=true)
//
// with exactly the table's rows and columns (the partition column comes
// back from the directory name as a DATE), the columns the merge computes
// included: a dimension's <attribute>_kept tells a notebook reading
// Parquet, as one reading DuckDB, which attributes the latest response
// left out and which earlier one they are kept from, and the two stores
// keep one shape. It is a projection of the DuckDB tables, never written
// from batches: Load records the partitions it changes in parquet_pending
// in its own transaction, and each publish writes them from the tables
// into the new version (version.go), linking every other file from the
// version before: a reader lists one version's files, never a mix, and a
// crash leaves the pending rows for the next publish. A migration that
// adds columns records every partition of the table as pending
// (migrate.go). raw_responses is mirrored from its body segments
// (segments.go): parquet/raw_responses/<segment>.parquet, the bodies as
// they arrived.
//
// The readers' database of the version (readers.go) is views over these
// files: the database notebooks open and the mirror are one thing.

// fileName is the file of a partition.
const fileName = "data.parquet"

// tempPrefix starts the name of every temp file and directory of a
// warehouse; Open removes them.
const tempPrefix = ".tmp-"

// Mirrored reports whether the table's mirror is written from its
// partitions in DuckDB (and fed to the lake): every contract table but
// raw_responses, whose mirror is its body segments.
func Mirrored(t *schema.Table) bool { return t != schema.RawResponses }

// SyncStats says what a publish wrote of the mirror.
type SyncStats struct {
	Written int   // partition files written
	Removed int   // partitions removed because their rows are gone
	Rows    int64 // rows in the files written
	Bytes   int64 // size of the files written
	// Linked counts the files of the version before linked into the new
	// one (no bytes copied).
	Linked int
	// Segments counts the body segments written, SegmentRows their
	// responses.
	Segments    int
	SegmentRows int64
}

// SyncParquet publishes a new version whose mirror holds the pending
// partitions of the tables given (of all when none), and no other change:
// the analytic tables stay as last published. A job whose publish failed
// uses it to show readers how it ended (etl_runs) without its tables.
// Safe at any time; with nothing pending it publishes nothing.
func (w *Warehouse) SyncParquet(ctx context.Context, tables ...*schema.Table) (SyncStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(tables) == 0 {
		tables = nil
	}
	st, err := w.publishVersion(ctx, tables, false)
	return st.Mirror, err
}

// RewriteMirror records every partition of every mirrored table as
// pending, and the analytic tables as stale: the next publish writes the
// whole mirror and the analytic tables from the tables. It is for changes
// made to the tables outside the loader (rows written with SQL, a repair
// by hand), which record nothing themselves; a publish after it costs the
// whole warehouse.
func (w *Warehouse) RewriteMirror(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	err := w.inTx(ctx, func(s *session) error {
		for _, t := range schema.Tables {
			if !Mirrored(t) {
				continue
			}
			if _, err := s.exec(ctx, pendingSQL(t, fmt.Sprintf("SELECT DISTINCT %s FROM %s", ident(t.Partition), ident(t.Name)))); err != nil {
				return err
			}
		}
		for table := range monthly {
			if _, err := s.exec(ctx, "INSERT INTO analytics_months_changed VALUES ("+literal(table)+", NULL)"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load: recording the whole mirror for rewriting: %w", err)
	}
	w.stale = true
	return nil
}

// pendingPartition is a row of parquet_pending.
type pendingPartition struct {
	table *schema.Table
	day   day
}

// pendingDays is the pending partitions of the tables in only (all when
// nil), by table.
func (w *Warehouse) pendingDays(ctx context.Context, only []*schema.Table) (map[*schema.Table][]day, error) {
	pending, err := w.pending(ctx)
	if err != nil {
		return nil, err
	}
	days := map[*schema.Table][]day{}
	for _, p := range pending {
		if only == nil || contains(only, p.table) {
			days[p.table] = append(days[p.table], p.day)
		}
	}
	return days, nil
}

// writeMirror writes the mirror of a new version into stage/parquet:
// every mirrored table's files linked from src (the mirror of the version
// before; nothing when src is empty), but for its partitions in days, written from the table (a
// partition left without rows has no file).
func (w *Warehouse) writeMirror(ctx context.Context, src, stage string, days map[*schema.Table][]day, st *SyncStats) error {
	for _, t := range schema.Tables {
		if !Mirrored(t) {
			continue
		}
		rewritten := map[string]bool{}
		for _, d := range days[t] {
			rewritten[t.Partition+"="+d.String()] = true
		}
		dst := filepath.Join(stage, parquetDir, t.Name)
		if src != "" {
			n, err := linkTree(filepath.Join(src, t.Name), dst, func(rel string) bool {
				part, _, _ := strings.Cut(rel, string(filepath.Separator))
				return rewritten[part]
			})
			st.Linked += n
			if err != nil {
				return fmt.Errorf("linking %s: %w", t.Name, err)
			}
		}
		if len(days[t]) > 1 {
			if err := w.writePartitions(ctx, t, days[t], stage, dst, st); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			continue
		}
		for _, d := range days[t] {
			if err := w.writePartition(ctx, t, d, dst, st); err != nil {
				return fmt.Errorf("%s %s: %w", t.Name, d, err)
			}
		}
	}
	return nil
}

// writePartitions writes the partitions days of table t under dir, the
// table's directory of the new version, in one statement (one scan of
// the table, where a statement per partition scans it once each) into a
// temp directory under stage, then moves each file into place.
func (w *Warehouse) writePartitions(ctx context.Context, t *schema.Table, days []day, stage, dir string, st *SyncStats) (err error) {
	tmp := filepath.Join(stage, tempPrefix+"export-"+t.Name)
	defer func() { err = errors.Join(err, os.RemoveAll(tmp)) }()
	res, err := w.db.ExecContext(ctx, exportPartitionsSQL(t, days, tmp))
	if err != nil {
		return err
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return err
	}
	st.Rows += rows
	for _, d := range days {
		name := t.Partition + "=" + d.String()
		files, err := os.ReadDir(filepath.Join(tmp, name))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(files) == 0) {
			st.Removed++ // no row left: no file
			continue
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			return err
		}
		for i, f := range files {
			to := f.Name()
			if i == 0 {
				to = fileName
			}
			path := filepath.Join(dir, name, to)
			if err := os.Rename(filepath.Join(tmp, name, f.Name()), path); err != nil {
				return err
			}
			bytes, err := syncFile(path)
			if err != nil {
				return err
			}
			st.Bytes += bytes
		}
		st.Written++
	}
	return nil
}

// writePartition writes partition d of table t under dir, the table's
// directory of the new version.
func (w *Warehouse) writePartition(ctx context.Context, t *schema.Table, d day, dir string, st *SyncStats) error {
	part := filepath.Join(dir, t.Partition+"="+d.String())
	if err := os.MkdirAll(part, 0o755); err != nil {
		return err
	}
	rows, bytes, err := w.exportTo(ctx, t, d, filepath.Join(part, fileName))
	if err != nil {
		return err
	}
	if rows == 0 {
		st.Removed++
		return os.Remove(part)
	}
	st.Written++
	st.Rows += rows
	st.Bytes += bytes
	return nil
}

// exportTo writes one partition of t to path from the table, synced, and
// returns its rows and bytes (0, 0 and no file when the partition has no
// rows).
func (w *Warehouse) exportTo(ctx context.Context, t *schema.Table, d day, path string) (rows, bytes int64, err error) {
	res, err := w.db.ExecContext(ctx, exportSQL(t, d, path))
	if err == nil {
		rows, err = res.RowsAffected()
	}
	if err != nil || rows == 0 {
		return 0, 0, errors.Join(err, removeIfExists(path))
	}
	if bytes, err = syncFile(path); err != nil {
		return 0, 0, err
	}
	return rows, bytes, nil
}

// forgetPending forgets the pending partitions of the tables in days: a
// published version holds them.
func (w *Warehouse) forgetPending(ctx context.Context, days map[*schema.Table][]day) error {
	for t := range days {
		if _, err := w.db.ExecContext(ctx, `DELETE FROM parquet_pending WHERE table_name = ?`, t.Name); err != nil {
			return err
		}
		if _, err := w.db.ExecContext(ctx, `DELETE FROM pending_keys WHERE table_name = ?`, t.Name); err != nil {
			return err
		}
	}
	return nil
}

// syncOrder is the tables of days in the order of schema.Tables, etl_runs
// last.
func syncOrder(days map[*schema.Table][]day) []*schema.Table {
	var out []*schema.Table
	for _, t := range schema.Tables {
		if _, ok := days[t]; ok && t != schema.ETLRuns {
			out = append(out, t)
		}
	}
	if _, ok := days[schema.ETLRuns]; ok {
		out = append(out, schema.ETLRuns)
	}
	return out
}

// pending lists parquet_pending in table order, then date.
func (w *Warehouse) pending(ctx context.Context) ([]pendingPartition, error) {
	rows, err := w.db.QueryContext(ctx, `SELECT DISTINCT table_name, partition_date FROM parquet_pending ORDER BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pendingPartition
	for rows.Next() {
		var name string
		var p pendingPartition
		var d time.Time
		if err := rows.Scan(&name, &d); err != nil {
			return nil, err
		}
		t, ok := schema.ByName(name)
		if !ok || !Mirrored(t) {
			return nil, fmt.Errorf("load: parquet_pending names %q, not a mirrored table of this binary", name)
		}
		p.table, p.day = t, dayOf(d)
		out = append(out, p)
	}
	return out, rows.Err()
}

// sweepTemp removes the temp files and directories a crash left under root.
func sweepTemp(root string) error {
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			return nil
		}
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("load: sweep %s: %w", path, err)
		}
		if e.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// syncFile flushes a file to disk and returns its size.
func syncFile(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	err = f.Sync()
	fi, statErr := f.Stat()
	if err = errors.Join(err, statErr, f.Close()); err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

func contains(ts []*schema.Table, t *schema.Table) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
