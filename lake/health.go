package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/schema"
)

// missing says which file of tbl's current snapshot is missing — its
// manifest list, a manifest, a data or delete file — or "" when none is:
// a reader of the snapshot reads it whole.
func missing(ctx context.Context, tbl *table.Table) (string, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return "", nil
	}
	io, err := tbl.FS(ctx)
	if err != nil {
		return "", err
	}
	exists := func(p string) (bool, error) {
		f, err := io.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return true, f.Close()
	}
	if ok, err := exists(snap.ManifestList); err != nil || !ok {
		return "the manifest list " + snap.ManifestList + " of its current snapshot", err
	}
	manifests, err := snap.Manifests(io)
	if err != nil {
		return "", err
	}
	var lost []string
	for _, m := range manifests {
		if ok, err := exists(m.FilePath()); err != nil {
			return "", err
		} else if !ok {
			lost = append(lost, "the manifest "+m.FilePath())
			continue
		}
		for e, err := range m.Entries(io, true) {
			if err != nil {
				return "", err
			}
			if ok, err := exists(e.DataFile().FilePath()); err != nil {
				return "", err
			} else if !ok {
				kind := "data file"
				if m.ManifestContent() == iceberg.ManifestContentDeletes {
					kind = "delete file"
				}
				lost = append(lost, "the "+kind+" "+e.DataFile().FilePath())
			}
		}
	}
	switch len(lost) {
	case 0:
		return "", nil
	case 1:
		return lost[0] + " of its current snapshot", nil
	}
	return fmt.Sprintf("%d files of its current snapshot, as %s", len(lost), lost[0]), nil
}

// pointer is the metadata file the catalog points t at, read from the
// catalog's table (iceberg_tables), for a table iceberg-go cannot load.
func (l *Lake) pointer(ctx context.Context, t *schema.Table) (string, error) {
	var loc string
	err := l.db.QueryRowContext(ctx, l.bind(`SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`),
		CatalogName, Namespace, t.Name).Scan(&loc)
	if err != nil {
		return "", fmt.Errorf("lake: reading the catalog's pointer of %s: %w", t.Name, err)
	}
	return loc, nil
}
