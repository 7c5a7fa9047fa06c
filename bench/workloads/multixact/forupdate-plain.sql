-- multixact, the control: the same lock and update without the savepoint.
\set id random(1, 10)
BEGIN;
SELECT * FROM mx WHERE id = :id FOR UPDATE;
UPDATE mx SET v = v + 1 WHERE id = :id;
COMMIT;
