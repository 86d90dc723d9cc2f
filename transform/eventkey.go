package transform

import (
	"crypto/sha256"
	"encoding/binary"
)

// eventIdentity is what makes a container event the same event from one
// observation to the next: what does not change about it. It is the
// container, what happens (the event code: LOAD, DEPA, …), where (the
// place's UN/LOCODE), and, through the occurrence that the key adds, which
// of the container's events of that code at that place it is, in the
// order the response lists them: a transhipment's second LOAD is at
// another place and so another event; two LOADs at one place are
// occurrences 0 and 1.
//
// What carriers fill in or correct over time is not in it: the date and
// the actual flag (the estimate moves, then the event happens), the vessel
// and the voyage (an estimate names none, or a ship the box is rolled
// from), the description, the facility, and the status once a code is
// known: CLL and CLT are both a LOAD (at the port of loading, at a
// transhipment), and a carrier that reports the same load first as one
// then as the other has not loaded the box twice; the place tells the two
// loads of a transhipment apart. Only an event with no code known
// (neither sent nor given by its status, see statusEvent) is identified by
// its status instead, in a namespace of its own.
//
// An earlier identity held the event type, code, status, vessel IMO and
// voyage: an estimate without a vessel and the actual with one were two
// events (migration 3 rebuilt the events with this one).
type eventIdentity struct {
	container string
	code      string // the event code; "" when none is known
	status    string // the status, used only when code is ""
	locode    string
}

// appendIdentity encodes id unambiguously: the container, then C and the
// code or S and the status, then the place, each field as its length
// (uvarint) then its bytes. It is short, so that most identities hash in
// one SHA-256 block. The keys are stored in the warehouse: changing the
// encoding changes every key, which takes a migration that derives the
// events again (see schema/migrations/0003_add_columns.sql).
func appendIdentity(buf []byte, id *eventIdentity) []byte {
	buf = appendField(buf, id.container)
	if id.code != "" {
		buf = append(buf, 'C')
		buf = appendField(buf, id.code)
	} else {
		buf = append(buf, 'S')
		buf = appendField(buf, id.status)
	}
	return appendField(buf, id.locode)
}

func appendField(buf []byte, f string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(f)))
	return append(buf, f...)
}

// eventKeyOf is the event_key of an identity at an occurrence: the first
// 16 bytes (32 hex digits) of SHA-256 over the encoded identity followed by
// the occurrence (uvarint). ident is the output of appendIdentity.
func eventKeyOf(ident []byte, occurrence int) [16]byte {
	buf := binary.AppendUvarint(ident, uint64(occurrence))
	sum := sha256.Sum256(buf)
	return [16]byte(sum[:16])
}
