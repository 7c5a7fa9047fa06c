-- Scans that decode only the columns a query reads (plan/src/select/narrow.rs):
-- every shape below must give PostgreSQL's rows whichever columns are skipped.
CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler char(20), note text);
INSERT INTO acc SELECT i, i % 3, i * 10, 'f' || i, CASE WHEN i % 2 = 0 THEN 'even' END
  FROM generate_series(1, 30) AS i;
CREATE INDEX acc_bid ON acc (bid, abalance);
-- Projection of one column through the primary key, and through a range.
SELECT abalance FROM acc WHERE aid = 7;
SELECT abalance, note FROM acc WHERE aid BETWEEN 3 AND 6 ORDER BY aid;
-- count(*) reads no column at all; count(col) reads one.
SELECT count(*) FROM acc WHERE aid BETWEEN 5 AND 25;
SELECT count(note) FROM acc;
SELECT count(*) FROM acc;
-- A filter on a column the projection does not read.
SELECT aid FROM acc WHERE note = 'even' AND bid = 1 ORDER BY aid;
SELECT filler FROM acc WHERE abalance > 250 ORDER BY 1;
-- IN lists, and an index whose prefix bound keeps rows by their key values.
SELECT note FROM acc WHERE aid IN (2, 4, 5) ORDER BY aid;
SELECT aid FROM acc WHERE bid = 2 AND abalance >= 200 ORDER BY aid;
SELECT sum(aid) FROM acc WHERE bid = 1;
-- Aggregates with FILTER, ORDER BY and GROUP BY on other columns.
SELECT bid, count(*) FILTER (WHERE note IS NULL), string_agg(aid::text, ',' ORDER BY abalance DESC)
  FROM acc WHERE aid <= 9 GROUP BY bid ORDER BY bid;
SELECT max(filler) FROM acc WHERE bid = 0;
-- Sorting and DISTINCT above the projection.
SELECT DISTINCT bid FROM acc ORDER BY bid;
SELECT aid FROM acc ORDER BY abalance DESC LIMIT 3;
-- Subqueries: a correlated one reads the outer row by position.
SELECT aid, (SELECT count(*) FROM acc b WHERE b.bid = a.bid AND b.aid < a.aid) AS before
  FROM acc a WHERE aid <= 5 ORDER BY aid;
SELECT aid FROM acc a WHERE EXISTS (SELECT 1 FROM acc b WHERE b.aid = a.aid + 1 AND b.note IS NULL)
  AND aid < 8 ORDER BY aid;
SELECT aid FROM acc WHERE abalance = (SELECT max(abalance) FROM acc WHERE bid = 2);
-- System columns next to skipped ones.
SELECT aid, xmin = xmin AS has_xmin FROM acc WHERE aid = 3;
-- A column added later (its value for old rows comes from the definition).
ALTER TABLE acc ADD COLUMN extra int DEFAULT 42;
SELECT extra FROM acc WHERE aid = 1;
SELECT count(extra), sum(extra) FROM acc;
-- Views and joins keep working.
CREATE VIEW v AS SELECT aid, note FROM acc WHERE bid = 1;
SELECT note FROM v WHERE aid < 8 ORDER BY aid;
SELECT a.aid, b.filler FROM acc a JOIN acc b ON b.aid = a.aid + 10 WHERE a.aid < 3 ORDER BY 1;
-- Whole rows.
SELECT * FROM acc WHERE aid = 2;
SELECT acc FROM acc WHERE aid = 4;
SELECT a.bid, row_to_json(a) FROM acc a WHERE aid IN (5, 6) ORDER BY 1;
SELECT count(a) FROM acc a WHERE a IS NOT NULL;
SELECT (a).note FROM acc a WHERE aid = 10;
-- After UPDATE and DELETE (versions), the same reads.
UPDATE acc SET note = 'upd', abalance = -1 WHERE aid = 7;
DELETE FROM acc WHERE aid = 8;
SELECT abalance FROM acc WHERE aid IN (7, 8);
SELECT count(*) FROM acc;
-- FOR UPDATE reads through the same scans.
BEGIN;
SELECT bid FROM acc WHERE aid = 9 FOR UPDATE;
COMMIT;
DROP VIEW v;
DROP TABLE acc;
