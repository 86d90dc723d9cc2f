package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestREADMELakeReadersConnect: the README's Spark and Trino snippets
// that read the lake give each setting a reader of its Postgres catalog
// on a MinIO-type store needs — the catalog's password (neither JDBC
// catalog reads PGPASSWORD or ~/.pgpass), the S3 endpoint, path-style
// access — under the names each engine documents:
//
//   - Iceberg, JDBC catalog: "jdbc.<property_key> — any key value pairs
//     to configure the JDBC connection" (jdbc.user, jdbc.password);
//     S3FileIO: s3.endpoint, s3.path-style-access.
//   - Trino, Iceberg connector, JDBC catalog:
//     iceberg.jdbc-catalog.connection-password; S3 file system support:
//     "s3.endpoint — Required endpoint URL for S3", "s3.path-style-access
//     — Use path-style access for all requests to S3".
func TestREADMELakeReadersConnect(t *testing.T) {
	var spark, trino map[string]string
	for _, b := range docBlocks(t) {
		switch {
		case b.lang == "sh" && strings.Contains(b.text, "spark-sql") && strings.Contains(b.text, "type=jdbc"):
			spark = map[string]string{}
			for _, m := range sparkConfRE.FindAllStringSubmatch(b.text, -1) {
				spark[m[1]] = m[2]
			}
		case b.lang == "properties" && strings.Contains(b.text, "iceberg.catalog.type=jdbc"):
			trino = map[string]string{}
			for _, l := range strings.Split(b.text, "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && !strings.HasPrefix(k, "#") {
					trino[k] = v
				}
			}
		}
	}
	if spark == nil || trino == nil {
		t.Fatalf("README.md shows no Spark JDBC snippet (%v) or no Trino JDBC catalog (%v)", spark != nil, trino != nil)
	}
	for key, want := range map[string]string{
		"type": "jdbc", "jdbc.user": "", "jdbc.password": "", "warehouse": "s3://",
		"io-impl": "org.apache.iceberg.aws.s3.S3FileIO", "s3.endpoint": "http", "s3.path-style-access": "true",
	} {
		if v, ok := spark[key]; !ok {
			t.Errorf("README's Spark snippet does not set spark.sql.catalog.etalake.%s", key)
		} else if !strings.HasPrefix(v, want) {
			t.Errorf("README's Spark snippet: spark.sql.catalog.etalake.%s is %q, want a value starting %q", key, v, want)
		}
	}
	for key, want := range map[string]string{
		"iceberg.jdbc-catalog.catalog-name": "etalake", "iceberg.jdbc-catalog.connection-user": "",
		"iceberg.jdbc-catalog.connection-password": "", "fs.native-s3.enabled": "true",
		"s3.endpoint": "http", "s3.path-style-access": "true", "s3.region": "",
	} {
		if v, ok := trino[key]; !ok {
			t.Errorf("README's Trino catalog does not set %s", key)
		} else if !strings.HasPrefix(v, want) {
			t.Errorf("README's Trino catalog: %s is %q, want a value starting %q", key, v, want)
		}
	}
	if strings.Contains(spark["jdbc.password"]+trino["iceberg.jdbc-catalog.connection-password"], "secret") {
		t.Error("README's snippets write a password out: take it from the environment")
	}
}

var sparkConfRE = regexp.MustCompile(`--conf spark\.sql\.catalog\.etalake\.(\S+?)=("[^"]*"|\S+)`)
