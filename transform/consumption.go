package transform

import (
	"github.com/etalake/etalake/wire"
)

// addConsumption derives consumption_periods: one row for the current
// period, one per period of the history. The product is the response's.
func (b *Batch) addConsumption(a *add) {
	if a.r.Product == "" {
		b.deadLetter(a, "", "consumption response without a product")
		return
	}
	if a.r.Endpoint == wire.EndpointCurrentPeriod {
		p, err := wire.DecodeCurrentPeriod(a.r.Body)
		if err != nil {
			b.deadLetter(a, "", err.Error())
			return
		}
		b.period(a, "", p)
		return
	}
	list, err := wire.DecodePeriods(a.r.Body)
	if err != nil {
		b.deadLetter(a, "", err.Error())
		return
	}
	// wire.DecodePeriods accepts several shapes and sorts the periods
	// oldest first: periods[i] counts in that order, not the body's.
	for i := range list {
		b.period(a, indexed("periods", i), &list[i])
	}
}

// period buffers one consumption_periods row, or a dead letter at record
// when the period has no start.
func (b *Batch) period(a *add, record string, p *wire.ConsumptionPeriod) {
	if p.PeriodStart == nil {
		b.deadLetter(a, record, "consumption period without periodStart")
		return
	}
	start, ok := micros(*p.PeriodStart)
	if !ok {
		b.deadLetter(a, record, "consumption period with periodStart out of range")
		return
	}
	row := periodRow{
		observed:       observed{rid: a.r.ID},
		product:        b.strs.of(string(a.r.Product)),
		start:          start,
		end:            timeOf(p.PeriodEnd),
		creditsInitial: int64Of(p.CreditsInitial),
		credit:         int64Of(p.Credits),
		expired:        boolOf(p.Expired),
		obs:            a.obs,
	}
	put(a, b.periods, periodKey{row.product, row.start, row.obs}, row)
}
