package transform

import (
	"strings"

	"github.com/etalake/etalake/wire"
)

// addShipment derives a tracking response: shipments, eta_observations,
// containers, container_events, event_observations and the dimensions.
// The fast path decodes the common body; anything else goes through
// wire.DecodeShipment, which decodes element by element: each element it
// leaves out is dead-lettered alone under its path, and the rest loads.
func (b *Batch) addShipment(a *add) {
	var s *wire.Shipment
	ok := false
	if !b.noFast {
		s, ok = b.fast.decode(a.r.Body)
		a.owned = ok
	}
	if !ok {
		var err error
		if s, err = wire.DecodeShipment(a.r.Body); err != nil {
			b.deadLetter(a, "", err.Error())
			return
		}
	}
	b.deriveShipment(a, s)
}

// shipmentID is the shipment's number and type: from the request's (a
// path and query) shipmentNumber and shipmentType (CT when not sent), else from the
// metadata (CT when empty); ok is false when neither names a number. The
// number, type and sealine (a SCAC) are as the warehouse keeps them
// (codes.go): EMCU-8593893 is EMCU8593893, maeu is MAEU.
func shipmentID(request string, md *wire.ShipmentMetadata) (number, typ, sealine string, ok bool) {
	q := query(request)
	if md != nil {
		sealine = upperCode(deref(md.Sealine))
	}
	if sealine == "" {
		sealine = upperCode(q.Get("sealine"))
	}
	if number = strings.TrimSpace(q.Get("shipmentNumber")); number != "" {
		typ = q.Get("shipmentType")
	} else if md != nil && strings.TrimSpace(md.ShipmentNumber) != "" {
		number, typ = md.ShipmentNumber, md.ShipmentType
	} else {
		return "", "", "", false
	}
	if typ = upperCode(typ); typ == "" {
		typ = "CT"
	}
	return shipmentNumber(number, typ), typ, sealine, true
}

// deriveShipment buffers the rows of a decoded tracking response.
func (b *Batch) deriveShipment(a *add, s *wire.Shipment) {
	number, typ, sealine, ok := shipmentID(a.r.Request, s.Metadata)
	if !ok {
		b.deadLetter(a, "", "shipment without a number: neither the request's shipmentNumber nor metadata.shipmentNumber is set")
		return
	}
	for _, e := range s.Bad {
		b.deadLetter(a, e.Path, e.Err.Error())
	}
	str := b.keep(a)
	ship := shipmentKey{b.strs.of(number), b.strs.of(typ)}
	row := shipmentRow{
		seen:       seenAt(a.obs, a.r.ID),
		number:     ship.number,
		typ:        ship.typ,
		sealine:    b.strs.of(sealine),
		containers: int32(min(len(s.Containers), 1<<31-1)),
	}
	if md := s.Metadata; md != nil {
		row.sealineName = str.of(deref(md.SealineName))
		row.shippingStatus = str.of(deref(md.ShippingStatus))
		row.updatedAt = timeOf(md.UpdatedAt)
		row.updatedAtZone = b.strs.of(md.UpdatedAtZone)
	}
	if rt := s.Route; rt != nil {
		row.prepol = b.routePoint(a, ship, "PREPOL", rt.Prepol)
		row.pol = b.routePoint(a, ship, "POL", rt.Pol)
		if rt.Pod != nil {
			row.pod = b.routePoint(a, ship, "POD", &rt.Pod.RoutePoint)
			row.podPredictive = timeOf(rt.Pod.PredictiveETA)
			if row.podPredictive.ok {
				b.eta(a, ship, "POD", "PREDICTIVE", row.pod.locode, row.podPredictive.us, false, rt.Pod.PredictiveETAZone)
			}
		}
		row.postpod = b.routePoint(a, ship, "POSTPOD", rt.Postpod)
	}
	put(a, b.shipments, ship, row)

	b.occ.reset()
	for i := range s.Containers {
		c := &s.Containers[i]
		number := containerNumber(c.Number)
		if number == "" {
			b.deadLetter(a, indexed("containers", c.Index), "container without a number")
			continue
		}
		cr := containerRow{
			seen:      seenAt(a.obs, a.r.ID),
			number:    ship.number,
			container: str.code(c.Number, number),
			typ:       ship.typ,
			isoCode:   str.of(c.ISOCode),
			status:    str.of(c.Status),
		}
		put(a, b.containers, containerKey{cr.number, cr.container}, cr)
		b.addEvents(a, ship, cr.container, c.Index, c.Events)
	}
}

// routePoint returns a route member's columns and buffers its CARRIER ETA
// observation when it has a date.
func (b *Batch) routePoint(a *add, ship shipmentKey, target string, p *wire.RoutePoint) routePoint {
	if p == nil {
		return routePoint{}
	}
	rp := routePoint{locode: b.location(a, p.Location), date: timeOf(p.Date), actual: boolOf(p.Actual)}
	if rp.date.ok {
		b.eta(a, ship, target, "CARRIER", rp.locode, rp.date.us, rp.actual.v, p.DateZone)
	}
	return rp
}

// eta buffers an eta_observations row; zone is the zone its date was read
// in, "" when it carried its offset.
func (b *Batch) eta(a *add, ship shipmentKey, target, source, locode string, eta int64, actual bool, zone string) {
	row := etaRow{
		observed: observed{rid: a.r.ID},
		number:   ship.number,
		typ:      ship.typ,
		target:   target,
		source:   source,
		obs:      a.obs,
		locode:   locode,
		eta:      eta,
		actual:   actual,
		zone:     b.strs.of(zone),
	}
	put(a, b.etas, etaKey{ship.number, ship.typ, target, source, a.obs}, row)
}
