package extract

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/etalake/etalake/wire"
)

// The calls of the service. Each yields what it receives (Responses) and
// decodes none of it — the answers are the transform's to decode — but a
// current period's, which the client needs for its budget.

// answer asks r (its attempts handed over as they arrive) and goes no
// further with a 2xx body larger than MaxDecode, which its consumer does
// not decode: ErrTooLarge.
func (c *Client) answer(ctx context.Context, r *request, give hand) (*rawResponse, error) {
	raw, err := c.attempts(ctx, r, give)
	if err != nil {
		return raw, err
	}
	if n := raw.BodySize(); c.cfg.MaxDecode > 0 && n > c.cfg.MaxDecode {
		return raw, fmt.Errorf("%s %s: %w: %d bytes, more than %d", r.endpoint, raw.Request, ErrTooLarge, n, c.cfg.MaxDecode)
	}
	return raw, nil
}

// ask is answer for a call of one answer (no pages).
func (c *Client) ask(ctx context.Context, r *request, give hand) error {
	_, err := c.answer(ctx, r, give)
	return err
}

// PortSchedule asks the schedule of a port, every page of it (1 schedule
// credit a page). A code that is not 5 letters or digits is refused
// before any request.
func (c *Client) PortSchedule(ctx context.Context, port string) Responses {
	code, err := ParsePortCode(port)
	var r *request
	if err == nil {
		r, err = c.newRequest(wire.ProductSchedule, wire.EndpointPortSchedule, map[string]string{"port": code}, nil)
	}
	return c.responses(ctx, r, err, c.walkPages)
}

// P2POptions narrow a port-to-port query; the zero value asks the service's
// defaults.
type P2POptions struct {
	// DepartureStart and DepartureEnd are sent as dates (YYYY-MM-DD, UTC).
	DepartureStart, DepartureEnd time.Time
	// MaxTranshipment, when not nil, bounds the number of transhipments.
	MaxTranshipment *int
}

// PointToPoint asks the routes from pol to pod, every page of them (1
// schedule credit a page). Two equal ports, a window that ends before it
// starts and a negative maxTranshipment are refused before any request.
func (c *Client) PointToPoint(ctx context.Context, pol, pod string, opt P2POptions) Responses {
	r, err := c.p2pRequest(pol, pod, opt)
	return c.responses(ctx, r, err, c.walkPages)
}

func (c *Client) p2pRequest(pol, pod string, opt P2POptions) (*request, error) {
	from, err := ParsePortCode(pol)
	if err != nil {
		return nil, err
	}
	to, err := ParsePortCode(pod)
	if err != nil {
		return nil, err
	}
	if from == to {
		return nil, &InputError{Field: "port pair", Value: from + "-" + to, Want: "two different ports"}
	}
	q := url.Values{}
	if !opt.DepartureStart.IsZero() {
		q.Set("departureStartDate", opt.DepartureStart.UTC().Format(time.DateOnly))
	}
	if !opt.DepartureEnd.IsZero() {
		q.Set("departureEndDate", opt.DepartureEnd.UTC().Format(time.DateOnly))
	}
	if !opt.DepartureStart.IsZero() && !opt.DepartureEnd.IsZero() && opt.DepartureEnd.Before(opt.DepartureStart) {
		return nil, &InputError{Field: "departure window", Value: q.Get("departureStartDate") + ".." + q.Get("departureEndDate"), Want: "an end on or after the start"}
	}
	if opt.MaxTranshipment != nil {
		if *opt.MaxTranshipment < 0 {
			return nil, &InputError{Field: "maxTranshipment", Value: strconv.Itoa(*opt.MaxTranshipment), Want: "0 or more"}
		}
		q.Set("maxTranshipment", strconv.Itoa(*opt.MaxTranshipment))
	}
	return c.newRequest(wire.ProductSchedule, wire.EndpointP2PSchedule, map[string]string{"pol": from, "pod": to}, q)
}

// VesselSchedule asks a vessel's schedule by IMO number, every page of it
// (1 schedule credit a page). An IMO number with a bad check digit, or a
// number the profile does not take (ParseVessel), is refused before any
// request.
func (c *Client) VesselSchedule(ctx context.Context, imo int) Responses {
	_, err := ParseVessel(strconv.Itoa(imo), c.cfg.ScheduleAPI)
	var r *request
	if err == nil {
		r, err = c.newRequest(wire.ProductSchedule, wire.EndpointVesselSchedule, map[string]string{"imo": strconv.Itoa(imo)}, nil)
	}
	return c.responses(ctx, r, err, c.walkPages)
}

// Shipment asks a shipment's tracking (1 tracking credit). A reference
// that ParseShipmentRef refuses is refused before any request.
func (c *Client) Shipment(ctx context.Context, ref wire.ShipmentRef) Responses {
	ref, err := ParseShipmentRef(ref.Number, string(ref.Type), ref.Sealine)
	var r *request
	if err == nil {
		r, err = c.newRequest(wire.ProductTracking, wire.EndpointShipment, nil, wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine))
	}
	return c.responses(ctx, r, err, c.ask)
}

// CurrentPeriod asks the current consumption period of product p (free,
// but it takes a rate-limit slot). Once its consumer has taken the answer
// — the loop has gone on past it — the client decodes it, the one answer
// it decodes, for its budget: the period is then the budget's Reported(),
// and with a credit count it lowers the budget's cap to what the server
// says remains. A body that does not decode ends the sequence with an
// error matching ErrDecode.
func (c *Client) CurrentPeriod(ctx context.Context, p wire.Product) Responses {
	r, err := c.newRequest(p, wire.EndpointCurrentPeriod, nil, nil)
	if err == nil {
		err = c.hasConsumption(p)
	}
	return c.responses(ctx, r, err, func(ctx context.Context, r *request, give hand) error {
		raw, err := c.answer(ctx, r, give)
		if err != nil {
			return err
		}
		period, err := wire.DecodeCurrentPeriod(raw.Body)
		if err != nil {
			return fmt.Errorf("%s %s: %w", r.endpoint, raw.Request, err)
		}
		c.Budget(p).report(period)
		return nil
	})
}

// Periods asks the history of consumption periods of product p (free).
// The client does not decode it: it needs only the current period.
func (c *Client) Periods(ctx context.Context, p wire.Product) Responses {
	r, err := c.newRequest(p, wire.EndpointPeriods, nil, nil)
	if err == nil {
		err = c.hasConsumption(p)
	}
	return c.responses(ctx, r, err, c.ask)
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
