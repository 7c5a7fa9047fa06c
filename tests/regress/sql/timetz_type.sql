-- time with time zone (timetz): input forms and zones, output, ordering
-- (by UTC time, then zone), arithmetic, extract, AT TIME ZONE, casts,
-- typmods, arrays, indexes, window ranges, COPY and the catalog.
SET TimeZone = 'UTC';
CREATE TABLE tz_t (id int, f1 time(2) with time zone);
INSERT INTO tz_t VALUES (1, '00:01 PDT'), (2, '01:00 PDT'), (3, '07:07 PST'),
  (4, '08:08 EDT'), (5, '11:59:59.99 PM PDT'),
  (6, '2003-03-07 15:36:39 America/New_York'),
  (7, '2003-07-07 15:36:39 America/New_York'),
  (8, '12:00+05:30'), (9, '12:00:00.125-03:30:15'), (10, '11:00:00.004'),
  (11, '040506.789+08'), (12, 'allballs'), (13, '12:00 MSK'),
  (14, '11:00+00'), (15, '12:00+01');
-- needs a date for the offset
INSERT INTO tz_t VALUES (99, '15:36:39 America/New_York');
INSERT INTO tz_t VALUES (99, '15:36:39 m2');
INSERT INTO tz_t VALUES (99, '15:36:39 MSK m2');
INSERT INTO tz_t VALUES (99, '24:00:00.01 PDT');
INSERT INTO tz_t VALUES (99, '25:00:00 PDT');
INSERT INTO tz_t VALUES (99, 'garbage');
SELECT * FROM tz_t ORDER BY id;
SELECT id, f1 FROM tz_t ORDER BY f1, id;
SELECT id, f1 FROM tz_t ORDER BY f1 DESC, id;
SELECT id FROM tz_t WHERE f1 < '05:06:07-07' ORDER BY id;
SELECT id FROM tz_t WHERE f1 = '11:00+00' ORDER BY id;
SELECT '12:00+01'::timetz = '11:00+00'::timetz AS eq,
       '12:00+01'::timetz < '11:00+00'::timetz AS lt,
       '12:00+01'::timetz = '12:00:00+01'::timetz AS same;
SELECT min(f1), max(f1), count(DISTINCT f1) FROM tz_t;
SELECT f1, count(*) FROM tz_t WHERE id IN (14, 15) GROUP BY f1 ORDER BY f1;
CREATE INDEX tz_t_f1 ON tz_t (f1);
SELECT id, f1 FROM tz_t WHERE f1 >= '12:00-07' ORDER BY f1;
SELECT '23:59:59.999999 PDT'::timetz, '23:59:59.9999999 PDT'::timetz,
       '23:59:60 PDT'::timetz, '24:00:00 PDT'::timetz;
SELECT '24:01:00 PDT'::timetz;
-- arithmetic
SELECT '23:30-07'::timetz + interval '1 hour' AS plus,
       interval '90 minutes' + '23:30-07'::timetz AS plus2,
       '00:30+02'::timetz - interval '1 day 2 hours' AS minus;
SELECT date '2024-01-02' + '12:00-05'::timetz AS d1,
       '23:00+03'::timetz + date '2024-01-02' AS d2;
SELECT timestamptz(date '1994-01-01', time with time zone '11:00-5') AS d3,
       timestamptz(date '1994-07-01', time '10:00') AS d4,
       timestamptz('2020-01-01 12:00') AS cast_form;
SELECT timestamptz(1, 2);
SELECT f1 + time with time zone '00:01' FROM tz_t;
SELECT '12:00+01'::timetz - '11:00+00'::timetz;
-- extract and date_part
SELECT EXTRACT(MICROSECOND FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(MILLISECOND FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(SECOND FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(MINUTE FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(HOUR FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(DAY FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(FORTNIGHT FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT EXTRACT(TIMEZONE FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04:30');
SELECT EXTRACT(TIMEZONE_HOUR FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04:30');
SELECT EXTRACT(TIMEZONE_MINUTE FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04:30');
SELECT EXTRACT(EPOCH FROM TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT date_part('microsecond', TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT date_part('second', TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT date_part('epoch', TIME WITH TIME ZONE '2020-05-26 13:30:25.575401-04');
SELECT date_part('timezone_hour', TIME WITH TIME ZONE '13:30+05:45');
-- AT TIME ZONE
SELECT '12:00-07'::timetz AT TIME ZONE 'UTC' AS utc,
       '12:00-07'::timetz AT TIME ZONE '+03' AS posix,
       '12:00-07'::timetz AT TIME ZONE 'UTC+10' AS posix2,
       '12:00-07'::timetz AT TIME ZONE 'Asia/Kolkata' AS named,
       '12:00-07'::timetz AT TIME ZONE 'JST' AS abbrev,
       '23:00-07'::timetz AT TIME ZONE INTERVAL '-10:00' AS iv;
SELECT '12:00+00'::timetz AT TIME ZONE INTERVAL '1 day';
SELECT '12:00+00'::timetz AT TIME ZONE 'Nowhere/Land';
SELECT '12:00'::time AT TIME ZONE 'Asia/Kolkata';
SELECT id, f1 AT TIME ZONE 'UTC' FROM tz_t WHERE id < 4 ORDER BY id;
-- casts
SELECT '12:34:56.789+02'::timetz::time AS to_time,
       '12:34:56'::time::timetz AS from_time,
       '2024-06-01 12:00:00+00'::timestamptz::timetz AS from_tstz,
       '12:34:56.789+02'::timetz::text AS to_text,
       '12:34:56.789+02'::timetz(1) AS p1,
       cast('12:34:56.789+02' as time(0) with time zone) AS p0;
SELECT 'infinity'::timestamptz::timetz IS NULL AS inf;
SELECT '12:00'::timetz(-1);
SELECT '12:00+01'::timetz::interval;
SET TimeZone = 'Asia/Kolkata';
SELECT '10:00'::timetz, '10:00'::time::timetz,
       '2024-06-01 12:00:00+00'::timestamptz::timetz;
SET TimeZone = 'America/New_York';
SELECT '2024-07-01 10:00'::timetz AS summer, '2024-01-01 10:00'::timetz AS winter,
       '2024-07-01 10:00 America/Los_Angeles'::timetz AS named,
       '2024-07-01 10:00 MSK'::timetz AS abbrev;
SELECT '2024-07-01 10:00'::timestamptz::timetz;
SET TimeZone = 'UTC';
-- output is the same in every DateStyle
SET DateStyle = 'SQL, DMY';
SELECT '13:30:25.5-04:30'::timetz, '13:30+05:30:15'::timetz;
SET DateStyle = 'German';
SELECT '13:30:25.5-04:30'::timetz;
SET DateStyle = 'Postgres, MDY';
SELECT '13:30:25.5-04:30'::timetz;
RESET DateStyle;
-- current_time
SELECT pg_typeof(current_time), pg_typeof(current_time(2)),
       current_time(0) IS NOT NULL AS now_set;
SELECT extract(timezone FROM current_time);
-- the catalog
SELECT format_type(1266, 3), format_type(1266, -1), format_type(1270, -1);
SELECT typname, typlen, typbyval, typalign, typcategory, typarray
FROM pg_type WHERE oid IN (1266, 1270) ORDER BY oid;
SELECT atttypid::regtype, atttypmod FROM pg_attribute
WHERE attrelid = 'tz_t'::regclass AND attname = 'f1';
\d tz_t
CREATE TABLE tz_i (a time(2), b timetz, c timetz(3), d timestamp(1), e interval second(3), f interval, g money);
SELECT column_name, data_type, datetime_precision, udt_name
FROM information_schema.columns WHERE table_name = 'tz_i' ORDER BY ordinal_position;
DROP TABLE tz_i;
-- arrays
SELECT ARRAY['12:00+01', '13:00-02:30']::timetz[] AS arr,
       ('{12:00+01,"13:00 -07"}'::timetz[])[2] AS elem;
SELECT ARRAY['12:00+01'::timetz, '11:00+00'] = ARRAY['12:00+01'::timetz, '11:00+00'];
-- window RANGE offsets
SELECT id, f1, first_value(id) OVER w, last_value(id) OVER w
FROM tz_t WHERE id BETWEEN 1 AND 5
WINDOW w AS (ORDER BY f1 RANGE BETWEEN '70 min'::interval PRECEDING AND '2 hours'::interval FOLLOWING)
ORDER BY f1;
SELECT id, f1, first_value(id) OVER w, last_value(id) OVER w
FROM tz_t WHERE id BETWEEN 1 AND 5
WINDOW w AS (ORDER BY f1 DESC RANGE BETWEEN '70 min' PRECEDING AND '2 hours' FOLLOWING)
ORDER BY f1 DESC;
-- set operations and hashing
SELECT x FROM (VALUES ('12:00+01'::timetz), ('11:00+00')) v(x)
UNION SELECT x FROM (VALUES ('12:00+01'::timetz), ('10:00+00')) v(x) ORDER BY 1;
-- COPY
COPY tz_t TO STDOUT;
CREATE TABLE tz_c (f1 timetz, f2 timetz[]);
COPY tz_c FROM STDIN;
12:00:00+01	{10:00-03,"23:59:59.5+05:30"}
00:00:00-15:59:59	\N
\.
SELECT * FROM tz_c;
SELECT timetz_send('12:00:00.5+05:30');
DROP TABLE tz_c;
DROP TABLE tz_t;
