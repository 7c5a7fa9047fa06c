-- RETURNING the target's whole row from a partition laid out differently
-- (columns in another order, a dropped column): the named table's row.
CREATE TABLE prr (a text, b int, c int) PARTITION BY LIST (a);
CREATE TABLE prr_b (c int, x int, b int, a text);
ALTER TABLE prr_b DROP COLUMN x;
ALTER TABLE prr ATTACH PARTITION prr_b FOR VALUES IN ('b');
CREATE TABLE prr_a PARTITION OF prr FOR VALUES IN ('a');
INSERT INTO prr VALUES ('b', 1, 2), ('a', 3, 4) RETURNING prr, *;
UPDATE prr SET c = c + 10 RETURNING prr, *, (prr).c;
UPDATE prr AS t SET b = b + 1 WHERE a = 'b' RETURNING t, t.*;
UPDATE prr SET a = 'a' WHERE a = 'b' RETURNING prr;
DELETE FROM prr RETURNING prr, *;
-- RETURNING tableoid of a row an UPDATE moves names the partition it
-- lands in (leaves with different column layouts).
create table utrtest (a int, b text) partition by list (a);
create table utr1 (a int check (a in (1)), q text, b text);
create table utr2 (a int check (a in (2)), b text);
alter table utr1 drop column q;
alter table utrtest attach partition utr1 for values in (1);
alter table utrtest attach partition utr2 for values in (2);
insert into utrtest values (1, 'foo'), (2, 'bar') returning *, tableoid::regclass;
update utrtest set a = 3 - a from (values (1), (2)) s(x) where a = s.x returning *, tableoid::regclass;
update utrtest set b = b || '!' returning tableoid::regclass, a, b;
update utrtest set a = 3 - a where a = 1 returning utrtest.tableoid::regclass, utrtest, b;
select tableoid::regclass, * from utrtest order by a;
drop table utrtest;
