-- RANGE offsets, GROUPS, EXCLUDE
CREATE TABLE wf (id int, x int, f float8, n numeric, d date, ts timestamp, t time, iv interval, g text);
INSERT INTO wf VALUES
  (1, 1, 1.5, 1.5, '2024-01-01', '2024-01-01 10:00', '10:00', '1 hour', 'a'),
  (2, 2, 2.5, 2.5, '2024-01-03', '2024-01-01 11:30', '11:30', '2 hours', 'a'),
  (3, 2, 2.5, 2.5, '2024-01-03', '2024-01-01 11:30', '11:30', '2 hours', 'a'),
  (4, 5, 5.0, 5.0, '2024-02-01', '2024-01-02 09:00', '23:00', '1 day', 'b'),
  (5, 7, 'NaN', 'NaN', '2024-02-02', '2024-01-02 10:00', '23:30', '2 days', 'b'),
  (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'b'),
  (7, 10, 'Infinity', 'Infinity', '2025-01-01', '2025-01-01', '00:00', '1 mon', 'b');
SELECT id, x, sum(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       count(*) OVER (ORDER BY x RANGE BETWEEN 2 PRECEDING AND CURRENT ROW),
       sum(id) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING),
       sum(id) OVER (ORDER BY x RANGE BETWEEN 3 FOLLOWING AND 5 FOLLOWING),
       sum(id) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)
FROM wf ORDER BY id;
SELECT id, x, sum(id) OVER (ORDER BY x DESC RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING),
       sum(id) OVER (ORDER BY x NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       sum(id) OVER (ORDER BY x DESC NULLS LAST RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)
FROM wf ORDER BY id;
SELECT id, sum(id) OVER (PARTITION BY g ORDER BY x RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING)
FROM wf ORDER BY id;
SELECT id, f, sum(id) OVER (ORDER BY f RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       sum(id) OVER (ORDER BY f RANGE BETWEEN 'Infinity' PRECEDING AND CURRENT ROW)
FROM wf ORDER BY id;
SELECT id, n, sum(id) OVER (ORDER BY n RANGE BETWEEN 1 PRECEDING AND 1.5 FOLLOWING),
       sum(id) OVER (ORDER BY n DESC RANGE BETWEEN 'Infinity' PRECEDING AND 0 FOLLOWING)
FROM wf ORDER BY id;
SELECT id, d, sum(id) OVER (ORDER BY d RANGE BETWEEN '2 days' PRECEDING AND '1 month' FOLLOWING),
       sum(id) OVER (ORDER BY ts RANGE BETWEEN '2 hours' PRECEDING AND CURRENT ROW),
       sum(id) OVER (ORDER BY t RANGE BETWEEN '1 hour' PRECEDING AND '1 hour' FOLLOWING),
       sum(id) OVER (ORDER BY iv RANGE BETWEEN CURRENT ROW AND '1 day' FOLLOWING)
FROM wf ORDER BY id;
SET TimeZone = 'UTC';
SELECT id, sum(id) OVER (ORDER BY ts::timestamptz RANGE BETWEEN '1 day' PRECEDING AND '1 hour' FOLLOWING)
FROM wf ORDER BY id;
RESET TimeZone;
-- GROUPS
SELECT id, x, sum(id) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       sum(id) OVER (ORDER BY x GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING),
       sum(id) OVER (ORDER BY x GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING),
       sum(id) OVER (ORDER BY x GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING),
       count(*) OVER (ORDER BY x DESC GROUPS 1 PRECEDING)
FROM wf ORDER BY id;
-- EXCLUDE
SELECT id, x, sum(id) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW),
       sum(id) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP),
       sum(id) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES),
       sum(id) OVER (ORDER BY x RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING EXCLUDE NO OTHERS),
       count(*) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)
FROM wf ORDER BY id;
SELECT id, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 2) OVER w
FROM wf WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW)
ORDER BY id;
SELECT id, first_value(id) OVER w, last_value(id) OVER w
FROM wf WINDOW w AS (ORDER BY x, id GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE GROUP)
ORDER BY id;
-- parameters as offsets
PREPARE wp(int) AS SELECT id, sum(id) OVER (ORDER BY x RANGE BETWEEN $1 PRECEDING AND $1 FOLLOWING) FROM wf ORDER BY id;
EXECUTE wp(3);
-- errors
SELECT sum(id) OVER (ORDER BY x, id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY d RANGE BETWEEN '-1 day' PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x RANGE BETWEEN NULL PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x GROUPS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x GROUPS BETWEEN CURRENT ROW AND NULL FOLLOWING) FROM wf;
SELECT sum(id) OVER (ORDER BY x ROWS BETWEEN CURRENT ROW AND -1 FOLLOWING) FROM wf;
SELECT sum(id) OVER (ORDER BY x RANGE BETWEEN x PRECEDING AND CURRENT ROW) FROM wf;
SELECT sum(id) OVER (ORDER BY x GROUPS BETWEEN x PRECEDING AND CURRENT ROW) FROM wf;
DROP TABLE wf;
-- FILTER, aggregates of the grouped query inside window calls
create table wq (a int, b int);
insert into wq select g, g % 3 from generate_series(1, 8) g;
select a, b, sum(a) filter (where b = 1) over (order by a), count(*) filter (where a > 3) over (partition by b),
  sum(a) filter (where b <> 0) over (order by a rows between 1 preceding and 1 following) from wq order by a;
select b, sum(sum(a)) filter (where b > 0) over (order by b) from wq group by b order by b;
select row_number() filter (where a > 1) over () from wq;
select sum(distinct a) over () from wq;
select sum(a order by a) over () from wq;
select sum(a) filter (where sum(a) > 1) over () from wq;
select sum(sum(a)) over () from wq;
select b, sum(a), rank() over (order by sum(a) desc), avg(count(*)) over (order by b rows between 1 preceding and current row) from wq group by b order by b;
select b, sum(sum(a) + 1) filter (where b > 0) over (order by b) from wq group by b order by b;
drop table wq;
-- NULL keys with RANGE offsets, a subquery offset, offsets PostgreSQL refuses
select x, y,
       first_value(y) over w,
       last_value(y) over w
from
  (select x, x as y from generate_series(1,5) as x
   union all select null, 42
   union all select null, 43) ss
window w as
  (order by x desc nulls last range between 2 preceding and 2 following);
select x, y, sum(y) over (order by x nulls first range between 1 preceding and current row)
from (select x, x as y from generate_series(1,5) as x union all select null, 42) ss order by x nulls first, y;
select 1 union select null union select 'a';
select null union all select null;
select unique1 from (values (1),(2),(3)) v(unique1) where false;
SELECT sum(x) over (order by x rows (SELECT 1) + 1 PRECEDING), x FROM generate_series(1, 5) x;
create table emp (depname varchar, salary int);
select sum(salary) over (order by depname range between '1 year'::interval preceding and '2 years'::interval following) from emp;
select sum(x) over (order by x::numeric range between 1.1 preceding and 'NaN' following) from generate_series(1,3) x;
select sum(x) over (order by x::float8 range between 1.1 preceding and 'NaN' following) from generate_series(1,3) x;
drop table emp;
-- window calls where PostgreSQL refuses them
create table es (depname text, salary int, empno int);
SELECT rank() OVER (ORDER BY rank() OVER (ORDER BY random()));
SELECT * FROM es WHERE row_number() OVER (ORDER BY salary) < 10;
SELECT * FROM es INNER JOIN es e2 ON row_number() OVER (ORDER BY es.salary) < 10;
SELECT rank() OVER (ORDER BY 1), count(*) FROM es GROUP BY 1;
DELETE FROM es WHERE (rank() OVER (ORDER BY random())) > 10;
DELETE FROM es RETURNING rank() OVER (ORDER BY random());
UPDATE es SET salary = 1 WHERE rank() over () > 1;
SELECT count() OVER () FROM es;
SELECT sum(salary) OVER (PARTITION BY sum(salary) OVER ()) FROM es;
drop table es;
