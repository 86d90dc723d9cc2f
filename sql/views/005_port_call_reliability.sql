-- port_call_reliability: did each vessel arrive when the schedule said?
--
-- One row per port call (port_locode, vessel_imo, voyage) whose planned and
-- actual arrivals were both observed, whatever the number of observations
-- and of queries (by port, port to port, by vessel) that showed it:
-- planned_at is the first planned arrival observed (the baseline),
-- actual_at the last actual arrival reported; delay_hours = actual −
-- planned; on_time when |delay| ≤ 24 h (Sea-Intelligence's definition).
CREATE OR REPLACE VIEW port_call_reliability AS
WITH arrivals AS (
    SELECT port_locode,
           vessel_imo,
           voyage,
           arg_min(event_at, observed_at) FILTER (WHERE classifier = 'PLN') AS planned_at,
           arg_max(event_at, observed_at) FILTER (WHERE classifier = 'ACT') AS actual_at,
           arg_max(carrier, observed_at) AS carrier,
           arg_max(service_code, observed_at) AS service_code,
           arg_max(vessel_name, observed_at) AS vessel_name,
           count(DISTINCT observed_at) AS observations
    FROM port_calls
    WHERE event_type_code = 'ARRI'
    GROUP BY port_locode, vessel_imo, voyage
)
SELECT carrier,
       service_code,
       port_locode,
       vessel_imo,
       vessel_name,
       voyage,
       planned_at,
       actual_at,
       (epoch_us(actual_at) - epoch_us(planned_at)) / 3600e6 AS delay_hours,
       abs(epoch_us(actual_at) - epoch_us(planned_at)) <= 24 * 3600e6 AS on_time,
       observations
FROM arrivals
WHERE planned_at IS NOT NULL AND actual_at IS NOT NULL;
