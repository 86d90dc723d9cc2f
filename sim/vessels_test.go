package sim_test

import (
	"testing"

	"github.com/etalake/etalake/extract"
)

// mids are the Maritime Identification Digits of each flag the world uses.
var mids = map[string]int{
	"DK": 219, "SG": 563, "HK": 477, "MT": 248, "FR": 228, "LR": 636, "CN": 413, "PA": 352,
	"TW": 416, "GB": 232, "KR": 440, "DE": 211, "PT": 255, "JP": 431, "MH": 538, "IL": 428,
}

func TestVesselsHaveValidUniqueIdentities(t *testing.T) {
	w, tr := defaultWorld(t)
	vessels := w.Vessels()
	if len(vessels) < 200 {
		t.Fatalf("%d vessels", len(vessels))
	}
	imos, names, mmsis := map[int]bool{}, map[string]bool{}, map[int]bool{}
	perCarrier := map[string]int{}
	for _, v := range vessels {
		if !extract.ValidIMO(v.IMO) {
			t.Errorf("%s: IMO %d has an invalid check digit", v.Name, v.IMO)
		}
		if imos[v.IMO] || names[v.Name] || mmsis[v.MMSI] {
			t.Errorf("%s: IMO %d, name or MMSI %d not unique", v.Name, v.IMO, v.MMSI)
		}
		imos[v.IMO], names[v.Name], mmsis[v.MMSI] = true, true, true
		mid, ok := mids[v.Flag]
		if !ok || v.MMSI/1000000 != mid || v.MMSI < 100000000 || v.MMSI > 999999999 {
			t.Errorf("%s: MMSI %d does not start with the MID of flag %s", v.Name, v.MMSI, v.Flag)
		}
		if len(v.CallSign) < 4 || v.Service == "" {
			t.Errorf("%s: call sign %q, service %q", v.Name, v.CallSign, v.Service)
		}
		perCarrier[v.Carrier]++
	}
	for _, c := range tr.Carriers {
		if perCarrier[c.SCAC] != c.Vessels {
			t.Errorf("%s: %d vessels listed, truth says %d", c.SCAC, perCarrier[c.SCAC], c.Vessels)
		}
	}
}

func TestVesselSchedule(t *testing.T) {
	w, tr := defaultWorld(t)
	if _, err := w.VesselSchedule(9321483, start); err == nil {
		t.Error("unknown IMO: want ErrNoData")
	}
	checked := 0
	for _, v := range w.Vessels() {
		if !carrierTruth(t, tr, v.Carrier).Supports.Vessel {
			continue
		}
		vs, err := w.VesselSchedule(v.IMO, start)
		if err != nil && swappedOut(tr, v.IMO, start) {
			continue // its voyages in the window sailed by substitutes
		}
		if err != nil {
			t.Fatalf("VesselSchedule(%d): %v", v.IMO, err)
		}
		if vs.CarrierCode != v.Carrier || *vs.CarrierServiceCode != v.Service || *vs.Vessel.IMO != v.IMO {
			t.Errorf("vessel %d: carrier %s service %s", v.IMO, vs.CarrierCode, *vs.CarrierServiceCode)
		}
		for i, tc := range vs.TransportCalls {
			if tc.SequenceNumber != i+1 {
				t.Errorf("vessel %d: sequence %d at %d", v.IMO, tc.SequenceNumber, i)
			}
			pln := tc.Timestamps[0].EventDateTime
			if tc.Timestamps[0].EventClassifierCode != "PLN" || !inWindow(tc.Timestamps, start.AddDate(0, 0, -14), start.AddDate(0, 0, 42)) {
				t.Errorf("vessel %d: call planned %s outside [at − 14 d, at + 42 d]", v.IMO, pln)
			}
			if i > 0 && pln.Before(vs.TransportCalls[i-1].Timestamps[0].EventDateTime) {
				t.Errorf("vessel %d: calls out of order", v.IMO)
			}
			checkTimestamps(t, tc.Timestamps, start)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no vessel schedule checked")
	}
}
