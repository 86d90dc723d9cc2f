package transform_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// observation is a tracking answer of container EGHU1234569 at t0 plus
// day days, with the events given (JSON objects without their braces).
func observation(day int, events ...string) response.Landed {
	body := `{"containers":[{"number":"EGHU1234569","events":[{` + strings.Join(events, `},{`) + `}]}]}`
	return response.Landed{ID: fmt.Sprintf("r%d", day), ObservedAt: t0.Add(time.Duration(day) * 24 * time.Hour), Received: response.Received{Endpoint: wire.EndpointShipment, Product: wire.ProductTracking, Request: "/container-tracking/api/v2/shipment?shipmentNumber=EGHU1234569&shipmentType=CT", Status: 200, Body: []byte(body)}}
}

// load is an event of code LOAD at place with the given status, date,
// actual flag and vessel members.
func load(place, status, date string, actual bool, vessel string) string {
	return fmt.Sprintf(`"location":{"locode":%q},"eventType":"EQUIPMENT","eventCode":"LOAD","status":%q,"date":%q,"isActual":%v%s`,
		place, status, date, actual, vessel)
}

const (
	noVessel  = `,"vessel":null,"voyage":null`
	withAnna  = `,"vessel":{"name":"MSC ANNA","imo":9839179},"voyage":"FL512W"`
	otherTrip = `,"vessel":{"name":"MSC ANNA","imo":9839179},"voyage":"FL513W"`
)

// columnValues is the value of col in each row, in order.
func columnValues(tb *table, col string) []string {
	var out []string
	if tb == nil {
		return nil
	}
	for _, r := range tb.rows {
		i := strings.Index(r, `"`+col+`":`)
		v := r[i+len(col)+3:]
		out = append(out, v[:strings.IndexAny(v, ",}")])
	}
	return out
}

// An event keeps its identity while carriers fill in its details: the
// rows a user sees are one event per thing that happened, with one
// observation per answer.
func TestEventIdentitySurvivesDetailsFilledInLater(t *testing.T) {
	cases := []struct {
		name                 string
		answers              []response.Landed
		events, observations int
		want                 map[string][]string // container_events column → its values, in any order
	}{
		{
			name: "an estimate without a vessel, then the actual with one",
			answers: []response.Landed{
				observation(0, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", false, noVessel)),
				observation(9, load("SGSIN", "CLT", "2026-02-09T18:30:00Z", true, withAnna)),
			},
			events: 1, observations: 2,
			want: map[string][]string{"is_actual": {"true"}, "vessel_imo": {"9839179"}, "event_at": {`"2026-02-09T18:30:00Z"`},
				"first_observed_at": {`"2026-02-01T12:00:00Z"`}},
		},
		{
			name: "a voyage number corrected",
			answers: []response.Landed{
				observation(0, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", false, withAnna)),
				observation(1, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", false, otherTrip)),
			},
			events: 1, observations: 2,
			want: map[string][]string{"voyage": {`"FL513W"`}},
		},
		{
			name: "the status of the same load changed (CLL, then CLT)",
			answers: []response.Landed{
				observation(0, load("SGSIN", "CLL", "2026-02-10T00:00:00Z", false, noVessel)),
				observation(1, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", false, noVessel)),
			},
			events: 1, observations: 2,
			want: map[string][]string{"status": {`"CLT"`}},
		},
		{
			name: "the code sent only once the event happened",
			answers: []response.Landed{
				observation(0, `"location":{"locode":"SGSIN"},"status":"CLT","date":"2026-02-10T00:00:00Z","isActual":false`),
				observation(1, load("SGSIN", "CLT", "2026-02-10T02:00:00Z", true, withAnna)),
			},
			events: 1, observations: 2,
		},
		{
			name: "a transhipment: the second LOAD is at another place",
			answers: []response.Landed{
				observation(0, load("CNSHA", "CLL", "2026-02-01T00:00:00Z", true, withAnna), load("SGSIN", "CLT", "2026-02-10T00:00:00Z", false, noVessel)),
				observation(1, load("CNSHA", "CLL", "2026-02-01T00:00:00Z", true, withAnna), load("SGSIN", "CLT", "2026-02-11T00:00:00Z", false, otherTrip)),
			},
			events: 2, observations: 4,
		},
		{
			name: "two LOADs at one place (rolled over): occurrences 0 and 1, observed twice",
			answers: []response.Landed{
				observation(0, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", true, withAnna), load("SGSIN", "CLT", "2026-02-17T00:00:00Z", false, noVessel)),
				observation(1, load("SGSIN", "CLT", "2026-02-10T00:00:00Z", true, withAnna), load("SGSIN", "CLT", "2026-02-16T00:00:00Z", false, otherTrip)),
			},
			events: 2, observations: 4,
			want: map[string][]string{"occurrence": {"0", "1"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// One batch, and one batch per answer as separate loads
			// would: the same keys.
			together := run(t, c.answers...)
			keys := map[string]bool{}
			for _, a := range c.answers {
				for _, k := range columnValues(run(t, a)["container_events"], "event_key") {
					keys[k] = true
				}
			}
			ev, obs := together["container_events"], together["event_observations"]
			if len(ev.rows) != c.events || len(obs.rows) != c.observations || len(keys) != c.events {
				t.Fatalf("%d events (%d keys over the answers) and %d observations, want %d and %d:\n%s",
					len(ev.rows), len(keys), len(obs.rows), c.events, c.observations, dump(together))
			}
			for col, want := range c.want {
				got := columnValues(ev, col)
				sort.Strings(got)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("container_events.%s = %v, want %v", col, got, want)
				}
			}
		})
	}
}
