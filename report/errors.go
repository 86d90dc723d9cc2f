package report

import "errors"

// Sentinels of the package; callers use errors.Is.
var (
	// ErrNothingToReport: no tracked shipment has arrived and no port call
	// has both a planned and an actual arrival yet. The error says so; a
	// warehouse with one of the two gets a report whose other sections say
	// what is missing.
	ErrNothingToReport = errors.New("nothing to report yet")
	// ErrNoViews: the warehouse lacks the analytic views the report reads
	// (it was last opened for writing by an older etalake).
	ErrNoViews = errors.New("the warehouse has no analytic views")
)
