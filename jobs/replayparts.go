package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/etalake/etalake/load"
)

// DefaultReplayPartBytes is how much landed JSON one process replays
// before the next takes over (etalake replay --part-size), for the reason
// of DefaultImportPartBytes. A replay's part reads its bodies back from
// DuckDB and takes more memory than an import's of the same size: at 5 M
// events, parts of 1 GiB peaked at 401–405 MiB and of 512 MiB at 372–378,
// in no more time (BENCHMARKS.md, "Replay in parts").
const DefaultReplayPartBytes = 512 << 20

// ReplayPart is the share of a replay one process takes on: the responses
// observed in [From, To), a zero bound open.
type ReplayPart struct {
	Index int       `json:"index"` // 1-based
	Of    int       `json:"of"`
	From  time.Time `json:"from,omitzero"`
	To    time.Time `json:"to,omitzero"`
	// Full: a part of a full replay. The tables are emptied first (by the
	// Reset part, or by the part itself when it is the only one), so it
	// has no rows of its range to delete.
	Full bool `json:"full,omitempty"`
	// Reset: the first part of a full replay in parts, which replays
	// nothing and only empties every derived table, in a process of its
	// own (the deletes' memory grows with the warehouse).
	Reset bool `json:"reset,omitempty"`
	// Last: the part that writes the Parquet mirror and refreshes the
	// analytic tables, for every part's rows.
	Last bool `json:"last"`
	// Finish: a last part that replays nothing and only writes the mirror
	// and the analytics, as ImportPart's.
	Finish    bool  `json:"finish,omitempty"`
	Responses int64 `json:"responses"`
	Bytes     int64 `json:"bytes"` // the bodies' size before compression
}

// Observed names the part's range, as the log and the run ledger show it
// (or, for the Finish part, what it writes).
func (p ReplayPart) Observed() string {
	switch {
	case p.Finish:
		return finishing
	case p.Reset:
		return resetting
	}
	bound := func(t time.Time, open string) string {
		if t.IsZero() {
			return open
		}
		return t.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("[%s, %s)", bound(p.From, "the first"), bound(p.To, "the last"))
}

// resetting is what the Reset part does.
const resetting = "every derived table emptied"

// wholeReplay is a replay as one part.
func wholeReplay(opt ReplayOptions) ReplayPart {
	return ReplayPart{Index: 1, Of: 1, From: opt.From, To: opt.To, Full: opt.full(), Last: true}
}

// PlanReplay splits the replay opt asks for into consecutive ranges of
// observed time of at most partBytes of landed bodies each, cut between
// hours (an hour larger than partBytes is a part of its own), after a
// Reset part for a full replay, and before a Finish part. Replayed in
// order, they derive every response in the order one replay does.
// partBytes ≤ 0, or a raw landing that fits, is one part.
func PlanReplay(ctx context.Context, wh *load.Warehouse, opt ReplayOptions, partBytes int64) ([]ReplayPart, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	hours, err := wh.RawHours(ctx, load.RawFilter{Since: opt.From, Until: opt.To})
	if err != nil {
		return nil, err
	}
	whole := wholeReplay(opt)
	var parts []ReplayPart
	cur := whole
	for _, h := range hours {
		if partBytes > 0 && cur.Responses > 0 && cur.Bytes+h.Bytes > partBytes {
			cur.To, cur.Last = h.Start, false
			parts = append(parts, cur)
			cur = ReplayPart{From: h.Start, To: whole.To, Full: whole.Full}
		}
		cur.Responses += h.Responses
		cur.Bytes += h.Bytes
	}
	parts = append(parts, cur)
	if len(parts) > 1 {
		parts[len(parts)-1].Last = false
		parts = append(parts, ReplayPart{Full: whole.Full, Last: true, Finish: true})
		if whole.Full {
			parts = append([]ReplayPart{{Full: true, Reset: true}}, parts...)
		}
	}
	for i := range parts {
		parts[i].Index, parts[i].Of = i+1, len(parts)
	}
	return parts, nil
}

// ReplayPartRunner replays one part of a replay, usually in a process of
// its own (ReplayPartProcess), and says what it did.
type ReplayPartRunner func(ctx context.Context, part ReplayPart, opt ReplayOptions) (ReplayStats, error)

// ReplayParts replays the parts PlanReplay made, in order, each by run,
// and adds up what they did. It stops at the first part that fails: the
// parts before it stay replayed; replaying again repairs the rest (after
// a full replay, so does the next run, which derives every landed
// response no part reached).
// A single part is run as it is, its error unwrapped.
func ReplayParts(ctx context.Context, parts []ReplayPart, opt ReplayOptions, run ReplayPartRunner) (ReplayStats, error) {
	total := ReplayStats{Rows: map[string]int64{}}
	if err := opt.check(); err != nil {
		return total, err
	}
	if len(parts) == 1 {
		return run(ctx, parts[0], opt)
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	for _, p := range parts {
		if opt.Log != nil {
			opt.Log.Info("replay: part", "part", p.Index, "of", p.Of, "observed", p.Observed(), "responses", p.Responses, "bytes", p.Bytes)
		}
		start := now()
		st, err := run(ctx, p, opt)
		total.add(st)
		if opt.Log != nil {
			opt.Log.Info("replay: part done", "part", p.Index, "of", p.Of, "responses", st.Responses,
				"seconds", now().Sub(start).Round(time.Millisecond).Seconds(), "peak_rss_mib", st.PeakRSSKiB>>10)
		}
		if err != nil {
			return total, fmt.Errorf("replay part %d of %d (observed %s): %w", p.Index, p.Of, p.Observed(), err)
		}
	}
	return total, nil
}

// add counts what another part did.
func (s *ReplayStats) add(o ReplayStats) {
	s.Runs = append(s.Runs, o.Runs...)
	s.Responses += o.Responses
	s.DeadLetters += o.DeadLetters
	s.PeakRSSKiB = max(s.PeakRSSKiB, o.PeakRSSKiB)
	for t, n := range o.Rows {
		s.Rows[t] += n
	}
}
