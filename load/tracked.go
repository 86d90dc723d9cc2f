package load

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/etalake/etalake/schema"
)

// TrackedShipment is a row of tracked_shipments, with what the warehouse
// knows of the shipment when it is read back (Tracked, ReadTracked).
type TrackedShipment struct {
	Number, Type, Sealine string
	AddedAt               time.Time
	AddedBy               string
	RemovedAt             *time.Time // nil while tracked
	// Arrived is when the shipment arrived at its final place — POSTPOD
	// actual, or POD actual when it has no POSTPOD — if it has. Read only.
	Arrived *time.Time
	// LastObserved is the latest response about it, if any. Read only.
	LastObserved *time.Time
}

// SaveTracked writes rows of the tracked set in one load: a shipment's
// row replaces the one it had (the key is number and type). A set of any
// size is one record, so adding ten thousand shipments costs one merge.
func (w *Warehouse) SaveTracked(ctx context.Context, ts []TrackedShipment) error {
	if len(ts) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(ts))
	for i, t := range ts {
		row := map[string]any{
			"shipment_number": t.Number, "shipment_type": t.Type,
			"added_at": t.AddedAt, "added_by": t.AddedBy, "added_date": t.AddedAt,
		}
		if t.Sealine != "" {
			row["sealine"] = t.Sealine
		}
		if t.RemovedAt != nil {
			row["removed_at"] = *t.RemovedAt
		}
		rows[i] = row
	}
	rec, err := recordOf(schema.TrackedShipments, rows)
	if err != nil {
		return fmt.Errorf("saving the tracked set: %w", err)
	}
	defer rec.Release()
	if _, err := w.Load(ctx, []Batch{{Table: schema.TrackedShipments, Rec: rec}}); err != nil {
		return fmt.Errorf("saving the tracked set: %w", err)
	}
	return nil
}

// Tracked reads the tracked set, removed shipments included, in the order
// they were added, each with its arrival and latest observation.
func (w *Warehouse) Tracked(ctx context.Context) ([]TrackedShipment, error) {
	if w.db == nil {
		return nil, errClosed
	}
	return ReadTracked(ctx, w.db)
}

// ReadTracked is Tracked on a warehouse opened with OpenReadOnly.
func ReadTracked(ctx context.Context, db *sql.DB) ([]TrackedShipment, error) {
	rows, err := db.QueryContext(ctx, `
SELECT t.shipment_number, t.shipment_type, coalesce(t.sealine, ''), t.added_at, t.added_by, t.removed_at,
       CASE WHEN s.postpod_locode IS NOT NULL THEN (CASE WHEN s.postpod_actual THEN s.postpod_date END)
            WHEN s.pod_actual THEN s.pod_date END AS arrived,
       s.last_observed_at
FROM tracked_shipments t
LEFT JOIN shipments s USING (shipment_number, shipment_type)
ORDER BY t.added_at, t.shipment_number, t.shipment_type`)
	if err != nil {
		return nil, fmt.Errorf("reading the tracked set: %w", err)
	}
	defer rows.Close()
	var out []TrackedShipment
	for rows.Next() {
		var t TrackedShipment
		var removed, arrived, last sql.NullTime
		if err := rows.Scan(&t.Number, &t.Type, &t.Sealine, &t.AddedAt, &t.AddedBy, &removed, &arrived, &last); err != nil {
			return nil, fmt.Errorf("reading the tracked set: %w", err)
		}
		t.AddedAt = t.AddedAt.UTC()
		t.RemovedAt, t.Arrived, t.LastObserved = utcOrNil(removed), utcOrNil(arrived), utcOrNil(last)
		out = append(out, t)
	}
	return out, rows.Err()
}

func utcOrNil(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}
