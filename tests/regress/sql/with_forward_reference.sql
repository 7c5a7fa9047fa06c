-- A WITH item that refers to itself or a later item without RECURSIVE:
-- "relation does not exist" with PostgreSQL's DETAIL and HINT.
WITH outermost(x) AS (
  SELECT 1
  UNION (WITH innermost AS (SELECT 2)
         SELECT * FROM outermost
         UNION SELECT * FROM innermost)
)
SELECT * FROM outermost ORDER BY 1;
WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM b;
WITH a AS (SELECT * FROM nosuch) SELECT * FROM a;
-- a table of the name is found as before
CREATE TABLE wfr (x int);
INSERT INTO wfr VALUES (7);
WITH wfr AS (SELECT * FROM wfr) SELECT * FROM wfr;
