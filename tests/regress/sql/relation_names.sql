-- Relation names given as text (regclass input, nextval, pg_get_serial_sequence)
-- fold to lower case unless quoted, as stringToQualifiedNameList reads them;
-- sequence commands name what they find instead when it is not a sequence.
CREATE TABLE serialTest1 (f1 text, f2 serial);
SELECT pg_get_serial_sequence('serialTest1', 'f2');
SELECT pg_get_serial_sequence('"serialtest1"', 'f2');
SELECT pg_get_serial_sequence('public.serialTest1', 'F2');
ALTER SEQUENCE serialTest1 CYCLE;
CREATE SEQUENCE sequence_testx OWNED BY pg_class.relname;
CREATE INDEX st1_idx ON serialTest1 (f1);
CREATE SEQUENCE sequence_testx OWNED BY st1_idx.f1;
DROP TABLE serialTest1;
select 'Foo'::regclass;
select '"Foo"'::regclass;
select 'public.Foo'::regclass;
select 'a..b'::regclass;
select nextval('NoSeq');
select '"Pg_class"'::regclass;
select ' pg_class '::regclass, 'PG_CATALOG.PG_CLASS'::regclass, 'pg_catalog."pg_class"'::regclass;
create sequence "MixedSeq";
select nextval('"MixedSeq"'), nextval('mixedseq');
create table "Quoted T" (a int);
select '"Quoted T"'::regclass, 'public."Quoted T"'::regclass;
select '"Quoted T'::regclass;
drop table "Quoted T"; drop sequence "MixedSeq";
