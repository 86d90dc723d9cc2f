package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WriteResponses writes, for each day of the world (Config().Days from
// Config().Start), the file <dir>/YYYY-MM-DD.ndjson with the tracking
// response of every shipment visible that day at the given time of day,
// one per line, and sets the file's modification time to that moment (what
// `etalake import` takes as observed_at). It returns how many responses it
// wrote.
func WriteResponses(w *World, dir string, timeOfDay time.Duration) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	cfg := w.Config()
	n := 0
	for d := 0; d < cfg.Days; d++ {
		at := cfg.Start.Add(time.Duration(d)*24*time.Hour + timeOfDay)
		path := filepath.Join(dir, at.Format(time.DateOnly)+".ndjson")
		k, err := writeDay(w, path, at)
		n += k
		if err != nil {
			return n, err
		}
		if err := os.Chtimes(path, at, at); err != nil {
			return n, err
		}
	}
	return n, nil
}

func writeDay(w *World, path string, at time.Time) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	n := 0
	for _, ref := range w.Shipments() {
		s, err := w.Shipment(ref, at)
		if err != nil {
			continue // not booked yet, or long gone: the service would say 404
		}
		if err := enc.Encode(s); err != nil {
			f.Close()
			return n, fmt.Errorf("%s: %w", path, err)
		}
		n++
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return n, err
	}
	return n, f.Close()
}
