-- interval: literals and casts, date/time arithmetic, sum/avg, comparison.
\set VERBOSITY verbose
SET TimeZone = 'UTC';
SELECT '1 day 02:00:00'::interval, interval '90 minutes', '1 year 2 mons 3 days'::interval, '-1 day'::interval;
SELECT '2024-01-31 10:00'::timestamp + '1 month'::interval, '2024-03-10 12:00+00'::timestamptz - interval '1 day 1 hour';
SELECT '2024-03-01'::date + interval '1 day', '2024-03-01'::date - interval '36 hours';
SELECT '2024-03-01 12:00'::timestamp - '2024-02-28 10:30'::timestamp, '2024-03-01 12:00'::timestamp - '2024-02-28'::date;
SELECT interval '1 day' + interval '3 hours', interval '1 day' - interval '3 hours', - interval '2 hours';
SELECT interval '1 hour' * 2.5, 3 * interval '20 minutes', interval '1 day' / 4;
SELECT '2024-01-01 00:00'::timestamp + '36 hours', '2024-01-01 00:00'::timestamp - '2023-12-31 00:00';
SELECT interval '1 day' > interval '23 hours', interval '24 hours' = interval '1 day';
CREATE TABLE ev (id int, at timestamptz, dur interval);
INSERT INTO ev VALUES (1, '2024-05-01 08:00+00', '2 hours'), (2, '2024-05-02 09:30+00', '45 minutes');
SELECT id, at + dur AS ends, sum(dur) OVER () FROM ev ORDER BY id;
SELECT sum(dur), avg(dur), max(dur) FROM ev;
SELECT id FROM ev WHERE at > '2024-05-02 00:00+00'::timestamptz - interval '1 day' ORDER BY id;
SELECT interval 'garbage';
SELECT '2024-01-01'::date + true;
DROP TABLE ev;
