package report

import (
	"fmt"
	"strconv"
)

func (r *Report) horizonSection() section {
	s := section{
		ID:    secHorizon,
		Title: "Error by horizon: MAE of the carrier's ETA, hours",
		Intro: "How the error shrinks as arrival nears: the mean absolute error of the ETA each carrier gave " +
			"that many days before arrival; in brackets, the shipments with a usable ETA then.",
	}
	if r.Span.Arrived == 0 {
		s.Missing = sentence(missingArrivals)
		return s
	}
	t := &table{Cols: []column{{Name: "carrier"}}}
	for _, h := range r.Horizons {
		t.Cols = append(t.Cols, column{Name: days(h), Right: true, Heat: true}, column{Sub: true})
	}
	row := func(c CarrierAccuracy, name string) []string {
		cells := []string{name}
		for _, h := range r.Horizons {
			a := c.ETA[h]
			if a.N == 0 {
				cells = append(cells, none, "")
				continue
			}
			cells = append(cells, hours(a.MAEHours), "("+strconv.Itoa(a.N)+")")
		}
		return cells
	}
	for _, c := range r.Carriers {
		t.Rows = append(t.Rows, row(c, c.Carrier))
	}
	t.Total = row(r.All, "all")
	s.Table = t
	s.Notes = r.leadNotes()
	return s
}

// leadNotes say how old the ETAs used at each horizon really were, and
// that stale ones are not used.
func (r *Report) leadNotes() []string {
	var leads, stale []string
	for _, h := range r.Horizons {
		a := r.All.ETA[h]
		if a.N > 0 {
			leads = append(leads, fmt.Sprintf("%.0f h at %s", a.MeanLeadHours, days(h)))
		}
		if a.NStale > 0 {
			stale = append(stale, fmt.Sprintf("%s at %s", count(a.NStale), days(h)))
		}
	}
	var notes []string
	if len(leads) > 0 {
		notes = append(notes, "The ETA used at a horizon is the latest seen at or before it, so it is older than the "+
			"horizon: all carriers, it was seen on average "+list(leads)+" before arrival.")
	}
	staleNote := fmt.Sprintf("An ETA seen more than %.0f h before a horizon's cut (arrival − that many days) is stale "+
		"and not used there: it is the ETA of a horizon further out (the %.0f h allow for one missed night)",
		r.Rules.MaxStalenessHours, r.Rules.MaxStalenessHours)
	if len(stale) > 0 {
		staleNote += "; shipments left out so: " + list(stale) + "."
	} else {
		staleNote += ". None was."
	}
	return append(notes, staleNote)
}
