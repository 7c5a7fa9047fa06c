-- A set operation's ORDER BY naming a column of one of its SELECTs: the
-- hint names that SELECT as *SELECT* n.
create table so_t (q1 int, q2 int);
SELECT q1 FROM so_t EXCEPT SELECT q2 FROM so_t ORDER BY q2 LIMIT 1;
SELECT q1 FROM so_t UNION SELECT q2 FROM so_t UNION SELECT q1 AS zz FROM so_t ORDER BY zz;
SELECT q1 FROM so_t UNION SELECT q2 FROM so_t ORDER BY nosuch;
SELECT q1 FROM so_t UNION SELECT q2 FROM so_t ORDER BY q1;
drop table so_t;
