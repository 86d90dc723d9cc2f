package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/wire"
)

// Tracked is a shipment of the tracked set with what the warehouse knows of
// it.
type Tracked struct {
	Ref     wire.ShipmentRef
	AddedAt time.Time
	AddedBy string
	// State is active (refreshed by the nightly run), finished (arrived, and
	// the grace has passed) or removed.
	State string
	// Arrived is when it arrived at its final place, if it has.
	Arrived *time.Time
	// LastObserved is the latest response about it, if any, fetched or
	// pushed.
	LastObserved *time.Time
	// What the latest answer said, for the refresh policy: the carrier
	// (SCAC); ETA, the carrier's ETA at the port of discharge while it
	// has not arrived there (nil once it has, or when none is given);
	// AtPOD, discharged there with its final destination still to come.
	Carrier string
	ETA     *time.Time
	AtPOD   bool
	// LastAnswered is the latest logical date a fetch had its whole
	// answer (what a bill per shipment-month counts), if any.
	LastAnswered *time.Time
	// NextDue, DueReason and DeferredSince are the refresh policy's word
	// on it as the latest nightly run left it (tracked_shipments).
	NextDue, DeferredSince *time.Time
	DueReason              string
}

// Tracked states.
const (
	TrackActive   = "active"
	TrackFinished = "finished"
	TrackRemoved  = "removed"
)

// TrackOptions configure a change of the tracked set by hand (etalake
// track add, track rm).
type TrackOptions struct {
	// Remove stops tracking the shipments; else they are tracked.
	Remove bool
	// Skipped are the input rows the command skipped as bad ("file:line:
	// reason"), already reported: the job is partial for them.
	Skipped []string
	// ExitCodes are the caller's exit codes of each verdict, recorded in
	// etl_runs.exit_code (nil: none).
	ExitCodes ExitCodes
	Version   string
	Log       *slog.Logger
	Now       func() time.Time
}

// TrackResult is what a Track did.
type TrackResult struct {
	Run     load.Run
	Verdict Verdict
	// Changed counts the shipments added (not tracked before) or removed
	// (tracked before).
	Changed int
	// DeadLetters and Quarantined count those of the responses a job that
	// died had left landed and not derived, which Track derived first.
	DeadLetters, Quarantined int
}

// Track adds the shipments to the tracked set, or removes them, as a job
// of its own (job "track" in etl_runs): it begins and ends as every
// writer does (end.go), so that it ends the rows of runs that died,
// derives what they left landed and not derived, and publishes the
// tracked set with the tables, their analytic tables and the Parquet
// mirror as of its end.
func Track(ctx context.Context, wh *load.Warehouse, refs []wire.ShipmentRef, opt TrackOptions) (TrackResult, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	change := "add"
	if opt.Remove {
		change = "rm"
	}
	run := &load.Run{ID: newRunID(opt.Now()), Job: "track", StartedAt: opt.Now(), Status: load.StatusRunning, Version: opt.Version,
		Args: map[string]any{"change": change, "shipments": len(refs)}}
	s := newSink(wh, 0, opt.Now, opt.Log.With("run", run.ID))
	defer s.batch.Release()
	var n int
	err := begin(ctx, wh, run, opt.Now())
	if err == nil && opt.Remove {
		n, err = TrackRemove(ctx, wh, refs, opt.Now())
	} else if err == nil {
		n, err = TrackAdd(ctx, wh, refs, "track add", opt.Now())
	}
	if err == nil {
		err = deriveLeft(ctx, s, run.Job)
	}
	run.Rows = map[string]int64{}
	for t, k := range s.loaded {
		run.Rows[t] = k
	}
	if n > 0 {
		run.Rows[schema.TrackedShipments.Name] += int64(n)
	}
	addShortfalls(run, deadLetterShortfalls(s.counts))
	addShortfalls(run, map[string]int{ShortSkippedInput: len(opt.Skipped)})
	var why []string
	if k := len(opt.Skipped); k > 0 {
		why = append(why, fmt.Sprintf("%d bad input rows skipped (%s)", k, firstOf(opt.Skipped, 3)))
	}
	why = append(why, deadLetterReason(s.counts)...)
	err = ending{log: s.log, now: opt.Now, codes: opt.ExitCodes}.end(ctx, wh, run, err, why)
	return TrackResult{Run: *run, Verdict: Judge(run.Status, err), Changed: n, DeadLetters: s.dead, Quarantined: s.quarantined}, err
}

// TrackAdd adds shipments to the tracked set, in one write whatever their
// number; shipments already tracked keep when they were added, removed ones
// are tracked again. It returns how many were not tracked before.
func TrackAdd(ctx context.Context, wh *load.Warehouse, refs []wire.ShipmentRef, by string, now time.Time) (int, error) {
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
func TrackRemove(ctx context.Context, wh *load.Warehouse, refs []wire.ShipmentRef, now time.Time) (int, error) {
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
func trackKey(r wire.ShipmentRef) [2]string { return [2]string{r.Number, string(r.Type)} }

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
			Ref:     wire.ShipmentRef{Number: r.Number, Type: wire.ShipmentType(r.Type), Sealine: r.Sealine},
			AddedAt: r.AddedAt, AddedBy: r.AddedBy, Arrived: r.Arrived, LastObserved: r.LastObserved,
			Carrier: r.Carrier, AtPOD: r.PODActual && r.PostPOD && !r.PostPODActual,
			NextDue: r.NextDue, DeferredSince: r.DeferredSince, DueReason: r.DueReason,
		}
		if !r.PODActual {
			t.ETA = r.PODDate
		}
		if r.RemovedAt != nil {
			t.State = TrackRemoved
		}
		out[i] = t.asOf(now, grace)
	}
	return out
}

// asOf is t with its state as of now: finished when it arrived at its
// final place at least grace before now, else active; removed stays
// removed.
func (t Tracked) asOf(now time.Time, grace time.Duration) Tracked {
	switch {
	case t.State == TrackRemoved:
	case t.Arrived != nil && !t.Arrived.Add(grace).After(now):
		t.State = TrackFinished
	default:
		t.State = TrackActive
	}
	return t
}
