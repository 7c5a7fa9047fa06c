-- Ordered-set and hypothetical-set aggregates (WITHIN GROUP).
CREATE TABLE osa (g int, x int, f float8, t text, i interval);
INSERT INTO osa VALUES
  (1, 1, 1.5, 'fred', '1 day'), (1, 2, 2.5, 'jim', '2 days'),
  (1, 2, NULL, 'fred', '3 days'), (1, NULL, 4.0, NULL, NULL),
  (2, 10, 10.0, 'sheila', '1 hour'), (2, 20, 30.0, 'jill', '3 hours'),
  (2, 20, 20.0, 'jill', NULL), (3, NULL, NULL, NULL, NULL);

-- percentile_cont: interpolation, float8 and interval, NULLs left out
SELECT p, percentile_cont(p) WITHIN GROUP (ORDER BY x::float8)
FROM generate_series(1,5) x,
     (VALUES (0::float8),(0.1),(0.25),(0.4),(0.5),(0.6),(0.75),(0.9),(1)) v(p)
GROUP BY p ORDER BY p;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY f),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY i)
FROM osa GROUP BY g ORDER BY g;
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC) FROM osa;
SELECT pg_typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)),
       pg_typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY i)) FROM osa;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM (VALUES (1.5::numeric), (2)) s(v);
SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM osa WHERE false;

-- percentile_disc: any sortable type
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY t),
       percentile_disc(0) WITHIN GROUP (ORDER BY x),
       percentile_disc(1) WITHIN GROUP (ORDER BY i)
FROM osa GROUP BY g ORDER BY g;
SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY x DESC NULLS FIRST) FROM osa;
SELECT percentile_disc(array[0.25,0.5,0.75]) WITHIN GROUP (ORDER BY v)
FROM unnest('{fred,jim,fred,jack,jill,fred,jill,jim,jim,sheila,jim,sheila}'::text[]) u(v);

-- array forms keep the shape of the fraction array
SELECT percentile_cont(array[0,1,0.25,0.75,0.5,1,0.3,0.32,0.35,0.38,0.4]) WITHIN GROUP (ORDER BY v)
FROM generate_series(1,6) v;
SELECT percentile_disc(array[[null,1,0.5],[0.75,0.25,null]]) WITHIN GROUP (ORDER BY v)
FROM generate_series(1,100) v;
SELECT percentile_cont(array[0.5, null]) WITHIN GROUP (ORDER BY i) FROM osa;
SELECT percentile_disc(array[]::float8[]) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(array[0.5]) WITHIN GROUP (ORDER BY x) FROM osa WHERE false;

-- mode: ties go to the first value in sort order
SELECT g, mode() WITHIN GROUP (ORDER BY t), mode() WITHIN GROUP (ORDER BY x DESC)
FROM osa GROUP BY g ORDER BY g;
SELECT mode() WITHIN GROUP (ORDER BY v) FROM (VALUES (1),(2),(2),(1),(NULL),(NULL),(NULL)) s(v);
-- groups of aggregates PostgreSQL cannot hash come out in key order
SELECT x, mode() WITHIN GROUP (ORDER BY t) FROM osa GROUP BY x;
SELECT x, array_agg(t ORDER BY t), count(DISTINCT g) FROM osa GROUP BY x;

-- hypothetical-set aggregates
SELECT rank(3) WITHIN GROUP (ORDER BY v),
       dense_rank(3) WITHIN GROUP (ORDER BY v),
       percent_rank(3) WITHIN GROUP (ORDER BY v),
       cume_dist(3) WITHIN GROUP (ORDER BY v)
FROM (VALUES (1),(1),(2),(2),(3),(3),(4)) s(v);
SELECT g, rank(15) WITHIN GROUP (ORDER BY x), dense_rank(20) WITHIN GROUP (ORDER BY x DESC),
       rank(2, 'fred') WITHIN GROUP (ORDER BY x, t DESC)
FROM osa GROUP BY g ORDER BY g;
SELECT rank(NULL) WITHIN GROUP (ORDER BY v), rank(NULL) WITHIN GROUP (ORDER BY v NULLS FIRST)
FROM (VALUES (1),(NULL),(2)) s(v);
SELECT dense_rank(NULL::int) WITHIN GROUP (ORDER BY v DESC) FROM (VALUES (1),(NULL),(NULL),(2)) s(v);
SELECT percent_rank(0) WITHIN GROUP (ORDER BY v), cume_dist(0) WITHIN GROUP (ORDER BY v),
       rank(0) WITHIN GROUP (ORDER BY v) FROM generate_series(1,0) v;
SELECT rank('adam'::varchar) WITHIN GROUP (ORDER BY v) FROM (VALUES ('fred'),('jim')) s(v);
SELECT rank('3') WITHIN GROUP (ORDER BY v) FROM generate_series(1,5) v;
SELECT rank(1.5) WITHIN GROUP (ORDER BY v) FROM generate_series(1,3) v;
SELECT dense_rank(v) WITHIN GROUP (ORDER BY v) FROM (VALUES (1),(1),(2),(2),(3),(3)) s(v) GROUP BY v ORDER BY 1;

-- FILTER, HAVING, ORDER BY, direct arguments from grouped columns
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1),
       cume_dist(2) WITHIN GROUP (ORDER BY x) FILTER (WHERE x IS NOT NULL)
FROM osa GROUP BY g ORDER BY g;
SELECT g FROM osa GROUP BY g
HAVING percentile_disc(0.5) WITHIN GROUP (ORDER BY x) > 1 ORDER BY g;
SELECT g, x, percentile_disc(g / 4.0) WITHIN GROUP (ORDER BY f) FROM osa GROUP BY g, x ORDER BY g, x;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), sum(x), count(*)
FROM osa GROUP BY g ORDER BY percentile_cont(0.5) WITHIN GROUP (ORDER BY x) DESC NULLS LAST;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM osa GROUP BY ROLLUP (g) ORDER BY g;

-- errors
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM osa WHERE false;
SELECT percentile_disc(-0.0000001) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_disc('nan') WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(array[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(0.5) FROM osa;
SELECT mode() FROM osa;
SELECT percentile_disc(0.5, x) FROM osa;
SELECT mode(x) FROM osa;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) OVER () FROM osa;
SELECT rank(3) WITHIN GROUP (ORDER BY x) OVER () FROM osa;
SELECT sum() WITHIN GROUP (ORDER BY x) FROM osa;
SELECT count(*) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT abs() WITHIN GROUP (ORDER BY x) FROM osa;
SELECT mode(x) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM osa;
SELECT percentile_cont(0.5, 0.2) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT rank(1, 2) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT rank() WITHIN GROUP (ORDER BY x) FROM osa;
SELECT rank(3) WITHIN GROUP (ORDER BY t) FROM osa;
SELECT rank('fred') WITHIN GROUP (ORDER BY x) FROM osa;
SELECT rank(x) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(f) WITHIN GROUP (ORDER BY x) FROM osa GROUP BY g;
SELECT rank(sum(x)) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY sum(x)) FROM osa;
SELECT x FROM osa WHERE percentile_cont(0.5) WITHIN GROUP (ORDER BY x) > 1;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), x FROM osa;
SELECT percentile_cont(0.5 ORDER BY x) WITHIN GROUP (ORDER BY x) FROM osa;
SELECT array(SELECT percentile_disc(a) WITHIN GROUP (ORDER BY v)
             FROM (VALUES (0.3), (0.7)) s(a) GROUP BY a)
FROM generate_series(1, 5) g(v);

-- in a view
CREATE VIEW osa_v AS
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p50,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE g = 1) AS px,
       rank(5, 'AZZZZ', 50) WITHIN GROUP (ORDER BY x, t DESC, x) AS r
FROM osa GROUP BY g;
SELECT * FROM osa_v ORDER BY g;
DROP VIEW osa_v;
DROP TABLE osa;
