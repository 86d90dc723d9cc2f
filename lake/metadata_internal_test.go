package lake

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/schema"
)

// A table's metadata files stay bounded by the documented setting,
// write.metadata.previous-versions-max (20), plus the current one: after
// 60 commits to a table created by an older binary (none of the
// properties set, so iceberg-go kept every metadata file and a log of
// 100) and a maintain — which sets the properties as a writer does — with
// a metadata file a conflicting commit wrote and never committed (older
// than the grace) among them. A file younger than the grace may be a
// commit in the making: it stays.
func TestMetadataFilesStayBoundedAfterSixtyCommitsAndAMaintain(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	cfg := localConfig(dir)
	old, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	tbl := schema.DeadLetters
	sc := icebergSchema(tbl, latestVersion())
	spec, err := partitionSpec(tbl, sc)
	if err != nil {
		t.Fatal(err)
	}
	it, err := old.cat.CreateTable(ctx, ident(tbl), sc, catalog.WithPartitionSpec(&spec), catalog.WithProperties(iceberg.Properties{"format-version": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		txn := it.NewTransaction()
		if err := txn.AddFiles(ctx, nil, iceberg.Properties{RunIDProperty: "night-" + strconv.Itoa(i)}, false); err != nil {
			t.Fatal(err)
		}
		if it, err = txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	meta := filepath.Join(strings.TrimPrefix(it.Location(), "file://"), "metadata")
	if n := len(metadataFiles(t, meta)); n != 61 {
		t.Fatalf("an older binary's 60 commits left %d metadata files, want 61: the test tests nothing", n)
	}
	// A conflicting commit's metadata file, two days old; another of a
	// commit in the making.
	stale := filepath.Join(meta, "00061-"+uuid.NewString()+".metadata.json")
	young := filepath.Join(meta, "00062-"+uuid.NewString()+".metadata.json")
	for _, f := range []string{stale, young} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	if err := os.Chtimes(stale, now.Add(-48*time.Hour), now.Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}

	l, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Maintain(ctx, MaintainOptions{KeepDays: 7, OrphanGrace: DefaultOrphanGrace, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	it, err = l.cat.LoadTable(ctx, ident(tbl))
	if err != nil {
		t.Fatal(err)
	}
	max, err := strconv.Atoi(tableProps[table.MetadataPreviousVersionsMaxKey])
	if err != nil {
		t.Fatal(err)
	}
	files := metadataFiles(t, meta)
	if len(files) > max+2 { // the young file
		t.Errorf("%d metadata files after a maintain, want at most %d (%s %d, the current one, the commit in the making)", len(files), max+2, table.MetadataPreviousVersionsMaxKey, max)
	}
	has := map[string]bool{}
	for _, f := range files {
		has[f] = true
	}
	if has[stale] {
		t.Errorf("the metadata file of a conflicting commit, two days old, is still there")
	}
	if !has[young] {
		t.Errorf("the metadata file of a commit in the making was removed")
	}
	if !has[strings.TrimPrefix(it.MetadataLocation(), "file://")] {
		t.Errorf("the current metadata file is gone")
	}
	for e := range it.Metadata().PreviousFiles() {
		if !has[strings.TrimPrefix(e.MetadataFile, "file://")] {
			t.Errorf("%s, in the metadata log, is gone", e.MetadataFile)
		}
	}
}

// metadataFiles lists the *.metadata.json files in dir.
func metadataFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}
