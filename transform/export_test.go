package transform

// BufferColumns lists, per table a Batch writes, the columns its rows fill,
// in the order they fill them.
func BufferColumns(b *Batch) map[string][]string {
	out := map[string][]string{}
	for _, buf := range b.buffers {
		out[buf.table().Name] = buf.columnNames()
	}
	return out
}
