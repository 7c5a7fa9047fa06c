-- XIDs consumed by one DO block whose loop enters an exception block 70
-- times, inserting a row in each. Output with psql -X -A -t -q: the XID
-- before, the XID after (each pg_current_xact_id() in autocommit takes one
-- XID itself, so the DO consumed after - before - 1), then the number of
-- rows and of distinct xmin values among them.
-- PostgreSQL: 71 (its top-level XID and one per subtransaction that wrote);
-- Nestor: 1.
DROP TABLE IF EXISTS blocks_log;
CREATE TABLE blocks_log (i int);
SELECT pg_current_xact_id();
DO $$
BEGIN
  FOR i IN 1..70 LOOP
    BEGIN
      INSERT INTO blocks_log VALUES (i);
    EXCEPTION WHEN unique_violation THEN
      NULL;
    END;
  END LOOP;
END
$$;
SELECT pg_current_xact_id();
SELECT count(*), count(DISTINCT xmin::text) FROM blocks_log;
