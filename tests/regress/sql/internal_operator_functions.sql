-- PostgreSQL's internal names of operators called as functions (textcat,
-- int4pl, int4larger...), in queries and in a unique expression index.
CREATE TABLE func_index_heap (f1 text, f2 text);
CREATE UNIQUE INDEX func_index_index on func_index_heap (textcat(f1,f2));
INSERT INTO func_index_heap VALUES('ABC','DEF');
INSERT INTO func_index_heap VALUES('AB','CDEFG');
INSERT INTO func_index_heap VALUES('QWE','RTY');
-- this should fail because of unique index:
INSERT INTO func_index_heap VALUES('ABCD', 'EF');
-- but this shouldn't:
INSERT INTO func_index_heap VALUES('QWERTY');
\d func_index_heap
\d func_index_index
SELECT * FROM func_index_heap WHERE textcat(f1, f2) = 'ABCDEF';
SELECT textcat('a', 'b'), int4pl(2, 3), int4larger(2, 7), float8mi(1.5, 0.25), int8smaller(5, -5);
SELECT textcat(1, 2);
DROP TABLE func_index_heap;
