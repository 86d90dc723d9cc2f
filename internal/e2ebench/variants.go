package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etalake/etalake/wire"
)

// variantsName is the file of the verification input whose bodies meet
// the rules of the transform that the simulator's answers never need.
const variantsName = "variants.ndjson"

// writeVariants writes <dir>/variants.ndjson from the first bodies of the
// first file of dir, each changed to meet rules the simulator does not:
// events of one identity occurring again (occurrence 1, 2) and exact
// duplicates of those; facilities keyed by their name (case and white
// space normalised), by country and BIC, by country and SMDG; a place
// whose first mention lacks a name, state and coordinates that a later
// one gives; a body without metadata (the shipment is its first
// container, as CT); a body without a route; events without a location,
// a vessel IMO or a transport type; a predictive ETA. The file is observed
// an hour after the first file.
func writeVariants(dir string) (int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil || len(paths) == 0 {
		return 0, fmt.Errorf("%s: no input to vary (%v)", dir, err)
	}
	bodies, err := firstBodies(paths[0], 8)
	if err != nil {
		return 0, err
	}
	for i, s := range bodies {
		vary(i, s)
	}
	var b strings.Builder
	for _, s := range bodies {
		line, err := json.Marshal(s)
		if err != nil {
			return 0, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	st, err := os.Stat(paths[0])
	if err != nil {
		return 0, err
	}
	out := filepath.Join(dir, variantsName)
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return 0, err
	}
	at := st.ModTime().Add(time.Hour)
	return len(bodies), os.Chtimes(out, at, at)
}

// firstBodies decodes the first n shipments of an NDJSON file that have
// containers with at least two events.
func firstBodies(path string, n int) ([]*wire.Shipment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var out []*wire.Shipment
	for sc.Scan() && len(out) < n {
		s, err := wire.DecodeShipment(sc.Bytes())
		if err != nil {
			return nil, err
		}
		if len(s.Containers) > 0 && len(s.Containers[0].Events) >= 2 && s.Route != nil && s.Route.Pod != nil {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < n {
		return nil, errors.New(path + ": too few shipments with events to vary")
	}
	return out, nil
}

// vary changes body i of the variants.
func vary(i int, s *wire.Shipment) {
	c := &s.Containers[0]
	switch i {
	case 0: // occurrences and duplicates of them
		first, second := c.Events[0], c.Events[1]
		again := func(d time.Duration) wire.Event {
			e := first
			if e.Date != nil {
				t := e.Date.Add(d)
				e.Date = &t
			} else {
				e.Description += " again"
			}
			return e
		}
		c.Events = append(c.Events, again(time.Hour), again(2*time.Hour), second, again(time.Hour))
	case 1: // facilities keyed by name, by country and BIC, by country and SMDG
		for j := range c.Events {
			f := c.Events[j].Facility
			if f == nil {
				continue
			}
			g := *f
			switch j % 3 {
			case 0:
				g.SMDGCode, g.BICCode = nil, nil
				g.Name = "  " + strings.ToLower(g.Name) + " \t x  "
			case 1:
				g.Locode = nil
			case 2:
				g.Locode, g.BICCode, g.Name = nil, nil, ""
			}
			c.Events[j].Facility = &g
		}
	case 2: // a place first named without its name, state and coordinates
		if p := s.Route.Pol; p != nil && p.Location != nil {
			l := *p.Location
			l.Name, l.State, l.Coordinates = "", nil, nil
			p.Location = &l
		}
		for j := range c.Events {
			if l := c.Events[j].Location; l != nil {
				m := *l
				m.Timezone = ""
				c.Events[j].Location = &m
				break
			}
		}
	case 3: // no metadata: the shipment is its first container
		s.Metadata = nil
	case 4: // no route; events without location, vessel IMO, transport type
		s.Route = nil
		c.Events[0].Location = nil
		for j := range c.Events {
			if v := c.Events[j].Vessel; v != nil {
				w := *v
				w.IMO = nil
				c.Events[j].Vessel = &w
				c.Events[j].TransportType = nil
				break
			}
		}
	case 5: // a predictive ETA, an unknown actual flag
		t := time.Date(2026, 2, 1, 12, 30, 0, 0, time.UTC)
		s.Route.Pod.PredictiveETA = &t
		s.Route.Pod.Actual = nil
	case 6: // a shipment type (CT by default) and a sealine left empty
		if s.Metadata != nil {
			if s.Metadata.ShipmentType == "CT" {
				s.Metadata.ShipmentType = ""
			}
			s.Metadata.Sealine = nil
		}
	case 7: // an event without a date, twice: one row
		e := c.Events[1]
		e.Date = nil
		c.Events = append(c.Events, e, e)
	}
}
