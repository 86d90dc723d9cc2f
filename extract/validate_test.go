package extract_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

func TestParsePortCode(t *testing.T) {
	for in, want := range map[string]string{"NLRTM": "NLRTM", "nlrtm": "NLRTM", " deham\n": "DEHAM", "US2AB": "US2AB"} {
		got, err := extract.ParsePortCode(in)
		if err != nil || got != want {
			t.Errorf("ParsePortCode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "NLRT", "NLRTMX", "NL-RT", "NL RT", "ÄLRTM", "NLRT\x00"} {
		_, err := extract.ParsePortCode(in)
		var ie *extract.InputError
		if !errors.As(err, &ie) || !errors.Is(err, extract.ErrInvalidInput) {
			t.Errorf("ParsePortCode(%q) err = %v, want an InputError", in, err)
			continue
		}
		if !strings.Contains(err.Error(), "port code") || !strings.Contains(err.Error(), "5 letters or digits") {
			t.Errorf("error %q does not name the input and what was expected", err)
		}
	}
}

func TestIMO(t *testing.T) {
	// Published examples: 9074729 (IMO's own), 9321483.
	for _, n := range []int{9074729, 9321483} {
		if !extract.ValidIMO(n) {
			t.Errorf("ValidIMO(%d) = false", n)
		}
	}
	for _, n := range []int{9074728, 907472, 19074729, 0, -9074729} {
		if extract.ValidIMO(n) {
			t.Errorf("ValidIMO(%d) = true", n)
		}
	}
	for in, want := range map[string]int{"9074729": 9074729, "IMO 9074729": 9074729, "imo9074729": 9074729} {
		if got, err := extract.ParseIMO(in); err != nil || got != want {
			t.Errorf("ParseIMO(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"9074728", "074729", "90747290", "IMO", "+907472", "9O74729"} {
		if _, err := extract.ParseIMO(in); !errors.Is(err, extract.ErrInvalidInput) {
			t.Errorf("ParseIMO(%q) err = %v", in, err)
		}
	}
}

func TestParseShipmentRef(t *testing.T) {
	ref, err := extract.ParseShipmentRef(" csqu3054383 ", "", "maeu")
	if err != nil || ref != (wire.ShipmentRef{Number: "CSQU3054383", Type: wire.ShipmentContainer, Sealine: "MAEU"}) {
		t.Fatalf("ref = %+v, %v", ref, err)
	}
	if ref, err := extract.ParseShipmentRef("MAEU123456789", "bl", ""); err != nil || ref.Type != wire.ShipmentBillOfLading {
		t.Fatalf("BL ref = %+v, %v", ref, err)
	}
	// A check digit that fails is a warning: the number is tracked and
	// asked, the service may know it.
	ref, err = extract.ParseShipmentRef("TEMU1234567", "CT", "")
	if err != nil {
		t.Fatalf("TEMU1234567 refused: %v; want it accepted with a warning", err)
	}
	if w := extract.CheckDigitWarning(ref); !strings.Contains(w, "check digit should be 5, not 7") || !strings.Contains(w, "asked anyway") {
		t.Errorf("warning for TEMU1234567: %q", w)
	}
	if w := extract.CheckDigitWarning(wire.ShipmentRef{Number: "CSQU3054383", Type: wire.ShipmentContainer}); w != "" {
		t.Errorf("a valid number warns: %q", w)
	}
	bad := []struct{ number, typ, sealine, mentions string }{
		{"CSQU305438", "CT", "", "4 letters and 7 digits"},
		{"CSQ13054383", "CT", "", "4 letters and 7 digits"},
		{"X", "BK", "", "3 to 35"},
		{"MAEU123", "XX", "", "CT (container)"},
		{"MAEU123456789", "BL", "MAERSK", "SCAC"},
		{"MAEU 123", "BL", "", "letters, digits or dashes"},
	}
	for _, b := range bad {
		_, err := extract.ParseShipmentRef(b.number, b.typ, b.sealine)
		if !errors.Is(err, extract.ErrInvalidInput) || !strings.Contains(err.Error(), b.mentions) {
			t.Errorf("ParseShipmentRef(%q,%q,%q) err = %v, want mention of %q", b.number, b.typ, b.sealine, err, b.mentions)
		}
	}
}
