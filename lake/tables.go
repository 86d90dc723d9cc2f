package lake

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// The lake's table properties: format version 2, which every reader
// named in docs/lake.md reads; snapshots kept for Maintain to expire.
// Rows a night changes are deleted by position (merge-on-read, the delete
// kind every Iceberg reader applies; deletes.go), and the metadata files
// of older commits are removed by the commit that makes them older, past
// the last 20 (Iceberg's own properties: no maintenance needed). Row
// groups are DuckDB's size, 122 880 rows, not Iceberg's 1 048 576: the
// Parquet writer holds one in memory, which a first commit of a whole
// warehouse fills (170 MiB less at 16×; BENCHMARKS.md), and readers skip
// by row group statistics at a finer grain.
var tableProps = iceberg.Properties{
	"format-version":                          "2",
	"write.parquet.compression-codec":         "zstd",
	table.WriteDeleteModeKey:                  table.WriteModeMergeOnRead,
	table.MetadataDeleteAfterCommitEnabledKey: "true",
	table.MetadataPreviousVersionsMaxKey:      "20",
	table.ParquetRowGroupLimitKey:             "122880",
}

// Tables are the lake's tables: every table of the Parquet mirror.
func Tables() []*schema.Table {
	var out []*schema.Table
	for _, t := range schema.Tables {
		if load.Mirrored(t) {
			out = append(out, t)
		}
	}
	return out
}

// ident is the Iceberg identifier of table t.
func ident(t *schema.Table) table.Identifier { return table.Identifier{Namespace, t.Name} }

// icebergType is the Iceberg type of a column type: the Parquet mirror's
// types, exactly (timestamps with time zone in microseconds, dates, the
// Seen struct).
func icebergType(t schema.Type, next func() int) iceberg.Type {
	switch t {
	case schema.Varchar, schema.JSON:
		return iceberg.PrimitiveTypes.String
	case schema.BigInt:
		return iceberg.PrimitiveTypes.Int64
	case schema.Integer:
		return iceberg.PrimitiveTypes.Int32
	case schema.Double:
		return iceberg.PrimitiveTypes.Float64
	case schema.Boolean:
		return iceberg.PrimitiveTypes.Bool
	case schema.Timestamp:
		return iceberg.PrimitiveTypes.TimestampTz
	case schema.Date:
		return iceberg.PrimitiveTypes.Date
	case schema.Blob:
		return iceberg.PrimitiveTypes.Binary
	case schema.Seen:
		return &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: next(), Name: schema.SeenAt, Type: iceberg.PrimitiveTypes.TimestampTz},
			{ID: next(), Name: schema.SeenResponse, Type: iceberg.PrimitiveTypes.String},
		}}
	}
	panic(fmt.Sprintf("lake: no Iceberg type for column type %d", t))
}

// required says whether a column is required in the lake: a column of the
// original contract that is NOT NULL. Columns added by later migrations
// are optional (Iceberg adds only optional columns to a table that holds
// rows), and so is one that a migration made nullable.
func required(c schema.Column) bool { return !c.Nullable && c.Since == 1 }

// icebergSchema is table t's Iceberg schema as of migration version v:
// its columns then etalake_writer.
func icebergSchema(t *schema.Table, v int) *iceberg.Schema {
	id := 0
	next := func() int { id++; return id }
	var fields []iceberg.NestedField
	for _, c := range t.Columns {
		if c.Since > v {
			continue
		}
		f := iceberg.NestedField{ID: next(), Name: c.Name, Required: required(c), Doc: c.Doc}
		f.Type = icebergType(c.Type, next)
		fields = append(fields, f)
	}
	fields = append(fields, iceberg.NestedField{ID: next(), Name: load.LakeWriterColumn, Type: iceberg.PrimitiveTypes.Int64, Required: true,
		Doc: "the warehouse that wrote the row (its lake writer id): each writer replaces its own partitions only"})
	return iceberg.NewSchema(0, fields...)
}

// partitionSpec partitions by writer, then by the month of the mirror's
// day column: a partition per day would make a table of a year hold 365
// files at least, each small (Iceberg's files are best hundreds of MB);
// a month holds a few files, compacted as they come (upkeep.go). Lakes
// created before keep their day partitions: every filter of the commit
// is on columns, whatever the spec.
func partitionSpec(t *schema.Table, sc *iceberg.Schema) (iceberg.PartitionSpec, error) {
	return iceberg.NewPartitionSpecOpts(
		iceberg.AddPartitionFieldByName(load.LakeWriterColumn, load.LakeWriterColumn, iceberg.IdentityTransform{}, sc, nil),
		iceberg.AddPartitionFieldByName(t.Partition, t.Partition+"_month", iceberg.MonthTransform{}, sc, nil),
	)
}

// ensureTable loads table t, creating it as of migration version v when
// absent, and adds the columns of later migrations it lacks (field ids
// kept: Iceberg assigns the new ones).
func (l *Lake) ensureTable(ctx context.Context, t *schema.Table, v int) (*table.Table, error) {
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if errors.Is(err, catalog.ErrNoSuchTable) {
		sc := icebergSchema(t, v)
		spec, serr := partitionSpec(t, sc)
		if serr != nil {
			return nil, serr
		}
		tbl, err = l.cat.CreateTable(ctx, ident(t), sc, catalog.WithPartitionSpec(&spec), catalog.WithProperties(tableProps))
		if errors.Is(err, catalog.ErrTableAlreadyExists) {
			tbl, err = l.cat.LoadTable(ctx, ident(t)) // another writer created it meanwhile
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
	}
	if tbl, err = l.setProps(ctx, t, tbl); err != nil {
		return nil, err
	}
	if tbl, err = l.evolve(ctx, t, tbl, v); err != nil {
		return nil, err
	}
	return l.ensureSnapshot(ctx, t, tbl)
}

// setProps gives a table created by an older binary the properties of
// tableProps it lacks (but its format version), in one commit.
func (l *Lake) setProps(ctx context.Context, t *schema.Table, tbl *table.Table) (*table.Table, error) {
	missing := iceberg.Properties{}
	for k, v := range tableProps {
		if _, ok := tbl.Properties()[k]; !ok && k != "format-version" {
			missing[k] = v
		}
	}
	if len(missing) == 0 {
		return tbl, nil
	}
	var next *table.Table
	err := l.retry(ctx, t, func(cur *table.Table) error {
		txn := cur.NewTransaction()
		if err := txn.SetProperties(missing); err != nil {
			return err
		}
		var err error
		next, err = txn.Commit(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lake: setting the properties of %s: %w", t.Name, err)
	}
	return next, nil
}

// evolve adds to tbl the columns of t up to version v it lacks, in one
// schema change, retried like a commit when another writer changed the
// table meanwhile.
func (l *Lake) evolve(ctx context.Context, t *schema.Table, tbl *table.Table, v int) (*table.Table, error) {
	for attempt := 0; ; attempt++ {
		var missing []schema.Column
		for _, c := range t.Columns {
			if _, ok := tbl.Schema().FindFieldByName(c.Name); !ok && c.Since <= v {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			return tbl, nil
		}
		txn := tbl.NewTransaction()
		upd := txn.UpdateSchema(true, false)
		nextID := 1000000 // Iceberg renumbers the ids of nested fields it adds
		for _, c := range missing {
			upd = upd.AddColumn([]string{c.Name}, icebergType(c.Type, func() int { nextID++; return nextID }), c.Doc, false, nil)
		}
		if err := upd.Commit(); err != nil {
			return nil, fmt.Errorf("lake: adding %d columns to %s: %w", len(missing), t.Name, err)
		}
		next, err := txn.Commit(ctx)
		if err == nil {
			return next, nil
		}
		if !l.conflict(ctx, t, tbl, err) || attempt >= l.opt.MaxAttempts {
			return nil, fmt.Errorf("lake: adding %d columns to %s: %w", len(missing), t.Name, err)
		}
		if err := l.backoff(ctx, attempt); err != nil {
			return nil, err
		}
		if tbl, err = l.cat.LoadTable(ctx, ident(t)); err != nil {
			return nil, fmt.Errorf("lake: table %s: %w", t.Name, err)
		}
	}
}

// EnsureTables creates every lake table that does not exist yet, and adds
// to each the columns of later migrations it lacks, as of
// Options.SchemaVersion: readers find every table the mirror has, empty
// or not. Commit calls it first.
//
// Each table it leaves with a current snapshot (an empty first one when
// never written) and its version hint (hint.go) written.
func (l *Lake) EnsureTables(ctx context.Context) error {
	_, err := l.ensureTables(ctx)
	return err
}

// ensureTables is EnsureTables, returning the tables as loaded.
func (l *Lake) ensureTables(ctx context.Context) (map[*schema.Table]*table.Table, error) {
	out := map[*schema.Table]*table.Table{}
	for _, t := range Tables() {
		tbl, err := l.ensureTable(ctx, t, l.opt.SchemaVersion)
		if err != nil {
			return nil, err
		}
		if err := writeHint(ctx, tbl); err != nil {
			return nil, fmt.Errorf("lake: writing the version hint of %s: %w", t.Name, err)
		}
		out[t] = tbl
	}
	return out, nil
}

// FieldIDs maps each column of lake table t to its Iceberg field id.
func (l *Lake) FieldIDs(ctx context.Context, t *schema.Table) (map[string]int, error) {
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, f := range tbl.Schema().Fields() {
		out[f.Name] = f.ID
	}
	return out, nil
}
