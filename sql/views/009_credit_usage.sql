-- credit_usage: what did the runs spend, and does the server agree?
--
-- By logical_date and job, from etl_runs: runs (and those not ok),
-- requests, schedule credits and tracking calls by our count (and those
-- possibly charged by timed-out requests), the balances reported before the
-- first and after the last run of the day, and drift (credits the server
-- counted that we did not; 0 when our count is right).
CREATE OR REPLACE VIEW credit_usage AS
SELECT logical_date,
       job,
       count(*) AS runs,
       count(*) FILTER (WHERE status <> 'ok') AS runs_not_ok,
       sum(requests) AS requests,
       sum(credits_spent_schedule) AS credits_schedule,
       sum(credits_uncertain_schedule) AS credits_uncertain_schedule,
       sum(calls_tracking) AS calls_tracking,
       sum(calls_uncertain_tracking) AS calls_uncertain_tracking,
       arg_min(balance_schedule_before, started_at) AS balance_schedule_before,
       arg_max(balance_schedule_after, started_at) AS balance_schedule_after,
       arg_min(balance_tracking_before, started_at) AS balance_tracking_before,
       arg_max(balance_tracking_after, started_at) AS balance_tracking_after,
       sum(drift_schedule) AS drift_schedule,
       sum(drift_tracking) AS drift_tracking
FROM etl_runs
GROUP BY logical_date, job;
COMMENT ON VIEW credit_usage IS 'What did the runs spend per logical date and job, and does the server agree?';
COMMENT ON COLUMN credit_usage.logical_date IS 'the logical date of the runs';
COMMENT ON COLUMN credit_usage.job IS 'run, backfill, demo, …';
COMMENT ON COLUMN credit_usage.runs IS 'runs';
COMMENT ON COLUMN credit_usage.runs_not_ok IS 'runs that did not end ok';
COMMENT ON COLUMN credit_usage.requests IS 'HTTP requests sent';
COMMENT ON COLUMN credit_usage.credits_schedule IS 'schedule credits spent, by our count';
COMMENT ON COLUMN credit_usage.credits_uncertain_schedule IS 'schedule requests possibly charged (timed out, or broken in transfer)';
COMMENT ON COLUMN credit_usage.calls_tracking IS 'paid tracking calls, by our count';
COMMENT ON COLUMN credit_usage.calls_uncertain_tracking IS 'tracking calls possibly charged';
COMMENT ON COLUMN credit_usage.balance_schedule_before IS 'schedule balance reported before the first run of the day';
COMMENT ON COLUMN credit_usage.balance_schedule_after IS 'schedule balance reported after the last run of the day';
COMMENT ON COLUMN credit_usage.balance_tracking_before IS 'tracking balance reported before the first run of the day';
COMMENT ON COLUMN credit_usage.balance_tracking_after IS 'tracking balance reported after the last run of the day';
COMMENT ON COLUMN credit_usage.drift_schedule IS 'schedule credits the server counted that we did not (0: our count is right)';
COMMENT ON COLUMN credit_usage.drift_tracking IS 'tracking calls the server counted that we did not';
