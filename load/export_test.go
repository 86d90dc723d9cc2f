package load

// WriteByPartition makes w write the Parquet mirror partition by
// partition, as where the filesystem cannot swap a table whole: the tests
// run against both ways where they promise the same.
func WriteByPartition(w *Warehouse) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noSwap = true
}
