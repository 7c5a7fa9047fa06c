-- Planner paths measured by bench/run's "queries" experiment: MIN/MAX
-- read through an index, a simple SQL function called per row (inlined
-- by PostgreSQL's planner and by Nestor's binder), HAVING on a grouping
-- column moved below the aggregation.
DROP TABLE IF EXISTS q_items;
DROP FUNCTION IF EXISTS q_addone(int);
CREATE TABLE q_items (id int PRIMARY KEY, grp int, price int);
INSERT INTO q_items SELECT g, g % 1000, (g::bigint * 7919 % 10007)::int FROM generate_series(1, 500000) g;
CREATE INDEX q_items_price ON q_items (price);
CREATE FUNCTION q_addone(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
ANALYZE q_items;
