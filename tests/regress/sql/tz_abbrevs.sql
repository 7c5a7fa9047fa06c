-- Time zone abbreviations of the Default set: timestamp input, AT TIME
-- ZONE, date_trunc and make_timestamptz zones, SET TIME ZONE and the
-- pg_timezone_abbrevs view.
\set VERBOSITY verbose
SET TimeZone = 'UTC';
SELECT '2024-01-15 12:00 PST'::timestamptz AS pst, '2024-07-15 12:00 PDT'::timestamptz AS pdt, '2024-01-15 12:00 est'::timestamptz AS est;
SELECT '2024-01-15 12:00 CET'::timestamptz AS cet, '2024-07-15 12:00 CEST'::timestamptz AS cest, '2024-01-15 12:00 AEST'::timestamptz AS aest, '2024-01-15 12:00 NZDT'::timestamptz AS nzdt;
SELECT '2024-01-15 12:00 Z'::timestamptz AS z, '2024-01-15 12:00 zulu'::timestamptz AS zulu, '2024-01-15 12:00 UT'::timestamptz AS ut, '2024-01-15 12:00 GMT'::timestamptz AS gmt;
SELECT '2024-01-15 12:00 IST'::timestamptz AS ist, '2024-01-15 12:00 NST'::timestamptz AS nst, '2024-01-15 12:00 ACST'::timestamptz AS acst, '2024-01-15 12:00 CHADT'::timestamptz AS chadt, '2024-01-15 12:00 MEZ'::timestamptz AS mez;
SELECT 'Jan 15 12:00:00 2024 JST'::timestamptz AS jst, '2024-01-15T12:00:00 HST'::timestamptz AS hst, '20240115 120000 EET'::timestamptz AS eet;
-- dynamic abbreviations take the zone's meaning at that time
SELECT '2024-01-15 12:00 MSK'::timestamptz AS msk_now, '2012-01-15 12:00 MSK'::timestamptz AS msk_2012, '2005-01-15 12:00 MSK'::timestamptz AS msk_2005;
SELECT '2024-01-15 12:00 ART'::timestamptz AS art, '2024-01-15 12:00 VET'::timestamptz AS vet, '2014-01-15 12:00 VET'::timestamptz AS vet_2014, '2024-01-15 12:00 SGT'::timestamptz AS sgt;
-- POSIX-style offsets after an abbreviation
SELECT '2024-01-15 12:00 UTC+3'::timestamptz AS utc_plus3, '2024-01-15 12:00 GMT-2'::timestamptz AS gmt_minus2, '2024-01-15 12:00 PST+1'::timestamptz AS pst_plus1;
SELECT 'Wed Jul 11 10:51:14 GMT-4 2001'::timestamptz AS gmt_minus4, 'Wed Jul 11 10:51:14 PST+03:00 2001'::timestamptz AS pst_plus3, 'Wed Jul 11 10:51:14 EST 2001'::timestamptz AS est_before_year, 'Wed Jul 11 10:51:14 2001 CEST'::timestamptz AS cest;
SELECT 'tomorrow EST'::timestamptz - 'tomorrow'::timestamptz AS tomorrow_est, 'today zulu'::timestamptz = 'today'::timestamptz AS today_zulu, 'yesterday MSK'::timestamptz - 'yesterday'::timestamptz AS yesterday_msk;
SELECT 'tomorrow XYZ'::timestamptz;
-- zone names in the input, with the zone's history
SELECT '19970210 173201 America/New_York'::timestamptz AS ny_winter, '19970710 173201 America/New_York'::timestamptz AS ny_summer, '2011-03-27 03:00:00 Europe/Moscow'::timestamptz AS moscow_2011, '20500710 173201 Europe/Helsinki'::timestamptz AS helsinki_2050, 'Wed Jul 11 10:51:14 America/New_York 2001'::timestamptz AS before_year;
SELECT '19970710 173201 America/Does_not_exist'::timestamptz;
SELECT '2024-01-15 12:00 XYZ'::timestamptz;
SELECT '2024-01-15 12:00 PST'::timestamp AS ts_ignores_zone;
-- AT TIME ZONE
SELECT '2024-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'PST' AS pst, '2024-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'cest' AS cest, '2024-07-15 12:00 UTC'::timestamptz AT TIME ZONE 'AEST' AS aest;
SELECT '2024-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'MSK' AS msk, '2012-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'MSK' AS msk_2012;
SELECT '2024-01-15 12:00'::timestamp AT TIME ZONE 'CET' AS cet, '2012-07-15 12:00'::timestamp AT TIME ZONE 'MSK' AS msk_2012, '2024-01-15 12:00'::timestamp AT TIME ZONE 'Z' AS z;
SELECT '2024-07-15 12:00 UTC'::timestamptz AT TIME ZONE 'EST' AS est, '2024-07-15 12:00 UTC'::timestamptz AT TIME ZONE 'EST5EDT' AS est5edt, '2024-07-15 12:00 UTC'::timestamptz AT TIME ZONE 'America/New_York' AS new_york;
SELECT timezone('HST', '2024-01-15 12:00 UTC'::timestamptz), timezone('jst', '2024-01-15 12:00'::timestamp);
SELECT '2024-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'XYZ';
SELECT date_trunc('day', '2024-01-15 03:00 UTC'::timestamptz, 'AEST') AS aest_day, date_trunc('day', '2024-01-15 03:00 UTC'::timestamptz, 'PST') AS pst_day, date_trunc('hour', '2012-01-15 03:30 UTC'::timestamptz, 'MSK') AS msk_hour;
SELECT make_timestamptz(2024, 1, 15, 12, 0, 0, 'CET') AS cet, make_timestamptz(2012, 1, 15, 12, 0, 0, 'MSK') AS msk_2012, make_timestamptz(2024, 1, 15, 12, 0, 0, 'msk') AS msk;
-- SET TIME ZONE: zone names, POSIX forms, and abbreviations as it takes them
SET TIME ZONE 'EST5EDT';
SELECT '2024-01-15 12:00 PST'::timestamptz, '2024-07-15 12:00 PST'::timestamptz;
SET TIME ZONE 'EST';
SHOW TimeZone;
SELECT '2024-07-15 12:00 UTC'::timestamptz;
SET TIME ZONE 'PST';
SHOW TimeZone;
SET TIME ZONE 'MSK';
SET TIME ZONE '04:30';
SHOW TimeZone;
SELECT '2024-07-15 12:00 UTC'::timestamptz;
SET TIME ZONE 'UTC+5';
SELECT '2024-07-15 12:00 UTC'::timestamptz;
SET TIME ZONE 'Europe/Moscow';
SELECT '2024-07-15 12:00 UTC'::timestamptz, '2024-07-15 12:00 CEST'::timestamptz;
-- a named session zone follows its history
SELECT '2012-07-15 12:00 UTC'::timestamptz AS moscow_2012, '2011-03-27 02:30'::timestamptz AS in_gap, '2014-10-26 01:30'::timestamptz AS in_overlap;
SET TIME ZONE 'America/New_York';
SELECT '1997-04-06 12:00 UTC'::timestamptz AS dst_1997, '2006-10-29 01:30'::timestamptz AS overlap_2006, '1883-11-18 12:00 UTC'::timestamptz AS lmt;
SELECT extract(timezone FROM '1997-04-06 12:00 UTC'::timestamptz), to_char('1997-04-06 12:00 UTC'::timestamptz, 'TZ OF');
SET TimeZone = 'UTC';
-- the view
SELECT * FROM pg_timezone_abbrevs WHERE abbrev IN ('PST', 'PDT', 'CET', 'MSK', 'AEST', 'NZDT', 'Z', 'ZULU', 'NST', 'CHADT', 'SGT', 'VET') ORDER BY abbrev;
SELECT count(*), count(*) FILTER (WHERE is_dst), min(utc_offset), max(utc_offset) FROM pg_timezone_abbrevs;
SELECT abbrev FROM pg_timezone_abbrevs LIMIT 5;
