-- data_freshness: is the tracked set being refreshed?
--
-- One row per tracked shipment: its state (active, arrived at its final
-- place, removed), when it was last observed, hours_since_observed (to the
-- wall clock now) and hours_behind_newest (to the newest successful
-- response in the warehouse, so that a warehouse replayed or built by the
-- demo reads sensibly), and is_stale: an active shipment never observed,
-- or more than 36 hours behind the newest response while others were
-- refreshed.
CREATE OR REPLACE VIEW data_freshness AS
WITH newest AS (
    SELECT max(observed_at) AS newest_at FROM raw_responses WHERE status BETWEEN 200 AND 299
),
tracked AS (
    SELECT t.shipment_number,
           t.shipment_type,
           coalesce(s.sealine, t.sealine) AS carrier,
           t.added_at,
           s.last_observed_at,
           CASE
               WHEN t.removed_at IS NOT NULL THEN 'removed'
               WHEN (s.postpod_locode IS NOT NULL AND s.postpod_actual)
                 OR (s.postpod_locode IS NULL AND s.pod_actual) THEN 'arrived'
               ELSE 'active'
           END AS state
    FROM tracked_shipments AS t
    LEFT JOIN shipments AS s USING (shipment_number, shipment_type)
)
SELECT t.shipment_number,
       t.shipment_type,
       t.carrier,
       t.state,
       t.added_at,
       t.last_observed_at,
       (epoch_us(now()) - epoch_us(t.last_observed_at)) / 3600e6 AS hours_since_observed,
       (epoch_us(n.newest_at) - epoch_us(t.last_observed_at)) / 3600e6 AS hours_behind_newest,
       t.state = 'active' AND (t.last_observed_at IS NULL OR epoch_us(n.newest_at) - epoch_us(t.last_observed_at) > 36 * 3600e6) AS is_stale
FROM tracked AS t
CROSS JOIN newest AS n;
COMMENT ON VIEW data_freshness IS 'Is the tracked set being refreshed? One row per tracked shipment: its state, when it was last observed, and whether it is stale.';
COMMENT ON COLUMN data_freshness.shipment_number IS 'the tracked shipment';
COMMENT ON COLUMN data_freshness.shipment_type IS 'CT, BL or BK';
COMMENT ON COLUMN data_freshness.carrier IS 'SCAC of the shipping line: as the service reports it, else as given when tracked';
COMMENT ON COLUMN data_freshness.state IS 'active, arrived (at its final place) or removed (from the tracked set)';
COMMENT ON COLUMN data_freshness.added_at IS 'when it was added to the tracked set';
COMMENT ON COLUMN data_freshness.last_observed_at IS 'the last successful observation (NULL: never)';
COMMENT ON COLUMN data_freshness.hours_since_observed IS 'hours from last_observed_at to now (the wall clock)';
COMMENT ON COLUMN data_freshness.hours_behind_newest IS 'hours from last_observed_at to the newest successful response in the warehouse';
COMMENT ON COLUMN data_freshness.is_stale IS 'active and never observed, or more than 36 h behind the newest response';
