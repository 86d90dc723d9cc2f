-- A small hand-built history for the golden tests of the views.
--
-- Shipments:
--   S1 CT MAEU CNSHA→NLRTM, arrived 2026-03-10 12:00; carrier ETAs seen daily
--      from 15 days out, each 10 h early (arrival later than promised);
--      predictive ETA from 2 days out, 2 h late (arrival earlier).
--   S2 BL MSCU CNSHA→DEHAM, arrived 2026-03-12 00:00; its ETA first seen 5
--      days out (nothing known at 7 and 14 days), each 30 h late.
--   S3 CT MAEU CNSHA→NLRTM, never arrived: no accuracy row at all.
--   S4 BK MAEU CNSHA→NLRTM with POSTPOD DEDUI: POD arrived 2026-03-08 00:00,
--      POSTPOD arrived 2026-03-11 00:00.
INSERT INTO shipments SELECT * FROM (VALUES
  ('S1', 'CT', 'MAEU', 'Maersk', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-05 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-10 12:00:00+00', true, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-02-02 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'r1', DATE '2026-02-02', NULL),
  ('S2', 'BL', 'MSCU', 'MSC', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-08 00:00:00+00', true,
   'DEHAM', TIMESTAMPTZ '2026-03-12 00:00:00+00', true, NULL, NULL, NULL, NULL, 2, NULL,
   TIMESTAMPTZ '2026-03-07 02:00:00+00', TIMESTAMPTZ '2026-03-12 02:00:00+00', 'r2', DATE '2026-03-07', NULL),
  ('S3', 'CT', 'MAEU', 'Maersk', 'IN_TRANSIT', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-20 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-25 00:00:00+00', false, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-03-01 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'r3', DATE '2026-03-01', NULL),
  ('S4', 'BK', 'MAEU', 'Maersk', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-03 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-08 00:00:00+00', true, NULL, 'DEDUI', TIMESTAMPTZ '2026-03-11 00:00:00+00', true, 1, NULL,
   TIMESTAMPTZ '2026-02-28 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'r4', DATE '2026-02-28', NULL)
) AS v;

-- S1: carrier ETA (actual − 10 h) every night from 2026-02-23 to 2026-03-10, actual on 2026-03-11.
INSERT INTO eta_observations
SELECT 'S1', 'CT', 'POD', 'CARRIER', d, 'NLRTM', TIMESTAMPTZ '2026-03-10 02:00:00+00', false, 'r1', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-02-23 02:00:00+00', TIMESTAMPTZ '2026-03-10 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations VALUES
  ('S1', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-10 12:00:00+00', true, 'r1', DATE '2026-03-11', NULL),
  ('S1', 'CT', 'POD', 'PREDICTIVE', TIMESTAMPTZ '2026-03-08 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-10 14:00:00+00', false, 'r1', DATE '2026-03-08', NULL),
  ('S1', 'CT', 'POD', 'PREDICTIVE', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-10 14:00:00+00', false, 'r1', DATE '2026-03-09', NULL),
  ('S1', 'CT', 'POD', 'PREDICTIVE', TIMESTAMPTZ '2026-03-10 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-10 14:00:00+00', false, 'r1', DATE '2026-03-10', NULL);
-- S2: carrier ETA (actual + 30 h) from 2026-03-07 (5 days out), actual on 2026-03-12.
INSERT INTO eta_observations
SELECT 'S2', 'BL', 'POD', 'CARRIER', d, 'DEHAM', TIMESTAMPTZ '2026-03-13 06:00:00+00', false, 'r2', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-03-07 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations VALUES
  ('S2', 'BL', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-12 02:00:00+00', 'DEHAM', TIMESTAMPTZ '2026-03-12 00:00:00+00', true, 'r2', DATE '2026-03-12', NULL);
-- S3: estimates only.
INSERT INTO eta_observations VALUES
  ('S3', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-01 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-24 00:00:00+00', false, 'r3', DATE '2026-03-01', NULL),
  ('S3', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-25 00:00:00+00', false, 'r3', DATE '2026-03-11', NULL);
-- S4: POD exactly on time from 10 days out; POSTPOD 6 h early (arrival later) from 4 days out.
INSERT INTO eta_observations
SELECT 'S4', 'BK', 'POD', 'CARRIER', d, 'NLRTM', TIMESTAMPTZ '2026-03-08 00:00:00+00', false, 'r4', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-02-26 02:00:00+00', TIMESTAMPTZ '2026-03-07 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations
SELECT 'S4', 'BK', 'POSTPOD', 'CARRIER', d, 'DEDUI', TIMESTAMPTZ '2026-03-10 18:00:00+00', false, 'r4', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-03-07 02:00:00+00', TIMESTAMPTZ '2026-03-10 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations VALUES
  ('S4', 'BK', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-08 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-08 00:00:00+00', true, 'r4', DATE '2026-03-08', NULL),
  ('S4', 'BK', 'POSTPOD', 'CARRIER', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'DEDUI', TIMESTAMPTZ '2026-03-11 00:00:00+00', true, 'r4', DATE '2026-03-11', NULL);

-- Port calls (ARRI unless said):
--   A MAEU at NLRTM, vessel 9321483 voyage 101W: planned 03-01 06:00, seen by PORT
--     and VESSEL queries over three nights, actual 03-01 20:00 (14 h: on time).
--   B MAEU at NLRTM, 9321483 voyage 102W: planned 03-08 06:00, actual 03-11 06:00 (72 h late).
--   C MSCU at DEHAM, 9074729 voyage 7E: planned 03-05 00:00 (plan later revised to 03-06,
--     the first plan counts), actual 03-03 00:00 (48 h early: not on time).
--   D MSCU at DEHAM, 9074729 voyage 8E: planned only (no actual yet): not counted.
--   A's departure timestamps are ignored.
INSERT INTO port_calls VALUES
  ('PORT', 'NLRTM', 9321483, '101W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-27 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 06:00:00+00', 'p1', DATE '2026-02-27', NULL),
  ('PORT', 'NLRTM', 9321483, '101W', 'ARRI', 'EST', TIMESTAMPTZ '2026-02-27 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 18:00:00+00', 'p1', DATE '2026-02-27', NULL),
  ('VESSEL', 'NLRTM', 9321483, '101W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-28 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 06:00:00+00', 'p2', DATE '2026-02-28', NULL),
  ('PORT', 'NLRTM', 9321483, '101W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-02 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 06:00:00+00', 'p3', DATE '2026-03-02', NULL),
  ('PORT', 'NLRTM', 9321483, '101W', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-02 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 20:00:00+00', 'p3', DATE '2026-03-02', NULL),
  ('VESSEL', 'NLRTM', 9321483, '101W', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-03 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-01 20:00:00+00', 'p4', DATE '2026-03-03', NULL),
  ('PORT', 'NLRTM', 9321483, '101E', 'DEPA', 'ACT', TIMESTAMPTZ '2026-03-03 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '101W', '101E', NULL, TIMESTAMPTZ '2026-03-02 20:00:00+00', 'p4', DATE '2026-03-03', NULL),
  ('PORT', 'NLRTM', 9321483, '102W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-05 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '102W', '102E', NULL, TIMESTAMPTZ '2026-03-08 06:00:00+00', 'p5', DATE '2026-03-05', NULL),
  ('PORT', 'NLRTM', 9321483, '102W', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-12 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '102W', '102E', NULL, TIMESTAMPTZ '2026-03-11 06:00:00+00', 'p6', DATE '2026-03-12', NULL),
  ('PORT', 'DEHAM', 9074729, '7E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-25 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '7E', '7W', NULL, TIMESTAMPTZ '2026-03-05 00:00:00+00', 'p7', DATE '2026-02-25', NULL),
  ('PORT', 'DEHAM', 9074729, '7E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-26 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '7E', '7W', NULL, TIMESTAMPTZ '2026-03-06 00:00:00+00', 'p8', DATE '2026-02-26', NULL),
  ('PORT', 'DEHAM', 9074729, '7E', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-04 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '7E', '7W', NULL, TIMESTAMPTZ '2026-03-03 00:00:00+00', 'p9', DATE '2026-03-04', NULL),
  ('PORT', 'DEHAM', 9074729, '8E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-04 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '8E', '8W', NULL, TIMESTAMPTZ '2026-03-20 00:00:00+00', 'p9', DATE '2026-03-04', NULL);

-- Container events of S1's box: a departure estimated twice then actual
-- (estimate 2 h early, actual reported one night later), a gate-out actual
-- at once (never estimated) that happened on 01-30, before S1 was first
-- observed (02-02 02:00): the 64 h until that first look are when tracking
-- began, not how late the carrier reported it.
INSERT INTO container_events VALUES
  ('S1', 'MSKU0000001', 'k-depa', 'CT', 'TRANSPORT', 'DEPA', 'VDL', 'Vessel departure', 'CNSHA', NULL, TIMESTAMPTZ '2026-02-05 00:00:00+00', true, false, 'SEA', 'VESSEL', 9321483, 'MAERSK A', '100E', 0,
   TIMESTAMPTZ '2026-02-02 02:00:00+00', TIMESTAMPTZ '2026-02-06 02:00:00+00', 'r1', DATE '2026-02-02', NULL),
  ('S1', 'MSKU0000001', 'k-gtot', 'CT', 'EQUIPMENT', 'GTOT', 'CEP', 'Gate out', 'CNSHA', NULL, TIMESTAMPTZ '2026-01-30 10:00:00+00', true, false, 'LAND', NULL, NULL, NULL, NULL, 0,
   TIMESTAMPTZ '2026-02-02 02:00:00+00', TIMESTAMPTZ '2026-02-06 02:00:00+00', 'r1', DATE '2026-02-02', NULL);
INSERT INTO event_observations VALUES
  ('k-depa', TIMESTAMPTZ '2026-02-02 02:00:00+00', 'S1', 'MSKU0000001', TIMESTAMPTZ '2026-02-04 20:00:00+00', false, 'r1', DATE '2026-02-02', NULL),
  ('k-depa', TIMESTAMPTZ '2026-02-03 02:00:00+00', 'S1', 'MSKU0000001', TIMESTAMPTZ '2026-02-04 22:00:00+00', false, 'r1', DATE '2026-02-03', NULL),
  -- A provider that did not say whether the date was actual (isActual
  -- null): neither an estimate nor the actual for event_timeliness.
  ('k-depa', TIMESTAMPTZ '2026-02-04 02:00:00+00', 'S1', 'MSKU0000001', TIMESTAMPTZ '2026-02-04 23:00:00+00', NULL, 'r1', DATE '2026-02-04', NULL),
  ('k-depa', TIMESTAMPTZ '2026-02-06 02:00:00+00', 'S1', 'MSKU0000001', TIMESTAMPTZ '2026-02-05 00:00:00+00', true, 'r1', DATE '2026-02-06', NULL),
  ('k-gtot', TIMESTAMPTZ '2026-02-02 02:00:00+00', 'S1', 'MSKU0000001', TIMESTAMPTZ '2026-01-30 10:00:00+00', true, 'r1', DATE '2026-02-02', NULL);

-- The tracked set, with the refresh policy's word as the nightly run of
-- 2026-03-12 left it: S1 arrived (finished: never again); S3 active,
-- observed 03-11 with its ETA 14 days out (far: every 3 nights, next
-- 03-14); S5 active, never observed (new, due since it was added); S6
-- removed; S10 active, its ETA passed (overdue), due on 03-12 and deferred
-- by the pace that night: five days behind the newest response, yet not
-- stale — it waits by the policy's word, listed.
INSERT INTO tracked_shipments VALUES
  ('S1', 'CT', 'MAEU', TIMESTAMPTZ '2026-02-01 00:00:00+00', 'track add', NULL, DATE '2026-02-01', NULL, 'finished', NULL, DATE '2026-03-11'),
  ('S3', 'CT', NULL, TIMESTAMPTZ '2026-02-20 00:00:00+00', 'track add', NULL, DATE '2026-02-20', DATE '2026-03-14', 'far', NULL, DATE '2026-03-11'),
  ('S5', 'BL', 'ONEY', TIMESTAMPTZ '2026-03-10 00:00:00+00', 'track add', NULL, DATE '2026-03-10', DATE '2026-03-10', 'new', NULL, DATE '2026-03-10'),
  ('S6', 'CT', NULL, TIMESTAMPTZ '2026-02-01 00:00:00+00', 'track add', TIMESTAMPTZ '2026-02-15 00:00:00+00', DATE '2026-02-01', NULL, NULL, NULL, NULL),
  ('S10', 'CT', NULL, TIMESTAMPTZ '2026-02-10 00:00:00+00', 'track add', NULL, DATE '2026-02-10', DATE '2026-03-12', 'overdue', DATE '2026-03-12', DATE '2026-03-12'),
  ('S11', 'CT', NULL, TIMESTAMPTZ '2026-02-25 00:00:00+00', 'track add', NULL, DATE '2026-02-25', DATE '2026-03-11', 'near', NULL, DATE '2026-03-11');
-- S11 active, last observed 03-10, due on 03-11 and not had: stale, since
-- the newest response (03-12 02:00 UTC) is of a later UTC night, though
-- in Los Angeles it is still 03-11 — the night that counts is UTC's.
INSERT INTO shipments SELECT * FROM (VALUES
  ('S11', 'CT', 'MAEU', 'Maersk', 'IN_TRANSIT', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-25 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-15 00:00:00+00', false, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-03-01 02:00:00+00', TIMESTAMPTZ '2026-03-10 02:00:00+00', 'r11', DATE '2026-03-01', NULL)
) AS v;
-- The newest response in the warehouse: 2026-03-12 02:00.
INSERT INTO raw_responses VALUES
  ('x1', 'run-2', 'tracking', 'shipment', 'shipment:BL:S2', '/container-tracking/api/v2/shipment?shipmentNumber=S2', 200,
   TIMESTAMPTZ '2026-03-12 02:00:01+00', TIMESTAMPTZ '2026-03-12 02:00:00+00', NULL, 1, 'fetch', DATE '2026-03-12', 2, 'sha', '\x00'::BLOB, DATE '2026-03-12', NULL, NULL, NULL, NULL, NULL);

-- port:DEHAM, given up for 2026-03-11 by run-1, landed whole by run-1b:
-- no longer given up. port:NLRTM stays given up for both dates, S5 for
-- 2026-03-12.
INSERT INTO raw_responses VALUES
  ('x2', 'run-1b', 'schedule', 'schedule_port', 'port:DEHAM', '/schedule/api/v1/schedule/DEHAM', 200,
   TIMESTAMPTZ '2026-03-11 03:00:31+00', TIMESTAMPTZ '2026-03-11 03:00:30+00', NULL, 1, 'fetch', DATE '2026-03-11', 2, 'sha', '\x00'::BLOB, DATE '2026-03-11', NULL, NULL, NULL, NULL, NULL),
  ('x3', 'run-1', 'schedule', 'schedule_port', 'port:NLRTM', '/schedule/api/v1/schedule/NLRTM', 200,
   TIMESTAMPTZ '2026-03-10 02:00:01+00', TIMESTAMPTZ '2026-03-10 02:00:00+00', NULL, 1, 'fetch', DATE '2026-03-10', 2, 'sha', '\x01'::BLOB, DATE '2026-03-10', NULL, NULL, NULL, NULL, NULL);

-- Runs: two on 2026-03-11 (one partial), one on 2026-03-12 with drift.
INSERT INTO etl_runs VALUES
  ('run-1', 'run', DATE '2026-03-11', TIMESTAMPTZ '2026-03-11 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:10:00+00', 'partial', 3, 'cap',
   120, '{"200": 118, "404": 2}', 20, 1, 90, 0, 500, 480, 300, 210, -1, 0, NULL, 600, NULL, NULL, 'test', DATE '2026-03-11', NULL,
   '[{"resource": "port:NLRTM", "failed_jobs": 3, "why": "the body of 9 bytes is not JSON", "asked": true, "command": "etalake backfill --warehouse /srv/etalake --date 2026-03-11 --reask port:NLRTM"},
     {"resource": "port:DEHAM", "failed_jobs": 3, "why": "the connection broke after 512 bytes of the body", "asked": true, "command": "etalake backfill --warehouse /srv/etalake --date 2026-03-11 --reask port:DEHAM"}]', NULL),
  ('run-1b', 'run', DATE '2026-03-11', TIMESTAMPTZ '2026-03-11 03:00:00+00', TIMESTAMPTZ '2026-03-11 03:01:00+00', 'ok', 0, NULL,
   10, '{"200": 10}', 2, 0, 6, 0, 480, 478, 210, 204, 0, 0, NULL, 60, NULL, NULL, 'test', DATE '2026-03-11', NULL, NULL, NULL),
  ('run-2', 'run', DATE '2026-03-12', TIMESTAMPTZ '2026-03-12 02:00:00+00', TIMESTAMPTZ '2026-03-12 02:05:00+00', 'ok', 0, NULL,
   50, '{"200": 50}', 10, 0, 30, 0, 478, 466, 204, 174, 2, 0, NULL, 300, NULL, NULL, 'test', DATE '2026-03-12', NULL,
   '[{"resource": "port:NLRTM", "failed_jobs": 4, "why": "body ended after 10 of the 20 bytes of its Content-Length", "asked": true, "command": "etalake backfill --warehouse /srv/etalake --date 2026-03-12 --reask port:NLRTM"},
     {"resource": "shipment:BL:S5", "failed_jobs": 3, "why": "the body of 0 bytes is not JSON", "asked": false, "command": "etalake backfill --warehouse /srv/etalake --date 2026-03-12 --reask shipment:BL:S5:ONEY"}]', NULL);

-- The cases of issue 22: staleness, selectively published ETAs, clusters,
-- transhipment, revisions, censored calls and months in UTC.
--
--   S7 MSCU CNSHA→DEHAM, arrived 2026-03-09 00:00 on vessel 9074729 voyage
--      6E (its events say), transhipped at SGSIN (discharged and loaded
--      there). Carrier ETAs seen only 6 and 5 days out (03-08 14:00, then
--      revised +6 h to 03-08 20:00): at 1 day the latest is 118 h old, stale
--      (limit 24 + 48 h): no error; at 3 days it stands (+4 h). A
--      predictive ETA seen 03-05 02:00 promising 03-07 12:00 — published
--      because it promised arrival within 72 h: at 3 days it is there only
--      for that reason (selective, +36 h); at 1 day it is stale.
--   S8 MAEU CNSHA→NLRTM on S1's vessel call (the same arrival at NLRTM,
--      2026-03-10 12:00): its carrier ETA 4 h early every night from 10 days
--      out. S1 and S8 are two shipments but one independent draw.
INSERT INTO shipments SELECT * FROM (VALUES
  ('S7', 'CT', 'MSCU', 'MSC', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-01 00:00:00+00', true,
   'DEHAM', TIMESTAMPTZ '2026-03-09 00:00:00+00', true, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-03-03 02:00:00+00', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'r7', DATE '2026-03-03', NULL),
  ('S8', 'CT', 'MAEU', 'Maersk', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-05 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-10 12:00:00+00', true, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-02-28 02:00:00+00', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'r8', DATE '2026-02-28', NULL)
) AS v;
INSERT INTO eta_observations VALUES
  ('S7', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-03 02:00:00+00', 'DEHAM', TIMESTAMPTZ '2026-03-08 14:00:00+00', false, 'r7', DATE '2026-03-03', NULL),
  ('S7', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-04 02:00:00+00', 'DEHAM', TIMESTAMPTZ '2026-03-08 20:00:00+00', false, 'r7', DATE '2026-03-04', NULL),
  ('S7', 'CT', 'POD', 'PREDICTIVE', TIMESTAMPTZ '2026-03-05 02:00:00+00', 'DEHAM', TIMESTAMPTZ '2026-03-07 12:00:00+00', false, 'r7', DATE '2026-03-05', NULL),
  ('S7', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'DEHAM', TIMESTAMPTZ '2026-03-09 00:00:00+00', true, 'r7', DATE '2026-03-09', NULL),
  ('S8', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-11 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-10 12:00:00+00', true, 'r8', DATE '2026-03-11', NULL);
INSERT INTO eta_observations
SELECT 'S8', 'CT', 'POD', 'CARRIER', d, 'NLRTM', TIMESTAMPTZ '2026-03-10 08:00:00+00', false, 'r8', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-02-28 02:00:00+00', TIMESTAMPTZ '2026-03-10 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO container_events VALUES
  ('S7', 'MSMU0000007', 'k7-disc', 'CT', 'EQUIPMENT', 'DISC', 'CDT', 'Discharge at transhipment', 'SGSIN', NULL, TIMESTAMPTZ '2026-02-20 00:00:00+00', true, false, 'SEA', 'VESSEL', 9300001, 'FEEDER', '1W', 0,
   TIMESTAMPTZ '2026-03-03 02:00:00+00', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'r7', DATE '2026-03-03', NULL),
  ('S7', 'MSMU0000007', 'k7-load', 'CT', 'EQUIPMENT', 'LOAD', 'CLT', 'Load at transhipment', 'SGSIN', NULL, TIMESTAMPTZ '2026-02-22 00:00:00+00', true, false, 'SEA', 'VESSEL', 9074729, 'MSC B', '6E', 0,
   TIMESTAMPTZ '2026-03-03 02:00:00+00', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'r7', DATE '2026-03-03', NULL),
  ('S7', 'MSMU0000007', 'k7-arri', 'CT', 'TRANSPORT', 'ARRI', 'VAD', 'Arrival', 'DEHAM', NULL, TIMESTAMPTZ '2026-03-09 00:00:00+00', true, false, 'SEA', 'VESSEL', 9074729, 'MSC B', '6E', 0,
   TIMESTAMPTZ '2026-03-03 02:00:00+00', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'r7', DATE '2026-03-03', NULL);

-- Port calls (ARRI):
--   E MAEU at NLRTM, 9321483 voyage 103W: planned 03-10 06:00, still not
--     arrived when a by-port query last showed it on 03-12 02:00 (44 h past
--     the plan): late, not arrived.
--   F MSCU at DEHAM, 9074729 voyage 9E: planned 03-11 12:00, last seen
--     03-10 02:00 before it was due: unknown, counted apart.
--   G MAEU at NLRTM, 9321483 voyage 100W: planned 2026-02-28 23:30 UTC
--     (already March 1 in Shanghai), arrived 03-01 01:00: on time, in
--     February (UTC) for every reader.
--   H MSCU at DEHAM, 9074729 voyage 5E: planned 2026-03-01 03:00 UTC (still
--     February 28 in New York), arrived 03-01 10:00: on time, in March.
--   I CMDU at NLRTM, 9400000 voyage P1: planned 03-02 00:00, seen only by a
--     port-to-port query (which shows no actual arrivals): unobservable.
--   J MSCU at DEHAM, 9074729 voyage 4E: planned 02-20 00:00 but first seen on
--     02-25, after it was due (a warehouse's first night), 60 h late: no
--     baseline, not judged.
--   K MAEU at NLRTM, 9321484 voyage K1: planned 03-13 00:00, shown by the
--     by-port query of 03-05, then missing from NLRTM's answers of 03-08 and
--     03-12 (which show other calls), before its plan: omitted, not judged.
--   L MAEU at NLRTM, 9321485 voyage L1: planned 03-13 00:00, shown on 03-08,
--     missing on 03-12 only: one night may be an answer cut short, so not
--     yet omitted (not due).
INSERT INTO port_calls VALUES
  ('PORT', 'NLRTM', 9321483, '103W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-08 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '103W', '103E', NULL, TIMESTAMPTZ '2026-03-10 06:00:00+00', 'p10', DATE '2026-03-08', NULL),
  ('PORT', 'NLRTM', 9321483, '103W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-12 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '103W', '103E', NULL, TIMESTAMPTZ '2026-03-10 06:00:00+00', 'p11', DATE '2026-03-12', NULL),
  ('PORT', 'NLRTM', 9321483, '103W', 'ARRI', 'EST', TIMESTAMPTZ '2026-03-12 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '103W', '103E', NULL, TIMESTAMPTZ '2026-03-13 00:00:00+00', 'p11', DATE '2026-03-12', NULL),
  ('PORT', 'DEHAM', 9074729, '9E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-10 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '9E', '9W', NULL, TIMESTAMPTZ '2026-03-11 12:00:00+00', 'p12', DATE '2026-03-10', NULL),
  ('PORT', 'NLRTM', 9321483, '100W', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-26 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '100W', '100E', NULL, TIMESTAMPTZ '2026-02-28 23:30:00+00', 'p13', DATE '2026-02-26', NULL),
  ('PORT', 'NLRTM', 9321483, '100W', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-02 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK A', '100W', '100E', NULL, TIMESTAMPTZ '2026-03-01 01:00:00+00', 'p3', DATE '2026-03-02', NULL),
  ('VESSEL', 'DEHAM', 9074729, '5E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-25 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '5E', '5W', NULL, TIMESTAMPTZ '2026-03-01 03:00:00+00', 'p14', DATE '2026-02-25', NULL),
  ('VESSEL', 'DEHAM', 9074729, '5E', 'ARRI', 'ACT', TIMESTAMPTZ '2026-03-02 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '5E', '5W', NULL, TIMESTAMPTZ '2026-03-01 10:00:00+00', 'p15', DATE '2026-03-02', NULL),
  ('P2P', 'NLRTM', 9400000, 'P1', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-01 02:00:00+00', 'CMDU', 'FAL1', NULL, 'CMA CGM C', 'P1', 'P1', NULL, TIMESTAMPTZ '2026-03-02 00:00:00+00', 'p16', DATE '2026-03-01', NULL),
  ('PORT', 'DEHAM', 9074729, '4E', 'ARRI', 'PLN', TIMESTAMPTZ '2026-02-25 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '4E', '4W', NULL, TIMESTAMPTZ '2026-02-20 00:00:00+00', 'p17', DATE '2026-02-25', NULL),
  ('PORT', 'DEHAM', 9074729, '4E', 'ARRI', 'ACT', TIMESTAMPTZ '2026-02-25 02:00:00+00', 'MSCU', 'SWAN', NULL, 'MSC B', '4E', '4W', NULL, TIMESTAMPTZ '2026-02-22 12:00:00+00', 'p17', DATE '2026-02-25', NULL),
  ('PORT', 'NLRTM', 9321484, 'K1', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-05 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK K', 'K1', 'K1', NULL, TIMESTAMPTZ '2026-03-13 00:00:00+00', 'p18', DATE '2026-03-05', NULL),
  ('PORT', 'NLRTM', 9321485, 'L1', 'ARRI', 'PLN', TIMESTAMPTZ '2026-03-08 02:00:00+00', 'MAEU', 'AE7', NULL, 'MAERSK L', 'L1', 'L1', NULL, TIMESTAMPTZ '2026-03-13 00:00:00+00', 'p10', DATE '2026-03-08', NULL);

-- The cases of issue 30: how many vessels a schedule share rests on.
--
--   EGLV at CNSHK: seven calls of one vessel, 9500001 (voyages E1 to E7),
--     planned every 4 days from 02-10, each 48 h late: 0 % on time over
--     seven calls, but one vessel — one draw, no interval, never enough.
--   HLCU at SGSIN: six calls of five vessels (9600001 twice), planned every
--     3 days from 02-12, 0, 5, 30, −2, 10 and 60 h late: 4 of 6 on time,
--     on exactly etalake_min_n() vessels, enough.
-- Each plan is seen 70 h before it is due, each actual 2 h after it.
INSERT INTO port_calls
SELECT 'PORT', c.port, c.imo, c.voyage, 'ARRI', k.classifier,
       CASE k.classifier WHEN 'PLN' THEN c.planned - INTERVAL 70 HOUR ELSE c.planned + to_hours(c.delay + 2) END AS obs,
       c.carrier, NULL, NULL, NULL, c.voyage, NULL, NULL,
       CASE k.classifier WHEN 'PLN' THEN c.planned ELSE c.planned + to_hours(c.delay) END,
       'p-' || c.voyage || '-' || k.classifier, etalake_utc_date(obs), NULL
FROM (VALUES
  ('EGLV', 'CNSHK', 9500001, 'E1', TIMESTAMPTZ '2026-02-10 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E2', TIMESTAMPTZ '2026-02-14 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E3', TIMESTAMPTZ '2026-02-18 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E4', TIMESTAMPTZ '2026-02-22 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E5', TIMESTAMPTZ '2026-02-26 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E6', TIMESTAMPTZ '2026-03-02 00:00:00+00', 48),
  ('EGLV', 'CNSHK', 9500001, 'E7', TIMESTAMPTZ '2026-03-06 00:00:00+00', 48),
  ('HLCU', 'SGSIN', 9600001, 'H1', TIMESTAMPTZ '2026-02-12 00:00:00+00', 0),
  ('HLCU', 'SGSIN', 9600002, 'H2', TIMESTAMPTZ '2026-02-15 00:00:00+00', 5),
  ('HLCU', 'SGSIN', 9600003, 'H3', TIMESTAMPTZ '2026-02-18 00:00:00+00', 30),
  ('HLCU', 'SGSIN', 9600004, 'H4', TIMESTAMPTZ '2026-02-21 00:00:00+00', -2),
  ('HLCU', 'SGSIN', 9600005, 'H5', TIMESTAMPTZ '2026-02-24 00:00:00+00', 10),
  ('HLCU', 'SGSIN', 9600001, 'H6', TIMESTAMPTZ '2026-02-27 00:00:00+00', 60)
) AS c(carrier, port, imo, voyage, planned, delay)
CROSS JOIN (VALUES ('PLN'), ('ACT')) AS k(classifier);

-- A month that is over (issue 30):
--   S9 BL ONEY CNSHA→SGSIN, arrived 2026-02-20 00:00, its carrier ETA 6 h
--      early every night from 10 days out: a February arrival, and
--      February and the 24 h after it are over by the newest tracking
--      answer (S2's, 2026-03-12 02:00): its month is complete, March not.
INSERT INTO shipments SELECT * FROM (VALUES
  ('S9', 'BL', 'ONEY', 'ONE', 'DELIVERED', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-01-28 00:00:00+00', true,
   'SGSIN', TIMESTAMPTZ '2026-02-20 00:00:00+00', true, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-02-10 02:00:00+00', TIMESTAMPTZ '2026-02-20 02:00:00+00', 'r9', DATE '2026-02-10', NULL)
) AS v;
INSERT INTO eta_observations
SELECT 'S9', 'BL', 'POD', 'CARRIER', d, 'SGSIN', TIMESTAMPTZ '2026-02-19 18:00:00+00', false, 'r9', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-02-10 02:00:00+00', TIMESTAMPTZ '2026-02-19 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations VALUES
  ('S9', 'BL', 'POD', 'CARRIER', TIMESTAMPTZ '2026-02-20 02:00:00+00', 'SGSIN', TIMESTAMPTZ '2026-02-20 00:00:00+00', true, 'r9', DATE '2026-02-20', NULL);

-- An arrival reported, then taken back (issue 30):
--   S10 CT MAEU CNSHA→NLRTM: its carrier ETA 03-08 00:00 from 03-01; on
--      03-06 02:00 the carrier said it arrived 03-05 12:00 (actual), on
--      03-07 02:00 the POD date was an estimate again, 03-09 00:00: its
--      latest state is not arrived, and it has no accuracy row. Its box's
--      discharge at NLRTM went the same way: no event_timeliness row.
INSERT INTO shipments SELECT * FROM (VALUES
  ('S10', 'CT', 'MAEU', 'Maersk', 'IN_TRANSIT', NULL, NULL, NULL, 'CNSHA', TIMESTAMPTZ '2026-02-10 00:00:00+00', true,
   'NLRTM', TIMESTAMPTZ '2026-03-09 00:00:00+00', false, NULL, NULL, NULL, NULL, 1, NULL,
   TIMESTAMPTZ '2026-03-01 02:00:00+00', TIMESTAMPTZ '2026-03-07 02:00:00+00', 'r10', DATE '2026-03-01', NULL)
) AS v;
INSERT INTO eta_observations
SELECT 'S10', 'CT', 'POD', 'CARRIER', d, 'NLRTM', TIMESTAMPTZ '2026-03-08 00:00:00+00', false, 'r10', CAST(d AS DATE), NULL
FROM generate_series(TIMESTAMPTZ '2026-03-01 02:00:00+00', TIMESTAMPTZ '2026-03-05 02:00:00+00', INTERVAL 1 DAY) AS t(d);
INSERT INTO eta_observations VALUES
  ('S10', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-06 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-05 12:00:00+00', true, 'r10', DATE '2026-03-06', NULL),
  ('S10', 'CT', 'POD', 'CARRIER', TIMESTAMPTZ '2026-03-07 02:00:00+00', 'NLRTM', TIMESTAMPTZ '2026-03-09 00:00:00+00', false, 'r10', DATE '2026-03-07', NULL);
INSERT INTO container_events VALUES
  ('S10', 'MSKU0000010', 'k10-disc', 'CT', 'EQUIPMENT', 'DISC', 'CDT', 'Discharge', 'NLRTM', NULL, TIMESTAMPTZ '2026-03-09 00:00:00+00', false, false, 'SEA', 'VESSEL', 9321483, 'MAERSK A', '104W', 0,
   TIMESTAMPTZ '2026-03-01 02:00:00+00', TIMESTAMPTZ '2026-03-07 02:00:00+00', 'r10', DATE '2026-03-01', NULL);
INSERT INTO event_observations VALUES
  ('k10-disc', TIMESTAMPTZ '2026-03-01 02:00:00+00', 'S10', 'MSKU0000010', TIMESTAMPTZ '2026-03-08 00:00:00+00', false, 'r10', DATE '2026-03-01', NULL),
  ('k10-disc', TIMESTAMPTZ '2026-03-06 02:00:00+00', 'S10', 'MSKU0000010', TIMESTAMPTZ '2026-03-05 12:00:00+00', true, 'r10', DATE '2026-03-06', NULL),
  ('k10-disc', TIMESTAMPTZ '2026-03-07 02:00:00+00', 'S10', 'MSKU0000010', TIMESTAMPTZ '2026-03-09 00:00:00+00', false, 'r10', DATE '2026-03-07', NULL);
