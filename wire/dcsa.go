package wire

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// The dcsa-cs-1.0 profile's payloads: DCSA Commercial Schedules 1.0 as
// published (dcsaorg/DCSA-OpenAPI, cs/v1, 1.0.0 to 1.0.3). Every answer is
// a JSON array (one item sent bare is read as an array of one); its items
// are decoded one by one, each element inside on its own, and converted
// into the service profile's types, so that both profiles load the same
// columns. Members we do not use (cutOffTimes, footprints, universal
// references, addresses beyond country and state) stay in the raw
// landing.

// dcsaPortSchedule is an item of GET /v1/port-schedules.
type dcsaPortSchedule struct {
	Location        *dcsaLocation   `json:"location"`
	VesselSchedules json.RawMessage `json:"vesselSchedules"`
}

// dcsaSchedule is one vessel's call in a port schedule.
type dcsaSchedule struct {
	ServicePartners []dcsaPartner   `json:"servicePartners"`
	Vessel          *dcsaVessel     `json:"vessel"`
	IsDummyVessel   bool            `json:"isDummyVessel"`
	Timestamps      json.RawMessage `json:"timestamps"`
}

// dcsaPartner is a ServicePartner or ServicePartnerSchedule: a carrier
// selling the call under its own service and voyage numbers.
type dcsaPartner struct {
	CarrierCode               string `json:"carrierCode"`
	CarrierServiceName        string `json:"carrierServiceName"`
	CarrierServiceCode        string `json:"carrierServiceCode"`
	CarrierImportVoyageNumber string `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber string `json:"carrierExportVoyageNumber"`
}

// dcsaVessel is the standard's Vessel (and Barge): numbers as strings
// ("vesselIMONumber": "9321483", 7 or 8 digits), read as idNumber reads
// them, so a JSON number and an IMO prefix ("IMO9321483") are read too.
type dcsaVessel struct {
	VesselIMONumber     idNumber `json:"vesselIMONumber"`
	MMSINumber          idNumber `json:"MMSINumber"`
	Name                string   `json:"name"`
	Flag                string   `json:"flag"`
	CallSign            string   `json:"callSign"`
	OperatorCarrierCode string   `json:"operatorCarrierCode"`
}

// dcsaLocation covers Location, TransportCallLocation and
// PortScheduleLocation: a place given by any of its optional members.
type dcsaLocation struct {
	LocationName     string        `json:"locationName"`
	UNLocationCode   string        `json:"UNLocationCode"`
	FacilitySMDGCode string        `json:"facilitySMDGCode"`
	FacilityName     string        `json:"facilityName"`
	Facility         *dcsaFacility `json:"facility"`
	Address          *dcsaAddress  `json:"address"`
}

type dcsaFacility struct {
	FacilityCode             string `json:"facilityCode"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider"`
}

type dcsaAddress struct {
	City        string `json:"city"`
	StateRegion string `json:"stateRegion"`
	CountryCode string `json:"countryCode"`
}

// dcsaServiceSchedule is an item of GET /v1/vessel-schedules.
type dcsaServiceSchedule struct {
	CarrierServiceName string          `json:"carrierServiceName"`
	CarrierServiceCode string          `json:"carrierServiceCode"`
	VesselSchedules    json.RawMessage `json:"vesselSchedules"`
}

type dcsaVesselSchedule struct {
	Vessel         *dcsaVessel     `json:"vessel"`
	IsDummyVessel  bool            `json:"isDummyVessel"`
	TransportCalls json.RawMessage `json:"transportCalls"`
}

type dcsaTransportCall struct {
	CarrierImportVoyageNumber string          `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber string          `json:"carrierExportVoyageNumber"`
	Location                  *dcsaLocation   `json:"location"`
	Timestamps                json.RawMessage `json:"timestamps"`
}

// dcsaPointToPoint is an item of GET /v1/point-to-point-routes: one
// routing. Its places of receipt and delivery are read for their
// locations only.
type dcsaPointToPoint struct {
	PlaceOfReceipt  *dcsaPlace      `json:"placeOfReceipt"`
	PlaceOfDelivery *dcsaPlace      `json:"placeOfDelivery"`
	TransitTime     idNumber        `json:"transitTime"`
	Legs            json.RawMessage `json:"legs"`
}

// dcsaPlace is a place of receipt, delivery, departure or arrival.
type dcsaPlace struct {
	Location *dcsaLocation   `json:"location"`
	DateTime json.RawMessage `json:"dateTime"`
}

type dcsaLeg struct {
	SequenceNumber idNumber        `json:"sequenceNumber"`
	Transport      *dcsaTransport  `json:"transport"`
	Departure      json.RawMessage `json:"departure"`
	Arrival        json.RawMessage `json:"arrival"`
}

type dcsaTransport struct {
	ModeOfTransport string        `json:"modeOfTransport"`
	ServicePartners []dcsaPartner `json:"servicePartners"`
	Vessel          *dcsaVessel   `json:"vessel"`
	Barge           *dcsaVessel   `json:"barge"`
}

// dummy: a schedule of a dummy vessel (isDummyVessel, no IMO number yet:
// the carrier has not assigned a ship) names no vessel a port call can be
// kept for. It is left out, not reported: the standard allows it, and the
// same call comes back with its vessel once one is assigned. It stays in
// the raw landing. A dummy vessel that has an IMO number is read as any
// vessel; a vessel that is no dummy and has none is the transform's to
// dead-letter.

// isDummy reports whether a vessel schedule is a dummy vessel's.
func isDummy(dummy bool, v *dcsaVessel) bool {
	return dummy && (v == nil || v.VesselIMONumber.n == nil || *v.VesselIMONumber.n <= 0)
}

func optString(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// location converts a DCSA location: the UN/LOCODE upper-cased, the name
// from locationName (else the address's city), the country code from the
// address (else the LOCODE's first two letters).
func (l *dcsaLocation) location() *Location {
	if l == nil {
		return nil
	}
	loc := &Location{Name: l.LocationName, Locode: strings.ToUpper(strings.TrimSpace(l.UNLocationCode))}
	if a := l.Address; a != nil {
		if loc.Name == "" {
			loc.Name = a.City
		}
		loc.CountryCode = strings.ToUpper(strings.TrimSpace(a.CountryCode))
		loc.State = optString(a.StateRegion)
	}
	if loc.CountryCode == "" && len(loc.Locode) == 5 {
		loc.CountryCode = loc.Locode[:2]
	}
	return loc
}

// facility converts the terminal a DCSA location names, by its SMDG code
// (facilitySMDGCode, or facility with provider SMDG) or BIC code; nil when
// it names none.
func (l *dcsaLocation) facility() *Facility {
	if l == nil {
		return nil
	}
	smdg, bic := l.FacilitySMDGCode, ""
	if f := l.Facility; f != nil {
		switch strings.ToUpper(strings.TrimSpace(f.FacilityCodeListProvider)) {
		case "SMDG":
			smdg = f.FacilityCode
		case "BIC":
			bic = f.FacilityCode
		}
	}
	if strings.TrimSpace(smdg) == "" && strings.TrimSpace(bic) == "" && l.FacilityName == "" {
		return nil
	}
	f := &Facility{Name: l.FacilityName, SMDGCode: optString(strings.ToUpper(smdg)), BICCode: optString(strings.ToUpper(bic))}
	if code := strings.ToUpper(strings.TrimSpace(l.UNLocationCode)); code != "" {
		f.Locode = &code
		if len(code) == 5 {
			f.CountryCode = code[:2]
		}
	}
	return f
}

func (v *dcsaVessel) vessel() *Vessel {
	if v == nil {
		return nil
	}
	return &Vessel{
		Name:     v.Name,
		IMO:      v.VesselIMONumber.n,
		MMSI:     v.MMSINumber.n,
		CallSign: optString(v.CallSign),
		Flag:     optString(strings.ToUpper(v.Flag)),
	}
}

// partner picks the carrier of a call among its service partners: the
// partner that operates the vessel when one does, else the first; a call
// without partners is the operator's. Each call is one row: a call shared
// by several carriers counts once, for the carrier running the ship.
func partner(partners []dcsaPartner, v *dcsaVessel) dcsaPartner {
	operator := ""
	if v != nil {
		operator = strings.ToUpper(strings.TrimSpace(v.OperatorCarrierCode))
	}
	for _, p := range partners {
		if operator != "" && strings.EqualFold(strings.TrimSpace(p.CarrierCode), operator) {
			return p
		}
	}
	if len(partners) > 0 {
		return partners[0]
	}
	return dcsaPartner{CarrierCode: operator}
}

func (p dcsaPartner) carrier() string { return strings.ToUpper(strings.TrimSpace(p.CarrierCode)) }

// errNull is the error of an element sent as null.
var errNull = &json.UnmarshalTypeError{Value: "null", Type: reflect.TypeFor[dcsaPortSchedule]()}

// dcsaItems decodes a DCSA answer of shape (an array, or one item bare)
// item by item with item, which returns the error of an item that does
// not decode (what names it): an array's item is then left out under its
// index, a bare item is a body that does not decode. what names them
// all, for the error of an array that does not decode.
func (d *scheduleDecoding) dcsaItems(body []byte, shape scheduleShape, all, what string, item func(json.RawMessage, string) error) error {
	if shape == dcsaItem {
		if err := item(body, ""); err != nil {
			return decodeError("DCSA "+strings.TrimPrefix(what, "the "), plainJSONError(err))
		}
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return decodeError("DCSA "+all, plainJSONError(err))
	}
	for i, raw := range raws {
		path := "[" + strconv.Itoa(i) + "]"
		if err := item(raw, path); err != nil {
			d.leftOut(path, what, err)
		}
	}
	return nil
}

// decodeItem decodes a DCSA item, which must be an object.
func decodeItem(raw json.RawMessage, v any) error {
	if isAbsent(raw) {
		return errNull
	}
	return json.Unmarshal(raw, v)
}

// list decodes the array member at path of an element (what names its
// elements and the element, for the error of a member that is no array).
func (d *scheduleDecoding) list(raw json.RawMessage, path, what string) []json.RawMessage {
	if isAbsent(raw) {
		return nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		d.leftOut(path, what, err)
		return nil
	}
	return out
}

// dcsaPortSchedule converts one item of a port-schedules answer, at path;
// its vessel schedules are decoded one by one.
func (d *scheduleDecoding) dcsaPortSchedule(raw json.RawMessage, path string) (PortSchedule, error) {
	var v dcsaPortSchedule
	if err := decodeItem(raw, &v); err != nil {
		return PortSchedule{}, err
	}
	ps := PortSchedule{Location: v.Location.location(), Source: path}
	d.place(ps.Location)
	facility := v.Location.facility()
	for j, el := range d.list(v.VesselSchedules, memberPath(path, "vesselSchedules"), "every vessel schedule of the port schedule") {
		var s dcsaSchedule
		at := indexPath(path, "vesselSchedules", j)
		if err := json.Unmarshal(el, &s); err != nil {
			d.leftOut(at, "the vessel schedule", err)
			continue
		}
		if isDummy(s.IsDummyVessel, s.Vessel) {
			continue // see dummy
		}
		p := partner(s.ServicePartners, s.Vessel)
		ps.VesselSchedules = append(ps.VesselSchedules, PortVesselSchedule{
			CarrierCode:               p.carrier(),
			CarrierServiceCode:        optString(p.CarrierServiceCode),
			CarrierServiceName:        optString(p.CarrierServiceName),
			Vessel:                    s.Vessel.vessel(),
			CarrierImportVoyageNumber: optString(p.CarrierImportVoyageNumber),
			CarrierExportVoyageNumber: optString(p.CarrierExportVoyageNumber),
			Facility:                  facility,
			Timestamps:                d.timestamps(s.Timestamps, at+".timestamps", ps.Location, "vessel schedule"),
			Source:                    at,
		})
	}
	return ps, nil
}

// dcsaVesselSchedules converts one item of a vessel-schedules answer (a
// service), at path, into one VesselSchedule per vessel it lists; the
// carrier is the vessel's operator. Each vessel schedule and each of its
// transport calls is decoded on its own.
func (d *scheduleDecoding) dcsaVesselSchedules(raw json.RawMessage, path string) ([]VesselSchedule, error) {
	var v dcsaServiceSchedule
	if err := decodeItem(raw, &v); err != nil {
		return nil, err
	}
	var out []VesselSchedule
	for j, el := range d.list(v.VesselSchedules, memberPath(path, "vesselSchedules"), "every vessel schedule of the service") {
		var s dcsaVesselSchedule
		at := indexPath(path, "vesselSchedules", j)
		if err := json.Unmarshal(el, &s); err != nil {
			d.leftOut(at, "the vessel schedule", err)
			continue
		}
		if isDummy(s.IsDummyVessel, s.Vessel) {
			continue // see dummy
		}
		vs := VesselSchedule{
			Source:             at,
			Vessel:             s.Vessel.vessel(),
			CarrierServiceCode: optString(v.CarrierServiceCode),
			CarrierServiceName: optString(v.CarrierServiceName),
		}
		if s.Vessel != nil {
			vs.CarrierCode = strings.ToUpper(strings.TrimSpace(s.Vessel.OperatorCarrierCode))
		}
		for k, el := range d.list(s.TransportCalls, at+".transportCalls", "every transport call of the vessel schedule") {
			var tc dcsaTransportCall
			tat := indexPath(at, "transportCalls", k)
			if err := json.Unmarshal(el, &tc); err != nil {
				d.leftOut(tat, "the transport call", err)
				continue
			}
			loc := tc.Location.location()
			d.place(loc)
			vs.TransportCalls = append(vs.TransportCalls, TransportCall{
				SequenceNumber:            k + 1,
				Location:                  loc,
				Facility:                  tc.Location.facility(),
				CarrierImportVoyageNumber: optString(tc.CarrierImportVoyageNumber),
				CarrierExportVoyageNumber: optString(tc.CarrierExportVoyageNumber),
				Timestamps:                d.timestamps(tc.Timestamps, tat+".timestamps", loc, "transport call"),
				Source:                    tat,
			})
		}
		out = append(out, vs)
	}
	return out, nil
}

// dcsaPointToPoint converts one routing, at path, into a PointToPoint of
// one route; each leg, and each end of a leg, is decoded on its own. Legs
// by truck, rail or any mode but vessel and barge call at no port and are
// left out; planned times of legs are PLN (the standard's legs carry no
// classifier: they are the carrier's plan).
func (d *scheduleDecoding) dcsaPointToPoint(raw json.RawMessage, path string) (PointToPoint, error) {
	var v dcsaPointToPoint
	if err := decodeItem(raw, &v); err != nil {
		return PointToPoint{}, err
	}
	p := PointToPoint{Routes: []P2PRoute{{TransitTime: v.TransitTime.n, Source: path}}, Source: path}
	if v.PlaceOfReceipt != nil {
		p.PlaceOfReceipt = v.PlaceOfReceipt.Location.location()
	}
	if v.PlaceOfDelivery != nil {
		p.PlaceOfDelivery = v.PlaceOfDelivery.Location.location()
	}
	d.place(p.PlaceOfReceipt)
	d.place(p.PlaceOfDelivery)
	route := &p.Routes[0]
	for k, el := range d.list(v.Legs, memberPath(path, "legs"), "every leg of the routing") {
		var l dcsaLeg
		at := indexPath(path, "legs", k)
		if err := json.Unmarshal(el, &l); err != nil {
			d.leftOut(at, "the leg", err)
			continue
		}
		t := l.Transport
		if t == nil {
			t = &dcsaTransport{}
		}
		vessel := t.Vessel
		switch strings.ToUpper(strings.TrimSpace(t.ModeOfTransport)) {
		case "VESSEL", "":
		case "BARGE":
			vessel = t.Barge
		default:
			continue
		}
		pt := partner(t.ServicePartners, vessel)
		leg := Leg{
			Vessel:              vessel.vessel(),
			CarrierCode:         optString(pt.carrier()),
			CarrierServiceCode:  optString(pt.CarrierServiceCode),
			CarrierVoyageNumber: optString(pt.CarrierExportVoyageNumber),
			ArrivalVoyageNumber: optString(pt.CarrierImportVoyageNumber),
			Source:              at,
		}
		if l.SequenceNumber.n != nil {
			leg.SequenceNumber = *l.SequenceNumber.n
		}
		leg.Departure, leg.DepartureLeftOut = d.dcsaLegCall(l.Departure, at, "departure")
		leg.Arrival, leg.ArrivalLeftOut = d.dcsaLegCall(l.Arrival, at, "arrival")
		if leg.CarrierVoyageNumber == nil {
			leg.CarrierVoyageNumber = leg.ArrivalVoyageNumber
		}
		if route.CarrierCode == "" && leg.CarrierCode != nil {
			route.CarrierCode = *leg.CarrierCode
		}
		route.Legs = append(route.Legs, leg)
	}
	return p, nil
}

// dcsaLegCall converts the end (departure, arrival) of the leg at path:
// nil when there is none, or when it is left out (left).
func (d *scheduleDecoding) dcsaLegCall(raw json.RawMessage, path, end string) (lc *LegCall, left bool) {
	if isAbsent(raw) {
		return nil, false
	}
	at := path + "." + end
	var p dcsaPlace
	if err := json.Unmarshal(raw, &p); err != nil {
		d.leftOut(at, "the "+end, err)
		return nil, true
	}
	lc = &LegCall{Location: p.Location.location(), Facility: p.Location.facility(), EventClassifierCode: "PLN"}
	d.place(lc.Location)
	if err := d.naive.read(p.DateTime, lc.Location, func(t time.Time, zone string) { lc.DateTime, lc.DateTimeZone = t, zone }); err != nil {
		d.leftOut(at+".dateTime", "the "+end, err)
		return nil, true
	}
	return lc, false
}

// DCSAErrorMessage reads the standard's ErrorResponse into one line: its
// statusCodeMessage (else statusCodeText) and each detailed error as
// property=value: errorCodeMessage. ok is false when body is not one.
func DCSAErrorMessage(body []byte) (msg string, ok bool) {
	var e struct {
		StatusCode        int    `json:"statusCode"`
		StatusCodeText    string `json:"statusCodeText"`
		StatusCodeMessage string `json:"statusCodeMessage"`
		Errors            []struct {
			Property         string `json:"property"`
			Value            string `json:"value"`
			ErrorCodeText    string `json:"errorCodeText"`
			ErrorCodeMessage string `json:"errorCodeMessage"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &e) != nil || e.StatusCode == 0 || e.Errors == nil {
		return "", false
	}
	parts := []string{e.StatusCodeMessage}
	if parts[0] == "" {
		parts[0] = e.StatusCodeText
	}
	for _, d := range e.Errors {
		text := d.ErrorCodeMessage
		if text == "" {
			text = d.ErrorCodeText
		}
		if d.Property != "" {
			text = d.Property + "=" + strconv.Quote(d.Value) + ": " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; "), true
}
