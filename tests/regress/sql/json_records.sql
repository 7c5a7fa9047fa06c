-- row_to_json(record, pretty), records inside arrays as JSON objects, and
-- VACUUM refused in an implicit transaction block.
SELECT row_to_json(q,true)
FROM (SELECT $$a$$ || x AS b,
         y AS c,
         ARRAY[ROW(x.*,ARRAY[1,2,3]),
               ROW(y.*,ARRAY[4,5,6])] AS z
      FROM generate_series(1,2) x,
           generate_series(4,5) y) q;
SELECT row_to_json(row(1,'x'), false), row_to_json(row(1, row(2, 3)), true), row_to_json(row(1), null);
SELECT 1\; VACUUM;
SELECT 1\; COMMIT\; VACUUM;
VACUUM;
SELECT array_to_json(ARRAY[ROW(1, 'a'), ROW(2, NULL)]), to_json(ARRAY[ROW(1, ARRAY[2])]);
