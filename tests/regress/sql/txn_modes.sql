-- Transaction characteristics: SET TRANSACTION rules, READ ONLY errors,
-- deferrable, READ UNCOMMITTED, AND CHAIN (PostgreSQL's transactions.sql
-- AND CHAIN section, SERIALIZABLE replaced by REPEATABLE READ).
\set VERBOSITY verbose
CREATE TABLE m (a int);
BEGIN READ ONLY;
SET TRANSACTION READ WRITE;
ROLLBACK;
BEGIN READ ONLY;
SELECT 1;
SET TRANSACTION READ WRITE;
ROLLBACK;
BEGIN READ ONLY;
SAVEPOINT s;
SET TRANSACTION READ WRITE;
ROLLBACK;
BEGIN;
SAVEPOINT s;
SET TRANSACTION READ ONLY;
INSERT INTO m VALUES (1);
ROLLBACK TO s;
INSERT INTO m VALUES (2);
SET TRANSACTION READ ONLY;
INSERT INTO m VALUES (3);
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM m FOR SHARE;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM m FOR KEY SHARE;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM m FOR NO KEY UPDATE;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM m FOR UPDATE;
ROLLBACK;
SHOW transaction_deferrable;
SHOW default_transaction_deferrable;
BEGIN DEFERRABLE;
SHOW transaction_deferrable;
SET TRANSACTION NOT DEFERRABLE;
SHOW transaction_deferrable;
SAVEPOINT s;
SET TRANSACTION DEFERRABLE;
ROLLBACK;
BEGIN;
SELECT 1;
SET TRANSACTION DEFERRABLE;
ROLLBACK;
SET default_transaction_deferrable = on;
BEGIN;
SHOW transaction_deferrable;
ROLLBACK;
RESET default_transaction_deferrable;
BEGIN;
SAVEPOINT a;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
ROLLBACK;
BEGIN;
SELECT 1;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
ROLLBACK;
BEGIN ISOLATION LEVEL READ UNCOMMITTED;
SHOW transaction_isolation;
ROLLBACK;
SET default_transaction_isolation = 'read uncommitted';
SHOW default_transaction_isolation;
BEGIN;
SHOW transaction_isolation;
ROLLBACK;
RESET default_transaction_isolation;
SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY, DEFERRABLE, ISOLATION LEVEL REPEATABLE READ;
SHOW default_transaction_read_only;
SHOW default_transaction_deferrable;
SHOW default_transaction_isolation;
SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE, NOT DEFERRABLE, ISOLATION LEVEL READ COMMITTED;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 1/0;
COMMIT AND CHAIN;
SHOW transaction_isolation;
COMMIT;
BEGIN;
SET TRANSACTION SNAPSHOT '00000003-00000001-1';
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET TRANSACTION SNAPSHOT '00000003-00000001-1';
ROLLBACK;
SET TRANSACTION SNAPSHOT '00000003-00000001-1';
DROP TABLE m;
-- Tests for AND CHAIN

CREATE TABLE trans_abc (a int);

-- set nondefault value so we have something to override below
SET default_transaction_read_only = on;

START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE, DEFERRABLE;
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES (1);
INSERT INTO trans_abc VALUES (2);
COMMIT AND CHAIN;  -- TBLOCK_END
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES ('error');
INSERT INTO trans_abc VALUES (3);  -- check it's really aborted
COMMIT AND CHAIN;  -- TBLOCK_ABORT_END
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES (4);
COMMIT;

START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE, DEFERRABLE;
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
SAVEPOINT x;
INSERT INTO trans_abc VALUES ('error');
COMMIT AND CHAIN;  -- TBLOCK_ABORT_PENDING
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES (5);
COMMIT;

START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE, DEFERRABLE;
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
SAVEPOINT x;
COMMIT AND CHAIN;  -- TBLOCK_SUBCOMMIT
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
COMMIT;

START TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE, DEFERRABLE;
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
SAVEPOINT x;
COMMIT AND CHAIN;  -- TBLOCK_SUBCOMMIT
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
COMMIT;

-- different mix of options just for fun
START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE, NOT DEFERRABLE;
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES (6);
ROLLBACK AND CHAIN;  -- TBLOCK_ABORT_PENDING
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
INSERT INTO trans_abc VALUES ('error');
ROLLBACK AND CHAIN;  -- TBLOCK_ABORT_END
SHOW transaction_isolation;
SHOW transaction_read_only;
SHOW transaction_deferrable;
ROLLBACK;

-- not allowed outside a transaction block
COMMIT AND CHAIN;  -- error
ROLLBACK AND CHAIN;  -- error

SELECT * FROM trans_abc ORDER BY 1;

RESET default_transaction_read_only;

DROP TABLE trans_abc;
-- Tests for AND CHAIN in implicit transaction blocks

SET TRANSACTION READ ONLY\; COMMIT AND CHAIN;  -- error
SHOW transaction_read_only;

SET TRANSACTION READ ONLY\; ROLLBACK AND CHAIN;  -- error
SHOW transaction_read_only;

CREATE TABLE trans_abc (a int);

-- COMMIT/ROLLBACK + COMMIT/ROLLBACK AND CHAIN
INSERT INTO trans_abc VALUES (7)\; COMMIT\; INSERT INTO trans_abc VALUES (8)\; COMMIT AND CHAIN;  -- 7 commit, 8 error
INSERT INTO trans_abc VALUES (9)\; ROLLBACK\; INSERT INTO trans_abc VALUES (10)\; ROLLBACK AND CHAIN;  -- 9 rollback, 10 error

-- COMMIT/ROLLBACK AND CHAIN + COMMIT/ROLLBACK
INSERT INTO trans_abc VALUES (11)\; COMMIT AND CHAIN\; INSERT INTO trans_abc VALUES (12)\; COMMIT;  -- 11 error, 12 not reached
INSERT INTO trans_abc VALUES (13)\; ROLLBACK AND CHAIN\; INSERT INTO trans_abc VALUES (14)\; ROLLBACK;  -- 13 error, 14 not reached

-- START TRANSACTION + COMMIT/ROLLBACK AND CHAIN
START TRANSACTION ISOLATION LEVEL REPEATABLE READ\; INSERT INTO trans_abc VALUES (15)\; COMMIT AND CHAIN;  -- 15 ok
SHOW transaction_isolation;  -- transaction is active at this point
COMMIT;

START TRANSACTION ISOLATION LEVEL REPEATABLE READ\; INSERT INTO trans_abc VALUES (16)\; ROLLBACK AND CHAIN;  -- 16 ok
SHOW transaction_isolation;  -- transaction is active at this point
ROLLBACK;

SET default_transaction_isolation = 'read committed';

-- START TRANSACTION + COMMIT/ROLLBACK + COMMIT/ROLLBACK AND CHAIN
START TRANSACTION ISOLATION LEVEL REPEATABLE READ\; INSERT INTO trans_abc VALUES (17)\; COMMIT\; INSERT INTO trans_abc VALUES (18)\; COMMIT AND CHAIN;  -- 17 commit, 18 error
SHOW transaction_isolation;  -- out of transaction block

START TRANSACTION ISOLATION LEVEL REPEATABLE READ\; INSERT INTO trans_abc VALUES (19)\; ROLLBACK\; INSERT INTO trans_abc VALUES (20)\; ROLLBACK AND CHAIN;  -- 19 rollback, 20 error
SHOW transaction_isolation;  -- out of transaction block

RESET default_transaction_isolation;

SELECT * FROM trans_abc ORDER BY 1;

DROP TABLE trans_abc;
