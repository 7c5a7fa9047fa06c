-- ALTER TABLE ... ADD [CONSTRAINT c] PRIMARY KEY | UNIQUE USING INDEX.
CREATE TABLE cwi_test( a int , b varchar(10), c char);
INSERT INTO cwi_test VALUES(1, 2), (3, 4), (5, 6);
CREATE UNIQUE INDEX cwi_uniq_idx ON cwi_test(a , b);
ALTER TABLE cwi_test ADD primary key USING INDEX cwi_uniq_idx;
\d cwi_test
\d cwi_uniq_idx
CREATE UNIQUE INDEX cwi_uniq2_idx ON cwi_test(b , a);
ALTER TABLE cwi_test DROP CONSTRAINT cwi_uniq_idx,
	ADD CONSTRAINT cwi_replaced_pkey PRIMARY KEY
		USING INDEX cwi_uniq2_idx;
\d cwi_test
\d cwi_replaced_pkey
DROP INDEX cwi_replaced_pkey;	-- Should fail; a constraint depends on it
CREATE INDEX cwi_plain ON cwi_test (c);
ALTER TABLE cwi_test ADD UNIQUE USING INDEX cwi_plain;
ALTER TABLE cwi_test ADD UNIQUE USING INDEX no_such;
CREATE UNIQUE INDEX cwi_expr ON cwi_test ((a + 1));
ALTER TABLE cwi_test ADD UNIQUE USING INDEX cwi_expr;
CREATE UNIQUE INDEX cwi_c ON cwi_test (c);
ALTER TABLE cwi_test ADD PRIMARY KEY USING INDEX cwi_c;
ALTER TABLE cwi_test ADD CONSTRAINT cwi_c_key UNIQUE USING INDEX cwi_c;
\d cwi_test
DROP TABLE cwi_test;
CREATE TABLE cwi_test(a int) PARTITION BY hash (a);
create unique index on cwi_test (a);
alter table cwi_test add primary key using index cwi_test_a_idx ;
DROP TABLE cwi_test;
CREATE TABLE cwi_n (a int);
INSERT INTO cwi_n VALUES (NULL);
CREATE UNIQUE INDEX cwi_n_a ON cwi_n (a);
ALTER TABLE cwi_n ADD PRIMARY KEY USING INDEX cwi_n_a;
DROP TABLE cwi_n;
-- a unique violation names the index by its current name
CREATE TABLE cwi_r (a int);
CREATE UNIQUE INDEX cwi_r1 ON cwi_r (a);
ALTER TABLE cwi_r ADD CONSTRAINT cwi_r_key UNIQUE USING INDEX cwi_r1;
INSERT INTO cwi_r VALUES (1), (1);
ALTER INDEX cwi_r_key RENAME TO cwi_r_renamed;
INSERT INTO cwi_r VALUES (2), (2);
BEGIN;
ALTER INDEX cwi_r_renamed RENAME TO cwi_r_rolled_back;
ROLLBACK;
INSERT INTO cwi_r VALUES (3), (3);
DROP TABLE cwi_r;
