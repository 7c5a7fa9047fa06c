-- Declarative partitioning: PARTITION BY RANGE / LIST / HASH, PARTITION
-- OF with FOR VALUES, routing of INSERT and COPY, bound validation
-- errors, UPDATE moving rows between partitions, ATTACH / DETACH,
-- indexes and unique constraints, the catalog and psql's \d.
\set VERBOSITY verbose

-- RANGE, with MINVALUE / MAXVALUE and a default partition.
CREATE TABLE measure (city int NOT NULL, logdate date, peak int CHECK (peak >= 0))
  PARTITION BY RANGE (logdate);
CREATE TABLE measure_old PARTITION OF measure FOR VALUES FROM (MINVALUE) TO ('2020-01-01');
CREATE TABLE measure_2020 PARTITION OF measure FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE measure_2021 PARTITION OF measure FOR VALUES FROM ('2021-01-01') TO ('2022-01-01');
CREATE TABLE measure_def PARTITION OF measure DEFAULT;
INSERT INTO measure VALUES (1, '2019-05-01', 10), (2, '2020-02-01', 20),
  (3, '2021-12-31', 30), (4, '2030-01-01', 40), (5, NULL, 50);
SELECT tableoid::regclass, * FROM measure ORDER BY city;
SELECT * FROM measure;
SELECT count(*) FROM ONLY measure;
INSERT INTO measure VALUES (6, '2020-06-01', -1);
INSERT INTO measure VALUES (NULL, '2020-06-01', 1);
INSERT INTO measure_2020 VALUES (7, '2021-06-01', 1);
INSERT INTO measure_2020 VALUES (7, '2020-06-01', 1) RETURNING *;

-- Bound errors.
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM ('2020-06-01') TO ('2020-07-01');
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM ('2019-06-01') TO ('2020-07-01');
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM ('2025-01-01') TO ('2024-01-01');
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM ('2025-01-01') TO ('2025-01-01');
CREATE TABLE measure_bad PARTITION OF measure DEFAULT;
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES IN ('2025-01-01');
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM ('2030-01-01') TO ('2031-01-01');
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM (1, 2) TO (3, 4);
CREATE TABLE measure_bad PARTITION OF measure FOR VALUES FROM (NULL) TO ('2040-01-01');
CREATE TABLE notpart (a int);
CREATE TABLE notpart_1 PARTITION OF notpart FOR VALUES IN (1);
CREATE TABLE bad (a int) PARTITION BY RANGE (b);
CREATE TABLE bad (a int, b int) PARTITION BY LIST (a, b);
CREATE TABLE bad (a int, b int, PRIMARY KEY (a)) PARTITION BY RANGE (b);
CREATE TABLE bad (a int, b int, UNIQUE (a)) PARTITION BY LIST (b);
CREATE TABLE bad (a int) INHERITS (measure);
TRUNCATE ONLY measure;

-- Column options of PARTITION OF.
CREATE TABLE measure_opts PARTITION OF measure (peak DEFAULT 7,
  city WITH OPTIONS CHECK (city > 0), PRIMARY KEY (city, logdate))
  FOR VALUES FROM ('2022-01-01') TO ('2023-01-01');
INSERT INTO measure (city, logdate) VALUES (8, '2022-03-03');
INSERT INTO measure (city, logdate) VALUES (-8, '2022-03-03');
INSERT INTO measure (city, logdate) VALUES (8, '2022-03-03');
SELECT tableoid::regclass, * FROM measure WHERE city = 8;
CREATE TABLE measure_bad PARTITION OF measure (nosuch NOT NULL)
  FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');

-- Multi-column range bounds.
CREATE TABLE mc (a int, b int) PARTITION BY RANGE (a, b);
CREATE TABLE mc1 PARTITION OF mc FOR VALUES FROM (1, 1) TO (1, 10);
CREATE TABLE mc2 PARTITION OF mc FOR VALUES FROM (1, 10) TO (2, MINVALUE);
CREATE TABLE mc3 PARTITION OF mc FOR VALUES FROM (2, MINVALUE) TO (MAXVALUE, MAXVALUE);
CREATE TABLE mc4 PARTITION OF mc FOR VALUES FROM (1, 5) TO (1, 20);
CREATE TABLE mc4 PARTITION OF mc FOR VALUES FROM (0, MAXVALUE) TO (1, 1);
CREATE TABLE mc5 PARTITION OF mc FOR VALUES FROM (MINVALUE, 1) TO (0, 0);
INSERT INTO mc VALUES (1, 5), (1, 10), (1, 100), (2, -1000), (7, 7), (0, 99);
INSERT INTO mc VALUES (1, 0);
SELECT tableoid::regclass, * FROM mc ORDER BY a, b;

-- LIST, with NULL, and a sub-partitioned partition.
CREATE TABLE sales (id int, region text, amount numeric) PARTITION BY LIST (region);
CREATE TABLE sales_eu PARTITION OF sales FOR VALUES IN ('de', 'fr', 'de');
CREATE TABLE sales_none PARTITION OF sales FOR VALUES IN (NULL);
CREATE TABLE sales_us PARTITION OF sales FOR VALUES IN ('us') PARTITION BY RANGE (id);
CREATE TABLE sales_us_1 PARTITION OF sales_us FOR VALUES FROM (1) TO (100);
CREATE TABLE sales_us_2 PARTITION OF sales_us FOR VALUES FROM (100) TO (200);
CREATE TABLE sales_bad PARTITION OF sales FOR VALUES IN ('it', 'fr');
CREATE TABLE sales_bad PARTITION OF sales FOR VALUES IN (NULL);
INSERT INTO sales VALUES (1, 'de', 1.5), (2, 'fr', 2), (3, NULL, 3), (50, 'us', 4), (150, 'us', 5);
INSERT INTO sales VALUES (250, 'us', 6);
INSERT INTO sales VALUES (4, 'it', 7);
SELECT tableoid::regclass, * FROM sales ORDER BY id;
SELECT * FROM sales_us ORDER BY id;

-- UPDATE that changes the partition key moves the row.
UPDATE sales SET region = 'us', id = 120 WHERE id = 1;
UPDATE sales SET id = id + 10 WHERE region = 'us' RETURNING *;
SELECT tableoid::regclass, * FROM sales ORDER BY id;
UPDATE sales SET region = 'xx' WHERE id = 2;
UPDATE sales_eu SET region = 'us' WHERE id = 2;
BEGIN;
UPDATE sales SET region = 'de' WHERE id = 3;
SELECT tableoid::regclass, * FROM sales WHERE id = 3;
ROLLBACK;
SELECT tableoid::regclass, * FROM sales WHERE id = 3;
DELETE FROM sales WHERE region = 'us' AND id > 150;
SELECT tableoid::regclass, * FROM sales ORDER BY id;

-- HASH.
CREATE TABLE h (a int, b text) PARTITION BY HASH (a);
CREATE TABLE h0 PARTITION OF h FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE h1 PARTITION OF h FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE h2 PARTITION OF h FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE h_bad PARTITION OF h FOR VALUES WITH (MODULUS 8, REMAINDER 1);
CREATE TABLE h_bad PARTITION OF h FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE h_bad PARTITION OF h FOR VALUES WITH (MODULUS 4, REMAINDER 5);
CREATE TABLE h_bad PARTITION OF h FOR VALUES WITH (MODULUS 0, REMAINDER 0);
CREATE TABLE h_bad PARTITION OF h DEFAULT;
CREATE TABLE h_bad PARTITION OF h FOR VALUES IN (1);
INSERT INTO h SELECT g, 'v' || g FROM generate_series(1, 20) g;
SELECT tableoid::regclass, count(*), min(a), max(a) FROM h GROUP BY 1 ORDER BY 1;
CREATE TABLE ht (t text) PARTITION BY HASH (t);
CREATE TABLE ht0 PARTITION OF ht FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE ht1 PARTITION OF ht FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE ht2 PARTITION OF ht FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO ht VALUES ('apple'), ('banana'), ('cherry'), ('a much longer text value here'), (''), (NULL);
SELECT tableoid::regclass, t FROM ht ORDER BY 2;

-- Indexes and unique constraints go down to the partitions.
CREATE TABLE u (id int, k int, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);
CREATE TABLE u1 PARTITION OF u FOR VALUES FROM (0) TO (10);
CREATE INDEX u_id_idx ON u (id);
CREATE TABLE u2 PARTITION OF u FOR VALUES FROM (10) TO (20);
CREATE UNIQUE INDEX ON u (id);
INSERT INTO u VALUES (1, 1), (1, 11);
INSERT INTO u VALUES (1, 1);
SELECT c.relname, i.relname AS index FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
  JOIN pg_class i ON i.oid = x.indexrelid WHERE c.relname LIKE 'u%' ORDER BY 1, 2;

-- INSERT ... ON CONFLICT routes to the leaf and uses its unique index.
CREATE TABLE up (k int PRIMARY KEY, v text) PARTITION BY RANGE (k);
CREATE TABLE up1 PARTITION OF up FOR VALUES FROM (0) TO (10);
CREATE TABLE up2 PARTITION OF up FOR VALUES FROM (10) TO (20);
INSERT INTO up VALUES (1, 'a'), (11, 'b');
INSERT INTO up VALUES (1, 'x'), (12, 'y') ON CONFLICT (k) DO UPDATE SET v = up.v || excluded.v
  RETURNING *;
INSERT INTO up VALUES (11, 'z') ON CONFLICT DO NOTHING;
INSERT INTO up VALUES (11, 'z'), (13, 'w') ON CONFLICT (k) DO NOTHING RETURNING k;
SELECT tableoid::regclass, * FROM up ORDER BY k;
INSERT INTO up VALUES (25, 'z') ON CONFLICT (k) DO NOTHING;
DROP TABLE up;

-- ATTACH and DETACH.
CREATE TABLE u3 (id int NOT NULL, k int NOT NULL);
INSERT INTO u3 VALUES (5, 25), (6, 35);
ALTER TABLE u ATTACH PARTITION u3 FOR VALUES FROM (20) TO (30);
DELETE FROM u3 WHERE k = 35;
ALTER TABLE u ATTACH PARTITION u3 FOR VALUES FROM (15) TO (30);
ALTER TABLE u ATTACH PARTITION u3 FOR VALUES FROM (20) TO (30);
ALTER TABLE u ATTACH PARTITION u3 FOR VALUES FROM (30) TO (40);
SELECT tableoid::regclass, * FROM u ORDER BY k;
CREATE TABLE u4 (id int, k int, extra int);
ALTER TABLE u ATTACH PARTITION u4 FOR VALUES FROM (40) TO (50);
ALTER TABLE u DETACH PARTITION u4;
ALTER TABLE u DETACH PARTITION u2;
ALTER TABLE u DETACH PARTITION u2 CONCURRENTLY;
SELECT tableoid::regclass, * FROM u ORDER BY k;
SELECT * FROM u2;
INSERT INTO u VALUES (2, 12);

-- The catalog.
SELECT c.relname, c.relkind, c.relispartition, pg_get_expr(c.relpartbound, c.oid)
  FROM pg_class c WHERE c.relname IN ('measure', 'measure_old', 'measure_2020', 'measure_def',
    'sales', 'sales_us', 'sales_none', 'h0', 'mc2') ORDER BY 1;
SELECT c.relname, pg_get_partkeydef(c.oid), p.partstrat, p.partnatts, p.partattrs
  FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1;
SELECT inhrelid::regclass, inhparent::regclass FROM pg_inherits
  WHERE inhparent = 'sales'::regclass ORDER BY 1;
SELECT * FROM pg_partition_ancestors('sales_us_1');

-- psql's \d.
\d measure
\d+ sales
\d sales_us
\d u1
\d+ u1

-- TRUNCATE and DROP go through the tree.
TRUNCATE sales;
SELECT count(*) FROM sales_us_1;
DROP TABLE sales_eu;
\d+ sales
DROP TABLE sales;
SELECT count(*) FROM pg_class WHERE relname LIKE 'sales%';
DROP TABLE measure, mc, h, ht, u, u2, u3, u4, notpart;

-- The key is shown in "no partition" errors only to a role that may read
-- the table.
CREATE TABLE kd (a int, b int) PARTITION BY LIST ((a + 0));
CREATE TABLE kd_1 PARTITION OF kd FOR VALUES IN (1) PARTITION BY LIST (b);
CREATE ROLE regress_kd_user;
GRANT INSERT ON kd TO regress_kd_user;
INSERT INTO kd VALUES (1, 1);
INSERT INTO kd VALUES (2, 1);
SET ROLE regress_kd_user;
INSERT INTO kd VALUES (1, 1);
INSERT INTO kd VALUES (2, 1);
RESET ROLE;
GRANT SELECT ON kd_1 TO regress_kd_user;
SET ROLE regress_kd_user;
INSERT INTO kd VALUES (1, 1);
RESET ROLE;
DROP TABLE kd;
DROP ROLE regress_kd_user;
-- PARTITION OF takes one entry per column
CREATE TABLE dup_opts (a text, b int) PARTITION BY LIST (a);
CREATE TABLE dup_opts_b PARTITION OF dup_opts (b NOT NULL, b DEFAULT 1) FOR VALUES IN ('b');
CREATE TABLE dup_opts_b PARTITION OF dup_opts (b NOT NULL DEFAULT 1) FOR VALUES IN ('b');
\d dup_opts_b
DROP TABLE dup_opts;
