package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
)

// writerData is where writer's data files of tbl are: its first
// partition's folder.
func writerData(tbl *table.Table, writer int64) string {
	return tbl.Location() + "/data/" + load.LakeWriterColumn + "=" + strconv.FormatInt(writer, 10)
}

// removeOrphans removes writer's data files that no snapshot of any lake
// table references: those of its runs killed between their files and
// their commit. Only writer writes under its folder, and it holds its
// warehouse's lock, so no file there is another writer's commit in the
// making: none needs a grace period.
func (l *Lake) removeOrphans(ctx context.Context, writer int64) (int, error) {
	n := 0
	for _, t := range Tables() {
		tbl, err := l.cat.LoadTable(ctx, ident(t))
		if errors.Is(err, catalog.ErrNoSuchTable) {
			continue
		}
		if err != nil {
			return n, err
		}
		res, err := deleteOrphans(ctx, tbl, writerData(tbl, writer), 0)
		n += len(res)
		if err != nil {
			return n, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return n, nil
}

// deleteOrphans deletes the files under dir no snapshot of tbl
// references, older than grace, and returns them. A dir that does not
// exist holds none.
func deleteOrphans(ctx context.Context, tbl *table.Table, dir string, grace time.Duration) ([]string, error) {
	res, err := tbl.DeleteOrphanFiles(ctx, table.WithLocation(dir), table.WithFilesOlderThan(grace))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return res.DeletedFiles, nil
}
