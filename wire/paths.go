package wire

import (
	"fmt"
	"net/url"
	"strings"
)

// Paths are the request path templates, relative to a product's base URL.
// Placeholders in braces are replaced by the escaped value. The defaults are
// service.md §4 and our decisions in spec/schedules.md; a provider with other
// paths is served by changing these, not the code.
type Paths struct {
	PortSchedule   string // {port}
	P2PSchedule    string // {pol}, {pod}
	VesselSchedule string // {imo}
	CurrentPeriod  string
	Periods        string
	Shipment       string
}

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

// Validate checks that every template starts with "/" and holds its
// placeholders.
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
	}
	return nil
}

// Base paths of the two products on a provider's host: every request path
// of a product starts with its base path (DESIGN.md "Service contract
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

// Path fills the template of endpoint e with vars (port, pol, pod, imo),
// each path-escaped, and returns the escaped path relative to the product's
// base path.
func (p Paths) Path(e Endpoint, vars map[string]string) string {
	path := p.Template(e)
	for k, v := range vars {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	return path
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
