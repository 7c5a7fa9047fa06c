-- CREATE/ALTER SEQUENCE options as PostgreSQL reads them (init_params):
-- AS, INCREMENT, MIN/MAXVALUE, START, RESTART, CACHE, CYCLE, their
-- defaults and cross-checks; pg_sequences; identity sequence options.
CREATE SEQUENCE sx INCREMENT BY 1 MAXVALUE -20;
CREATE SEQUENCE sx INCREMENT BY -1 START 10;
CREATE SEQUENCE sx INCREMENT BY 1 START -10;
CREATE SEQUENCE sx CACHE 0;
CREATE SEQUENCE sx AS text;
CREATE SEQUENCE sx AS smallint MAXVALUE 100000;
CREATE SEQUENCE sx AS smallint MINVALUE -100000;
CREATE SEQUENCE sx INCREMENT 1 INCREMENT 2;
CREATE SEQUENCE s2 AS smallint;
SELECT * FROM pg_sequences WHERE sequencename = 's2';
ALTER SEQUENCE s2 AS integer;
SELECT data_type, maximum_value, minimum_value FROM information_schema.sequences WHERE sequence_name = 's2';
ALTER SEQUENCE s2 AS smallint MAXVALUE 50;
SELECT nextval('s2'), nextval('s2');
ALTER SEQUENCE s2 RESTART;
SELECT nextval('s2');
ALTER SEQUENCE s2 RESTART WITH 40;
SELECT nextval('s2');
ALTER SEQUENCE s2 RESTART WITH 60;
ALTER SEQUENCE s2 INCREMENT BY 5 CYCLE MINVALUE 10 CACHE 3;
SELECT nextval('s2'), nextval('s2'), nextval('s2');
SELECT * FROM pg_sequences WHERE sequencename = 's2';
BEGIN; ALTER SEQUENCE s2 RESTART WITH 10; SELECT nextval('s2'); ROLLBACK;
SELECT nextval('s2');
ALTER SEQUENCE s2 MAXVALUE 5;
ALTER SEQUENCE s2 NO MAXVALUE;
SELECT * FROM pg_sequences WHERE sequencename = 's2';
\d s2
CREATE TABLE ti (a int GENERATED ALWAYS AS IDENTITY (START 5 INCREMENT 2), b smallserial);
INSERT INTO ti DEFAULT VALUES; INSERT INTO ti DEFAULT VALUES;
SELECT * FROM ti;
SELECT sequencename, data_type, start_value, max_value, increment_by FROM pg_sequences ORDER BY 1;
CREATE TABLE ti2 (a int GENERATED ALWAYS AS IDENTITY (MAXVALUE 5000000000));
ALTER SEQUENCE IF EXISTS nosuch RESTART;
DROP TABLE ti; DROP SEQUENCE s2;
-- OWNED BY at creation: dropped with its column's table.
CREATE TABLE so_t (a int);
CREATE SEQUENCE so_s OWNED BY so_t.a;
CREATE SEQUENCE so_bad OWNED BY nobody;
CREATE SEQUENCE so_bad OWNED BY so_t.b;
SELECT count(*) FROM pg_sequences WHERE sequencename = 'so_s';
DROP TABLE so_t;
SELECT count(*) FROM pg_sequences WHERE sequencename = 'so_s';
