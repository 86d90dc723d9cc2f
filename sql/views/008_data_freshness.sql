-- data_freshness: is what the warehouse keeps fresh being refreshed?
--
-- One row per tracked shipment: its state (active, arrived at its final
-- place, removed), when it was last observed, hours_since_observed (to the
-- wall clock now) and hours_behind_newest (to the newest successful
-- response in the warehouse, so that a warehouse replayed or built by the
-- demo reads sensibly), and the refresh policy's word on it as the latest
-- nightly run left it (tracked_shipments): next_due_date, due_reason,
-- deferred_since. The adaptive policy asks a shipment whose ETA is weeks
-- away once a week, so being days behind the newest response is no sign
-- of trouble: a shipment is stale when it is active and never observed,
-- or due on a night before the newest response's and not had since
-- without the pace having deferred it (its answer failed, a cap or the
-- quota stopped the run) — or, for one no nightly run has decided on yet,
-- more than 36 hours behind the newest response. Nights are UTC dates
-- (etalake_utc_date), as next_due_date's are: CAST(… AS DATE) would follow
-- the reader's TimeZone, and a shipment would be stale in Berlin and not
-- in Los Angeles.
--
-- And what is given up: a resource whose answer for a logical date was
-- not had in --max-reasks jobs (broken in transfer, or paging stopped
-- short) is listed by each job that ends with it given up
-- (etl_runs.given_up, with the command that asks it again); it stays
-- given up for that date until an answer of it for the date lands whole
-- after the latest job that listed it. A tracked shipment carries its
-- latest such date; any other resource given up (a port, lane or vessel
-- schedule, a shipment of a backfill) has a row of its own, state
-- 'given_up', observed when a whole answer of it last landed, and stale
-- as an active shipment would be.
CREATE OR REPLACE VIEW data_freshness AS
WITH newest AS (
    SELECT max(observed_at) AS newest_at FROM raw_responses WHERE status BETWEEN 200 AND 299
),
listed AS (
    SELECT r.logical_date, r.started_at, u.g.resource AS resource, u.g.failed_jobs AS failed_jobs, u.g.why AS why, u.g.command AS command
    FROM etl_runs AS r,
         unnest(from_json(r.given_up, '[{"resource": "VARCHAR", "failed_jobs": "INTEGER", "why": "VARCHAR", "command": "VARCHAR"}]')) AS u(g)
    WHERE r.given_up IS NOT NULL AND r.logical_date IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY u.g.resource, r.logical_date ORDER BY r.started_at DESC) = 1
),
given_up AS (
    SELECT l.resource,
           max(l.logical_date) AS given_up_date,
           count(*) AS given_up_dates,
           arg_max(l.failed_jobs, l.logical_date) AS failed_jobs,
           arg_max(l.why, l.logical_date) AS given_up_reason,
           arg_max(l.command, l.logical_date) AS reask_command
    FROM listed AS l
    WHERE NOT EXISTS (
        SELECT 1 FROM raw_responses AS a
        WHERE a.resource = l.resource AND a.logical_date = l.logical_date AND a.source = 'fetch'
          AND (a.status BETWEEN 200 AND 299 OR a.status = 404) AND a.broken IS NULL AND a.paging_stop IS NULL
          AND a.next_page IS NULL AND a.fetched_at > l.started_at)
    GROUP BY l.resource
),
tracked AS (
    SELECT 'shipment:' || t.shipment_type || ':' || t.shipment_number AS resource,
           t.shipment_number,
           t.shipment_type,
           coalesce(s.sealine, t.sealine) AS carrier,
           t.added_at,
           s.last_observed_at,
           t.next_due_date,
           t.due_reason,
           t.deferred_since,
           CASE
               WHEN t.removed_at IS NOT NULL THEN 'removed'
               WHEN (s.postpod_locode IS NOT NULL AND s.postpod_actual)
                 OR (s.postpod_locode IS NULL AND s.pod_actual) THEN 'arrived'
               ELSE 'active'
           END AS state
    FROM tracked_shipments AS t
    LEFT JOIN shipments AS s USING (shipment_number, shipment_type)
),
untracked AS (
    SELECT g.resource,
           CASE WHEN g.resource LIKE 'shipment:%' THEN split_part(g.resource, ':', 3) END AS shipment_number,
           CASE WHEN g.resource LIKE 'shipment:%' THEN split_part(g.resource, ':', 2) END AS shipment_type,
           CAST(NULL AS VARCHAR) AS carrier,
           CAST(NULL AS TIMESTAMPTZ) AS added_at,
           (SELECT max(a.observed_at) FROM raw_responses AS a
            WHERE a.resource = g.resource AND a.status BETWEEN 200 AND 299 AND a.broken IS NULL) AS last_observed_at,
           CAST(NULL AS DATE) AS next_due_date,
           CAST(NULL AS VARCHAR) AS due_reason,
           CAST(NULL AS DATE) AS deferred_since,
           'given_up' AS state
    FROM given_up AS g
    WHERE g.resource NOT IN (SELECT resource FROM tracked)
),
kept AS (
    SELECT * FROM tracked
    UNION ALL
    SELECT * FROM untracked
)
SELECT t.shipment_number,
       t.shipment_type,
       t.carrier,
       t.state,
       t.added_at,
       t.last_observed_at,
       (epoch_us(now()) - epoch_us(t.last_observed_at)) / 3600e6 AS hours_since_observed,
       (epoch_us(n.newest_at) - epoch_us(t.last_observed_at)) / 3600e6 AS hours_behind_newest,
       t.state IN ('active', 'given_up') AND (
           t.last_observed_at IS NULL
           OR CASE WHEN t.next_due_date IS NULL THEN epoch_us(n.newest_at) - epoch_us(t.last_observed_at) > 36 * 3600e6
                   ELSE t.next_due_date < etalake_utc_date(n.newest_at) AND t.deferred_since IS NULL END) AS is_stale,
       t.resource,
       g.given_up_date,
       coalesce(g.given_up_dates, 0) AS given_up_dates,
       g.failed_jobs,
       g.given_up_reason,
       g.reask_command,
       t.next_due_date,
       t.due_reason,
       t.deferred_since
FROM kept AS t
CROSS JOIN newest AS n
LEFT JOIN given_up AS g USING (resource);
COMMENT ON VIEW data_freshness IS 'Is what the warehouse keeps fresh being refreshed? One row per tracked shipment, and per other resource given up for a date (a schedule, a shipment of a backfill): its state, when it was last observed, whether it is stale, and what is given up, with the command that asks it again.';
COMMENT ON COLUMN data_freshness.shipment_number IS 'the tracked shipment (or the shipment given up); NULL on a schedule''s row';
COMMENT ON COLUMN data_freshness.shipment_type IS 'CT, BL or BK; NULL on a schedule''s row';
COMMENT ON COLUMN data_freshness.carrier IS 'SCAC of the shipping line: as the service reports it, else as given when tracked; NULL on a row of a resource not tracked';
COMMENT ON COLUMN data_freshness.state IS 'active, arrived (at its final place) or removed (from the tracked set); given_up for a resource not tracked that is given up for a date';
COMMENT ON COLUMN data_freshness.added_at IS 'when it was added to the tracked set; NULL when it is not tracked';
COMMENT ON COLUMN data_freshness.last_observed_at IS 'the last successful observation (NULL: never): the shipment''s, or for a resource not tracked its last whole answer''s';
COMMENT ON COLUMN data_freshness.hours_since_observed IS 'hours from last_observed_at to now (the wall clock)';
COMMENT ON COLUMN data_freshness.hours_behind_newest IS 'hours from last_observed_at to the newest successful response in the warehouse';
COMMENT ON COLUMN data_freshness.is_stale IS 'active (or given_up) and never observed, or due (next_due_date) on a night before the newest response''s UTC date and not had since, unless the pace deferred it; where no nightly run has decided (next_due_date NULL), more than 36 h behind the newest response';
COMMENT ON COLUMN data_freshness.resource IS 'the resource as raw_responses.resource names it: shipment:CT:MSCU1234566, port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483';
COMMENT ON COLUMN data_freshness.given_up_date IS 'the latest logical date for which the resource is given up: not had in --max-reasks jobs (broken in transfer or paging stopped short), and not answered since; NULL when none';
COMMENT ON COLUMN data_freshness.given_up_dates IS 'how many logical dates the resource is given up for (0: none)';
COMMENT ON COLUMN data_freshness.failed_jobs IS 'for given_up_date: the jobs that asked it in vain';
COMMENT ON COLUMN data_freshness.given_up_reason IS 'for given_up_date: what was wrong with its latest answer (broken in transfer, or where its paging stopped)';
COMMENT ON COLUMN data_freshness.reask_command IS 'for given_up_date: the command that asks it again now (etalake backfill … --date … --reask …); a job of the date also asks it once the service answers its product well again';
COMMENT ON COLUMN data_freshness.next_due_date IS 'the night the nightly run next asks it, as the latest nightly run decided (tracked_shipments.next_due_date): a night before that run''s means it was due then and is not had yet; NULL: never again (due_reason finished or dropped), not tracked, or no nightly run has decided yet';
COMMENT ON COLUMN data_freshness.due_reason IS 'why it is due on next_due_date: new, overdue (ETA passed, not arrived), near, mid, far, beyond (its tier by days until the ETA), horizon-14, -7, -3, -1 (the last night before its ETA comes within that many days), at-pod (final destination pending), grace, no-eta, billed (per shipment-month), nightly; finished or dropped with no date';
COMMENT ON COLUMN data_freshness.deferred_since IS 'the first night in a row the pace deferred it while due (the night''s allowance went to more valuable shipments): listed, asked within twice its interval; NULL when not deferred';
