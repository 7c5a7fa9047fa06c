-- Materialized views: CREATE (WITH [NO] DATA), REFRESH [CONCURRENTLY],
-- reads, refused writes, DROP, and what the catalog and psql show.
\set VERBOSITY verbose
CREATE TABLE sales (id int PRIMARY KEY, region text, amount int);
INSERT INTO sales VALUES (1, 'north', 10), (2, 'south', 20), (3, 'north', 5);
CREATE MATERIALIZED VIEW totals AS
  SELECT region, sum(amount) AS total FROM sales GROUP BY region;
SELECT * FROM totals ORDER BY region;
INSERT INTO sales VALUES (4, 'south', 100);
SELECT * FROM totals ORDER BY region;
REFRESH MATERIALIZED VIEW totals;
SELECT * FROM totals ORDER BY region;
CREATE MATERIALIZED VIEW IF NOT EXISTS totals AS SELECT 1;
CREATE MATERIALIZED VIEW empty_mv AS SELECT id FROM sales WITH NO DATA;
SELECT * FROM empty_mv;
REFRESH MATERIALIZED VIEW CONCURRENTLY empty_mv;
REFRESH MATERIALIZED VIEW empty_mv;
SELECT count(*) FROM empty_mv;
REFRESH MATERIALIZED VIEW CONCURRENTLY totals;
CREATE UNIQUE INDEX totals_region ON totals (region);
DELETE FROM sales WHERE id = 4;
REFRESH MATERIALIZED VIEW CONCURRENTLY totals;
SELECT * FROM totals ORDER BY region;
REFRESH MATERIALIZED VIEW CONCURRENTLY totals WITH NO DATA;
REFRESH MATERIALIZED VIEW totals WITH NO DATA;
SELECT * FROM totals;
REFRESH MATERIALIZED VIEW totals;
-- writes are refused
INSERT INTO totals VALUES ('east', 1);
UPDATE totals SET total = 0;
DELETE FROM totals;
REFRESH MATERIALIZED VIEW sales;
REFRESH MATERIALIZED VIEW nosuch;
-- transactional
BEGIN;
INSERT INTO sales VALUES (5, 'west', 7);
REFRESH MATERIALIZED VIEW totals;
SELECT * FROM totals ORDER BY region;
ROLLBACK;
SELECT * FROM totals ORDER BY region;
-- catalog
SELECT relname, relkind, relispopulated FROM pg_class
 WHERE relname IN ('totals', 'empty_mv') ORDER BY 1;
SELECT matviewname, hasindexes, ispopulated FROM pg_matviews ORDER BY 1;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
\dm
-- drop
DROP TABLE totals;
DROP VIEW totals;
DROP MATERIALIZED VIEW sales;
DROP MATERIALIZED VIEW IF EXISTS nosuch;
DROP MATERIALIZED VIEW totals, empty_mv;
DROP TABLE sales;
