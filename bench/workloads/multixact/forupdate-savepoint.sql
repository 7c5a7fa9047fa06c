-- multixact, the pattern: lock a row, open a savepoint, update the same row.
-- On PostgreSQL the UPDATE runs in a subtransaction with its own XID while
-- the parent's FOR UPDATE lock is still held, so the row's xmax must name two
-- transactions: a MultiXact is created for every such transaction. Nestor's
-- lock table upgrades the one holder record in place.
\set id random(1, 10)
BEGIN;
SELECT * FROM mx WHERE id = :id FOR UPDATE;
SAVEPOINT s;
UPDATE mx SET v = v + 1 WHERE id = :id;
COMMIT;
