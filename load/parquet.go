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
// in its own transaction, and SyncParquet rewrites each from the table.
// Where the filesystem can, a sync swaps each table it changes whole
// (swap.go): a reader lists the table's files before or after, never a
// mix. Elsewhere it writes partition by partition: a partition file is
// written to a temp name (.tmp-…, which the glob above never matches),
// synced, and renamed over data.parquet, so a reader sees the old file or
// the new one, never half of one. Either way a crash leaves the pending
// rows, and the next SyncParquet writes the partitions again. A
// migration that adds columns records every partition of the table as
// pending (migrate.go). raw_responses is not mirrored: its bodies are
// compressed blobs, of no use to a notebook, and DuckDB is its store.

// fileName is the file of a partition.
const fileName = "data.parquet"

// tempPrefix starts the name of every temp file and directory under
// parquet/; Open removes them.
const tempPrefix = ".tmp-"

// Mirrored reports whether the table has a Parquet mirror: every contract
// table but raw_responses.
func Mirrored(t *schema.Table) bool { return t != schema.RawResponses }

// SyncStats says what a SyncParquet did.
type SyncStats struct {
	Written int   // partition files written
	Removed int   // partitions removed because their rows are gone
	Rows    int64 // rows in the files written
	Bytes   int64 // size of the files written
	// Linked counts the unchanged files of the tables swapped whole,
	// hard-linked into their new tree (no bytes copied).
	Linked int
}

// SyncParquet rewrites every pending partition of the mirror from its
// table — of the tables given, or of all — table by table (etl_runs last:
// a reader who sees a job's end in the mirror's etl_runs sees the other
// tables as of that end or later), and forgets each once its file is in
// place. A partition left without rows loses its directory. Safe to call
// at any time; with nothing pending it does nothing. Publish calls it.
func (w *Warehouse) SyncParquet(ctx context.Context, tables ...*schema.Table) (SyncStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(tables) == 0 {
		tables = nil
	}
	return w.sync(ctx, tables)
}

// pendingPartition is a row of parquet_pending.
type pendingPartition struct {
	table *schema.Table
	day   day
}

// sync writes the pending partitions of the tables in only (all when nil),
// swapping each table whole where the filesystem can. The caller holds
// w.mu.
func (w *Warehouse) sync(ctx context.Context, only []*schema.Table) (SyncStats, error) {
	var st SyncStats
	if w.db == nil {
		return st, errClosed
	}
	if err := w.notePending(ctx); err != nil {
		return st, err
	}
	pending, err := w.pending(ctx)
	if err != nil || len(pending) == 0 {
		return st, err
	}
	days := map[*schema.Table][]day{}
	for _, p := range pending {
		if only == nil || contains(only, p.table) {
			days[p.table] = append(days[p.table], p.day)
		}
	}
	order := syncOrder(days)
	if !w.noSwap {
		err := w.swap(ctx, order, days, &st)
		if !errors.Is(err, errNoSwap) {
			return st, err
		}
		w.noSwap = true
		st = SyncStats{}
	}
	for _, t := range order {
		for _, d := range days[t] {
			if err := w.syncPartition(ctx, t, d, &st); err != nil {
				return st, err
			}
		}
	}
	return st, nil
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

// syncPartition rewrites one partition in place and forgets it.
func (w *Warehouse) syncPartition(ctx context.Context, t *schema.Table, d day, st *SyncStats) error {
	rows, bytes, err := w.export(ctx, t, d)
	if err != nil {
		return fmt.Errorf("load: parquet %s %s: %w", t.Name, d, err)
	}
	if rows == 0 {
		st.Removed++
	} else {
		st.Written++
		st.Rows += rows
		st.Bytes += bytes
	}
	_, err = w.db.ExecContext(ctx, `DELETE FROM parquet_pending WHERE table_name = ? AND partition_date = CAST(? AS DATE)`, t.Name, d.String())
	return err
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

// export rewrites one partition's file in place from the table, through a
// temp file and a rename, and returns the rows and bytes written; a
// partition without rows is removed.
func (w *Warehouse) export(ctx context.Context, t *schema.Table, d day) (rows, bytes int64, err error) {
	root := filepath.Join(w.dir, parquetDir)
	tableDir := filepath.Join(root, t.Name)
	dir := filepath.Join(tableDir, t.Partition+"="+d.String())
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	tmp := filepath.Join(dir, tempPrefix+randomHex())
	if rows, bytes, err = w.exportTo(ctx, t, d, tmp); err != nil {
		return 0, 0, err
	}
	if rows == 0 {
		if err := os.RemoveAll(dir); err != nil {
			return 0, 0, err
		}
		return 0, 0, syncDir(tableDir)
	}
	if err := os.Rename(tmp, filepath.Join(dir, fileName)); err != nil {
		return 0, 0, errors.Join(err, removeIfExists(tmp))
	}
	if err := syncDir(dir); err != nil {
		return 0, 0, err
	}
	if !existed {
		if err := errors.Join(syncDir(tableDir), syncDir(root)); err != nil {
			return 0, 0, err
		}
	}
	return rows, bytes, nil
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
