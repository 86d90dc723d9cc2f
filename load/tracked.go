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
	// LastObserved is the latest response about it, if any, fetched or
	// pushed. Read only.
	LastObserved *time.Time
	// What the latest answer about it said, for the refresh policy. Read
	// only. Carrier is the SCAC the service reports, else the one given;
	// PODDate the carrier's date at the port of discharge (the ETA, or
	// the actual when PODActual); PostPOD says it has a final destination
	// after the POD, PostPODActual that it arrived there.
	Carrier                           string
	PODDate                           *time.Time
	PODActual, PostPOD, PostPODActual bool
	// The refresh policy's word on it, as the latest nightly run left it
	// (tracked_shipments.next_due_date, due_reason, deferred_since,
	// due_as_of): written by SaveTracked, nil or empty when none.
	NextDue       *time.Time
	DueReason     string
	DeferredSince *time.Time
	DueAsOf       *time.Time
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
		for col, d := range map[string]*time.Time{"next_due_date": t.NextDue, "deferred_since": t.DeferredSince, "due_as_of": t.DueAsOf} {
			if d != nil {
				row[col] = *d
			}
		}
		if t.DueReason != "" {
			row["due_reason"] = t.DueReason
		}
		rows[i] = row
	}
	rec, err := recordOf(schema.TrackedShipments, rows)
	if err != nil {
		return fmt.Errorf("saving the tracked set: %w", err)
	}
	defer rec.Release()
	if _, err := w.Load(ctx, []schema.Rows{{Table: schema.TrackedShipments, Rec: rec}}); err != nil {
		return fmt.Errorf("saving the tracked set: %w", err)
	}
	return nil
}

// Tracked reads the tracked set, removed shipments included, in the order
// they were added, each with its arrival, latest observation, what that
// said of its port of discharge and final destination, and the refresh
// policy's word on it.
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
       s.last_observed_at,
       coalesce(s.sealine, t.sealine, ''), s.pod_date, coalesce(s.pod_actual, false),
       s.postpod_locode IS NOT NULL, coalesce(s.postpod_actual, false),
       t.next_due_date, coalesce(t.due_reason, ''), t.deferred_since, t.due_as_of
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
		var removed, arrived, last, pod, due, deferred, asOf sql.NullTime
		if err := rows.Scan(&t.Number, &t.Type, &t.Sealine, &t.AddedAt, &t.AddedBy, &removed, &arrived, &last,
			&t.Carrier, &pod, &t.PODActual, &t.PostPOD, &t.PostPODActual, &due, &t.DueReason, &deferred, &asOf); err != nil {
			return nil, fmt.Errorf("reading the tracked set: %w", err)
		}
		t.AddedAt = t.AddedAt.UTC()
		t.RemovedAt, t.Arrived, t.LastObserved = utcOrNil(removed), utcOrNil(arrived), utcOrNil(last)
		t.PODDate, t.NextDue, t.DeferredSince, t.DueAsOf = utcOrNil(pod), utcOrNil(due), utcOrNil(deferred), utcOrNil(asOf)
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
