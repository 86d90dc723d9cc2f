package transform_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// simAt is the virtual time of the simulator cases: ten days into the
// default world, when shipments are at every stage.
var simAt = sim.DefaultStart.Add(10 * 24 * time.Hour)

// TestWriteSimCases writes real bodies of the simulator's world into
// testdata/transform/sim_*, once: with -update, a case directory that does
// not exist yet is written; an existing one is left alone, so that the
// goldens do not move when the simulator evolves (delete a directory to
// refresh it).
func TestWriteSimCases(t *testing.T) {
	if !*update {
		t.Skip("writes missing simulator cases with -update")
	}
	w := sim.NewWorld(sim.WorldConfig{Seed: 1})
	write := func(name string, e wire.Endpoint, request string, body any) {
		dir := filepath.Join(casesDir, name)
		if _, err := os.Stat(dir); err == nil {
			return
		}
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		product := wire.ProductSchedule
		if e == wire.EndpointShipment {
			product = wire.ProductTracking
		}
		m, err := json.MarshalIndent(meta{Endpoint: e, Product: product, Request: request, Status: 200,
			ObservedAt: simAt, ResponseID: "r-" + name}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "meta.json"), append(m, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "body.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipmentRequest := func(number, typ, sealine string) string {
		return wire.TrackingBasePath + wire.DefaultPaths().Path(wire.EndpointShipment, nil) + "?" +
			wire.ShipmentQuery(number, typ, sealine).Encode()
	}
	schedulePath := func(e wire.Endpoint, vars map[string]string) string {
		return wire.ScheduleBasePath + wire.DefaultPaths().Path(e, vars)
	}

	var bl, predictive bool
	for _, ref := range w.Shipments() {
		s, err := w.Shipment(ref, simAt)
		if err != nil {
			continue
		}
		switch {
		case !bl && ref.Type == "BL" && len(s.Containers) > 1:
			bl = true
			write("sim_shipment_bl", wire.EndpointShipment, shipmentRequest(ref.Number, string(ref.Type), ref.Sealine), s)
		case !predictive && ref.Type == "CT" && s.Route != nil && s.Route.Pod != nil && s.Route.Pod.PredictiveETA != nil:
			predictive = true
			write("sim_shipment_ct_predictive", wire.EndpointShipment, shipmentRequest(ref.Number, string(ref.Type), ref.Sealine), s)
		}
	}
	if !bl || !predictive {
		t.Errorf("the world has no BL shipment with several containers (%v) or no CT shipment with a predictive ETA (%v)", bl, predictive)
	}

	for _, p := range w.Ports() {
		if s, err := w.PortSchedule(p.Locode, simAt); err == nil && len(s.VesselSchedules) > 2 {
			write("sim_port", wire.EndpointPortSchedule, schedulePath(wire.EndpointPortSchedule, map[string]string{"port": p.Locode}), s)
			break
		}
	}
	found := false
	for _, l := range w.Lanes() {
		s, err := w.PointToPoint(l.POL, l.POD, sim.P2PQuery{MaxTranshipment: -1}, simAt)
		if err != nil {
			continue
		}
		for _, r := range s.Routes {
			if len(r.Legs) > 1 && len(s.Routes) > 2 {
				found = true
			}
		}
		if found {
			write("sim_p2p", wire.EndpointP2PSchedule, schedulePath(wire.EndpointP2PSchedule, map[string]string{"pol": l.POL, "pod": l.POD}), s)
			break
		}
	}
	if !found {
		t.Error("no lane with a transhipment route")
	}
	for _, v := range w.Vessels() {
		if s, err := w.VesselSchedule(v.IMO, simAt); err == nil && len(s.TransportCalls) > 0 {
			write("sim_vessel", wire.EndpointVesselSchedule, schedulePath(wire.EndpointVesselSchedule, map[string]string{"imo": strconv.Itoa(v.IMO)}), s)
			break
		}
	}
}
