package lake_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A job that changes one shipment's containers commits those rows to the
// lake, and deletes the lake's old ones by position, in one snapshot: not
// the partitions the rows lie in (issue 40: "the mirror and the lake write
// what changed"). A reader of the snapshot's files that applies the
// position deletes, as the Iceberg spec defines them, reads the warehouse.
func TestAChangedShipmentCommitsItsRowsNotItsPartitions(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	lk := open(t, localLake(t), lake.Options{})
	dir := fed(t, lk)
	tbl := schema.Containers

	wh, err := load.Open(ctx, dir, load.Options{Lake: lk})
	if err != nil {
		t.Fatal(err)
	}
	var shipment string
	var day time.Time
	if err := wh.DB().QueryRowContext(ctx, `SELECT shipment_number, first_observed_date FROM containers
		GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 1`).Scan(&shipment, &day); err != nil {
		t.Fatal(err)
	}
	var rows, partition int64
	if err := wh.DB().QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE shipment_number = ?), count(*) FILTER (WHERE first_observed_date = ?) FROM containers`,
		shipment, day).Scan(&rows, &partition); err != nil {
		t.Fatal(err)
	}
	if partition <= rows {
		t.Fatalf("shipment %s's %d containers are all of their partition's %d: the test tests nothing", shipment, rows, partition)
	}
	// The shipment observed again an hour later: its containers change.
	rec := later(t, wh, tbl, day, shipment, time.Hour)
	if _, err := wh.Load(ctx, []schema.Rows{{Table: tbl, Rec: rec}}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	now := time.Now().UTC()
	if err := wh.SaveRun(ctx, &load.Run{ID: "test-one-shipment", Job: "import", StartedAt: now, EndedAt: now, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	st, err := wh.Publish(ctx)
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	// The job's etl_runs row is the one more row written.
	if st.Lake.Rows != rows+1 || st.Lake.Deleted != rows {
		t.Errorf("the lake commit wrote %d rows and deleted %d by position: want the shipment's %d (and the job's row), not its partition's %d",
			st.Lake.Rows, st.Lake.Deleted, rows, partition)
	}
	runs, err := lk.Commits(ctx, tbl.Name)
	if err != nil {
		t.Fatal(err)
	}
	if runs["test-one-shipment"] != 1 {
		t.Errorf("%s: %d snapshots carry the job, want 1", tbl.Name, runs["test-one-shipment"])
	}
	deletes, err := lk.DeleteFiles(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(deletes) == 0 {
		t.Errorf("%s: no position delete file after a change of rows the lake held", tbl.Name)
	}
	checkLake(t, lk, dir)
}

// later is the rows of t of shipment in partition day, each as observed
// by later: last_observed_at moved by it, a new response_id.
func later(t *testing.T, wh *load.Warehouse, tbl *schema.Table, day time.Time, shipment string, by time.Duration) arrow.RecordBatch {
	t.Helper()
	var out arrow.RecordBatch
	change := load.LakeChange{Keyed: []time.Time{day}, Keys: []string{shipment}}
	err := wh.LakeRows(context.Background(), tbl, change, 1, func(rr array.RecordReader) error {
		if !rr.Next() { // the shipment's rows are one batch
			return rr.Err()
		}
		rec := rr.RecordBatch()
		cols := make([]arrow.Array, len(tbl.Columns))
		for i, c := range tbl.Columns {
			col := rec.Column(i)
			switch c.Name {
			case tbl.Last:
				b := array.NewTimestampBuilder(memory.DefaultAllocator, col.DataType().(*arrow.TimestampType))
				ts := col.(*array.Timestamp)
				for j := range ts.Len() {
					b.Append(ts.Value(j) + arrow.Timestamp(by.Microseconds()))
				}
				cols[i] = b.NewArray()
			case "response_id":
				b := array.NewStringBuilder(memory.DefaultAllocator)
				for range col.Len() {
					b.Append("r-later")
				}
				cols[i] = b.NewArray()
			default:
				col.Retain()
				cols[i] = col
			}
		}
		out = array.NewRecordBatch(tbl.Arrow(), cols, rec.NumRows())
		for _, c := range cols {
			c.Release()
		}
		return nil
	})
	if err != nil || out == nil {
		t.Fatalf("reading shipment %s's %s: %v", shipment, tbl.Name, err)
	}
	return out
}

// The lake stays small with no one running lake maintain: twelve jobs,
// each changing one shipment's containers, leave each partition of the
// table a handful of files, as the upkeep after each commit keeps it
// (upkeep.go), and the lake equal to the warehouse.
func TestNightlyChangesKeepTheLakeSmallWithoutMaintain(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	lk := open(t, localLake(t), lake.Options{})
	dir := fed(t, lk)
	tbl := schema.Containers
	wh, err := load.Open(ctx, dir, load.Options{Lake: lk})
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	rows, err := wh.DB().QueryContext(ctx, `SELECT shipment_number, first_observed_date FROM containers GROUP BY ALL ORDER BY 2, 1`)
	if err != nil {
		t.Fatal(err)
	}
	type ship struct {
		number string
		day    time.Time
	}
	var ships []ship
	for rows.Next() {
		var s ship
		if err := rows.Scan(&s.number, &s.day); err != nil {
			t.Fatal(err)
		}
		ships = append(ships, s)
	}
	rows.Close()
	if len(ships) < 3 {
		t.Fatalf("%d shipments: the test tests nothing", len(ships))
	}
	var compacted int
	for night := range 12 {
		s := ships[night%len(ships)]
		rec := later(t, wh, tbl, s.day, s.number, time.Duration(night+1)*time.Hour)
		if _, err := wh.Load(ctx, []schema.Rows{{Table: tbl, Rec: rec}}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		now := time.Now().UTC()
		if err := wh.SaveRun(ctx, &load.Run{ID: "night-" + strconv.Itoa(night), Job: "import", StartedAt: now, EndedAt: now, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
		st, err := wh.Publish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		compacted += st.Lake.Compacted
	}
	if compacted == 0 {
		t.Error("twelve nights of changes, and the upkeep never compacted")
	}
	files := map[string]int{}
	for _, list := range []func(context.Context, *schema.Table) ([]lake.File, error){lk.Files, lk.DeleteFiles} {
		fs, err := list(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			files[strconv.FormatInt(f.Writer, 10)+" "+f.Day]++
		}
	}
	for part, n := range files {
		if n > 8 {
			t.Errorf("%s partition %s: %d data and delete files after twelve nights", tbl.Name, part, n)
		}
	}
	checkLake(t, lk, dir)
}
