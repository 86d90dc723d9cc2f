-- event_timeliness: how good were the estimated dates of container events,
-- and how late were actual events reported?
--
-- By carrier, event_type, event_code and route_type, over the events that
-- became actual: n_events; n_with_estimate (an estimate was observed
-- first); bias_hours, mae_hours and p90_abs_hours of actual − the last
-- estimate; avg_lead_hours (how long before the event that estimate was
-- seen); avg_report_delay_hours (from the event to the first observation
-- showing it actual: the reporting lag, bounded below by how often we
-- look). An observation whose actual flag is unknown (is_actual NULL: the
-- provider sent isActual null or none) counts as neither an estimate nor
-- the actual.
--
-- The reporting lag is measured on the events that happened after their
-- shipment was first observed (shipments.first_observed_at) alone. An
-- event that happened before it — a gate-out days before the shipment
-- was tracked — is shown actual at that first look, however promptly the
-- carrier reported it: its "delay" is when tracking began, days for
-- the events of a box tracked mid-voyage, and it swamped the hours of
-- the real lag in the mean. Those events are counted apart,
-- n_before_tracking, and still count in the estimate columns.
--
-- An event is actual when the latest observation that says either way
-- says actual: an actual reported and then taken back (an estimate again)
-- is as if it had never been reported — the event is left out while it is
-- an estimate, and once actual again, its report delay runs from the
-- first observation of that actual, after the last estimate.
CREATE OR REPLACE VIEW event_timeliness AS
WITH per_event AS (
    SELECT o.shipment_number,
           o.container_number,
           o.event_key,
           arg_max(o.event_at, o.observed_at) FILTER (WHERE o.is_actual) AS actual_at,
           min(o.observed_at) FILTER (WHERE o.is_actual) AS first_actual_seen_at,
           max(o.observed_at) FILTER (WHERE o.is_actual) AS last_actual_seen_at,
           arg_max(o.event_at, o.observed_at) FILTER (WHERE NOT o.is_actual) AS estimate_at,
           max(o.observed_at) FILTER (WHERE NOT o.is_actual) AS estimate_seen_at
    FROM event_observations AS o
    GROUP BY o.shipment_number, o.container_number, o.event_key
),
-- Actual now: the latest observation that says either way says actual.
actual AS (
    SELECT * FROM per_event
    WHERE last_actual_seen_at > estimate_seen_at OR (last_actual_seen_at IS NOT NULL AND estimate_seen_at IS NULL)
),
-- The events actual again after an actual withdrawn (an actual seen
-- before the last estimate), few: for them the report delay runs from the
-- first observation of the actual after the last estimate, which needs
-- that estimate first, hence a second look at their observations. (A
-- list of every actual observation per event would do it in one pass, but
-- such states cannot spill to disk: at 7 M observations it failed within
-- 120 MB where this runs within 60 MB, at about twice the time of the one
-- pass without it.)
reported_again AS (
    SELECT o.shipment_number, o.container_number, o.event_key, min(o.observed_at) AS actual_seen_at
    FROM event_observations AS o
    JOIN actual AS p
      ON p.shipment_number = o.shipment_number AND p.container_number = o.container_number AND p.event_key = o.event_key
    WHERE p.first_actual_seen_at < p.estimate_seen_at
      AND o.is_actual AND o.observed_at > p.estimate_seen_at
    GROUP BY o.shipment_number, o.container_number, o.event_key
),
reported AS (
    SELECT p.*, coalesce(r.actual_seen_at, p.first_actual_seen_at) AS actual_seen_at
    FROM actual AS p
    LEFT JOIN reported_again AS r
      ON r.shipment_number = p.shipment_number AND r.container_number = p.container_number AND r.event_key = p.event_key
)
SELECT s.sealine AS carrier,
       e.event_type,
       e.event_code,
       e.route_type,
       count(*) AS n_events,
       count(p.estimate_at) AS n_with_estimate,
       avg((epoch_us(p.actual_at) - epoch_us(p.estimate_at)) / 3600e6) AS bias_hours,
       avg(abs(epoch_us(p.actual_at) - epoch_us(p.estimate_at)) / 3600e6) AS mae_hours,
       quantile_cont(abs(epoch_us(p.actual_at) - epoch_us(p.estimate_at)) / 3600e6, 0.9) AS p90_abs_hours,
       avg((epoch_us(p.actual_at) - epoch_us(p.estimate_seen_at)) / 3600e6) AS avg_lead_hours,
       count(*) FILTER (WHERE p.actual_at < s.first_observed_at) AS n_before_tracking,
       avg((epoch_us(p.actual_seen_at) - epoch_us(p.actual_at)) / 3600e6) FILTER (
           WHERE p.actual_at >= s.first_observed_at) AS avg_report_delay_hours
FROM reported AS p
JOIN container_events AS e
  ON e.shipment_number = p.shipment_number AND e.container_number = p.container_number AND e.event_key = p.event_key
LEFT JOIN shipments AS s
  ON s.shipment_number = e.shipment_number AND s.shipment_type = e.shipment_type
WHERE p.actual_at IS NOT NULL
GROUP BY ALL;
COMMENT ON VIEW event_timeliness IS 'How good were the estimated dates of container events, and how late were actual events reported? By carrier, event type and code, route type.';
COMMENT ON COLUMN event_timeliness.carrier IS 'SCAC of the shipping line (shipments.sealine)';
COMMENT ON COLUMN event_timeliness.event_type IS 'EQUIPMENT, TRANSPORT, …';
COMMENT ON COLUMN event_timeliness.event_code IS 'DCSA code: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …';
COMMENT ON COLUMN event_timeliness.route_type IS 'LAND or SEA';
COMMENT ON COLUMN event_timeliness.n_events IS 'events that became actual';
COMMENT ON COLUMN event_timeliness.n_with_estimate IS 'of those, events with an estimate observed first';
COMMENT ON COLUMN event_timeliness.bias_hours IS 'mean of actual − last estimate, hours: positive, later than estimated';
COMMENT ON COLUMN event_timeliness.mae_hours IS 'mean absolute error of the last estimate, hours';
COMMENT ON COLUMN event_timeliness.p90_abs_hours IS '90th percentile of that absolute error, hours';
COMMENT ON COLUMN event_timeliness.avg_lead_hours IS 'mean time from when that estimate was seen to the event, hours';
COMMENT ON COLUMN event_timeliness.n_before_tracking IS 'of n_events, events that happened before their shipment was first observed: shown actual at that first look, so their delay says when tracking began, and they are left out of avg_report_delay_hours';
COMMENT ON COLUMN event_timeliness.avg_report_delay_hours IS 'mean time from the event to the first observation showing it actual, hours, over the events that happened after their shipment was first observed (n_events − n_before_tracking; bounded below by how often we look); NULL without one';
