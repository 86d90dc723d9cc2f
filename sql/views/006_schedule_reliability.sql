-- schedule_reliability: how reliable were the schedules, by carrier, port
-- and month, and how sure is that?
--
-- port_call_reliability summed up at each level of the level column, which
-- names the columns a row is grouped by (a grouping column it does not
-- name is NULL and means all): carrier_port_month, carrier_port (all
-- months), carrier_month (all ports), carrier, port_month (all carriers),
-- port (all carriers, all months), month (all carriers and ports), all.
-- month is the UTC month of the planned arrival.
--
-- n_calls counts the calls whose outcome is known: arrived, or already
-- more than 24 h late (n_late_not_arrived, counted late). n_unknown counts
-- the calls due but not judged yet, apart, and n_omitted the calls the
-- schedule dropped before they were due (not judged either); calls only port-to-port queries
-- showed (no actual arrivals there), and calls whose plan was first seen
-- after they were due (no baseline), are not counted at all.
-- on_time_share is n_on_time / n_calls with a 95 % Wilson interval; a
-- vessel's delay carries over to its next calls, so the error is
-- clustered by vessel (n_vessels, the clusters) and the interval takes
-- the effective n that clustering leaves, with t at n_vessels − 1 degrees
-- of freedom as its multiplier (NULL with one vessel). enough: n_vessels
-- reaches etalake_min_n() (5), the rule the ETA summaries apply to their
-- clusters: seven calls of one vessel are one draw, not seven.
-- month_complete (month levels): the row can no longer move. The month
-- and the 24 h after it are over by the newest schedule observed (every
-- call of it is due), and no call of the row is still late and not
-- arrived (n_late_not_arrived) or due and not judged (n_unknown): the
-- arrival of such a call would still move n_late_not_arrived,
-- avg_delay_late_hours or n_calls and the share. A call no schedule shows
-- any more, never reported arrived, keeps its rows incomplete for good;
-- they say how many such calls they wait for. One exception: an omitted
-- call (the schedule dropped it) does not hold a month open, and should
-- its arrival be reported after all it is judged, and the row moves.
CREATE OR REPLACE VIEW schedule_reliability AS
WITH newest AS (
    SELECT max(observed_at) AS as_of FROM port_calls
),
levels(level, by_carrier, by_port, by_month) AS (VALUES
    ('carrier_port_month', true, true, true),
    ('carrier_port', true, true, false),
    ('carrier_month', true, false, true),
    ('carrier', true, false, false),
    ('port_month', false, true, true),
    ('port', false, true, false),
    ('month', false, false, true),
    ('all', false, false, false)
),
base AS (
    SELECT l.level,
           CASE WHEN l.by_carrier THEN c.carrier END AS carrier,
           CASE WHEN l.by_port THEN c.port_locode END AS port_locode,
           CASE WHEN l.by_month THEN c.month END AS month,
           c.vessel_imo, c.outcome, c.on_time, c.delay_hours
    FROM port_call_reliability AS c
    CROSS JOIN levels AS l
    WHERE c.outcome NOT IN ('not_due', 'unobservable', 'no_baseline')
),
vessels AS (
    SELECT level, carrier, port_locode, month,
           count(on_time) AS n_g, count(*) FILTER (WHERE on_time) AS s_g
    FROM base
    WHERE on_time IS NOT NULL
    GROUP BY level, carrier, port_locode, month, vessel_imo
),
clustered AS (
    SELECT level, carrier, port_locode, month, count(*) AS n_vessels,
           sum(s_g * s_g) AS s2, sum(s_g * n_g) AS sn, sum(n_g * n_g) AS n2
    FROM vessels
    GROUP BY level, carrier, port_locode, month
),
plain AS (
    SELECT level, carrier, port_locode, month,
           count(on_time) AS n_calls,
           count(*) FILTER (WHERE on_time) AS n_on_time,
           avg(CASE WHEN on_time THEN 1.0 WHEN NOT on_time THEN 0.0 END) AS on_time_share,
           count(*) FILTER (WHERE outcome IN ('late', 'late_not_arrived')) AS n_late,
           count(*) FILTER (WHERE outcome = 'late_not_arrived') AS n_late_not_arrived,
           count(*) FILTER (WHERE outcome = 'early') AS n_early,
           count(*) FILTER (WHERE outcome = 'unknown') AS n_unknown,
           count(*) FILTER (WHERE outcome = 'omitted') AS n_omitted,
           avg(delay_hours) FILTER (WHERE outcome = 'late') AS avg_delay_late_hours
    FROM base
    GROUP BY level, carrier, port_locode, month
),
stats AS (
    SELECT p.*,
           coalesce(c.n_vessels, 0) AS n_vessels,
           etalake_cluster_se(c.n_vessels, p.n_calls, c.s2, c.sn, c.n2, p.on_time_share) AS se,
           etalake_t975(c.n_vessels - 1) AS t
    FROM plain AS p
    LEFT JOIN clustered AS c
      ON c.level = p.level AND c.carrier IS NOT DISTINCT FROM p.carrier
     AND c.port_locode IS NOT DISTINCT FROM p.port_locode AND c.month IS NOT DISTINCT FROM p.month
),
-- The effective n: the calls over the design effect of clustering (never
-- more than the calls; at 0 % or 100 % the clustered error says nothing,
-- and the calls count as they are).
effective AS (
    SELECT *,
           CASE WHEN se > 0 AND on_time_share > 0 AND on_time_share < 1
                THEN least(n_calls, on_time_share * (1 - on_time_share) / (se * se))
                ELSE n_calls END AS n_effective
    FROM stats
)
SELECT level, carrier, port_locode, month,
       n_calls, n_vessels, n_on_time, on_time_share,
       se AS on_time_se,
       etalake_wilson_lo(on_time_share, n_effective, t) AS on_time_lo,
       etalake_wilson_hi(on_time_share, n_effective, t) AS on_time_hi,
       n_vessels >= etalake_min_n() AS enough,
       n_late, n_late_not_arrived, n_early, n_unknown, n_omitted,
       avg_delay_late_hours,
       CASE WHEN month IS NOT NULL
            THEN epoch_us(month + INTERVAL 1 MONTH) + 24 * 3600000000 <= epoch_us(n.as_of)
                 AND n_late_not_arrived = 0 AND n_unknown = 0 END AS month_complete
FROM effective
CROSS JOIN newest AS n
WHERE n_calls > 0 OR n_unknown > 0 OR n_omitted > 0;
COMMENT ON VIEW schedule_reliability IS 'How reliable were the schedules? On-time share (±24 h of the first plan) by level (carrier_port_month, carrier_port, carrier_month, carrier, port_month, port, month, all) with a 95 % interval clustered by vessel; calls already more than 24 h late count late, calls not yet judged are counted apart.';
COMMENT ON COLUMN schedule_reliability.level IS 'what the row is grouped by: carrier_port_month, carrier_port, carrier_month, carrier, port_month, port, month or all; a grouping column the level does not name is NULL and means all';
COMMENT ON COLUMN schedule_reliability.carrier IS 'SCAC of the carrier (levels carrier*)';
COMMENT ON COLUMN schedule_reliability.port_locode IS 'the port (levels *port*)';
COMMENT ON COLUMN schedule_reliability.month IS 'UTC month of the planned arrival, its first day (levels *month)';
COMMENT ON COLUMN schedule_reliability.n_calls IS 'calls whose outcome is known: arrived, or already more than 24 h late';
COMMENT ON COLUMN schedule_reliability.n_vessels IS 'distinct vessels of those calls: the clusters of the interval, and what enough counts';
COMMENT ON COLUMN schedule_reliability.n_on_time IS 'calls that arrived within ±24 h of the plan';
COMMENT ON COLUMN schedule_reliability.on_time_share IS 'n_on_time / n_calls, 0 to 1 (NULL without a call judged)';
COMMENT ON COLUMN schedule_reliability.on_time_se IS 'standard error of on_time_share clustered by vessel (NULL below 2 vessels)';
COMMENT ON COLUMN schedule_reliability.on_time_lo IS 'lower bound of the 95 % Wilson interval of on_time_share, at the effective n clustering leaves, with t at n_vessels − 1 degrees of freedom (NULL with one vessel)';
COMMENT ON COLUMN schedule_reliability.on_time_hi IS 'upper bound of that interval';
COMMENT ON COLUMN schedule_reliability.enough IS 'n_vessels reaches etalake_min_n() (5): enough independent vessels to rank or compare, however many calls';
COMMENT ON COLUMN schedule_reliability.n_late IS 'calls more than 24 h late, arrived or not';
COMMENT ON COLUMN schedule_reliability.n_late_not_arrived IS 'of n_late, those not arrived yet: already more than 24 h past the plan when last seen';
COMMENT ON COLUMN schedule_reliability.n_early IS 'calls that arrived more than 24 h early';
COMMENT ON COLUMN schedule_reliability.n_unknown IS 'calls due but not judged yet (not arrived, not yet 24 h late when last seen): not in n_calls';
COMMENT ON COLUMN schedule_reliability.n_omitted IS 'calls not arrived that their port''s or vessel''s schedule dropped on two later nights before their plan (port omissions, voyages sailed by another ship): not judged, not in n_calls';
COMMENT ON COLUMN schedule_reliability.avg_delay_late_hours IS 'mean delay of the late calls that arrived, hours';
COMMENT ON COLUMN schedule_reliability.month_complete IS 'month levels: the row can no longer move — the month and the 24 h after it are over by the newest schedule observed, and no call of it is late and not arrived (n_late_not_arrived) or due and not judged (n_unknown); false: it can still move (an omitted call reported arrived after all, rare, moves even a complete row); NULL at other levels';
