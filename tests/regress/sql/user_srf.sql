-- user-defined set-returning functions in FROM: WITH ORDINALITY, and
-- arguments from earlier FROM items
CREATE FUNCTION pairs(n int) RETURNS TABLE (a int, b text) LANGUAGE sql AS
  $$ SELECT i, 'x' || i FROM generate_series(1, n) i $$;
CREATE FUNCTION evens(n int) RETURNS SETOF int LANGUAGE sql AS
  $$ SELECT i * 2 FROM generate_series(1, n) i $$;
SELECT * FROM pairs(3) WITH ORDINALITY;
SELECT * FROM pairs(2) WITH ORDINALITY AS p(x, y, n);
SELECT * FROM evens(3) WITH ORDINALITY AS e;
SELECT e, o FROM evens(2) WITH ORDINALITY AS t(e, o);
CREATE TEMP TABLE ns (n int);
INSERT INTO ns VALUES (1), (2);
SELECT ns.n, p.* FROM ns, pairs(ns.n) p ORDER BY 1, 2;
SELECT ns.n, e.* FROM ns CROSS JOIN LATERAL evens(ns.n) WITH ORDINALITY e ORDER BY 1, 2;
