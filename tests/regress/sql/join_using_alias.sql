-- JOIN ... USING (...) AS alias (join_using_alias): the alias names the
-- merged columns only; an alias on the join hides the names inside it.
CREATE TABLE j1 (i integer, j integer, t text);
CREATE TABLE j2 (i integer, k integer);
INSERT INTO j1 VALUES (1, 4, 'one'), (2, 3, 'two'), (0, NULL, 'zero'), (NULL, 5, 'null');
INSERT INTO j2 VALUES (1, -1), (2, 2), (NULL, 0), (3, 3);
SELECT * FROM j1 JOIN j2 USING (i) AS x WHERE j1.t = 'one';
SELECT * FROM j1 JOIN j2 USING (i) AS x WHERE x.i = 1;
SELECT * FROM j1 JOIN j2 USING (i) AS x WHERE x.t = 'one';
SELECT * FROM (j1 JOIN j2 USING (i)) AS x WHERE j1.t = 'one';
SELECT * FROM (j1 JOIN j2 USING (i) AS x) AS xx WHERE x.i = 1;
SELECT * FROM j1 a1 JOIN j2 a2 USING (i) AS a1;
SELECT x.* FROM j1 JOIN j2 USING (i) AS x ORDER BY 1;
SELECT ROW(x.*), x FROM j1 JOIN j2 USING (i) AS x ORDER BY 1;
SELECT row_to_json(x.*) FROM j1 JOIN j2 USING (i) AS x WHERE j1.t = 'one';
SELECT x, x.i FROM j1 FULL JOIN j2 USING (i) AS x ORDER BY 2, 1;
SELECT x.i, j1.i, j2.i FROM j1 RIGHT JOIN j2 USING (i) AS x ORDER BY 1;
SELECT x.i, j1.i, j2.i FROM j1 LEFT JOIN j2 USING (i) AS x ORDER BY 1;
SELECT (SELECT x.i + 10) FROM j1 JOIN j2 USING (i) AS x ORDER BY 1;
SELECT count(*) FROM j1 JOIN j2 USING (i) AS x GROUP BY x.i ORDER BY x.i;
-- two USING aliases at one level
SELECT x.i, y.i FROM j1 JOIN j2 USING (i) AS x JOIN j1 AS j3 USING (i) AS y ORDER BY 1;
