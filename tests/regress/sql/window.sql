-- Window functions: ranking, offsets, frames, named windows, over aggregates.
\set VERBOSITY verbose
CREATE TABLE emp (id int PRIMARY KEY, dept text, salary int, hired date);
INSERT INTO emp VALUES (1, 'a', 10, '2020-01-01'), (2, 'a', 20, '2020-02-01'), (3, 'a', 20, '2020-03-01'),
  (4, 'b', 5, '2021-01-01'), (5, 'b', NULL, '2021-02-01'), (6, 'c', 7, '2019-01-01');
SELECT id, dept, salary, row_number() OVER (PARTITION BY dept ORDER BY salary, id) AS rn,
       rank() OVER (PARTITION BY dept ORDER BY salary) AS rk,
       dense_rank() OVER (PARTITION BY dept ORDER BY salary) AS drk
  FROM emp ORDER BY id;
SELECT id, salary, sum(salary) OVER (ORDER BY salary) AS running, sum(salary) OVER () AS total,
       count(*) OVER (PARTITION BY dept) AS n, avg(salary) OVER (PARTITION BY dept) AS av
  FROM emp ORDER BY id;
SELECT id, salary, lag(salary) OVER w, lead(salary, 2, -1) OVER w, first_value(id) OVER w, last_value(id) OVER w,
       nth_value(id, 2) OVER w
  FROM emp WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, sum(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS moving,
       sum(salary) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS cum,
       last_value(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lastv,
       max(salary) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS mx
  FROM emp ORDER BY id;
SELECT id, ntile(4) OVER (ORDER BY id), percent_rank() OVER (ORDER BY salary), cume_dist() OVER (ORDER BY salary) FROM emp ORDER BY id;
SELECT dept, sum(salary) AS s, rank() OVER (ORDER BY sum(salary) DESC) FROM emp GROUP BY dept ORDER BY dept;
SELECT row_number() OVER (ORDER BY hired), id FROM emp;
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY dept ORDER BY id) AS rn FROM emp) s WHERE rn = 1 ORDER BY id;
SELECT id FROM emp WHERE row_number() OVER () > 1;
SELECT sum(row_number() OVER ()) FROM emp;
SELECT row_number() OVER w FROM emp;
SELECT string_agg(dept, ',') OVER (ORDER BY id) FROM emp ORDER BY id;
SELECT id, array_agg(id) OVER (PARTITION BY dept ORDER BY id DESC) FROM emp ORDER BY id;
SELECT ntile(0) OVER () FROM emp;
SELECT dept, count(*) OVER (PARTITION BY dept ORDER BY salary NULLS FIRST), salary FROM emp ORDER BY dept, salary NULLS FIRST;
DROP TABLE emp;
