-- ALTER COLUMN SET STORAGE / SET COMPRESSION, the COMPRESSION column
-- option, and what pg_attribute and \d+ show of them.
\set VERBOSITY verbose
CREATE TABLE cs (a int, b text, c varchar(10) COMPRESSION pglz, d numeric, e int[]);
SELECT attname, attstorage, attcompression FROM pg_attribute
  WHERE attrelid = 'cs'::regclass AND attnum > 0 ORDER BY attnum;
ALTER TABLE cs ALTER a SET STORAGE EXTERNAL;
ALTER TABLE cs ALTER a SET STORAGE plain;
ALTER TABLE cs ALTER b SET STORAGE foo;
ALTER TABLE cs ALTER COLUMN b SET STORAGE PLAIN;
ALTER TABLE cs ALTER COLUMN d SET STORAGE EXTERNAL, ALTER COLUMN e SET STORAGE MAIN;
ALTER TABLE cs ALTER zz SET STORAGE PLAIN;
ALTER TABLE cs ALTER tableoid SET STORAGE PLAIN;
ALTER TABLE cs ALTER a SET COMPRESSION pglz;
ALTER TABLE cs ALTER b SET COMPRESSION lz4;
ALTER TABLE cs ALTER b SET COMPRESSION foo;
ALTER TABLE cs ALTER zz SET COMPRESSION pglz;
ALTER TABLE cs ALTER c SET COMPRESSION default;
ALTER TABLE cs ALTER d SET COMPRESSION pglz;
SELECT attname, attstorage, attcompression FROM pg_attribute
  WHERE attrelid = 'cs'::regclass AND attnum > 0 ORDER BY attnum;
\d+ cs
CREATE TABLE cs_bad (a int COMPRESSION pglz);
CREATE TABLE cs_bad (a text COMPRESSION zstd);
ALTER TABLE cs ADD COLUMN f text COMPRESSION lz4;
-- changes roll back with the transaction
BEGIN;
ALTER TABLE cs ALTER b SET STORAGE EXTENDED;
ALTER TABLE cs ALTER b SET COMPRESSION pglz;
ROLLBACK;
SELECT attname, attstorage, attcompression FROM pg_attribute
  WHERE attrelid = 'cs'::regclass AND attnum > 0 ORDER BY attnum;
-- LIKE copies them only when asked
CREATE TABLE cs_like1 (LIKE cs);
CREATE TABLE cs_like2 (LIKE cs INCLUDING STORAGE);
CREATE TABLE cs_like3 (LIKE cs INCLUDING COMPRESSION);
CREATE TABLE cs_like4 (LIKE cs INCLUDING ALL);
SELECT attrelid::regclass, attname, attstorage, attcompression FROM pg_attribute
  WHERE attrelid IN ('cs_like1'::regclass, 'cs_like2'::regclass,
                     'cs_like3'::regclass, 'cs_like4'::regclass)
    AND attnum > 0 AND attname IN ('b', 'd', 'f')
  ORDER BY attrelid::regclass::text, attnum;
-- inheritance: SET STORAGE recurses (not with ONLY), SET COMPRESSION never
CREATE TABLE cs_parent (a int, b text);
ALTER TABLE cs_parent ALTER b SET STORAGE MAIN;
CREATE TABLE cs_child () INHERITS (cs_parent);
ALTER TABLE cs_parent ALTER b SET STORAGE EXTERNAL;
ALTER TABLE ONLY cs_parent ALTER b SET STORAGE PLAIN;
ALTER TABLE cs_parent ALTER b SET COMPRESSION lz4;
SELECT attrelid::regclass, attname, attstorage, attcompression FROM pg_attribute
  WHERE attrelid IN ('cs_parent'::regclass, 'cs_child'::regclass) AND attname = 'b'
  ORDER BY 1;
ALTER TABLE cs_child ALTER b SET STORAGE EXTENDED;
SELECT attrelid::regclass, attstorage FROM pg_attribute
  WHERE attrelid IN ('cs_parent'::regclass, 'cs_child'::regclass) AND attname = 'b'
  ORDER BY 1;
-- partitions: the same, and a new partition copies its parent's
CREATE TABLE cs_part (k int, v text) PARTITION BY LIST (k);
CREATE TABLE cs_part1 PARTITION OF cs_part FOR VALUES IN (1);
ALTER TABLE cs_part ALTER v SET STORAGE MAIN;
ALTER TABLE cs_part ALTER v SET COMPRESSION pglz;
CREATE TABLE cs_part2 PARTITION OF cs_part FOR VALUES IN (2);
SELECT attrelid::regclass, attstorage, attcompression FROM pg_attribute
  WHERE attrelid IN ('cs_part'::regclass, 'cs_part1'::regclass, 'cs_part2'::regclass)
    AND attname = 'v'
  ORDER BY 1;
-- an index key that is a column follows the column's storage
CREATE INDEX cs_idx ON cs (a, b, lower(c));
ALTER TABLE cs ALTER b SET STORAGE EXTERNAL;
SELECT attname, attstorage FROM pg_attribute
  WHERE attrelid = 'cs_idx'::regclass ORDER BY attnum;
-- data is unaffected
INSERT INTO cs (a, b, c, d, e, f) VALUES (1, repeat('x', 500), 'y', 1.5, '{1,2}', 'z');
SELECT a, length(b), c, d, e, f FROM cs;
