// Package sql holds the analytic views of the warehouse as embedded .sql
// files (views/NNN_name.sql, one CREATE OR REPLACE VIEW each, with a
// COMMENT on the view and on every column): ETA accuracy, schedule
// reliability, event timeliness, data freshness and credit usage. The
// writer applies them in lexical order when it opens a warehouse, each
// recorded once with its checksum. 000_statistics holds the macros they
// share (UTC months, the minimum n, the staleness limit, clustered standard
// errors, Student's t, Wilson intervals), so that a notebook can apply the
// same rules. A file may instead CREATE OR REPLACE TABLE: a view
// materialised because it would be too slow to compute per query, rebuilt
// at the end of every job. The files name no path and no table outside the
// contract of package schema.
package sql
