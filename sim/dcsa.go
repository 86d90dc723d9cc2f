package sim

import (
	"net/http"
	"strconv"
	"time"
)

// The schedule API profiles a Service speaks (Config.ScheduleAPI).
const (
	// ScheduleAPIService is spec/schedules.md under SchedulePrefix: one
	// object per query, no paging.
	ScheduleAPIService = "service"
	// ScheduleAPIDCSA is DCSA Commercial Schedules 1.0 (Config.DCSAVersion)
	// under DCSAPrefix: a JSON array of root items per query, paged by
	// Next-Page-Cursor.
	ScheduleAPIDCSA = "dcsa-cs-1.0"
)

// ScheduleAPIs lists the profiles, the default first.
var ScheduleAPIs = []string{ScheduleAPIService, ScheduleAPIDCSA}

// The DCSA profile of the schedule product.
//
//	GET /cs/v1/port-schedules?UNLocationCode=NLRTM&date=2026-01-05
//	GET /cs/v1/vessel-schedules?vesselIMONumber=9321483[&startDate=…&endDate=…]
//	GET /cs/v1/point-to-point-routes?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM[&departureStartDate=…]
//
// Every answer carries API-Version: the version served. A 200 is a JSON
// array of root items (PortSchedule, ServiceSchedule, PointToPoint); when
// more remain, Next-Page-Cursor names the next page, asked as the version
// says: with the cursor alone (1.0.0, 1.0.1: anything beside it is a
// 400), or with the cursor and the first request's filters unchanged
// (1.0.2, 1.0.3; limit may change). Errors are DCSA ErrorResponses.
const (
	DCSAPrefix = "/cs"
	// DefaultDCSAVersion is the version served unless told: the strict
	// reading of a next page, the cursor alone and anything beside it
	// refused.
	DefaultDCSAVersion = "1.0.1"
	// DCSADefaultLimit is the page size when the request has no limit.
	DCSADefaultLimit = 100
)

// DCSAVersions are the versions of DCSA Commercial Schedules 1.0 the
// simulator serves. The answers' shapes are 1.0.3's in all (the members
// later versions added are optional); they differ in how a next page is
// asked, the one rule the standard changed in a patch (1.0.2: "improved
// the Next-Page-Cursor description").
var DCSAVersions = []string{"1.0.0", "1.0.1", "1.0.2", "1.0.3"}

// The JSON shapes of DCSA Commercial Schedules 1.0.3, written from its
// OpenAPI for the simulator alone: the client decodes with its own types
// (package wire), so a disagreement between the two shows in the tests
// instead of agreeing with itself. Only the members the simulator fills
// are declared.

// csPortSchedule is a root item of /v1/port-schedules: one terminal of the
// port with the calls at it.
type csPortSchedule struct {
	Location        csCallLocation `json:"location"`
	VesselSchedules []csSchedule   `json:"vesselSchedules"`
}

// csCallLocation is a PortScheduleLocation or a TransportCallLocation.
type csCallLocation struct {
	LocationName     string `json:"locationName,omitempty"`
	FacilityName     string `json:"facilityName,omitempty"`
	UNLocationCode   string `json:"UNLocationCode"`
	FacilitySMDGCode string `json:"facilitySMDGCode,omitempty"`
}

// csSchedule is one vessel's call in a port schedule.
type csSchedule struct {
	ServicePartners []csServicePartner `json:"servicePartners"`
	Vessel          *csVessel          `json:"vessel,omitempty"`
	IsDummyVessel   bool               `json:"isDummyVessel"`
	Timestamps      []csTimestamp      `json:"timestamps"`
}

// csServicePartner is a ServicePartnerSchedule (port schedules) or a
// ServicePartner (point-to-point legs); the simulator fills both alike.
type csServicePartner struct {
	CarrierCode               string `json:"carrierCode"`
	CarrierCodeListProvider   string `json:"carrierCodeListProvider"`
	CarrierServiceName        string `json:"carrierServiceName"`
	CarrierServiceCode        string `json:"carrierServiceCode"`
	CarrierImportVoyageNumber string `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber string `json:"carrierExportVoyageNumber"`
}

type csVessel struct {
	VesselIMONumber                 string `json:"vesselIMONumber"`
	MMSINumber                      string `json:"MMSINumber,omitempty"`
	Name                            string `json:"name,omitempty"`
	Flag                            string `json:"flag,omitempty"`
	CallSign                        string `json:"callSign,omitempty"`
	OperatorCarrierCode             string `json:"operatorCarrierCode,omitempty"`
	OperatorCarrierCodeListProvider string `json:"operatorCarrierCodeListProvider,omitempty"`
}

type csTimestamp struct {
	EventTypeCode       string    `json:"eventTypeCode"`
	EventClassifierCode string    `json:"eventClassifierCode"`
	EventDateTime       time.Time `json:"eventDateTime"`
}

// csServiceSchedule is a root item of /v1/vessel-schedules.
type csServiceSchedule struct {
	CarrierServiceName string             `json:"carrierServiceName"`
	CarrierServiceCode string             `json:"carrierServiceCode"`
	VesselSchedules    []csVesselSchedule `json:"vesselSchedules"`
}

type csVesselSchedule struct {
	Vessel         *csVessel         `json:"vessel,omitempty"`
	IsDummyVessel  bool              `json:"isDummyVessel"`
	TransportCalls []csTransportCall `json:"transportCalls"`
}

type csTransportCall struct {
	TransportCallReference    string         `json:"transportCallReference"`
	CarrierImportVoyageNumber string         `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber string         `json:"carrierExportVoyageNumber,omitempty"`
	Location                  csCallLocation `json:"location"`
	Timestamps                []csTimestamp  `json:"timestamps"`
}

// csPointToPoint is a root item of /v1/point-to-point-routes: one routing.
type csPointToPoint struct {
	PlaceOfReceipt  csPlace `json:"placeOfReceipt"`
	PlaceOfDelivery csPlace `json:"placeOfDelivery"`
	SolutionNumber  int     `json:"solutionNumber"`
	TransitTime     int     `json:"transitTime"`
	Legs            []csLeg `json:"legs"`
}

// csPlace is a PlaceOfReceipt, PlaceOfDelivery, PlaceOfDeparture or
// PlaceOfArrival (the last two with a transportCallReference).
type csPlace struct {
	TransportCallReference string     `json:"transportCallReference,omitempty"`
	FacilityTypeCode       string     `json:"facilityTypeCode"`
	Location               csLocation `json:"location"`
	DateTime               time.Time  `json:"dateTime"`
}

type csLocation struct {
	LocationName   string      `json:"locationName,omitempty"`
	FacilityName   string      `json:"facilityName,omitempty"`
	UNLocationCode string      `json:"UNLocationCode"`
	Facility       *csFacility `json:"facility,omitempty"`
}

type csFacility struct {
	FacilityCode             string `json:"facilityCode"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider"`
}

type csLeg struct {
	SequenceNumber int               `json:"sequenceNumber"`
	Transport      csVesselTransport `json:"transport"`
	Departure      csPlace           `json:"departure"`
	Arrival        csPlace           `json:"arrival"`
}

type csVesselTransport struct {
	ModeOfTransport string             `json:"modeOfTransport"`
	ServicePartners []csServicePartner `json:"servicePartners"`
	Vessel          *csVessel          `json:"vessel,omitempty"`
}

// csErrorResponse is the ErrorResponse of every DCSA error answer.
type csErrorResponse struct {
	HTTPMethod                   string            `json:"httpMethod"`
	RequestURI                   string            `json:"requestUri"`
	StatusCode                   int               `json:"statusCode"`
	StatusCodeText               string            `json:"statusCodeText"`
	StatusCodeMessage            string            `json:"statusCodeMessage,omitempty"`
	ProviderCorrelationReference string            `json:"providerCorrelationReference"`
	ErrorDateTime                time.Time         `json:"errorDateTime"`
	Errors                       []csDetailedError `json:"errors"`
}

type csDetailedError struct {
	ErrorCode        int    `json:"errorCode"`
	Property         string `json:"property,omitempty"`
	Value            string `json:"value,omitempty"`
	ErrorCodeText    string `json:"errorCodeText"`
	ErrorCodeMessage string `json:"errorCodeMessage"`
}

// The simulator's detailed error codes (DCSA leaves them to the
// implementer, from 7000 to 9999).
var csErrorCodes = map[int]struct {
	code int
	text string
}{
	http.StatusBadRequest:          {7001, "invalidQuery"},
	http.StatusUnauthorized:        {7003, "unauthorized"},
	http.StatusForbidden:           {7004, "forbidden"},
	http.StatusNotFound:            {7005, "notFound"},
	http.StatusMethodNotAllowed:    {7006, "methodNotAllowed"},
	http.StatusTooManyRequests:     {7007, "tooManyRequests"},
	http.StatusInternalServerError: {7008, "internalError"},
	http.StatusServiceUnavailable:  {7009, "serviceUnavailable"},
}

// csCursorError is the detailed error code of a refused cursor.
const csCursorError = 7002

// csErrorBody renders an error answer as a DCSA ErrorResponse: one
// DetailedError per detail of f (naming property and value), or one naming
// the status alone.
func csErrorBody(f *apiFault, method, requestURI string, seq int64, at time.Time) csErrorResponse {
	ec := csErrorCodes[f.status]
	if ec.code == 0 {
		ec.code, ec.text = 7000, "error"
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch:
	case http.MethodOptions:
		method = "OPTION" // sic, the OpenAPI's enum
	}
	out := csErrorResponse{
		HTTPMethod: method, RequestURI: requestURI, StatusCode: f.status, StatusCodeText: http.StatusText(f.status),
		StatusCodeMessage:            clip(f.message, 200),
		ProviderCorrelationReference: "etalake-sim-" + strconv.FormatInt(seq, 10),
		ErrorDateTime:                at.UTC().Truncate(time.Second),
	}
	for _, d := range f.details {
		dt, ok := d.(detail)
		if !ok {
			continue
		}
		e := csDetailedError{ErrorCode: ec.code, Property: clip(dt.Field, 100), Value: clip(dt.Value, 500),
			ErrorCodeText: ec.text, ErrorCodeMessage: clip(dt.Field+" "+dt.Issue, 5000)}
		if dt.Field == "cursor" {
			e.ErrorCode, e.ErrorCodeText = csCursorError, "invalidCursor"
		}
		out.Errors = append(out.Errors, e)
	}
	if len(out.Errors) == 0 {
		out.Errors = []csDetailedError{{ErrorCode: ec.code, ErrorCodeText: ec.text, ErrorCodeMessage: f.message}}
	}
	return out
}

// clip cuts s to at most n characters (the OpenAPI's maxLength).
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
