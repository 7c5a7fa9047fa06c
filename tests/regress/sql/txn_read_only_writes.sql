-- Read-only transactions: writes to temporary tables are allowed, DROP's
-- error names the object type, and READ ONLY set inside a savepoint ends
-- with it (RELEASE or ROLLBACK TO), as in PostgreSQL.
CREATE TABLE writetest (a int);
CREATE TEMPORARY TABLE temptest (a int);
BEGIN;
SET TRANSACTION READ WRITE; -- ok
SAVEPOINT x;
SET TRANSACTION READ ONLY; -- ok
SELECT * FROM writetest; -- ok
ROLLBACK TO SAVEPOINT x;
SHOW transaction_read_only;  -- off
SAVEPOINT y;
SET TRANSACTION READ ONLY; -- ok
SELECT * FROM writetest; -- ok
RELEASE SAVEPOINT y;
SHOW transaction_read_only;  -- off
COMMIT;
SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY;
DROP TABLE writetest; -- fail
INSERT INTO writetest VALUES (1); -- fail
SELECT * FROM writetest; -- ok
DELETE FROM temptest; -- ok
UPDATE temptest SET a = 0 FROM writetest WHERE temptest.a = 1 AND writetest.a = temptest.a; -- ok
PREPARE test AS UPDATE writetest SET a = 0; -- ok
EXECUTE test; -- fail
SELECT * FROM writetest, temptest; -- ok
CREATE TABLE test AS SELECT * FROM writetest; -- fail
WITH x AS (INSERT INTO temptest VALUES (3) RETURNING a) SELECT * FROM x;
WITH x AS (INSERT INTO writetest VALUES (3) RETURNING a) SELECT * FROM x;
MERGE INTO temptest USING (SELECT 7 a) s ON temptest.a = s.a WHEN NOT MATCHED THEN INSERT VALUES (s.a);
SELECT * FROM temptest ORDER BY a FOR UPDATE;
SELECT * FROM writetest FOR SHARE;
SELECT * FROM temptest, writetest FOR UPDATE;
SELECT * FROM temptest, writetest FOR UPDATE OF temptest;
DROP INDEX nope;
DROP FUNCTION nope();
START TRANSACTION READ WRITE;
DROP TABLE writetest; -- ok
COMMIT;
SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE;
-- Temporary sequences advance in a read-only transaction; others do not.
CREATE TEMP SEQUENCE tmpseq;
CREATE SEQUENCE permseq;
BEGIN READ ONLY;
SELECT nextval('tmpseq');
SELECT setval('tmpseq', 5);
SELECT nextval('tmpseq');
SELECT nextval('permseq');
ROLLBACK;
BEGIN READ ONLY;
SELECT setval('permseq', 5);
ROLLBACK;
DROP SEQUENCE permseq;
