package jobs

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// A resource is given up for a logical date once MaxReasks jobs asked it
// in vain: its answer stayed broken in transfer (each job asking it at
// most 3 times, see extract.RetryPolicy.MaxBrokenAttempts) or its walk
// through pages stopped short. A given-up resource is not forgotten:
//
//   - a job of the date asks it once more when the service has answered
//     its product well since its last failure: a later job got a whole
//     paid answer of the product and none of that job's answers of the
//     product stayed broken or stopped paging (load.FailedAsk.Recovered);
//   - else a job of the date holds it back, asks the rest, and asks it
//     once more at the end when the product's answers in this job all
//     came whole (at least one, none broken or stopped), if the product
//     did not stop and its budget affords it;
//   - else it stays given up, named with the command that asks it again
//     now (--reask) in the summary, the stop reason, etl_runs.given_up and
//     data_freshness.
//
// So a resource broken for good costs at most 3 paid asks in each job that
// asks it, and no more jobs of its date than MaxReasks plus one for each
// sign that the service recovered.

// DefaultReaskCommand is the command that asks resources (by their --reask
// names) again for a logical date, when RunOptions.ReaskCommand is not
// set: a backfill of the date that asks only them.
func DefaultReaskCommand(logical time.Time, names []string) string {
	return fmt.Sprintf("etalake backfill --date %s --reask %s", logical.Format(time.DateOnly), strings.Join(names, ","))
}

// reaskForms is how the --reask names are written, for errors.
const reaskForms = "port:LOCODE, p2p:POL-POD, vessel:IMO or shipment:TYPE:NUMBER[:SEALINE] (port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483, shipment:CT:MSCU1234566:MSCU)"

// ParseResource reads a resource as --reask takes it — the name
// raw_responses.resource, the summary and data_freshness give it, a
// shipment's followed by the sealine it is asked with, if any — into a
// selection of that one resource.
func ParseResource(s string) (Selection, error) {
	kind, id, _ := strings.Cut(strings.TrimSpace(s), ":")
	bad := func(err error) (Selection, error) {
		if err != nil {
			return Selection{}, fmt.Errorf("invalid resource %q: %v", s, err)
		}
		return Selection{}, fmt.Errorf("invalid resource %q: want %s", s, reaskForms)
	}
	switch Kind(strings.ToLower(kind)) {
	case KindPort:
		code, err := extract.ParsePortCode(id)
		if err != nil {
			return bad(err)
		}
		return Selection{Ports: []string{code}}, nil
	case KindLane:
		a, b, ok := strings.Cut(id, "-")
		if !ok {
			return bad(nil)
		}
		pol, err := extract.ParsePortCode(a)
		if err != nil {
			return bad(err)
		}
		pod, err := extract.ParsePortCode(b)
		if err != nil {
			return bad(err)
		}
		if pol == pod {
			return bad(fmt.Errorf("want two different ports"))
		}
		return Selection{Lanes: []Lane{{POL: pol, POD: pod}}}, nil
	case KindVessel:
		imo, err := extract.ParseIMO(id)
		if err != nil {
			return bad(err)
		}
		return Selection{Vessels: []int{imo}}, nil
	case KindShipment:
		parts := strings.Split(id, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return bad(nil)
		}
		sealine := ""
		if len(parts) == 3 {
			sealine = parts[2]
		}
		ref, err := extract.ParseShipmentRef(parts[1], parts[0], sealine)
		if err != nil {
			return bad(err)
		}
		return Selection{Shipments: []wire.ShipmentRef{ref}}, nil
	}
	return bad(nil)
}

// With is s and o's resources together.
func (s Selection) With(o Selection) Selection {
	return Selection{
		Ports:     append(append([]string(nil), s.Ports...), o.Ports...),
		Lanes:     append(append([]Lane(nil), s.Lanes...), o.Lanes...),
		Vessels:   append(append([]int(nil), s.Vessels...), o.Vessels...),
		Shipments: append(append([]wire.ShipmentRef(nil), s.Shipments...), o.Shipments...),
	}
}

// reaskName is the name --reask takes for a shipment: its resource and
// the sealine it is asked with.
func reaskName(ref wire.ShipmentRef) string {
	name := shipmentResource(ref).String()
	if ref.Sealine != "" {
		name += ":" + ref.Sealine
	}
	return name
}

// command is the command that asks the resources named again for the
// run's date.
func (r *runner) command(names []string) string {
	if r.opt.ReaskCommand != nil {
		return r.opt.ReaskCommand(r.logical, names)
	}
	return DefaultReaskCommand(r.logical, names)
}

// answeredWell reports whether the product's paid answers in this job so
// far all came whole: at least one, none that stayed broken or stopped
// paging.
func (r *runner) answeredWell(p wire.Product) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.whole[p] > 0 && r.inVain[p] == 0
}

// askHeld asks once the resources held back as given up whose product
// this job answered well (see answeredWell), when the product has not
// stopped and its budget affords the least their answer costs; the others
// stay given up.
func (r *runner) askHeld(ctx context.Context) error {
	var now, still []workItem
	for _, it := range r.held {
		r.mu.Lock()
		_, stopped := r.res.Stopped[it.product]
		r.mu.Unlock()
		left := r.client.Budget(it.product).State().Remaining()
		need := int64(max(1, it.pages.low))
		if !stopped && r.answeredWell(it.product) && (left == extract.Unlimited || left >= need) {
			now = append(now, it)
		} else {
			still = append(still, it)
		}
	}
	r.held = still
	if len(now) == 0 {
		return nil
	}
	for _, it := range now {
		r.res.Reopened = append(r.res.Reopened, it.resource.String())
	}
	r.log.Info("run: asking again resources given up for the date: the service answered their product well in this job",
		"resources", len(now), "first", now[0].resource.String())
	return r.fetch(ctx, now)
}

// givenUp lists what is given up for the date as the job ends: the
// resources held back and not asked, and those asked in vain for the
// MaxReasks-th time or more; each with the command that asks it again.
func (r *runner) givenUp() []load.GivenUp {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]load.GivenUp(nil), r.spent...)
	for _, it := range r.held {
		f := r.failed[it.resource.String()]
		out = append(out, load.GivenUp{Resource: it.resource.String(), FailedJobs: f.Jobs, Why: f.Why, Command: r.command([]string{it.askAs})})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}

// spend records that it was asked in vain (why) in this job: given up
// once that makes MaxReasks jobs. Called with r.mu held.
func (r *runner) spend(it workItem, why string) {
	r.inVain[it.product]++
	if it.failed+1 < r.opt.MaxReasks {
		return
	}
	r.spent = append(r.spent, load.GivenUp{Resource: it.resource.String(), FailedJobs: it.failed + 1, Why: why, Asked: true,
		Command: r.command([]string{it.askAs})})
}

// reaskAll is the command that asks every resource given up again; ""
// when none is.
func (r *runner) reaskAll() string {
	if len(r.run.GivenUp) == 0 {
		return ""
	}
	names := make([]string, len(r.run.GivenUp))
	for i, g := range r.run.GivenUp {
		names[i] = r.askAs[g.Resource]
	}
	return r.command(names)
}
