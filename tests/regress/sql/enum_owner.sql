-- Enum types belong to their creator: ALTER, DROP and OWNER TO need
-- ownership; CREATE TYPE needs CREATE on the schema.
CREATE ROLE enum_alice LOGIN;
CREATE ROLE enum_bob LOGIN;
CREATE TYPE shade AS ENUM ('light', 'dark');
GRANT CREATE ON SCHEMA public TO enum_alice;
SET ROLE enum_alice;
CREATE TYPE hue AS ENUM ('red', 'blue');
ALTER TYPE hue ADD VALUE 'green' BEFORE 'blue';
ALTER TYPE shade ADD VALUE 'dim';
ALTER TYPE shade RENAME VALUE 'dark' TO 'black';
ALTER TYPE shade RENAME TO tone;
DROP TYPE shade;
ALTER TYPE hue OWNER TO enum_bob;
RESET ROLE;
SELECT t.typname, pg_get_userbyid(t.typowner) AS owner
  FROM pg_type t WHERE t.typname IN ('hue', 'shade', '_hue') ORDER BY 1;
\dT+ hue
ALTER TYPE hue OWNER TO enum_bob;
ALTER TYPE hue OWNER TO nobody_here;
SELECT t.typname, pg_get_userbyid(t.typowner) AS owner
  FROM pg_type t WHERE t.typname = 'hue';
SET ROLE enum_bob;
CREATE TYPE nope AS ENUM ('x');
ALTER TYPE hue RENAME VALUE 'red' TO 'crimson';
SELECT enum_range(NULL::hue);
RESET ROLE;
DROP ROLE enum_bob;
SET ROLE enum_bob;
DROP TYPE hue;
RESET ROLE;
DROP TYPE shade;
REVOKE CREATE ON SCHEMA public FROM enum_alice;
DROP ROLE enum_alice;
DROP ROLE enum_bob;
