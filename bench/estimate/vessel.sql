/*
 * The vessel's own latest miss as a sign of its error (BENCHMARKS.md, "How
 * far 3 days can go"): of the rows judged at 3 days, how many have another
 * call of the same vessel in the schedules (port_calls) that had arrived
 * when the ETA was observed, whose last ETA before arriving was observed in
 * the 3 days before; and on those, the correlation of the two errors. Run
 * on a warehouse bench/estimate kept:
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/vessel.sql)"
 */
WITH judged AS (
  SELECT shipment_number, target, split_part(vessel_call, ' ', 1) AS port, split_part(vessel_call, ' ', 2)::BIGINT AS imo,
         observed_at, error_hours AS e
  FROM eta_accuracy WHERE source = 'ETALAKE' AND horizon_days = 3),
arrived AS (
  SELECT vessel_imo, port_locode, voyage, min(event_at) AS actual_at, min(observed_at) AS known_at
  FROM port_calls WHERE classifier = 'ACT' AND event_type_code = 'ARRI' GROUP BY ALL),
missed AS (
  SELECT r.vessel_imo, r.port_locode, r.known_at, max(s.observed_at) AS last_seen,
         epoch(r.actual_at - arg_max(s.event_at, s.observed_at)) / 3600 AS miss
  FROM arrived AS r JOIN port_calls AS s USING (vessel_imo, port_locode, voyage)
  WHERE s.classifier = 'EST' AND s.event_type_code = 'ARRI' AND s.observed_at < r.actual_at
  GROUP BY r.vessel_imo, r.port_locode, r.voyage, r.actual_at, r.known_at),
paired AS (
  SELECT j.shipment_number, j.target, j.e, arg_max(m.miss, m.last_seen) AS miss
  FROM judged AS j JOIN missed AS m ON m.vessel_imo = j.imo AND m.port_locode <> j.port
    AND m.known_at <= j.observed_at AND m.last_seen >= j.observed_at - INTERVAL 3 DAY
  GROUP BY j.shipment_number, j.target, j.e)
SELECT (SELECT count(*) FROM judged) AS rows, count(*) AS with_the_vessels_latest_miss, corr(e, miss) AS correlation
FROM paired
