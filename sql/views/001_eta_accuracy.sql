-- eta_accuracy: how far off was the ETA known h days before the arrival?
--
-- One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER,
-- PREDICTIVE; PREDICTIVE for the POD only) × horizon_days (1, 3, 7, 14):
-- the ETA of the latest estimate observed at or before (actual − horizon),
-- found by an ASOF JOIN over eta_observations. The actual is the last
-- reported actual date of the target. error_hours = actual − eta in hours:
-- positive means the box arrived later than promised. Where nothing was
-- known yet at that horizon, observed_at, eta and error_hours are null.
-- Shipments that never arrived have no row.
CREATE OR REPLACE VIEW eta_accuracy AS
WITH actuals AS (
    SELECT shipment_number, shipment_type, target, arg_max(eta, observed_at) AS actual_at
    FROM eta_observations
    WHERE source = 'CARRIER' AND is_actual AND target IN ('POD', 'POSTPOD')
    GROUP BY shipment_number, shipment_type, target
),
cuts AS (
    SELECT a.shipment_number, a.shipment_type, a.target, a.actual_at, s.source, h.horizon_days,
           a.actual_at - to_days(h.horizon_days) AS known_at
    FROM actuals AS a
    CROSS JOIN (VALUES (1), (3), (7), (14)) AS h(horizon_days)
    CROSS JOIN (VALUES ('CARRIER'), ('PREDICTIVE')) AS s(source)
    WHERE s.source = 'CARRIER' OR a.target = 'POD'
),
estimates AS (
    SELECT shipment_number, shipment_type, target, source, observed_at, eta
    FROM eta_observations
    WHERE NOT is_actual
)
SELECT c.shipment_number,
       c.shipment_type,
       s.sealine AS carrier,
       s.pol_locode,
       s.pod_locode,
       c.target,
       c.source,
       c.horizon_days,
       e.observed_at,
       e.eta,
       c.actual_at,
       date_diff('second', e.eta, c.actual_at) / 3600.0 AS error_hours
FROM cuts AS c
ASOF LEFT JOIN estimates AS e
    ON c.shipment_number = e.shipment_number
   AND c.shipment_type = e.shipment_type
   AND c.target = e.target
   AND c.source = e.source
   AND c.known_at >= e.observed_at
LEFT JOIN shipments AS s
    ON s.shipment_number = c.shipment_number AND s.shipment_type = c.shipment_type;
