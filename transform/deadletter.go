package transform

import (
	"fmt"
	"strings"
)

// deadLetter buffers a dead_letters row: record is "" for the whole body,
// else where in the body (containers[0].events[3]); reason says what was
// wrong. A reason may quote the body: bytes that are not UTF-8 become
// U+FFFD, as VARCHAR requires.
func (b *Batch) deadLetter(a *add, record, reason string) {
	row := deadLetterRow{
		observed: observed{rid: a.r.ID},
		record:   record,
		reason:   validUTF8(reason),
		endpoint: b.strs.of(validUTF8(string(a.r.Endpoint))),
		at:       a.obs,
	}
	if b.deadLetters.put(a.seq, deadLetterKey{row.rid, row.record, row.reason}, row) {
		a.dead++
	}
}

// indexed renders a record path element: name[i].
func indexed(name string, i int) string { return fmt.Sprintf("%s[%d]", name, i) }

// validUTF8 replaces the bytes of s that are not UTF-8 with U+FFFD.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
