-- time (without time zone)
SELECT '13:30:25.575401'::time, time '00:00', '11:59 PM'::time, '12:00 AM'::time,
       '2020-05-26 13:30:25'::time, '24:00'::time, 'allballs'::time;
SELECT '12:34:56.789'::time(0), '12:34:56.789'::time(2), '23:59:59.999'::time(1);
SELECT '12:00'::time(2)::text, pg_typeof('12:00'::time(3)), pg_typeof(localtime),
       pg_typeof(localtime(2)), localtime(0) = localtime(0);
SELECT '25:00'::time;
SELECT '12:60'::time;
SELECT 'foo'::time;
SELECT '12:00 XYZ'::time;
-- comparisons and ordering
CREATE TABLE tt (id int, t time(2));
INSERT INTO tt VALUES (1, '10:00'), (2, '09:30:15.123'), (3, '23:59:59.999'), (4, NULL), (5, '00:00');
SELECT * FROM tt ORDER BY t;
SELECT * FROM tt WHERE t > '09:30' ORDER BY t DESC;
SELECT * FROM tt WHERE t BETWEEN '00:00' AND '10:00' ORDER BY id;
SELECT min(t), max(t), count(DISTINCT t) FROM tt;
CREATE INDEX tt_t ON tt (t);
SELECT id FROM tt WHERE t = '10:00';
SELECT id FROM tt WHERE t IN ('10:00', '00:00') ORDER BY id;
SELECT a.id, b.id FROM tt a JOIN tt b ON a.t = b.t ORDER BY 1;
-- arithmetic
SELECT time '10:00' - time '09:30:15', time '01:00' - time '23:00';
SELECT time '23:00' + interval '2 hours', time '01:00' - interval '2 hours',
       interval '90 minutes' + time '12:00', time '12:00' + interval '1 day 3 hours';
SELECT date '2024-02-29' + time '13:14:15', time '01:02' + date '2000-01-01';
SELECT time '10:00' + time '01:00';
SELECT time '10:00' - '01:00', time '10:00' + '01:00';
-- casts
SELECT '2024-03-01 17:45:10.5'::timestamp::time, 'infinity'::timestamp::time,
       interval '26:30'::time, interval '-1 hour'::time, time '05:06'::interval;
SET TimeZone = 'UTC';
SELECT '2024-03-01 17:45:10+02'::timestamptz::time;
RESET TimeZone;
SELECT CAST(time '12:34:56.7' AS text), '08:00'::text::time;
-- extract / date_part
SELECT extract(hour FROM time '13:30:25.575401'), extract(minute FROM time '13:30:25.575401'),
       extract(second FROM time '13:30:25.575401'), extract(millisecond FROM time '13:30:25.575401'),
       extract(microsecond FROM time '13:30:25.575401'), extract(epoch FROM time '13:30:25.575401');
SELECT date_part('hour', time '13:30:25.5'), date_part('second', time '13:30:25.5'),
       date_part('epoch', time '13:30:25.5');
SELECT extract(day FROM time '13:30');
SELECT extract(fortnight FROM time '13:30');
SELECT make_time(8, 15, 23.5);
-- date_bin
SELECT date_bin('15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01'),
       date_bin('15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01 00:02:30'),
       date_bin('1 day', timestamp '2020-02-11 15:44:17', timestamp '2020-02-12'),
       date_bin('10 seconds', timestamp '1999-12-31 23:59:55', timestamp '2000-01-01 00:00:03');
SET TimeZone = 'UTC';
SELECT date_bin('1 hour', timestamptz '2020-02-11 15:44:17+00', timestamptz '2001-01-01 00:30+00');
RESET TimeZone;
SELECT date_bin('1 month', timestamp '2020-02-11', timestamp '2001-01-01');
SELECT date_bin('0 days', timestamp '2020-02-11', timestamp '2001-01-01');
SELECT date_bin('1 hour', 'infinity'::timestamp, timestamp '2001-01-01');
-- arrays and grouping
SELECT ARRAY[time '01:00', '02:30'], (ARRAY['03:00'::time])[1];
SELECT t, count(*) FROM (VALUES (time '01:00'), ('01:00'), ('02:00')) v(t) GROUP BY t ORDER BY t;
\d tt
DROP TABLE tt;
-- time meets interval through the implicit cast
SELECT date '2020-01-01' - time '01:00', time '01:00' < interval '2 hours', time '10:00' = '10:00:00.000';
SELECT greatest(time '01:00', '02:00'), least(time '01:00', time '00:30'), coalesce(null::time, '03:00');
SELECT to_char(time '13:45:10', 'HH24:MI'), date_trunc('hour', time '12:34');
SELECT max(t), min(t), count(t), avg(t), sum(t) FROM (VALUES (time '01:00'), ('05:00')) v(t);
SELECT time '10:00' + 1;
