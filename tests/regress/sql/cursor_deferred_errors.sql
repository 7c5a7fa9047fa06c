-- A cursor's query fails where PostgreSQL's would: at the FETCH that
-- reads that far, after which the cursor cannot run again.
CREATE TABLE t10 AS SELECT g AS unique2 FROM generate_series(1, 20) g;
BEGIN;
	SAVEPOINT one;
	DECLARE c CURSOR FOR SELECT unique2/0 FROM t10 ORDER BY unique2;
	SAVEPOINT two;
		FETCH 10 FROM c;
	ROLLBACK TO SAVEPOINT two;
	-- c is now dead to the world ...
		FETCH 10 FROM c;
	ROLLBACK TO SAVEPOINT two;
	RELEASE SAVEPOINT one;
	FETCH 10 FROM c;
	CLOSE c;
	DECLARE c CURSOR FOR SELECT unique2/0 FROM t10 ORDER BY unique2;
	MOVE 0 FROM c;
	FETCH 1 FROM c;
COMMIT;
BEGIN;
DECLARE d CURSOR FOR SELECT 10 / (5 - unique2) FROM t10;
FETCH 3 FROM d;
FETCH 3 FROM d;
ROLLBACK;
BEGIN;
DECLARE e CURSOR FOR SELECT * FROM nosuchtable;
ROLLBACK;
