-- SELECT DISTINCT ON: the first row of each group in ORDER BY order.
\set VERBOSITY verbose
CREATE TABLE emp (id int PRIMARY KEY, dept text, salary int);
INSERT INTO emp VALUES (1, 'a', 10), (2, 'a', 30), (3, 'a', 20), (4, 'b', 5), (5, 'b', NULL), (6, 'c', 7), (7, NULL, 1);
SELECT DISTINCT ON (dept) dept, id, salary FROM emp ORDER BY dept, salary DESC;
SELECT DISTINCT ON (dept) dept, id, salary FROM emp ORDER BY dept, salary NULLS FIRST;
SELECT DISTINCT ON (dept) id, salary FROM emp ORDER BY dept, id DESC;
SELECT DISTINCT ON (1) dept, id FROM emp ORDER BY 1, 2;
SELECT DISTINCT ON (d) dept AS d, id FROM emp ORDER BY d, id DESC;
SELECT DISTINCT ON (salary > 10) salary > 10 AS big, id FROM emp ORDER BY salary > 10, id;
SELECT DISTINCT ON (dept, salary IS NULL) dept, salary IS NULL AS n, id FROM emp ORDER BY salary IS NULL, dept, id;
SELECT DISTINCT ON (dept) dept FROM emp;
SELECT DISTINCT ON (dept) dept, count(*) FROM emp GROUP BY dept, salary ORDER BY dept, count(*) DESC;
SELECT DISTINCT ON (dept) dept, id FROM emp ORDER BY dept, id LIMIT 2;
SELECT DISTINCT ON (dept) dept, id FROM emp ORDER BY dept, id OFFSET 1;
SELECT * FROM (SELECT DISTINCT ON (dept) dept, id FROM emp ORDER BY dept, id DESC) s ORDER BY id;
SELECT DISTINCT ON (dept) dept, id FROM emp ORDER BY id;
SELECT DISTINCT ON (dept, id) dept, id FROM emp ORDER BY salary, dept;
SELECT DISTINCT ON (dept) dept, id FROM emp ORDER BY salary, dept;
SELECT DISTINCT ON (nosuch) dept FROM emp;
SELECT DISTINCT ON (dept) dept, id, row_number() OVER (ORDER BY id) FROM emp ORDER BY dept, id DESC;
SELECT DISTINCT ON (dept) dept, id FROM emp WHERE salary IS NOT NULL ORDER BY dept DESC NULLS LAST, id;
SELECT l.dept, s.id FROM (SELECT DISTINCT dept FROM emp) l, LATERAL (SELECT DISTINCT ON (dept) id FROM emp e WHERE e.dept = l.dept ORDER BY dept, salary) s ORDER BY 1;
