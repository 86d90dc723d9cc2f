-- eta_accuracy: how far off was the ETA known h days before the arrival?
--
-- One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER,
-- PREDICTIVE; PREDICTIVE for the POD only) × horizon_days (1, 3, 7, 14):
-- the ETA of the latest estimate observed at or before (actual − horizon)
-- (see eta_accuracy_known). error_hours = actual − eta in hours: positive
-- means the box arrived later than promised. Where nothing was known yet
-- at that horizon, observed_at, eta and error_hours are null. Shipments that
-- never arrived have no row.
CREATE OR REPLACE VIEW eta_accuracy AS
WITH picked AS (
    SELECT k.shipment_number, k.shipment_type, k.carrier, k.pol_locode, k.pod_locode, k.target, k.source,
           h.horizon_days, k.actual_at,
           CASE h.horizon_days WHEN 1 THEN k.seen_1 WHEN 3 THEN k.seen_3 WHEN 7 THEN k.seen_7 ELSE k.seen_14 END AS observed_at,
           CASE h.horizon_days WHEN 1 THEN k.eta_1 WHEN 3 THEN k.eta_3 WHEN 7 THEN k.eta_7 ELSE k.eta_14 END AS eta
    FROM eta_accuracy_known AS k
    CROSS JOIN (VALUES (1), (3), (7), (14)) AS h(horizon_days)
)
SELECT shipment_number,
       shipment_type,
       carrier,
       pol_locode,
       pod_locode,
       target,
       source,
       horizon_days,
       observed_at,
       eta,
       actual_at,
       (epoch_us(actual_at) - epoch_us(eta)) / 3600e6 AS error_hours
FROM picked;
