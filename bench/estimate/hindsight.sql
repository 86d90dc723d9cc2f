/*
 * How far any per-carrier correction of the carrier's ETA can go at 3 days
 * (BENCHMARKS.md, "How far 3 days can go"): sums of absolute errors, hours,
 * over the rows eta_accuracy judges at 3 days, of the carrier's ETA and of
 * corrections that know in hindsight every other call of the carrier, later
 * ones too (leave-one-call-out): its mean shrunk by 10 calls as etalake
 * shrinks, its median unshrunk, and its mean over the 1- and 3-day errors
 * together (the 1-day ones scaled by the ratio of the horizons' median
 * absolute deviations); beside them a median fitted on the very rows judged,
 * and etalake's estimate. Sums, so that seeds pool by adding. Run on a
 * warehouse bench/estimate kept:
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/hindsight.sql)"
 */
WITH c0 AS (
  SELECT shipment_number, shipment_type, target, carrier, vessel_call, horizon_days AS hz, error_hours AS e
  FROM eta_accuracy WHERE source = 'CARRIER' AND horizon_days IN (1, 3)),
mad AS (
  SELECT hz, median(abs(e - m)) AS mad
  FROM c0 JOIN (SELECT hz, median(e) AS m FROM c0 GROUP BY hz) USING (hz) GROUP BY hz),
scaled AS (
  SELECT c0.*, CASE WHEN hz = 1 THEN e * (SELECT mad FROM mad WHERE hz = 3) / (SELECT mad FROM mad WHERE hz = 1) ELSE e END AS es
  FROM c0),
c AS (SELECT * FROM c0 WHERE hz = 3),
g AS (
  SELECT c.*,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS mean_other,
    (SELECT median(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS median_other,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS calls_other,
    (SELECT avg(d.es) FROM scaled AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS mean_pooled,
    (SELECT count(*) FROM scaled AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS n_pooled,
    median(e) OVER (PARTITION BY carrier) AS fitted
  FROM c)
SELECT count(*) AS rows,
       sum(abs(e)) AS carrier_eta,
       sum(abs(e - coalesce(mean_other * calls_other / (calls_other + 10), 0))) AS hindsight_mean,
       sum(abs(e - coalesce(median_other, 0))) AS hindsight_median,
       sum(abs(e - coalesce(mean_pooled * n_pooled / (n_pooled + 10), 0))) AS hindsight_1_and_3_days,
       sum(abs(e - fitted)) AS fitted_on_the_rows,
       (SELECT sum(abs(x.error_hours)) FROM eta_accuracy AS x JOIN c USING (shipment_number, shipment_type, target)
        WHERE x.source = 'ETALAKE' AND x.horizon_days = 3) AS etalake
FROM g
