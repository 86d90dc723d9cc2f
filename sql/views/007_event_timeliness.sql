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
CREATE OR REPLACE VIEW event_timeliness AS
WITH per_event AS (
    SELECT o.shipment_number,
           o.container_number,
           o.event_key,
           arg_max(o.event_at, o.observed_at) FILTER (WHERE o.is_actual) AS actual_at,
           min(o.observed_at) FILTER (WHERE o.is_actual) AS actual_seen_at,
           arg_max(o.event_at, o.observed_at) FILTER (WHERE NOT o.is_actual) AS estimate_at,
           max(o.observed_at) FILTER (WHERE NOT o.is_actual) AS estimate_seen_at
    FROM event_observations AS o
    GROUP BY o.shipment_number, o.container_number, o.event_key
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
       avg((epoch_us(p.actual_seen_at) - epoch_us(p.actual_at)) / 3600e6) AS avg_report_delay_hours
FROM per_event AS p
JOIN container_events AS e
  ON e.shipment_number = p.shipment_number AND e.container_number = p.container_number AND e.event_key = p.event_key
LEFT JOIN shipments AS s
  ON s.shipment_number = e.shipment_number AND s.shipment_type = e.shipment_type
WHERE p.actual_at IS NOT NULL
GROUP BY ALL;
