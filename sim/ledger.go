package sim

import "time"

// LedgerEntry is one request as the simulated service saw it. It names the
// key by its one-way id (KeyID), never by value.
type LedgerEntry struct {
	Seq       int64     `json:"seq"`
	At        time.Time `json:"at"`         // real time of arrival
	VirtualAt time.Time `json:"virtual_at"` // the service's clock
	KeyID     string    `json:"key_id,omitempty"`
	Product   string    `json:"product,omitempty"`
	Endpoint  string    `json:"endpoint,omitempty"`
	Request   string    `json:"request"` // path and query
	Status    int       `json:"status"`
	Charged   bool      `json:"charged"`
	Fault     string    `json:"fault,omitempty"` // latency is not a fault; 5xx, truncate, burst are
	// WrittenAt is the real time (the clock of At) when the whole answer
	// had been written and flushed to the connection; zero when it never
	// was: the client went away during the latency, or the write failed.
	// It tells a client killed before its answer was sent from one killed
	// after: only the first may have to buy it again.
	WrittenAt time.Time `json:"written_at"`
}

// Stats sums the ledger up.
type Stats struct {
	Requests    int64            `json:"requests"`
	ByStatus    map[int]int64    `json:"by_status"`
	Charged     map[string]int64 `json:"charged"`
	RateLimited int64            `json:"rate_limited"`
	// PeakInWindow is, per key id (KeyID), the most requests ever admitted
	// inside one rate window: never above the rate's N.
	PeakInWindow map[string]int `json:"peak_in_window"`
}
