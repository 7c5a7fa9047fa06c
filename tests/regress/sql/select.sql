--
-- SELECT: expressions, NULL rules, predicates, subqueries, joins,
-- aggregates, DISTINCT, ORDER BY/LIMIT/OFFSET, WITH, UNION, VALUES,
-- generate_series, scalar functions.
--
CREATE TABLE emp (id integer PRIMARY KEY, name text NOT NULL, dept integer, salary numeric(10,2), boss integer);
CREATE TABLE dept (id integer PRIMARY KEY, dname text NOT NULL);
INSERT INTO dept VALUES (1, 'eng'), (2, 'sales'), (3, 'empty');
INSERT INTO emp VALUES
    (1, 'Ann', 1, 5000, NULL),
    (2, 'bob', 1, 4000, 1),
    (3, 'Cid', 2, 3000, 1),
    (4, 'dee', 2, 3500, 3),
    (5, 'Eve', NULL, 1000, 3),
    (6, 'fay', 1, NULL, 2);
-- expressions and operators
SELECT 1 + 2 * 3 AS a, (1 + 2) * 3 AS b, 7 / 2 AS int_div, 7 % 3 AS modulo, -7 / 2 AS neg_div, 2 ^ 10 AS pow;
SELECT 7.0 / 2 AS numeric_div, 1.5 + 1 AS mixed, 10 - 2.25 AS sub, 0.1 + 0.2 AS exact;
SELECT 'abc' || 'def' AS concat_op, 'n=' || 42 AS text_int, 3 > 2 AS gt, 'a' < 'b' AS lt, 2 <> 2 AS ne, 2 != 3 AS ne2;
SELECT true AND false AS and_, true OR false AS or_, NOT true AS not_;
SELECT 5 >= 5 AND 4 <= 3 OR NOT (1 = 2) AS precedence;
SELECT abs(-5), abs(-2.5), round(2.5), round(-2.5), round(3.14159, 2), round(2.5::double precision) AS round_float;
SELECT length('hello'), lower('HeLLo'), upper('HeLLo'), substr('hello', 2, 3), substr('hello', 3), substr('hello', 0, 2);
SELECT concat('a', NULL, 1, true), coalesce(NULL, NULL, 3), coalesce(NULL::text, 'x'), nullif(1, 1), nullif(1, 2);
SELECT greatest(1, 3, 2), least(1, 3, 2), greatest('b', 'c', 'a'), least(2, NULL, 1), greatest(NULL::integer, NULL);
-- NULL rules
SELECT NULL = NULL AS eq, NULL <> 1 AS ne, NULL + 1 AS plus, 'a' || NULL AS concat, NULL IS NULL AS is_null, 1 IS NOT NULL AS is_not_null;
SELECT NULL AND false AS and_false, NULL AND true AS and_true, NULL OR true AS or_true, NULL OR false AS or_false, NOT NULL::boolean AS not_null;
SELECT 1 IN (1, NULL) AS in_hit, 2 IN (1, NULL) AS in_miss, 2 NOT IN (1, NULL) AS not_in, NULL IN (1, 2) AS null_in;
SELECT name FROM emp WHERE dept = NULL;
SELECT name FROM emp WHERE dept IS NULL;
SELECT name FROM emp WHERE dept IS NOT NULL AND salary IS NULL;
SELECT count(*) FROM emp WHERE dept <> 1;
-- WHERE with AND/OR/NOT, BETWEEN, IN, LIKE/ILIKE
SELECT name FROM emp WHERE salary BETWEEN 3000 AND 4000 ORDER BY name;
SELECT name FROM emp WHERE salary NOT BETWEEN 3000 AND 4000 ORDER BY name;
SELECT name FROM emp WHERE id IN (1, 3, 5, 7) ORDER BY id;
SELECT name FROM emp WHERE id NOT IN (1, 3, 5) ORDER BY id;
SELECT name FROM emp WHERE dept = 1 AND (salary > 4500 OR salary IS NULL) ORDER BY id;
SELECT name FROM emp WHERE NOT (dept = 1) ORDER BY id;
SELECT name FROM emp WHERE name LIKE '_e%' ORDER BY id;
SELECT name FROM emp WHERE name LIKE 'a%' ORDER BY id;
SELECT name FROM emp WHERE name ILIKE 'a%' ORDER BY id;
SELECT name FROM emp WHERE name NOT ILIKE '%E%' ORDER BY id;
SELECT 'a_c' LIKE 'a\_c' AS escaped, 'abc' LIKE 'a\_c' AS not_escaped, '100%' LIKE '100\%' AS pct, 'ABC' LIKE 'abc' AS case_sensitive;
-- subqueries
SELECT name FROM emp WHERE dept IN (SELECT id FROM dept WHERE dname = 'eng') ORDER BY id;
SELECT name FROM emp WHERE dept NOT IN (SELECT id FROM dept WHERE dname = 'eng') ORDER BY id;
SELECT dname FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id) ORDER BY d.id;
SELECT dname FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.id) ORDER BY d.id;
SELECT name, (SELECT dname FROM dept WHERE dept.id = emp.dept) AS dname FROM emp ORDER BY id;
SELECT (SELECT max(salary) FROM emp) AS top, (SELECT name FROM emp WHERE id = 99) AS nobody;
SELECT name FROM emp WHERE salary > (SELECT avg(salary) FROM emp) ORDER BY id;
SELECT (SELECT id FROM emp);
SELECT * FROM (SELECT name, salary * 2 AS double FROM emp WHERE id < 3) AS sub ORDER BY name;
-- CASE
SELECT name, CASE WHEN salary >= 4000 THEN 'high' WHEN salary >= 3000 THEN 'mid' ELSE 'low' END AS band FROM emp ORDER BY id;
SELECT name, CASE dept WHEN 1 THEN 'eng' WHEN 2 THEN 'sales' END AS d FROM emp ORDER BY id;
-- joins
SELECT e.name, d.dname FROM emp e JOIN dept d ON e.dept = d.id ORDER BY e.id;
SELECT e.name, d.dname FROM emp e INNER JOIN dept d ON d.id = e.dept WHERE d.dname = 'sales' ORDER BY e.id;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id ORDER BY e.id;
SELECT d.dname, e.name FROM dept d LEFT OUTER JOIN emp e ON e.dept = d.id ORDER BY d.id, e.id;
SELECT d.dname, count(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.id GROUP BY d.dname ORDER BY d.dname;
SELECT e.name, d.dname FROM emp e CROSS JOIN dept d WHERE e.id <= 2 ORDER BY e.id, d.id;
SELECT e.name, d.dname FROM emp e, dept d WHERE e.dept = d.id AND e.id > 3 ORDER BY e.id;
SELECT e.name, b.name AS boss FROM emp e LEFT JOIN emp b ON b.id = e.boss ORDER BY e.id;
SELECT e.name, d.dname FROM emp e JOIN dept d USING (id) ORDER BY id;
-- aggregates, GROUP BY, HAVING
SELECT count(*), count(dept), count(salary), sum(salary), min(salary), max(salary) FROM emp;
SELECT avg(salary) FROM emp;
SELECT sum(id), avg(id), min(name), max(name) FROM emp;
SELECT count(*), sum(salary), avg(salary), min(salary), max(salary) FROM emp WHERE false;
SELECT dept, count(*), sum(salary), avg(salary) FROM emp GROUP BY dept ORDER BY dept;
SELECT dept, count(*) FROM emp GROUP BY dept HAVING count(*) > 1 ORDER BY dept;
SELECT dept, max(salary) - min(salary) AS spread FROM emp WHERE dept IS NOT NULL GROUP BY dept HAVING sum(salary) > 6000 ORDER BY 1;
SELECT count(DISTINCT dept) FROM emp;
SELECT dept IS NULL AS no_dept, count(*) FROM emp GROUP BY 1 ORDER BY 1;
-- DISTINCT
SELECT DISTINCT dept FROM emp ORDER BY dept;
SELECT DISTINCT dept, boss FROM emp ORDER BY dept, boss;
-- ORDER BY, LIMIT, OFFSET
SELECT name FROM emp ORDER BY name;
SELECT name, salary FROM emp ORDER BY salary DESC;
SELECT name, salary FROM emp ORDER BY salary ASC NULLS FIRST;
SELECT name, salary FROM emp ORDER BY salary DESC NULLS LAST, name;
SELECT name, dept FROM emp ORDER BY dept, name DESC;
SELECT name FROM emp ORDER BY 1 LIMIT 2;
SELECT name FROM emp ORDER BY id LIMIT 2 OFFSET 3;
SELECT name FROM emp ORDER BY id OFFSET 4;
SELECT name FROM emp ORDER BY id LIMIT 0;
SELECT name FROM emp ORDER BY id LIMIT ALL;
SELECT name FROM emp ORDER BY id FETCH FIRST 1 ROW ONLY;
SELECT id * 10 AS x FROM emp ORDER BY x DESC LIMIT 3;
-- WITH
WITH eng AS (SELECT * FROM emp WHERE dept = 1)
SELECT name FROM eng ORDER BY id;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a)
SELECT * FROM a, b;
WITH totals AS (SELECT dept, sum(salary) AS total FROM emp GROUP BY dept)
SELECT d.dname, t.total FROM dept d JOIN totals t ON t.dept = d.id ORDER BY d.id;
-- UNION, UNION ALL
SELECT 1 AS n UNION SELECT 2 UNION SELECT 1 ORDER BY n;
SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 1 ORDER BY n;
SELECT dept FROM emp UNION SELECT id FROM dept ORDER BY 1;
SELECT name FROM emp WHERE id = 1 UNION ALL SELECT dname FROM dept WHERE id = 1;
SELECT 1 UNION SELECT 'a';
SELECT 1, 2 UNION SELECT 3;
-- VALUES
VALUES (1, 'one'), (2, 'two'), (3, NULL);
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(num, letter) ORDER BY num DESC;
VALUES (1), (2.5);
-- generate_series
SELECT * FROM generate_series(1, 5);
SELECT generate_series(1, 10, 3) AS g;
SELECT * FROM generate_series(5, 1, -2) AS g(n);
SELECT sum(g) FROM generate_series(1, 100) AS g;
SELECT count(*) FROM generate_series(1, 0);
SELECT g, g * g AS sq FROM generate_series(1, 3) g WHERE g <> 2;
-- SELECT without FROM, column names
SELECT 1;
SELECT 1 AS one, 'two' AS "Two", NULL AS nothing;
SELECT name AS "Employee Name" FROM emp WHERE id = 1;
SELECT emp.* FROM emp WHERE id = 1;
-- casts in expressions
SELECT '42'::integer + 1 AS int_plus, CAST('7' AS bigint) * 2 AS bigint_times, 10::text || 'x' AS text_cat;
DROP TABLE emp, dept;
