/*
 * Blending etalake's estimate with the mean of the same target's estimates
 * of the 3 (or 6) days before, on the rows eta_accuracy judges: MAE in
 * hours by horizon (BENCHMARKS.md, "Two more ideas"). Run on a warehouse
 * bench/estimate kept:
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/smoothing.sql)"
 */
WITH j AS (
  SELECT a.horizon_days AS h, a.actual_at, x.estimate_at, x.observed_at, x.shipment_number, x.shipment_type, x.target
  FROM eta_accuracy AS a JOIN arrival_estimates AS x USING (shipment_number, shipment_type, target, observed_at)
  WHERE a.source = 'ETALAKE' AND a.horizon_days IN (1, 3, 7, 14)),
p AS (
  SELECT j.*,
    (SELECT avg(epoch(y.estimate_at)) FROM arrival_estimates AS y
     WHERE y.shipment_number = j.shipment_number AND y.shipment_type = j.shipment_type AND y.target = j.target
       AND y.observed_at < j.observed_at AND y.observed_at >= j.observed_at - INTERVAL 3 DAY) AS prev3,
    (SELECT avg(epoch(y.estimate_at)) FROM arrival_estimates AS y
     WHERE y.shipment_number = j.shipment_number AND y.shipment_type = j.shipment_type AND y.target = j.target
       AND y.observed_at < j.observed_at AND y.observed_at >= j.observed_at - INTERVAL 6 DAY) AS prev6
  FROM j)
SELECT h, count(*) AS rows,
  avg(abs(epoch(actual_at) - epoch(estimate_at))) / 3600 AS as_it_is,
  avg(abs(epoch(actual_at) - (0.8 * epoch(estimate_at) + 0.2 * coalesce(prev3, epoch(estimate_at))))) / 3600 AS three_days_20pct,
  avg(abs(epoch(actual_at) - (0.6 * epoch(estimate_at) + 0.4 * coalesce(prev3, epoch(estimate_at))))) / 3600 AS three_days_40pct,
  avg(abs(epoch(actual_at) - (0.8 * epoch(estimate_at) + 0.2 * coalesce(prev6, epoch(estimate_at))))) / 3600 AS six_days_20pct
FROM p GROUP BY h ORDER BY h
