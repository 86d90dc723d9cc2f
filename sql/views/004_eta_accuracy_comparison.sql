-- eta_accuracy_comparison: is the service's predictive ETA better than the
-- carrier's, and by how much?
--
-- One row per carrier × horizon_days over all its PODs (carrier NULL: every
-- carrier): the carrier's and the predictive ETA's n, bias and MAE side by
-- side, compared on the same shipments (those with both ETAs known at that
-- horizon), and which was closer on average. The predictive ETA exists only
-- within about 3 days of arrival.
CREATE OR REPLACE VIEW eta_accuracy_comparison AS
WITH pairs AS (
    SELECT c.carrier, c.horizon_days, c.error_hours AS carrier_error, p.error_hours AS predictive_error
    FROM eta_accuracy AS c
    JOIN eta_accuracy AS p
      ON p.shipment_number = c.shipment_number AND p.shipment_type = c.shipment_type
     AND p.target = c.target AND p.horizon_days = c.horizon_days
    WHERE c.target = 'POD' AND c.source = 'CARRIER' AND p.source = 'PREDICTIVE'
      AND c.error_hours IS NOT NULL AND p.error_hours IS NOT NULL
)
SELECT carrier,
       horizon_days,
       count(*) AS n,
       avg(carrier_error) AS carrier_bias_hours,
       avg(abs(carrier_error)) AS carrier_mae_hours,
       avg(predictive_error) AS predictive_bias_hours,
       avg(abs(predictive_error)) AS predictive_mae_hours,
       avg(CASE WHEN abs(predictive_error) < abs(carrier_error) THEN 1.0 ELSE 0.0 END) AS predictive_closer_share,
       CASE WHEN avg(abs(predictive_error)) < avg(abs(carrier_error)) THEN 'PREDICTIVE' ELSE 'CARRIER' END AS better
FROM pairs
GROUP BY GROUPING SETS ((carrier, horizon_days), (horizon_days));
