package transform

import (
	"fmt"
	"strconv"

	"github.com/etalake/etalake/wire"
)

// The query column of port_calls.
const (
	queryPort   = "PORT"
	queryP2P    = "P2P"
	queryVessel = "VESSEL"
)

// addSchedule derives one of the three schedule responses into port_calls
// and the dimensions.
func (b *Batch) addSchedule(a *add) {
	var err error
	switch a.r.Endpoint {
	case wire.EndpointPortSchedule:
		var s *wire.PortSchedule
		if s, err = wire.DecodePortSchedule(a.r.Body); err == nil {
			b.derivePortSchedule(a, s)
		}
	case wire.EndpointP2PSchedule:
		var s *wire.PointToPoint
		if s, err = wire.DecodePointToPoint(a.r.Body); err == nil {
			b.derivePointToPoint(a, s)
		}
	case wire.EndpointVesselSchedule:
		var s *wire.VesselSchedule
		if s, err = wire.DecodeVesselSchedule(a.r.Body); err == nil {
			b.deriveVesselSchedule(a, s)
		}
	}
	if err != nil {
		b.deadLetter(a, "", err.Error())
	}
}

// call is what a schedule says about one call of a vessel at a port,
// before its timestamps.
type call struct {
	query, port                            string
	imo                                    int64
	carrier, serviceCode, serviceName      string
	vesselName, importVoyage, exportVoyage string
	facility                               string
}

// timestamp buffers the port_calls row of timestamps[j] of a call
// recorded at record, or a dead letter when the timestamp does not fit.
func (b *Batch) timestamp(a *add, c *call, record string, j int, ts *wire.Timestamp) {
	var voyage, problem string
	switch {
	case ts.EventTypeCode != "ARRI" && ts.EventTypeCode != "DEPA":
		problem = fmt.Sprintf("timestamp with eventTypeCode %q: want ARRI or DEPA", ts.EventTypeCode)
	case ts.EventClassifierCode == "":
		problem = "timestamp without eventClassifierCode"
	case ts.EventDateTime.IsZero():
		problem = "timestamp without eventDateTime"
	case ts.EventTypeCode == "ARRI":
		voyage = c.importVoyage
	default:
		voyage = c.exportVoyage
	}
	if problem != "" {
		b.deadLetter(a, indexed(record+".timestamps", j), problem)
		return
	}
	b.portCall(a, c, ts.EventTypeCode, ts.EventClassifierCode, voyage, ts.EventDateTime.UnixMicro())
}

// portCall buffers one port_calls row.
func (b *Batch) portCall(a *add, c *call, typ, cls, voyage string, at int64) {
	s := b.keep(a)
	row := portCallRow{
		observed: observed{rid: a.r.ResponseID},
		portCallKey: portCallKey{
			query:  c.query,
			port:   c.port,
			imo:    c.imo,
			voyage: voyage,
			typ:    s.of(typ),
			cls:    s.of(cls),
			obs:    a.obs,
		},
		carrier:      c.carrier,
		serviceCode:  c.serviceCode,
		serviceName:  c.serviceName,
		vesselName:   c.vesselName,
		importVoyage: c.importVoyage,
		exportVoyage: c.exportVoyage,
		facility:     c.facility,
		at:           at,
	}
	put(a, b.portCalls, row.portCallKey, row)
}

// derivePortSchedule: one row per vesselSchedules[i].timestamps[j] at the
// body's port (else the port of the request path).
func (b *Batch) derivePortSchedule(a *add, ps *wire.PortSchedule) {
	port := ""
	if ps.Location != nil {
		port = ps.Location.Locode
	}
	if port == "" {
		port = a.r.pathVars()["port"]
	}
	if port == "" {
		b.deadLetter(a, "", "port schedule without location.locode, and the request path names no port")
		return
	}
	s := b.keep(a)
	port = s.of(port)
	b.location(a, ps.Location)
	for i := range ps.VesselSchedules {
		vs := &ps.VesselSchedules[i]
		record := indexed("vesselSchedules", i)
		if vesselIMO(vs.Vessel) == 0 {
			b.deadLetter(a, record, "vessel schedule without a positive vessel.imo")
			continue
		}
		c := call{
			query:        queryPort,
			port:         port,
			imo:          b.vessel(a, vs.Vessel),
			carrier:      s.of(vs.CarrierCode),
			serviceCode:  s.of(deref(vs.CarrierServiceCode)),
			serviceName:  s.of(deref(vs.CarrierServiceName)),
			vesselName:   s.of(vs.Vessel.Name),
			importVoyage: s.of(deref(vs.CarrierImportVoyageNumber)),
			exportVoyage: s.of(deref(vs.CarrierExportVoyageNumber)),
			facility:     b.facility(a, vs.Facility),
		}
		for j := range vs.Timestamps {
			b.timestamp(a, &c, record, j, &vs.Timestamps[j])
		}
	}
}

// derivePointToPoint: a DEPA row at each leg's departure and an ARRI row at
// its arrival, the leg's voyage being both import and export voyage. The
// same leg offered in two routes is one row.
func (b *Batch) derivePointToPoint(a *add, p *wire.PointToPoint) {
	b.location(a, p.PlaceOfReceipt)
	b.location(a, p.PlaceOfDelivery)
	s := b.keep(a)
	for i := range p.Routes {
		rt := &p.Routes[i]
		for k := range rt.Legs {
			leg := &rt.Legs[k]
			record := indexed(indexed("routes", i)+".legs", k)
			if vesselIMO(leg.Vessel) == 0 {
				b.deadLetter(a, record, "leg without a positive vessel.imo")
				continue
			}
			voyage := s.of(deref(leg.CarrierVoyageNumber))
			c := call{
				query:        queryP2P,
				imo:          b.vessel(a, leg.Vessel),
				carrier:      s.of(rt.CarrierCode),
				serviceCode:  s.of(deref(leg.CarrierServiceCode)),
				vesselName:   s.of(leg.Vessel.Name),
				importVoyage: voyage,
				exportVoyage: voyage,
			}
			b.legCall(a, c, record, "departure", "DEPA", leg.Departure)
			b.legCall(a, c, record, "arrival", "ARRI", leg.Arrival)
		}
	}
}

// legCall buffers the row of one end of a leg (record is the leg's).
func (b *Batch) legCall(a *add, c call, record, end, typ string, lc *wire.LegCall) {
	problem := ""
	switch {
	case lc == nil:
		problem = "leg without " + end
	case lc.Location == nil || lc.Location.Locode == "":
		problem = end + " without location.locode"
	case lc.EventClassifierCode == "":
		problem = end + " without eventClassifierCode"
	case lc.DateTime.IsZero():
		problem = end + " without dateTime"
	}
	if problem != "" {
		b.deadLetter(a, record+"."+end, problem)
		return
	}
	c.port = b.location(a, lc.Location)
	c.facility = b.facility(a, lc.Facility)
	b.portCall(a, &c, typ, lc.EventClassifierCode, c.exportVoyage, lc.DateTime.UnixMicro())
}

// deriveVesselSchedule: one row per transportCalls[i].timestamps[j] of the
// body's vessel (else the vessel of the request path).
func (b *Batch) deriveVesselSchedule(a *add, vs *wire.VesselSchedule) {
	imo := vesselIMO(vs.Vessel)
	if imo == 0 {
		if n, err := strconv.ParseInt(a.r.pathVars()["imo"], 10, 64); err == nil && n > 0 {
			imo = n
		}
	}
	if imo == 0 {
		b.deadLetter(a, "", "vessel schedule without a positive vessel.imo, and the request path names no vessel")
		return
	}
	s := b.keep(a)
	b.vessel(a, vs.Vessel)
	base := call{
		query:       queryVessel,
		imo:         imo,
		carrier:     s.of(vs.CarrierCode),
		serviceCode: s.of(deref(vs.CarrierServiceCode)),
		vesselName:  s.of(vesselName(vs.Vessel)),
	}
	for i := range vs.TransportCalls {
		tc := &vs.TransportCalls[i]
		record := indexed("transportCalls", i)
		if tc.Location == nil || tc.Location.Locode == "" {
			b.deadLetter(a, record, "transport call without location.locode")
			continue
		}
		c := base
		c.port = b.location(a, tc.Location)
		c.facility = b.facility(a, tc.Facility)
		c.importVoyage = s.of(deref(tc.CarrierImportVoyageNumber))
		c.exportVoyage = s.of(deref(tc.CarrierExportVoyageNumber))
		for j := range tc.Timestamps {
			b.timestamp(a, &c, record, j, &tc.Timestamps[j])
		}
	}
}
