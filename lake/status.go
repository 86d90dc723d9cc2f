package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"

	"github.com/etalake/etalake/schema"
)

// TableStatus is what a lake table holds now.
type TableStatus struct {
	Name      string
	Exists    bool
	Snapshots int       // snapshots kept (Maintain expires the old ones)
	Current   int64     // the current snapshot's id, 0 for none
	At        time.Time // when it was committed
	Files     int       // data files of the current snapshot
	Rows      int64     // rows read: the data files' rows but those deleted
	Bytes     int64     // of the data and delete files
	// DeleteFiles are the current snapshot's position delete files (the
	// rows commits replaced; the upkeep folds them into the data),
	// Deleted the rows they delete.
	DeleteFiles int
	Deleted     int64
	// Writers are the last run each writer committed to the table,
	// newest first: from the snapshots kept, the writers' table
	// properties (which expiry does not take: writers.go), and the
	// writers of the current data files (Run empty when none says).
	Writers []WriterRun
	// Missing, when not "", says what of the table is missing: its
	// current metadata file, or files of its current snapshot (Mend
	// rolls it back to its last whole snapshot).
	Missing string
	// Location is the table's root (its metadata/ and data/ under it);
	// Metadata its current metadata file, what DuckDB's iceberg_scan
	// reads.
	Location, Metadata string
}

// WriterRun is the last run a writer committed to a table.
type WriterRun struct {
	Writer string
	Run    string
	At     time.Time
}

// Status reads every lake table's state from the catalog and the current
// snapshots' manifests.
func (l *Lake) Status(ctx context.Context) ([]TableStatus, error) {
	var out []TableStatus
	for _, t := range Tables() {
		st := TableStatus{Name: t.Name}
		tbl, err := l.cat.LoadTable(ctx, ident(t))
		if errors.Is(err, catalog.ErrNoSuchTable) {
			out = append(out, st)
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			st.Exists = true
			if st.Metadata, err = l.pointer(ctx, t); err != nil {
				return nil, err
			}
			st.Missing = "its current metadata file " + st.Metadata
			out = append(out, st)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
		}
		st.Exists, st.Location, st.Metadata = true, tbl.Location(), tbl.MetadataLocation()
		if st.Missing, err = missing(ctx, tbl); err != nil {
			return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
		}
		if st.Missing != "" {
			out = append(out, st)
			continue
		}
		snaps := tbl.Metadata().Snapshots()
		st.Snapshots = len(snaps)
		if cur := tbl.CurrentSnapshot(); cur != nil {
			st.Current, st.At = cur.SnapshotID, time.UnixMilli(cur.TimestampMs).UTC()
		}
		inData := map[int64]bool{}
		err = eachFile(tbl, func(f icebergDataFile, w int64, _ string) {
			inData[w] = true
			st.Files++
			st.Rows += f.Count()
			st.Bytes += f.FileSizeBytes()
		})
		if err == nil {
			err = eachEntry(tbl, iceberg.ManifestContentDeletes, func(f icebergDataFile, _ int64, _ string) {
				st.DeleteFiles++
				st.Deleted += f.Count()
				st.Bytes += f.FileSizeBytes()
			})
		}
		if err != nil {
			return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
		}
		st.Rows -= st.Deleted
		st.Writers = lastRuns(tbl, inData)
		out = append(out, st)
	}
	return out, nil
}

// Commits counts the snapshots of the named table per run id they carry
// (the snapshots kept).
func (l *Lake) Commits(ctx context.Context, name string) (map[string]int, error) {
	t, ok := schema.ByName(name)
	if !ok {
		return nil, fmt.Errorf("lake: no table %s", name)
	}
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil && s.Summary.Properties[RunIDProperty] != "" {
			out[s.Summary.Properties[RunIDProperty]]++
		}
	}
	return out, nil
}
