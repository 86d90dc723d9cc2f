-- arrival_outlook: when will what is still on its way arrive, by the
-- carrier's word and by etalake's estimate?
--
-- One row per shipment target (POD, POSTPOD) not arrived yet — the
-- shipment's latest state (shipments) does not say pod_actual, or
-- postpod_actual for the POSTPOD, is true — from its latest row of
-- arrival_estimates (the carrier ETA observed last): the carrier's ETA,
-- the service's predictive ETA of that answer, etalake's estimate with its
-- 80 % and 95 % intervals and what it learned from, and how far
-- etalake's estimate is from the carrier's ETA. An arrival reported and
-- then taken back is on its way again, and is here. A target whose ETA
-- lies in the past without an actual arrival stays here until the carrier
-- reports one: the outlook does not guess that it arrived.
CREATE OR REPLACE VIEW arrival_outlook AS
WITH latest AS (
    SELECT *
    FROM arrival_estimates
    QUALIFY row_number() OVER (PARTITION BY shipment_number, shipment_type, target ORDER BY observed_at DESC) = 1
)
SELECT e.shipment_number, e.shipment_type, e.target,
       e.carrier, e.lane, e.locode,
       e.observed_at,
       e.eta,
       e.predictive_eta,
       e.estimate_at,
       e.lo_80, e.hi_80, e.lo_95, e.hi_95,
       e.basis_level, e.basis_arrivals, e.basis,
       (epoch(e.estimate_at) - epoch(e.eta)) / 3600 AS estimate_minus_eta_hours
FROM latest AS e
JOIN shipments AS s
  ON s.shipment_number = e.shipment_number AND s.shipment_type = e.shipment_type
WHERE CASE e.target
          WHEN 'POD' THEN s.pod_actual IS NOT TRUE
          WHEN 'POSTPOD' THEN s.postpod_actual IS NOT TRUE
      END;
COMMENT ON VIEW arrival_outlook IS 'Every shipment target (POD, POSTPOD) not arrived yet, from its latest arrival estimate: the carrier''s ETA, the predictive one, etalake''s estimate with its 80 % and 95 % intervals, and the hours between etalake''s estimate and the carrier''s ETA.';
COMMENT ON COLUMN arrival_outlook.shipment_number IS 'the shipment (shipments)';
COMMENT ON COLUMN arrival_outlook.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN arrival_outlook.target IS 'POD or POSTPOD: not arrived there by the shipment''s latest state';
COMMENT ON COLUMN arrival_outlook.carrier IS 'SCAC of the shipping line (shipments.sealine, as the latest answer gave it)';
COMMENT ON COLUMN arrival_outlook.lane IS 'POL-place of the target, as the latest answer gave them';
COMMENT ON COLUMN arrival_outlook.locode IS 'the place of the target, as the latest answer gave it';
COMMENT ON COLUMN arrival_outlook.observed_at IS 'when the carrier''s ETA was last observed';
COMMENT ON COLUMN arrival_outlook.eta IS 'the carrier''s ETA then';
COMMENT ON COLUMN arrival_outlook.predictive_eta IS 'the service''s predictive ETA of the same answer (NULL: none)';
COMMENT ON COLUMN arrival_outlook.estimate_at IS 'etalake''s estimate of the arrival';
COMMENT ON COLUMN arrival_outlook.lo_80 IS 'lower bound of its 80 % interval (NULL: too few past errors of the estimate known yet)';
COMMENT ON COLUMN arrival_outlook.hi_80 IS 'upper bound of its 80 % interval';
COMMENT ON COLUMN arrival_outlook.lo_95 IS 'lower bound of its 95 % interval';
COMMENT ON COLUMN arrival_outlook.hi_95 IS 'upper bound of its 95 % interval';
COMMENT ON COLUMN arrival_outlook.basis_level IS 'the finest level the estimate learned from: lane, port, carrier, all, or none (the carrier''s ETA as it is)';
COMMENT ON COLUMN arrival_outlook.basis_arrivals IS 'arrivals known at that level and horizon';
COMMENT ON COLUMN arrival_outlook.basis IS 'the arrivals it learned from at each level, in words';
COMMENT ON COLUMN arrival_outlook.estimate_minus_eta_hours IS 'estimate_at − eta, hours: positive, etalake expects the box later than the carrier says';
