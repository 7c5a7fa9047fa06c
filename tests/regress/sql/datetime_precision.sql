-- timestamp(p), timestamptz(p) and time(p): rounding on input, cast and
-- assignment; column types keep their precision; format_type.
\set VERBOSITY verbose
SET TimeZone = 'UTC';
CREATE TABLE tp (a timestamp(0), b timestamp(2) without time zone, c timestamptz(3),
                 d timestamp with time zone, e time(1), f timestamp(6));
SELECT attname, format_type(atttypid, atttypmod), atttypmod FROM pg_attribute
  WHERE attrelid = 'tp'::regclass AND attnum > 0 ORDER BY attnum;
\d tp
INSERT INTO tp VALUES ('2024-01-02 03:04:05.5', '2024-01-02 03:04:05.555', '2024-01-02 03:04:05.12345+00',
                       '2024-01-02 03:04:05.1234565+00', '03:04:05.45', '2024-01-02 03:04:05.1234567');
INSERT INTO tp VALUES ('1999-12-31 23:59:59.5', '1999-12-31 23:59:59.995', '1999-12-31 23:59:59.9996+00',
                       NULL, '23:59:59.96', NULL);
INSERT INTO tp VALUES ('1900-01-01 00:00:00.5', '1900-01-01 00:00:00.005', '1900-01-01 00:00:00.0005+00',
                       NULL, NULL, NULL);
INSERT INTO tp VALUES ('infinity', '-infinity', 'infinity', NULL, NULL, NULL);
SELECT * FROM tp;
-- Assignment from other types rounds too.
INSERT INTO tp (a, b, c) SELECT d, d, d FROM tp WHERE d IS NOT NULL;
UPDATE tp SET b = b + interval '0.0049 seconds' WHERE a = '2024-01-02 03:04:06';
SELECT a, b, c FROM tp ORDER BY a, b;
-- Casts and literals.
SELECT '2024-01-02 03:04:05.56789'::timestamp(1), '2024-01-02 03:04:05.56789'::timestamp(0),
       timestamp(2) '2024-01-02 03:04:05.56789', timestamptz(4) '2024-01-02 03:04:05.56789+00';
SELECT '1960-01-02 03:04:05.55'::timestamp(1), '1960-01-02 03:04:05.45'::timestamp(1);
SELECT now()::timestamptz(0) = date_trunc('second', now() + interval '0.5 seconds');
SELECT pg_typeof('2024-01-02'::timestamp(3)), pg_typeof(now()::timestamptz(2));
SELECT CAST('2024-01-02 03:04:05.999'::timestamp AS timestamp(2)) AS c2,
       '2024-01-02 03:04:05.999'::timestamptz::timestamp(0) AS c0;
SELECT '12:34:56.789'::time(2), '12:34:56.789'::time(0);
-- A column's precision survives in views and CREATE TABLE AS.
CREATE VIEW tpv AS SELECT b, c FROM tp;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'tpv'::regclass AND attnum > 0 ORDER BY attnum;
CREATE TABLE tp2 AS SELECT a, c FROM tp;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'tp2'::regclass AND attnum > 0 ORDER BY attnum;
-- Errors.
CREATE TABLE tpbad (a timestamp(-1));
CREATE TABLE tpbad (a timestamptz(-2));
CREATE TABLE tpbad (a timestamp(1,2));
SELECT '2024-01-02'::timestamp(-1);
DROP VIEW tpv;
DROP TABLE tp, tp2;
-- interval(p) and interval field restrictions.
CREATE TABLE ip (a interval(0), b interval(2), c interval year to month, d interval day to hour,
                 e interval minute to second(3), f interval second, g interval, h interval hour);
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'ip'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO ip VALUES ('1 day 01:23:45.6789', '1 day 01:23:45.6789', '1 year 2 mons 3 days 04:05',
                       '1 year 2 days 03:04:05', '1 day 02:03:04.56789', '-1.2345678', '1.5', '1 day 02:30');
INSERT INTO ip VALUES ('-00:00:01.5', '-00:00:01.555', '-1 year -1 day', '-02:59', '-2 hours -0.0005 seconds',
                       '100', '1 hour', '-90 minutes');
SELECT * FROM ip;
SELECT interval(0) '1 day 01:23:45.6789', interval(2) '1 day 01:23:45.6789',
       interval '1.234' second(2), interval '12:34.5678' minute to second(2);
SELECT interval '999' second, interval '999' minute, interval '999' hour, interval '999' day, interval '999' month;
SELECT interval '1' year, interval '2' month, interval '3' day, interval '4' hour, interval '5' minute, interval '6' second;
SELECT interval '1 2:03:04' day to hour, interval '1 2:03:04' day to minute, interval '1 2:03:04' hour to minute;
SELECT '1 year 2 mons 3 days 04:05:06.789'::interval year to month, '1 day 04:05:06.789'::interval day to minute,
       '04:05:06.789'::interval(1), CAST(interval '5 days 04:05:06.789' AS interval hour to second(0));
UPDATE ip SET c = c + interval '7 months 3 days' WHERE b > interval '0';
SELECT c FROM ip ORDER BY c;
CREATE TABLE ipbad (a interval(-1));
CREATE TABLE ipbad (a interval second(-2));
DROP TABLE ip;
