-- RETURNING the target's whole row from a partition laid out differently
-- (columns in another order, a dropped column): the named table's row.
CREATE TABLE prr (a text, b int, c int) PARTITION BY LIST (a);
CREATE TABLE prr_b (c int, x int, b int, a text);
ALTER TABLE prr_b DROP COLUMN x;
ALTER TABLE prr ATTACH PARTITION prr_b FOR VALUES IN ('b');
CREATE TABLE prr_a PARTITION OF prr FOR VALUES IN ('a');
INSERT INTO prr VALUES ('b', 1, 2), ('a', 3, 4) RETURNING prr, *;
UPDATE prr SET c = c + 10 RETURNING prr, *, (prr).c;
UPDATE prr AS t SET b = b + 1 WHERE a = 'b' RETURNING t, t.*;
UPDATE prr SET a = 'a' WHERE a = 'b' RETURNING prr;
DELETE FROM prr RETURNING prr, *;
