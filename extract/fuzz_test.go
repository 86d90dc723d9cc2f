package extract_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/etalake/etalake/extract"
)

// The validators decide what is sent; they must never panic and must only
// accept what they document.
func FuzzParsePortCode(f *testing.F) {
	for _, s := range []string{"NLRTM", "nlrtm", "NLRT", " DEHAM ", "ÄÖÜ12", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, err := extract.ParsePortCode(s)
		if err != nil {
			if !errors.Is(err, extract.ErrInvalidInput) {
				t.Fatalf("error %v is not an input error", err)
			}
			return
		}
		if len(code) != 5 {
			t.Fatalf("accepted %q as %q", s, code)
		}
		for _, c := range code {
			if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				t.Fatalf("accepted %q as %q", s, code)
			}
		}
		if again, err := extract.ParsePortCode(code); err != nil || again != code {
			t.Fatalf("not idempotent: %q → %q → %q, %v", s, code, again, err)
		}
	})
}

func FuzzParseIMO(f *testing.F) {
	for _, s := range []string{"9074729", "IMO 9321483", "9074728", "", "IMO"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := extract.ParseIMO(s)
		if err != nil {
			return
		}
		if !extract.ValidIMO(n) || len(strconv.Itoa(n)) != 7 {
			t.Fatalf("accepted %q as %d", s, n)
		}
	})
}

func FuzzParseShipmentRef(f *testing.F) {
	f.Add("CSQU3054383", "CT", "")
	f.Add("MAEU123456789", "BL", "MAEU")
	f.Add("x", "BK", "zz")
	f.Fuzz(func(t *testing.T, number, typ, sealine string) {
		ref, err := extract.ParseShipmentRef(number, typ, sealine)
		if err != nil {
			if !errors.Is(err, extract.ErrInvalidInput) {
				t.Fatalf("error %v is not an input error", err)
			}
			return
		}
		again, err := extract.ParseShipmentRef(ref.Number, string(ref.Type), ref.Sealine)
		if err != nil || again != ref {
			t.Fatalf("not idempotent: %+v → %+v, %v", ref, again, err)
		}
	})
}
