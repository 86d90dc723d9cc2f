-- eta_accuracy_comparison: is the service's predictive ETA better than the
-- carrier's, and by how much?
--
-- Per horizon_days at level carrier (one carrier, all its PODs) and all
-- (every carrier), on the same shipments: those with both ETAs usable at
-- that horizon, where both exist by design. The predictive ETA is
-- published only while it promises arrival within 72 hours, so at 3 days
-- or more it exists only for the shipments it expects early (selective in
-- eta_accuracy): comparing there would crown it for a bias of its own
-- making, so those horizons have no row.
--
-- n shipments on n_calls vessel calls; each side's bias and MAE;
-- mae_diff_hours = predictive MAE − carrier MAE (negative: the predictive
-- ETA was closer) with a 95 % interval clustered by vessel call; better is
-- PREDICTIVE or CARRIER only when that interval excludes 0, TIE when it
-- does not, and NULL when n_calls is below etalake_min_n() (enough false).
CREATE OR REPLACE VIEW eta_accuracy_comparison AS
WITH pairs AS (
    SELECT c.carrier, c.horizon_days, c.vessel_call,
           c.error_hours AS carrier_error, p.error_hours AS predictive_error,
           abs(p.error_hours) - abs(c.error_hours) AS diff
    FROM eta_accuracy AS c
    JOIN eta_accuracy AS p
      ON p.shipment_number = c.shipment_number AND p.shipment_type = c.shipment_type
     AND p.target = c.target AND p.horizon_days = c.horizon_days
    WHERE c.target = 'POD' AND c.source = 'CARRIER' AND p.source = 'PREDICTIVE'
      AND NOT c.selective AND NOT p.selective
      AND c.error_hours IS NOT NULL AND p.error_hours IS NOT NULL
),
levels(level, by_carrier) AS (VALUES ('carrier', true), ('all', false)),
base AS (
    SELECT l.level, CASE WHEN l.by_carrier THEN p.carrier END AS carrier, p.*  EXCLUDE (carrier)
    FROM pairs AS p
    CROSS JOIN levels AS l
),
calls AS (
    SELECT level, carrier, horizon_days, count(*) AS n_g, sum(diff) AS s_g
    FROM base
    GROUP BY level, carrier, horizon_days, vessel_call
),
clustered AS (
    SELECT level, carrier, horizon_days, count(*) AS n_calls,
           sum(s_g * s_g) AS s2, sum(s_g * n_g) AS sn, sum(n_g * n_g) AS n2
    FROM calls
    GROUP BY level, carrier, horizon_days
),
plain AS (
    SELECT level, carrier, horizon_days,
           count(*) AS n,
           avg(carrier_error) AS carrier_bias_hours,
           avg(abs(carrier_error)) AS carrier_mae_hours,
           avg(predictive_error) AS predictive_bias_hours,
           avg(abs(predictive_error)) AS predictive_mae_hours,
           avg(diff) AS mae_diff_hours,
           avg(CASE WHEN abs(predictive_error) < abs(carrier_error) THEN 1.0 ELSE 0.0 END) AS predictive_closer_share
    FROM base
    GROUP BY level, carrier, horizon_days
),
stats AS (
    SELECT p.*, c.n_calls,
           etalake_cluster_se(c.n_calls, p.n, c.s2, c.sn, c.n2, p.mae_diff_hours) AS se,
           etalake_t975(c.n_calls - 1) AS t
    FROM plain AS p
    JOIN clustered AS c
      ON c.level = p.level AND c.horizon_days = p.horizon_days AND c.carrier IS NOT DISTINCT FROM p.carrier
)
SELECT level, carrier, horizon_days, n, n_calls,
       n_calls >= etalake_min_n() AS enough,
       carrier_bias_hours, carrier_mae_hours, predictive_bias_hours, predictive_mae_hours,
       mae_diff_hours,
       mae_diff_hours - t * se AS mae_diff_lo_hours,
       mae_diff_hours + t * se AS mae_diff_hi_hours,
       predictive_closer_share,
       CASE WHEN n_calls < etalake_min_n() OR se IS NULL THEN NULL
            WHEN mae_diff_hours + t * se < 0 THEN 'PREDICTIVE'
            WHEN mae_diff_hours - t * se > 0 THEN 'CARRIER'
            ELSE 'TIE'
       END AS better
FROM stats;
COMMENT ON VIEW eta_accuracy_comparison IS 'Is the predictive ETA better than the carrier''s? Both on the same shipments, per carrier and for all (level), at the horizons where both exist by design; better only when the 95 % interval of the MAE difference excludes 0.';
COMMENT ON COLUMN eta_accuracy_comparison.level IS 'carrier (one carrier, all its PODs) or all (every carrier; carrier NULL)';
COMMENT ON COLUMN eta_accuracy_comparison.carrier IS 'SCAC of the shipping line (level carrier)';
COMMENT ON COLUMN eta_accuracy_comparison.horizon_days IS 'days before the actual arrival; only horizons where neither source is selective';
COMMENT ON COLUMN eta_accuracy_comparison.n IS 'shipments with both ETAs usable at this horizon';
COMMENT ON COLUMN eta_accuracy_comparison.n_calls IS 'distinct vessel calls of those shipments: the independent draws, the clusters of the interval (NULL below 2), and what enough counts';
COMMENT ON COLUMN eta_accuracy_comparison.enough IS 'n_calls reaches etalake_min_n() (5)';
COMMENT ON COLUMN eta_accuracy_comparison.carrier_bias_hours IS 'mean error of the carrier''s ETA, hours';
COMMENT ON COLUMN eta_accuracy_comparison.carrier_mae_hours IS 'mean absolute error of the carrier''s ETA, hours';
COMMENT ON COLUMN eta_accuracy_comparison.predictive_bias_hours IS 'mean error of the predictive ETA, hours';
COMMENT ON COLUMN eta_accuracy_comparison.predictive_mae_hours IS 'mean absolute error of the predictive ETA, hours';
COMMENT ON COLUMN eta_accuracy_comparison.mae_diff_hours IS 'predictive MAE − carrier MAE on the same shipments, hours: negative, the predictive ETA was closer';
COMMENT ON COLUMN eta_accuracy_comparison.mae_diff_lo_hours IS 'lower bound of its 95 % interval, clustered by vessel call, t at n_calls − 1 degrees of freedom (not clamped: the difference may be negative)';
COMMENT ON COLUMN eta_accuracy_comparison.mae_diff_hi_hours IS 'upper bound of its 95 % interval, clustered by vessel call';
COMMENT ON COLUMN eta_accuracy_comparison.predictive_closer_share IS 'share of the shipments where the predictive ETA was strictly closer';
COMMENT ON COLUMN eta_accuracy_comparison.better IS 'PREDICTIVE or CARRIER when the interval of mae_diff_hours excludes 0, TIE when not, NULL when not enough';
