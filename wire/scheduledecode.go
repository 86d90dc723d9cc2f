package wire

import (
	"encoding/json"
	"strconv"
	"time"
)

// scheduleDecoding is the state of one schedule answer's decoding, of
// either profile: the elements left out, the places named (for the zones
// of naive date-times) and the naive date-times, read once every place is
// known (resolve).
type scheduleDecoding struct {
	bad   []ItemError
	zones placeZones
	naive naiveDates
}

// leftOut records an element left out: err happened at path inside it.
func (d *scheduleDecoding) leftOut(path, what string, err error) {
	d.bad = append(d.bad, leftOut(path, what, err))
}

// place notes a place of the answer: its zone is that of any place with
// the same UN/LOCODE that names none.
func (d *scheduleDecoding) place(l *Location) {
	if l == nil {
		return
	}
	if d.zones == nil {
		d.zones = placeZones{}
	}
	d.zones.note(l)
}

// resolve reads the naive date-times, each in the zone of its port: the
// place's own timezone, else that of another place of the answer with the
// same UN/LOCODE, else the zone of the UN/LOCODE's country when it has
// one (countryZone: DCSA's locations name no zone), else UTC.
func (d *scheduleDecoding) resolve() {
	d.naive.resolve(func(l *Location) string {
		if tz := d.zones.of(l); tz != "" {
			return tz
		}
		return countryZone(l.Locode)
	})
}

// timestampJSON is a Timestamp as the decoders read it.
type timestampJSON struct {
	EventTypeCode       string          `json:"eventTypeCode"`
	EventClassifierCode string          `json:"eventClassifierCode"`
	EventDateTime       json.RawMessage `json:"eventDateTime"`
}

// timestamps decodes the timestamps member at path of a call at place
// (the call being what), each timestamp on its own.
func (d *scheduleDecoding) timestamps(raw json.RawMessage, path string, place *Location, what string) []Timestamp {
	if isAbsent(raw) {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		d.leftOut(path, "every timestamp of the "+what, err)
		return nil
	}
	// Never grown past its capacity: a naive date's setter keeps a pointer
	// to its timestamp.
	out := make([]Timestamp, 0, len(list))
	for j, el := range list {
		at := path + "[" + strconv.Itoa(j) + "]"
		var v timestampJSON
		if err := json.Unmarshal(el, &v); err != nil {
			d.leftOut(at, "the timestamp", err)
			continue
		}
		out = append(out, Timestamp{EventTypeCode: v.EventTypeCode, EventClassifierCode: v.EventClassifierCode, Index: j})
		ts := &out[len(out)-1]
		if err := d.naive.read(v.EventDateTime, place, func(t time.Time, zone string) { ts.EventDateTime, ts.EventDateTimeZone = t, zone }); err != nil {
			out = out[:len(out)-1]
			d.leftOut(at+".eventDateTime", "the timestamp", err)
		}
	}
	return out
}

// The service profile's elements (spec/schedules.md), as the decoders read
// them: places, terminals and vessels as DecodeShipment reads them
// (locationJSON, facilityJSON, vesselJSON: IMO numbers as strings too),
// the lists inside decoded one element at a time.

type portVesselScheduleJSON struct {
	CarrierCode               string          `json:"carrierCode"`
	CarrierServiceCode        *string         `json:"carrierServiceCode"`
	CarrierServiceName        *string         `json:"carrierServiceName"`
	Vessel                    *vesselJSON     `json:"vessel"`
	CarrierImportVoyageNumber *string         `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber *string         `json:"carrierExportVoyageNumber"`
	Facility                  *facilityJSON   `json:"facility"`
	Timestamps                json.RawMessage `json:"timestamps"`
}

// portVesselSchedule decodes vesselSchedules[i] of a port schedule, at
// path, calling at port; ok is false when it is left out.
func (d *scheduleDecoding) portVesselSchedule(raw json.RawMessage, path string, port *Location) (PortVesselSchedule, bool) {
	var v portVesselScheduleJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.leftOut(path, "the vessel schedule", err)
		return PortVesselSchedule{}, false
	}
	return PortVesselSchedule{
		CarrierCode:               v.CarrierCode,
		CarrierServiceCode:        v.CarrierServiceCode,
		CarrierServiceName:        v.CarrierServiceName,
		Vessel:                    v.Vessel.vessel(),
		CarrierImportVoyageNumber: v.CarrierImportVoyageNumber,
		CarrierExportVoyageNumber: v.CarrierExportVoyageNumber,
		Facility:                  v.Facility.facility(),
		Timestamps:                d.timestamps(v.Timestamps, path+".timestamps", port, "vessel schedule"),
		Source:                    path,
	}, true
}

type p2pRouteJSON struct {
	CarrierCode string          `json:"carrierCode"`
	TransitTime idNumber        `json:"transitTime"`
	Legs        json.RawMessage `json:"legs"`
}

type legJSON struct {
	SequenceNumber      idNumber        `json:"sequenceNumber"`
	Vessel              *vesselJSON     `json:"vessel"`
	CarrierCode         *string         `json:"carrierCode"`
	CarrierServiceCode  *string         `json:"carrierServiceCode"`
	CarrierVoyageNumber *string         `json:"carrierVoyageNumber"`
	ArrivalVoyageNumber *string         `json:"arrivalVoyageNumber"`
	Departure           json.RawMessage `json:"departure"`
	Arrival             json.RawMessage `json:"arrival"`
}

type legCallJSON struct {
	Location            *locationJSON   `json:"location"`
	Facility            *facilityJSON   `json:"facility"`
	DateTime            json.RawMessage `json:"dateTime"`
	EventClassifierCode string          `json:"eventClassifierCode"`
}

// route decodes routes[i] at path, each leg on its own; ok is false when
// it is left out.
func (d *scheduleDecoding) route(raw json.RawMessage, path string) (P2PRoute, bool) {
	var v p2pRouteJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.leftOut(path, "the route", err)
		return P2PRoute{}, false
	}
	r := P2PRoute{CarrierCode: v.CarrierCode, TransitTime: v.TransitTime.n, Source: path}
	if isAbsent(v.Legs) {
		return r, true
	}
	var legs []json.RawMessage
	if err := json.Unmarshal(v.Legs, &legs); err != nil {
		d.leftOut(path+".legs", "every leg of the route", err)
		return r, true
	}
	r.Legs = make([]Leg, 0, len(legs))
	for k, el := range legs {
		at := indexPath(path, "legs", k)
		var l legJSON
		if err := json.Unmarshal(el, &l); err != nil {
			d.leftOut(at, "the leg", err)
			continue
		}
		leg := Leg{Vessel: l.Vessel.vessel(), CarrierCode: l.CarrierCode, CarrierServiceCode: l.CarrierServiceCode,
			CarrierVoyageNumber: l.CarrierVoyageNumber, ArrivalVoyageNumber: l.ArrivalVoyageNumber, Source: at}
		if l.SequenceNumber.n != nil {
			leg.SequenceNumber = *l.SequenceNumber.n
		}
		leg.Departure, leg.DepartureLeftOut = d.legCall(l.Departure, at, "departure")
		leg.Arrival, leg.ArrivalLeftOut = d.legCall(l.Arrival, at, "arrival")
		r.Legs = append(r.Legs, leg)
	}
	return r, true
}

// legCall decodes the end (departure, arrival) of the leg at path: nil
// when there is none, or when it is left out (leftOut).
func (d *scheduleDecoding) legCall(raw json.RawMessage, path, end string) (lc *LegCall, left bool) {
	if isAbsent(raw) {
		return nil, false
	}
	at := path + "." + end
	var v legCallJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.leftOut(at, "the "+end, err)
		return nil, true
	}
	lc = &LegCall{Location: v.Location.location(), Facility: v.Facility.facility(), EventClassifierCode: v.EventClassifierCode}
	d.place(lc.Location)
	if err := d.naive.read(v.DateTime, lc.Location, func(t time.Time, zone string) { lc.DateTime, lc.DateTimeZone = t, zone }); err != nil {
		d.leftOut(at+".dateTime", "the "+end, err)
		return nil, true
	}
	return lc, false
}

type transportCallJSON struct {
	SequenceNumber            idNumber        `json:"sequenceNumber"`
	Location                  *locationJSON   `json:"location"`
	Facility                  *facilityJSON   `json:"facility"`
	CarrierImportVoyageNumber *string         `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber *string         `json:"carrierExportVoyageNumber"`
	Timestamps                json.RawMessage `json:"timestamps"`
}

// transportCall decodes transportCalls[i] at path; ok is false when it is
// left out.
func (d *scheduleDecoding) transportCall(raw json.RawMessage, path string) (TransportCall, bool) {
	var v transportCallJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.leftOut(path, "the transport call", err)
		return TransportCall{}, false
	}
	tc := TransportCall{Location: v.Location.location(), Facility: v.Facility.facility(),
		CarrierImportVoyageNumber: v.CarrierImportVoyageNumber, CarrierExportVoyageNumber: v.CarrierExportVoyageNumber, Source: path}
	if v.SequenceNumber.n != nil {
		tc.SequenceNumber = *v.SequenceNumber.n
	}
	d.place(tc.Location)
	tc.Timestamps = d.timestamps(v.Timestamps, path+".timestamps", tc.Location, "transport call")
	return tc, true
}
