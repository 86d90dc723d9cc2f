package lake

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/etalake/etalake/schema"
)

// VersionHintFile is the file beside a table's metadata files naming the
// current one, as Hadoop tables keep it: DuckDB's iceberg_scan of a table
// folder (iceberg_scan('…/etalake.db/port_calls')) reads it. DuckDB takes
// its content as the version and looks for the metadata file by its
// version_name_format, by default "v%s%s.metadata.json,%s%s.metadata.json"
// (the second %s a compression suffix, empty here): the lake's metadata
// files are named <version>-<uuid>.metadata.json by iceberg-go, so the
// hint holds that stem, 00012-<uuid>, which the second form finds. The
// catalog stays the truth: the hint is written after each commit, so a
// reader of the folder may be a commit behind while another writer
// commits.
const VersionHintFile = "version-hint.text"

// writeHint writes tbl's version hint, unless the hint there already
// names a newer metadata file (another writer's commit since tbl was
// loaded). A file is written whole before it replaces the hint (a rename
// on local disk; a PUT on object storage is whole by itself), so a reader
// never reads half a hint.
func writeHint(ctx context.Context, tbl *table.Table) error {
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	w, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return fmt.Errorf("lake: the storage of %s cannot write files", tbl.Location())
	}
	meta := tbl.MetadataLocation()
	cut := strings.LastIndex(meta, "/")
	if cut < 0 {
		return fmt.Errorf("lake: metadata file %s is in no folder", meta)
	}
	stem := strings.TrimSuffix(meta[cut+1:], ".metadata.json")
	hint := meta[:cut+1] + VersionHintFile
	if r, ok := fsys.(icebergio.ReadFileIO); ok {
		if old, err := r.ReadFile(hint); err == nil && hintVersion(string(old)) > hintVersion(stem) {
			return nil
		}
	}
	rn, ok := fsys.(icebergio.RenameIO)
	if !ok {
		return w.WriteFile(hint, []byte(stem))
	}
	tmp := meta[:cut+1] + "." + uuid.NewString() + ".version-hint.tmp"
	if err := w.WriteFile(tmp, []byte(stem)); err != nil {
		return err
	}
	if err := rn.Rename(tmp, hint); err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	return nil
}

// hintVersion is the version number a hint or metadata file stem
// starts with (00012-<uuid>: 12), -1 when none.
func hintVersion(s string) int {
	n, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	v, err := strconv.Atoi(strings.TrimPrefix(n, "v"))
	if err != nil {
		return -1
	}
	return v
}

// hint loads table t and writes its version hint (after a commit whose
// table the caller no longer holds: an upkeep may have committed after).
func (l *Lake) hint(ctx context.Context, t *schema.Table) error {
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err == nil {
		err = writeHint(ctx, tbl)
	}
	if err != nil {
		return fmt.Errorf("lake: writing the version hint of %s: %w", t.Name, err)
	}
	return nil
}
