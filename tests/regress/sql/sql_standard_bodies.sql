-- SQL-standard function bodies: RETURN expr and BEGIN ATOMIC ... END (a SQL
-- function whose body is those statements).
CREATE FUNCTION sb_add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE RETURN a + b;
SELECT sb_add(2, 3);
CREATE FUNCTION sb_add2(a int, b int) RETURNS int RETURN a + b * 2;
SELECT sb_add2(2, 3);
CREATE TABLE sb_t (x int);
CREATE FUNCTION sb_ins(v int) RETURNS int LANGUAGE sql
BEGIN ATOMIC
  INSERT INTO sb_t VALUES (v);
  INSERT INTO sb_t VALUES (v + 1);
  SELECT count(*)::int FROM sb_t;
END;
SELECT sb_ins(10);
SELECT sb_ins(20);
SELECT * FROM sb_t ORDER BY x;
CREATE FUNCTION sb_tab(n int) RETURNS TABLE (i int, sq int) LANGUAGE sql
BEGIN ATOMIC
  SELECT g, g * g FROM generate_series(1, n) g;
END;
SELECT * FROM sb_tab(3);
CREATE FUNCTION sb_bad(a int) RETURNS int LANGUAGE plpgsql RETURN a;
CREATE FUNCTION sb_dup(a int) RETURNS int LANGUAGE sql AS 'select 1' RETURN a;
CREATE PROCEDURE sb_proc(v int) LANGUAGE sql BEGIN ATOMIC INSERT INTO sb_t VALUES (v * 100); END;
CALL sb_proc(3);
SELECT * FROM sb_t ORDER BY x;
CREATE FUNCTION sb_empty() RETURNS void LANGUAGE sql BEGIN ATOMIC END;
SELECT sb_empty();
SELECT proname, prokind FROM pg_proc WHERE proname LIKE 'sb\_%' ORDER BY 1;
DROP FUNCTION sb_add(int, int);
DROP FUNCTION sb_add2(int, int);
DROP FUNCTION sb_ins(int);
DROP FUNCTION sb_tab(int);
DROP PROCEDURE sb_proc(int);
DROP FUNCTION sb_empty();
DROP TABLE sb_t;
