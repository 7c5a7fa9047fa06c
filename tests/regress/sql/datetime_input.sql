-- Date/time input as PostgreSQL's field-based decoder reads it
-- (crate::datetime_input): spaced and textual dates, Julian days,
-- year.day-of-year, compact ISO forms, DateStyle field order, special
-- words, zones in the input, ISO 8601 T, and interval forms with their
-- fraction carrying and overflow errors.
\set VERBOSITY verbose
SET TimeZone = 'PST8PDT';
SET DateStyle = 'ISO, MDY';
SELECT d, d::date FROM (VALUES ('1999 Jan 08'), ('Jan 08 1999'), ('08 Jan 1999'),
  ('J2451187'), ('1999.008'), ('990108'), ('19990108'), ('January 8, 99 BC'),
  ('1999-008'), ('08-Jan-99'), ('Jan-08-99'), ('1999-Jan-08'),
  ('1/8/1999'), ('01/02/03'), ('Friday January 8 1999'), ('y1999m01d08'),
  ('1999.01.08'), ('08.01.1999'), ('on 1999-01-08'), ('2000.366'),
  ('jd2451187'), ('4714-11-24 BC'), ('5874897-12-31'), ('epoch'),
  ('infinity'), ('-infinity'), ('1999-01-08 04:05:06 America/New_York'),
  ('1999-01-08 europe/paris')) v(d);
SELECT '1/18/1999'::date;
SELECT '18/1/1999'::date;
SELECT '13/13/2000'::date;
SELECT '2000-02-30'::date;
SELECT '0000-01-01'::date;
SELECT '1999.367'::date;
SELECT '4714-11-23 BC'::date;
SELECT '5874898-01-01'::date;
SELECT '1999-01-08-01'::date;
SELECT '1999-01-08 Foo/Bar'::date;
SELECT '1999-01-08 foobar'::date;
SELECT 'allballs'::date;
SELECT '1 2 3'::date;
SELECT 'Jan'::date;
SELECT ''::date;
SET DateStyle = 'ISO, DMY';
SELECT d, d::date FROM (VALUES ('1/8/1999'), ('18/1/1999'), ('01/02/03'),
  ('1999 Jan 08'), ('08-Jan-99')) v(d);
SELECT '99-Jan-08'::date;
SELECT '1/18/1999'::date;
SET DateStyle = 'ISO, YMD';
SELECT '1/8/1999'::date;
SELECT d, d::date FROM (VALUES ('01/02/03'), ('99-Jan-08'),
  ('08-Jan-1999')) v(d);
SELECT 'Jan 08 99'::date;
SELECT '08-Jan-99'::date;
SET DateStyle = 'ISO, MDY';
-- Special words relative to now compare with the current date.
SELECT 'today'::date = current_date, 'tomorrow'::date = current_date + 1,
  'yesterday'::date = current_date - 1, 'now'::date = current_date,
  'today 10:00'::timestamp = current_date + time '10:00',
  'tomorrow EST'::timestamptz = (current_date + 1)::timestamp AT TIME ZONE 'EST';
-- Timestamps: zones, T, compact and labelled forms.
SELECT t, t::timestamptz FROM (VALUES ('19990108T040506'), ('19990108T04:05:06'),
  ('1999-01-08T040506.789-07'), ('1999-01-08 040506-07'),
  ('1999-01-08 04:05:06 -8'), ('1999-01-08 04:05:06 +08:30'), ('1999-01-08 04:05:06 +0830'),
  ('1999-01-08 04:05:06 +15:59:59'), ('1999-07-08 04:05:06 America/New_York'),
  ('1999-01-08 04:05:06 america/new_york'), ('2011-03-27 04:00 MSK'),
  ('1999-01-08 04:05:06 MET DST'), ('1999-01-08 04:05:06 PST DST'), ('1999-01-08 04:05:06 zulu'),
  ('1999-01-08 04:05:06 GMT+3'), ('1999-01-08 04:05:06 EST5EDT'), ('J2451187 04:05:06'),
  ('J2451187.25'), ('y1999m01d08h04mm05s06.5'), ('1999-01-08 t040506'),
  ('1999-01-08 t 04:05:06'), ('1999-01-08 24:00:00'), ('1999-01-08 23:59:60'),
  ('1999-01-08 23:59:59.9999999'), ('1999-01-08 23:59:59.1234565'),
  ('1999-01-08 12:00 am'), ('1999-01-08 12:00 pm'), ('1999-01-08 04:05.5'),
  ('Fri Jan 08 04:05:06 PST 1999'), ('Friday, January 08, 1999 04:05:06 PST'),
  ('1999-01-08 04:05:06.789-07:00:30'), ('1999-01-08 04:05:06 - 7'),
  ('4714-11-24 00:00:00+00 BC'), ('2024-01-02 03:04:05+02'), ('2024-01-02T03:04:05Z'),
  ('2024-1-2 3:4:5'), ('epoch'), ('infinity 10:00')) v(t);
SELECT t, t::timestamp FROM (VALUES ('2024-01-02 03:04:05+02'), ('2001-01-01 256161'),
  ('294276-12-31 23:59:59.999999'), ('4714-11-24 00:00:00 BC'), ('1999-01-08 10:30.5')) v(t);
SELECT '1999-01-08 04:05:06 +16'::timestamptz;
SELECT '1999-01-08 04:05:06 +15:60'::timestamptz;
SELECT '1999-01-08 04:05:06 PDT DST'::timestamptz;
SELECT '1999-01-08 04:05:06 DST'::timestamptz;
SELECT '1999-01-08 04:05:06 Europe/Foo'::timestamptz;
SELECT '1999-01-08 24:00:01'::timestamptz;
SELECT '1999-01-08 13:00 pm'::timestamptz;
SELECT '1999-01-08 04:05:06 04:05:06'::timestamptz;
SELECT '1999-01-08 T'::timestamptz;
SELECT 't04:05:06'::timestamptz;
SELECT '294277-01-01 00:00:00'::timestamp;
SELECT '4714-11-23 23:59:59 BC'::timestamp;
SELECT '10:00'::timestamp;
SELECT '2023-02-29 00:00'::timestamp;
SELECT '2024-00-01'::timestamp;
-- Times.
SELECT t, t::time FROM (VALUES ('040506'), ('0405'), ('4:05 pm'), ('12:05 am'),
  ('24:00:00'), ('23:59:59.9999999'), ('04:05:06 PST'), ('04:05:06 -08'), ('04:05:06 UTC'),
  ('04:05:06 Etc/GMT+5'), ('2003-04-12 04:05:06 America/New_York'), ('T040506'),
  ('t04:05:06'), ('allballs'), ('04:05:06 zulu'), ('040506.789'),
  ('040506-08'), ('J2451187 04:05'), ('04:05 MSK')) v(t);
SELECT '04:05:06 America/New_York'::time;
SELECT '24:00:01'::time;
SELECT '13:05 pm'::time;
SELECT '04:05:06 +16'::time;
SELECT 'Jan 8 04:05'::time;
SELECT '1999-01-08'::time;
SELECT '04:05 Europe/Foo'::time;
SELECT '4:05:06:07'::time;
-- Intervals.
SELECT i, i::interval FROM (VALUES ('@ 1 minute ago'), ('1 day 2:03:04'),
  ('P1Y2M3DT4H5M6S'), ('P1Y2M3DT4H5M6.5S'), ('P0001-02-03T04:05:06'), ('P00010203T040506'),
  ('PT040506'), ('P1.5Y'), ('P1.5M'), ('P1.5W'), ('P-1D'), ('P1e2D'), ('1.5 weeks'),
  ('1-2'), ('-1-2'), ('1-2 3 4:05:06'), ('-1 +02:03'), ('-1 02:03'), ('1 -02:03'),
  ('1:2.5'), ('1:2:60'), ('1.5 years'), ('1.5 months'), ('0.5 hours'),
  ('1.23456789 seconds'), ('0.0000005 seconds'), ('0.0000015 seconds'),
  ('1.5 millennia'), ('2 mils'), ('1 millisecondsxyz'), ('.5'),
  ('1 2:03:04 ago'), ('1:00 1.5 days'), ('1.5 days 1:00'), ('1.999999999 days'),
  ('1 yr 2 mons 3 d 4 hrs 5 mins 6 secs'), ('1day'), ('1d2h'),
  ('178956970 years 7 months'), ('-178956970 years -8 months'),
  ('2562047788:00:54.775807'), ('-2562047788:00:54.775807')) v(i);
SELECT '-2562047788:00:54.775808'::interval;
SELECT 'p1y'::interval;
SELECT '+infinity'::date;
SELECT '1.5 second 2 ms'::interval;
SELECT '1 2'::interval;
SELECT 'h04mm05s06'::time;
SELECT 'Jan 08 040506-07 1999'::timestamptz;
SELECT 'P1D2H'::interval;
SELECT 'PT1H2D'::interval;
SELECT '1-12'::interval;
SELECT '1:60'::interval;
SELECT '1 year 1 year'::interval;
SELECT '1 second 2 ms'::interval;
SELECT '1 fortnight'::interval;
SELECT '1 qtr'::interval;
SELECT '-.5'::interval;
SELECT 'ago'::interval;
SELECT '2147483648 days'::interval;
SELECT '178956970 years 8 months'::interval;
SELECT '2147483647 years'::interval;
SELECT '9223372036854775808 microseconds'::interval;
SELECT '2562047788:00:54.775808'::interval;
SELECT '-9223372036854775808 microseconds ago'::interval;
SELECT 'P1Y2M3DT4H5M6S ago'::interval;
-- Field restrictions read bare numbers and a:b by the restriction.
SELECT interval '1 2' day to hour, interval '12:34' minute to second,
  interval '1 2:03' day to minute, interval '2' year to month;
SELECT interval '1 2' hour to minute;
SELECT interval '123 11' day;
SET IntervalStyle = sql_standard;
SELECT '-1 2:03'::interval, '-1 +2:03'::interval, '-1-2 3'::interval;
