-- A subquery's outputs the query above never reads are not computed
-- (PostgreSQL's remove_unused_subquery_outputs), unless volatile.
CREATE TABLE uo (q1 int, q2 int);
INSERT INTO uo VALUES (1, 10), (1, 11), (2, 20);
SELECT q1 FROM (SELECT q1, (SELECT q2 FROM uo t WHERE t.q1 = o.q1) AS t_sub FROM uo o) ss ORDER BY q1;
SELECT q1 FROM (SELECT q1, 1 / (q1 - 1) AS boom FROM uo) ss ORDER BY q1;
SELECT q1 FROM (SELECT q1, (SELECT q2 FROM uo t WHERE t.q1 = o.q1) AS t_sub FROM uo o) ss WHERE q1 > 1;
-- read ones are still computed
SELECT t_sub FROM (SELECT q1, (SELECT q2 FROM uo t WHERE t.q1 = o.q1) AS t_sub FROM uo o) ss;
SELECT q1 FROM (SELECT q1, (SELECT q2 FROM uo t WHERE t.q1 = o.q1) AS t_sub FROM uo o) ss WHERE t_sub > 0;
-- volatile ones too
CREATE SEQUENCE uo_s;
SELECT q1 FROM (SELECT q1, nextval('uo_s') AS n FROM uo) ss ORDER BY q1;
SELECT q1 FROM (SELECT q1, (SELECT nextval('uo_s')) AS n FROM uo) ss ORDER BY q1;
SELECT currval('uo_s');
-- the unread subquery reading a WITH item of its query
SELECT q1 FROM (WITH t_cte AS (SELECT * FROM uo t)
  SELECT q1, (SELECT q2 FROM t_cte WHERE t_cte.q1 = o.q1) AS t_sub FROM uo o) ss ORDER BY q1;
SELECT q1 FROM (WITH t_cte AS MATERIALIZED (SELECT * FROM uo t)
  SELECT q1, (SELECT q2 FROM t_cte WHERE t_cte.q1 = o.q1) AS t_sub FROM uo o) ss ORDER BY q1;
