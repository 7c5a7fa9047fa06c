-- EXPLAIN's detail lines: sort keys (with direction and NULLS), group
-- keys, HAVING as the aggregation's Filter, conditions over joins.
CREATE TABLE ed (a int, b int, c text);
INSERT INTO ed SELECT g, g % 10, 'c' || g FROM generate_series(1, 100) g;
EXPLAIN (COSTS OFF) SELECT * FROM ed ORDER BY c;
EXPLAIN (COSTS OFF) SELECT * FROM ed ORDER BY b DESC, a NULLS FIRST;
EXPLAIN (COSTS OFF) SELECT * FROM ed ORDER BY b DESC NULLS LAST, c DESC;
EXPLAIN (COSTS OFF) SELECT a + b AS s, c FROM ed ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT b, count(*) FROM ed GROUP BY b;
EXPLAIN (COSTS OFF) SELECT b, count(*) FROM ed GROUP BY b HAVING count(*) > 5;
EXPLAIN (COSTS OFF) SELECT b, sum(a) FROM ed GROUP BY b HAVING sum(a) > 100 AND b < 5;
EXPLAIN (COSTS OFF) SELECT b, count(*) FROM ed GROUP BY b ORDER BY count(*) DESC, b;
EXPLAIN (COSTS OFF) SELECT b % 3, max(a) FROM ed GROUP BY b % 3;
EXPLAIN (COSTS OFF) SELECT * FROM ed WHERE a > 5 AND b < 3;
EXPLAIN (COSTS OFF) SELECT * FROM ed WHERE (a > 5 AND b < 3) OR c = 'x';
