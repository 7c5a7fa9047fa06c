-- A CTE is computed once per statement: two references to a volatile
-- one read the same rows, even when one scan runs inside the other.
WITH v AS (SELECT random() AS r) SELECT a.r = b.r AS same FROM v a, v b;
WITH v AS (SELECT g, random() AS r FROM generate_series(1, 5) g)
SELECT count(*) FROM v a JOIN v b ON a.g = b.g WHERE a.r = b.r;
WITH v AS (SELECT g, random() AS r FROM generate_series(1, 5) g)
SELECT count(*) FROM v a WHERE a.r = (SELECT r FROM v b WHERE b.g = a.g);
WITH v AS (SELECT random() AS r)
SELECT (SELECT r FROM v) = (SELECT r FROM v) AS same;
-- A single reference streams: LIMIT stops an endless recursive CTE.
WITH RECURSIVE r(n) AS (SELECT random() UNION ALL SELECT random() FROM r)
SELECT count(*) FROM (SELECT * FROM r LIMIT 5) s;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x)
SELECT * FROM x LIMIT 3;
-- A round's rows go up as they are made: a recursive query nested in the
-- recursive term of another, itself endless, is stopped by the LIMIT.
CREATE TEMP TABLE department (id int, parent_department int, name text);
INSERT INTO department VALUES (0, NULL, 'ROOT'), (1, 0, 'A'), (2, 1, 'B');
WITH RECURSIVE q AS (
      SELECT * FROM department
    UNION ALL
      (WITH RECURSIVE x AS (
           SELECT * FROM department
         UNION ALL
           (SELECT * FROM q UNION ALL SELECT * FROM x)
        )
       SELECT * FROM x)
    )
SELECT * FROM q LIMIT 10;
-- UNION (not ALL) still drops rows seen before, round by round.
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT (n % 3) + 1 FROM t)
SELECT * FROM t;
-- MERGE takes a WITH clause, but not WITH RECURSIVE.
CREATE TEMP TABLE m (k int, v text);
WITH RECURSIVE c AS (SELECT 1 a)
MERGE INTO m USING (SELECT 0 k) o ON m.k = o.k
WHEN NOT MATCHED THEN INSERT VALUES (o.k, 'x');
WITH c AS (SELECT 1 a)
MERGE INTO m USING (SELECT a AS k FROM c) o ON m.k = o.k
WHEN NOT MATCHED THEN INSERT VALUES (o.k, 'from c');
SELECT * FROM m;
