--
-- PREPARE / EXECUTE / DEALLOCATE.
--
\set QUIET off
CREATE TABLE pt (id integer PRIMARY KEY, v text, n numeric);
PREPARE ins (integer, text) AS INSERT INTO pt (id, v) VALUES ($1, $2);
EXECUTE ins(1, 'one');
EXECUTE ins(2, 'two');
EXECUTE ins (3, NULL);
EXECUTE ins(1, 'duplicate');
PREPARE sel AS SELECT id, v FROM pt WHERE id = $1;
EXECUTE sel(1);
EXECUTE sel('2');
EXECUTE sel(99);
EXECUTE sel(2 + 1);
EXECUTE sel;
EXECUTE sel(1, 2);
EXECUTE sel('abc');
PREPARE sel_all AS SELECT * FROM pt ORDER BY id;
EXECUTE sel_all;
-- parameter types: declared, inferred from context, used twice
PREPARE calc (integer, integer) AS SELECT $1 + $2 AS sum, $1 * $2 AS product, $1 > $2 AS gt;
EXECUTE calc(6, 7);
PREPARE num (numeric) AS SELECT $1 * 2 AS doubled, round($1, 1) AS rounded;
EXECUTE num(1.25);
PREPARE txt AS SELECT upper($1) || '!' AS shout;
EXECUTE txt('hi');
PREPARE cmp AS SELECT count(*) FROM pt WHERE v = $1 OR id > $2;
EXECUTE cmp('one', 2);
PREPARE upd (text, integer) AS UPDATE pt SET v = $1 WHERE id = $2 RETURNING *;
EXECUTE upd('uno', 1);
EXECUTE upd('none', 42);
PREPARE del AS DELETE FROM pt WHERE id = $1;
EXECUTE del(3);
EXECUTE sel_all;
PREPARE bad_type (no_such_type) AS SELECT $1;
PREPARE bad_sql AS SELEC 1;
PREPARE bad_table AS SELECT * FROM no_such_table;
EXECUTE bad_table;
-- a prepared statement sees the current data, not the data at PREPARE
PREPARE cnt AS SELECT count(*) FROM pt;
EXECUTE cnt;
INSERT INTO pt VALUES (10, 'ten');
EXECUTE cnt;
-- name clashes and DEALLOCATE
PREPARE ins AS SELECT 1;
DEALLOCATE sel;
EXECUTE sel(1);
DEALLOCATE PREPARE ins;
DEALLOCATE ins;
DEALLOCATE no_such_statement;
-- PREPARE is not transactional
BEGIN;
PREPARE in_txn AS SELECT 'survives rollback' AS note;
ROLLBACK;
EXECUTE in_txn;
-- EXECUTE in a block, and in an aborted block
BEGIN;
EXECUTE ins2(1);
EXECUTE cnt;
ROLLBACK;
BEGIN;
EXECUTE cnt;
EXECUTE calc(1, 2);
COMMIT;
-- DEALLOCATE ALL
DEALLOCATE ALL;
EXECUTE cnt;
EXECUTE in_txn;
PREPARE cnt AS SELECT count(*) AS again FROM pt;
EXECUTE cnt;
DEALLOCATE PREPARE ALL;
DROP TABLE pt;
