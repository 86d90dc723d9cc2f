-- eta_accuracy: how far off was the ETA known h days before the arrival?
--
-- One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER,
-- PREDICTIVE, ETALAKE; PREDICTIVE for the POD only; ETALAKE is etalake's
-- own estimate, arrival_estimates) × horizon_days (1, 3, 7, 14):
-- the ETA of the latest estimate observed at or before (actual − horizon)
-- (see eta_accuracy_known), how long before the arrival it was observed
-- (observed_lead_hours: at "1 day", an ETA seen the night before the cut is
-- 24 to 48 h old), and error_hours = actual − eta in hours: positive means
-- the box arrived later than promised.
--
-- error_hours is NULL where nothing was known yet at that horizon, and
-- where what was known is stale: seen more than
-- etalake_max_staleness_hours() (48) before the cut, an ETA of another
-- horizon. selective marks rows biased by construction: the predictive ETA
-- is published only while it promises arrival within 72 hours, so at 3
-- days or more it exists only for the shipments it expects early and its
-- error there is positive by design. The summaries carry the flag; the
-- comparison and the report leave those rows out. Shipments that never
-- arrived have no row, nor those whose arrival the carrier withdrew (see
-- eta_accuracy_known).
CREATE OR REPLACE VIEW eta_accuracy AS
WITH picked AS (
    SELECT k.*, h.horizon_days,
           CASE h.horizon_days WHEN 1 THEN k.seen_1 WHEN 3 THEN k.seen_3 WHEN 7 THEN k.seen_7 ELSE k.seen_14 END AS observed_at,
           CASE h.horizon_days WHEN 1 THEN k.eta_1 WHEN 3 THEN k.eta_3 WHEN 7 THEN k.eta_7 ELSE k.eta_14 END AS eta
    FROM eta_accuracy_known AS k
    CROSS JOIN (VALUES (1), (3), (7), (14)) AS h(horizon_days)
),
measured AS (
    SELECT *,
           (epoch_us(actual_at) - epoch_us(observed_at)) / 3600e6 AS observed_lead_hours,
           observed_lead_hours > 24 * horizon_days + etalake_max_staleness_hours() AS stale
    FROM picked
)
SELECT shipment_number,
       shipment_type,
       carrier,
       pol_locode,
       pod_locode,
       lane,
       transhipped,
       vessel_call,
       target,
       source,
       horizon_days,
       observed_at,
       observed_lead_hours,
       eta,
       actual_at,
       etalake_utc_month(actual_at) AS arrival_month,
       CASE WHEN NOT stale THEN (epoch_us(actual_at) - epoch_us(eta)) / 3600e6 END AS error_hours,
       stale,
       source = 'PREDICTIVE' AND horizon_days * 24 >= 72 AS selective,
       revisions,
       mean_abs_revision_hours,
       (epoch_us(eta_last) - epoch_us(eta_7)) / 3600e6 AS slip_7d_hours
FROM measured;
COMMENT ON VIEW eta_accuracy IS 'How far off was the ETA known h days before the arrival? One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER, PREDICTIVE, ETALAKE) × horizon_days (1, 3, 7, 14); error_hours = actual − eta, positive: later than promised.';
COMMENT ON COLUMN eta_accuracy.shipment_number IS 'the shipment (shipments)';
COMMENT ON COLUMN eta_accuracy.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN eta_accuracy.carrier IS 'SCAC of the shipping line (shipments.sealine)';
COMMENT ON COLUMN eta_accuracy.pol_locode IS 'port of loading';
COMMENT ON COLUMN eta_accuracy.pod_locode IS 'port of discharge';
COMMENT ON COLUMN eta_accuracy.lane IS 'the trade lane, POL-POD (CNSHA-NLRTM)';
COMMENT ON COLUMN eta_accuracy.transhipped IS 'true: transhipped on the way (discharged or loaded at another port, or on more than one vessel); false: direct; NULL: no event says';
COMMENT ON COLUMN eta_accuracy.vessel_call IS 'the vessel call the box arrived on at its POD: the unit the intervals cluster by';
COMMENT ON COLUMN eta_accuracy.target IS 'POD or POSTPOD';
COMMENT ON COLUMN eta_accuracy.source IS 'CARRIER (the route date), PREDICTIVE (the service''s predictiveEta, POD only) or ETALAKE (etalake''s own estimate, arrival_estimates)';
COMMENT ON COLUMN eta_accuracy.horizon_days IS 'days before the actual arrival: 1, 3, 7 or 14';
COMMENT ON COLUMN eta_accuracy.observed_at IS 'when the ETA used was observed: the latest observation at or before actual − horizon (NULL: none)';
COMMENT ON COLUMN eta_accuracy.observed_lead_hours IS 'actual − observed_at in hours: how long before the arrival that ETA was really seen';
COMMENT ON COLUMN eta_accuracy.eta IS 'the ETA then';
COMMENT ON COLUMN eta_accuracy.actual_at IS 'the actual arrival at the target';
COMMENT ON COLUMN eta_accuracy.arrival_month IS 'the UTC month of the actual arrival (its first day)';
COMMENT ON COLUMN eta_accuracy.error_hours IS 'actual − eta in hours, positive: later than promised; NULL when nothing was known or the ETA is stale';
COMMENT ON COLUMN eta_accuracy.stale IS 'the ETA was seen more than etalake_max_staleness_hours() (48) before the cut: not used for this horizon (NULL: no ETA)';
COMMENT ON COLUMN eta_accuracy.selective IS 'the source exists at this horizon only for some shipments, chosen by its own value (PREDICTIVE at 3 days or more): biased by construction, left out of comparisons';
COMMENT ON COLUMN eta_accuracy.revisions IS 'times this source''s estimate changed before the arrival';
COMMENT ON COLUMN eta_accuracy.mean_abs_revision_hours IS 'mean size of those changes, hours (NULL without one)';
COMMENT ON COLUMN eta_accuracy.slip_7d_hours IS 'last estimate before the arrival − the estimate known 7 days before, hours: how far the ETA moved in the last week (positive: later)';
