package jobs

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/etalake/etalake/internal/setting"
)

// Shard is the part of a key's work one of Count workers asks (--shard
// I/N): a resource belongs to the worker whose Index is 1 + the FNV-1a
// 64-bit hash of its name (Resource.String: port:NLRTM, p2p:CNSHA-NLRTM,
// vessel:9321483, shipment:CT:MSCU1234566) modulo Count. The name holds
// no key, no date and no sealine, so the split is the same every night
// and on every machine, and N workers given the same selection and the
// same tracked set ask each resource exactly once. The zero Shard (and
// 1/1) is everything.
type Shard struct{ Index, Count int }

// MaxShards bounds Count: past it a worker's part is a handful of
// resources, and the fleet's cost is its processes, not its requests.
const MaxShards = 1024

// ParseShard reads I/N: 1 ≤ I ≤ N ≤ MaxShards ("" is everything).
func ParseShard(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, setting.Refuse("Shard", strconv.Quote(s), fmt.Sprintf("I/N, this worker's part I of N workers (1 ≤ I ≤ N ≤ %d), such as 2/4", MaxShards))
	}
	sh := Shard{Index: index, Count: count}
	return sh, sh.Validate()
}

// Validate refuses a part that is none of its workers' (the zero Shard
// is everything).
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Count > MaxShards || s.Index < 1 || s.Index > s.Count {
		return setting.Refuse("Shard", s.String(), fmt.Sprintf("I/N, this worker's part I of N workers (1 ≤ I ≤ N ≤ %d), such as 2/4", MaxShards))
	}
	return nil
}

// Whole reports whether the shard is everything (no --shard, or 1/1).
func (s Shard) Whole() bool { return s.Count <= 1 }

// String is I/N; everything is 1/1.
func (s Shard) String() string {
	if s == (Shard{}) {
		return "1/1"
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// Has reports whether the resource named name (Resource.String) is this
// shard's.
func (s Shard) Has(name string) bool {
	if s.Whole() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// ShardPlan is what a worker's shard takes of what it was given: of each
// kind, the resources that are its own (Mine) and all of them (Of).
type ShardPlan struct {
	Shard                            Shard
	Tracked                          Part // the tracked set's active shipments (the nightly run)
	Ports, Lanes, Vessels, Shipments Part
}

// Part is Mine of Of.
type Part struct{ Mine, Of int }

// split keeps the shard's part of sel, and counts it.
func (s Shard) split(sel Selection) (Selection, ShardPlan) {
	sp := ShardPlan{Shard: s}
	var out Selection
	out.Ports = keep(sel.Ports, s, portResource, &sp.Ports)
	out.Lanes = keep(sel.Lanes, s, laneResource, &sp.Lanes)
	out.Vessels = keep(sel.Vessels, s, vesselResource, &sp.Vessels)
	out.Shipments = keep(sel.Shipments, s, shipmentResource, &sp.Shipments)
	return out, sp
}

// keep is the items of in that are shard s's, counted in p.
func keep[T any](in []T, s Shard, resource func(T) Resource, p *Part) []T {
	var out []T
	for _, v := range in {
		p.Of++
		if s.Has(resource(v).String()) {
			p.Mine++
			out = append(out, v)
		}
	}
	return out
}
