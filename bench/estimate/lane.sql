/*
 * Whether a carrier × lane or carrier × port of discharge correction would
 * lift the 3-day ceiling of hindsight.sql (BENCHMARKS.md, "The ceiling at 3
 * days"): sums of absolute errors, hours, over the rows eta_accuracy judges
 * at 3 days, of the carrier's ETA, of the carrier's hindsight mean (every
 * other call of the carrier, later ones too, shrunk by 10 calls), and of
 * that mean moved towards the lane's or the port's by n/(n+k), n the
 * lane's or port's other calls, for k = 5 and 10. Sums, so that seeds pool
 * by adding; with the mean number of other calls a lane and a port have.
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/lane.sql)"
 */
WITH c AS (
  SELECT carrier, lane, pod_locode AS pod, vessel_call, error_hours AS e
  FROM eta_accuracy WHERE source = 'CARRIER' AND horizon_days = 3),
g AS (
  SELECT c.*,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS cm,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS cn,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.lane = c.lane AND d.vessel_call <> c.vessel_call) AS lm,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.lane = c.lane AND d.vessel_call <> c.vessel_call) AS ln,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.pod = c.pod AND d.vessel_call <> c.vessel_call) AS pm,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.pod = c.pod AND d.vessel_call <> c.vessel_call) AS pn
  FROM c),
h AS (SELECT *, coalesce(cm * cn / (cn + 10), 0) AS carr FROM g)
SELECT count(*) AS rows,
  round(sum(abs(e)), 1) AS carrier_eta,
  round(sum(abs(e - carr)), 1) AS hindsight_carrier,
  round(sum(abs(e - carr - coalesce((lm - carr) * ln / (ln + 5), 0))), 1) AS lane_k5,
  round(sum(abs(e - carr - coalesce((lm - carr) * ln / (ln + 10), 0))), 1) AS lane_k10,
  round(sum(abs(e - carr - coalesce((pm - carr) * pn / (pn + 5), 0))), 1) AS port_k5,
  round(sum(abs(e - carr - coalesce((pm - carr) * pn / (pn + 10), 0))), 1) AS port_k10,
  round(avg(ln), 1) AS lane_other_calls,
  round(avg(pn), 1) AS port_other_calls
FROM h
