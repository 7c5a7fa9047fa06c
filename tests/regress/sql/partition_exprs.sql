-- Partition key expressions: PARTITION BY RANGE ((a + 1)), LIST
-- (lower(b)), keys mixing columns and expressions, COLLATE on a key;
-- validation at CREATE TABLE, routing of INSERT / COPY / UPDATE by the
-- evaluated key, partition constraints, default partitions, pruning on
-- `expression = constant`, the catalog (pg_get_partkeydef,
-- pg_get_partition_constraintdef, pg_partitioned_table) and \d.
\set VERBOSITY verbose

-- Keys that are refused.
CREATE TABLE bad (a int) PARTITION BY RANGE ((avg(a)));
CREATE TABLE bad (a int, b int) PARTITION BY RANGE ((avg(a) OVER (PARTITION BY b)));
CREATE TABLE bad (a int) PARTITION BY LIST ((a LIKE (SELECT 1)));
CREATE TABLE bad (a int) PARTITION BY RANGE ((42));
CREATE TABLE bad (a int) PARTITION BY RANGE ((a + random()::int));
CREATE TABLE bad (a timestamptz) PARTITION BY RANGE ((a > now()));
CREATE FUNCTION vol_plus(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN x + 1; END $$;
CREATE TABLE bad (a int) PARTITION BY RANGE (vol_plus(a));
CREATE FUNCTION imm_plus(x int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN RETURN x + 1; END $$;
CREATE FUNCTION imm_const() RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE TABLE bad (a int) PARTITION BY RANGE (imm_const());
CREATE TABLE bad (a int) PARTITION BY RANGE (xmin);
CREATE TABLE bad (a int) PARTITION BY RANGE ((xmin::text::int + a));
CREATE TABLE bad (a int, b int) PARTITION BY RANGE (((a, b)));
CREATE TABLE bad (a int, b int) PARTITION BY RANGE (a, ('unknown'));
CREATE TABLE bad (a int) PARTITION BY RANGE ((a + 1) COLLATE "C");
CREATE TABLE bad (a text) PARTITION BY RANGE (a COLLATE "nosuch");
CREATE TABLE bad (a int) PARTITION BY RANGE (a nosuch_ops);
CREATE TABLE bad (a int PRIMARY KEY, b int) PARTITION BY RANGE ((a + b));
CREATE TABLE bad (a int UNIQUE, b int) PARTITION BY RANGE ((b + a));

-- RANGE on an expression, with a default partition.
CREATE TABLE rexp (a int, b text) PARTITION BY RANGE ((a + 1));
CREATE TABLE rexp_1 PARTITION OF rexp FOR VALUES FROM (1) TO (10);
CREATE TABLE rexp_2 PARTITION OF rexp FOR VALUES FROM (10) TO (20);
CREATE TABLE rexp_bad PARTITION OF rexp FOR VALUES FROM (5) TO (15);
CREATE TABLE rexp_bad PARTITION OF rexp FOR VALUES FROM ('x') TO (15);
CREATE TABLE rexp_bad PARTITION OF rexp FOR VALUES FROM (now()) TO (15);
INSERT INTO rexp VALUES (0, 'zero'), (8, 'eight'), (9, 'nine'), (18, 'eighteen');
INSERT INTO rexp VALUES (19, 'nineteen');
INSERT INTO rexp VALUES (NULL, 'null');
SELECT tableoid::regclass, * FROM rexp ORDER BY a, b;
INSERT INTO rexp_1 VALUES (9, 'wrong');
INSERT INTO rexp_2 VALUES (9, 'right') RETURNING *;
CREATE TABLE rexp_def PARTITION OF rexp DEFAULT;
INSERT INTO rexp VALUES (19, 'nineteen'), (NULL, 'null'), (-5, 'minus five');
INSERT INTO rexp_def VALUES (5, 'wrong');
CREATE TABLE rexp_3 PARTITION OF rexp FOR VALUES FROM (20) TO (30);
CREATE TABLE rexp_3 PARTITION OF rexp FOR VALUES FROM (30) TO (40);
SELECT tableoid::regclass, * FROM rexp ORDER BY a, b;

-- UPDATE moves rows by the new key.
UPDATE rexp SET a = a + 10 WHERE b = 'eight' RETURNING *;
UPDATE rexp SET a = 35 WHERE b = 'zero';
UPDATE rexp_1 SET a = 15 WHERE b = 'nine';
SELECT tableoid::regclass, * FROM rexp ORDER BY a, b;

-- COPY routes by the key too.
COPY rexp FROM stdin;
3	three
33	thirty-three
\.
SELECT tableoid::regclass, * FROM rexp WHERE b LIKE 'th%' ORDER BY a;

-- Pruning on the key expression.
EXPLAIN (COSTS OFF) SELECT * FROM rexp WHERE a + 1 = 5;
SELECT * FROM rexp WHERE a + 1 = 4;

-- The key in the catalog and in \d.
SELECT pg_get_partkeydef('rexp'::regclass);
SELECT partnatts, partattrs, partexprs IS NOT NULL AS has_exprs FROM pg_partitioned_table
  WHERE partrelid = 'rexp'::regclass;
SELECT relname, pg_get_partition_constraintdef(oid) FROM pg_class
  WHERE relname LIKE 'rexp\__' ORDER BY relname;
\d rexp
\d+ rexp_2

-- A key expression's columns may not be dropped or retyped; renamed,
-- the expression follows.
ALTER TABLE rexp DROP COLUMN a;
ALTER TABLE rexp ALTER COLUMN a TYPE bigint;
ALTER TABLE rexp_1 RENAME COLUMN a TO aa;
ALTER TABLE ONLY rexp RENAME COLUMN a TO aa;
ALTER TABLE rexp RENAME COLUMN a TO aa;
\d rexp_1
SELECT pg_get_partkeydef('rexp'::regclass);
INSERT INTO rexp VALUES (1, 'one') RETURNING *;
SELECT tableoid::regclass, * FROM rexp WHERE b = 'one';

-- LIST on a function of a column, NULL taken by a partition.
CREATE TABLE lexp (a int, b text) PARTITION BY LIST (lower(b));
CREATE TABLE lexp_xy PARTITION OF lexp FOR VALUES IN ('x', 'y');
CREATE TABLE lexp_z PARTITION OF lexp FOR VALUES IN ('z');
CREATE TABLE lexp_null PARTITION OF lexp FOR VALUES IN (NULL);
INSERT INTO lexp VALUES (1, 'X'), (2, 'y'), (3, 'Z'), (4, NULL);
INSERT INTO lexp VALUES (5, 'W');
INSERT INTO lexp_z VALUES (6, 'x');
SELECT tableoid::regclass, * FROM lexp ORDER BY a;
UPDATE lexp SET b = 'Y' WHERE a = 3 RETURNING *;
SELECT tableoid::regclass, * FROM lexp WHERE a = 3;
EXPLAIN (COSTS OFF) SELECT * FROM lexp WHERE lower(b) = 'z';
SELECT relname, pg_get_partition_constraintdef(oid) FROM pg_class
  WHERE relname LIKE 'lexp\_%' ORDER BY relname;
\d lexp

-- LIST on an operator expression, with a user function that is
-- IMMUTABLE.
CREATE TABLE mexp (a int, b text) PARTITION BY LIST ((a % 3));
CREATE TABLE mexp_01 PARTITION OF mexp FOR VALUES IN (0, 1);
CREATE TABLE mexp_2 PARTITION OF mexp FOR VALUES IN (2);
INSERT INTO mexp SELECT g, 'r' || g FROM generate_series(1, 6) g;
SELECT tableoid::regclass, * FROM mexp ORDER BY a;
CREATE TABLE fexp (a int) PARTITION BY RANGE (imm_plus(a));
CREATE TABLE fexp_1 PARTITION OF fexp FOR VALUES FROM (0) TO (10);
INSERT INTO fexp VALUES (5), (9);
INSERT INTO fexp VALUES (10);
SELECT pg_get_partkeydef('fexp'::regclass);

-- Columns and expressions together, a collation on a key.
CREATE TABLE cexp (a int, b int, c text) PARTITION BY RANGE (a, (b + 1), c COLLATE "C");
CREATE TABLE cexp_1 PARTITION OF cexp FOR VALUES FROM (1, 1, 'a') TO (1, 10, 'z');
CREATE TABLE cexp_2 PARTITION OF cexp FOR VALUES FROM (1, 10, 'z') TO (MAXVALUE, MAXVALUE, MAXVALUE);
INSERT INTO cexp VALUES (1, 0, 'b'), (1, 9, 'zz'), (5, 1, 'q');
INSERT INTO cexp VALUES (1, 9, 'y');
INSERT INTO cexp VALUES (0, 0, 'a');
SELECT tableoid::regclass, * FROM cexp ORDER BY a, b;
SELECT pg_get_partkeydef('cexp'::regclass);
SELECT partattrs, partcollation FROM pg_partitioned_table WHERE partrelid = 'cexp'::regclass;
SELECT relname, pg_get_partition_constraintdef(oid) FROM pg_class
  WHERE relname LIKE 'cexp\__' ORDER BY relname;

-- Multi-level: a partition partitioned by an expression.
CREATE TABLE mlexp (a int, b text) PARTITION BY LIST (b);
CREATE TABLE mlexp_x PARTITION OF mlexp FOR VALUES IN ('x') PARTITION BY RANGE (abs(a));
CREATE TABLE mlexp_x1 PARTITION OF mlexp_x FOR VALUES FROM (0) TO (10);
CREATE TABLE mlexp_x2 PARTITION OF mlexp_x FOR VALUES FROM (10) TO (100);
INSERT INTO mlexp VALUES (-5, 'x'), (50, 'x'), (-50, 'x');
INSERT INTO mlexp VALUES (-500, 'x');
SELECT tableoid::regclass, * FROM mlexp ORDER BY a;
UPDATE mlexp SET a = -a * 10 WHERE a = -5;
SELECT tableoid::regclass, * FROM mlexp ORDER BY a;
SELECT pg_get_partition_constraintdef('mlexp_x2'::regclass);
-- Through the middle table a row moves only within its subtree.
UPDATE mlexp_x SET a = 5 WHERE a = -50;
UPDATE mlexp_x SET b = 'y' WHERE a = 50;
SELECT tableoid::regclass, * FROM mlexp ORDER BY a;

-- HASH on an expression.
CREATE TABLE hexp (a int, b text) PARTITION BY HASH ((a * 2));
CREATE TABLE hexp_0 PARTITION OF hexp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE hexp_1 PARTITION OF hexp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO hexp SELECT g, 'h' || g FROM generate_series(1, 8) g;
SELECT tableoid::regclass, count(*) FROM hexp GROUP BY 1 ORDER BY 1;
SELECT pg_get_partkeydef('hexp'::regclass);

-- ATTACH checks the rows against the key expression.
CREATE TABLE rexp_4 (aa int, b text);
INSERT INTO rexp_4 VALUES (45, 'forty-five');
ALTER TABLE rexp ATTACH PARTITION rexp_4 FOR VALUES FROM (40) TO (45);
ALTER TABLE rexp ATTACH PARTITION rexp_4 FOR VALUES FROM (40) TO (50);
SELECT tableoid::regclass, * FROM rexp WHERE aa > 40 ORDER BY aa;
-- A new partition may not take rows the default partition holds.
INSERT INTO rexp VALUES (55, 'fifty-five');
CREATE TABLE rexp_5 PARTITION OF rexp FOR VALUES FROM (50) TO (60);

-- A leaf whose columns are ordered differently reports the failing row
-- as the routed table lays it out.
CREATE TABLE oexp (a int, b int, c text) PARTITION BY RANGE ((b * 2));
CREATE TABLE oexp_1 (c text, a int, b int CONSTRAINT check_b CHECK (b < 45));
ALTER TABLE oexp ATTACH PARTITION oexp_1 FOR VALUES FROM (80) TO (100);
INSERT INTO oexp VALUES (1, 45, 'a');
INSERT INTO oexp VALUES (1, 44, 'a');
SELECT tableoid::regclass, * FROM oexp;

DROP TABLE rexp, lexp, mexp, fexp, cexp, mlexp, hexp, oexp;
DROP FUNCTION vol_plus(int);
DROP FUNCTION imm_plus(int);
DROP FUNCTION imm_const();
