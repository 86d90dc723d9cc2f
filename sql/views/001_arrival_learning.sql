-- arrival_learning: what each arrival taught etalake's arrival estimate
-- (arrival_estimates), one row per arrived shipment × target × horizon
-- bucket. A TABLE computed by etalake (package estimate) with
-- arrival_estimates, not by SQL: this file gives its shape.
--
-- An arrival is known from the first observation that reported it actual
-- (known_at), at the time it reported (actual_at). A carrier that takes it
-- back (an estimate again, withdrawn_at) ends what it teaches from the
-- next UTC day on, and at once for the target's own estimates; the other
-- estimates made before, knowing it, keep what they learned (they could
-- not know better then). Reported again, it is a new arrival. Per horizon
-- bucket (how long before the arrival the ETA was observed, actual_at −
-- observed_at: below 0.5 days, 0.5–1.5, 1.5–2.5, 2.5–4, 4–6, 6–9, 9–12,
-- 12–17, 17–24 and 24 or more), the latest carrier ETA observed that far
-- before it and before known_at gives the errors: the carrier's, the
-- predictive ETA's of the same answer, and the estimate's own, in its
-- spreads. An ETA is corrected by the bucket of ETA − observed_at, what
-- is known when it is observed. An arrival no ETA of which was observed has one row of bucket
-- NULL.
-- rows: computed by etalake (package estimate)
CREATE OR REPLACE TABLE arrival_learning AS
SELECT CAST(NULL AS VARCHAR) AS shipment_number,
       CAST(NULL AS VARCHAR) AS shipment_type,
       CAST(NULL AS VARCHAR) AS target,
       CAST(NULL AS TIMESTAMPTZ) AS known_at,
       CAST(NULL AS TIMESTAMPTZ) AS actual_at,
       CAST(NULL AS TIMESTAMPTZ) AS withdrawn_at,
       CAST(NULL AS VARCHAR) AS carrier,
       CAST(NULL AS VARCHAR) AS locode,
       CAST(NULL AS VARCHAR) AS lane,
       CAST(NULL AS INTEGER) AS bucket,
       CAST(NULL AS DOUBLE) AS carrier_error_hours,
       CAST(NULL AS DOUBLE) AS predictive_error_hours,
       CAST(NULL AS DOUBLE) AS estimate_error_spreads
WHERE false;
COMMENT ON TABLE arrival_learning IS 'What each arrival taught etalake''s arrival estimate: one row per arrived shipment × target × horizon bucket, the errors of the latest ETAs observed that far before the arrival (actual − observed) and before it was known.';
COMMENT ON COLUMN arrival_learning.shipment_number IS 'the shipment (shipments)';
COMMENT ON COLUMN arrival_learning.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN arrival_learning.target IS 'POD or POSTPOD';
COMMENT ON COLUMN arrival_learning.known_at IS 'when the arrival was first observed reported actual';
COMMENT ON COLUMN arrival_learning.actual_at IS 'the actual arrival as first reported';
COMMENT ON COLUMN arrival_learning.withdrawn_at IS 'when the carrier took the arrival back (an estimate again): from the next UTC day on it teaches nothing, and an estimate of the target itself learns not from it (NULL: it stands)';
COMMENT ON COLUMN arrival_learning.carrier IS 'SCAC of the shipping line';
COMMENT ON COLUMN arrival_learning.locode IS 'the place of the target, as the ETA''s answer gave it';
COMMENT ON COLUMN arrival_learning.lane IS 'POL-place of the target, as the ETA''s answer gave them';
COMMENT ON COLUMN arrival_learning.bucket IS 'the horizon bucket of how long before the arrival its ETA was observed, 0 (under 0.5 days) to 9 (24 days or more); NULL: no ETA of the arrival was observed';
COMMENT ON COLUMN arrival_learning.carrier_error_hours IS 'actual − the carrier''s ETA, hours';
COMMENT ON COLUMN arrival_learning.predictive_error_hours IS 'actual − the predictive ETA of the same answer, hours (NULL: none)';
COMMENT ON COLUMN arrival_learning.estimate_error_spreads IS '(actual − etalake''s estimate) / its spread_hours: what its intervals are read from';
