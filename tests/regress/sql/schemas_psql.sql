-- psql's describe commands over schemas (\dn, \dt s.*, \d s.t): the
-- catalog queries psql 15 sends see the schemas as PostgreSQL's do.
CREATE SCHEMA app;
CREATE TABLE app.t (id serial PRIMARY KEY, v text UNIQUE);
CREATE TABLE t (a int);
CREATE VIEW app.v AS SELECT id FROM app.t;
\dn
\dt
\dt app.*
\dt *.t
\d app.t
\dv app.*
\ds app.*
\di app.*
SET search_path = app, public;
\dt
\d t
DROP SCHEMA app CASCADE;
DROP TABLE t;
