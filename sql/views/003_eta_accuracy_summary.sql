-- eta_accuracy_summary: whose ETAs were good, and how early?
--
-- The POD rows of eta_accuracy summed up by carrier, pod_locode, source and
-- horizon_days, carrier and predictive ETAs side by side: n (shipments
-- with an ETA at that horizon), bias_hours (mean error: positive = later
-- than promised), mae_hours, p50_abs_hours and p90_abs_hours (of the
-- absolute error), within_1d_share (share within ±24 h), and shipments
-- (arrived shipments, known at that horizon or not). A row with pod_locode
-- NULL sums all ports of the carrier; carrier NULL as well sums everything.
CREATE OR REPLACE VIEW eta_accuracy_summary AS
WITH summary AS (
SELECT carrier,
       pod_locode,
       source,
       horizon_days,
       count(error_hours) AS n,
       avg(error_hours) AS bias_hours,
       avg(abs(error_hours)) AS mae_hours,
       quantile_cont(abs(error_hours), [0.5, 0.9]) AS q,
       avg(CASE WHEN error_hours IS NULL THEN NULL WHEN abs(error_hours) <= 24 THEN 1.0 ELSE 0.0 END) AS within_1d_share,
       count(*) AS shipments
FROM eta_accuracy
WHERE target = 'POD'
GROUP BY GROUPING SETS ((carrier, pod_locode, source, horizon_days), (carrier, source, horizon_days), (source, horizon_days))
)
-- Both quantiles come from one sort of each group.
SELECT carrier, pod_locode, source, horizon_days, n, bias_hours, mae_hours,
       q[1] AS p50_abs_hours, q[2] AS p90_abs_hours, within_1d_share, shipments
FROM summary;
