// Package report reads a warehouse's analytic views (package sql) into a
// Report, the accuracy report of etalake: carriers ranked by the error of
// their ETAs, the error by days before arrival, the service's predictive
// ETA against the carrier's, and schedule reliability. It renders a Report
// as terminal tables (WriteText) or as one self-contained HTML page with
// inline SVG charts (WriteHTML).
//
// It computes no statistic the views already give and writes nothing: the
// caller opens the warehouse (load.OpenReadOnly) and owns the output.
package report
