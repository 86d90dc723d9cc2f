// Package schema is the single source of truth for the warehouse: every
// contract table is defined once here (columns, types, nullability, key,
// kind, partition), and both its Arrow schema and its DuckDB DDL are derived
// from that definition. The forward-only migrations in migrations/*.sql are
// generated from the definitions and checked against them by a test, so
// there is no hand-kept twin. Rows of a table go from the transform to
// the loader as Rows. It depends on no other package of etalake.
package schema
