-- Date/time functions: date_trunc, extract/date_part, age, make_*,
-- justify_*, isfinite, to_char, to_timestamp, to_date; generate_series
-- over timestamps.
\set VERBOSITY verbose
SET TimeZone = 'UTC';
-- date_trunc
SELECT f, date_trunc(f, timestamp '2024-05-17 13:45:12.345678') FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'), ('week'), ('month'), ('quarter'), ('year'), ('decade'), ('century'), ('millennium'), ('MONTH'), ('mons'), ('ms'), ('us')) t(f);
SELECT date_trunc('century', timestamp '2000-06-01'), date_trunc('millennium', timestamp '2000-06-01'), date_trunc('decade', timestamp '0005-06-01 BC'), date_trunc('century', timestamp '0005-06-01 BC');
SELECT date_trunc('week', timestamp '2021-01-03 10:00'), date_trunc('day', timestamp 'infinity'), date_trunc('year', timestamp '-infinity');
SELECT date_trunc('day', timestamptz '2024-05-17 13:45:12+00'), date_trunc('month', date '2024-05-17');
SELECT date_trunc('day', timestamptz '2024-05-17 01:45:12+00', 'America/New_York'), date_trunc('hour', timestamptz '2024-05-17 01:45:12+00', '+05');
SELECT f, date_trunc(f, interval '1234 years 5 mons 6 days 07:08:09.123456') FROM (VALUES ('millennium'), ('century'), ('decade'), ('year'), ('quarter'), ('month'), ('day'), ('hour'), ('minute'), ('second'), ('milliseconds'), ('microseconds')) t(f);
SELECT date_trunc('foo', timestamp '2024-01-02');
SELECT date_trunc('dow', timestamp '2024-01-02');
SELECT date_trunc('foo', timestamptz '2024-01-02');
SELECT date_trunc('week', interval '2 days');
SELECT date_trunc('epoch', interval '2 days');
SELECT date_trunc('day', timestamptz '2024-01-02', 'Foo/Bar');
SELECT date_trunc(NULL, timestamp '2024-01-02'), date_trunc('day', NULL::timestamp);
-- extract and date_part
SELECT f, pg_catalog.extract(f, timestamp '2024-05-17 13:45:12.345678') AS e, date_part(f, timestamp '2024-05-17 13:45:12.345678') AS p FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'), ('week'), ('month'), ('quarter'), ('year'), ('decade'), ('century'), ('millennium'), ('epoch'), ('dow'), ('isodow'), ('doy'), ('isoyear'), ('julian')) t(f);
SELECT extract(epoch FROM timestamp '2024-01-02 03:04:05.678'), extract(second FROM timestamp '2024-01-02 03:04:05.678'), extract(julian FROM timestamp '2024-01-02 03:04:05.678'), extract(millisecond FROM timestamp '2024-01-02 03:04:05.678');
SELECT EXTRACT(YEAR FROM timestamp '0044-03-15 10:00:00 BC'), extract(century FROM timestamp '0044-03-15 10:00:00 BC'), extract(decade FROM timestamp '0044-03-15 10:00:00 BC'), extract(millennium FROM timestamp '0044-03-15 10:00:00 BC'), extract(isoyear FROM date '0044-03-15 BC');
SELECT d, extract(week FROM d) AS week, extract(isoyear FROM d) AS isoyear, extract(dow FROM d) AS dow, extract(isodow FROM d) AS isodow, extract(doy FROM d) AS doy FROM (VALUES (date '2021-01-03'), (date '2021-01-04'), (date '2024-12-30'), (date '2008-12-28'), (date '2024-02-29')) t(d);
SELECT f, pg_catalog.extract(f, date '2024-05-17') AS e, date_part(f, date '2024-05-17') AS p FROM (VALUES ('day'), ('month'), ('quarter'), ('week'), ('year'), ('decade'), ('century'), ('millennium'), ('epoch'), ('dow'), ('isodow'), ('doy'), ('isoyear'), ('julian')) t(f);
SELECT date_part('hour', date '2024-01-02'), date_part('epoch', date '2024-01-02');
SELECT f, pg_catalog.extract(f, interval '1 year 14 mons 3 days 04:05:06.789') AS e, date_part(f, interval '1 year 14 mons 3 days 04:05:06.789') AS p FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'), ('month'), ('quarter'), ('year'), ('decade'), ('century'), ('millennium'), ('epoch')) t(f);
SELECT extract(epoch FROM interval '-1 year -2 mons 3 days -04:05:06'), extract(hour FROM interval '-50 hours'), extract(millennium FROM interval '2400 years');
SET TimeZone = '+05';
SELECT extract(timezone FROM timestamptz '2024-01-02 03:04:05+00'), extract(timezone_hour FROM timestamptz '2024-01-02 03:04:05+00'), extract(timezone_minute FROM timestamptz '2024-01-02 03:04:05+00'), extract(hour FROM timestamptz '2024-01-02 03:04:05+00'), extract(epoch FROM timestamptz '2024-01-02 03:04:05+00');
SET TimeZone = 'America/New_York';
SELECT extract(timezone FROM timestamptz '2024-07-02 03:04:05+00'), extract(day FROM timestamptz '2024-07-02 03:04:05+00'), date_trunc('day', timestamptz '2024-11-03 12:00+00'), date_trunc('hour', timestamptz '2024-11-03 05:30+00');
SET TimeZone = 'UTC';
SELECT extract(year FROM timestamp 'infinity'), extract(epoch FROM timestamp '-infinity'), extract(hour FROM timestamp 'infinity'), date_part('year', timestamp 'infinity'), extract(day FROM date 'infinity'), extract(julian FROM date '-infinity');
SELECT extract(foo FROM timestamp '2024-01-02');
SELECT extract(timezone FROM timestamp '2024-01-02');
SELECT extract(hour FROM date '2024-01-02');
SELECT extract(foo FROM date '2024-01-02');
SELECT extract(foo FROM interval '1 day');
SELECT extract(dow FROM interval '1 day');
SELECT date_part('foo', date '2024-01-02');
SELECT extract(foo FROM timestamptz '2024-01-02');
SELECT extract(day FROM NULL::timestamp), date_part(NULL, timestamp '2024-01-02');
SELECT pg_typeof(extract(day FROM timestamp '2024-01-02')), pg_typeof(date_part('day', timestamp '2024-01-02'));
-- age
SELECT age(timestamp '2024-03-01', timestamp '2023-01-31'), age(timestamp '2023-01-31', timestamp '2024-03-01'), age(timestamptz '2024-03-01', timestamptz '2023-01-31 12:00');
SELECT age(date '2024-01-01', date '2020-02-29'), age(timestamp '2024-01-01 00:00:00.5', timestamp '2023-12-31 23:59:59.75'), age(timestamp '2024-01-01', timestamp '2024-01-01');
SELECT age(timestamp '2001-04-10') > interval '20 years', age(NULL::timestamp, timestamp '2024-01-01');
-- make_*
SELECT make_date(2024, 2, 29), make_date(-44, 3, 15), make_timestamp(2024, 1, 2, 3, 4, 5.5), make_timestamp(2024, 1, 2, 3, 4, 60), make_timestamp(2024, 1, 2, 24, 0, 0);
SELECT make_timestamptz(2024, 1, 2, 3, 4, 5), make_timestamptz(2024, 1, 2, 3, 4, 5, '+05'), make_timestamptz(2024, 7, 2, 3, 4, 5, 'America/New_York');
SELECT make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval(0, 0, 0, 10), make_interval(), make_interval(1);
SELECT make_interval(days => 10), make_interval(hours => 2, secs => 1.5), make_interval(1, mins => 3);
SELECT make_date(2024, 2, 30);
SELECT make_date(0, 2, 3);
SELECT make_timestamp(2024, 1, 2, 25, 4, 5);
SELECT make_timestamp(2024, 1, 2, 3, 4, 61);
SELECT make_timestamptz(2024, 1, 2, 3, 4, 5, 'Foo/Bar');
SELECT make_interval(secs => 'NaN'::float8);
SELECT make_date(2024, NULL, 1), make_timestamp(NULL, 1, 1, 0, 0, 0);
-- justify_*, isfinite, to_timestamp(double precision)
SELECT justify_days(interval '65 days'), justify_hours(interval '50 hours'), justify_interval(interval '1 mon -1 hour'), justify_days(interval '-65 days'), justify_interval(interval '-1 mon 35 days'), justify_hours(interval '-50 hours 30 minutes');
SELECT isfinite(date 'infinity'), isfinite(timestamp '2024-01-01'), isfinite(interval '1 day'), isfinite(timestamptz '-infinity'), isfinite(NULL::date);
SELECT to_timestamp(0), to_timestamp(1.5), to_timestamp(1704164645.678), to_timestamp('infinity'::float8), to_timestamp('-infinity'::float8);
SELECT to_timestamp('NaN'::float8);
SELECT to_timestamp(1e20);
-- to_char of dates and times
SELECT f, to_char(timestamp '2024-01-05 13:04:05.123456', f) FROM (VALUES ('YYYY-MM-DD HH24:MI:SS.MS.US'), ('HH HH12 AM am PM p.m. A.M.'), ('Day DAY day Dy DY dy'), ('Month MONTH month Mon MON mon'), ('FMMonth FMDay FMDD FMHH12'), ('DDD IDDD D ID W WW IW CC Q J'), ('Y,YYY YYY YY Y IYYY IYY IY I'), ('BC AD b.c. a.d.'), ('RM rm FMRM'), ('SSSS SSSSS FF1 FF2 FF3 FF4 FF5 FF6'), ('DDth DDTH FMDDth Dth'), ('"quoted YYYY" \"x'), ('TZ tz TZH TZM OF'), ('YYYYMMDD'), ('fmdd/mm/yyyy hh24:mi')) t(f);
SELECT to_char(timestamp '0044-03-15 10:00:00 BC', 'YYYY BC CC Y,YYY'), to_char(timestamp '12345-01-01 00:00:00', 'YYYY'), to_char(timestamp '2024-01-01 00:30', 'HH12 AM'), to_char(date '2024-03-09', 'Dy, DD Mon YYYY'), to_char(date '2021-01-03', 'IYYY-IW-ID');
SELECT to_char(timestamptz '2024-01-02 03:04:05+00', 'YYYY-MM-DD HH24:MI:SS TZ OF');
SET TimeZone = '+05';
SELECT to_char(timestamptz '2024-01-02 03:04:05+00', 'YYYY-MM-DD HH24:MI:SS TZ TZH:TZM OF');
SET TimeZone = 'UTC';
SELECT to_char(interval '1 year 2 mons 3 days 04:05:06.789', 'YYYY MM DD HH24:MI:SS.MS'), to_char(interval '-1 year -2 mons -3 days -04:05:06', 'YYYY MM DD HH24:MI:SS'), to_char(interval '50 hours', 'HH24 HH12 DD');
SELECT to_char(interval '1 day', 'Day');
SELECT to_char(interval '1 mon', 'Mon');
SELECT to_char(timestamp 'infinity', 'YYYY'), to_char(NULL::timestamp, 'YYYY'), to_char(timestamp '2024-01-01', NULL);
-- to_timestamp and to_date
SELECT to_timestamp('10:30', 'HH24:MI'), to_date('2024-01-02xyz', 'YYYY-MM-DD'), to_date('20240102', 'YYYYMMDD'), to_timestamp('2024-01-02 03:04:05.12', 'YYYY-MM-DD HH24:MI:SS.MS'), to_timestamp('2024-01-02 03:04:05.12', 'YYYY-MM-DD HH24:MI:SS.US');
SELECT to_timestamp('05 Jan 2024 01:02:03 PM', 'DD Mon YYYY HH12:MI:SS AM'), to_date('5 january 24', 'DD Month YY'), to_timestamp('2024-01-02 03:04 +05:30', 'YYYY-MM-DD HH24:MI TZH:TZM'), to_date('2024/1/2', 'YYYY-MM-DD'), to_date('2024 002', 'YYYY DDD');
SELECT to_date('Friday 2024-01-05', 'Day YYYY-MM-DD'), to_date('  2024-01-05', 'YYYY-MM-DD'), to_date('2024-01-05 BC', 'YYYY-MM-DD BC'), to_timestamp('1 2 3', 'HH MI SS'), to_date('99-01-05', 'YY-MM-DD'), to_date('9-01-05', 'Y-MM-DD');
SELECT to_timestamp('12345', 'SSSS'), to_timestamp('2459000', 'J'), to_timestamp('12:00 AM', 'HH:MI AM'), to_date(NULL, 'YYYY'), to_timestamp('2024', NULL);
SET TimeZone = 'America/New_York';
SELECT to_timestamp('2024-07-01 12:00', 'YYYY-MM-DD HH24:MI');
SET TimeZone = 'UTC';
SELECT to_date('2024-13-01', 'YYYY-MM-DD');
SELECT to_date('abcd-01-01', 'YYYY-MM-DD');
SELECT to_timestamp('2024-01-01 13:00 PM', 'YYYY-MM-DD HH12:MI AM');
SELECT to_date('2024-02-30', 'YYYY-MM-DD');
SELECT to_date('2024-Jax-01', 'YYYY-Mon-DD');
-- to_char of numbers and more patterns
select v, f, '['||to_char(v, f)||']' from (values (0::numeric), (1), (-1), (0.5), (-0.5), (12.345), (-12.345), (999.999), (1234567.891), (-0.0001), (100), (99.5)) a(v), (values ('999'), ('990.99'), ('FM999.99'), ('9,999.9'), ('S9999'), ('9999S'), ('FM9999MI'), ('9999PR'), ('000.000'), ('FM000.000'), ('SG9.99'), ('PL999'), ('FM9G999D99'), ('999 "x"'), ('9.'), ('.99'), ('FM.99'), ('0'), ('9990')) b(f) order by 1,2;
select v, f, '['||to_char(v, f)||']' from (values (0::float8), (1.5), (-2.25), (123456789.123), (1e15), (0.000001), (-1e-10)) a(v), (values ('999'), ('990.99'), ('FM999999999999999.99'), ('9.9999999'), ('S999.9')) b(f) order by 1,2;
select v, f, '['||to_char(v, f)||']' from (values (0::int), (7), (-7), (2147483647), (-2147483648)) a(v), (values ('999'), ('0000000000'), ('FM9,999,999,999'), ('S9')) b(f) order by 1,2;
select v, f, '['||to_char(v, f)||']' from (values (timestamp '2024-12-30 00:00:00'), (timestamp '2021-01-01 12:00:00'), (timestamp '1999-12-31 23:59:59.999999'), (timestamp '0001-01-01 00:00:00'), (timestamp '0001-12-31 00:00:00 BC'), (timestamp '2024-02-29 07:08:09.01')) a(v), (values ('YYYY-MM-DD'), ('IYYY-IW-ID'), ('IDDD DDD WW W'), ('HH12:MI AM'), ('FMHH12:MI:SS am'), ('Q CC J'), ('FMDD"th of" FMMonth, YYYY'), ('YY YYY Y I IY IYY'), ('SSSS US MS FF3'), ('DAY dy FMday'), ('MONTH Month mon'), ('FMDDth FMMMth FMYYYYth'), ('TZ OF'), ('Y,YYY'), ('BC B.C. ad')) b(f) order by 1,2;
select to_date(s, f) from (values ('2024-03-05','YYYY-MM-DD'),('03/05/2024','MM/DD/YYYY'),('5.3.24','DD.MM.YY'),('20240305','YYYYMMDD'),('2024-3-5','YYYY-MM-DD'),('Mar 5, 2024','Mon DD, YYYY'),('MARCH 05 2024','MONTH DD YYYY'),('2024 10','IYYY IW'),('2024-065','YYYY-DDD'),('24','YY'),('124-03-05','YYY-MM-DD')) t(s,f);
select to_timestamp(s, f) from (values ('2024-03-05 14:05:06','YYYY-MM-DD HH24:MI:SS'),('2024-03-05 2:05:06 pm','YYYY-MM-DD HH:MI:SS am'),('2024-03-05T14:05:06.123456','YYYY-MM-DD"T"HH24:MI:SS.US'),('2024-03-05 14:05:06 -03','YYYY-MM-DD HH24:MI:SS TZH'),('12 a.m.','HH A.M.'),('2024-03-05 14:05:06.5','YYYY-MM-DD HH24:MI:SS.FF1'),('05-Mar-2024','DD-Mon-YYYY')) t(s,f);
SELECT v, to_char(v, 'RN'), to_char(v, 'FMrn'), to_char(v, '9.99EEEE'), to_char(v, '9EEEE') FROM (VALUES (12::numeric), (1994.5), (3999), (4000), (0), (-5), (0.000123)) t(v);
SELECT to_char(123456::float8, '9.999EEEE'), to_char(-0.5::float8, '9EEEE');
SELECT to_char(1, 'FM9.9EEEE');
SELECT to_char(interval '1 day', 'TZ');
-- time zone abbreviations
SET TimeZone = 'America/New_York';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ tz OF'), to_char(timestamptz '2024-07-02 03:04:05+00', 'TZ tz OF TZH:TZM');
SET TimeZone = 'Asia/Tokyo';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF');
SET TimeZone = 'Asia/Kolkata';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF');
SET TimeZone = 'America/Sao_Paulo';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF');
SET TimeZone = 'Europe/London';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF'), to_char(timestamptz '2024-07-02 03:04:05+00', 'TZ OF');
SET TimeZone = 'UTC';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF');
SET TimeZone = '+05:30';
select to_char(timestamptz '2024-01-02 03:04:05+00', '[TZ] OF');
SET TimeZone = 'Etc/GMT+3';
select to_char(timestamptz '2024-01-02 03:04:05+00', 'TZ OF');
-- overloads that untyped literals cannot choose between
SELECT extract(epoch FROM '2024-01-01');
SELECT date_part('year', '2024-01-01');
SELECT date_trunc('day', '2024-01-01');
SELECT age('2024-01-01');
SELECT to_char('2024-01-01', 'YYYY');
SELECT to_hex('ff');
SELECT date_trunc(1, timestamp '2024-01-01');
SELECT extract(year FROM 5);
SELECT make_date('2024', '1', '1');
-- AT TIME ZONE (timezone())
SET TimeZone = 'UTC';
select timestamp '2024-01-01 12:00' at time zone '+05', timestamp '2024-01-01 12:00' at time zone 'UTC+5', timestamptz '2024-01-01 12:00+00' at time zone 'America/New_York', timestamp '2024-07-01 12:00' at time zone 'America/New_York';
select timestamptz '2024-01-01 12:00+00' at time zone '-03:30', timezone('Asia/Tokyo', timestamptz '2024-01-01 12:00+00'), timestamptz '2024-01-01 12:00+00' at time zone interval '02:00', timestamp '2024-01-01 12:00' at time zone interval '-02:00';
select timestamp '2024-01-01 12:00' at time zone 'Foo/Bar';
select timestamptz 'infinity' at time zone 'UTC', timestamp '2024-01-01' at time zone NULL;
select timestamp '2024-01-01 12:00' at time zone 'EST', timestamp '2024-01-01 12:00' at time zone 'utc', timestamp '2024-01-01 12:00' at time zone 'Z';
select date '2024-01-01' at time zone 'UTC';
select timestamp '2024-01-01 12:00' at time zone interval '1 day';
select date_trunc('day', timestamptz '2024-05-17 01:45:12+00', '+05'), make_timestamptz(2024,1,2,3,4,5,'-03:30'), make_timestamptz(2024,1,2,3,4,5,'+05'), date_trunc('day', timestamptz '2024-05-17 01:45:12+00', 'UTC+5'), timestamptz '2024-01-01 12:00+00' at time zone 'z';
select '2024-01-01 12:00+00' at time zone 'UTC', timezone('UTC', '2024-06-01 12:00'::timestamp);
select pg_typeof(timestamp '2024-01-01' at time zone 'UTC'), pg_typeof(now() at time zone 'UTC');
SET TimeZone = 'America/New_York';
select timestamp '2024-03-10 02:30' at time zone 'America/New_York', timestamptz '2024-11-03 06:30+00' at time zone 'America/New_York', (timestamp '2024-01-01 00:00' at time zone 'UTC') at time zone 'Asia/Tokyo';
SET TimeZone = 'UTC';
-- to_number
select to_number('12,454.8-', '99G999D9S'), to_number('12.3', '99.99'), to_number('-12', '99'), to_number('1 234', '9 999'), to_number('123', '9999.99'), to_number('  42', '9999'), to_number('12345', '999'), to_number('<12>', '99PR'), to_number('12', '9999'), to_number('0012.50', '9999.99'), to_number('1,2', '9,9'), to_number('12-', '99MI'), to_number('+5', 'S9');
select to_number('1,234,567.891', '9G999G999D999'), to_number('-0.5', '9D9'), to_number('.5', 'D9'), to_number(NULL, '9'), to_number('5', NULL), pg_typeof(to_number('1', '9'));
select to_number('abc', '999');
select to_number('', '999');
select to_number('1e3', '9EEEE');
select to_number('1.2.3', '9.9.9');
-- to_char of intervals and dates, more patterns
select v, f, '['||to_char(v, f)||']' from (values (interval '0'), (interval '1 year 2 mons 3 days 04:05:06.789'), (interval '-1 year -2 mons -3 days -04:05:06.5'), (interval '100 hours'), (interval '13 mons'), (interval '-0.5 seconds')) a(v), (values ('YYYY-MM-DD HH24:MI:SS.US'), ('FMYYYY FMMM FMDD FMHH24 FMMI FMSS'), ('HH HH12 MS US SSSS'), ('Y,YYY YYY YY Y CC Q'), ('DDD W WW J'), ('RM rm'), ('IYYY IW'), ('DDth MMth')) b(f) order by 1, 2;
select v, f, '['||to_char(v, f)||']' from (values (date '2024-01-01'), (date '2023-12-31'), (date '2020-02-29'), (date '1900-03-01'), (date '0001-01-01')) a(v), (values ('Day, DDth Month YYYY'), ('IYYY-IW-ID IDDD'), ('WW W D DDD'), ('CC Y,YYY'), ('J Q RM')) b(f) order by 1, 2;
-- generate_series over timestamps (in a select list with FROM)
SELECT generate_series(timestamp '2024-01-30', timestamp '2024-05-01', interval '1 month') FROM (VALUES (1)) v;
SELECT generate_series(timestamp '2024-01-01 00:00', timestamp '2024-01-01 02:00', interval '45 minutes') AS g FROM (VALUES (1)) v;
SELECT x, generate_series(timestamptz '2024-03-09 00:00+00', timestamptz '2024-03-11 00:00+00', interval '1 day') FROM (VALUES (1), (2)) v(x);
SELECT generate_series(timestamp '2024-01-03', timestamp '2024-01-01', interval '-1 day') FROM (VALUES (1)) v;
SELECT count(*) FROM (SELECT generate_series(timestamp '2024-01-03', timestamp '2024-01-01', interval '1 day') FROM (VALUES (1)) v) s;
SELECT generate_series(date '2024-01-01', date '2024-01-03', interval '1 day') FROM (VALUES (1)) v;
SELECT generate_series(timestamp '2024-01-01', NULL, interval '1 day') FROM (VALUES (1)) v;
SELECT generate_series(timestamp '2024-01-01', timestamp '2024-01-02', interval '0 days') FROM (VALUES (1)) v;
SET TimeZone = 'America/New_York';
SELECT generate_series(timestamptz '2024-03-09 00:00', timestamptz '2024-03-11 00:00', interval '1 day') FROM (VALUES (1)) v;
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-03', '1 day');
SELECT g FROM generate_series('2024-03-01 00:00+00'::timestamptz, '2024-03-01 02:00+00', interval '30 minutes') g;
SELECT generate_series('2024-01-31'::date, '2024-04-30'::date, '1 month');
SELECT count(*) FROM generate_series('2024-01-01'::timestamp, '2023-01-01', '1 day');
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '0 days') LIMIT 1;
SELECT d::date, extract(dow FROM d) FROM generate_series(timestamp '2024-05-01', timestamp '2024-05-05', '1 day') d;
