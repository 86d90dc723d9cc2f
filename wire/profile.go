package wire

import (
	"fmt"
	"strings"
)

// ScheduleAPI is a schedule API profile: which contract the schedule
// product speaks.
type ScheduleAPI string

// The schedule API profiles.
const (
	// ScheduleAPIService is our provisional contract (spec/schedules.md):
	// one object per answer, under /schedule/api/v1, with consumption
	// endpoints.
	ScheduleAPIService ScheduleAPI = "service"
	// ScheduleAPIDCSA is DCSA Commercial Schedules 1.0 as published:
	// JSON arrays, query parameters, pages by Next-Page-Cursor, and no
	// consumption endpoints.
	ScheduleAPIDCSA ScheduleAPI = "dcsa-cs-1.0"
)

// ScheduleAPIs lists the profiles, the default first.
var ScheduleAPIs = []ScheduleAPI{ScheduleAPIService, ScheduleAPIDCSA}

// ParseScheduleAPI reads a profile name; "" is the default.
func ParseScheduleAPI(s string) (ScheduleAPI, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return ScheduleAPIService, nil
	}
	for _, a := range ScheduleAPIs {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("invalid schedule API %q: want %s or %s", s, ScheduleAPIService, ScheduleAPIDCSA)
}

// HasConsumption reports whether the profile's schedule product has the
// consumption endpoints (current period, periods): DCSA defines none.
func (a ScheduleAPI) HasConsumption() bool { return a != ScheduleAPIDCSA }

// Paths are the profile's default path templates. For dcsa-cs-1.0 they are
// the standard's, relative to the API root: the port's schedule from the
// logical date; a vessel's schedule and the routings departing between
// the logical date ({date}) and the end of the schedule window ({until}).
// The tracking product's paths are the service's in both.
func (a ScheduleAPI) Paths() Paths {
	p := DefaultPaths()
	if a == ScheduleAPIDCSA {
		p.PortSchedule = "/v1/port-schedules?UNLocationCode={port}&date={date}"
		p.P2PSchedule = "/v1/point-to-point-routes?placeOfReceipt={pol}&placeOfDelivery={pod}&departureStartDate={date}&departureEndDate={until}"
		p.VesselSchedule = "/v1/vessel-schedules?vesselIMONumber={imo}&startDate={date}&endDate={until}"
	}
	return p
}
