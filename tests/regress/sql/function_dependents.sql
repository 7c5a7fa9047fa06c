-- DROP FUNCTION of a function that defaults, CHECKs, generated columns,
-- policies, partition keys, views and domain constraints call: 2BP01
-- naming them; CASCADE drops them.
CREATE FUNCTION fd1(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE TABLE fdt (a int CHECK (fd1(a) > 0), b int DEFAULT fd1(2),
  c int GENERATED ALWAYS AS (fd1(a)) STORED);
CREATE POLICY fdp ON fdt USING (fd1(a) > 0);
CREATE TABLE fdpart (a int) PARTITION BY RANGE (fd1(a));
CREATE VIEW fdv AS SELECT fd1(1) AS x;
CREATE DOMAIN fdd AS int CHECK (fd1(VALUE) > 0);
DROP FUNCTION fd1(int);
DROP FUNCTION fd1;
-- still there, still working
INSERT INTO fdt (a) VALUES (1);
SELECT * FROM fdt;
SELECT * FROM fdv;
-- one at a time with CASCADE
CREATE FUNCTION fd2(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE TABLE fdt2 (a int, b int DEFAULT fd2(21));
DROP FUNCTION fd2(int) CASCADE;
INSERT INTO fdt2 (a) VALUES (1);
SELECT * FROM fdt2;
CREATE FUNCTION fd3(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE TABLE fdt3 (a int CONSTRAINT fdt3_check CHECK (fd3(a) < 10));
DROP FUNCTION fd3(int) CASCADE;
INSERT INTO fdt3 VALUES (100);
CREATE FUNCTION fd4(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE VIEW fdv4 AS SELECT fd4(2) AS y;
DROP FUNCTION fd4(int) CASCADE;
SELECT * FROM fdv4;
CREATE FUNCTION fd5(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE TABLE fdt5 (a int, g int GENERATED ALWAYS AS (fd5(a)) STORED);
DROP FUNCTION fd5(int) CASCADE;
SELECT * FROM fdt5;
-- a default's call with fewer arguments (a defaulted parameter)
CREATE FUNCTION fd6(int, int DEFAULT 0) RETURNS int LANGUAGE sql AS 'SELECT $1 + $2';
CREATE TABLE fdt6 (a int DEFAULT fd6(1));
DROP FUNCTION fd6(int, int);
-- an unrelated function of the same name with another arity
CREATE FUNCTION fd6(int, int, int) RETURNS int LANGUAGE sql AS 'SELECT 0';
DROP FUNCTION fd6(int, int, int);
