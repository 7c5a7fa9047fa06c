--
-- Errors with their SQLSTATEs. VERBOSITY verbose makes psql print the
-- SQLSTATE; the LOCATION lines it would also print are server-specific and
-- are removed from both the expected and the actual output.
--
CREATE TABLE er (id integer PRIMARY KEY, v text NOT NULL, n integer CHECK (n > 0));
INSERT INTO er VALUES (1, 'one', 1), (2, 'two', 2);
\set VERBOSITY verbose
-- 42601 syntax_error
SELEC 1;
SELECT 1 +;
SELECT * FROM;
CREATE TABLE (a integer);
-- 42P01 undefined_table
SELECT * FROM no_such_table;
INSERT INTO no_such_table VALUES (1);
DROP TABLE no_such_table;
-- 42703 undefined_column
SELECT no_such_column FROM er;
SELECT er.nope FROM er;
SELECT * FROM er WHERE nope = 1;
SELECT * FROM er ORDER BY nope;
-- 42883 undefined_function
SELECT no_such_function(1);
SELECT length(1, 2, 3);
SELECT 1 + 'a'::text;
SELECT -true;
-- 42702 ambiguous_column
SELECT id FROM er a, er b;
-- 42712 duplicate_alias
SELECT * FROM er a, er a;
-- 42P07 duplicate_table
CREATE TABLE er (a integer);
-- 42701 duplicate_column
CREATE TABLE er2 (a integer, a integer);
-- 42803 grouping_error
SELECT id, count(*) FROM er;
SELECT * FROM er WHERE count(*) > 1;
-- 42804 datatype_mismatch
SELECT * FROM er WHERE v;
SELECT CASE WHEN true THEN 1 ELSE 'a'::text END;
-- 42846 cannot_coerce
SELECT true::date;
-- 21000 cardinality_violation
SELECT (SELECT id FROM er);
-- 22012 division_by_zero
SELECT 1 / 0;
SELECT 1.0 / 0;
-- 22003 numeric_value_out_of_range
SELECT 2147483647 + 1;
SELECT 123.45::numeric(3,1);
-- 22P02 invalid_text_representation
SELECT 'x'::integer;
SELECT 'maybe'::boolean;
-- 22007/22008 datetime errors
SELECT 'garbage'::date;
SELECT '2024-02-30'::date;
-- 22001 string_data_right_truncation
SELECT 'abcd'::varchar(2) AS explicit_cast_truncates;
CREATE TABLE er3 (v varchar(2));
INSERT INTO er3 VALUES ('abcd');
-- 23505 unique_violation
INSERT INTO er VALUES (1, 'dup', 1);
-- 23502 not_null_violation
INSERT INTO er (id) VALUES (3);
-- 23514 check_violation
INSERT INTO er VALUES (3, 'three', 0);
-- 25P02 in_failed_sql_transaction
BEGIN;
SELECT 1 / 0;
SELECT 1;
ROLLBACK;
-- 25P01 no_active_sql_transaction, 3B001 invalid_savepoint_specification
SAVEPOINT s;
BEGIN;
ROLLBACK TO SAVEPOINT nope;
ROLLBACK;
-- 25001 active_sql_transaction
BEGIN;
SELECT 1;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
ROLLBACK;
-- warnings carry SQLSTATEs too: 25P01 / 25001
COMMIT;
BEGIN;
BEGIN;
COMMIT;
-- notices: 42P07 / 42P01 ("skipping")
CREATE TABLE IF NOT EXISTS er (a integer);
DROP TABLE IF EXISTS no_such_table;
-- 42704 undefined_object
SHOW no_such_setting;
SET no_such_setting = 1;
-- 22023 invalid_parameter_value
SET statement_timeout = 'soon';
-- 26000 invalid_sql_statement_name
EXECUTE no_such_statement;
DEALLOCATE no_such_statement;
-- 42P05 duplicate_prepared_statement
PREPARE p AS SELECT 1;
PREPARE p AS SELECT 2;
DEALLOCATE p;
-- 42601 with a position in a longer statement
SELECT id,
       v
  FROM er
 WHERE id = = 1;
-- errors inside a multi-row statement leave nothing behind
INSERT INTO er VALUES (10, 'ten', 1), (11, NULL, 1);
SELECT count(*) FROM er WHERE id >= 10;
-- back to the default verbosity
\set VERBOSITY default
SELECT 1 / 0;
INSERT INTO er VALUES (1, 'dup', 1);
DROP TABLE er, er3;
