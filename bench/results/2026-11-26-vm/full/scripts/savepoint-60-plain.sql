BEGIN;
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
SAVEPOINT a;
\set rnd random(1, 990)
\set id 10 * :rnd + :client_id
SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;
UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);
COMMIT;
