-- Table inheritance (CREATE TABLE ... INHERITS): children get their
-- parents' columns and constraints, queries on a parent read its
-- descendants unless ONLY, UPDATE/DELETE reach them too, INSERT does not.
-- The first part follows PostgreSQL's own inherit.sql.
CREATE TABLE a (aa TEXT);
CREATE TABLE b (bb TEXT) INHERITS (a);
CREATE TABLE c (cc TEXT) INHERITS (a);
CREATE TABLE d (dd TEXT) INHERITS (b,c,a);

INSERT INTO a(aa) VALUES('aaa');
INSERT INTO a(aa) VALUES('aaaa');
INSERT INTO a(aa) VALUES('aaaaa');
INSERT INTO b(aa) VALUES('bbb');
INSERT INTO b(aa) VALUES('bbbb');
INSERT INTO c(aa) VALUES('ccc');
INSERT INTO c(aa) VALUES('cccc');
INSERT INTO d(aa) VALUES('ddd');
INSERT INTO d(aa) VALUES('dddd');

SELECT relname, a.* FROM a, pg_class where a.tableoid = pg_class.oid ORDER BY 1, 2;
SELECT relname, b.* FROM b, pg_class where b.tableoid = pg_class.oid ORDER BY 1, 2;
SELECT relname, c.* FROM c, pg_class where c.tableoid = pg_class.oid ORDER BY 1, 2;
SELECT relname, d.* FROM d, pg_class where d.tableoid = pg_class.oid ORDER BY 1, 2;
SELECT relname, a.* FROM ONLY a, pg_class where a.tableoid = pg_class.oid ORDER BY 1, 2;
SELECT relname, b.* FROM ONLY b, pg_class where b.tableoid = pg_class.oid ORDER BY 1, 2;

UPDATE a SET aa='zzzz' WHERE aa='aaaa';
UPDATE ONLY a SET aa='zzzzz' WHERE aa='aaaaa';
UPDATE b SET aa='zzz' WHERE aa='aaa';
UPDATE ONLY b SET aa='zzz' WHERE aa='aaa';
UPDATE a SET aa='zzzzzz' WHERE aa LIKE 'bbb%';
SELECT tableoid::regclass, * FROM a ORDER BY 1, 2;

UPDATE b SET aa='new';
SELECT tableoid::regclass, * FROM a ORDER BY 1, 2;
DELETE FROM ONLY c WHERE aa='new';
DELETE FROM c WHERE aa = 'ccc';
SELECT tableoid::regclass, * FROM a* ORDER BY 1, 2;
SELECT count(*) FROM a;
SELECT count(*) FROM ONLY a;
SELECT a.aa, x.n FROM a JOIN (VALUES ('new', 1), ('cccc', 2)) x(s, n) ON a.aa = x.s ORDER BY 1, 2;
SELECT aa FROM a WHERE tableoid = 'd'::regclass;
SELECT tableoid::regclass, count(*) FROM a GROUP BY 1 ORDER BY 1;
\d a
\d+ a
\d d
BEGIN;
CREATE TABLE e () INHERITS (d);
INSERT INTO e VALUES ('in e');
SELECT tableoid::regclass, aa FROM b WHERE aa = 'in e';
ROLLBACK;
SELECT count(*) FROM b;
DELETE FROM a;
SELECT tableoid::regclass, * FROM a ORDER BY 1, 2;

-- Children's own columns; RETURNING through the parent
INSERT INTO b VALUES ('b1', 'bb1');
INSERT INTO d VALUES ('d1', 'bb2', 'cc2', 'dd2');
SELECT * FROM b ORDER BY 1;
SELECT * FROM d;
UPDATE a SET aa = aa || '!' RETURNING *;
UPDATE b SET bb = 'x' WHERE aa = 'd1!' RETURNING tableoid::regclass, aa, bb;
DELETE FROM a WHERE aa LIKE 'b%' RETURNING tableoid::regclass, *;
SELECT count(*) FROM a;

-- INSERT into the parent goes to the parent only
INSERT INTO a VALUES ('only in a');
SELECT * FROM ONLY a;
SELECT count(*) FROM ONLY b;

-- Column merging
CREATE TABLE m1 (x int NOT NULL, y text DEFAULT 'dflt');
CREATE TABLE m2 (x int, z int);
CREATE TABLE mc (y text, w int) INHERITS (m1, m2);
\d mc
INSERT INTO mc (x, z, w) VALUES (1, 2, 3);
SELECT * FROM mc;
SELECT * FROM m1;
SELECT * FROM m2;
INSERT INTO mc (z) VALUES (1);
CREATE TABLE bad1 (x text) INHERITS (m1);
CREATE TABLE bad2 (v int) INHERITS (m1, nosuch);
CREATE TABLE bad3 () INHERITS (m1, m1);
CREATE TABLE m3 (x text);
CREATE TABLE bad4 () INHERITS (m1, m3);

-- CHECK constraints are inherited
CREATE TABLE cp (v int CHECK (v > 0), CONSTRAINT cp_small CHECK (v < 100));
CREATE TABLE cc () INHERITS (cp);
INSERT INTO cc VALUES (5);
INSERT INTO cc VALUES (-1);
INSERT INTO cc VALUES (500);
SELECT conname, conrelid::regclass FROM pg_constraint WHERE conrelid IN ('cp'::regclass, 'cc'::regclass) ORDER BY 1, 2;
UPDATE cp SET v = -v;
SELECT * FROM cp;

-- pg_inherits
SELECT inhrelid::regclass, inhparent::regclass, inhseqno FROM pg_inherits ORDER BY inhrelid::regclass::text, 3;

-- ALTER TABLE ... ADD COLUMN goes down the tree
ALTER TABLE m1 ADD COLUMN extra int DEFAULT 7;
SELECT * FROM mc;
SELECT extra FROM m1;
ALTER TABLE ONLY m1 ADD COLUMN nope int;
ALTER TABLE mc DROP COLUMN x;
ALTER TABLE mc DROP COLUMN extra;
ALTER TABLE m1 DROP COLUMN extra;
SELECT * FROM mc;

-- ALTER TABLE ... [NO] INHERIT
CREATE TABLE p1 (a int, b text);
CREATE TABLE k1 (a int, b text, c int);
INSERT INTO p1 VALUES (1, 'p');
INSERT INTO k1 VALUES (2, 'k', 3);
SELECT * FROM p1 ORDER BY a;
ALTER TABLE k1 INHERIT p1;
SELECT tableoid::regclass, * FROM p1 ORDER BY a;
ALTER TABLE k1 INHERIT p1;
ALTER TABLE p1 INHERIT k1;
CREATE TABLE k2 (a int);
ALTER TABLE k2 INHERIT p1;
CREATE TABLE k3 (a int, b int);
ALTER TABLE k3 INHERIT p1;
ALTER TABLE k1 NO INHERIT p1;
SELECT * FROM p1 ORDER BY a;
ALTER TABLE k1 NO INHERIT p1;

-- TRUNCATE goes down the tree unless ONLY
INSERT INTO k1 VALUES (4, 'k', 5);
SELECT count(*) FROM p1;
TRUNCATE ONLY p1;
SELECT count(*) FROM p1;
TRUNCATE p1;
SELECT count(*) FROM k1;

-- SELECT ... FOR UPDATE, views and subqueries over a parent
INSERT INTO b VALUES ('fu1', 'x');
INSERT INTO a VALUES ('fu0');
SELECT aa FROM ONLY a WHERE aa LIKE 'fu%' ORDER BY 1 FOR UPDATE;
CREATE VIEW av AS SELECT aa, tableoid::regclass AS rel FROM a;
SELECT * FROM av WHERE aa LIKE 'fu%' ORDER BY 1;
SELECT aa FROM a WHERE aa IN (SELECT aa FROM b) ORDER BY 1;
DROP VIEW av;

-- DROP of a parent
DROP TABLE a;
DROP TABLE c;
DROP TABLE a CASCADE;
DROP TABLE cp, cc;
DROP TABLE m1 CASCADE;
DROP TABLE m2, m3;
SELECT count(*) FROM pg_inherits;
