package sim_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/etalake/etalake/extract"
)

func TestPortsAreRealAndWellFormed(t *testing.T) {
	w, _ := defaultWorld(t)
	ports := w.Ports()
	if len(ports) < 40 {
		t.Fatalf("%d ports, want at least 40", len(ports))
	}
	seen := map[string]bool{}
	unicodeNames := 0
	for i, p := range ports {
		code, err := extract.ParsePortCode(p.Locode)
		if err != nil || code != p.Locode {
			t.Errorf("port %q: not a normalised 5-character code (%v)", p.Locode, err)
		}
		if seen[p.Locode] {
			t.Errorf("port %s listed twice", p.Locode)
		}
		seen[p.Locode] = true
		if i > 0 && ports[i-1].Locode >= p.Locode {
			t.Errorf("ports not sorted at %s", p.Locode)
		}
		if _, err := time.LoadLocation(p.Timezone); err != nil {
			t.Errorf("port %s: time zone %q: %v", p.Locode, p.Timezone, err)
		}
		if p.CountryCode != p.Locode[:2] {
			t.Errorf("port %s: country code %s does not prefix the UN/LOCODE", p.Locode, p.CountryCode)
		}
		if p.Name == "" || p.Country == "" {
			t.Errorf("port %s: empty name or country", p.Locode)
		}
		if p.Lat < -90 || p.Lat > 90 || p.Lng < -180 || p.Lng > 180 || (p.Lat == 0 && p.Lng == 0) {
			t.Errorf("port %s: implausible coordinates %v,%v", p.Locode, p.Lat, p.Lng)
		}
		if utf8.RuneCountInString(p.Name) != len(p.Name) {
			unicodeNames++
		}
	}
	for _, want := range []string{"CNSHA", "NLRTM", "DEHAM", "SGSIN", "USLAX", "USNYC", "AEJEA", "MAPTM", "PAMIT"} {
		if !seen[want] {
			t.Errorf("port %s missing", want)
		}
	}
	if unicodeNames == 0 {
		t.Error("no port name outside ASCII; the transformer must see some")
	}
}

func TestPortScheduleFacilitiesBelongToThePort(t *testing.T) {
	w, _ := defaultWorld(t)
	for _, p := range []string{"NLRTM", "CNSHA", "USLAX", "SGSIN", "ESALG"} {
		ps, err := w.PortSchedule(p, start)
		if err != nil {
			t.Fatalf("PortSchedule(%s): %v", p, err)
		}
		if ps.Location.Locode != p || ps.Location.Timezone == "" || ps.Location.Coordinates == nil {
			t.Errorf("%s: location %+v", p, ps.Location)
		}
		for _, vs := range ps.VesselSchedules {
			f := vs.Facility
			if f == nil {
				t.Errorf("%s: call without terminal", p)
				continue
			}
			if f.Locode == nil || *f.Locode != p || f.CountryCode != p[:2] || f.Name == "" {
				t.Errorf("%s: facility %+v", p, f)
			}
			if f.BICCode != nil && !strings.HasPrefix(*f.BICCode, p) {
				t.Errorf("%s: BIC facility code %s does not start with the UN/LOCODE", p, *f.BICCode)
			}
		}
	}
}

func TestInlandPlacesAreNotPorts(t *testing.T) {
	w, _ := defaultWorld(t)
	for _, code := range []string{"DEDUI", "USCHI", "CZPRG"} {
		if _, err := w.PortSchedule(code, start); err == nil {
			t.Errorf("PortSchedule(%s): want ErrNoData for an inland place", code)
		}
		for _, p := range w.Ports() {
			if p.Locode == code {
				t.Errorf("Ports lists inland place %s", code)
			}
		}
	}
}
