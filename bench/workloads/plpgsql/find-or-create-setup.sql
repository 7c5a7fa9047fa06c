-- find-or-create as a function: look, insert, and on unique_violation look
-- again inside an exception block. The script asks for key nextval('keys')
-- / 4: four consecutive calls, from different clients, want each fresh key,
-- so callers keep racing. A call that finds no row after losing the race
-- raises, which pgbench reports; races counts the lost races.
DROP TABLE IF EXISTS credit_accounts;
CREATE TABLE credit_accounts (
    id          bigserial PRIMARY KEY,
    customer_id integer NOT NULL UNIQUE
);
DROP SEQUENCE IF EXISTS races;
CREATE SEQUENCE races;
DROP SEQUENCE IF EXISTS keys;
CREATE SEQUENCE keys;

CREATE OR REPLACE FUNCTION find_or_create(c int) RETURNS bigint AS $$
DECLARE
  r bigint;
BEGIN
  SELECT id INTO r FROM credit_accounts WHERE customer_id = c;
  IF FOUND THEN
    RETURN r;
  END IF;
  BEGIN
    INSERT INTO credit_accounts (customer_id) VALUES (c) RETURNING id INTO r;
  EXCEPTION WHEN unique_violation THEN
    PERFORM nextval('races');
    SELECT id INTO r FROM credit_accounts WHERE customer_id = c;
  END;
  IF r IS NULL THEN
    RAISE EXCEPTION 'row missing for customer %', c;
  END IF;
  RETURN r;
END
$$ LANGUAGE plpgsql;
