-- standby-long-tx: the long transaction, in a session of its own on the
-- primary while both loads run. It takes an XID and then stays open for two
-- minutes; on PostgreSQL every snapshot taken meanwhile has it as xmin.
BEGIN;
SELECT txid_current();
SELECT pg_sleep(12);
COMMIT;
