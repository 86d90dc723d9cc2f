package load

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/etalake/etalake/estimate"
	views "github.com/etalake/etalake/sql"
)

// estimate brings the tables etalake computes (package estimate:
// arrival_estimates, arrival_learning) up to the warehouse: whole, or
// from the earliest observation they lack, of the shipments changed or,
// when something changed whole (a pull), of every shipment; and marks the
// shipments whose estimates it wrote as changed, so that the per-shipment
// tables after it (eta_accuracy_known reads the estimates) recompute
// their rows. The caller holds w.mu.
func (w *Warehouse) estimate(ctx context.Context, whole, everyShipment bool) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	scope := estimate.Scope{Whole: whole, Shipments: pendingShipments, Changed: estimatesChanged}
	if everyShipment {
		scope.Shipments = ""
	}
	res, err := estimate.Update(ctx, conn, scope)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if res.From.IsZero() || whole {
		return nil
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO analytics_pending SELECT DISTINCT shipment_number FROM arrival_estimates WHERE observed_at >= ?", res.From); err != nil {
		return fmt.Errorf("load: marking the shipments whose arrival estimates changed: %w", err)
	}
	return nil
}

// estimatesChanged records that arrival_estimates changes from from on,
// in the estimate's own transaction: the next publish writes its months
// from then on.
func estimatesChanged(ctx context.Context, conn *sql.Conn, from time.Time) error {
	return recordMonthsChanged(ctx, conn, "arrival_estimates", from)
}

// pendingShipments are the shipments changed since the analytic tables
// were last refreshed.
const pendingShipments = "SELECT shipment_number FROM analytics_pending WHERE shipment_number IS NOT NULL"

// applyComputed computes the tables etalake computes whole, once, after
// the files of vs (already created, empty, by createComputed) changed,
// and records vs: the tables that read them are rebuilt whole by the
// next refresh. Recorded only once computed, so that a failure computes
// them again at the next open.
func applyComputed(ctx context.Context, db *sql.DB, vs []views.View, at time.Time) error {
	if len(vs) == 0 {
		return nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := estimate.Update(ctx, conn, estimate.Scope{Whole: true, Changed: estimatesChanged}); err != nil {
		return fmt.Errorf("load: computing %s: %w", vs[0].Table, err)
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO analytics_pending VALUES (NULL)"); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, v := range vs {
		if err := recordIn(ctx, tx, v, at); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// createComputed creates v's table (empty) with its comments, and every
// other table computed by etalake not there yet, so that computing one
// finds the others.
func createComputed(ctx context.Context, db *sql.DB, v views.View) error {
	if _, err := db.ExecContext(ctx, v.SQL); err != nil {
		return err
	}
	vs, err := views.Views()
	if err != nil {
		return err
	}
	have := map[string]bool{}
	if err := tableNames(ctx, db, have); err != nil {
		return err
	}
	for _, o := range vs {
		if o.Computed && !have[o.Table] {
			if _, err := db.ExecContext(ctx, o.SQL); err != nil {
				return fmt.Errorf("load: creating %s: %w", o.Table, err)
			}
		}
	}
	return nil
}
