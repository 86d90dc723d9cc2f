package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// DefaultGrace is how long a shipment is still refreshed after it finished
// (POSTPOD actual, or POD actual when there is no POSTPOD): the last
// container events (gate out, empty return) arrive in those days.
const DefaultGrace = 3 * 24 * time.Hour

// Tracked is a shipment of the tracked set with what the warehouse knows of
// it.
type Tracked struct {
	Ref     extract.ShipmentRef
	AddedAt time.Time
	AddedBy string
	// State is active (refreshed by the nightly run), finished (arrived, and
	// the grace has passed) or removed.
	State string
	// Arrived is when it arrived at its final place, if it has.
	Arrived *time.Time
	// LastObserved is the latest response about it, if any.
	LastObserved *time.Time
}

// Tracked states.
const (
	TrackActive   = "active"
	TrackFinished = "finished"
	TrackRemoved  = "removed"
)

// TrackAdd adds shipments to the tracked set; shipments already tracked keep
// when they were added, removed ones are tracked again. It returns how many
// were not tracked before.
func TrackAdd(ctx context.Context, wh *load.Warehouse, refs []extract.ShipmentRef, by string, now time.Time) (int, error) {
	known, err := trackedByKey(ctx, wh.DB(), now)
	if err != nil {
		return 0, err
	}
	var rows []map[string]any
	added := 0
	for _, r := range refs {
		k := [2]string{r.Number, string(r.Type)}
		prev, ok := known[k]
		if ok && prev.State != TrackRemoved {
			continue
		}
		added++
		at, who := now, by
		if ok {
			at, who = prev.AddedAt, prev.AddedBy
		}
		rows = append(rows, trackedRow(r, at, who, nil))
		known[k] = Tracked{Ref: r, AddedAt: at, AddedBy: who, State: TrackActive}
	}
	return added, saveTracked(ctx, wh, rows)
}

// TrackRemove stops tracking shipments (their history stays). It returns how
// many were tracked.
func TrackRemove(ctx context.Context, wh *load.Warehouse, refs []extract.ShipmentRef, now time.Time) (int, error) {
	known, err := trackedByKey(ctx, wh.DB(), now)
	if err != nil {
		return 0, err
	}
	var rows []map[string]any
	for _, r := range refs {
		prev, ok := known[[2]string{r.Number, string(r.Type)}]
		if !ok || prev.State == TrackRemoved {
			continue
		}
		removed := now
		rows = append(rows, trackedRow(prev.Ref, prev.AddedAt, prev.AddedBy, &removed))
	}
	return len(rows), saveTracked(ctx, wh, rows)
}

// trackedByKey is the tracked set by (number, type).
func trackedByKey(ctx context.Context, db *sql.DB, now time.Time) (map[[2]string]Tracked, error) {
	all, err := trackedSet(ctx, db, now, DefaultGrace)
	if err != nil {
		return nil, err
	}
	known := make(map[[2]string]Tracked, len(all))
	for _, t := range all {
		known[[2]string{t.Ref.Number, string(t.Ref.Type)}] = t
	}
	return known, nil
}

func trackedRow(r extract.ShipmentRef, at time.Time, by string, removed *time.Time) map[string]any {
	row := map[string]any{
		"shipment_number": r.Number, "shipment_type": string(r.Type),
		"added_at": at, "added_by": by, "added_date": at,
	}
	if r.Sealine != "" {
		row["sealine"] = r.Sealine
	}
	if removed != nil {
		row["removed_at"] = *removed
	}
	return row
}

func saveTracked(ctx context.Context, wh *load.Warehouse, rows []map[string]any) error {
	var batches []load.Batch
	defer func() {
		for _, b := range batches {
			b.Rec.Release()
		}
	}()
	for _, row := range rows {
		rec, err := rowRecord(memory.DefaultAllocator, schema.TrackedShipments, row)
		if err != nil {
			return err
		}
		batches = append(batches, load.Batch{Table: schema.TrackedShipments, Rec: rec})
	}
	if len(batches) == 0 {
		return nil
	}
	if _, err := wh.Load(ctx, batches); err != nil {
		return fmt.Errorf("saving the tracked set: %w", err)
	}
	return nil
}

// TrackList lists the tracked set, removed shipments included, with their
// state as of now.
func TrackList(ctx context.Context, db *sql.DB, now time.Time, grace time.Duration) ([]Tracked, error) {
	return trackedSet(ctx, db, now, grace)
}

// trackedSet reads the tracked set joined with the shipments' latest state.
// A shipment is finished when it arrived at its final place — POSTPOD
// actual, or POD actual when it has no POSTPOD — at least grace before now.
func trackedSet(ctx context.Context, db *sql.DB, now time.Time, grace time.Duration) ([]Tracked, error) {
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
	var out []Tracked
	for rows.Next() {
		var t Tracked
		var typ string
		var removed, arrived, last sql.NullTime
		if err := rows.Scan(&t.Ref.Number, &typ, &t.Ref.Sealine, &t.AddedAt, &t.AddedBy, &removed, &arrived, &last); err != nil {
			return nil, err
		}
		t.Ref.Type = extract.ShipmentType(typ)
		t.AddedAt = t.AddedAt.UTC()
		if arrived.Valid {
			a := arrived.Time.UTC()
			t.Arrived = &a
		}
		if last.Valid {
			l := last.Time.UTC()
			t.LastObserved = &l
		}
		switch {
		case removed.Valid:
			t.State = TrackRemoved
		case t.Arrived != nil && !t.Arrived.Add(grace).After(now):
			t.State = TrackFinished
		default:
			t.State = TrackActive
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
