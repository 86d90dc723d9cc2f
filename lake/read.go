package lake

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"

	"github.com/etalake/etalake/schema"
)

// File is a data file of a table's current snapshot.
type File struct {
	Path   string // its URL (file:///…, s3://…)
	Writer int64
	Day    string // the partition's: YYYY-MM-DD, or YYYY-MM in a table partitioned by month
	Rows   int64
	Bytes  int64
}

// Files lists the data files of the current snapshot of table t, as its
// manifests name them: what a reader of the snapshot reads, never a
// listing of the folder (which holds the files of uncommitted writers
// and of expired snapshots too). A table not created yet has none.
func (l *Lake) Files(ctx context.Context, t *schema.Table) ([]File, error) {
	return l.files(ctx, t, iceberg.ManifestContentData)
}

// DeleteFiles lists the delete files of the current snapshot of table t:
// the position delete files (file_path, pos) of the rows the commits
// replaced, which a reader of Files applies. A table not created yet has
// none.
func (l *Lake) DeleteFiles(ctx context.Context, t *schema.Table) ([]File, error) {
	return l.files(ctx, t, iceberg.ManifestContentDeletes)
}

// files lists the files of the manifests of content of the current
// snapshot of table t.
func (l *Lake) files(ctx context.Context, t *schema.Table, content iceberg.ManifestContent) ([]File, error) {
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
	}
	var out []File
	err = eachEntry(tbl, content, func(f icebergDataFile, w int64, day string) {
		out = append(out, File{Path: f.FilePath(), Writer: w, Day: day, Rows: f.Count(), Bytes: f.FileSizeBytes()})
	})
	return out, err
}

// Scan reads the current snapshot of table t through the catalog, as
// Arrow records (iceberg-go's scan), calling fn with each, and returns
// their schema.
func (l *Lake) Scan(ctx context.Context, t *schema.Table, fn func(arrow.RecordBatch) error) (*arrow.Schema, error) {
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil {
		return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
	}
	sc, records, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		return nil, err
	}
	for rec, err := range records {
		if err != nil {
			return nil, err
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	return sc, nil
}
