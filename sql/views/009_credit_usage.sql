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
