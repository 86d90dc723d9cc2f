-- port_call_reliability: did each vessel arrive when the schedule said?
--
-- One row per port call (port_locode, vessel_imo, voyage) with a planned
-- arrival, whatever the number of observations and of queries (by port,
-- port to port, by vessel) that showed it: planned_at is the first planned
-- arrival observed (the baseline), actual_at the last actual arrival
-- reported, delay_hours = actual − planned.
--
-- outcome (Sea-Intelligence's ±24 h):
--   no_baseline            its plan was first seen after it was due: not judged
--   on_time, late, early   arrived within 24 h of plan, later, earlier
--   late_not_arrived       not arrived, but already more than 24 h past the
--                          plan when a query that reports actual arrivals
--                          (by port, by vessel) last showed it: late, whatever
--                          comes next (a call dropped from the count until it
--                          arrives would flatter the latest month)
--   omitted                not arrived, and no longer shown by its port's or
--                          its vessel's schedule on two later nights before
--                          its plan, though those queries showed other
--                          calls: dropped from the schedule (a port
--                          omission, or a voyage sailed by another ship),
--                          not judged; an actual arrival reported later
--                          judges it after all
--   unknown                due (planned before the newest schedule observed)
--                          but neither arrived nor yet provably late
--   not_due                planned after the newest schedule observed
--   unobservable           seen only by port-to-port queries, which show no
--                          actual arrivals: its outcome cannot be known here
-- on_time is true or false for the first four, NULL for the others.
CREATE OR REPLACE VIEW port_call_reliability AS
WITH newest AS (
    SELECT max(observed_at) AS as_of FROM port_calls
),
arrivals AS (
    SELECT port_locode,
           vessel_imo,
           voyage,
           arg_min(event_at, observed_at) FILTER (WHERE classifier = 'PLN') AS planned_at,
           arg_max(event_at, observed_at) FILTER (WHERE classifier = 'PLN') AS planned_last,
           min(observed_at) FILTER (WHERE classifier = 'PLN') AS plan_seen_at,
           arg_max(event_at, observed_at) FILTER (WHERE classifier = 'ACT') AS actual_at,
           max(observed_at) FILTER (WHERE query IN ('PORT', 'VESSEL')) AS last_seen_at,
           arg_max(carrier, observed_at) AS carrier,
           arg_max(service_code, observed_at) AS service_code,
           arg_max(vessel_name, observed_at) AS vessel_name,
           count(DISTINCT observed_at) AS observations
    FROM port_calls
    WHERE event_type_code = 'ARRI'
    GROUP BY port_locode, vessel_imo, voyage
),
-- The nights each port's and each vessel's schedule was seen, by a query
-- that would list every call of that port (by port) or vessel (by vessel)
-- in its window, and the first moment of each.
queried AS (
    SELECT port_locode, NULL AS vessel_imo, etalake_utc_date(observed_at) AS day, min(observed_at) AS at
    FROM port_calls WHERE query = 'PORT' GROUP BY ALL
    UNION ALL
    SELECT NULL, vessel_imo, etalake_utc_date(observed_at), min(observed_at)
    FROM port_calls WHERE query = 'VESSEL' GROUP BY ALL
),
-- A call not arrived and missing from its port's or vessel's schedule on
-- later nights before its plan: each such night's window covered it (the
-- window starts at the night and reached the plan when it was last shown,
-- nearer now), so the schedule dropped it. Two nights, not one, so that
-- one night's answer cut short (a page refused) drops nothing.
missing AS (
    SELECT a.port_locode, a.vessel_imo, a.voyage, count(DISTINCT q.day) AS nights
    FROM arrivals AS a
    JOIN queried AS q ON q.port_locode = a.port_locode OR q.vessel_imo = a.vessel_imo
    WHERE a.actual_at IS NULL
      AND q.day > etalake_utc_date(a.last_seen_at)
      AND q.at < a.planned_last
    GROUP BY ALL
),
judged AS (
    SELECT a.*,
           (epoch_us(a.actual_at) - epoch_us(a.planned_at)) / 3600e6 AS delay_hours,
           -- How far past the plan the call was when last seen (not arrived).
           (epoch_us(a.last_seen_at) - epoch_us(a.planned_at)) / 3600e6 AS overdue_hours,
           CASE
               WHEN a.plan_seen_at > a.planned_at THEN 'no_baseline'
               WHEN a.actual_at IS NOT NULL THEN
                   CASE WHEN abs(delay_hours) <= 24 THEN 'on_time' WHEN delay_hours > 24 THEN 'late' ELSE 'early' END
               WHEN a.last_seen_at IS NULL THEN 'unobservable'
               WHEN overdue_hours > 24 THEN 'late_not_arrived'
               WHEN m.nights >= 2 THEN 'omitted'
               WHEN a.planned_at <= n.as_of THEN 'unknown'
               ELSE 'not_due'
           END AS outcome
    FROM arrivals AS a
    CROSS JOIN newest AS n
    LEFT JOIN missing AS m USING (port_locode, vessel_imo, voyage)
    WHERE a.planned_at IS NOT NULL
)
SELECT carrier,
       service_code,
       port_locode,
       vessel_imo,
       vessel_name,
       voyage,
       planned_at,
       plan_seen_at,
       etalake_utc_month(planned_at) AS month,
       actual_at,
       last_seen_at,
       delay_hours,
       CASE WHEN outcome = 'late_not_arrived' THEN overdue_hours END AS late_at_least_hours,
       outcome,
       CASE WHEN outcome IN ('no_baseline', 'omitted', 'unknown', 'not_due', 'unobservable') THEN NULL ELSE outcome = 'on_time' END AS on_time,
       observations
FROM judged;
COMMENT ON VIEW port_call_reliability IS 'Did each vessel arrive when the schedule said? One row per port call with a planned arrival: the first plan seen, the last actual, and the outcome (on_time, late, early, late_not_arrived, omitted, unknown, not_due, unobservable, no_baseline) by Sea-Intelligence''s ±24 h.';
COMMENT ON COLUMN port_call_reliability.carrier IS 'SCAC of the carrier (the latest observation''s)';
COMMENT ON COLUMN port_call_reliability.service_code IS 'carrier service code';
COMMENT ON COLUMN port_call_reliability.port_locode IS 'the port called';
COMMENT ON COLUMN port_call_reliability.vessel_imo IS 'the vessel';
COMMENT ON COLUMN port_call_reliability.vessel_name IS 'vessel name as given';
COMMENT ON COLUMN port_call_reliability.voyage IS 'the import voyage of the arrival';
COMMENT ON COLUMN port_call_reliability.planned_at IS 'the first planned arrival observed: the baseline';
COMMENT ON COLUMN port_call_reliability.plan_seen_at IS 'when a plan of the call was first observed: after planned_at, there was no baseline';
COMMENT ON COLUMN port_call_reliability.month IS 'the UTC month of planned_at (its first day)';
COMMENT ON COLUMN port_call_reliability.actual_at IS 'the last actual arrival reported (NULL: not arrived as far as we know)';
COMMENT ON COLUMN port_call_reliability.last_seen_at IS 'the last observation of the call by a query that reports actual arrivals (by port, by vessel)';
COMMENT ON COLUMN port_call_reliability.delay_hours IS 'actual − planned, hours (NULL: not arrived)';
COMMENT ON COLUMN port_call_reliability.late_at_least_hours IS 'late_not_arrived: how late the call already was when last seen, hours';
COMMENT ON COLUMN port_call_reliability.outcome IS 'on_time, late or early (arrived; ±24 h), late_not_arrived (more than 24 h past plan when last seen, not arrived), omitted (not arrived and dropped from its port''s or vessel''s schedule on two later nights before its plan: not judged), unknown (due, not yet judged), not_due (planned after the newest observation), unobservable (seen only by port-to-port queries, which show no actual arrivals), no_baseline (plan first seen after the call was due)';
COMMENT ON COLUMN port_call_reliability.on_time IS 'true for on_time; false for late, early and late_not_arrived; NULL for the others (not judged)';
COMMENT ON COLUMN port_call_reliability.observations IS 'distinct observation instants of the arrival';
