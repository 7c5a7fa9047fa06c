-- DateStyle and IntervalStyle: output styles, field orders, partial SETs,
-- ambiguous date input, SHOW, set_config, errors.
\set VERBOSITY verbose
SET TimeZone = 'PST8PDT';
SHOW DateStyle;
CREATE TABLE ds (d date, ts timestamp, tz timestamptz, iv interval);
INSERT INTO ds VALUES
  ('2024-01-02', '2024-01-02 03:04:05.5', '2024-07-02 03:04:05.5+00', '1 year 2 mons 3 days 04:05:06.7'),
  ('0044-01-15 BC', '0044-01-15 12:00 BC', '0044-01-15 12:00+00 BC', '-1 year -2 days +03:00:04'),
  ('infinity', '-infinity', 'infinity', '0'),
  ('1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:59:59.999999-08', '-00:00:01.5');
SELECT * FROM ds;
SET DateStyle = 'SQL, MDY';
SHOW DateStyle;
SELECT * FROM ds;
SET DateStyle = 'dmy';
SHOW DateStyle;
SELECT d, ts, tz FROM ds;
SET DateStyle = 'Postgres, MDY';
SELECT d, ts, tz FROM ds;
SET DateStyle = 'DMY';
SHOW DateStyle;
SELECT d, ts, tz FROM ds;
SET DateStyle = German;
SHOW DateStyle;
SELECT d, ts, tz FROM ds;
SET DateStyle = 'ymd';
SHOW DateStyle;
SELECT d, ts, tz FROM ds;
SET DateStyle = 'ISO, YMD';
SELECT d, ts, tz FROM ds;
-- Ambiguous input follows the field order.
SET DateStyle = 'ISO, MDY';
SELECT '01/02/03'::date, '01/02/2003'::date, '1/2/03'::timestamp, '01-feb-03'::date;
SET DateStyle = 'ISO, DMY';
SELECT '01/02/03'::date, '01/02/2003'::date, '13/02/03'::timestamptz, '01-feb-03'::date;
SET DateStyle = 'ISO, YMD';
SELECT '01/02/03'::date, '2001-02-03'::date, '03/02/01'::timestamp;
SELECT '99 Jan 08'::date, '1999 Jan 08'::date, '99-Jan-08'::date, 'January 8, 1999'::date, '08-Jan-1999'::date;
SELECT 'Jan-08-99'::date;
SET DateStyle = 'ISO, DMY';
SELECT 'Jan 08 99'::date, '08 Jan 99'::date, 'Jan-08-1999'::date, 'January 8, 99 BC'::date;
SET DateStyle = 'ISO, MDY';
SELECT '13/02/03'::date;
-- Zones without an abbreviation print their offset.
SET DateStyle = 'Postgres, MDY';
SET TimeZone = '+05';
SELECT tz FROM ds ORDER BY d LIMIT 2;
SET TimeZone = 'UTC';
SELECT tz FROM ds ORDER BY d LIMIT 2;
SET TimeZone = 'PST8PDT';
-- Keywords, defaults, errors.
SET DateStyle = 'US, SQL';
SHOW DateStyle;
SET DateStyle = 'European, Postgres';
SHOW DateStyle;
SET DateStyle = 'sql, default';
SHOW DateStyle;
SET DateStyle = default;
SHOW DateStyle;
SET DateStyle = 'postgres, iso';
SET DateStyle = 'mdy, dmy';
SET DateStyle = 'postgres dmy';
SET DateStyle = 'Klingon';
SHOW DateStyle;
SELECT set_config('DateStyle', 'german', false);
SELECT set_config('datestyle', 'ymd', false);
SELECT current_setting('DateStyle'), d FROM ds ORDER BY d LIMIT 1;
BEGIN;
SET LOCAL DateStyle = 'SQL';
SELECT d FROM ds ORDER BY d LIMIT 1;
ROLLBACK;
SHOW DateStyle;
RESET DateStyle;
SHOW DateStyle;
-- IntervalStyle.
SET IntervalStyle = postgres_verbose;
SELECT iv FROM ds;
SET IntervalStyle = sql_standard;
SELECT iv FROM ds;
SELECT interval '1 day', interval '-1 day -02:03', interval '1 year -1 mon', interval '-1-2', interval '1-2 3 days';
-- Under sql_standard a leading minus applies to every field without a sign.
SELECT interval '-1 2:03:04', interval '-1 +2:03:04', interval '-2 days 1 hour';
SET IntervalStyle = iso_8601;
SELECT iv FROM ds;
SELECT interval '1 day 2 hours 3 minutes 4.5 seconds', interval '-1 mon', interval '0';
SET IntervalStyle = 'Postgres';
SHOW IntervalStyle;
SELECT iv FROM ds;
SET IntervalStyle = 'iso';
-- Arrays and records print their elements in the style too.
SET DateStyle = 'SQL, DMY';
SELECT ARRAY[d, d + 1], ROW(ts, d) FROM ds ORDER BY d LIMIT 1;
SELECT d::text, ts::text FROM ds ORDER BY d LIMIT 1;
RESET DateStyle;
DROP TABLE ds;
-- The Postgres style's output reads back, in any DateStyle.
SET TimeZone = 'PST8PDT';
SET DateStyle = 'Postgres, MDY';
CREATE TABLE rt (tz timestamptz, ts timestamp);
INSERT INTO rt VALUES ('Mon Feb 10 17:32:01 1997 PST', 'Mon Feb 10 17:32:01.5 1997'),
  ('Feb 10 17:32:01 1997 -0800', 'Feb 10 17:32:01 1997'), ('Tue Jul 01 20:04:05.5 2024 PDT', 'Sat Jan 15 04:00:00 0044 BC'),
  ('1997-02-10 17:32:01 EST', '1997-02-10 17:32:01 EST'), ('2024-01-02 03:04:05.1234565+00', '2024-01-02 03:04:05.1234565');
SELECT * FROM rt;
SELECT tz::text::timestamptz = tz, ts::text::timestamp = ts FROM rt;
SET DateStyle = 'ISO';
SELECT * FROM rt;
-- Other input forms PostgreSQL's regression files use.
SELECT 'epoch'::timestamp, 'epoch'::timestamptz, '2000-01-15 08:14:01 GMT+8'::timestamptz,
       '2000-01-15 02:14:05 MST+7:00'::timestamptz, '19970210 173201 -0800'::timestamptz;
SELECT 'Feb 10 5:32PM 1997'::timestamp, 'Feb-10-1997 17:32:01 PST'::timestamptz,
       '1997-02-10 12:00 am'::timestamp, '1997-02-10 12:30:01 pm'::timestamp, '19970210 1732'::timestamp;
SELECT '1997-02-10 13:00 pm'::timestamp;
RESET DateStyle;
RESET TimeZone;
DROP TABLE rt;
