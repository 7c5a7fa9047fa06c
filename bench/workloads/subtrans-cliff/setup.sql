-- subtrans-cliff: the test table of Laurenz Albe's "Subtransactions and
-- performance in PostgreSQL" (Cybertec, 2020). Small, UNLOGGED and with a low
-- fillfactor so that I/O stays out of the measurement on PostgreSQL.
DROP TABLE IF EXISTS contend;
CREATE UNLOGGED TABLE contend (
    id  integer PRIMARY KEY,
    val integer NOT NULL
) WITH (fillfactor = '50');

INSERT INTO contend (id, val)
SELECT i, 0 FROM generate_series(1, 10000) AS i;

VACUUM (ANALYZE) contend;
