-- The rules every analytic view shares, as macros, so that a notebook can
-- apply them too (SELECT * FROM duckdb_functions() WHERE function_name
-- LIKE 'etalake_%'). Applied before the views that use them.

-- etalake_utc_month(ts) and etalake_utc_date(ts): the month (its first day)
-- and the date of an instant in UTC. CAST(ts AS DATE) and date_trunc on a
-- TIMESTAMPTZ follow the session's TimeZone, so the same warehouse would
-- put a call in another month for a reader in New York or Shanghai.
CREATE OR REPLACE MACRO etalake_utc_month(ts) AS CAST(date_trunc('month', ts AT TIME ZONE 'UTC') AS DATE);
COMMENT ON MACRO etalake_utc_month IS 'the first day of the UTC month of an instant, whatever the session''s TimeZone';
CREATE OR REPLACE MACRO etalake_utc_date(ts) AS CAST(ts AT TIME ZONE 'UTC' AS DATE);
COMMENT ON MACRO etalake_utc_date IS 'the UTC date of an instant, whatever the session''s TimeZone';

-- etalake_min_n(): the fewest independent units a group needs before the
-- views call it enough to rank or compare: the clusters its interval is
-- computed over, distinct vessel calls for ETAs (shipments on one vessel
-- call share its delay, so they are one draw) and distinct vessels for
-- schedules (a vessel's delay carries over to its next calls). Below it
-- the interval rests on fewer than 5 clusters, with t at 3 degrees of
-- freedom or fewer: too wide, or (one cluster) none at all. One rule for
-- every view and the report.
CREATE OR REPLACE MACRO etalake_min_n() AS 5;
COMMENT ON MACRO etalake_min_n IS 'the fewest clusters (distinct vessel calls for ETAs, distinct vessels for schedules) a group needs to be ranked or compared: 5';

-- etalake_max_staleness_hours(): an ETA observed more than this before the
-- cut of a horizon (actual − h days) no longer stands for that horizon:
-- with one job a night the last ETA before the cut is 0 to 24 h older
-- than the cut, 48 h allows one missed night.
CREATE OR REPLACE MACRO etalake_max_staleness_hours() AS 48;
COMMENT ON MACRO etalake_max_staleness_hours IS 'an ETA seen more than this many hours before a horizon''s cut is stale for that horizon: 48';

-- etalake_t975(df): the 97.5 % quantile of Student's t with df degrees of
-- freedom, the multiplier of a 95 % interval from df + 1 clusters: exact
-- to 4 decimals up to 30, then the Cornish-Fisher expansion (error below
-- 1e-4). NULL below 1: one cluster gives no interval.
CREATE OR REPLACE MACRO etalake_t975(df) AS CASE
    WHEN df IS NULL OR df < 1 THEN NULL
    WHEN df <= 30 THEN [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                        2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                        2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423][CAST(df AS BIGINT)]
    ELSE 1.959964 + 2.372271 / df + 2.822499 / (df * df) + 2.555850 / (df * df * df)
END;
COMMENT ON MACRO etalake_t975 IS 'the 97.5 % quantile of Student''s t with df degrees of freedom (NULL below 1)';

-- etalake_cluster_se(g, n, s2, sn, n2, m): the standard error of a mean m
-- of n values that fall in g clusters (vessel calls), from the clusters'
-- sums S_g and sizes n_g: s2 = Σ S_g², sn = Σ S_g·n_g, n2 = Σ n_g². It is
-- the cluster-robust (CR1) variance g/(g−1) · Σ_g (S_g − n_g·m)² / n²,
-- expanded so that one pass over the clusters gives it. Values of one
-- cluster move together; counting them as independent would understate
-- the error. NULL below 2 clusters.
CREATE OR REPLACE MACRO etalake_cluster_se(g, n, s2, sn, n2, m) AS CASE
    WHEN g >= 2 AND n > 0 THEN sqrt(greatest(0.0, g / (g - 1.0) * (s2 - 2.0 * m * sn + m * m * n2))) / n
END;
COMMENT ON MACRO etalake_cluster_se IS 'cluster-robust standard error of a mean m of n values in g clusters, from Σ S_g², Σ S_g·n_g and Σ n_g²';

-- etalake_wilson_lo(p, n, z) and etalake_wilson_hi(p, n, z): Wilson's
-- score interval of a share p over n (an effective n, when the units are
-- clustered), with multiplier z. Unlike p ± z·se, it stays inside [0, 1]
-- and is not of zero width at 0 % or 100 %.
CREATE OR REPLACE MACRO etalake_wilson_lo(p, n, z) AS CASE WHEN n > 0 AND z IS NOT NULL THEN
    greatest(0.0, (p + z * z / (2.0 * n) - z * sqrt(greatest(0.0, p * (1.0 - p) / n + z * z / (4.0 * n * n)))) / (1.0 + z * z / n)) END;
COMMENT ON MACRO etalake_wilson_lo IS 'the lower bound of Wilson''s score interval of a share p over n with multiplier z';
CREATE OR REPLACE MACRO etalake_wilson_hi(p, n, z) AS CASE WHEN n > 0 AND z IS NOT NULL THEN
    least(1.0, (p + z * z / (2.0 * n) + z * sqrt(greatest(0.0, p * (1.0 - p) / n + z * z / (4.0 * n * n)))) / (1.0 + z * z / n)) END;
COMMENT ON MACRO etalake_wilson_hi IS 'the upper bound of Wilson''s score interval of a share p over n with multiplier z';
