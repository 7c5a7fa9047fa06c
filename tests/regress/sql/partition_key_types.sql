-- A partition key's type needs an operator class of its strategy's
-- access method; a partitioned table takes no NO INHERIT constraint.
CREATE TABLE pk1 (a point) PARTITION BY LIST (a);
CREATE TABLE pk1 (a point) PARTITION BY RANGE (a);
CREATE TABLE pk1 (a json) PARTITION BY RANGE (a);
CREATE TABLE pk1 (a json) PARTITION BY HASH (a);
CREATE TABLE pk1 (a box) PARTITION BY HASH (a);
CREATE TABLE pk1 (a int, CONSTRAINT c CHECK (a > 0) NO INHERIT) PARTITION BY RANGE (a);
CREATE TABLE pk1 (a int CHECK (a > 0) NO INHERIT) PARTITION BY RANGE (a);
CREATE TABLE pk1 (a jsonb) PARTITION BY LIST (a);
CREATE TABLE pk1_1 PARTITION OF pk1 FOR VALUES IN ('{"a": 1}', '[1]');
INSERT INTO pk1 VALUES ('{"a": 1.0}'), ('[1]');
SELECT tableoid::regclass, a FROM pk1 ORDER BY a;
