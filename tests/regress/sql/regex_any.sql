-- Regular-expression match operators with ANY / ALL (array).
SELECT 'abc' ~ ANY(ARRAY['^a', 'z']), 'abc' ~ ALL(ARRAY['^a', 'z']), 'ABC' ~* ANY('{^a}'), 'abc' !~ ALL(ARRAY['x', 'y']), 'abc' !~* ANY(ARRAY['A', NULL]);
SELECT 'abc' ~ ANY(ARRAY['^a', NULL]), 'abc' ~ ALL(ARRAY['^a', NULL]), NULL ~ ANY(ARRAY['a']);
CREATE TABLE rxt (s text);
INSERT INTO rxt VALUES ('sequence_test1'), ('serialtest2'), ('other');
SELECT s FROM rxt WHERE s ~ ANY(ARRAY['sequence_test', 'serialtest']) ORDER BY s;
EXPLAIN (COSTS OFF) SELECT s FROM rxt WHERE s ~ ANY(ARRAY['sequence_test', 'serialtest']);
SELECT 'abc' ~ ANY(ARRAY['(']);
SELECT 1 ~ ANY(ARRAY['1']);
DROP TABLE rxt;
