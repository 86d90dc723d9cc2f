-- eta_accuracy_known: the ETAs known before each arrival. A TABLE, not a
-- view: it is rebuilt from eta_observations and shipments when a warehouse
-- is opened for writing with a new definition, and at the end of every job
-- (run, backfill, import, replay, demo), so that the accuracy views answer
-- in well under a second over tens of millions of observations. Between
-- jobs it is as of the last one.
--
-- One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER,
-- PREDICTIVE; PREDICTIVE for the POD only): the actual arrival (the last
-- reported actual date of the target), the carrier and ports, and for each
-- horizon h in 1, 3, 7 and 14 days the latest estimate observed at or
-- before (actual − h), eta_<h>, and when it was observed, seen_<h> (null:
-- nothing was known yet). eta_accuracy unpivots it by horizon.
--
-- The as-of lookup is one aggregation — for each horizon, the estimate with
-- the latest observed_at not after the cut — rather than an ASOF JOIN per
-- horizon (slower here), keyed by integer epoch microseconds: TIMESTAMPTZ
-- interval arithmetic goes through the ICU calendar and is some 40 times
-- slower, and fixed-size aggregate states can spill to disk when the
-- observations outgrow memory.
CREATE OR REPLACE TABLE eta_accuracy_known AS
WITH actuals AS (
    SELECT shipment_number, shipment_type, target, arg_max(eta, observed_at) AS actual_at
    FROM eta_observations
    WHERE source = 'CARRIER' AND is_actual AND target IN ('POD', 'POSTPOD')
    GROUP BY shipment_number, shipment_type, target
),
observed AS (
    SELECT e.shipment_number, e.shipment_type, e.target, e.source, e.observed_at, e.eta,
           epoch_us(e.observed_at) AS seen_us, epoch_us(a.actual_at) AS actual_us
    FROM eta_observations AS e
    JOIN actuals AS a
      ON a.shipment_number = e.shipment_number AND a.shipment_type = e.shipment_type AND a.target = e.target
    WHERE NOT e.is_actual
),
known AS (
    SELECT shipment_number, shipment_type, target, source,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 1 * 86400000000) AS seen_1,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 1 * 86400000000) AS eta_1,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 3 * 86400000000) AS seen_3,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 3 * 86400000000) AS eta_3,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 7 * 86400000000) AS seen_7,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 7 * 86400000000) AS eta_7,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 14 * 86400000000) AS seen_14,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 14 * 86400000000) AS eta_14
    FROM observed
    WHERE seen_us <= actual_us - 86400000000
    GROUP BY shipment_number, shipment_type, target, source
)
SELECT a.shipment_number,
       a.shipment_type,
       s.sealine AS carrier,
       s.pol_locode,
       s.pod_locode,
       a.target,
       src.source,
       a.actual_at,
       k.seen_1, k.eta_1, k.seen_3, k.eta_3, k.seen_7, k.eta_7, k.seen_14, k.eta_14
FROM actuals AS a
CROSS JOIN (VALUES ('CARRIER'), ('PREDICTIVE')) AS src(source)
LEFT JOIN known AS k
  ON k.shipment_number = a.shipment_number AND k.shipment_type = a.shipment_type
 AND k.target = a.target AND k.source = src.source
LEFT JOIN shipments AS s
  ON s.shipment_number = a.shipment_number AND s.shipment_type = a.shipment_type
WHERE src.source = 'CARRIER' OR a.target = 'POD';
