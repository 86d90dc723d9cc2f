package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/etalake/etalake/wire"
)

// The vendor's webhooks. A shipment asked for once (a 200 answer to the
// tracking query, or Service.Subscribe) is tracked by the vendor, which
// from then on pushes two events of it, as its tracking answer at the
// event's virtual time wrapped as the Standard Webhooks payload
// recommends ({"type", "timestamp", "data"}) with the answer as
// data.containerDetails:
//
//   - PushDischarged, when a container of it is discharged at its port of
//     discharge: at the actual time of its CDD step;
//   - PushPODDateChanged, when the POD date the carrier reports (the
//     answer's route.pod.date) moved by more than 24 hours since the
//     carrier's previous revision: at the revision that moved it, or at
//     the arrival when the actual date is more than 24 hours from the
//     last estimate. The date is read from the answers themselves, so
//     whatever moves the carrier's estimate — drift, a roll to a later
//     sailing — pushes when it moves it that far.
//
// Events are a pure function of the world, the subscription's time and
// the span asked; their ids (webhook-id) too, so that a retry carries the
// id of its first attempt.
const (
	PushDischarged     = "container.discharged_at_pod"
	PushPODDateChanged = "container.pod_date_changed"
)

// podChangeThreshold is the vendor's "more than 24 h".
const podChangeThreshold = 24 * time.Hour

// tagPush keeps the hash stream of webhook ids apart from the world's
// draws (rand.go's tags count up from 1).
const tagPush uint64 = 0x7075736800000001

// Push is one webhook the vendor sends.
type Push struct {
	// ID is the webhook-id, the same for every attempt.
	ID   string
	Type string
	// At is the virtual time of the event: the payload's timestamp.
	At time.Time
	// Ref is the shipment as it was asked (and is tracked).
	Ref wire.ShipmentRef
	// Container is the container discharged (PushDischarged).
	Container string
	// Body is the payload, as signed and sent.
	Body []byte
}

// pushPayload is the body of a webhook.
type pushPayload struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      pushData  `json:"data"`
}

type pushData struct {
	ContainerNumber  string         `json:"containerNumber,omitempty"`
	PreviousPODDate  *time.Time     `json:"previousPodDate,omitempty"`
	PODDate          *time.Time     `json:"podDate,omitempty"`
	ContainerDetails *wire.Shipment `json:"containerDetails"`
}

// subscriptions are the shipments the vendor pushes for, and how far the
// pushes were listed (DuePushes).
type subscriptions struct {
	mu     sync.Mutex
	since  map[wire.ShipmentRef]time.Time // virtual time of the first ask
	listed time.Time
}

func newSubscriptions(start time.Time) *subscriptions {
	return &subscriptions{since: map[wire.ShipmentRef]time.Time{}, listed: start}
}

// add subscribes ref from at on, unless it was already.
func (p *subscriptions) add(ref wire.ShipmentRef, at time.Time) {
	if ref.Type == "" {
		ref.Type = wire.ShipmentContainer
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.since[ref]; !ok {
		p.since[ref] = at
	}
}

// Subscribe makes the vendor push for these shipments from the virtual
// clock's now on, as asking for them does: for a harness that tracks
// shipments without asking for them first.
func (s *Service) Subscribe(refs ...wire.ShipmentRef) {
	now := s.clock.Now()
	for _, r := range refs {
		s.subs.add(r, now)
	}
}

// DuePushes lists the pushes of the events since the last call (the
// first: since the service was built) up to the virtual clock's now,
// oldest first, and moves past them.
func (s *Service) DuePushes() []Push {
	now := s.clock.Now()
	s.subs.mu.Lock()
	from := s.subs.listed
	if now.After(from) {
		s.subs.listed = now
	}
	subs := make(map[wire.ShipmentRef]time.Time, len(s.subs.since))
	for r, t := range s.subs.since {
		subs[r] = t
	}
	s.subs.mu.Unlock()
	return s.world.pushes(subs, from, now)
}

// PushesBetween lists the pushes of the events in (from, to] of the
// shipments subscribed, without moving DuePushes past them.
func (s *Service) PushesBetween(from, to time.Time) []Push {
	s.subs.mu.Lock()
	subs := make(map[wire.ShipmentRef]time.Time, len(s.subs.since))
	for r, t := range s.subs.since {
		subs[r] = t
	}
	s.subs.mu.Unlock()
	return s.world.pushes(subs, from, to)
}

// pushes lists the events in (from, to] of the shipments subscribed, each
// after its subscription, oldest first (ties by id).
func (w *World) pushes(subs map[wire.ShipmentRef]time.Time, from, to time.Time) []Push {
	refs := make([]wire.ShipmentRef, 0, len(subs))
	for r := range subs {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(i, j int) bool { return refKey(refs[i]) < refKey(refs[j]) })
	var out []Push
	for _, ref := range refs {
		lo := from
		if subs[ref].After(lo) {
			lo = subs[ref]
		}
		if !to.After(lo) {
			continue
		}
		out = append(out, w.shipmentPushes(ref, lo.Unix(), to.Unix())...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.Before(out[j].At)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func refKey(r wire.ShipmentRef) string { return string(r.Type) + "/" + r.Number + "/" + r.Sealine }

// locate finds the shipment and container (−1: all of them) a ref names,
// as Shipment does.
func (w *World) locate(ref wire.ShipmentRef) (si, cn int, ok bool) {
	si, cn = -1, -1
	switch ref.Type {
	case wire.ShipmentContainer, "":
		if hit, found := w.byContainer[ref.Number]; found {
			si, cn = hit[0], hit[1]
		}
	default:
		if i, found := w.byDocument[string(ref.Type)+"/"+ref.Number]; found {
			si = i
		}
	}
	if si < 0 || (ref.Sealine != "" && ref.Sealine != w.carriers[w.shipments[si].carrier].scac) {
		return -1, -1, false
	}
	return si, cn, true
}

// shipmentPushes lists one shipment's events in (lo, hi], Unix seconds.
func (w *World) shipmentPushes(ref wire.ShipmentRef, lo, hi int64) []Push {
	si, cn, ok := w.locate(ref)
	if !ok {
		return nil
	}
	s := &w.shipments[si]
	var out []Push
	// Discharged at the POD, per container.
	for i := range s.containers {
		if cn >= 0 && i != cn {
			continue
		}
		for _, st := range w.stepsAt(s, i, math.MaxInt64) { // as they happened, jumps and all
			if st.status != "CDD" {
				continue
			}
			if t := w.actualTime(&st); t > lo && t <= hi {
				if p, ok := w.push(ref, PushDischarged, t, pushData{ContainerNumber: s.containers[i].number}); ok {
					out = append(out, p)
				}
			}
		}
	}
	// The POD date moved by more than 24 h: at each carrier revision,
	// and at the arrival (the estimate replaced by the actual).
	car := &w.carriers[s.carrier]
	check := func(prevAt, at int64) {
		prev, err1 := w.Shipment(ref, time.Unix(prevAt, 0))
		cur, err2 := w.Shipment(ref, time.Unix(at, 0))
		if err1 != nil || err2 != nil {
			return // not booked yet
		}
		pd, cd := podDate(prev), podDate(cur)
		if pd == nil || cd == nil || prev.AtPOD() {
			return
		}
		if d := cd.Sub(*pd); d > podChangeThreshold || -d > podChangeThreshold {
			if p, ok := w.push(ref, PushPODDateChanged, at, pushData{PreviousPODDate: pd, PODDate: cd}); ok {
				out = append(out, p)
			}
		}
	}
	for r := car.revision(lo) + 1; car.revisionTime(r) <= hi; r++ {
		check(car.revisionTime(r-1), car.revisionTime(r))
	}
	final := s.finalLegs()
	if arr := w.calls[final[len(final)-1].to].actArr; arr > lo && arr <= hi {
		check(arr-1, arr)
	}
	return out
}

func podDate(s *wire.Shipment) *time.Time {
	if s.Route == nil || s.Route.Pod == nil || s.Route.Pod.Date == nil {
		return nil
	}
	t := s.Route.Pod.Date.UTC()
	return &t
}

// push renders the webhook of an event at Unix second t: the tracking
// answer of ref at t inside the payload. ok is false when the shipment is
// not known at t.
func (w *World) push(ref wire.ShipmentRef, typ string, t int64, data pushData) (Push, bool) {
	at := time.Unix(t, 0).UTC()
	sh, err := w.Shipment(ref, at)
	if err != nil {
		return Push{}, false
	}
	data.ContainerDetails = sh
	body, err := json.Marshal(pushPayload{Type: typ, Timestamp: at, Data: data})
	if err != nil {
		return Push{}, false
	}
	h := hash(w.seed, tagPush, strID(typ), strID(refKey(ref)), strID(data.ContainerNumber), t)
	return Push{ID: fmt.Sprintf("msg_%016x%08x", h, uint32(mix(h))), Type: typ, At: at, Ref: ref, Container: data.ContainerNumber, Body: body}, true
}
