/*
 * At 3 days, the carrier's ETA corrected by leave-one-call-out means
 * (every other call of the carrier, later ones too), shrunk by 10 calls:
 * by carrier, carrier × vessel, carrier × port, carrier × lane, and
 * carrier, vessel and port together; beside it
 * etalake's estimate and a per-carrier median fitted on the very rows
 * judged (BENCHMARKS.md, "Two more ideas"). MAE in hours, over the judged
 * rows (those with an error; seeds pool weighted by them). Run on a
 * warehouse bench/estimate kept:
 *   etalake sql --warehouse DIR/default-11 "$(cat bench/estimate/levels.sql)"
 */
WITH c AS (
  SELECT shipment_number, shipment_type, target, carrier, pod_locode, lane, vessel_call,
         split_part(vessel_call, ' ', 2) AS vessel, error_hours AS e
  FROM eta_accuracy WHERE source = 'CARRIER' AND horizon_days = 3),
g AS (
  SELECT c.*,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS mc,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel_call <> c.vessel_call) AS nc,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel = c.vessel AND d.vessel_call <> c.vessel_call) AS mv,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.vessel = c.vessel AND d.vessel_call <> c.vessel_call) AS nv,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.pod_locode = c.pod_locode AND d.vessel_call <> c.vessel_call) AS mp,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.pod_locode = c.pod_locode AND d.vessel_call <> c.vessel_call) AS np,
    (SELECT avg(d.e) FROM c AS d WHERE d.carrier = c.carrier AND d.lane = c.lane AND d.vessel_call <> c.vessel_call) AS ml,
    (SELECT count(DISTINCT d.vessel_call) FROM c AS d WHERE d.carrier = c.carrier AND d.lane = c.lane AND d.vessel_call <> c.vessel_call) AS nl,
    median(e) OVER (PARTITION BY carrier) AS fitted
  FROM c),
h AS (SELECT *, coalesce(mc * nc / (nc + 10), 0) AS bc FROM g),
k AS (SELECT *, bc + coalesce((mv - bc) * nv / (nv + 10), 0) AS bv, bc + coalesce((mp - bc) * np / (np + 10), 0) AS bp,
             bc + coalesce((ml - bc) * nl / (nl + 10), 0) AS bl FROM h)
SELECT count(*) AS rows, count(e) AS judged, avg(abs(e)) AS carrier_eta, avg(abs(e - bc)) AS by_carrier, avg(abs(e - bv)) AS by_vessel,
       avg(abs(e - bp)) AS by_port, avg(abs(e - (bv + bp - bc))) AS by_all_three, avg(nv) AS other_calls_of_the_vessel,
       avg(abs(e - bl)) AS by_lane, avg(nl) AS other_calls_of_the_lane, avg(np) AS other_calls_of_the_port,
       avg(abs(e - fitted)) AS fitted_on_the_rows,
       (SELECT avg(abs(x.error_hours)) FROM eta_accuracy AS x JOIN c USING (shipment_number, shipment_type, target)
        WHERE x.source = 'ETALAKE' AND x.horizon_days = 3) AS etalake
FROM k
