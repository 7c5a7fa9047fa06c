-- The SQL:2003 binary aggregates regr_*, covar_pop, covar_samp, corr and the
-- float8 transition functions callable from SQL (types/src/regr.rs), with
-- PostgreSQL's Youngs-Cramer arithmetic.
CREATE TABLE st (g int, x float8, y float8);
INSERT INTO st VALUES
  (1, 10, 150), (1, 20, 250), (1, 30, 350), (1, 80, 540), (1, 100, 200),
  (2, 1.1, 5.3), (2, 2.7, 6.1), (2, 3.3, 17.2), (2, 4.9, -2.5),
  (3, 1, 5), (3, 2, 5), (3, 3, 5),
  (4, 7, 1), (4, 7, 2),
  (5, 4, 3),
  (6, NULL, 1), (6, 2, NULL), (6, NULL, NULL);
SELECT regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x) FROM st;
SELECT regr_avgx(y, x), regr_avgy(y, x), regr_r2(y, x) FROM st;
SELECT regr_slope(y, x), regr_intercept(y, x) FROM st;
SELECT covar_pop(y, x), covar_samp(y, x), corr(y, x) FROM st;
-- Per group: a horizontal line (g 3), a vertical one (g 4), one pair (g 5),
-- no complete pair (g 6).
SELECT g, regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x),
       regr_avgx(y, x), regr_avgy(y, x)
  FROM st GROUP BY g ORDER BY g;
SELECT g, regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x),
       covar_pop(y, x), covar_samp(y, x), corr(y, x)
  FROM st GROUP BY g ORDER BY g;
-- No rows: regr_count is 0, the others NULL.
SELECT regr_count(y, x), regr_sxx(y, x), corr(y, x), covar_pop(y, x) FROM st WHERE false;
-- Other numeric types pass as float8; regr_count is a bigint.
SELECT regr_count(x::real, y::smallint), covar_samp(x::numeric, y::bigint),
       regr_slope(y::int, x::real), pg_typeof(regr_count(1, 2)), pg_typeof(corr(1, 2))
  FROM st WHERE g = 1;
SELECT regr_count('1', '2'), covar_pop(1, 2.5);
-- Infinity and NaN.
SELECT covar_pop(1::float8, 'inf'::float8), covar_samp(3::float8, 'inf'::float8);
SELECT covar_pop(1::float8, 'nan'::float8), covar_samp(3::float8, 'nan'::float8);
SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgy(y, x)
  FROM (VALUES (1, 'inf'::float8), (2, 3)) v(x, y);
SELECT regr_sxx(y, x), regr_syy(y, x), corr(y, x)
  FROM (VALUES ('nan'::float8, 1), (2, 3)) v(x, y);
SELECT regr_avgx(y, x), regr_count(y, x) FROM (VALUES ('-inf'::float8, 1), ('inf', 2)) v(x, y);
-- Finite inputs whose sums overflow.
SELECT regr_sxx(y, x) FROM (VALUES (1e308::float8, 1), (1e308, 1)) v(x, y);
SELECT covar_pop(y, x) FROM (VALUES (1, 1e308::float8), (1, -1e308)) v(x, y);
-- As window functions, over moving and growing frames.
SELECT g, x, regr_count(y, x) OVER w, regr_slope(y, x) OVER w, corr(y, x) OVER w
  FROM st WHERE g <= 2
  WINDOW w AS (PARTITION BY g ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
  ORDER BY g, x;
SELECT g, x, covar_samp(y, x) OVER (PARTITION BY g ORDER BY x), regr_avgy(y, x) OVER ()
  FROM st WHERE g <= 2 ORDER BY g, x;
-- With DISTINCT, FILTER and ORDER BY.
SELECT regr_count(DISTINCT y, x), regr_sxx(y, x) FILTER (WHERE g = 1),
       covar_pop(y, x ORDER BY x DESC) FROM st;
-- Not applicable.
SELECT regr_count(x) FROM st;
SELECT corr(y, x, x) FROM st;
SELECT regr_count(*) FROM st;
SELECT corr('a'::text, 1);
SELECT covar_pop(true, 1);
-- The transition functions over PostgreSQL's state arrays.
SELECT float8_accum('{4,140,2900}'::float8[], 100);
SELECT float8_accum('{0,0,0}'::float8[], 'inf'), float8_accum('{2,3,0.5}'::float8[], 'nan');
SELECT float8_accum('[0:2]={1,2,3}'::float8[], 1), float8_accum('{1,2,3}', 1::int);
SELECT float8_regr_accum('{4,140,2900,1290,83075,15050}'::float8[], 200, 100);
SELECT float8_regr_accum('{0,0,0,0,0,0}', 'inf', 1), float8_regr_accum('{1,1,0,1,0,0}', 1, 'nan');
SELECT float8_combine('{3,60,200}'::float8[], '{0,0,0}'::float8[]);
SELECT float8_combine('{0,0,0}'::float8[], '{2,180,200}'::float8[]);
SELECT float8_combine('{3,60,200}'::float8[], '{2,180,200}'::float8[]);
SELECT float8_regr_combine('{3,60,200,750,20000,2000}'::float8[],
                           '{0,0,0,0,0,0}'::float8[]);
SELECT float8_regr_combine('{0,0,0,0,0,0}'::float8[],
                           '{2,180,200,740,57800,-3400}'::float8[]);
SELECT float8_regr_combine('{3,60,200,750,20000,2000}'::float8[],
                           '{2,180,200,740,57800,-3400}'::float8[]);
SELECT float8_accum(NULL, 1) IS NULL, float8_regr_combine('{1,2,3,4,5,6}', NULL) IS NULL;
SELECT pg_typeof(float8_accum('{1,2,3}', 1));
SELECT float8_accum('{{1,2,3}}', 1);
SELECT float8_accum('{1,2,NULL}', 1);
SELECT float8_regr_accum('{1,2,3}', 1, 2);
SELECT float8_combine('{0,0,0}', '{1,2}');
SELECT float8_combine('{1,1e308,0}', '{1,1e308,0}');
SELECT float8_accum('{1,2,3}', 'x'::text);
-- bool_and / bool_or's transition functions.
SELECT booland_statefunc(NULL, NULL) IS NULL, booland_statefunc(TRUE, NULL) IS NULL,
       booland_statefunc(TRUE, TRUE), booland_statefunc(TRUE, FALSE),
       booland_statefunc(FALSE, FALSE);
SELECT boolor_statefunc(FALSE, NULL) IS NULL, boolor_statefunc(FALSE, FALSE),
       boolor_statefunc(TRUE, FALSE), boolor_statefunc(FALSE, TRUE);
DROP TABLE st;
