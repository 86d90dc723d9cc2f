package wire

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// The dcsa-cs-1.0 profile's payloads: DCSA Commercial Schedules 1.0 as
// published (dcsaorg/DCSA-OpenAPI, cs/v1, 1.0.0 to 1.0.3). Every answer is
// a JSON array; its items are decoded one by one and converted into the
// service profile's types, so that both profiles load the same columns.
// Members we do not use (cutOffTimes, footprints, universal references,
// addresses beyond country and state) stay in the raw landing.

// dcsaPortSchedule is an item of GET /v1/port-schedules.
type dcsaPortSchedule struct {
	Location        *dcsaLocation     `json:"location"`
	VesselSchedules []json.RawMessage `json:"vesselSchedules"`
}

// dcsaSchedule is one vessel's call in a port schedule.
type dcsaSchedule struct {
	ServicePartners []dcsaPartner `json:"servicePartners"`
	Vessel          *dcsaVessel   `json:"vessel"`
	IsDummyVessel   bool          `json:"isDummyVessel"`
	Timestamps      []Timestamp   `json:"timestamps"`
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

// dcsaVessel is the standard's Vessel (and Barge): numbers as strings.
type dcsaVessel struct {
	VesselIMONumber     flexNumber `json:"vesselIMONumber"`
	MMSINumber          flexNumber `json:"MMSINumber"`
	Name                string     `json:"name"`
	Flag                string     `json:"flag"`
	CallSign            string     `json:"callSign"`
	OperatorCarrierCode string     `json:"operatorCarrierCode"`
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
	CarrierServiceName string            `json:"carrierServiceName"`
	CarrierServiceCode string            `json:"carrierServiceCode"`
	VesselSchedules    []json.RawMessage `json:"vesselSchedules"`
}

type dcsaVesselSchedule struct {
	Vessel         *dcsaVessel         `json:"vessel"`
	IsDummyVessel  bool                `json:"isDummyVessel"`
	TransportCalls []dcsaTransportCall `json:"transportCalls"`
}

type dcsaTransportCall struct {
	CarrierImportVoyageNumber string        `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber string        `json:"carrierExportVoyageNumber"`
	Location                  *dcsaLocation `json:"location"`
	Timestamps                []Timestamp   `json:"timestamps"`
}

// dcsaPointToPoint is an item of GET /v1/point-to-point-routes: one
// routing.
type dcsaPointToPoint struct {
	PlaceOfReceipt  *dcsaPlace        `json:"placeOfReceipt"`
	PlaceOfDelivery *dcsaPlace        `json:"placeOfDelivery"`
	TransitTime     *int              `json:"transitTime"`
	Legs            []json.RawMessage `json:"legs"`
}

// dcsaPlace is a place of receipt, delivery, departure or arrival.
type dcsaPlace struct {
	Location *dcsaLocation `json:"location"`
	DateTime *time.Time    `json:"dateTime"`
}

type dcsaLeg struct {
	SequenceNumber int            `json:"sequenceNumber"`
	Transport      *dcsaTransport `json:"transport"`
	Departure      *dcsaPlace     `json:"departure"`
	Arrival        *dcsaPlace     `json:"arrival"`
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
// the raw landing.

// flexNumber is a number the standard sends as a string of digits; a JSON
// number is taken too. Anything else is no number (0).
type flexNumber int

func (n *flexNumber) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 {
		*n = 0
		return nil
	}
	*n = flexNumber(v)
	return nil
}

func (n flexNumber) ptr() *int {
	if n <= 0 {
		return nil
	}
	v := int(n)
	return &v
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
		loc.CountryCode = strings.ToUpper(a.CountryCode)
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
		switch strings.ToUpper(f.FacilityCodeListProvider) {
		case "SMDG":
			smdg = f.FacilityCode
		case "BIC":
			bic = f.FacilityCode
		}
	}
	if smdg == "" && bic == "" && l.FacilityName == "" {
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
		IMO:      v.VesselIMONumber.ptr(),
		MMSI:     v.MMSINumber.ptr(),
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

// portSchedule converts one item of a port-schedules answer; its
// vesselSchedules are decoded one by one, the ones that fail reported
// under path.
func (d *dcsaPortSchedule) portSchedule(path string) (PortSchedule, []ItemError) {
	ps := PortSchedule{Location: d.Location.location(), Source: path}
	facility := d.Location.facility()
	var bad []ItemError
	for j, raw := range d.VesselSchedules {
		var s dcsaSchedule
		at := indexPath(path, "vesselSchedules", j)
		if err := json.Unmarshal(raw, &s); err != nil {
			bad = append(bad, itemError(at, err))
			continue
		}
		if s.IsDummyVessel && (s.Vessel == nil || s.Vessel.VesselIMONumber <= 0) {
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
			Timestamps:                s.Timestamps,
			Source:                    at,
		})
	}
	return ps, bad
}

// vesselSchedules converts one item of a vessel-schedules answer (a
// service) into one VesselSchedule per vessel it lists; the carrier is the
// vessel's operator.
func (d *dcsaServiceSchedule) vesselSchedules(path string) ([]VesselSchedule, []ItemError) {
	var out []VesselSchedule
	var bad []ItemError
	for j, raw := range d.VesselSchedules {
		var s dcsaVesselSchedule
		at := indexPath(path, "vesselSchedules", j)
		if err := json.Unmarshal(raw, &s); err != nil {
			bad = append(bad, itemError(at, err))
			continue
		}
		if s.IsDummyVessel && (s.Vessel == nil || s.Vessel.VesselIMONumber <= 0) {
			continue // see dummy
		}
		vs := VesselSchedule{
			Source:             at,
			Vessel:             s.Vessel.vessel(),
			CarrierServiceCode: optString(d.CarrierServiceCode),
			CarrierServiceName: optString(d.CarrierServiceName),
		}
		if s.Vessel != nil {
			vs.CarrierCode = strings.ToUpper(strings.TrimSpace(s.Vessel.OperatorCarrierCode))
		}
		for k, tc := range s.TransportCalls {
			vs.TransportCalls = append(vs.TransportCalls, TransportCall{
				SequenceNumber:            k + 1,
				Location:                  tc.Location.location(),
				Facility:                  tc.Location.facility(),
				CarrierImportVoyageNumber: optString(tc.CarrierImportVoyageNumber),
				CarrierExportVoyageNumber: optString(tc.CarrierExportVoyageNumber),
				Timestamps:                tc.Timestamps,
				Source:                    indexPath(at, "transportCalls", k),
			})
		}
		out = append(out, vs)
	}
	return out, bad
}

// pointToPoint converts one routing into a PointToPoint of one route. Legs
// by truck, rail or any mode but vessel and barge call at no port and are
// left out; planned times of legs are PLN (the standard's legs carry no
// classifier: they are the carrier's plan).
func (d *dcsaPointToPoint) pointToPoint(path string) (PointToPoint, []ItemError) {
	p := PointToPoint{Routes: []P2PRoute{{TransitTime: d.TransitTime, Source: path}}, Source: path}
	if d.PlaceOfReceipt != nil {
		p.PlaceOfReceipt = d.PlaceOfReceipt.Location.location()
	}
	if d.PlaceOfDelivery != nil {
		p.PlaceOfDelivery = d.PlaceOfDelivery.Location.location()
	}
	route := &p.Routes[0]
	var bad []ItemError
	for k, raw := range d.Legs {
		var l dcsaLeg
		at := indexPath(path, "legs", k)
		if err := json.Unmarshal(raw, &l); err != nil {
			bad = append(bad, itemError(at, err))
			continue
		}
		t := l.Transport
		if t == nil {
			t = &dcsaTransport{}
		}
		v := t.Vessel
		switch strings.ToUpper(t.ModeOfTransport) {
		case "VESSEL", "":
		case "BARGE":
			v = t.Barge
		default:
			continue
		}
		pt := partner(t.ServicePartners, v)
		leg := Leg{
			SequenceNumber:      l.SequenceNumber,
			Vessel:              v.vessel(),
			CarrierCode:         optString(pt.carrier()),
			CarrierServiceCode:  optString(pt.CarrierServiceCode),
			CarrierVoyageNumber: optString(pt.CarrierExportVoyageNumber),
			ArrivalVoyageNumber: optString(pt.CarrierImportVoyageNumber),
			Departure:           l.Departure.legCall(),
			Arrival:             l.Arrival.legCall(),
			Source:              at,
		}
		if leg.CarrierVoyageNumber == nil {
			leg.CarrierVoyageNumber = leg.ArrivalVoyageNumber
		}
		if route.CarrierCode == "" && leg.CarrierCode != nil {
			route.CarrierCode = *leg.CarrierCode
		}
		route.Legs = append(route.Legs, leg)
	}
	return p, bad
}

func (p *dcsaPlace) legCall() *LegCall {
	if p == nil {
		return nil
	}
	lc := &LegCall{Location: p.Location.location(), Facility: p.Location.facility(), EventClassifierCode: "PLN"}
	if p.DateTime != nil {
		lc.DateTime = *p.DateTime
	}
	return lc
}

// indexPath is the path of member[i] inside the item at path ("" for the
// body itself).
func indexPath(path, member string, i int) string {
	if path != "" {
		path += "."
	}
	return path + member + "[" + strconv.Itoa(i) + "]"
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
