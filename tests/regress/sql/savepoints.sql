--
-- Savepoints: nesting, shadowed names, ROLLBACK TO recovering a failed block,
-- RELEASE, unknown names (3B001), use outside a block (25P01).
--
\set QUIET off
CREATE TABLE sp (id integer PRIMARY KEY, v text);
-- outside a transaction block
SAVEPOINT a;
RELEASE SAVEPOINT a;
ROLLBACK TO SAVEPOINT a;
RELEASE a;
ROLLBACK TO a;
-- nested savepoints
BEGIN;
INSERT INTO sp VALUES (1, 'top');
SAVEPOINT s1;
INSERT INTO sp VALUES (2, 'in s1');
SAVEPOINT s2;
INSERT INTO sp VALUES (3, 'in s2');
SAVEPOINT s3;
INSERT INTO sp VALUES (4, 'in s3');
SELECT * FROM sp ORDER BY id;
ROLLBACK TO SAVEPOINT s3;
SELECT * FROM sp ORDER BY id;
ROLLBACK TO s2;
SELECT * FROM sp ORDER BY id;
-- s3 was inside s2 and is gone now
ROLLBACK TO SAVEPOINT s3;
ROLLBACK;
SELECT * FROM sp ORDER BY id;
-- a savepoint survives ROLLBACK TO and can be rolled back to again
BEGIN;
SAVEPOINT s;
INSERT INTO sp VALUES (1, 'first try');
ROLLBACK TO SAVEPOINT s;
INSERT INTO sp VALUES (1, 'second try');
ROLLBACK TO SAVEPOINT s;
INSERT INTO sp VALUES (1, 'third try');
RELEASE SAVEPOINT s;
COMMIT;
SELECT * FROM sp ORDER BY id;
-- the spellings
BEGIN;
SAVEPOINT w;
ROLLBACK WORK TO SAVEPOINT w;
ROLLBACK TRANSACTION TO SAVEPOINT w;
ROLLBACK TO w;
RELEASE w;
SAVEPOINT "Quoted Name";
ROLLBACK TO "Quoted Name";
RELEASE SAVEPOINT "Quoted Name";
COMMIT;
-- repeated names shadow: ROLLBACK TO and RELEASE use the newest one
BEGIN;
SAVEPOINT x;
INSERT INTO sp VALUES (10, 'after outer x');
SAVEPOINT x;
INSERT INTO sp VALUES (11, 'after inner x');
ROLLBACK TO x;
SELECT * FROM sp WHERE id >= 10 ORDER BY id;
RELEASE x;
ROLLBACK TO x;
SELECT * FROM sp WHERE id >= 10 ORDER BY id;
RELEASE x;
-- no savepoint x is left: 3B001 aborts the block
RELEASE x;
SELECT 1;
ROLLBACK;
-- RELEASE releases the named savepoint and every one inside it
BEGIN;
SAVEPOINT a;
SAVEPOINT b;
SAVEPOINT c;
RELEASE SAVEPOINT a;
ROLLBACK TO SAVEPOINT b;
ROLLBACK;
BEGIN;
SAVEPOINT a;
SAVEPOINT b;
SAVEPOINT c;
RELEASE SAVEPOINT b;
ROLLBACK TO SAVEPOINT a;
RELEASE SAVEPOINT a;
COMMIT;
-- an unknown name in ROLLBACK TO
BEGIN;
SAVEPOINT known;
ROLLBACK TO SAVEPOINT unknown;
ROLLBACK TO SAVEPOINT known;
SELECT 'recovered' AS status;
COMMIT;
-- ROLLBACK TO recovers a failed block
BEGIN;
INSERT INTO sp VALUES (20, 'kept');
SAVEPOINT before_error;
INSERT INTO sp VALUES (21, 'lost with the error');
INSERT INTO sp VALUES (20, 'duplicate');
SELECT 1;
RELEASE SAVEPOINT before_error;
ROLLBACK TO SAVEPOINT before_error;
SELECT * FROM sp WHERE id >= 20 ORDER BY id;
INSERT INTO sp VALUES (22, 'after recovery');
COMMIT;
SELECT * FROM sp WHERE id >= 20 ORDER BY id;
-- an error inside nested savepoints: only ROLLBACK TO an enclosing one helps
BEGIN;
SAVEPOINT outer_sp;
INSERT INTO sp VALUES (30, 'in outer');
SAVEPOINT inner_sp;
INSERT INTO sp VALUES (31, 'in inner');
SELECT 1/0;
ROLLBACK TO SAVEPOINT outer_sp;
SELECT * FROM sp WHERE id >= 30 ORDER BY id;
-- inner_sp went away with the rollback to outer_sp
ROLLBACK TO SAVEPOINT inner_sp;
ROLLBACK;
-- updates and deletes are undone by ROLLBACK TO
BEGIN;
SAVEPOINT u;
UPDATE sp SET v = 'changed' WHERE id = 20;
DELETE FROM sp WHERE id = 22;
INSERT INTO sp VALUES (23, 'new');
UPDATE sp SET v = 'changed twice' WHERE id = 20;
SELECT * FROM sp WHERE id >= 20 ORDER BY id;
ROLLBACK TO SAVEPOINT u;
SELECT * FROM sp WHERE id >= 20 ORDER BY id;
-- changes made before the savepoint stay
UPDATE sp SET v = 'before savepoint' WHERE id = 22;
SAVEPOINT v;
DELETE FROM sp;
SELECT count(*) FROM sp;
ROLLBACK TO v;
COMMIT;
SELECT * FROM sp ORDER BY id;
-- a row deleted and re-inserted under a savepoint
BEGIN;
SAVEPOINT d;
DELETE FROM sp WHERE id = 1;
INSERT INTO sp VALUES (1, 'reinserted');
ROLLBACK TO d;
SELECT * FROM sp WHERE id = 1;
SAVEPOINT e;
DELETE FROM sp WHERE id = 1;
INSERT INTO sp VALUES (1, 'reinserted');
RELEASE e;
COMMIT;
SELECT * FROM sp WHERE id = 1;
-- COMMIT with open savepoints commits everything released or not
BEGIN;
SAVEPOINT p1;
INSERT INTO sp VALUES (40, 'p1');
SAVEPOINT p2;
INSERT INTO sp VALUES (41, 'p2');
COMMIT;
SELECT * FROM sp WHERE id >= 40 ORDER BY id;
-- ROLLBACK discards released savepoints' work
BEGIN;
SAVEPOINT r;
INSERT INTO sp VALUES (50, 'released');
RELEASE r;
ROLLBACK;
SELECT count(*) FROM sp WHERE id = 50;
-- a unique key freed under a rolled-back savepoint can be reused
BEGIN;
SAVEPOINT k;
INSERT INTO sp VALUES (60, 'first');
ROLLBACK TO k;
INSERT INTO sp VALUES (60, 'second');
COMMIT;
SELECT * FROM sp WHERE id = 60;
-- many savepoints in one block
BEGIN;
SAVEPOINT m1; INSERT INTO sp VALUES (71, 'm');
SAVEPOINT m2; INSERT INTO sp VALUES (72, 'm');
SAVEPOINT m3; INSERT INTO sp VALUES (73, 'm');
SAVEPOINT m4; INSERT INTO sp VALUES (74, 'm');
SAVEPOINT m5; INSERT INTO sp VALUES (75, 'm');
ROLLBACK TO m3;
RELEASE m2;
SAVEPOINT m6; INSERT INTO sp VALUES (76, 'm');
COMMIT;
SELECT id FROM sp WHERE id > 70 ORDER BY id;
DROP TABLE sp;
