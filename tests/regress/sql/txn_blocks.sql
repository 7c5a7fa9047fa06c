--
-- Transaction blocks: BEGIN/COMMIT/ROLLBACK/END/ABORT, warnings outside a
-- block, the aborted state (25P02), isolation levels.
--
\set QUIET off
CREATE TABLE tb (id integer PRIMARY KEY, v text);
-- autocommit
INSERT INTO tb VALUES (1, 'autocommit');
-- COMMIT keeps the block's work
BEGIN;
INSERT INTO tb VALUES (2, 'committed');
SELECT count(*) FROM tb;
COMMIT;
-- ROLLBACK discards it
BEGIN;
INSERT INTO tb VALUES (3, 'rolled back');
UPDATE tb SET v = 'changed' WHERE id = 1;
DELETE FROM tb WHERE id = 2;
SELECT * FROM tb ORDER BY id;
ROLLBACK;
SELECT * FROM tb ORDER BY id;
-- the synonyms
BEGIN WORK;
INSERT INTO tb VALUES (4, 'end');
END;
BEGIN TRANSACTION;
INSERT INTO tb VALUES (5, 'abort');
ABORT;
START TRANSACTION;
INSERT INTO tb VALUES (6, 'commit work');
COMMIT WORK;
BEGIN;
INSERT INTO tb VALUES (7, 'rollback transaction');
ROLLBACK TRANSACTION;
BEGIN;
INSERT INTO tb VALUES (8, 'end transaction');
END TRANSACTION;
BEGIN;
INSERT INTO tb VALUES (9, 'abort work');
ABORT WORK;
SELECT * FROM tb ORDER BY id;
-- outside a block: warnings, not errors
COMMIT;
ROLLBACK;
END;
ABORT;
-- BEGIN inside a block warns and keeps the block
BEGIN;
INSERT INTO tb VALUES (10, 'nested begin');
BEGIN;
START TRANSACTION;
ROLLBACK;
SELECT count(*) FROM tb WHERE id = 10;
-- an empty block
BEGIN;
COMMIT;
-- the aborted state: every command is ignored until the end of the block
BEGIN;
INSERT INTO tb VALUES (11, 'lost');
SELECT 1/0;
SELECT 1;
INSERT INTO tb VALUES (12, 'ignored');
SHOW transaction_isolation;
SET statement_timeout = '1s';
SAVEPOINT sp;
RELEASE SAVEPOINT sp;
BEGIN;
-- COMMIT of an aborted block rolls back (the command tag says ROLLBACK)
COMMIT;
SELECT * FROM tb WHERE id IN (11, 12);
SHOW statement_timeout;
-- END of an aborted block too
BEGIN;
SELECT no_such_column FROM tb;
END;
-- ROLLBACK of an aborted block
BEGIN;
INSERT INTO tb VALUES (1, 'duplicate');
ROLLBACK;
-- an error outside a block does not leave anything open
SELECT 1/0;
SELECT 'still fine' AS status;
-- errors in a multi-statement query roll back the whole implicit transaction
INSERT INTO tb VALUES (13, 'implicit') \; SELECT 1/0;
SELECT count(*) FROM tb WHERE id = 13;
INSERT INTO tb VALUES (14, 'implicit ok') \; INSERT INTO tb VALUES (15, 'implicit ok');
SELECT * FROM tb WHERE id >= 13 ORDER BY id;
-- a COMMIT inside a multi-statement query ends it
INSERT INTO tb VALUES (16, 'before begin') \; BEGIN \; INSERT INTO tb VALUES (17, 'in block') \; COMMIT;
SELECT * FROM tb WHERE id >= 16 ORDER BY id;
-- isolation levels
SHOW transaction_isolation;
START TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
SELECT current_setting('transaction_isolation');
COMMIT;
BEGIN ISOLATION LEVEL READ COMMITTED;
SHOW transaction_isolation;
COMMIT;
BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE;
SHOW transaction_isolation;
COMMIT;
SHOW transaction_isolation;
-- SET TRANSACTION before the first query of the block
BEGIN;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
SELECT count(*) FROM tb;
-- ... and after it: an error
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
ROLLBACK;
BEGIN;
SELECT 1;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
ROLLBACK;
-- SET TRANSACTION outside a block warns
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
DROP TABLE tb;
