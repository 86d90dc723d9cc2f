package wire_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/etalake/etalake/wire"
)

// The decoders face whatever a server sends: no panic, and either an error
// matching ErrDecode or a value that encodes again.
func FuzzDecoders(f *testing.F) {
	seeds := []string{
		`{"route":{"pod":{"date":"2026-03-05T14:00:00Z","actual":false,"predictiveEta":null}},"containers":[]}`,
		`{"data":{"containers":[{"number":"X","events":[{"date":null}]}]}}`,
		`{"location":null,"vesselSchedules":[{"timestamps":[{"eventDateTime":"2026-01-01T00:00:00Z"}]}]}`,
		`{"routes":[{"legs":[{"departure":null}]}]}`,
		`{"transportCalls":[]}`,
		`{"creditsInitial":"5","credits":1e3,"periodStart":1700000000}`,
		`[{"credits":1},{"credits":2}]`,
		`{"periods":[{"credits":"x"}]}`,
		`[{"location":{"UNLocationCode":"nlams","facilitySMDGCode":"ACT"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU"}],"vessel":{"vesselIMONumber":"9321483"},"timestamps":[]},null,7]}]`,
		`[{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"legs":[{"transport":{"modeOfTransport":"RAIL"}},{"transport":{"modeOfTransport":"BARGE","barge":{"vesselIMONumber":9321483}}}]}]`,
		`[{"carrierServiceCode":"FE1","vesselSchedules":[{"vessel":{"vesselIMONumber":"x"},"transportCalls":[{"location":null}]}]},"x"]`,
		`{"containerDetails":{"metadata":{"updatedAt":"2024-01-18 10:00:00"},"route":{"pol":{"location":{"locode":"CNSHA","timezone":"Asia/Shanghai"},"date":"2023-12-31T05:39:00"}},"containers":[]}}`,
		`{"containers":[{"number":"X","events":[{"location":{"locode":"SGSIN","timezone":"Nowhere/Else"},"date":"2024-01-06 10:00","isActual":null,"vessel":{"imo":"IMO 9321483","mmsi":1.5e9}},5,{"date":7}]}]}`,
		// Schedules beyond the contracts (issue 29): DCSA items sent bare,
		// naive dates, IMO prefixes, one element of the wrong kind.
		`{"location":{"UNLocationCode":"nlams"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"maeu"}],"vessel":{"vesselIMONumber":"IMO9321483"},"isDummyVessel":false,"timestamps":[{"eventTypeCode":"arri","eventClassifierCode":"pln","eventDateTime":"2025-01-14T09:21:00"},{"eventDateTime":"soon"},7]}]}`,
		`{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"legs":[{"transport":{"vessel":{"vesselIMONumber":23162713}},"departure":{"location":{"UNLocationCode":"NLAMS"},"dateTime":"2025-01-15 18:00"},"arrival":5}]}`,
		`{"carrierServiceCode":"FE1","vesselSchedules":[{"vessel":{"vesselIMONumber":"imo 9321483"},"transportCalls":[{"location":{"UNLocationCode":"DEHAM"},"timestamps":{}},null]}]}`,
		`{"location":{"locode":"NLRTM"},"vesselSchedules":[{"vessel":{"imo":"IMO 9321483"},"timestamps":[{"eventDateTime":"2026-03-01 06:00"}]}]}`,
		`{"placeOfDelivery":{"locode":"NLRTM","timezone":"Europe/Amsterdam"},"routes":[{"transitTime":"31","legs":[{"departure":{"dateTime":"x"},"arrival":{"location":{"locode":"nlrtm"},"dateTime":"2026-03-01T06:00"}}]},"r"]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(v any, err error) {
			if err != nil {
				if !errors.Is(err, wire.ErrDecode) {
					t.Fatalf("error %v does not match ErrDecode", err)
				}
				return
			}
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("decoded value does not encode: %v", err)
			}
		}
		check(wire.DecodeShipment(body))
		check(wire.DecodePortSchedules(body))
		check(wire.DecodePointToPoints(body))
		check(wire.DecodeVesselSchedules(body))
		check(wire.DecodeCurrentPeriod(body))
		check(wire.DecodePeriods(body))
	})
}
