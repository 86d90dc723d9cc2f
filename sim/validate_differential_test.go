package sim_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// The client (package extract) refuses bad input before sending it, and the
// simulator refuses it again with its own checks, written from the spec. The
// two must draw the same line on what the client sends: the client never
// sends what the service refuses (a wasted rate-limit slot) and never
// refuses what the service would take. The client normalises before
// sending (surrounding space dropped, letters upper-cased, an "IMO" prefix
// dropped), so the service's checks are applied to the normalised form.

// portAsSent is the path parameter the client sends for a port code the
// user wrote s (ParsePortCode's documented normalisation).
func portAsSent(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

func checkPortAgreement(t *testing.T, s string) {
	code, err := extract.ParsePortCode(s)
	simCode, simOK := sim.CheckPortCode(portAsSent(s))
	switch {
	case err == nil && !simOK:
		t.Errorf("port %q: the client sends %q, the service refuses it", s, code)
	case err != nil && simOK:
		t.Errorf("port %q: the client refuses it (%v), the service takes %q", s, err, portAsSent(s))
	case err == nil && code != simCode:
		t.Errorf("port %q: the client means %q, the service reads %q", s, code, simCode)
	}
	// What the service takes as written, the client takes as the same port.
	if raw, ok := sim.CheckPortCode(s); ok {
		if code, err := extract.ParsePortCode(s); err != nil || code != raw {
			t.Errorf("port %q: the service reads %q, the client %q, %v", s, raw, code, err)
		}
	}
}

// imoAsSent is the path parameter the client sends for an IMO number the
// user wrote s (ParseIMO's documented notation: "9321483" or "IMO 9321483").
func imoAsSent(s string) string {
	t := strings.TrimSpace(s)
	if len(t) >= 3 && strings.EqualFold(t[:3], "IMO") {
		t = strings.TrimSpace(t[3:])
	}
	return t
}

func checkIMOAgreement(t *testing.T, s string, n int) {
	imo, err := extract.ParseIMO(s)
	simIMO, simOK := sim.CheckIMO(imoAsSent(s))
	switch {
	case err == nil && !simOK:
		t.Errorf("IMO %q: the client sends %q, the service refuses it", s, imoAsSent(s))
	case err != nil && simOK:
		t.Errorf("IMO %q: the client refuses it (%v), the service takes %q", s, err, imoAsSent(s))
	case err == nil && imo != simIMO:
		t.Errorf("IMO %q: the client means %d, the service reads %d", s, imo, simIMO)
	}
	// Client.VesselSchedule takes an int: ValidIMO decides, strconv.Itoa
	// writes the path.
	sent := strconv.Itoa(n)
	got, ok := sim.CheckIMO(sent)
	if extract.ValidIMO(n) != ok || ok && got != n {
		t.Errorf("IMO %d: ValidIMO = %v, the service reads %q as %d, %v", n, extract.ValidIMO(n), sent, got, ok)
	}
}

// goodNumber is a shipment number of a shape the client accepts for the
// type, to tell a refusal for the number's shape from one for the type or
// sealine.
func goodNumber(typ wire.ShipmentType) string {
	if typ == wire.ShipmentContainer || typ == "" {
		return "CSQU3054383"
	}
	return "MAEU123456789"
}

func checkShipmentAgreement(t *testing.T, number, typ, sealine string) {
	// What the client sends, the service reads as the same shipment.
	if ref, err := extract.ParseShipmentRef(number, typ, sealine); err == nil {
		got, ok := sim.CheckShipmentQuery(wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine))
		if !ok || got != ref {
			t.Errorf("shipment %q/%q/%q: the client sends %+v, the service reads %+v, %v", number, typ, sealine, ref, got, ok)
		}
	}
	// On the type and the sealine they draw the same line. The number is
	// the one place the client is stricter than the service, on purpose:
	// it checks the shape (ISO 6346 for a container, 3 to 35 letters,
	// digits or dashes for a document) where the service only requires a
	// number and answers an unknown one with a 404 that costs a call. So
	// the type and sealine are compared with a number of good shape.
	up := func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
	good := goodNumber(wire.ShipmentType(up(typ)))
	_, err := extract.ParseShipmentRef(good, typ, sealine)
	simRef, simOK := sim.CheckShipmentQuery(wire.ShipmentQuery(good, up(typ), up(sealine)))
	switch {
	case err == nil && !simOK:
		t.Errorf("shipment type %q, sealine %q: the client takes them, the service refuses them", typ, sealine)
	case err != nil && simOK:
		t.Errorf("shipment type %q, sealine %q: the client refuses them (%v), the service reads %+v", typ, sealine, err, simRef)
	}
}

// checkAuthAgreement: one ETALAKE_AUTH is read by the client (where it
// sends the key) and by `sim serve` (where it wants it), each with its own
// code. They must take and refuse the same settings, and read a setting
// taken as the same place.
func checkAuthAgreement(t *testing.T, s string) {
	client, err := extract.ParseAuth(s)
	service, simErr := sim.ParseAuth(s)
	switch {
	case err == nil && simErr != nil:
		t.Errorf("auth %q: the client sends the key as %s, the simulator refuses the setting: %v", s, client, simErr)
	case err != nil && simErr == nil:
		t.Errorf("auth %q: the client refuses it (%v), the simulator wants the key as %s", s, err, service)
	case err == nil && client.String() != service.String():
		t.Errorf("auth %q: the client sends the key as %s, the simulator wants it as %s", s, client, service)
	}
}

// portInputs, imoInputs, shipmentInputs and authInputs are the edges of
// each rule, and the seeds of the fuzz targets.
var (
	portInputs = []string{
		"NLRTM", "nlrtm", " DEHAM\n", "US2AB", "", "NLRT", "NLRTMX", "NL-RT",
		"NL RT", "ÄLRTM", "NLRT\x00", "\tnlrtm ", "12345", "nlrtſ", "ıNLRT",
	}
	imoInputs = []struct {
		s string
		n int
	}{
		{"9074729", 9074729}, {"IMO 9321483", 9321483}, {"imo9074729", 0},
		{"9074728", 9074728}, {"0000000", 0}, {"+907472", -907472},
		{"IMO", 1000000}, {"", 9999999}, {"9O74729", 19074729},
		{" 9074420 ", 9074420}, {"IMOIMO9074729", 907472},
	}
	shipmentInputs = [][3]string{
		{"CSQU3054383", "CT", ""}, {" csqu3054383 ", "", "maeu"},
		{"MAEU123456789", "BL", "MAEU"}, {"MAEU123456789", "bl", ""},
		{"X", "BK", ""}, {"MAEU123", "XX", ""}, {"MAEU123456789", "BL", "MAERSK"},
		{"MAEU123456789", "BL", "MAERS"},
		{"MAEU 123", "BL", ""}, {"", "", ""}, {"CSQU3054384", "CT", ""},
		{"MAEU123456789", "BK", "M"}, {"MAEU123456789", "BK", "MAE1"},
		{"MAEU123456789", " bk ", " zz "}, {"x", "CT", "ſcac"},
	}
	authInputs = []string{
		"", "api-key", " API-Key ", "bearer", "Bearer", "basic", "header", "header:", "header: ",
		"header:X-API-Key", " header : x-api-key ", "header:Authorization", "header:X API", "header:Host",
		"header:host", "header:Content-Length", "header:user-agent", "header:Proxy-Authorization",
		"header:Te", "header:Schlüssel", "header:X-Key:Bearer", "header:X-Key's", "header:(key)",
		"bearer:x", "api-key:x", ":", "header:\xff", "header:API_KEY",
	}
)

func TestClientAndServiceValidatorsAgree(t *testing.T) {
	t.Run("port code", func(t *testing.T) {
		for _, s := range portInputs {
			checkPortAgreement(t, s)
		}
	})
	t.Run("IMO", func(t *testing.T) {
		for _, in := range imoInputs {
			checkIMOAgreement(t, in.s, in.n)
		}
	})
	t.Run("shipment", func(t *testing.T) {
		for _, in := range shipmentInputs {
			checkShipmentAgreement(t, in[0], in[1], in[2])
		}
	})
	t.Run("auth", func(t *testing.T) {
		for _, s := range authInputs {
			checkAuthAgreement(t, s)
		}
	})
}

// go test -tags duckdb_arrow -run '^$' -fuzz FuzzPortCodeAgreement ./sim/
func FuzzPortCodeAgreement(f *testing.F) {
	for _, s := range portInputs {
		f.Add(s)
	}
	f.Fuzz(checkPortAgreement)
}

// go test -tags duckdb_arrow -run '^$' -fuzz FuzzIMOAgreement ./sim/
func FuzzIMOAgreement(f *testing.F) {
	for _, in := range imoInputs {
		f.Add(in.s, in.n)
	}
	f.Fuzz(checkIMOAgreement)
}

// go test -tags duckdb_arrow -run '^$' -fuzz FuzzShipmentAgreement ./sim/
func FuzzShipmentAgreement(f *testing.F) {
	for _, in := range shipmentInputs {
		f.Add(in[0], in[1], in[2])
	}
	f.Fuzz(checkShipmentAgreement)
}

// go test -tags duckdb_arrow -run '^$' -fuzz FuzzAuthAgreement ./sim/
func FuzzAuthAgreement(f *testing.F) {
	for _, s := range authInputs {
		f.Add(s)
	}
	f.Fuzz(checkAuthAgreement)
}
