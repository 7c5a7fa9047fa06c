-- CREATE / DROP EXTENSION of the extensions Nestor provides: uuid-ossp
-- and pgcrypto's core (digest, hmac, gen_random_bytes, crypt, gen_salt).
select uuid_generate_v4();
select digest('abc', 'sha256');
create extension if not exists "uuid-ossp";
create extension "uuid-ossp";
create extension if not exists "uuid-ossp";
select extname, extversion from pg_extension where extname in ('plpgsql', 'uuid-ossp', 'pgcrypto') order by 1;
select uuid_generate_v4() is not null as v4, uuid_nil(), uuid_ns_dns(), uuid_ns_url(), uuid_ns_oid(), uuid_ns_x500();
select uuid_generate_v5(uuid_ns_dns(), 'www.example.com'), uuid_generate_v3(uuid_ns_url(), 'http://example.com');
select length(uuid_generate_v1()::text), substr(uuid_generate_v1()::text, 15, 1) as version, substr(uuid_generate_v1mc()::text, 15, 1);
create table ext_t (id uuid primary key default uuid_generate_v4(), v text);
insert into ext_t (v) values ('a'), ('b');
select count(distinct id) from ext_t;
create extension pgcrypto with schema public;
select encode(digest('abc', 'sha256'), 'hex'), encode(digest('abc'::bytea, 'md5'), 'hex'), encode(digest('abc', 'sha1'), 'hex');
select encode(digest('abc', 'sha224'), 'hex'), encode(digest('abc', 'sha384'), 'hex');
select encode(hmac('data', 'key', 'sha256'), 'hex'), encode(hmac('data', 'key', 'md5'), 'hex'), encode(hmac('data'::bytea, 'key'::bytea, 'sha1'), 'hex');
select digest('abc', 'nosuch');
select length(gen_random_bytes(16)), gen_random_bytes(0);
select gen_random_bytes(2000);
select crypt('password', '$1$saltsalt'), crypt('U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.');
select crypt('secret', gen_salt('bf')) like '$2a$06$%' as bf, crypt('secret', gen_salt('bf', 8)) like '$2a$08$%' as bf8, crypt('secret', gen_salt('md5')) like '$1$%' as md5;
select h = crypt('secret', h) as ok, h = crypt('wrong', h) as bad from (select crypt('secret', gen_salt('bf', 4)) h) s;
select gen_salt('nosuch');
select gen_salt('bf', 40);

\set VERBOSITY terse
create extension nosuch_ext;
\set VERBOSITY default
drop extension "uuid-ossp";
alter table ext_t alter column id drop default;
drop extension "uuid-ossp";
select uuid_generate_v4();
drop extension if exists "uuid-ossp";
begin; drop extension pgcrypto; rollback;
select encode(digest('x', 'md5'), 'hex');
drop extension pgcrypto;
drop table ext_t;
-- pg_stat_statements is built in: installing it records it
create extension if not exists pg_stat_statements;
select extname, extversion from pg_extension where extname = 'pg_stat_statements';
drop extension pg_stat_statements;
