package jobs

import (
	"context"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
)

// DefaultGrace is how long a shipment is still refreshed after it finished
// (POSTPOD actual, or POD actual when there is no POSTPOD): the last
// container events (gate out, empty return) arrive in those days.
const DefaultGrace = 3 * 24 * time.Hour

// NoGrace is the RunOptions.Grace of none: a shipment is not refreshed
// once it finished (a zero Grace is DefaultGrace).
const NoGrace time.Duration = -1

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

// TrackAdd adds shipments to the tracked set, in one write whatever their
// number; shipments already tracked keep when they were added, removed ones
// are tracked again. It returns how many were not tracked before.
func TrackAdd(ctx context.Context, wh *load.Warehouse, refs []extract.ShipmentRef, by string, now time.Time) (int, error) {
	known, err := trackedByKey(ctx, wh, now)
	if err != nil {
		return 0, err
	}
	var rows []load.TrackedShipment
	for _, r := range refs {
		k := trackKey(r)
		prev, ok := known[k]
		if ok && prev.State != TrackRemoved {
			continue
		}
		at, who := now, by
		if ok {
			at, who = prev.AddedAt, prev.AddedBy
		}
		rows = append(rows, load.TrackedShipment{Number: r.Number, Type: string(r.Type), Sealine: r.Sealine, AddedAt: at, AddedBy: who})
		known[k] = Tracked{Ref: r, AddedAt: at, AddedBy: who, State: TrackActive}
	}
	return len(rows), wh.SaveTracked(ctx, rows)
}

// TrackRemove stops tracking shipments (their history stays). It returns how
// many were tracked.
func TrackRemove(ctx context.Context, wh *load.Warehouse, refs []extract.ShipmentRef, now time.Time) (int, error) {
	known, err := trackedByKey(ctx, wh, now)
	if err != nil {
		return 0, err
	}
	var rows []load.TrackedShipment
	for _, r := range refs {
		k := trackKey(r)
		prev, ok := known[k]
		if !ok || prev.State == TrackRemoved {
			continue
		}
		removed := now
		rows = append(rows, load.TrackedShipment{Number: prev.Ref.Number, Type: string(prev.Ref.Type), Sealine: prev.Ref.Sealine,
			AddedAt: prev.AddedAt, AddedBy: prev.AddedBy, RemovedAt: &removed})
		prev.State = TrackRemoved
		known[k] = prev
	}
	return len(rows), wh.SaveTracked(ctx, rows)
}

// trackKey is a shipment's key in the tracked set: its number and type.
func trackKey(r extract.ShipmentRef) [2]string { return [2]string{r.Number, string(r.Type)} }

// trackedByKey is the tracked set by trackKey.
func trackedByKey(ctx context.Context, wh *load.Warehouse, now time.Time) (map[[2]string]Tracked, error) {
	all, err := trackedSet(ctx, wh, now, DefaultGrace)
	if err != nil {
		return nil, err
	}
	known := make(map[[2]string]Tracked, len(all))
	for _, t := range all {
		known[trackKey(t.Ref)] = t
	}
	return known, nil
}

// trackedSet reads the tracked set with each shipment's state as of now.
func trackedSet(ctx context.Context, wh *load.Warehouse, now time.Time, grace time.Duration) ([]Tracked, error) {
	rows, err := wh.Tracked(ctx)
	if err != nil {
		return nil, err
	}
	return TrackedAsOf(rows, now, grace), nil
}

// TrackedAsOf gives each row of the tracked set (load.Tracked,
// load.ReadTracked) its state as of now: removed; finished when it arrived
// at its final place at least grace before now; else active.
func TrackedAsOf(rows []load.TrackedShipment, now time.Time, grace time.Duration) []Tracked {
	out := make([]Tracked, len(rows))
	for i, r := range rows {
		t := Tracked{
			Ref:     extract.ShipmentRef{Number: r.Number, Type: extract.ShipmentType(r.Type), Sealine: r.Sealine},
			AddedAt: r.AddedAt, AddedBy: r.AddedBy, Arrived: r.Arrived, LastObserved: r.LastObserved,
		}
		switch {
		case r.RemovedAt != nil:
			t.State = TrackRemoved
		case t.Arrived != nil && !t.Arrived.Add(grace).After(now):
			t.State = TrackFinished
		default:
			t.State = TrackActive
		}
		out[i] = t
	}
	return out
}
