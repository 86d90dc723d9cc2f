package lake

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A writer reads each lake table before its commit, to see whether the
// table holds its history. A maintain beside it may meanwhile expire the
// snapshot it loaded — iceberg-go deletes an expired snapshot's manifest
// list at once — and the read failed, failing the job (seen once in
// TestMaintainBesideCommittingWritersKeepsTheLakeWhole). The read is
// made again on the table as it now is.
func TestAWriterReadsATableWhoseLoadedSnapshotMaintainExpired(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	l := openLocal(t, dir)
	demoInto(t, l, filepath.Join(dir, "first"), 1)
	// What a writer loads before it commits.
	loaded := map[*schema.Table]*table.Table{}
	for _, s := range Tables() {
		tbl, err := l.cat.LoadTable(ctx, ident(s))
		if err != nil {
			t.Fatal(err)
		}
		loaded[s] = tbl
	}
	// Meanwhile another writer commits, and maintain expires every
	// snapshot but the newest.
	demoInto(t, l, filepath.Join(dir, "second"), 1)
	if _, err := l.Maintain(ctx, MaintainOptions{KeepDays: 0, OrphanGrace: time.Hour, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	tbl := schema.PortCalls
	if _, err := lacks(loaded[tbl], l.identity(loaded[tbl]), load.LakeTable{}, false, 3); err == nil {
		t.Fatalf("reading %s as loaded before maintain should fail (its manifest list expired): the test no longer sets the scene", tbl.Name)
	}
	why, now, err := l.lacksAsItIs(ctx, tbl, loaded, load.LakeTable{}, false, 3)
	if err != nil {
		t.Fatalf("a writer reading %s after maintain expired the snapshot it loaded: %v", tbl.Name, err)
	}
	if why != ReasonMissing {
		t.Errorf("writer 3 has no rows in %s: why = %q, want %q", tbl.Name, why, ReasonMissing)
	}
	if now != l.identity(loaded[tbl]) {
		t.Errorf("the identity read (%+v) is not the table's as it is now (%+v)", now, l.identity(loaded[tbl]))
	}
}
