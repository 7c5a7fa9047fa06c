//! The SQL-standard `information_schema` views Knex, Django, Hibernate and
//! JDBC metadata read, defined as PostgreSQL defines them: SQL over
//! `pg_catalog` (`crate::pg_catalog`). A reference to
//! `information_schema.tables` is planned as that SQL in a subquery, so
//! what the views show always agrees with the catalog relations.
//!
//! Columns and their order are PostgreSQL 15's; the standard's domains
//! (sql_identifier, character_data, cardinal_number, yes_or_no) are their
//! base types here (name, varchar, integer, varchar(3)); `triggers` lists
//! pg_trigger (transition table names included). Left out: views
//! not listed in [`NAMES`], privilege filtering (one role owns all), the
//! columns a CHECK constraint uses in constraint_column_usage.

use nestor_common::DbError;
use nestor_parser::NodeEnum;

/// The views defined here.
pub const NAMES: [&str; 11] = [
    "schemata",
    "tables",
    "columns",
    "table_constraints",
    "key_column_usage",
    "referential_constraints",
    "constraint_column_usage",
    "views",
    "sequences",
    "check_constraints",
    "triggers",
];

const SCHEMATA: &str = "
SELECT current_database()::name AS catalog_name, n.nspname AS schema_name,
       pg_get_userbyid(n.nspowner) AS schema_owner,
       NULL::name AS default_character_set_catalog, NULL::name AS default_character_set_schema,
       NULL::name AS default_character_set_name, NULL::varchar AS sql_path
  FROM pg_catalog.pg_namespace n";

const TABLES: &str = "
SELECT current_database()::name AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
       (CASE WHEN n.nspname LIKE 'pg\\_temp\\_%' THEN 'LOCAL TEMPORARY'
             WHEN c.relkind IN ('r', 'p') THEN 'BASE TABLE'
             WHEN c.relkind = 'v' THEN 'VIEW' END)::varchar AS table_type,
       NULL::name AS self_referencing_column_name, NULL::varchar AS reference_generation,
       NULL::name AS user_defined_type_catalog, NULL::name AS user_defined_type_schema,
       NULL::name AS user_defined_type_name,
       (CASE WHEN c.relkind IN ('r', 'p') OR (c.relkind = 'v' AND (pg_relation_is_updatable(c.oid, false) & 8) = 8)
             THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_insertable_into,
       'NO'::varchar(3) AS is_typed,
       (CASE WHEN n.nspname LIKE 'pg\\_temp\\_%' THEN 'PRESERVE' END)::varchar AS commit_action
  FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p', 'v')";

const COLUMNS: &str = "
SELECT current_database()::name AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
       a.attname AS column_name, a.attnum::int AS ordinal_position,
       (CASE WHEN a.attgenerated = '' THEN pg_get_expr(ad.adbin, ad.adrelid) END)::varchar AS column_default,
       (CASE WHEN a.attnotnull THEN 'NO' ELSE 'YES' END)::varchar(3) AS is_nullable,
       (CASE WHEN t.typcategory = 'A' THEN 'ARRAY'
             WHEN a.atttypid = 1042 THEN 'character'
             WHEN t.typnamespace <> 11 THEN 'USER-DEFINED'
             ELSE format_type(a.atttypid, NULL) END)::varchar AS data_type,
       CASE WHEN a.atttypid IN (1042, 1043) AND a.atttypmod > 0 THEN a.atttypmod - 4
            WHEN a.atttypid IN (1560, 1562) AND a.atttypmod > 0 THEN a.atttypmod END AS character_maximum_length,
       CASE WHEN a.atttypid IN (25, 1042, 1043)
            THEN CASE WHEN a.atttypmod > 0 THEN (a.atttypmod - 4) * 4 ELSE 1073741824 END END AS character_octet_length,
       CASE a.atttypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64 WHEN 700 THEN 24 WHEN 701 THEN 53
            WHEN 1700 THEN CASE WHEN a.atttypmod > 0 THEN (a.atttypmod - 4) / 65536 END END AS numeric_precision,
       CASE WHEN a.atttypid IN (21, 23, 20, 700, 701) THEN 2 WHEN a.atttypid = 1700 THEN 10 END AS numeric_precision_radix,
       CASE WHEN a.atttypid IN (21, 23, 20) THEN 0
            WHEN a.atttypid = 1700 AND a.atttypmod > 0 THEN (a.atttypmod - 4) % 65536 END AS numeric_scale,
       CASE WHEN a.atttypid = 1082 THEN 0
            WHEN a.atttypid IN (1083, 1114, 1184, 1266)
            THEN CASE WHEN a.atttypmod < 0 THEN 6 ELSE a.atttypmod END
            WHEN a.atttypid = 1186
            THEN CASE WHEN a.atttypmod < 0 OR a.atttypmod & 65535 = 65535 THEN 6
                      ELSE a.atttypmod & 65535 END END AS datetime_precision,
       NULL::varchar AS interval_type, NULL::int AS interval_precision,
       NULL::name AS character_set_catalog, NULL::name AS character_set_schema, NULL::name AS character_set_name,
       NULL::name AS collation_catalog, NULL::name AS collation_schema, NULL::name AS collation_name,
       NULL::name AS domain_catalog, NULL::name AS domain_schema, NULL::name AS domain_name,
       current_database()::name AS udt_catalog,
       (CASE WHEN t.typnamespace = 2200 THEN 'public' ELSE 'pg_catalog' END)::name AS udt_schema,
       t.typname AS udt_name,
       NULL::name AS scope_catalog, NULL::name AS scope_schema, NULL::name AS scope_name,
       NULL::int AS maximum_cardinality, a.attnum::text::name AS dtd_identifier,
       'NO'::varchar(3) AS is_self_referencing,
       (CASE WHEN a.attidentity IN ('a', 'd') THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_identity,
       (CASE a.attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END)::varchar AS identity_generation,
       NULL::varchar AS identity_start, NULL::varchar AS identity_increment,
       NULL::varchar AS identity_maximum, NULL::varchar AS identity_minimum,
       'NO'::varchar(3) AS identity_cycle,
       (CASE WHEN a.attgenerated <> '' THEN 'ALWAYS' ELSE 'NEVER' END)::varchar AS is_generated,
       (CASE WHEN a.attgenerated <> '' THEN pg_get_expr(ad.adbin, ad.adrelid) END)::varchar AS generation_expression,
       (CASE WHEN c.relkind IN ('r', 'p') OR (c.relkind = 'v' AND pg_column_is_updatable(c.oid, a.attnum, false))
             THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_updatable
  FROM pg_catalog.pg_attribute a
       LEFT JOIN pg_catalog.pg_attrdef ad ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
       JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
       JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid
       JOIN pg_catalog.pg_type t ON a.atttypid = t.oid
 WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v')";

const TABLE_CONSTRAINTS: &str = "
SELECT current_database()::name AS constraint_catalog, nc.nspname AS constraint_schema,
       c.conname AS constraint_name, current_database()::name AS table_catalog,
       nr.nspname AS table_schema, r.relname AS table_name,
       (CASE c.contype WHEN 'c' THEN 'CHECK' WHEN 'f' THEN 'FOREIGN KEY'
                       WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' THEN 'UNIQUE' END)::varchar AS constraint_type,
       (CASE WHEN c.condeferrable THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_deferrable,
       (CASE WHEN c.condeferred THEN 'YES' ELSE 'NO' END)::varchar(3) AS initially_deferred,
       'YES'::varchar(3) AS enforced,
       (CASE WHEN c.contype = 'u' THEN 'YES' END)::varchar(3) AS nulls_distinct
  FROM pg_catalog.pg_constraint c
       JOIN pg_catalog.pg_namespace nc ON c.connamespace = nc.oid
       JOIN pg_catalog.pg_class r ON c.conrelid = r.oid
       JOIN pg_catalog.pg_namespace nr ON r.relnamespace = nr.oid
UNION ALL
SELECT current_database()::name, nr.nspname,
       (nr.oid::text || '_' || r.oid::text || '_' || a.attnum::text || '_not_null')::name,
       current_database()::name, nr.nspname, r.relname, 'CHECK'::varchar,
       'NO'::varchar(3), 'NO'::varchar(3), 'YES'::varchar(3), NULL::varchar(3)
  FROM pg_catalog.pg_attribute a
       JOIN pg_catalog.pg_class r ON a.attrelid = r.oid
       JOIN pg_catalog.pg_namespace nr ON r.relnamespace = nr.oid
 WHERE a.attnotnull AND a.attnum > 0 AND NOT a.attisdropped AND r.relkind IN ('r', 'p')";

const KEY_COLUMN_USAGE: &str = "
SELECT current_database()::name AS constraint_catalog, nc.nspname AS constraint_schema,
       x.conname AS constraint_name, current_database()::name AS table_catalog,
       nr.nspname AS table_schema, r.relname AS table_name, a.attname AS column_name,
       x.pos AS ordinal_position,
       CASE WHEN x.contype = 'f' THEN x.pos END AS position_in_unique_constraint
  FROM (SELECT c.conname, c.contype, c.connamespace, c.conrelid, c.conkey,
               generate_subscripts(c.conkey, 1) AS pos
          FROM pg_catalog.pg_constraint c WHERE c.contype IN ('p', 'u', 'f')) x
       JOIN pg_catalog.pg_attribute a ON a.attrelid = x.conrelid AND a.attnum = x.conkey[x.pos]
       JOIN pg_catalog.pg_class r ON r.oid = x.conrelid
       JOIN pg_catalog.pg_namespace nr ON nr.oid = r.relnamespace
       JOIN pg_catalog.pg_namespace nc ON nc.oid = x.connamespace";

const REFERENTIAL_CONSTRAINTS: &str = "
SELECT current_database()::name AS constraint_catalog, ncon.nspname AS constraint_schema,
       con.conname AS constraint_name,
       current_database()::name AS unique_constraint_catalog,
       npkc.nspname AS unique_constraint_schema, pkc.conname AS unique_constraint_name,
       (CASE con.confmatchtype WHEN 'f' THEN 'FULL' WHEN 'p' THEN 'PARTIAL' ELSE 'NONE' END)::varchar AS match_option,
       (CASE con.confupdtype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
                             WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END)::varchar AS update_rule,
       (CASE con.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
                             WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END)::varchar AS delete_rule
  FROM pg_catalog.pg_constraint con
       JOIN pg_catalog.pg_namespace ncon ON con.connamespace = ncon.oid
       LEFT JOIN pg_catalog.pg_constraint pkc
              ON pkc.conindid = con.conindid AND pkc.conrelid = con.confrelid AND pkc.contype IN ('p', 'u')
       LEFT JOIN pg_catalog.pg_namespace npkc ON pkc.connamespace = npkc.oid
 WHERE con.contype = 'f'";

const CONSTRAINT_COLUMN_USAGE: &str = "
SELECT current_database()::name AS table_catalog, nr.nspname AS table_schema, r.relname AS table_name,
       a.attname AS column_name, current_database()::name AS constraint_catalog,
       nc.nspname AS constraint_schema, x.conname AS constraint_name
  FROM (SELECT c.conname, c.connamespace,
               CASE WHEN c.contype = 'f' THEN c.confrelid ELSE c.conrelid END AS relid,
               unnest(CASE WHEN c.contype = 'f' THEN c.confkey ELSE c.conkey END) AS attnum
          FROM pg_catalog.pg_constraint c
         WHERE c.contype IN ('p', 'u', 'f') ) x
       JOIN pg_catalog.pg_class r ON r.oid = x.relid
       JOIN pg_catalog.pg_namespace nr ON nr.oid = r.relnamespace
       JOIN pg_catalog.pg_attribute a ON a.attrelid = x.relid AND a.attnum = x.attnum
       JOIN pg_catalog.pg_namespace nc ON nc.oid = x.connamespace";

const VIEWS: &str = "
SELECT current_database()::name AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
       pg_get_viewdef(c.oid)::varchar AS view_definition,
       (CASE WHEN 'check_option=cascaded' = ANY (c.reloptions) THEN 'CASCADED'
             WHEN 'check_option=local' = ANY (c.reloptions) THEN 'LOCAL'
             ELSE 'NONE' END)::varchar AS check_option,
       (CASE WHEN (pg_relation_is_updatable(c.oid, false) & 20) = 20 THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_updatable,
       (CASE WHEN (pg_relation_is_updatable(c.oid, false) & 8) = 8 THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_insertable_into,
       (CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = c.oid AND tgtype & 81 = 81)
             THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_trigger_updatable,
       (CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = c.oid AND tgtype & 73 = 73)
             THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_trigger_deletable,
       (CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = c.oid AND tgtype & 69 = 69)
             THEN 'YES' ELSE 'NO' END)::varchar(3) AS is_trigger_insertable_into
  FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON n.oid = c.relnamespace
 WHERE c.relkind = 'v' AND n.nspname NOT IN ('pg_catalog', 'information_schema')";

const SEQUENCES: &str = "
SELECT current_database()::name AS sequence_catalog, n.nspname AS sequence_schema,
       c.relname AS sequence_name, format_type(s.seqtypid, NULL)::varchar AS data_type,
       CASE s.seqtypid WHEN 21 THEN 16 WHEN 23 THEN 32 ELSE 64 END AS numeric_precision,
       2 AS numeric_precision_radix, 0 AS numeric_scale,
       s.seqstart::varchar AS start_value, s.seqmin::varchar AS minimum_value,
       s.seqmax::varchar AS maximum_value, s.seqincrement::varchar AS increment,
       (CASE WHEN s.seqcycle THEN 'YES' ELSE 'NO' END)::varchar(3) AS cycle_option
  FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON n.oid = c.relnamespace
       JOIN pg_catalog.pg_sequence s ON c.oid = s.seqrelid
 WHERE c.relkind = 'S'";

// One row per trigger and event (TRUNCATE left out, as in PostgreSQL);
// action_order ranks by name within schema, table, event, level and
// timing.
const TRIGGERS: &str = "
SELECT current_database()::name AS trigger_catalog, n.nspname AS trigger_schema,
       t.tgname AS trigger_name, em.text::varchar AS event_manipulation,
       current_database()::name AS event_object_catalog, n.nspname AS event_object_schema,
       c.relname AS event_object_table,
       rank() OVER (PARTITION BY n.nspname, c.relname, em.num, t.tgtype & 1, t.tgtype & 66
                    ORDER BY t.tgname)::int AS action_order,
       (regexp_match(pg_get_triggerdef(t.oid), E'.{35,} WHEN \\\\((.+)\\\\) EXECUTE FUNCTION'))[1]::varchar
         AS action_condition,
       substring(pg_get_triggerdef(t.oid) from
                 position('EXECUTE FUNCTION' in substring(pg_get_triggerdef(t.oid) from 48)) + 47)::varchar
         AS action_statement,
       (CASE t.tgtype & 1 WHEN 1 THEN 'ROW' ELSE 'STATEMENT' END)::varchar AS action_orientation,
       (CASE t.tgtype & 66 WHEN 2 THEN 'BEFORE' WHEN 64 THEN 'INSTEAD OF' ELSE 'AFTER' END)::varchar
         AS action_timing,
       t.tgoldtable AS action_reference_old_table, t.tgnewtable AS action_reference_new_table,
       NULL::name AS action_reference_old_row, NULL::name AS action_reference_new_row,
       NULL::timestamptz AS created
  FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c, pg_catalog.pg_trigger t,
       (VALUES (4, 'INSERT'), (8, 'DELETE'), (16, 'UPDATE')) AS em (num, text)
 WHERE n.oid = c.relnamespace AND c.oid = t.tgrelid AND t.tgtype & em.num <> 0
   AND NOT t.tgisinternal";

const CHECK_CONSTRAINTS: &str = "
SELECT current_database()::name AS constraint_catalog, n.nspname AS constraint_schema,
       c.conname AS constraint_name,
       substring(pg_get_constraintdef(c.oid) from 7)::varchar AS check_clause
  FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_namespace n ON c.connamespace = n.oid
 WHERE c.contype = 'c'
UNION ALL
SELECT current_database()::name, n.nspname,
       (n.oid::text || '_' || r.oid::text || '_' || a.attnum::text || '_not_null')::name,
       (a.attname || ' IS NOT NULL')::varchar
  FROM pg_catalog.pg_attribute a
       JOIN pg_catalog.pg_class r ON a.attrelid = r.oid
       JOIN pg_catalog.pg_namespace n ON r.relnamespace = n.oid
 WHERE a.attnotnull AND a.attnum > 0 AND NOT a.attisdropped AND r.relkind IN ('r', 'p')";

/// The SQL defining view `name`, if it is one of [`NAMES`].
pub fn view_sql(name: &str) -> Option<&'static str> {
    Some(match name {
        "schemata" => SCHEMATA,
        "tables" => TABLES,
        "columns" => COLUMNS,
        "table_constraints" => TABLE_CONSTRAINTS,
        "key_column_usage" => KEY_COLUMN_USAGE,
        "referential_constraints" => REFERENTIAL_CONSTRAINTS,
        "constraint_column_usage" => CONSTRAINT_COLUMN_USAGE,
        "views" => VIEWS,
        "sequences" => SEQUENCES,
        "check_constraints" => CHECK_CONSTRAINTS,
        "triggers" => TRIGGERS,
        _ => return None,
    })
}

/// The parsed SELECT of view `name`.
pub(crate) fn view_select(
    name: &str,
) -> Result<Option<Box<nestor_parser::pb::SelectStmt>>, DbError> {
    let Some(sql) = view_sql(name) else {
        return Ok(None);
    };
    let stmts = nestor_parser::parse_sql(sql)?;
    let node = stmts
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|n| n.node)
        .ok_or_else(|| DbError::internal("empty information_schema view"))?;
    match node {
        NodeEnum::SelectStmt(s) => Ok(Some(s)),
        _ => Err(DbError::internal("information_schema view is not a SELECT")),
    }
}
