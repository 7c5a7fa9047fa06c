-- TEMP views: CREATE TEMP VIEW, and views over TEMP objects made TEMP with
-- PostgreSQL's NOTICE; they live in the session's pg_temp schema.
\set VERBOSITY verbose
CREATE TABLE base (a int, b text);
INSERT INTO base VALUES (1, 'x'), (2, 'y');
CREATE TEMP VIEW tv AS SELECT a FROM base WHERE a > 1;
SELECT * FROM tv;
CREATE TEMP TABLE tt (c int);
INSERT INTO tt VALUES (7);
CREATE VIEW over_temp AS SELECT c FROM tt;
SELECT * FROM over_temp;
CREATE VIEW over_tv AS SELECT a + 1 AS a1 FROM tv;
SELECT * FROM over_tv;
SELECT c.relname, c.relpersistence, n.nspname LIKE 'pg_temp%' AS in_temp
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname IN ('tv', 'over_temp', 'over_tv') ORDER BY 1;
SELECT viewname, schemaname LIKE 'pg_temp%' AS in_temp FROM pg_views
 WHERE viewname IN ('tv', 'over_temp', 'over_tv') ORDER BY 1;
DROP VIEW tv;
DROP VIEW over_tv;
DROP VIEW tv;
DROP VIEW over_temp;
DROP TABLE tt;
DROP TABLE base;
