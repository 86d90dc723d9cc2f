// Package lake is the warehouse's Iceberg destination: every table of the
// Parquet mirror (load.Mirrored) as an Apache Iceberg table in namespace
// etalake of a SQL catalog (SQLite for one machine, Postgres for a shared
// one: the tables Spark's and Trino's JDBC catalogs read), its files on
// local disk or object storage (file://, s3://).
//
// It is a projection, like the mirror: at the end of every publish the
// warehouse hands it the partitions the job changed (load.Lake), and each
// table's changed partitions are replaced in one snapshot, which carries
// the job's run id (etalake.run-id) and the writer (etalake.writer). Many
// warehouses — one per API key or shard — feed one lake: each lake table
// has a column etalake_writer, its first partition field, and a writer
// replaces only its own partitions, so writers never overwrite each
// other. Exactly once: a writer writes its data files once (under its own
// partition, named by the run), then commits, retrying only the commit on
// a conflict (reload, re-apply, commit, with jittered backoff: the SQL
// catalog does not retry by itself); before each attempt it looks for its
// run id among the table's snapshots and does not commit twice. A writer
// killed between files and commit leaves files no snapshot references;
// the next commit of the same warehouse removes them, and Maintain
// removes any left past a grace period.
//
// Pull reads it back (etalake lake pull): every table's current snapshot,
// every writer's rows, merged into one warehouse of its own by load's
// rules (load's PullTable), as one warehouse that had landed every
// writer's responses would hold them, so that the analytic views are
// the whole fleet's.
//
// It reads the warehouse through load's Lake methods, and writes a pull
// through load's Pull methods, nothing else; it does not parse JSON or
// speak HTTP.
package lake
