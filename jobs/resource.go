package jobs

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// Kind is what sort of thing a resource is.
type Kind string

// Kinds of resource, as the first part of a Resource's name.
const (
	KindPort        Kind = "port"        // a port's schedule
	KindLane        Kind = "p2p"         // a port pair's schedule
	KindVessel      Kind = "vessel"      // a vessel's schedule
	KindShipment    Kind = "shipment"    // a shipment's tracking
	KindConsumption Kind = "consumption" // a product's credit periods
)

// Resource names what a landed response is about, whatever the paths the
// request took: port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483,
// shipment:CT:MSCU1234566, consumption:schedule:current-period. A run asks
// for each resource at most once per logical date.
type Resource struct {
	Kind Kind
	ID   string // the rest of the name, after the kind
}

// String is the resource's name as raw_responses.resource stores it.
func (r Resource) String() string { return string(r.Kind) + ":" + r.ID }

func portResource(port string) Resource { return Resource{KindPort, port} }
func laneResource(l Lane) Resource      { return Resource{KindLane, l.String()} }
func vesselResource(imo int) Resource   { return Resource{KindVessel, strconv.Itoa(imo)} }
func periodResource(p wire.Product) Resource {
	return Resource{KindConsumption, string(p) + ":current-period"}
}
func periodsResource(p wire.Product) Resource {
	return Resource{KindConsumption, string(p) + ":periods"}
}
func shipmentResource(r wire.ShipmentRef) Resource {
	return Resource{KindShipment, string(r.Type) + ":" + r.Number}
}

// resourceOfRequest names the resource of a request made with the default
// paths (what Identify produces for imported bodies).
func resourceOfRequest(e wire.Endpoint, request string) (Resource, error) {
	u, err := url.Parse(request)
	if err != nil {
		return Resource{}, fmt.Errorf("request %q: %w", request, err)
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	last := func(n int) []string {
		if len(segs) < n {
			return nil
		}
		return segs[len(segs)-n:]
	}
	q := u.Query()
	switch e {
	case wire.EndpointPortSchedule:
		if s := last(1); s != nil {
			if code, err := extract.ParsePortCode(s[0]); err == nil {
				return portResource(code), nil
			}
		}
	case wire.EndpointP2PSchedule:
		if s := last(2); s != nil {
			pol, err1 := extract.ParsePortCode(s[0])
			pod, err2 := extract.ParsePortCode(s[1])
			if err1 == nil && err2 == nil {
				return laneResource(Lane{pol, pod}), nil
			}
		}
	case wire.EndpointVesselSchedule:
		if s := last(1); s != nil {
			if imo, err := extract.ParseIMO(s[0]); err == nil {
				return vesselResource(imo), nil
			}
		}
	case wire.EndpointShipment:
		if ref, err := extract.ParseShipmentRef(q.Get("shipmentNumber"), q.Get("shipmentType"), q.Get("sealine")); err == nil {
			return shipmentResource(ref), nil
		}
	case wire.EndpointCurrentPeriod, wire.EndpointPeriods:
		p := wire.ProductSchedule
		if strings.HasPrefix(u.Path, wire.TrackingBasePath) {
			p = wire.ProductTracking
		}
		if e == wire.EndpointPeriods {
			return periodsResource(p), nil
		}
		return periodResource(p), nil
	}
	return Resource{}, fmt.Errorf("request %q does not name a %s resource", request, e)
}
