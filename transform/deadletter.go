package transform

import "fmt"

// deadLetter buffers a dead_letters row: record is "" for the whole body,
// else where in the body (containers[0].events[3]); reason says what was
// wrong.
func (b *Batch) deadLetter(a *add, record, reason string) {
	row := deadLetterRow{
		observed: observed{rid: a.r.ResponseID},
		record:   record,
		reason:   reason,
		endpoint: b.strs.of(string(a.r.Endpoint)),
		at:       a.obs,
	}
	if b.deadLetters.put(a.seq, deadLetterKey{row.rid, row.record, row.reason}, row) {
		a.dead++
	}
}

// indexed renders a record path element: name[i].
func indexed(name string, i int) string { return fmt.Sprintf("%s[%d]", name, i) }
