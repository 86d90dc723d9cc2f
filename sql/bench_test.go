package sql_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
)

// synthetic fills a warehouse with shipments arrived over a year, each with
// a carrier ETA every night from 18 days out, a predictive ETA the last 3
// nights, and the actual: 22 observations per shipment; and 8 container
// events each (the transhipment and the vessel call are read from them).
const synthetic = `
INSERT INTO shipments
SELECT 'S' || i, 'CT', ['MAEU','MSCU','CMDU','COSU','HLCU','ONEY','EGLV','YMLU','HDMU','ZIMU','WHLC','OOLU','PCIU'][1 + i % 13],
       NULL, NULL, NULL, NULL, NULL, 'CNSHA', NULL, true,
       ['NLRTM','DEHAM','BEANR','USLAX','USLGB','SGSIN','GBFXT','FRLEH','ESVLC','ITGOA'][1 + (i // 13) % 10],
       arrived, true, NULL, NULL, NULL, NULL, 1, NULL, arrived - INTERVAL 18 DAY, arrived + INTERVAL 1 DAY, 'r', CAST(arrived - INTERVAL 18 DAY AS DATE), NULL
FROM (SELECT i, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_minutes(i * 31 % 525600) AS arrived FROM range(SHIPMENTS) t(i));
INSERT INTO eta_observations
SELECT s.shipment_number, 'CT', 'POD', 'CARRIER', obs, 'NLRTM',
       s.pod_date - to_minutes(CAST((hash(s.shipment_number, d) % 2400)::BIGINT - 600 AS BIGINT) * d // 10), false, 'r', CAST(obs AS DATE), NULL
FROM shipments s, range(1, 19) t(d), LATERAL (SELECT s.pod_date - to_days(d) AS obs);
INSERT INTO eta_observations
SELECT s.shipment_number, 'CT', 'POD', 'PREDICTIVE', s.pod_date - to_days(d), 'NLRTM',
       s.pod_date - to_minutes(CAST((hash(s.shipment_number, d, 'p') % 600)::BIGINT - 300 AS BIGINT)), false, 'r', CAST(s.pod_date - to_days(d) AS DATE), NULL
FROM shipments s, range(1, 4) t(d);
INSERT INTO eta_observations
SELECT s.shipment_number, 'CT', 'POD', 'CARRIER', s.pod_date + INTERVAL 14 HOUR, 'NLRTM', s.pod_date, true, 'r', CAST(s.pod_date + INTERVAL 14 HOUR AS DATE), NULL
FROM shipments s;
INSERT INTO container_events
SELECT s.shipment_number, 'C' || s.shipment_number, 'k' || e, 'CT', 'EQUIPMENT',
       ['GTOT', 'GTIN', 'LOAD', 'DEPA', 'ARRI', 'DISC', 'GTOT', 'GTIN'][1 + e], NULL, NULL,
       CASE WHEN e < 4 THEN 'CNSHA' ELSE s.pod_locode END, NULL, s.pod_date - to_days(8 - e), true, false,
       CASE WHEN e IN (0, 1, 6, 7) THEN 'LAND' ELSE 'SEA' END, NULL,
       CASE WHEN e BETWEEN 2 AND 5 THEN 9000000 + hash(s.shipment_number) % 500 END, NULL, 'V1', 0,
       s.first_observed_at, s.last_observed_at, 'r', s.first_observed_date, NULL
FROM shipments s, range(8) t(e);`

// BenchmarkETAAccuracySummary times the reading of eta_accuracy_summary
// and of the eta_accuracy_comparison view over 10 million synthetic
// eta_observations (455 000 shipments × 22), against a baseline measured
// in the same run: one aggregate scan of the same table. "refresh" is the
// rebuild of the tables the views read (eta_accuracy_known, and the
// summary itself: the known ETAs unpivoted to four horizons, quantiles and
// clustered errors over ten levels), which every job pays once at its end.
//
//	go test -tags duckdb_arrow -run '^$' -bench ETAAccuracySummary -benchtime 5x ./sql/
func BenchmarkETAAccuracySummary(b *testing.B) {
	dir := b.TempDir()
	wh, err := load.Open(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	db := wh.DB()
	if _, err := db.Exec(strings.Replace(synthetic, "SHIPMENTS", "455000", 1)); err != nil {
		b.Fatal(err)
	}
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM eta_observations").Scan(&n); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d eta_observations", n)
	// What every job pays once at its end, in the writer's default memory.
	b.Run("refresh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := wh.RefreshAnalytics(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The queries, as an analyst runs them: on a read-only connection.
	if err := wh.Close(); err != nil {
		b.Fatal(err)
	}
	ro, err := load.OpenReadOnly(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer ro.Close()
	run := func(b *testing.B, q string) {
		for i := 0; i < b.N; i++ {
			rows, err := ro.Query(q)
			if err != nil {
				b.Fatal(err)
			}
			if drain(b, rows) == 0 {
				b.Fatal("no rows")
			}
		}
	}
	b.Run("baseline-scan", func(b *testing.B) {
		run(b, "SELECT source, count(*), avg(epoch(eta) - epoch(observed_at)) FROM eta_observations GROUP BY source")
	})
	b.Run("summary", func(b *testing.B) {
		run(b, "SELECT * FROM eta_accuracy_summary")
	})
	b.Run("comparison", func(b *testing.B) {
		run(b, "SELECT * FROM eta_accuracy_comparison")
	})
}

func drain(b *testing.B, rows *sql.Rows) int {
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}
