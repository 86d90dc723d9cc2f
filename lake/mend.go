package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// mendDDL: the tables Mend rolled back, so that each writer's next commit
// sends that table's rows again (etalake_mend_seen: the writers that did).
const mendDDL = `CREATE TABLE IF NOT EXISTS etalake_mends (
	mend_id VARCHAR(64) NOT NULL PRIMARY KEY,
	table_name VARCHAR(255) NOT NULL,
	mended_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS etalake_mend_seen (
	mend_id VARCHAR(64) NOT NULL,
	holder VARCHAR(255) NOT NULL,
	PRIMARY KEY (mend_id, holder)
)`

// Mended is a table Mend rolled back.
type Mended struct {
	Name string
	// Was is what was missing; From the metadata file the catalog pointed
	// at, To the one it points at now: the newest whose snapshot is whole.
	Was, From, To string
	Snapshot      int64     // the current snapshot after, 0 for none
	At            time.Time // when it was committed
	// Lost are the runs of writers that newer metadata files held and To
	// does not; LostUnknown, that the missing metadata file may have held
	// more, which no file left names.
	Lost        []WriterRun
	LostUnknown bool
}

// Mend rolls every table whose current metadata file, or a file of whose
// current snapshot, is missing back to its last whole snapshot: the
// newest metadata file in the table's metadata/ folder, older than the
// broken one and committed (named by a later one's log or the catalog's
// previous pointer), whose manifests and data files all exist; the
// catalog's pointer swings to it (only if it still points at the broken
// one). What it loses, each writer's next commit sends again: Mend
// records the table, and every writer's next commit marks all its
// partitions of it pending.
func (l *Lake) Mend(ctx context.Context) ([]Mended, error) {
	var out []Mended
	for _, t := range Tables() {
		m, err := l.mend(ctx, t)
		if err != nil {
			return out, fmt.Errorf("lake: mending %s: %w", t.Name, err)
		}
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

// mend points table t back at an older metadata file whose snapshot is
// whole (the newest a commit named, else the newest), when its current
// one misses a file; nil when the table does not exist or is whole.
func (l *Lake) mend(ctx context.Context, t *schema.Table) (*Mended, error) {
	m := &Mended{Name: t.Name}
	lost := map[string]WriterRun{}
	committed := map[string]bool{}
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	switch {
	case errors.Is(err, catalog.ErrNoSuchTable):
		return nil, nil
	case errors.Is(err, iofs.ErrNotExist):
		if m.From, err = l.pointer(ctx, t); err != nil {
			return nil, err
		}
		m.Was, m.LostUnknown = "its current metadata file "+m.From, true
	case err != nil:
		return nil, err
	default:
		if m.Was, err = missing(ctx, tbl); err != nil || m.Was == "" {
			return nil, err
		}
		m.From = tbl.MetadataLocation()
		noteRuns(tbl.Metadata(), lost, committed)
	}
	var prev *string
	if err := l.db.QueryRowContext(ctx, l.bind(`SELECT previous_metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`),
		CatalogName, Namespace, t.Name).Scan(&prev); err != nil {
		return nil, err
	}
	if prev != nil {
		committed[*prev] = true
	}
	whole, err := l.wholeMetadata(ctx, t, m.From, lost, committed)
	if err != nil {
		return nil, err
	}
	pick := whole[0]
	for _, c := range whole {
		if committed[c.loc] {
			pick = c
			break
		}
	}
	m.To = pick.loc
	if s := pick.tbl.CurrentSnapshot(); s != nil {
		m.Snapshot, m.At = s.SnapshotID, time.UnixMilli(s.TimestampMs).UTC()
	}
	m.Lost = lostRuns(pick.tbl, lost)
	return m, l.swing(ctx, t, m.From, m.To)
}

// loadedMetadata is a metadata file of a table, and the table it reads as.
type loadedMetadata struct {
	loc string
	tbl *table.Table
}

// wholeMetadata are the metadata files of t older than from whose
// snapshot has every file, newest first, noting the runs of every one
// readable in lost and the files their logs name in committed. None is
// an error.
func (l *Lake) wholeMetadata(ctx context.Context, t *schema.Table, from string, lost map[string]WriterRun, committed map[string]bool) ([]loadedMetadata, error) {
	cands, err := l.metadataFiles(ctx, from)
	if err != nil {
		return nil, err
	}
	var whole []loadedMetadata
	for _, loc := range cands {
		c, err := table.NewFromLocation(ctx, ident(t), loc, iceio.LoadFSFunc(l.props(), loc), l.cat)
		if err != nil {
			continue // unreadable: a write cut short
		}
		gone, err := missing(ctx, c)
		if err != nil {
			return nil, err
		}
		noteRuns(c.Metadata(), lost, committed)
		if gone == "" {
			whole = append(whole, loadedMetadata{loc, c})
		}
	}
	if len(whole) == 0 {
		return nil, fmt.Errorf("no metadata file in %s older than %s has its snapshot whole", path.Dir(from), path.Base(from))
	}
	return whole, nil
}

// lostRuns are the runs of lost that no snapshot of tbl keeps, oldest
// first.
func lostRuns(tbl *table.Table, lost map[string]WriterRun) []WriterRun {
	kept := map[string]bool{}
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil {
			kept[s.Summary.Properties[WriterProperty]+"/"+s.Summary.Properties[RunIDProperty]] = true
		}
	}
	var out []WriterRun
	for k, r := range lost {
		if !kept[k] {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// noteRuns adds the writers' runs of meta's snapshots to runs, and the
// metadata files its log names to committed.
func noteRuns(meta table.Metadata, runs map[string]WriterRun, committed map[string]bool) {
	for _, s := range meta.Snapshots() {
		if s.Summary == nil || s.Summary.Properties[RunIDProperty] == "" {
			continue
		}
		w, run := s.Summary.Properties[WriterProperty], s.Summary.Properties[RunIDProperty]
		runs[w+"/"+run] = WriterRun{Writer: w, Run: run, At: time.UnixMilli(s.TimestampMs).UTC()}
	}
	for e := range meta.PreviousFiles() {
		committed[e.MetadataFile] = true
	}
}

// metadataFiles lists the metadata files beside from of a lower version
// (those of its version or higher were never committed before it), the
// newest first.
func (l *Lake) metadataFiles(ctx context.Context, from string) ([]string, error) {
	dir := from[:strings.LastIndex(from, "/")]
	fsys, err := iceio.LoadFS(ctx, l.props(), from)
	if err != nil {
		return nil, err
	}
	list, ok := fsys.(iceio.ListableIO)
	if !ok {
		return nil, errors.New("the storage cannot list the metadata folder")
	}
	top := version(from)
	type file struct {
		loc string
		v   int
		mod time.Time
	}
	var files []file
	err = list.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".metadata.json") {
			return err
		}
		v := version(p)
		if v < 0 || v >= top {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, file{dir + "/" + path.Base(p), v, info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].v != files[j].v {
			return files[i].v > files[j].v
		}
		return files[i].mod.After(files[j].mod)
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.loc
	}
	return out, nil
}

// version is the version a metadata file's name starts with
// (00012-<uuid>.metadata.json), -1 when none.
func version(p string) int {
	base := path.Base(p)
	n, err := strconv.Atoi(base[:max(strings.IndexByte(base, '-'), 0)])
	if err != nil {
		return -1
	}
	return n
}

// swing points the catalog's row of t at to, if it still points at from,
// and records the mend for the writers.
func (l *Lake) swing(ctx context.Context, t *schema.Table, from, to string) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, l.bind(`UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?`),
		to, from, CatalogName, Namespace, t.Name, from)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("the catalog no longer points at %s (a commit meanwhile?): run mend again", from)
	}
	if _, err := tx.ExecContext(ctx, l.bind(`INSERT INTO etalake_mends (mend_id, table_name, mended_ms) VALUES (?, ?, ?)`),
		uuid.NewString(), t.Name, l.opt.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// props are the catalog's properties: where the files are, and how to
// reach them.
func (l *Lake) props() iceberg.Properties {
	props := iceberg.Properties{"warehouse": l.cfg.Warehouse}
	for k, v := range storageProps(l.cfg.Warehouse) {
		props[k] = v
	}
	return props
}

// resendMended marks pending, in w, every partition of each table Mend
// rolled back since writer last looked: its next commits send them again,
// replacing what the lake kept of them and adding what it lost.
func (l *Lake) resendMended(ctx context.Context, w *load.Warehouse, writer int64) error {
	holder := strconv.FormatInt(writer, 10)
	rows, err := l.db.QueryContext(ctx, l.bind(`SELECT mend_id, table_name FROM etalake_mends AS m
WHERE NOT EXISTS (SELECT 1 FROM etalake_mend_seen AS s WHERE s.mend_id = m.mend_id AND s.holder = ?) ORDER BY mended_ms`), holder)
	if err != nil {
		return fmt.Errorf("lake: reading the tables mended: %w", err)
	}
	type mended struct{ id, table string }
	var todo []mended
	for rows.Next() {
		var m mended
		if err := rows.Scan(&m.id, &m.table); err != nil {
			rows.Close()
			return err
		}
		todo = append(todo, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range todo {
		if t, ok := schema.ByName(m.table); ok {
			if err := w.LakeResend(ctx, t); err != nil {
				return err
			}
		}
		if _, err := l.db.ExecContext(ctx, l.bind(`INSERT INTO etalake_mend_seen (mend_id, holder) VALUES (?, ?)`), m.id, holder); err != nil {
			return fmt.Errorf("lake: noting the mend of %s seen: %w", m.table, err)
		}
	}
	return nil
}
