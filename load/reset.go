package load

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// Reset deletes every row of the tables, for a full replay. It deletes
// one partition at a time, each in a transaction that also records the
// partition as pending for the Parquet mirror, and checkpoints after
// each. DuckDB holds deletes in memory until a checkpoint writes them
// out, so its memory follows a partition's rows, not the warehouse's, and
// a reset fits any memory limit a load fits. raw_responses, the replay's
// source, is refused.
//
// The mirror is left as it is: readers of the mirror, as those of the
// published database, keep the tables as they were until the replay's
// end publishes them rebuilt (Publish writes every pending partition). A
// reset that stops leaves them pending for the next publish.
func (w *Warehouse) Reset(ctx context.Context, tables []*schema.Table) error {
	if err := checkDeletable(tables); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	for _, t := range tables {
		if err := w.reset(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// reset is Reset of one table. The caller holds w.mu.
func (w *Warehouse) reset(ctx context.Context, t *schema.Table) error {
	var days []day
	err := w.inTx(ctx, func(s *session) (err error) {
		days, _, err = s.days(ctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s ORDER BY 1", ident(t.Partition), ident(t.Name)))
		return err
	})
	if err != nil {
		return fmt.Errorf("load: reset %s: %w", t.Name, err)
	}
	for _, d := range days {
		where := fmt.Sprintf("WHERE %s = %s", ident(t.Partition), d.sqlLiteral())
		err := w.inTx(ctx, func(s *session) error {
			if _, err := s.exec(ctx, pendingSQL(t, "SELECT "+d.sqlLiteral())); err != nil {
				return err
			}
			_, err := s.exec(ctx, fmt.Sprintf("DELETE FROM %s %s", ident(t.Name), where))
			return err
		})
		if err != nil {
			return fmt.Errorf("load: reset %s %s: %w", t.Name, d, err)
		}
		w.stale = true
		// Committed deletes stay in memory until a checkpoint writes
		// them out.
		if _, err := w.db.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return fmt.Errorf("load: reset %s %s: %w", t.Name, d, err)
		}
	}
	return nil
}

// DeleteByResponse deletes the rows of the tables derived from the given
// responses (response_id in the set), for a replay of a range of the raw
// landing: delete, then Load the range again. Meant for Append tables; on a
// Latest or Dimension table it deletes the entities whose latest values
// came from those responses (a Dimension's values kept from other
// responses go with them, and a reload of the range does not bring those
// back). The changed partitions are recorded as pending and written by the
// next SyncParquet (usually after the reload). The responses are
// forgotten as derived in the same transaction: a replay that stops
// before it derived them all again leaves them to the next job's
// catch-up, and Publish refuses to publish tables missing their rows
// meanwhile (ErrUnderived).
func (w *Warehouse) DeleteByResponse(ctx context.Context, tables []*schema.Table, responseIDs []string) error {
	if err := checkDeletable(tables); err != nil {
		return err
	}
	for _, t := range tables {
		if _, ok := t.Column(idColumn); !ok {
			return invalidf("%s has no %s column", t.Name, idColumn)
		}
	}
	if len(responseIDs) == 0 || len(tables) == 0 {
		return nil
	}
	rec := idRecord(responseIDs)
	defer rec.Release()
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.inTx(ctx, func(s *session) error {
		err := s.withView(ctx, rec, func() error {
			_, err := s.exec(ctx, fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT DISTINCT %s FROM %s",
				ident(idsTable), ident(idColumn), ident(inView)))
			return err
		})
		if err != nil {
			return err
		}
		for _, t := range tables {
			where := fmt.Sprintf("WHERE %s IN (SELECT %s FROM %s)", ident(idColumn), ident(idColumn), ident(idsTable))
			from := fmt.Sprintf("SELECT DISTINCT %s FROM %s %s", ident(t.Partition), ident(t.Name), where)
			if _, err := s.exec(ctx, pendingSQL(t, from)); err != nil {
				return err
			}
			if _, err := s.exec(ctx, fmt.Sprintf("DELETE FROM %s %s", ident(t.Name), where)); err != nil {
				return err
			}
		}
		if _, err := s.exec(ctx, fmt.Sprintf("DELETE FROM raw_derived WHERE response_id IN (SELECT %s FROM %s)", ident(idColumn), ident(idsTable))); err != nil {
			return err
		}
		_, err = s.exec(ctx, "DROP TABLE "+ident(idsTable))
		return err
	})
	if err != nil {
		return fmt.Errorf("load: delete by response: %w", err)
	}
	w.stale = true
	return nil
}

// checkDeletable refuses tables Reset and DeleteByResponse must not touch.
func checkDeletable(tables []*schema.Table) error {
	for _, t := range tables {
		if t == nil {
			return invalidf("nil table")
		}
		if !Mirrored(t) {
			return invalidf("%s is the raw landing, the source of every replay: it is never reset", t.Name)
		}
		if _, ok := schema.ByName(t.Name); !ok {
			return invalidf("%s is not a contract table", t.Name)
		}
	}
	return nil
}

// idRecord is a one-column record of response ids.
func idRecord(ids []string) arrow.RecordBatch {
	sch := arrow.NewSchema([]arrow.Field{{Name: idColumn, Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(ids, nil)
	return b.NewRecordBatch()
}
