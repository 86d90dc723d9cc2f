package webhook

import (
	"sync"
	"time"
)

// seen remembers the ids of the messages received within the tolerance,
// as the standard asks: "Use the webhook-id header as an idempotency key
// to prevent accidentally processing the same webhook more than once
// (e.g. save the IDs in redis for 5 minutes)". An id is kept until every
// timestamp it came with is out of the tolerance — past then a replay is
// refused as stale — and is forgotten by a restart. What outlives both,
// for the days the vendor retries, is the Ledger: seen only answers the
// replays and the deliveries of an id being landed.
//
// A sender that never got our answer retries the same id with a new
// timestamp (the standard: "Every time an attempt is retried the
// timestamp of the attempt is updated"); one that sends an id and a
// timestamp seen before replays a message, which no retry does.
type seen struct {
	mu        sync.Mutex
	tolerance time.Duration
	ids       map[string]*sighting
	swept     time.Time
}

type sighting struct {
	stamps  []int64   // the webhook-timestamps it came with
	landed  bool      // its body is on disk; false: being landed
	expires time.Time // when its newest timestamp leaves the tolerance
}

// claim outcomes.
type claim int

const (
	claimNew       claim = iota // land it, then call done
	claimDuplicate              // landed before: answer 2xx, land nothing
)

func newSeen(tolerance time.Duration) *seen {
	return &seen{tolerance: tolerance, ids: map[string]*sighting{}}
}

// claim records m, received at now, and says what to do with it: land it
// (claimNew, then done), answer it landed (claimDuplicate), or refuse it
// (ErrReplayed, ErrInFlight).
func (s *seen) claim(m Message, now time.Time) (claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	ts := m.Timestamp.Unix()
	expires := later(now, m.Timestamp).Add(s.tolerance)
	g := s.ids[m.ID]
	if g == nil {
		s.ids[m.ID] = &sighting{stamps: []int64{ts}, expires: expires}
		return claimNew, nil
	}
	for _, t := range g.stamps {
		if t == ts {
			return 0, ErrReplayed
		}
	}
	if !g.landed {
		return 0, ErrInFlight
	}
	g.stamps = append(g.stamps, ts)
	g.expires = later(g.expires, expires)
	return claimDuplicate, nil
}

// done says whether the body of a claimed id is on disk; an id whose
// landing failed is forgotten, so that the sender's retry lands it.
func (s *seen) done(id string, landed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.ids[id]; g != nil {
		if !landed {
			delete(s.ids, id)
			return
		}
		g.landed = true
	}
}

// sweep forgets the ids whose every timestamp is out of the tolerance,
// at most once per quarter of it.
func (s *seen) sweep(now time.Time) {
	if now.Sub(s.swept) < s.tolerance/4 {
		return
	}
	s.swept = now
	for id, g := range s.ids {
		if g.landed && now.After(g.expires) {
			delete(s.ids, id)
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
