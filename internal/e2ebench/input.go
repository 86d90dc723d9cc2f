package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/etalake/etalake/extract/sim"
)

// snapshotHour is the time of day of every snapshot, as `etalake sim
// responses` writes them by default.
const snapshotHour = 2 * time.Hour

// calibrationShipments is the size of the world whose events per shipment
// choose the benchmark's number of shipments.
const calibrationShipments = 400

// manifest describes a generated input directory; it is written last, so
// a directory with one is complete.
type manifest struct {
	Seed      int64 `json:"seed"`
	Shipments int   `json:"shipments"`
	Days      int   `json:"days"`
	Files     int   `json:"files"`
	Responses int64 `json:"responses"`
	// Events counts the container events of every body: the rows offered
	// to event_observations before any deduplication.
	Events int64 `json:"events"`
	Bytes  int64 `json:"bytes"`
}

const manifestName = "manifest.json"

// shipmentsFor is the number of shipments of a world of the given days
// whose responses hold about target container events, estimated from a
// world of calibrationShipments.
func shipmentsFor(target int64, days int) (int, error) {
	w := sim.NewWorld(sim.WorldConfig{Seed: 1, Shipments: calibrationShipments, Days: days})
	var events int64
	for d := 0; d < days; d++ {
		at := w.Config().Start.Add(time.Duration(d)*24*time.Hour + snapshotHour)
		for _, ref := range w.Shipments() {
			s, err := w.Shipment(ref, at)
			if err != nil {
				continue
			}
			for _, c := range s.Containers {
				events += int64(len(c.Events))
			}
		}
	}
	if events == 0 {
		return 0, errors.New("the calibration world has no events")
	}
	return max(1, int((target*calibrationShipments+events/2)/events)), nil
}

// prepareInput returns the input directory of a world of the given size
// under root, generating it (sim.WriteResponses, one NDJSON file per day,
// and with variants the file of writeVariants) unless a complete one is
// there.
func prepareInput(root string, shipments, days int, variants bool) (string, manifest, error) {
	dir := filepath.Join(root, fmt.Sprintf("seed1-shipments%d-days%d", shipments, days))
	if variants {
		dir += "-variants"
	}
	if b, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil {
		var m manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return "", manifest{}, fmt.Errorf("%s: %w", dir, err)
		}
		return filepath.Join(dir, "responses"), m, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", manifest{}, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", manifest{}, err
	}
	responses := filepath.Join(dir, "responses")
	w := sim.NewWorld(sim.WorldConfig{Seed: 1, Shipments: shipments, Days: days})
	n, err := sim.WriteResponses(w, responses, snapshotHour)
	if err != nil {
		return "", manifest{}, err
	}
	if variants {
		k, err := writeVariants(responses)
		if err != nil {
			return "", manifest{}, err
		}
		n += k
	}
	m := manifest{Seed: 1, Shipments: shipments, Days: days, Responses: int64(n)}
	if m.Files, m.Events, m.Bytes, err = countEvents(responses); err != nil {
		return "", manifest{}, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", manifest{}, err
	}
	return responses, m, os.WriteFile(filepath.Join(dir, manifestName), b, 0o644)
}

// countEvents counts the container events of every line of the NDJSON
// files of dir, a file per CPU at a time.
func countEvents(dir string) (files int, events, size int64, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return 0, 0, 0, err
	}
	var mu sync.Mutex
	var errs []error
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				n, b, err := countFile(p)
				mu.Lock()
				events, size = events+n, size+b
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	return len(paths), events, size, errors.Join(errs...)
}

func countFile(path string) (events, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var body struct {
		Containers []struct {
			Events []json.RawMessage `json:"events"`
		} `json:"containers"`
	}
	r := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		size += int64(len(b))
		if len(b) > 1 {
			body.Containers = body.Containers[:0]
			if err := json.Unmarshal(b, &body); err != nil {
				return events, size, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			for _, c := range body.Containers {
				events += int64(len(c.Events))
			}
		}
		if errors.Is(err, io.EOF) {
			return events, size, nil
		}
		if err != nil {
			return events, size, err
		}
	}
}

// warm reads every file of dir once, so that each measured run finds the
// input in the page cache.
func warm(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, f)
		if err = errors.Join(err, f.Close()); err != nil {
			return err
		}
	}
	return nil
}
