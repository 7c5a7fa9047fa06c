-- find-or-create, the happy path: what Rails' find_or_create_by sends inside
-- a transaction when the model asks for requires_new (a savepoint around the
-- lookup and the insert). pgbench cannot branch on an error, so the INSERT
-- sidesteps the unique violation with ON CONFLICT DO NOTHING; the racing form
-- (INSERT fails with 23505, ROLLBACK TO the savepoint, look again) is driven
-- by bench/nestor_bench.py --racer-helper.
\set customer random(1, 1000)
BEGIN;
SAVEPOINT active_record_1;
SELECT * FROM credit_accounts WHERE customer_id = :customer;
INSERT INTO credit_accounts (customer_id) VALUES (:customer) ON CONFLICT DO NOTHING;
RELEASE SAVEPOINT active_record_1;
COMMIT;
