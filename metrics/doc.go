// Package metrics writes the figures of one job as a Prometheus text file,
// for node_exporter's textfile collector: a registry of its own (never the
// global one), the client library's encoder, and the file replaced whole
// (a temporary file renamed in the same directory), so that the collector
// never reads half a file. It knows nothing of jobs or the warehouse: the
// command line fills a Job from a run's summary.
package metrics
