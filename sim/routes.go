package sim

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/etalake/etalake/wire"
)

// route is a request understood: which product and endpoint, with its raw
// parameters (validated separately, after authentication).
type route struct {
	product  wire.Product
	endpoint wire.Endpoint
	segs     []string // path parameters as sent
	query    url.Values
	header   http.Header
	dcsa     bool   // the schedule product in the DCSA profile
	version  string // the DCSA version served (DCSAVersions)

	// filled by validate
	ports []string
	imo   int
	ref   wire.ShipmentRef
	p2p   P2PQuery
	cs    *csQuery
}

// apiFault is an error answer decided before any data is read.
type apiFault struct {
	status  int
	message string
	details []any
	// plain: a path no product serves, answered as a web server does
	// (text, not a product's error body): no product said "no data".
	plain bool
}

// noRoute is the answer to a path no product serves: the plain 404 of a
// web server (Go's http.NotFound), which a client must not take for a
// product's "no data".
func noRoute(hint string) *apiFault {
	return &apiFault{status: http.StatusNotFound, message: "404 page not found\n" + hint + "\n", plain: true}
}

type detail struct {
	Field string `json:"field"`
	Value string `json:"value"`
	Issue string `json:"issue"`
}

// parseRoute maps a method and path to a route; dcsaVersion, when set,
// is the DCSA version the schedule product speaks, under DCSAPrefix only.
func parseRoute(r *http.Request, dcsaVersion string) (*route, *apiFault) {
	dcsa := dcsaVersion != ""
	if r.Method != http.MethodGet {
		return nil, &apiFault{status: http.StatusMethodNotAllowed, message: "only GET is supported"}
	}
	path := r.URL.Path
	var p wire.Product
	switch {
	case dcsa && strings.HasPrefix(path, DCSAPrefix+"/"):
		return parseDCSARoute(r, dcsaVersion)
	case dcsa && strings.HasPrefix(path, SchedulePrefix+"/"):
		return nil, noRoute("this simulator serves the schedule product as DCSA Commercial Schedules under " + DCSAPrefix + " (--schedule-api " + ScheduleAPIDCSA + ")")
	case !dcsa && strings.HasPrefix(path, SchedulePrefix+"/"):
		p, path = wire.ProductSchedule, strings.TrimPrefix(path, SchedulePrefix)
	case strings.HasPrefix(path, TrackingPrefix+"/"):
		p, path = wire.ProductTracking, strings.TrimPrefix(path, TrackingPrefix)
	default:
		schedule := SchedulePrefix
		if dcsa {
			schedule = DCSAPrefix
		}
		return nil, noRoute("paths start with " + schedule + " or " + TrackingPrefix)
	}
	rt := &route{product: p, query: r.URL.Query()}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/consumption/current-period":
		rt.endpoint = wire.EndpointCurrentPeriod
	case path == "/consumption/periods":
		rt.endpoint = wire.EndpointPeriods
	case p == wire.ProductTracking && path == "/shipment":
		rt.endpoint = wire.EndpointShipment
	case p == wire.ProductSchedule && len(segs) == 3 && segs[0] == "schedule" && segs[1] == "vessel":
		rt.endpoint, rt.segs = wire.EndpointVesselSchedule, segs[2:]
	case p == wire.ProductSchedule && len(segs) == 3 && segs[0] == "schedule":
		rt.endpoint, rt.segs = wire.EndpointP2PSchedule, segs[1:]
	case p == wire.ProductSchedule && len(segs) == 2 && segs[0] == "schedule":
		rt.endpoint, rt.segs = wire.EndpointPortSchedule, segs[1:]
	default:
		return nil, noRoute("")
	}
	return rt, nil
}

// dcsaPaths are the endpoints of the schedule product in the DCSA profile,
// relative to DCSAPrefix.
var dcsaPaths = map[string]wire.Endpoint{
	"/v1/port-schedules":        wire.EndpointPortSchedule,
	"/v1/vessel-schedules":      wire.EndpointVesselSchedule,
	"/v1/point-to-point-routes": wire.EndpointP2PSchedule,
}

// parseDCSARoute maps a path under DCSAPrefix: the three schedule queries,
// and nothing else (no consumption endpoints in this profile).
func parseDCSARoute(r *http.Request, version string) (*route, *apiFault) {
	e, ok := dcsaPaths[strings.TrimPrefix(r.URL.Path, DCSAPrefix)]
	if !ok {
		return nil, noRoute("the schedule product: " + DCSAPrefix + "/v1/port-schedules, " + DCSAPrefix + "/v1/vessel-schedules or " + DCSAPrefix + "/v1/point-to-point-routes")
	}
	return &route{product: wire.ProductSchedule, endpoint: e, query: r.URL.Query(), header: r.Header, dcsa: true, version: version}, nil
}

func badRequest(field, value, issue string) *apiFault {
	return &apiFault{status: http.StatusBadRequest, message: "invalid " + field, details: []any{detail{field, value, issue}}}
}

// validate checks the parameters with the service's own rules
// (validate.go); a failure is a free 400.
func (rt *route) validate() *apiFault {
	if rt.dcsa {
		var bad *apiFault
		rt.cs, bad = parseCSQuery(rt.endpoint, rt.query, rt.header, rt.version)
		return bad
	}
	switch rt.endpoint {
	case wire.EndpointPortSchedule, wire.EndpointP2PSchedule:
		for _, s := range rt.segs {
			code, ok := portCode(s)
			if !ok {
				return badRequest("port_code", s, "must be exactly 5 alphanumeric characters")
			}
			rt.ports = append(rt.ports, code)
		}
		if rt.endpoint == wire.EndpointP2PSchedule {
			return rt.validateP2P()
		}
	case wire.EndpointVesselSchedule:
		n, ok := imoNumber(rt.segs[0])
		if !ok {
			return badRequest("imo", rt.segs[0], "must be a 7-digit IMO number with a valid check digit")
		}
		rt.imo = n
	case wire.EndpointShipment:
		ref, bad := shipmentQuery(rt.query)
		if bad != nil {
			return bad
		}
		rt.ref = ref
	}
	return nil
}

func (rt *route) validateP2P() *apiFault {
	rt.p2p.MaxTranshipment = -1
	for _, name := range []string{"departureStartDate", "departureEndDate"} {
		v := rt.query.Get(name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return badRequest(name, v, "must be a date YYYY-MM-DD")
		}
		if name == "departureStartDate" {
			rt.p2p.DepartureStart = t
		} else {
			rt.p2p.DepartureEnd = t.Add(24*time.Hour - time.Second)
		}
	}
	if v := rt.query.Get("maxTranshipment"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 3 {
			return badRequest("maxTranshipment", v, "must be an integer from 0 to 3")
		}
		rt.p2p.MaxTranshipment = n
	}
	return nil
}

// answer reads the world for a data endpoint.
func (rt *route) answer(w *World, at time.Time) (any, error) {
	switch rt.endpoint {
	case wire.EndpointPortSchedule:
		return w.PortSchedule(rt.ports[0], at)
	case wire.EndpointP2PSchedule:
		return w.PointToPoint(rt.ports[0], rt.ports[1], rt.p2p, at)
	case wire.EndpointVesselSchedule:
		return w.VesselSchedule(rt.imo, at)
	default:
		return w.Shipment(rt.ref, at)
	}
}
