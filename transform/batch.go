package transform

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/wire"
)

// Batch derives the contract tables' rows from responses and buffers them
// until Records. Within a batch a table holds one row per key (a
// dimension's, per response): a response's own repeats collapse into its
// first row (a location, facility or vessel named again fills that row's
// null columns); across responses, append tables keep the row of the
// smaller response_id, latest tables the values of the newest observation
// (ties: the greater response_id) with the earliest first and the latest
// last time, and dimension tables the same unless an older observation
// gives an attribute no newer one gives: that one keeps a row of its own
// with those attributes (see dimension), for the loader to merge attribute
// by attribute. The rows do not depend on the order of the responses. Rows are kept as Go
// values until Records, which allocates the Arrow memory. A Batch is not
// safe for concurrent use.
type Batch struct {
	mem  memory.Allocator
	adds uint64
	strs *interner

	deadLetters *store[deadLetterKey, deadLetterRow]
	periods     *store[periodKey, periodRow]
	locations   *store[string, locationRow]
	facilities  *store[string, facilityRow]
	vessels     *store[int64, vesselRow]
	shipments   *store[shipmentKey, shipmentRow]
	etas        *store[etaKey, etaRow]
	containers  *store[containerKey, containerRow]
	events      *store[eventKey, eventRow]
	eventObs    *store[eventObsKey, eventObsRow]
	portCalls   *store[portCallKey, portCallRow]
	buffers     []buffer // in schema.Tables order

	counts []int           // scratch: rows per buffer of one Add
	occ    occurrences     // scratch: the container events of one response
	fast   shipmentDecoder // the tracking responses' fast path
	noFast bool            // tests: decode every body with the wire decoders
}

// NewBatch returns an empty batch whose records are allocated from mem
// (nil: Go's heap, memory.DefaultAllocator).
func NewBatch(mem memory.Allocator) *Batch {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := &Batch{
		mem:         mem,
		strs:        newInterner(),
		deadLetters: newDeadLetters(),
		periods:     newPeriods(),
		locations:   newLocations(),
		facilities:  newFacilities(),
		vessels:     newVessels(),
		shipments:   newShipments(),
		etas:        newETAs(),
		containers:  newContainers(),
		events:      newEvents(),
		eventObs:    newEventObs(),
		portCalls:   newPortCalls(),
	}
	b.fast.strs = b.strs
	byTable := map[*schema.Table]buffer{}
	for _, buf := range []buffer{b.deadLetters, b.periods, b.locations, b.facilities, b.vessels,
		b.shipments, b.etas, b.containers, b.events, b.eventObs, b.portCalls} {
		byTable[buf.table()] = buf
	}
	for _, t := range schema.Tables {
		if buf, ok := byTable[t]; ok {
			buf.setSlot(len(b.buffers))
			b.buffers = append(b.buffers, buf)
		}
	}
	b.counts = make([]int, len(b.buffers))
	return b
}

// add is the state of one Add: the response and what it produced.
type add struct {
	r    *response.Landed
	seq  uint64
	obs  int64 // ObservedAt in microseconds
	rows []int // by buffer, the rows new to the response
	dead int
	// owned is set when the body was decoded by the shipment fast path,
	// whose strings the batch already owns.
	owned bool
	// The dimension objects the response put last, with their keys: the
	// fast path shares one object among the events that spell it the same
	// way, and putting it again within the response would change nothing.
	lastLocation *wire.Location
	lastLocode   string
	lastFacility *wire.Facility
	lastFacKey   string
	lastVessel   *wire.Vessel
}

// keep is the keeper of a's strings.
func (b *Batch) keep(a *add) keeper { return keeper{in: b.strs, owned: a.owned} }

// Add derives the rows of one landed response. It never fails: a non-2xx response
// is skipped; a body that does not have its endpoint's shape becomes one
// dead_letters row and nothing else; a record inside a good body that does
// not fit (an event without a code, a vessel schedule without a vessel)
// becomes a dead_letters row and the rest of the body loads. ObservedAt is
// kept in UTC, truncated to microseconds. The batch keeps no reference to
// the body.
func (b *Batch) Add(r response.Landed) Result {
	if r.Status < 200 || r.Status > 299 {
		return Result{Skipped: true}
	}
	b.adds++
	clear(b.counts)
	a := &add{r: &r, seq: b.adds, obs: r.ObservedAt.UnixMicro(), rows: b.counts}
	switch r.Endpoint {
	case wire.EndpointShipment:
		b.addShipment(a)
	case wire.EndpointPortSchedule, wire.EndpointP2PSchedule, wire.EndpointVesselSchedule:
		b.addSchedule(a)
	case wire.EndpointCurrentPeriod, wire.EndpointPeriods:
		b.addConsumption(a)
	case wire.EndpointUnidentified:
		reason := "an imported body that is no known answer"
		if _, err := Identify(r.Body); err != nil {
			reason = err.Error()
		}
		b.deadLetter(a, "", reason)
	default:
		b.deadLetter(a, "", fmt.Sprintf("unknown endpoint %q: no transform derives rows from it", string(r.Endpoint)))
	}
	res := Result{DeadLetters: a.dead, Rows: map[string]int{}}
	for i, n := range a.rows {
		if n > 0 {
			res.Rows[b.buffers[i].table().Name] = n
		}
	}
	return res
}

// Quarantine records a response that is not to be derived — too large to
// decode, or one whose rows the warehouse refused — as one dead_letters row
// of the whole body, with reason, and derives nothing from its body (which
// Quarantine does not read). Like Add's, the row does not depend on the
// order of the responses.
func (b *Batch) Quarantine(r response.Landed, reason string) Result {
	b.adds++
	clear(b.counts)
	a := &add{r: &r, seq: b.adds, obs: r.ObservedAt.UnixMicro(), rows: b.counts}
	b.deadLetter(a, "", reason)
	return Result{DeadLetters: a.dead, Rows: map[string]int{}}
}

// put buffers row r under key k in s for the response of a.
func put[K comparable, R any](a *add, s *store[K, R], k K, r R) {
	if s.put(a.seq, k, r) {
		a.rows[s.slot]++
	}
}

// Rows is the number of rows buffered over all tables, for deciding when
// to take the records. Take them well before a string column could pass
// 2 GiB (tens of millions of rows).
func (b *Batch) Rows() int {
	n := 0
	for _, buf := range b.buffers {
		n += buf.len()
	}
	return n
}

// Bytes estimates the Go memory the buffered rows hold (rows, keys,
// indexes and their distinct strings; within a few percent of the heap
// they take), for deciding when to take the records: the same number of
// rows holds more memory when a batch holds many shipments of one day than
// few over many days. Records then allocates Arrow records of about half
// that size.
func (b *Batch) Bytes() int {
	n := b.strs.bytes
	for _, buf := range b.buffers {
		n += buf.bytes()
	}
	return n
}

// Records returns the rows of each table that has some, in schema.Tables
// order, as one record per table whose schema is its table's Arrow(). The
// batch is empty afterwards and can be reused. The caller releases the
// records.
func (b *Batch) Records() []schema.Rows {
	var out []schema.Rows
	for _, buf := range b.buffers {
		if buf.len() == 0 {
			continue
		}
		out = append(out, schema.Rows{Table: buf.table(), Rec: buf.record(b.mem)})
	}
	b.reset()
	return out
}

// Release drops what is buffered and frees the batch's buffers and
// decoding caches. Records already returned are the caller's. The batch
// can still be used, as a new one.
func (b *Batch) Release() { *b = *NewBatch(b.mem) }

func (b *Batch) reset() {
	for _, buf := range b.buffers {
		buf.reset()
	}
	b.strs.reset()
}
