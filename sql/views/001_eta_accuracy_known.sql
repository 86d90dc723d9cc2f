-- eta_accuracy_known: the ETAs known before each arrival. A TABLE, not a
-- view: it is built from eta_observations, shipments and container_events
-- when a warehouse is opened for writing with a new definition, and
-- refreshed at the end of every job (run, backfill, import, replay, demo)
-- for the shipments the job changed, so that the accuracy views answer in
-- about a second over tens of millions of observations. Between jobs it is
-- as of the last one.
--
-- One row per arrived shipment × target (POD, POSTPOD) × source (CARRIER,
-- PREDICTIVE, ETALAKE; PREDICTIVE for the POD only; ETALAKE is etalake's
-- own estimate, arrival_estimates, judged as the others): the actual arrival (the actual
-- date of the target in the shipment's latest answer), the carrier, ports
-- and lane, whether the box was transhipped, the vessel call it arrived on
-- at its POD, how the estimate was revised before the arrival, and for
-- each horizon h in 1, 3, 7 and 14 days the latest estimate observed at or
-- before (actual − h), eta_<h>, and when it was observed, seen_<h> (null:
-- nothing was known yet). eta_accuracy unpivots it by horizon.
--
-- The as-of lookup is one aggregation — for each horizon, the estimate with
-- the latest observed_at not after the cut — rather than an ASOF JOIN per
-- horizon (slower here), keyed by integer epoch microseconds: TIMESTAMPTZ
-- interval arithmetic goes through the ICU calendar and is some 40 times
-- slower, and fixed-size aggregate states can spill to disk when the
-- observations outgrow memory.
--
-- A shipment has arrived at a target when its latest answer says so
-- (shipments.pod_actual, postpod_actual), not when any answer once did: a
-- carrier that reports an arrival and then takes it back (the date an
-- estimate again) leaves no row here, as if it had never reported it, and
-- every column of the row — the arrival, the estimates before it, the
-- vessel call, the transhipment — rests on the same answer's word.
--
-- Each row rests on its shipment's rows alone, so a job's refresh
-- recomputes the rows of the shipments it changed, not the table (the
-- line below tells etalake so; run whole, the file builds it all):
-- rows: per shipment
CREATE OR REPLACE TABLE eta_accuracy_known AS
WITH actuals AS (
    SELECT shipment_number, shipment_type, 'POD' AS target, pod_date AS actual_at
    FROM shipments
    WHERE pod_actual AND pod_date IS NOT NULL
    UNION ALL
    SELECT shipment_number, shipment_type, 'POSTPOD' AS target, postpod_date AS actual_at
    FROM shipments
    WHERE postpod_actual AND postpod_date IS NOT NULL
),
-- The estimates: the providers' as observed, and etalake's own made of
-- each carrier ETA.
estimates AS (
    SELECT shipment_number, shipment_type, target, source, observed_at, eta
    FROM eta_observations
    WHERE NOT is_actual
    UNION ALL
    SELECT shipment_number, shipment_type, target, 'ETALAKE', observed_at, estimate_at
    FROM arrival_estimates
),
-- Every estimate made before the arrival, with the change from the one
-- before it (a revision when not 0). The partition leads with a hash of
-- its key: sorting tens of millions of rows on four strings took three
-- times as long.
observed AS (
    SELECT e.shipment_number, e.shipment_type, e.target, e.source, e.observed_at, e.eta,
           epoch_us(e.observed_at) AS seen_us, epoch_us(a.actual_at) AS actual_us,
           epoch_us(e.eta) - lag(epoch_us(e.eta)) OVER (
               PARTITION BY hash(e.shipment_number, e.shipment_type, e.target, e.source),
                            e.shipment_number, e.shipment_type, e.target, e.source
               ORDER BY e.observed_at) AS change_us
    FROM estimates AS e
    JOIN actuals AS a
      ON a.shipment_number = e.shipment_number AND a.shipment_type = e.shipment_type AND a.target = e.target
    WHERE e.observed_at < a.actual_at
),
known AS (
    SELECT shipment_number, shipment_type, target, source,
           count(*) AS estimates,
           count(*) FILTER (WHERE change_us <> 0) AS revisions,
           avg(abs(change_us)) FILTER (WHERE change_us <> 0) / 3600e6 AS mean_abs_revision_hours,
           arg_max(eta, seen_us) AS eta_last,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 1 * 86400000000) AS seen_1,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 1 * 86400000000) AS eta_1,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 3 * 86400000000) AS seen_3,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 3 * 86400000000) AS eta_3,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 7 * 86400000000) AS seen_7,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 7 * 86400000000) AS eta_7,
           arg_max(observed_at, seen_us) FILTER (WHERE seen_us <= actual_us - 14 * 86400000000) AS seen_14,
           arg_max(eta, seen_us) FILTER (WHERE seen_us <= actual_us - 14 * 86400000000) AS eta_14
    FROM observed
    GROUP BY shipment_number, shipment_type, target, source
),
-- What the container events say of each arrived shipment: transhipped when
-- a box was discharged or loaded at sea at a place that is neither its POL
-- nor its POD, or sailed on more than one vessel (NULL: no event with a
-- place); and the vessel and voyage it arrived on at its POD. Arrived at
-- either target: a POSTPOD arrival whose POD actual the carrier took back
-- still sailed those legs, and its row keeps them.
legs AS (
    SELECT e.shipment_number, e.shipment_type,
           bool_or(e.event_code IN ('LOAD', 'DISC') AND coalesce(e.route_type, 'SEA') = 'SEA'
                   AND e.locode <> s.pol_locode AND e.locode <> s.pod_locode)
             OR min(e.vessel_imo) <> max(e.vessel_imo) AS transhipped,
           arg_max({'imo': e.vessel_imo, 'voyage': e.voyage}, e.last_observed_at) FILTER (
               WHERE e.locode = s.pod_locode AND e.event_code IN ('ARRI', 'DISC') AND e.vessel_imo IS NOT NULL) AS pod_call
    FROM container_events AS e
    JOIN shipments AS s
      ON s.shipment_number = e.shipment_number AND s.shipment_type = e.shipment_type
    WHERE (s.pod_actual OR s.postpod_actual) AND e.locode IS NOT NULL
    GROUP BY e.shipment_number, e.shipment_type
)
SELECT a.shipment_number,
       a.shipment_type,
       s.sealine AS carrier,
       s.pol_locode,
       s.pod_locode,
       s.pol_locode || '-' || s.pod_locode AS lane,
       l.transhipped,
       -- The vessel call the box arrived on at its POD: port, vessel and
       -- voyage; without a vessel in the events, the port and the instant
       -- of the actual arrival there (boxes of one call arrive together);
       -- without either, the shipment alone.
       CASE WHEN l.pod_call IS NOT NULL THEN s.pod_locode || ' ' || l.pod_call.imo || ' ' || coalesce(l.pod_call.voyage, '')
            WHEN s.pod_actual AND s.pod_date IS NOT NULL THEN s.pod_locode || ' @' || strftime(s.pod_date AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%MZ')
            -- Nothing to tell its call by: a cluster of its own.
            ELSE 'shipment ' || a.shipment_type || ' ' || a.shipment_number
       END AS vessel_call,
       a.target,
       src.source,
       a.actual_at,
       coalesce(k.estimates, 0) AS estimates,
       coalesce(k.revisions, 0) AS revisions,
       k.mean_abs_revision_hours,
       k.eta_last,
       k.seen_1, k.eta_1, k.seen_3, k.eta_3, k.seen_7, k.eta_7, k.seen_14, k.eta_14
FROM actuals AS a
CROSS JOIN (VALUES ('CARRIER'), ('PREDICTIVE'), ('ETALAKE')) AS src(source)
LEFT JOIN known AS k
  ON k.shipment_number = a.shipment_number AND k.shipment_type = a.shipment_type
 AND k.target = a.target AND k.source = src.source
LEFT JOIN shipments AS s
  ON s.shipment_number = a.shipment_number AND s.shipment_type = a.shipment_type
LEFT JOIN legs AS l
  ON l.shipment_number = a.shipment_number AND l.shipment_type = a.shipment_type
WHERE src.source <> 'PREDICTIVE' OR a.target = 'POD';
COMMENT ON TABLE eta_accuracy_known IS 'The ETAs known before each arrival (the carrier''s, the predictive one, etalake''s own), one row per arrived shipment × target × source with every horizon''s ETA (eta_1 … eta_14) and when it was seen (seen_1 … seen_14): the lookup behind eta_accuracy, rebuilt at the end of every job.';
COMMENT ON COLUMN eta_accuracy_known.shipment_number IS 'the shipment (shipments)';
COMMENT ON COLUMN eta_accuracy_known.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN eta_accuracy_known.carrier IS 'SCAC of the shipping line (shipments.sealine)';
COMMENT ON COLUMN eta_accuracy_known.pol_locode IS 'port of loading';
COMMENT ON COLUMN eta_accuracy_known.pod_locode IS 'port of discharge';
COMMENT ON COLUMN eta_accuracy_known.lane IS 'the trade lane, POL-POD (CNSHA-NLRTM)';
COMMENT ON COLUMN eta_accuracy_known.transhipped IS 'true when a box was discharged or loaded at sea at a place other than its POL and POD, or sailed on more than one vessel; NULL when no container event names a place';
COMMENT ON COLUMN eta_accuracy_known.vessel_call IS 'the vessel call the box arrived on at its POD (port, IMO, voyage; else port @ actual arrival): the cluster of the intervals, since the boxes of one call share its delay';
COMMENT ON COLUMN eta_accuracy_known.target IS 'POD or POSTPOD';
COMMENT ON COLUMN eta_accuracy_known.source IS 'CARRIER (the route date), PREDICTIVE (the service''s predictiveEta, POD only) or ETALAKE (etalake''s own estimate, arrival_estimates)';
COMMENT ON COLUMN eta_accuracy_known.actual_at IS 'the actual arrival at the target, as the shipment''s latest answer reports it (an arrival reported and then withdrawn has no row)';
COMMENT ON COLUMN eta_accuracy_known.estimates IS 'estimates observed before the arrival';
COMMENT ON COLUMN eta_accuracy_known.revisions IS 'times the estimate changed from one observation to the next before the arrival';
COMMENT ON COLUMN eta_accuracy_known.mean_abs_revision_hours IS 'mean size of those changes, hours (NULL without one)';
COMMENT ON COLUMN eta_accuracy_known.eta_last IS 'the last estimate observed before the arrival';
COMMENT ON COLUMN eta_accuracy_known.seen_1 IS 'when the latest estimate at or before actual − 1 day was observed';
COMMENT ON COLUMN eta_accuracy_known.eta_1 IS 'that estimate';
COMMENT ON COLUMN eta_accuracy_known.seen_3 IS 'when the latest estimate at or before actual − 3 days was observed';
COMMENT ON COLUMN eta_accuracy_known.eta_3 IS 'that estimate';
COMMENT ON COLUMN eta_accuracy_known.seen_7 IS 'when the latest estimate at or before actual − 7 days was observed';
COMMENT ON COLUMN eta_accuracy_known.eta_7 IS 'that estimate';
COMMENT ON COLUMN eta_accuracy_known.seen_14 IS 'when the latest estimate at or before actual − 14 days was observed';
COMMENT ON COLUMN eta_accuracy_known.eta_14 IS 'that estimate';
