package lake

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A commit deletes the lake's old rows of what a night changed by
// position: the Iceberg spec's position delete files, rows of (file_path,
// pos), which every Iceberg reader applies (Spark, Trino, DuckDB, PyIceberg,
// iceberg-go), where equality deletes are not read by all. iceberg-go
// v0.7.0 writes them only in a snapshot of their own (Transaction.Delete,
// reading every column of each file), so a night's commit would be two
// snapshots, the first without the night's new rows: a reader travelling
// to it would see them gone. Here the positions are found by reading only
// the two columns the selection needs (the partition column and
// load.LakeKey), and the delete files are committed with the new data
// files in one snapshot (RowDelta).

// deleteSet is the rows change selects of writer, to match row by row.
type deleteSet struct {
	all          bool           // every row (LakeChange.All)
	whole, keyed map[int32]bool // days since 1970-01-01
	keys         map[string]bool
}

func newDeleteSet(change load.LakeChange) deleteSet {
	days := func(ds []time.Time) map[int32]bool {
		m := map[int32]bool{}
		for _, d := range ds {
			m[int32(d.UTC().Unix()/86400)] = true
		}
		return m
	}
	s := deleteSet{all: change.All, whole: days(change.Whole), keyed: days(change.Keyed), keys: map[string]bool{}}
	for _, k := range change.Keys {
		s.keys[k] = true
	}
	return s
}

// positionDeletes writes the position delete files of writer's rows of t
// in tbl that change selects (but those already deleted), named by run,
// and returns them. Each deletes rows of one data file (its
// referenced_data_file): the upkeep may then rewrite a data file and
// drop its delete files without touching any other file's.
func (l *Lake) positionDeletes(ctx context.Context, tbl *table.Table, t *schema.Table, change load.LakeChange, writer int64, run string) ([]iceberg.DataFile, error) {
	filter, err := selection(tbl, t, change, writer)
	if err != nil || filter == nil || tbl.CurrentSnapshot() == nil {
		return nil, err
	}
	tasks, err := tbl.Scan(table.WithRowFilter(filter)).PlanFiles(ctx)
	if err != nil {
		return nil, err
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	set := newDeleteSet(change)
	deleted := map[string]map[int64]bool{} // data file → positions already deleted
	readDeletes := map[string]bool{}
	wfs, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("the lake's storage cannot be written")
	}
	var out []iceberg.DataFile
	for _, task := range tasks {
		for _, d := range task.DeleteFiles {
			if readDeletes[d.FilePath()] {
				continue
			}
			readDeletes[d.FilePath()] = true
			if err := readPositionDeletes(ctx, fsys, d.FilePath(), deleted); err != nil {
				return nil, fmt.Errorf("reading the position deletes %s: %w", d.FilePath(), err)
			}
		}
		path := task.File.FilePath()
		pos, err := matchingRows(ctx, fsys, path, t, set, deleted[path])
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(pos) == 0 {
			continue
		}
		name := fmt.Sprintf("%s/deletes/%s-%05d-deletes.parquet", writerData(tbl, writer), writeID(run, t), len(out))
		df, err := writePositionDeletes(tbl, wfs, name, task.File, pos)
		if err != nil {
			return nil, fmt.Errorf("writing the position deletes %s: %w", name, err)
		}
		out = append(out, df)
	}
	return out, nil
}

// openParquet opens a Parquet file of the lake.
func openParquet(fsys iceio.IO, path string) (*pqarrow.FileReader, func() error, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, nil, err
	}
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, nil, err
	}
	return fr, pf.Close, nil
}

// readColumns calls fn with each batch of the columns names of a Parquet
// file (every column when names is nil), in file order.
func readColumns(ctx context.Context, fsys iceio.IO, path string, names []string, fn func(arrow.RecordBatch) error) (err error) {
	fr, closeFile, err := openParquet(fsys, path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeFile(); err == nil {
			err = cerr
		}
	}()
	var cols []int
	sc := fr.ParquetReader().MetaData().Schema
	for _, n := range names {
		i := sc.ColumnIndexByName(n)
		if i < 0 {
			return fmt.Errorf("no column %s", n)
		}
		cols = append(cols, i)
	}
	rr, err := fr.GetRecordReader(ctx, cols, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// readPositionDeletes adds the positions a position delete file deletes
// to deleted, by data file.
func readPositionDeletes(ctx context.Context, fsys iceio.IO, path string, deleted map[string]map[int64]bool) error {
	return readColumns(ctx, fsys, path, []string{"file_path", "pos"}, func(rec arrow.RecordBatch) error {
		paths, ok1 := rec.Column(0).(*array.String)
		pos, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("file_path and pos are %s and %s, not a string and a long", rec.Column(0).DataType(), rec.Column(1).DataType())
		}
		for i := range paths.Len() {
			p := paths.Value(i)
			if deleted[p] == nil {
				deleted[p] = map[int64]bool{}
			}
			deleted[p][pos.Value(i)] = true
		}
		return nil
	})
}

// matchingRows lists the positions of the rows of data file path that set
// selects, but those in gone.
func matchingRows(ctx context.Context, fsys iceio.IO, path string, t *schema.Table, set deleteSet, gone map[int64]bool) ([]int64, error) {
	var out []int64
	var at int64
	err := readColumns(ctx, fsys, path, []string{t.Partition, load.LakeKey(t)}, func(rec arrow.RecordBatch) error {
		days, ok := rec.Column(0).(*array.Date32)
		if !ok {
			return fmt.Errorf("%s is %s, not a date", t.Partition, rec.Column(0).DataType())
		}
		key, err := keyText(rec.Column(1))
		if err != nil {
			return fmt.Errorf("%s: %w", load.LakeKey(t), err)
		}
		for i := range days.Len() {
			pos := at + int64(i)
			d := int32(days.Value(i))
			if !gone[pos] && (set.all || set.whole[d] || (set.keyed[d] && set.keys[key(i)])) {
				out = append(out, pos)
			}
		}
		at += int64(days.Len())
		return nil
	})
	return out, err
}

// keyText renders a key column's values as load.LakeKey's text (DuckDB's
// CAST(… AS VARCHAR)).
func keyText(a arrow.Array) (func(int) string, error) {
	switch c := a.(type) {
	case *array.String:
		return c.Value, nil
	case *array.LargeString:
		return c.Value, nil
	case *array.Int64:
		return func(i int) string { return strconv.FormatInt(c.Value(i), 10) }, nil
	case *array.Int32:
		return func(i int) string { return strconv.FormatInt(int64(c.Value(i)), 10) }, nil
	}
	return nil, fmt.Errorf("keys of type %s are not supported", a.DataType())
}

// The reserved field ids of a position delete file's columns (the Iceberg
// spec's "Position Delete Files").
const (
	filePathID = 2147483546
	positionID = 2147483545
)

// writePositionDeletes writes the position delete file name, of the rows
// pos of data file of, sorted as the spec asks, and returns it as a
// delete file of of's partition that references of.
func writePositionDeletes(tbl *table.Table, wfs iceio.WriteFileIO, name string, of iceberg.DataFile, pos []int64) (iceberg.DataFile, error) {
	slices.Sort(pos)
	pb := array.NewStringBuilder(memory.DefaultAllocator)
	defer pb.Release()
	nb := array.NewInt64Builder(memory.DefaultAllocator)
	defer nb.Release()
	n := int64(len(pos))
	for _, x := range pos {
		pb.Append(of.FilePath())
		nb.Append(x)
	}
	cols := []arrow.Array{pb.NewArray(), nb.NewArray()}
	defer cols[0].Release()
	defer cols[1].Release()
	rec := array.NewRecordBatch(table.PositionalDeleteArrowSchema, cols, n)
	defer rec.Release()
	w, err := wfs.Create(name)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(table.PositionalDeleteArrowSchema, w, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		w.Close()
		return nil, err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return nil, err
	}
	if err := fw.Close(); err != nil { // closes w
		return nil, err
	}
	st, err := wfs.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := st.Stat()
	st.Close()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	spec := tbl.Metadata().PartitionSpecByID(int(of.SpecID()))
	if spec == nil {
		return nil, fmt.Errorf("no partition spec %d", of.SpecID())
	}
	b, err := iceberg.NewDataFileBuilder(*spec, iceberg.EntryContentPosDeletes, name, iceberg.ParquetFile, of.Partition(), nil, nil, n, size)
	if err != nil {
		return nil, err
	}
	// The file it deletes from, as readers find it: referenced_data_file
	// (which iceberg-go v0.7.0 writes only to v3 manifests), and equal
	// lower and upper bounds of file_path, the form Iceberg's Java and Go
	// planners both take for a file-scoped delete file (else it is
	// matched to every data file of the partition).
	path := []byte(of.FilePath())
	lo, hi := make([]byte, 8), make([]byte, 8)
	binary.LittleEndian.PutUint64(lo, uint64(pos[0]))
	binary.LittleEndian.PutUint64(hi, uint64(pos[len(pos)-1]))
	b = b.ReferencedDataFile(of.FilePath()).
		LowerBoundValues(map[int][]byte{filePathID: path, positionID: lo}).
		UpperBoundValues(map[int][]byte{filePathID: path, positionID: hi}).
		ValueCounts(map[int]int64{filePathID: n, positionID: n}).
		NullValueCounts(map[int]int64{filePathID: 0, positionID: 0})
	return b.Build(), nil
}
