package wire

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Paths are the request path templates, relative to a product's base URL.
// A template may carry a query (/v1/port-schedules?UNLocationCode={port}),
// merged with the parameters of the call. Placeholders in braces are
// replaced by their value, escaped for where they stand (path or query);
// {date} is the logical date of the job (YYYY-MM-DD) and {until} the last
// day of the schedule window from it; both may stand in any template. The defaults are service.md §4 and our decisions in
// spec/schedules.md; a provider with other paths is served by changing
// these, not the code.
type Paths struct {
	PortSchedule   string // {port}
	P2PSchedule    string // {pol}, {pod}
	VesselSchedule string // {imo}
	CurrentPeriod  string
	Periods        string
	Shipment       string
}

// The placeholders every template may hold: the job's logical date, and
// the last day of the schedule window that starts on it.
const (
	DatePlaceholder  = "{date}"
	UntilPlaceholder = "{until}"
)

// DefaultPaths are the paths of the spec.
func DefaultPaths() Paths {
	return Paths{
		PortSchedule:   "/schedule/{port}",
		P2PSchedule:    "/schedule/{pol}/{pod}",
		VesselSchedule: "/schedule/vessel/{imo}",
		CurrentPeriod:  "/consumption/current-period",
		Periods:        "/consumption/periods",
		Shipment:       "/shipment",
	}
}

// pathNames maps the names accepted by Set to the fields and the
// placeholders each template must hold.
var pathNames = []struct {
	name         string
	field        func(*Paths) *string
	placeholders []string
}{
	{"port", func(p *Paths) *string { return &p.PortSchedule }, []string{"{port}"}},
	{"p2p", func(p *Paths) *string { return &p.P2PSchedule }, []string{"{pol}", "{pod}"}},
	{"vessel", func(p *Paths) *string { return &p.VesselSchedule }, []string{"{imo}"}},
	{"current-period", func(p *Paths) *string { return &p.CurrentPeriod }, nil},
	{"periods", func(p *Paths) *string { return &p.Periods }, nil},
	{"shipment", func(p *Paths) *string { return &p.Shipment }, nil},
}

// Set overrides one template from a NAME=TEMPLATE setting, NAME being one of
// port, p2p, vessel, current-period, periods, shipment.
func (p *Paths) Set(setting string) error {
	name, tmpl, ok := strings.Cut(setting, "=")
	var names []string
	for _, n := range pathNames {
		names = append(names, n.name)
		if ok && n.name == strings.TrimSpace(name) {
			*n.field(p) = strings.TrimSpace(tmpl)
			return p.Validate()
		}
	}
	return fmt.Errorf("invalid path setting %q: want NAME=TEMPLATE with NAME one of %s", setting, strings.Join(names, ", "))
}

// Validate checks that every template starts with "/", holds its
// placeholders and no other but {date}, and has a query that parses.
func (p Paths) Validate() error {
	for _, n := range pathNames {
		t := *n.field(&p)
		if !strings.HasPrefix(t, "/") {
			return fmt.Errorf("invalid %s path template %q: want a path starting with /", n.name, t)
		}
		for _, ph := range n.placeholders {
			if !strings.Contains(t, ph) {
				return fmt.Errorf("invalid %s path template %q: want the placeholder %s", n.name, t, ph)
			}
		}
		for _, ph := range placeholderRE.FindAllString(t, -1) {
			if ph != DatePlaceholder && ph != UntilPlaceholder && !slices.Contains(n.placeholders, ph) {
				return fmt.Errorf("invalid %s path template %q: unknown placeholder %s; want %s", n.name, t,
					ph, strings.Join(append(slices.Clone(n.placeholders), DatePlaceholder, UntilPlaceholder), " or "))
			}
		}
		if _, query, ok := strings.Cut(t, "?"); ok {
			if _, err := url.ParseQuery(query); err != nil {
				return fmt.Errorf("invalid %s path template %q: its query: %v", n.name, t, err)
			}
		}
	}
	return nil
}

var placeholderRE = regexp.MustCompile(`\{[^{}/?&=]*\}`)

// Base paths of the two products on a provider's host: every request path
// of a product starts with its base path (docs/design.md "Service contract
// decisions").
const (
	ScheduleBasePath = "/schedule/api/v1"
	TrackingBasePath = "/container-tracking/api/v2"
)

// Template returns the path template of endpoint e.
func (p Paths) Template(e Endpoint) string {
	switch e {
	case EndpointPortSchedule:
		return p.PortSchedule
	case EndpointP2PSchedule:
		return p.P2PSchedule
	case EndpointVesselSchedule:
		return p.VesselSchedule
	case EndpointCurrentPeriod:
		return p.CurrentPeriod
	case EndpointPeriods:
		return p.Periods
	case EndpointShipment:
		return p.Shipment
	}
	return ""
}

// Path fills the path of the template of endpoint e with vars (port,
// pol, pod, imo, date), each path-escaped, and returns the escaped path
// relative to the product's base path, without the template's query.
func (p Paths) Path(e Endpoint, vars map[string]string) string {
	path, _, _ := strings.Cut(p.Template(e), "?")
	for k, v := range vars {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	return path
}

// Query fills the query of the template of endpoint e with vars; nil when
// the template has none.
func (p Paths) Query(e Endpoint, vars map[string]string) url.Values {
	_, query, ok := strings.Cut(p.Template(e), "?")
	if !ok {
		return nil
	}
	q, _ := url.ParseQuery(query) // Validate checked it
	for _, vs := range q {
		for i, v := range vs {
			for k, val := range vars {
				v = strings.ReplaceAll(v, "{"+k+"}", val)
			}
			vs[i] = v
		}
	}
	return q
}

// JoinBase joins an escaped path to a product's escaped base path once: a
// path that starts with the last segments of the base (/v1/port-schedules
// under a base ending in /v1) does not repeat them.
func JoinBase(base, path string) string {
	base = strings.TrimRight(base, "/")
	segs := strings.Split(strings.TrimPrefix(base, "/"), "/")
	for i := range segs {
		tail := "/" + strings.Join(segs[i:], "/")
		if tail != "/" && (path == tail || strings.HasPrefix(path, tail+"/") || strings.HasPrefix(path, tail+"?")) {
			return base + strings.TrimPrefix(path, tail)
		}
	}
	return base + path
}

// ShipmentQuery is the query of a shipment request: the public tracking
// API's parameters, with the route and without AIS positions.
func ShipmentQuery(number, shipmentType, sealine string) url.Values {
	q := url.Values{}
	q.Set("shipmentNumber", number)
	q.Set("shipmentType", shipmentType)
	if sealine != "" {
		q.Set("sealine", sealine)
	}
	q.Set("route", "true")
	q.Set("ais", "false")
	return q
}
