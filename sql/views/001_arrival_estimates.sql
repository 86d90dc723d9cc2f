-- arrival_estimates: etalake's own arrival estimate, made of every carrier
-- ETA observed at a shipment's POD or POSTPOD, with an 80 % and a 95 %
-- interval. A TABLE computed by etalake (package estimate), not by SQL:
-- this file gives its shape. It is computed at the end of every job for
-- the observations the job landed, from the UTC day of the earliest one
-- on, and whole when this file changes.
--
-- What each estimate learns from is the arrivals known before the UTC day
-- its ETA was observed on (arrival_learning: the first actual each target
-- was reported with, and the errors then known), never later ones: the
-- estimate of an observation is the same in a warehouse of 40 days and in
-- one of 60. It learns the error (actual − ETA) of the carrier's ETAs by
-- horizon (the ETA's distance from when it was observed), by carrier
-- (shrunk towards none, the carrier's ETA as it is, by n/(n + 10) of its n
-- arrivals; a carrier not seen yet at that horizon keeps its ETA), by carrier ×
-- port and by carrier × lane (each shrunk likewise towards the level
-- before), each carrier's errors clipped at 2 MADs about its own median,
-- recent arrivals weighing more
-- (half-life 30 days, none older than 120); it blends in the service's
-- predictive ETA of the same answer, corrected likewise, in the weight
-- their past errors and covariance give it; and it reads its intervals
-- from the quantiles of its own past errors at that horizon, scaled by the
-- spread it expects (spread_hours). docs/analytics.md says when it is not
-- to be trusted.
-- rows: computed by etalake (package estimate)
CREATE OR REPLACE TABLE arrival_estimates AS
SELECT CAST(NULL AS VARCHAR) AS shipment_number,
       CAST(NULL AS VARCHAR) AS shipment_type,
       CAST(NULL AS VARCHAR) AS target,
       CAST(NULL AS TIMESTAMPTZ) AS observed_at,
       CAST(NULL AS VARCHAR) AS carrier,
       CAST(NULL AS VARCHAR) AS locode,
       CAST(NULL AS VARCHAR) AS lane,
       CAST(NULL AS TIMESTAMPTZ) AS eta,
       CAST(NULL AS TIMESTAMPTZ) AS predictive_eta,
       CAST(NULL AS DOUBLE) AS horizon_days,
       CAST(NULL AS TIMESTAMPTZ) AS estimate_at,
       CAST(NULL AS TIMESTAMPTZ) AS lo_80,
       CAST(NULL AS TIMESTAMPTZ) AS hi_80,
       CAST(NULL AS TIMESTAMPTZ) AS lo_95,
       CAST(NULL AS TIMESTAMPTZ) AS hi_95,
       CAST(NULL AS DOUBLE) AS spread_hours,
       CAST(NULL AS DOUBLE) AS predictive_weight,
       CAST(NULL AS VARCHAR) AS basis_level,
       CAST(NULL AS INTEGER) AS basis_arrivals,
       CAST(NULL AS VARCHAR) AS basis
WHERE false;
COMMENT ON TABLE arrival_estimates IS 'etalake''s own arrival estimate of every carrier ETA observed at a POD or POSTPOD, with 80 % and 95 % intervals, learned only from arrivals known before the day the ETA was observed; one row per shipment × target × observation.';
COMMENT ON COLUMN arrival_estimates.shipment_number IS 'the shipment (shipments)';
COMMENT ON COLUMN arrival_estimates.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN arrival_estimates.target IS 'POD or POSTPOD';
COMMENT ON COLUMN arrival_estimates.observed_at IS 'when the carrier''s ETA was observed (eta_observations.observed_at)';
COMMENT ON COLUMN arrival_estimates.carrier IS 'SCAC of the shipping line (shipments.sealine)';
COMMENT ON COLUMN arrival_estimates.locode IS 'the place of the target, as that answer gave it';
COMMENT ON COLUMN arrival_estimates.lane IS 'POL-place of the target, as that answer gave them';
COMMENT ON COLUMN arrival_estimates.eta IS 'the carrier''s ETA observed';
COMMENT ON COLUMN arrival_estimates.predictive_eta IS 'the service''s predictive ETA of the same answer (NULL: none)';
COMMENT ON COLUMN arrival_estimates.horizon_days IS 'eta − observed_at in days: the horizon the errors were learned at';
COMMENT ON COLUMN arrival_estimates.estimate_at IS 'etalake''s estimate of the arrival';
COMMENT ON COLUMN arrival_estimates.lo_80 IS 'lower bound of the 80 % interval (NULL: too few past errors of the estimate known yet)';
COMMENT ON COLUMN arrival_estimates.hi_80 IS 'upper bound of the 80 % interval';
COMMENT ON COLUMN arrival_estimates.lo_95 IS 'lower bound of the 95 % interval';
COMMENT ON COLUMN arrival_estimates.hi_95 IS 'upper bound of the 95 % interval';
COMMENT ON COLUMN arrival_estimates.spread_hours IS 'the standard deviation of its error the estimate expects, hours: the scale its past errors are read in';
COMMENT ON COLUMN arrival_estimates.predictive_weight IS 'the weight the predictive ETA had in the estimate, 0 to 1 (0: not used)';
COMMENT ON COLUMN arrival_estimates.basis_level IS 'the finest level it learned from: lane (carrier × lane), port (carrier × port), carrier, all (only other carriers'' arrivals known: the carrier''s ETA as it is, with their spread), or none (nothing known yet: the carrier''s ETA as it is, no interval)';
COMMENT ON COLUMN arrival_estimates.basis_arrivals IS 'arrivals known at that level and horizon';
COMMENT ON COLUMN arrival_estimates.basis IS 'the arrivals it learned from at each level, in words';
