package transform

import (
	"github.com/etalake/etalake/wire"
)

// occurrences numbers the container events of one response: events of the
// same identity get 0, 1, 2… in array order, except that an exact
// duplicate of an earlier one (the same identity and every other value of
// its row) is the same event and yields no row.
type occurrences struct {
	seen  []occurrence
	index map[[16]byte]int32 // key at occurrence 0 → first of its list, once seen is long
	ident []byte             // scratch for the encoded identity
}

// occurrence is one numbered event of an identity.
type occurrence struct {
	key0 [16]byte // the event key at occurrence 0: the identity
	sig  eventSignature
	next int32 // the next occurrence of the identity, -1 at the end
}

// eventSignature is what, besides the identity, tells an exact duplicate:
// every other value of the event's row.
type eventSignature struct {
	at                       optTime
	actual                   optBool
	additional               bool
	eventType, status        string
	desc, facility           string
	transportType, routeType string
	imo                      int64
	voyage, vesselName, zone string
}

// occurrencesScan is how many events are searched one by one before an
// index is built.
const occurrencesScan = 32

func (o *occurrences) reset() {
	clear(o.seen) // drop the strings
	o.seen = o.seen[:0]
	if len(o.index) > 0 {
		clear(o.index)
	}
}

// first finds the first occurrence of an identity.
func (o *occurrences) first(key0 [16]byte) (int32, bool) {
	if len(o.seen) <= occurrencesScan {
		for i := range o.seen {
			if o.seen[i].key0 == key0 {
				return int32(i), true
			}
		}
		return 0, false
	}
	if len(o.index) == 0 {
		if o.index == nil {
			o.index = map[[16]byte]int32{}
		}
		for i := len(o.seen) - 1; i >= 0; i-- { // the first of each identity wins
			o.index[o.seen[i].key0] = int32(i)
		}
	}
	i, ok := o.index[key0]
	return i, ok
}

// add appends an occurrence.
func (o *occurrences) add(key0 [16]byte, sig *eventSignature) int32 {
	i := int32(len(o.seen))
	o.seen = append(o.seen, occurrence{key0: key0, sig: *sig, next: -1})
	if len(o.index) > 0 {
		if _, ok := o.index[key0]; !ok {
			o.index[key0] = i
		}
	}
	return i
}

// number returns the event key and occurrence of an event, or dup when it
// exactly repeats an earlier event of the response.
func (o *occurrences) number(id *eventIdentity, sig *eventSignature) (key [16]byte, occ int, dup bool) {
	o.ident = appendIdentity(o.ident[:0], id)
	key = eventKeyOf(o.ident, 0)
	i, ok := o.first(key)
	if !ok {
		o.add(key, sig)
		return key, 0, false
	}
	for {
		if o.seen[i].sig == *sig {
			return key, 0, true
		}
		occ++
		if o.seen[i].next < 0 {
			break
		}
		i = o.seen[i].next
	}
	o.seen[i].next = o.add(key, sig)
	return eventKeyOf(o.ident, occ), occ, false
}

// addEvents buffers the container_events and event_observations rows of
// one container, and the places, facilities and vessels they name. An
// event with neither a code nor a status is dead-lettered: nothing tells
// which event it is from one observation to the next.
func (b *Batch) addEvents(a *add, ship shipmentKey, container string, ci int, events []wire.Event) {
	for j := range events {
		e := &events[j]
		eventType, eventCode, status := eventCodes(e.EventType, e.EventCode, e.Status)
		if eventCode == "" && status == "" {
			b.deadLetter(a, indexed(indexed("containers", ci)+".events", e.Index), "event without eventCode or status: nothing tells which event it is")
			continue
		}
		locode := b.location(a, e.Location)
		facility := b.facility(a, e.Facility)
		imo := b.vessel(a, e.Vessel)
		s := b.keep(a)
		id := eventIdentity{container: container, code: eventCode, status: status, locode: locode}
		sig := eventSignature{
			at:            timeOf(e.Date),
			actual:        optBool{v: e.IsActual, ok: !e.ActualUnknown},
			additional:    e.IsAdditionalEvent,
			eventType:     eventType,
			status:        status,
			desc:          e.Description,
			facility:      facility,
			transportType: upperCode(deref(e.TransportType)),
			routeType:     upperCode(e.RouteType),
			imo:           imo,
			voyage:        deref(e.Voyage),
			vesselName:    vesselName(e.Vessel),
			zone:          e.DateZone,
		}
		key, occ, dup := b.occ.number(&id, &sig)
		if dup {
			continue
		}
		row := eventRow{
			seen:          seenAt(a.obs, a.r.ID),
			number:        ship.number,
			container:     container,
			key:           key,
			typ:           ship.typ,
			eventType:     s.code(e.EventType, eventType),
			eventCode:     s.code(e.EventCode, eventCode),
			status:        s.code(e.Status, status),
			desc:          s.of(e.Description),
			locode:        locode,
			facility:      facility,
			at:            sig.at,
			actual:        sig.actual,
			additional:    e.IsAdditionalEvent,
			routeType:     s.code(e.RouteType, sig.routeType),
			transportType: s.code(deref(e.TransportType), sig.transportType),
			vesselName:    s.of(sig.vesselName),
			voyage:        s.of(sig.voyage),
			occurrence:    int32(occ),
			zone:          b.strs.of(sig.zone),
		}
		if imo != 0 {
			row.vesselIMO = optInt{v: imo, ok: true}
		}
		put(a, b.events, eventKey{ship.number, container, key}, row)
		obs := eventObsRow{
			observed:  observed{rid: a.r.ID},
			key:       key,
			obs:       a.obs,
			number:    ship.number,
			container: container,
			at:        sig.at,
			actual:    sig.actual,
			zone:      row.zone,
		}
		put(a, b.eventObs, eventObsKey{key, a.obs}, obs)
	}
}

func vesselName(v *wire.Vessel) string {
	if v == nil {
		return ""
	}
	return v.Name
}
