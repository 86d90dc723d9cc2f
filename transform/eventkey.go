package transform

import (
	"crypto/sha256"
	"encoding/binary"
)

// eventIdentity is what makes a container event the same event from one
// observation to the next: never its date or its actual flag, which change
// as the estimate moves and the event happens.
type eventIdentity struct {
	container, eventType, eventCode, status, locode, imo, voyage string
}

// eventKeyVersion starts every hashed identity, so that a future change of
// the encoding cannot collide with today's keys.
const eventKeyVersion = "etalake.event/1"

// appendIdentity encodes id unambiguously: each field as its length
// (uvarint) then its bytes, in a fixed order, after the version.
func appendIdentity(buf []byte, id *eventIdentity) []byte {
	buf = append(buf, eventKeyVersion...)
	for _, f := range [...]string{id.container, id.eventType, id.eventCode, id.status, id.locode, id.imo, id.voyage} {
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	return buf
}

// eventKeyOf is the event_key of an identity at an occurrence: the first
// 16 bytes (32 hex digits) of SHA-256 over the encoded identity followed by
// the occurrence (uvarint). ident is the output of appendIdentity.
func eventKeyOf(ident []byte, occurrence int) [16]byte {
	buf := binary.AppendUvarint(ident, uint64(occurrence))
	sum := sha256.Sum256(buf)
	return [16]byte(sum[:16])
}
