package extract

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/etalake/etalake/wire"
)

// get makes the request and decodes a 2xx body. The raw response comes back
// whenever there was one, decoded or not, so the caller can land it.
func get[T any](ctx context.Context, c *Client, r *request, decode func([]byte) (T, error)) (T, *Raw, error) {
	var zero T
	raw, err := c.do(ctx, r)
	if err != nil {
		return zero, raw, err
	}
	if n := raw.BodySize(); c.cfg.MaxDecode > 0 && n > c.cfg.MaxDecode {
		return zero, raw, fmt.Errorf("%s %s: %w: %d bytes, more than %d", r.endpoint, raw.Request, ErrTooLarge, n, c.cfg.MaxDecode)
	}
	v, err := decode(raw.Body)
	if err != nil {
		return zero, raw, fmt.Errorf("%s %s: %w", r.endpoint, raw.Request, err)
	}
	return v, raw, nil
}

// schedules makes a paged schedule call and gathers its pages' items.
func schedules[T any](ctx context.Context, c *Client, r *request, decode func([]byte) (wire.Schedules[T], error)) (wire.Schedules[T], *Raw, error) {
	pages, raw, err := paged(ctx, c, r, decode)
	var all wire.Schedules[T]
	for _, p := range pages {
		all.Items = append(all.Items, p.Items...)
		all.Bad = append(all.Bad, p.Bad...)
		all.DCSA = all.DCSA || p.DCSA
	}
	return all, raw, err
}

// PortSchedule fetches the schedule of a port, every page of it (1
// schedule credit a page). A code that is not 5 letters or digits is
// refused before any request.
func (c *Client) PortSchedule(ctx context.Context, port string) (wire.Schedules[wire.PortSchedule], *Raw, error) {
	code, err := ParsePortCode(port)
	if err != nil {
		return wire.Schedules[wire.PortSchedule]{}, nil, err
	}
	r, err := c.newRequest(wire.ProductSchedule, wire.EndpointPortSchedule, map[string]string{"port": code}, nil)
	if err != nil {
		return wire.Schedules[wire.PortSchedule]{}, nil, err
	}
	return schedules(ctx, c, r, wire.DecodePortSchedules)
}

// P2POptions narrow a port-to-port query; the zero value asks the service's
// defaults.
type P2POptions struct {
	// DepartureStart and DepartureEnd are sent as dates (YYYY-MM-DD, UTC).
	DepartureStart, DepartureEnd time.Time
	// MaxTranshipment, when not nil, bounds the number of transhipments.
	MaxTranshipment *int
}

// PointToPoint fetches the routes from pol to pod, every page of them (1
// schedule credit a page).
func (c *Client) PointToPoint(ctx context.Context, pol, pod string, opt P2POptions) (wire.Schedules[wire.PointToPoint], *Raw, error) {
	var none wire.Schedules[wire.PointToPoint]
	from, err := ParsePortCode(pol)
	if err != nil {
		return none, nil, err
	}
	to, err := ParsePortCode(pod)
	if err != nil {
		return none, nil, err
	}
	if from == to {
		return none, nil, &InputError{Field: "port pair", Value: from + "-" + to, Want: "two different ports"}
	}
	q := url.Values{}
	if !opt.DepartureStart.IsZero() {
		q.Set("departureStartDate", opt.DepartureStart.UTC().Format(time.DateOnly))
	}
	if !opt.DepartureEnd.IsZero() {
		q.Set("departureEndDate", opt.DepartureEnd.UTC().Format(time.DateOnly))
	}
	if !opt.DepartureStart.IsZero() && !opt.DepartureEnd.IsZero() && opt.DepartureEnd.Before(opt.DepartureStart) {
		return none, nil, &InputError{Field: "departure window", Value: q.Get("departureStartDate") + ".." + q.Get("departureEndDate"), Want: "an end on or after the start"}
	}
	if opt.MaxTranshipment != nil {
		if *opt.MaxTranshipment < 0 {
			return none, nil, &InputError{Field: "maxTranshipment", Value: strconv.Itoa(*opt.MaxTranshipment), Want: "0 or more"}
		}
		q.Set("maxTranshipment", strconv.Itoa(*opt.MaxTranshipment))
	}
	r, err := c.newRequest(wire.ProductSchedule, wire.EndpointP2PSchedule, map[string]string{"pol": from, "pod": to}, q)
	if err != nil {
		return none, nil, err
	}
	return schedules(ctx, c, r, wire.DecodePointToPoints)
}

// VesselSchedule fetches a vessel's schedule by IMO number, every page of
// it (1 schedule credit a page). An IMO number with a bad check digit, or
// a number the profile does not take (ParseVessel), is refused before any
// request.
func (c *Client) VesselSchedule(ctx context.Context, imo int) (wire.Schedules[wire.VesselSchedule], *Raw, error) {
	if _, err := ParseVessel(strconv.Itoa(imo), c.cfg.ScheduleAPI); err != nil {
		return wire.Schedules[wire.VesselSchedule]{}, nil, err
	}
	r, err := c.newRequest(wire.ProductSchedule, wire.EndpointVesselSchedule, map[string]string{"imo": strconv.Itoa(imo)}, nil)
	if err != nil {
		return wire.Schedules[wire.VesselSchedule]{}, nil, err
	}
	return schedules(ctx, c, r, wire.DecodeVesselSchedules)
}

// Shipment fetches a shipment's tracking (1 tracking credit).
func (c *Client) Shipment(ctx context.Context, ref wire.ShipmentRef) (*wire.Shipment, *Raw, error) {
	ref, err := ParseShipmentRef(ref.Number, string(ref.Type), ref.Sealine)
	if err != nil {
		return nil, nil, err
	}
	q := wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine)
	r, err := c.newRequest(wire.ProductTracking, wire.EndpointShipment, nil, q)
	if err != nil {
		return nil, nil, err
	}
	return get(ctx, c, r, wire.DecodeShipment)
}

// CurrentPeriod fetches the current consumption period of product p (free,
// but it takes a rate-limit slot). A successful answer with a credit count
// also lowers the product's budget cap to what the server says remains.
func (c *Client) CurrentPeriod(ctx context.Context, p wire.Product) (*wire.ConsumptionPeriod, *Raw, error) {
	r, err := c.newRequest(p, wire.EndpointCurrentPeriod, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasConsumption(p); err != nil {
		return nil, nil, err
	}
	period, raw, err := get(ctx, c, r, wire.DecodeCurrentPeriod)
	if err == nil && period.Credits != nil {
		c.Budget(p).SetServerRemaining(max(*period.Credits, 0))
	}
	return period, raw, err
}

// Periods fetches the history of consumption periods of product p, oldest
// first (free).
func (c *Client) Periods(ctx context.Context, p wire.Product) ([]wire.ConsumptionPeriod, *Raw, error) {
	r, err := c.newRequest(p, wire.EndpointPeriods, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasConsumption(p); err != nil {
		return nil, nil, err
	}
	return get(ctx, c, r, wire.DecodePeriods)
}

// hasConsumption refuses, before any request, the consumption calls of a
// product whose provider has none.
func (c *Client) hasConsumption(p wire.Product) error {
	if p == wire.ProductSchedule && !c.cfg.ScheduleAPI.HasConsumption() {
		return fmt.Errorf("%w: %s (schedule API %s)", ErrNoConsumption, p, c.cfg.ScheduleAPI)
	}
	return nil
}

// ScheduleAPI is the schedule product's profile.
func (c *Client) ScheduleAPI() wire.ScheduleAPI { return c.cfg.ScheduleAPI }
