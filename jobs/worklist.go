package jobs

import "github.com/etalake/etalake/wire"

// Lane is a port pair for a port-to-port schedule.
type Lane struct{ POL, POD string }

func (l Lane) String() string { return l.POL + "-" + l.POD }

// Selection is what a run asks for: ports for by-port schedules, lanes for
// port-to-port schedules, vessels for by-vessel schedules, and shipments to
// track.
type Selection struct {
	Ports     []string
	Lanes     []Lane
	Vessels   []int
	Shipments []wire.ShipmentRef
}

// Empty reports whether nothing is selected.
func (s Selection) Empty() bool {
	return len(s.Ports) == 0 && len(s.Lanes) == 0 && len(s.Vessels) == 0 && len(s.Shipments) == 0
}
