package jobs

import (
	"fmt"
	"strings"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// MissingURLError: the work of a job needs a product the client has no
// base URL for (a schedule-only or tracking-only setup). The job stopped
// before any request. It matches extract.ErrNoURL.
type MissingURLError struct {
	Product wire.Product
	// Requests counts the requests due that need the product.
	Requests
	// Tracked: the shipments are the tracked set's (the nightly run), not
	// only a selection.
	Tracked bool
}

// Due says what needs the product: "3 tracked shipments are due", "2 port
// schedules and 1 vessel schedule are due".
func (e *MissingURLError) Due() string {
	shipments := "shipment"
	if e.Tracked {
		shipments = "tracked shipment"
	}
	var parts []string
	n := 0
	for _, c := range []struct {
		count int
		what  string
	}{{e.Ports, "port schedule"}, {e.Lanes, "port-to-port schedule"}, {e.Vessels, "vessel schedule"}, {e.Shipments, shipments}} {
		if c.count > 0 {
			n += c.count
			parts = append(parts, plural(c.count, c.what))
		}
	}
	verb := "are"
	if n == 1 {
		verb = "is"
	}
	list := strings.Join(parts, ", ")
	if k := len(parts); k > 1 {
		list = strings.Join(parts[:k-1], ", ") + " and " + parts[k-1]
	}
	return list + " " + verb + " due"
}

func (e *MissingURLError) Error() string {
	return fmt.Sprintf("%s but the %s product has no URL: nothing was asked", e.Due(), e.Product)
}

// Unwrap makes the error match extract.ErrNoURL.
func (e *MissingURLError) Unwrap() error { return extract.ErrNoURL }

// plural is "1 port schedule", "3 port schedules".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// needURLs refuses work that needs a product the client has no URL for,
// before any request: a *MissingURLError naming what needs it. Work of
// the other product alone runs.
func (r *runner) needURLs(work []workItem) error {
	for _, p := range r.products(work) {
		if r.client.HasURL(p) {
			continue
		}
		return &MissingURLError{Product: p, Tracked: r.opt.Track,
			Requests: countRequests(work, func(it workItem) bool { return it.product == p })}
	}
	return nil
}
