// Package report reads a warehouse's analytic views (package sql) into a
// Report, the accuracy report of etalake: carriers ranked by the error of
// their ETAs, the error by days before arrival, the service's predictive
// ETA against the carrier's where both exist by design, schedule
// reliability by carrier and by month, each with its 95 % interval, and
// etalake's own arrival estimate against both ETAs, with the arrivals it
// expects in the coming days (arrival_outlook). It
// renders a Report as terminal tables (WriteText) or as one self-contained
// HTML page with inline SVG charts (WriteHTML).
//
// It computes no statistic the views already give — counts, intervals,
// verdicts, the minimum n and the staleness limit all come from them — and
// only turns their standard errors into ranks that show ties (rank.go). It
// writes nothing: the caller opens the warehouse (load.OpenReadOnly) and
// owns the output.
package report
