-- eta_accuracy_summary: whose ETAs were good, how early, and how sure is
-- that?
--
-- A TABLE, rebuilt with eta_accuracy_known at the end of every job: its
-- quantiles over ten levels take seconds per query over tens of millions
-- of observations (8 s at 10 M), paid once by the job instead.
--
-- The POD rows of eta_accuracy summed up by source and horizon_days at
-- each level of the level column, which names the columns a row is grouped
-- by (the others are NULL because the row covers all of them, never
-- because a value is unknown):
--   carrier_port   carrier × pod_locode        port          pod_locode (all carriers)
--   carrier        carrier (all ports)         all           every shipment
--   carrier_lane   carrier × lane              lane          lane
--   carrier_transhipment  carrier × transhipped   transhipment  transhipped
--   carrier_month  carrier × arrival_month     month         arrival_month
--
-- shipments counts the arrived shipments, n those with a usable ETA at that
-- horizon, n_calls the distinct vessel calls they arrived on — the
-- independent draws, since the boxes of one call share its delay — and
-- n_stale those whose ETA was too old to use. bias (mean error, positive:
-- later than promised) and MAE come with a standard error clustered by
-- vessel call and a 95 % interval (t with n_calls − 1 degrees of freedom;
-- NULL with fewer than 2 calls). enough: n_calls reaches etalake_min_n()
-- (5), the rule the report ranks by. selective: the source is biased by
-- construction at this horizon (see eta_accuracy): not a finding.
-- month_complete (month levels): the month and the 24 h after it are over
-- by the newest tracking answer, so a job has looked at every tracked
-- shipment after the month ended; until then arrivals of the month are
-- still to be seen, and its numbers can still move.
CREATE OR REPLACE TABLE eta_accuracy_summary AS
WITH newest AS (
    SELECT max(last_observed_at) AS as_of FROM shipments
),
base AS (
    SELECT carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days, selective,
           hash(vessel_call) AS call, error_hours, stale, observed_lead_hours
    FROM eta_accuracy
    WHERE target = 'POD'
),
-- The levels, by GROUPING_ID(carrier, pod_locode, lane, transhipped,
-- arrival_month): a bit is set for each column a level sums over.
levels(gid, level) AS (VALUES
    (7, 'carrier_port'), (15, 'carrier'), (23, 'port'), (31, 'all'),
    (11, 'carrier_lane'), (27, 'lane'), (13, 'carrier_transhipment'), (29, 'transhipment'),
    (14, 'carrier_month'), (30, 'month')
),
-- Per vessel call within each group: the sums the clustered errors need.
-- (Grouping sets rather than one copy of every row per level: one scan.)
calls AS (
    SELECT GROUPING_ID(carrier, pod_locode, lane, transhipped, arrival_month) AS gid,
           carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days,
           count(*) AS n_g, sum(error_hours) AS s_g, sum(abs(error_hours)) AS a_g
    FROM base
    WHERE error_hours IS NOT NULL
    GROUP BY GROUPING SETS (
        (carrier, pod_locode, source, horizon_days, call), (carrier, source, horizon_days, call),
        (pod_locode, source, horizon_days, call), (source, horizon_days, call),
        (carrier, lane, source, horizon_days, call), (lane, source, horizon_days, call),
        (carrier, transhipped, source, horizon_days, call), (transhipped, source, horizon_days, call),
        (carrier, arrival_month, source, horizon_days, call), (arrival_month, source, horizon_days, call))
),
clustered AS (
    SELECT gid, carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days,
           count(*) AS n_calls,
           sum(s_g * s_g) AS s2, sum(s_g * n_g) AS sn, sum(a_g * a_g) AS a2, sum(a_g * n_g) AS an, sum(n_g * n_g) AS n2
    FROM calls
    GROUP BY gid, carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days
),
plain AS (
    SELECT GROUPING_ID(carrier, pod_locode, lane, transhipped, arrival_month) AS gid,
           carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days,
           bool_or(selective) AS selective,
           count(*) AS shipments,
           count(error_hours) AS n,
           count(*) FILTER (WHERE stale) AS n_stale,
           avg(error_hours) AS bias_hours,
           avg(abs(error_hours)) AS mae_hours,
           quantile_cont(abs(error_hours), [0.5, 0.9]) AS q,
           avg(CASE WHEN error_hours IS NULL THEN NULL WHEN abs(error_hours) <= 24 THEN 1.0 ELSE 0.0 END) AS within_1d_share,
           avg(observed_lead_hours) FILTER (WHERE error_hours IS NOT NULL) AS mean_lead_hours
    FROM base
    GROUP BY GROUPING SETS (
        (carrier, pod_locode, source, horizon_days), (carrier, source, horizon_days),
        (pod_locode, source, horizon_days), (source, horizon_days),
        (carrier, lane, source, horizon_days), (lane, source, horizon_days),
        (carrier, transhipped, source, horizon_days), (transhipped, source, horizon_days),
        (carrier, arrival_month, source, horizon_days), (arrival_month, source, horizon_days))
),
stats AS (
    SELECT l.level, p.*,
           coalesce(c.n_calls, 0) AS n_calls,
           etalake_cluster_se(c.n_calls, p.n, c.s2, c.sn, c.n2, p.bias_hours) AS bias_se_hours,
           etalake_cluster_se(c.n_calls, p.n, c.a2, c.an, c.n2, p.mae_hours) AS mae_se_hours,
           etalake_t975(c.n_calls - 1) AS t
    FROM plain AS p
    JOIN levels AS l ON l.gid = p.gid
    LEFT JOIN clustered AS c
      ON c.gid = p.gid AND c.source = p.source AND c.horizon_days = p.horizon_days
     AND c.carrier IS NOT DISTINCT FROM p.carrier AND c.pod_locode IS NOT DISTINCT FROM p.pod_locode
     AND c.lane IS NOT DISTINCT FROM p.lane AND c.transhipped IS NOT DISTINCT FROM p.transhipped
     AND c.arrival_month IS NOT DISTINCT FROM p.arrival_month
)
SELECT level, carrier, pod_locode, lane, transhipped, arrival_month, source, horizon_days, selective,
       shipments, n, n_calls, n_stale,
       n_calls >= etalake_min_n() AS enough,
       bias_hours, bias_se_hours,
       bias_hours - t * bias_se_hours AS bias_lo_hours,
       bias_hours + t * bias_se_hours AS bias_hi_hours,
       mae_hours, mae_se_hours,
       -- An absolute error is never negative: the clamp removes only
       -- impossible values, so the interval covers at least as often.
       CASE WHEN mae_se_hours IS NOT NULL THEN greatest(0.0, mae_hours - t * mae_se_hours) END AS mae_lo_hours,
       mae_hours + t * mae_se_hours AS mae_hi_hours,
       q[1] AS p50_abs_hours, q[2] AS p90_abs_hours,
       within_1d_share,
       mean_lead_hours,
       CASE WHEN level IN ('carrier_month', 'month')
            THEN coalesce(epoch_us(arrival_month + INTERVAL 1 MONTH) + 24 * 3600000000 <= epoch_us(n.as_of), false) END AS month_complete
FROM stats
CROSS JOIN newest AS n;
COMMENT ON TABLE eta_accuracy_summary IS 'Whose ETAs were good, how early, and how sure (a table rebuilt at the end of every job): the POD rows of eta_accuracy by level (carrier_port, carrier, port, all, carrier_lane, lane, carrier_transhipment, transhipment, carrier_month, month) × source × horizon, with n, distinct vessel calls and 95 % intervals clustered by vessel call.';
COMMENT ON COLUMN eta_accuracy_summary.level IS 'what the row is grouped by: carrier_port, carrier, port, all, carrier_lane, lane, carrier_transhipment, transhipment, carrier_month or month; a grouping column the level does not name is NULL and means all';
COMMENT ON COLUMN eta_accuracy_summary.carrier IS 'SCAC of the shipping line (levels carrier*)';
COMMENT ON COLUMN eta_accuracy_summary.pod_locode IS 'port of discharge (levels carrier_port, port)';
COMMENT ON COLUMN eta_accuracy_summary.lane IS 'trade lane POL-POD (levels carrier_lane, lane)';
COMMENT ON COLUMN eta_accuracy_summary.transhipped IS 'transhipped (true) or direct (false) (levels carrier_transhipment, transhipment; NULL there: not known)';
COMMENT ON COLUMN eta_accuracy_summary.arrival_month IS 'UTC month of the actual arrival (levels carrier_month, month)';
COMMENT ON COLUMN eta_accuracy_summary.source IS 'CARRIER or PREDICTIVE';
COMMENT ON COLUMN eta_accuracy_summary.horizon_days IS 'days before the actual arrival: 1, 3, 7 or 14';
COMMENT ON COLUMN eta_accuracy_summary.selective IS 'biased by construction at this horizon (PREDICTIVE at 3 days or more): not a finding, not compared';
COMMENT ON COLUMN eta_accuracy_summary.shipments IS 'arrived shipments, with a usable ETA at this horizon or not';
COMMENT ON COLUMN eta_accuracy_summary.n IS 'shipments with a usable ETA at this horizon';
COMMENT ON COLUMN eta_accuracy_summary.n_calls IS 'distinct vessel calls those shipments arrived on: the independent draws, the clusters of the intervals (NULL below 2), and what enough counts';
COMMENT ON COLUMN eta_accuracy_summary.n_stale IS 'shipments whose ETA at this horizon was older than the staleness limit, not used';
COMMENT ON COLUMN eta_accuracy_summary.enough IS 'n_calls reaches etalake_min_n() (5): enough independent vessel calls to rank or compare, however many shipments';
COMMENT ON COLUMN eta_accuracy_summary.bias_hours IS 'mean error (actual − eta), hours: positive, later than promised';
COMMENT ON COLUMN eta_accuracy_summary.bias_se_hours IS 'standard error of bias_hours clustered by vessel call (NULL below 2 calls)';
COMMENT ON COLUMN eta_accuracy_summary.bias_lo_hours IS 'lower bound of the 95 % interval of the bias: bias − t·se, t at n_calls − 1 degrees of freedom (NULL below 2 calls)';
COMMENT ON COLUMN eta_accuracy_summary.bias_hi_hours IS 'upper bound of the 95 % interval of the bias';
COMMENT ON COLUMN eta_accuracy_summary.mae_hours IS 'mean absolute error, hours';
COMMENT ON COLUMN eta_accuracy_summary.mae_se_hours IS 'standard error of mae_hours clustered by vessel call (NULL below 2 calls)';
COMMENT ON COLUMN eta_accuracy_summary.mae_lo_hours IS 'lower bound of the 95 % interval of the MAE: mae − t·se, t at n_calls − 1 degrees of freedom, clamped at 0 (an absolute error is never negative; 0: the data do not exclude a perfect ETA)';
COMMENT ON COLUMN eta_accuracy_summary.mae_hi_hours IS 'upper bound of the 95 % interval of the MAE';
COMMENT ON COLUMN eta_accuracy_summary.p50_abs_hours IS 'median absolute error, hours';
COMMENT ON COLUMN eta_accuracy_summary.p90_abs_hours IS '90th percentile of the absolute error, hours';
COMMENT ON COLUMN eta_accuracy_summary.within_1d_share IS 'share of the n within ±24 h, 0 to 1';
COMMENT ON COLUMN eta_accuracy_summary.mean_lead_hours IS 'mean observed_lead_hours of the ETAs used: how long before the arrival they were really seen';
COMMENT ON COLUMN eta_accuracy_summary.month_complete IS 'month levels: the month and the 24 h after it are over by the newest tracking answer (false: arrivals of the month are still to be seen, the numbers can still move); NULL at other levels';
