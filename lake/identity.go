package lake

import (
	"context"
	"fmt"
	"net/url"

	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A warehouse's lake_pending says what changed since its last commit,
// whichever lake took it: a warehouse pointed at another lake, or at a
// table dropped and created anew, would give it only its latest changes.
// So each commit compares every lake table with the one the warehouse
// recorded (load.LakeTable: catalog, location, table-uuid), and commits
// a table that is not that one whole (load.Warehouse.LakeHistory), saying
// so in the log. The table-uuid decides: a catalog copied to another
// database, or reached by another URL, holds the same tables with the
// same uuids and the writer's rows, and gets no history again. A table
// the warehouse has no record of (never committed, or committed by a
// binary that did not record it) gets it when it holds none of the
// writer's rows.

// Why a lake table gets the writer's whole history: the reason of the
// log line.
const (
	ReasonOtherLake = "another lake"
	ReasonRecreated = "table recreated"
	ReasonMissing   = "rows of this writer missing"
)

// The attribute keys of that line.
const (
	attrTable       = "table"
	attrReason      = "reason"
	attrPartitions  = "partitions"
	attrWasCatalog  = "was_catalog"
	attrWasLocation = "was_location"
	attrWasUUID     = "was_uuid"
	attrUUID        = "uuid"
)

// catalogID is the catalog's URL as a warehouse records it: without its
// password, which is never stored.
func (c Config) catalogID() string {
	u, err := url.Parse(c.Catalog)
	if err != nil || u.User == nil {
		return c.Catalog
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// identity is lake table tbl as a warehouse records it.
func (l *Lake) identity(tbl *table.Table) load.LakeTable {
	return load.LakeTable{Catalog: l.cfg.catalogID(), Location: tbl.Location(), UUID: tbl.Metadata().TableUUID().String()}
}

// lacks says why lake table tbl (as identity gives it: now) lacks
// writer's history, given the lake table the warehouse recorded (rec,
// when known); "" when it holds it.
func lacks(tbl *table.Table, now, rec load.LakeTable, known bool, writer int64) (string, error) {
	switch {
	case known && rec.UUID == now.UUID:
		return "", nil
	case known && (rec.Catalog != now.Catalog || rec.Location != now.Location):
		return ReasonOtherLake, nil
	case known:
		return ReasonRecreated, nil
	}
	has, err := hasRows(tbl, writer)
	if err != nil || has {
		return "", err
	}
	return ReasonMissing, nil
}

// lacksAsItIs is lacks on t's table in tables, read again as it is now
// when reading it as loaded fails after the table moved: a maintain
// beside this writer may expire the snapshot it was loaded at, and
// iceberg-go's expiry deletes that snapshot's manifest list at once, lease
// or none. A commit recovers so (conflict); this read before it must too.
// tables[t] is left the table as last read, now its identity.
func (l *Lake) lacksAsItIs(ctx context.Context, t *schema.Table, tables map[*schema.Table]*table.Table, rec load.LakeTable, known bool, writer int64) (why string, now load.LakeTable, err error) {
	for attempt := 1; ; attempt++ {
		tbl := tables[t]
		now = l.identity(tbl)
		why, err = lacks(tbl, now, rec, known, writer)
		if err == nil || attempt >= l.opt.MaxAttempts {
			return why, now, err
		}
		fresh, lerr := l.cat.LoadTable(ctx, ident(t))
		if lerr != nil || fresh.MetadataLocation() == tbl.MetadataLocation() {
			return why, now, err
		}
		tables[t] = fresh
	}
}

// hasRows reports whether the current snapshot of tbl has a data file of
// writer.
func hasRows(tbl *table.Table, writer int64) (bool, error) {
	found := false
	err := eachFile(tbl, func(f icebergDataFile, w int64, _ string) {
		found = found || (w == writer && f.Count() > 0)
	})
	return found, err
}

// histories returns, for each lake table (tables, as loaded) that lacks
// writer's history, the change that commits the warehouse's table whole,
// and logs why. It records the lake table of those that hold it but
// whose record is missing or names them otherwise (a catalog reached by
// another URL).
func (l *Lake) histories(ctx context.Context, w *load.Warehouse, tables map[*schema.Table]*table.Table, writer int64) (map[*schema.Table]load.LakeChange, error) {
	recs, err := w.LakeTables(ctx)
	if err != nil {
		return nil, err
	}
	out := map[*schema.Table]load.LakeChange{}
	for _, t := range Tables() {
		rec, known := recs[t.Name]
		why, now, err := l.lacksAsItIs(ctx, t, tables, rec, known, writer)
		if err != nil {
			return nil, fmt.Errorf("lake: reading %s's files: %w", t.Name, err)
		}
		if why == "" {
			if rec != now {
				if err := w.SetLakeTable(ctx, t, now); err != nil {
					return nil, err
				}
			}
			continue
		}
		change, err := w.LakeHistory(ctx, t)
		if err != nil {
			return nil, err
		}
		out[t] = change
		if why == ReasonMissing && len(change.Whole) == 0 {
			continue // an empty table: nothing to say
		}
		attrs := []any{attrTable, t.Name, attrReason, why, attrPartitions, len(change.Whole)}
		switch why {
		case ReasonOtherLake:
			attrs = append(attrs, attrWasCatalog, rec.Catalog, attrWasLocation, rec.Location)
		case ReasonRecreated:
			attrs = append(attrs, attrWasUUID, rec.UUID, attrUUID, now.UUID)
		}
		l.opt.Log.InfoContext(ctx, "lake: committing this warehouse's whole table: the lake table lacks its history", attrs...)
	}
	return out, nil
}

// commitOrder is the tables of changes in the order of Tables, etl_runs
// last (a reader who sees a job in the lake's etl_runs sees its tables).
func commitOrder(changes map[*schema.Table]load.LakeChange) []*schema.Table {
	var out []*schema.Table
	for _, t := range Tables() {
		if _, ok := changes[t]; ok && t != schema.ETLRuns {
			out = append(out, t)
		}
	}
	if _, ok := changes[schema.ETLRuns]; ok {
		out = append(out, schema.ETLRuns)
	}
	return out
}
