/*
 * The ETA's last revision as a sign of its error (BENCHMARKS.md, "How far
 * 3 days can go"): each judged estimate moved by beta × the carrier's
 * change of ETA since the night before (capped at ±24 h; 0 when the
 * observation before is more than 36 h older), MAE in hours by horizon,
 * beta 0 being the estimate as it is. beta is tried in hindsight, on the
 * rows judged: an upper bound of what a learned one would give. Run on a
 * warehouse bench/estimate kept:
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/revisions.sql)"
 */
WITH a AS (
  SELECT *, lag(eta) OVER w AS prev_eta, lag(observed_at) OVER w AS prev_at
  FROM arrival_estimates WINDOW w AS (PARTITION BY shipment_number, shipment_type, target ORDER BY observed_at)),
j AS (
  SELECT x.horizon_days AS horizon, epoch(x.actual_at - a.estimate_at) / 3600 AS e,
         CASE WHEN a.observed_at - a.prev_at <= INTERVAL 36 HOUR
              THEN greatest(least(epoch(a.eta - a.prev_eta) / 3600, 24), -24) ELSE 0 END AS change
  FROM eta_accuracy AS x JOIN a USING (shipment_number, shipment_type, target, observed_at)
  WHERE x.source = 'ETALAKE')
SELECT horizon, count(*) AS rows,
       avg(abs(e)) AS as_it_is,
       avg(abs(e + 0.05 * change)) AS "beta -0.05",
       avg(abs(e + 0.1 * change)) AS "beta -0.1",
       avg(abs(e + 0.2 * change)) AS "beta -0.2",
       avg(abs(e + 0.3 * change)) AS "beta -0.3"
FROM j GROUP BY horizon ORDER BY horizon
