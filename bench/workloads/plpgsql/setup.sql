-- plpgsql: PL/pgSQL exception blocks (seed 000's "every BEGIN ... EXCEPTION
-- block is a subtransaction"). The contend table of subtrans-cliff, and
--   blocks(n, client): n iterations, each entering an exception block that
--     reads a random row of the shared table and updates a row of the
--     client's own slice (so clients never wait for each other's row locks);
--   plain(n, client): the same statements without the exception block, the
--     control: what the statements themselves cost.
-- PostgreSQL starts a subtransaction, which takes an XID once it writes, on
-- every entry; past 64 per transaction the snapshot's subxid cache
-- overflows and every session's visibility checks go to pg_subtrans.
DROP TABLE IF EXISTS contend;
CREATE UNLOGGED TABLE contend (
    id  integer PRIMARY KEY,
    val integer NOT NULL
) WITH (fillfactor = '50');

INSERT INTO contend (id, val)
SELECT i, 0 FROM generate_series(1, 10000) AS i;

VACUUM (ANALYZE) contend;

CREATE OR REPLACE FUNCTION blocks(n int, client int) RETURNS void AS $$
DECLARE
  k int;
BEGIN
  FOR i IN 1..n LOOP
    k := 1 + floor(random() * 10000)::int % 10000;
    BEGIN
      PERFORM val FROM contend WHERE id = k;
      UPDATE contend SET val = val + 1 WHERE id = client % 10 * 1000 + i % 1000 + 1;
    EXCEPTION WHEN others THEN
      RAISE;
    END;
  END LOOP;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION plain(n int, client int) RETURNS void AS $$
DECLARE
  k int;
BEGIN
  FOR i IN 1..n LOOP
    k := 1 + floor(random() * 10000)::int % 10000;
    PERFORM val FROM contend WHERE id = k;
    UPDATE contend SET val = val + 1 WHERE id = client % 10 * 1000 + i % 1000 + 1;
  END LOOP;
END
$$ LANGUAGE plpgsql;
