-- schedule_reliability: how reliable were the schedules, by carrier, port
-- and month?
--
-- port_call_reliability summed up by carrier, port_locode and month (of the
-- planned arrival): n_calls, on_time_share (share within ±24 h of plan),
-- n_late and avg_delay_late_hours (mean delay of the calls more than 24 h
-- late). Each call counts once. A row with port_locode NULL sums all ports
-- of the carrier for the month; month NULL as well sums the carrier's
-- whole history.
CREATE OR REPLACE VIEW schedule_reliability AS
SELECT carrier,
       port_locode,
       CAST(date_trunc('month', planned_at) AS DATE) AS month,
       count(*) AS n_calls,
       avg(CASE WHEN on_time THEN 1.0 ELSE 0.0 END) AS on_time_share,
       count(*) FILTER (WHERE delay_hours > 24) AS n_late,
       avg(delay_hours) FILTER (WHERE delay_hours > 24) AS avg_delay_late_hours
FROM port_call_reliability
GROUP BY GROUPING SETS ((carrier, port_locode, month), (carrier, month), (carrier));
