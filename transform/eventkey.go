package transform

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// eventIdentity is what makes a container event the same event from one
// observation to the next: never its date or its actual flag, which change
// as the estimate moves and the event happens.
type eventIdentity struct {
	container, eventType, eventCode, status, locode string
	imo                                             int64 // 0 for none
	voyage                                          string
}

// appendIdentity encodes id unambiguously: each field as its length
// (uvarint) then its bytes, in a fixed order; the IMO number is written in
// decimal, and as nothing when there is none. It is short, so that most
// identities hash in one SHA-256 block. The keys are stored in the
// warehouse: changing the encoding changes every key, which takes a
// migration.
func appendIdentity(buf []byte, id *eventIdentity) []byte {
	for _, f := range [...]string{id.container, id.eventType, id.eventCode, id.status, id.locode} {
		buf = appendField(buf, f)
	}
	var digits [20]byte
	imo := digits[:0]
	if id.imo != 0 {
		imo = strconv.AppendInt(imo, id.imo, 10)
	}
	buf = binary.AppendUvarint(buf, uint64(len(imo)))
	buf = append(buf, imo...)
	return appendField(buf, id.voyage)
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
