package sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// serveAdmin answers the simulator's controls. They take no key: they exist
// for tests, the demo and people poking at `etalake sim serve`, which binds
// to loopback unless told otherwise.
//
//	GET  /_sim/clock                      {"now": …}
//	POST /_sim/clock?advance=24h          move the virtual clock forward
//	POST /_sim/clock?set=2026-02-01T00:00:00Z
//	GET  /_sim/truth                      the world's ground truth
//	GET  /_sim/eta?shipmentNumber=…[&shipmentType=CT|BL|BK][&sealine=…][&at=RFC 3339]
//	                                      the carrier's POD ETA of a shipment as of at
//	                                      (default: the virtual clock), World.CarrierETA
//	GET  /_sim/ledger[?since=SEQ]         every request seen (keys by KeyID)
//	GET  /_sim/stats                      counts by status, credits charged, peak per window
func (s *Service) serveAdmin(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case AdminPrefix + "clock":
		s.adminClock(w, r)
	case AdminPrefix + "truth":
		writeJSON(w, http.StatusOK, s.world.Truth())
	case AdminPrefix + "eta":
		s.adminETA(w, r)
	case AdminPrefix + "ledger":
		since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
		var out []LedgerEntry
		for _, e := range s.Ledger() {
			if e.Seq > since {
				out = append(out, e)
			}
		}
		writeJSON(w, http.StatusOK, out)
	case AdminPrefix + "stats":
		writeJSON(w, http.StatusOK, s.Stats())
	default:
		writeJSON(w, http.StatusNotFound, errorBody(http.StatusNotFound, "no such control: see /_sim/clock, truth, eta, ledger, stats", s.clock.Now()))
	}
}

// adminETA answers what the carrier reports of a shipment's arrival at its
// POD as of a time, for harnesses that judge what a client saw against it
// without spending a credit or moving the clock: the tracking query's
// parameters, and at (RFC 3339; default the virtual clock's now).
func (s *Service) adminETA(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	q := r.URL.Query()
	ref, bad := shipmentQuery(q)
	if bad != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(http.StatusBadRequest, bad.message, now, bad.details...))
		return
	}
	at := now
	if v := q.Get("at"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody(http.StatusBadRequest, "at wants an RFC 3339 time such as 2026-01-20T02:00:00Z", now))
			return
		}
		at = t
	}
	e, err := s.world.CarrierETA(ref, at)
	if err != nil {
		writeJSON(w, http.StatusNotFound, errorBody(http.StatusNotFound, "no shipment "+ref.Number+" ("+string(ref.Type)+") booked at "+at.UTC().Format(time.RFC3339), now))
		return
	}
	writeJSON(w, http.StatusOK, e)
}

func (s *Service) adminClock(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		q := r.URL.Query()
		if v := q.Get("advance"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				writeJSON(w, http.StatusBadRequest, errorBody(http.StatusBadRequest, "advance wants a positive Go duration such as 24h", s.clock.Now()))
				return
			}
			s.clock.Advance(d)
		}
		if v := q.Get("set"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeJSON(w, http.StatusBadRequest, errorBody(http.StatusBadRequest, "set wants an RFC 3339 time", s.clock.Now()))
				return
			}
			s.clock.Set(t)
		}
	}
	writeJSON(w, http.StatusOK, map[string]time.Time{"now": s.clock.Now()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
