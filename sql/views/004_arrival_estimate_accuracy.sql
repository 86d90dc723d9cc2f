-- arrival_estimate_accuracy: is etalake's own arrival estimate better than
-- the carrier's ETA and the service's predictive one, and do its intervals
-- hold?
--
-- Per horizon_days at level carrier (one carrier, all its targets) and
-- all (every carrier), over the POD and POSTPOD rows of eta_accuracy: the
-- estimate (source ETALAKE) against each other source (versus) on the
-- same shipments and targets, those where both are usable at that
-- horizon. The predictive ETA is compared at 1 day only: at 3 days or
-- more it exists only for the shipments it expects early (selective in
-- eta_accuracy), and comparing there would crown whichever source it
-- makes look bad.
--
-- n pairs on n_calls vessel calls; both MAEs; mae_diff_hours = etalake's
-- MAE − the other's (negative: etalake was closer) with a 95 % interval
-- clustered by vessel call, and mae_diff_pct the same as a share of the
-- other's MAE; better is ETALAKE or the other source only when that
-- interval excludes 0, TIE when it does not, NULL when n_calls is below
-- etalake_min_n(). best_source: the other source compared here whose MAE
-- is lowest at that level and horizon (the one to beat).
--
-- coverage_80 and coverage_95: the share of the estimate's rows at that
-- horizon (with an interval) whose actual arrival fell inside its 80 % or
-- 95 % interval, over n_intervals rows, with Wilson intervals over the
-- vessel calls (an effective n, since the boxes of a call share its
-- delay).
CREATE OR REPLACE VIEW arrival_estimate_accuracy AS
WITH mine AS (
    SELECT a.*, e.lo_80, e.hi_80, e.lo_95, e.hi_95
    FROM eta_accuracy AS a
    LEFT JOIN arrival_estimates AS e
      ON e.shipment_number = a.shipment_number AND e.shipment_type = a.shipment_type
     AND e.target = a.target AND e.observed_at = a.observed_at
    WHERE a.source = 'ETALAKE' AND a.error_hours IS NOT NULL
),
pairs AS (
    SELECT m.carrier, m.horizon_days, m.vessel_call, o.source AS versus,
           m.error_hours AS etalake_error, o.error_hours AS other_error,
           abs(m.error_hours) - abs(o.error_hours) AS diff
    FROM mine AS m
    JOIN eta_accuracy AS o
      ON o.shipment_number = m.shipment_number AND o.shipment_type = m.shipment_type
     AND o.target = m.target AND o.horizon_days = m.horizon_days
    WHERE o.source IN ('CARRIER', 'PREDICTIVE') AND NOT o.selective AND o.error_hours IS NOT NULL
),
levels(level, by_carrier) AS (VALUES ('carrier', true), ('all', false)),
base AS (
    SELECT l.level, CASE WHEN l.by_carrier THEN p.carrier END AS carrier, p.* EXCLUDE (carrier)
    FROM pairs AS p
    CROSS JOIN levels AS l
),
calls AS (
    SELECT level, carrier, horizon_days, versus, count(*) AS n_g, sum(diff) AS s_g
    FROM base
    GROUP BY level, carrier, horizon_days, versus, vessel_call
),
clustered AS (
    SELECT level, carrier, horizon_days, versus, count(*) AS n_calls,
           sum(s_g * s_g) AS s2, sum(s_g * n_g) AS sn, sum(n_g * n_g) AS n2
    FROM calls
    GROUP BY level, carrier, horizon_days, versus
),
plain AS (
    SELECT level, carrier, horizon_days, versus,
           count(*) AS n,
           avg(abs(etalake_error)) AS etalake_mae_hours,
           avg(abs(other_error)) AS other_mae_hours,
           avg(diff) AS mae_diff_hours
    FROM base
    GROUP BY level, carrier, horizon_days, versus
),
stats AS (
    SELECT p.*, c.n_calls,
           etalake_cluster_se(c.n_calls, p.n, c.s2, c.sn, c.n2, p.mae_diff_hours) AS se,
           etalake_t975(c.n_calls - 1) AS t
    FROM plain AS p
    JOIN clustered AS c
      ON c.level = p.level AND c.horizon_days = p.horizon_days AND c.versus = p.versus
     AND c.carrier IS NOT DISTINCT FROM p.carrier
),
covered AS (
    SELECT l.level, CASE WHEN l.by_carrier THEN m.carrier END AS carrier, m.horizon_days,
           count(*) AS n_intervals,
           count(DISTINCT m.vessel_call) AS n_interval_calls,
           avg(CASE WHEN m.actual_at BETWEEN m.lo_80 AND m.hi_80 THEN 1.0 ELSE 0.0 END) AS coverage_80,
           avg(CASE WHEN m.actual_at BETWEEN m.lo_95 AND m.hi_95 THEN 1.0 ELSE 0.0 END) AS coverage_95
    FROM mine AS m
    CROSS JOIN levels AS l
    WHERE m.lo_80 IS NOT NULL
    GROUP BY ALL
)
SELECT s.level, s.carrier, s.horizon_days, s.versus,
       s.n, s.n_calls,
       s.n_calls >= etalake_min_n() AS enough,
       s.etalake_mae_hours, s.other_mae_hours,
       s.mae_diff_hours,
       s.mae_diff_hours - s.t * s.se AS mae_diff_lo_hours,
       s.mae_diff_hours + s.t * s.se AS mae_diff_hi_hours,
       100 * s.mae_diff_hours / nullif(s.other_mae_hours, 0) AS mae_diff_pct,
       100 * (s.mae_diff_hours - s.t * s.se) / nullif(s.other_mae_hours, 0) AS mae_diff_lo_pct,
       100 * (s.mae_diff_hours + s.t * s.se) / nullif(s.other_mae_hours, 0) AS mae_diff_hi_pct,
       CASE WHEN s.n_calls < etalake_min_n() OR s.se IS NULL THEN NULL
            WHEN s.mae_diff_hours + s.t * s.se < 0 THEN 'ETALAKE'
            WHEN s.mae_diff_hours - s.t * s.se > 0 THEN s.versus
            ELSE 'TIE'
       END AS better,
       s.versus = first(s.versus) OVER (PARTITION BY s.level, s.carrier, s.horizon_days ORDER BY s.other_mae_hours) AS best_source,
       c.n_intervals,
       c.coverage_80,
       etalake_wilson_lo(c.coverage_80, c.n_interval_calls, 1.959964) AS coverage_80_lo,
       etalake_wilson_hi(c.coverage_80, c.n_interval_calls, 1.959964) AS coverage_80_hi,
       c.coverage_95,
       etalake_wilson_lo(c.coverage_95, c.n_interval_calls, 1.959964) AS coverage_95_lo,
       etalake_wilson_hi(c.coverage_95, c.n_interval_calls, 1.959964) AS coverage_95_hi
FROM stats AS s
LEFT JOIN covered AS c
  ON c.level = s.level AND c.horizon_days = s.horizon_days AND c.carrier IS NOT DISTINCT FROM s.carrier;
COMMENT ON VIEW arrival_estimate_accuracy IS 'Is etalake''s own arrival estimate better than the carrier''s and the predictive ETA, and do its intervals hold? Per carrier and for all (level) × horizon × other source (versus), on the same shipments; better only when the 95 % interval of the MAE difference excludes 0.';
COMMENT ON COLUMN arrival_estimate_accuracy.level IS 'carrier (one carrier) or all (every carrier)';
COMMENT ON COLUMN arrival_estimate_accuracy.carrier IS 'SCAC (NULL at level all)';
COMMENT ON COLUMN arrival_estimate_accuracy.horizon_days IS 'days before the actual arrival: 1, 3, 7 or 14';
COMMENT ON COLUMN arrival_estimate_accuracy.versus IS 'the source compared with: CARRIER or PREDICTIVE (at 1 day only)';
COMMENT ON COLUMN arrival_estimate_accuracy.n IS 'shipment targets with both usable at that horizon';
COMMENT ON COLUMN arrival_estimate_accuracy.n_calls IS 'distinct vessel calls they arrived on: the clusters';
COMMENT ON COLUMN arrival_estimate_accuracy.enough IS 'n_calls reaches etalake_min_n()';
COMMENT ON COLUMN arrival_estimate_accuracy.etalake_mae_hours IS 'mean absolute error of etalake''s estimate on those rows, hours';
COMMENT ON COLUMN arrival_estimate_accuracy.other_mae_hours IS 'mean absolute error of the other source on the same rows, hours';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_hours IS 'etalake''s MAE − the other''s, hours: negative, etalake was closer';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_lo_hours IS 'lower bound of its 95 % interval, clustered by vessel call';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_hi_hours IS 'upper bound of its 95 % interval';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_pct IS 'mae_diff_hours as a percentage of the other''s MAE';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_lo_pct IS 'lower bound, percent';
COMMENT ON COLUMN arrival_estimate_accuracy.mae_diff_hi_pct IS 'upper bound, percent';
COMMENT ON COLUMN arrival_estimate_accuracy.better IS 'ETALAKE or the other source when the interval excludes 0, TIE when not, NULL with too few calls';
COMMENT ON COLUMN arrival_estimate_accuracy.best_source IS 'true on the row of the other source with the lowest MAE at that level and horizon: the one to beat';
COMMENT ON COLUMN arrival_estimate_accuracy.n_intervals IS 'rows of etalake''s estimate at that horizon that have intervals';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_80 IS 'share of them whose actual arrival fell inside the 80 % interval';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_80_lo IS 'Wilson 95 % lower bound, over the vessel calls';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_80_hi IS 'Wilson 95 % upper bound';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_95 IS 'share of them whose actual arrival fell inside the 95 % interval';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_95_lo IS 'Wilson 95 % lower bound, over the vessel calls';
COMMENT ON COLUMN arrival_estimate_accuracy.coverage_95_hi IS 'Wilson 95 % upper bound';
