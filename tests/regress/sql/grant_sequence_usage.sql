-- GRANT USAGE ON a sequence named without SEQUENCE; a table refuses it.
CREATE ROLE regress_gu_user;
CREATE SEQUENCE gu_seq;
CREATE TABLE gu_t (a int);
GRANT USAGE ON gu_seq TO regress_gu_user;
GRANT USAGE ON TABLE gu_seq TO regress_gu_user;
GRANT USAGE ON gu_t TO regress_gu_user;
GRANT USAGE, SELECT ON gu_t TO regress_gu_user;
GRANT EXECUTE ON gu_t TO regress_gu_user;
GRANT INSERT ON gu_seq TO regress_gu_user;
GRANT USAGE ON SEQUENCE gu_t TO regress_gu_user;
SELECT relname, relacl FROM pg_class WHERE relname IN ('gu_seq', 'gu_t') ORDER BY 1;
SET ROLE regress_gu_user;
SELECT nextval('gu_seq');
RESET ROLE;
DROP TABLE gu_t; DROP SEQUENCE gu_seq; DROP ROLE regress_gu_user;
