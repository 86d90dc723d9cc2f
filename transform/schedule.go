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

// addSchedule derives one of the three schedule responses, of either
// profile, into port_calls and the dimensions. Each element that does not
// decode (an item, a vessel schedule, a leg or one of its ends, a
// transport call, a timestamp) or does not fit is dead-lettered alone,
// under its path; its siblings load.
func (b *Batch) addSchedule(a *add) {
	var (
		err error
		bad []wire.ItemError
	)
	switch a.r.Endpoint {
	case wire.EndpointPortSchedule:
		var s wire.Schedules[wire.PortSchedule]
		if s, err = wire.DecodePortSchedules(a.r.Body); err == nil {
			for i := range s.Items {
				b.derivePortSchedule(a, &s.Items[i])
			}
			bad = s.Bad
		}
	case wire.EndpointP2PSchedule:
		var s wire.Schedules[wire.PointToPoint]
		if s, err = wire.DecodePointToPoints(a.r.Body); err == nil {
			for i := range s.Items {
				b.derivePointToPoint(a, &s.Items[i])
			}
			bad = s.Bad
		}
	case wire.EndpointVesselSchedule:
		var s wire.Schedules[wire.VesselSchedule]
		if s, err = wire.DecodeVesselSchedules(a.r.Body); err == nil {
			for i := range s.Items {
				b.deriveVesselSchedule(a, &s.Items[i], !s.DCSA)
			}
			bad = s.Bad
		}
	}
	if err != nil {
		b.deadLetter(a, "", err.Error())
	}
	for _, e := range bad {
		b.deadLetter(a, e.Path, e.Err.Error())
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

// timestamp buffers the port_calls row of timestamps[ts.Index] of a call
// recorded at record, or a dead letter when the timestamp does not fit.
// Its codes are kept upper case.
func (b *Batch) timestamp(a *add, c *call, record string, ts *wire.Timestamp) {
	var voyage, problem string
	typ, cls := upperCode(ts.EventTypeCode), upperCode(ts.EventClassifierCode)
	switch {
	case typ != "ARRI" && typ != "DEPA":
		problem = fmt.Sprintf("timestamp with eventTypeCode %q: want ARRI or DEPA", ts.EventTypeCode)
	case cls == "":
		problem = "timestamp without eventClassifierCode"
	case !isClassifier(cls):
		problem = fmt.Sprintf("timestamp with eventClassifierCode %q: want PLN, EST or ACT", ts.EventClassifierCode)
	case ts.EventDateTime.IsZero():
		problem = "timestamp without eventDateTime"
	case typ == "ARRI":
		voyage = c.importVoyage
	default:
		voyage = c.exportVoyage
	}
	if problem != "" {
		b.deadLetter(a, indexed(record+".timestamps", ts.Index), problem)
		return
	}
	b.portCall(a, c, typ, cls, voyage, ts.EventDateTime.UnixMicro(), ts.EventDateTimeZone)
}

// isClassifier reports whether an (upper-case) eventClassifierCode is one
// of the standard's: planned, estimated, actual.
func isClassifier(cls string) bool { return cls == "PLN" || cls == "EST" || cls == "ACT" }

// portCall buffers one port_calls row; zone is the zone its date was read
// in, "" when it carried its offset.
func (b *Batch) portCall(a *add, c *call, typ, cls, voyage string, at int64, zone string) {
	s := b.keep(a)
	row := portCallRow{
		observed: observed{rid: a.r.ID},
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
		zone:         s.of(zone),
	}
	put(a, b.portCalls, row.portCallKey, row)
}

// derivePortSchedule: one row per vesselSchedules[i].timestamps[j] at the
// item's port (else the port of the request).
func (b *Batch) derivePortSchedule(a *add, ps *wire.PortSchedule) {
	port := ""
	if ps.Location != nil {
		port = upperCode(ps.Location.Locode)
	}
	if port == "" {
		port = requestVar(a.r, "port")
	}
	if port == "" {
		b.deadLetter(a, ps.Source, "port schedule without a location's UN/LOCODE, and the request names no port")
		return
	}
	s := b.keep(a)
	port = s.of(port)
	b.location(a, ps.Location)
	for i := range ps.VesselSchedules {
		vs := &ps.VesselSchedules[i]
		record := vs.Source
		if vesselIMO(vs.Vessel) == 0 {
			b.deadLetter(a, record, "vessel schedule without a positive vessel.imo")
			continue
		}
		c := call{
			query:        queryPort,
			port:         port,
			imo:          b.vessel(a, vs.Vessel),
			carrier:      s.of(upperCode(vs.CarrierCode)),
			serviceCode:  s.of(deref(vs.CarrierServiceCode)),
			serviceName:  s.of(deref(vs.CarrierServiceName)),
			vesselName:   s.of(vs.Vessel.Name),
			importVoyage: s.of(deref(vs.CarrierImportVoyageNumber)),
			exportVoyage: s.of(deref(vs.CarrierExportVoyageNumber)),
			facility:     b.facility(a, vs.Facility),
		}
		for j := range vs.Timestamps {
			b.timestamp(a, &c, record, &vs.Timestamps[j])
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
			record := leg.Source
			if vesselIMO(leg.Vessel) == 0 {
				b.deadLetter(a, record, "leg without a positive vessel.imo")
				continue
			}
			carrier := rt.CarrierCode
			if leg.CarrierCode != nil {
				carrier = *leg.CarrierCode
			}
			voyage := s.of(deref(leg.CarrierVoyageNumber))
			arrival := voyage
			if leg.ArrivalVoyageNumber != nil {
				arrival = s.of(*leg.ArrivalVoyageNumber)
			}
			c := call{
				query:        queryP2P,
				imo:          b.vessel(a, leg.Vessel),
				carrier:      s.of(upperCode(carrier)),
				serviceCode:  s.of(deref(leg.CarrierServiceCode)),
				vesselName:   s.of(leg.Vessel.Name),
				importVoyage: arrival,
				exportVoyage: voyage,
			}
			if !leg.DepartureLeftOut {
				b.legCall(a, c, record, "departure", "DEPA", leg.Departure)
			}
			if !leg.ArrivalLeftOut {
				b.legCall(a, c, record, "arrival", "ARRI", leg.Arrival)
			}
		}
	}
}

// legCall buffers the row of one end of a leg (record is the leg's), its
// classifier kept upper case.
func (b *Batch) legCall(a *add, c call, record, end, typ string, lc *wire.LegCall) {
	problem, cls := "", ""
	switch {
	case lc == nil:
		problem = "leg without " + end
	case lc.Location == nil || upperCode(lc.Location.Locode) == "":
		problem = end + " without location.locode"
	case upperCode(lc.EventClassifierCode) == "":
		problem = end + " without eventClassifierCode"
	case !isClassifier(upperCode(lc.EventClassifierCode)):
		problem = fmt.Sprintf("%s with eventClassifierCode %q: want PLN, EST or ACT", end, lc.EventClassifierCode)
	case lc.DateTime.IsZero():
		problem = end + " without dateTime"
	default:
		cls = upperCode(lc.EventClassifierCode)
	}
	if problem != "" {
		b.deadLetter(a, record+"."+end, problem)
		return
	}
	c.port = b.location(a, lc.Location)
	c.facility = b.facility(a, lc.Facility)
	voyage := c.exportVoyage
	if typ == "ARRI" {
		voyage = c.importVoyage
	}
	b.portCall(a, &c, typ, cls, voyage, lc.DateTime.UnixMicro(), lc.DateTimeZone)
}

// deriveVesselSchedule: one row per transportCalls[i].timestamps[j] of the
// item's vessel, else, when askedVessel (the service profile's answer is
// about the vessel asked for), of the vessel of the request.
func (b *Batch) deriveVesselSchedule(a *add, vs *wire.VesselSchedule, askedVessel bool) {
	imo := vesselIMO(vs.Vessel)
	if imo == 0 && askedVessel {
		if n, err := strconv.ParseInt(requestVar(a.r, "imo"), 10, 64); err == nil && n > 0 {
			imo = n
		}
	}
	if imo == 0 {
		b.deadLetter(a, vs.Source, "vessel schedule without a positive vessel IMO number, and the request names no vessel")
		return
	}
	s := b.keep(a)
	b.vessel(a, vs.Vessel)
	base := call{
		query:       queryVessel,
		imo:         imo,
		carrier:     s.of(upperCode(vs.CarrierCode)),
		serviceCode: s.of(deref(vs.CarrierServiceCode)),
		serviceName: s.of(deref(vs.CarrierServiceName)),
		vesselName:  s.of(vesselName(vs.Vessel)),
	}
	for i := range vs.TransportCalls {
		tc := &vs.TransportCalls[i]
		record := tc.Source
		if tc.Location == nil || upperCode(tc.Location.Locode) == "" {
			b.deadLetter(a, record, "transport call without location.locode")
			continue
		}
		c := base
		c.port = b.location(a, tc.Location)
		c.facility = b.facility(a, tc.Facility)
		c.importVoyage = s.of(deref(tc.CarrierImportVoyageNumber))
		c.exportVoyage = s.of(deref(tc.CarrierExportVoyageNumber))
		for j := range tc.Timestamps {
			b.timestamp(a, &c, record, &tc.Timestamps[j])
		}
	}
}
