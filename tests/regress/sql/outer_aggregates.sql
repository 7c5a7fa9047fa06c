-- Aggregates whose arguments read only outer queries' columns belong to the
-- outer query (plan/src/bind/outer_agg.rs), and correlated subqueries in
-- the select list, HAVING and ORDER BY of an aggregating query.
CREATE TABLE oa (a int, b int);
INSERT INTO oa VALUES (1, 1), (1, 2), (2, 3), (3, NULL);
CREATE TABLE ob (x int);
INSERT INTO ob VALUES (1), (2);
-- One row: the outer query aggregates.
SELECT (SELECT max(oa.b)) FROM oa;
SELECT (SELECT max(oa.b) FROM ob) FROM oa;
SELECT (SELECT max(oa.b) + oa.a) FROM oa;
SELECT (SELECT max(oa.b) FROM ob WHERE ob.x = oa.a) FROM oa;
SELECT (SELECT (SELECT max(oa.b) FROM ob o2) FROM ob o1 LIMIT 1) FROM oa;
SELECT (SELECT max((SELECT ob.x FROM ob WHERE ob.x = oa.a))) FROM oa;
SELECT (SELECT count(*) FILTER (WHERE outer_c <> 0) FROM (VALUES (1)) t0(inner_c))
  FROM (VALUES (2), (3)) t1(outer_c);
SELECT (SELECT max(0) FILTER (WHERE oa.b > 1)) FROM oa;
SELECT (SELECT array_agg(oa.a ORDER BY oa.b) FROM ob LIMIT 1) FROM oa;
SELECT (SELECT count(DISTINCT oa.a)), count(*) FROM oa;
SELECT (SELECT max(oa.b)) FROM oa WHERE a > 1;
SELECT (SELECT max(oa.b)) FROM oa HAVING false;
-- Mixed with the subquery's own columns: the subquery's aggregate.
SELECT (SELECT max(ob.x + oa.a) FROM ob) FROM oa ORDER BY 1;
-- Grouped outer queries.
SELECT a, (SELECT max(oa.b)) AS m FROM oa GROUP BY a ORDER BY a;
SELECT a, sum(b), (SELECT sum(oa.b) + count(*) FROM ob) FROM oa GROUP BY a ORDER BY a;
SELECT a, sum(b) FROM oa GROUP BY a
  HAVING exists (SELECT 1 FROM ob WHERE sum(DISTINCT oa.b) = ob.x) ORDER BY a;
SELECT a FROM oa GROUP BY a ORDER BY (SELECT max(oa.b)) DESC NULLS LAST, a;
SELECT 1 FROM oa GROUP BY a HAVING (SELECT max(oa.b)) > 1;
-- Correlated subqueries over grouped columns.
SELECT a, (SELECT count(*) FROM oa o2 WHERE o2.a = oa.a) FROM oa GROUP BY a ORDER BY a;
SELECT a FROM oa GROUP BY a
  HAVING exists (SELECT 1 FROM oa o2 WHERE o2.a = oa.a AND o2.b > 1) ORDER BY a;
SELECT a, (SELECT (SELECT count(*) FROM ob WHERE ob.x <= oa.a)) FROM oa GROUP BY a ORDER BY a;
SELECT a, b, (SELECT count(*) FROM ob WHERE ob.x <= oa.b) FROM oa
  GROUP BY GROUPING SETS ((a), (a, b)) ORDER BY 1, 2;
SELECT a, exists (SELECT 1 FROM ob WHERE ob.x = oa.a) FROM oa GROUP BY a ORDER BY 1;
-- A subquery reading a column that is not grouped.
SELECT a, (SELECT oa.b FROM ob LIMIT 1) FROM oa GROUP BY a;
SELECT a, (SELECT (SELECT count(*) FROM ob WHERE ob.x <= oa.b)) FROM oa GROUP BY a;
-- Where the outer query may not aggregate.
SELECT * FROM oa WHERE exists (SELECT 1 FROM ob WHERE max(oa.b) = ob.x);
SELECT * FROM oa WHERE (SELECT max(oa.b)) > 1;
SELECT count(*) FROM oa WHERE exists (SELECT 1 FROM ob GROUP BY ob.x HAVING max(oa.b) > 0);
SELECT * FROM oa, LATERAL (SELECT max(oa.b)) s;
SELECT * FROM oa JOIN ob ON max(oa.a) = ob.x;
SELECT * FROM (VALUES (max(1))) v;
SELECT * FROM generate_series(1, max(1));
UPDATE oa SET b = (SELECT max(oa.b)) WHERE false;
-- Nested aggregates of one level.
SELECT avg((SELECT avg(a1.x ORDER BY (SELECT avg(a2.b) FROM ob a3)) FROM ob a1)) FROM oa a2;
SELECT (SELECT max(sum(oa.b))) FROM oa;
SELECT (SELECT sum(max(oa.b)) FROM ob) FROM oa;
SELECT max(a) FILTER (WHERE sum(b) > 0) FROM oa;
SELECT (SELECT max(oa.a) FILTER (WHERE sum(oa.b) > 0)) FROM oa;
-- CREATE AGGREGATE aggregates too.
CREATE AGGREGATE oa_sum(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0');
SELECT (SELECT oa_sum(oa.b)) FROM oa;
SELECT a, (SELECT oa_sum(oa.b) FROM ob LIMIT 1) FROM oa GROUP BY a ORDER BY a;
DROP AGGREGATE oa_sum(int);
-- In a view and a prepared statement.
CREATE VIEW oav AS SELECT (SELECT max(oa.b)) AS m FROM oa;
SELECT * FROM oav;
DROP VIEW oav;
PREPARE oap(int) AS SELECT (SELECT max(oa.b) + $1) FROM oa;
EXECUTE oap(10);
DEALLOCATE oap;
DROP TABLE oa, ob;
