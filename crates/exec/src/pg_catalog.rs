//! Rows of the pg_catalog relations (their names and columns are the
//! planner's, `nestor_plan::pg_catalog`) and the catalog functions tools
//! call (`pg_get_indexdef`, `pg_get_constraintdef`, `format_type`...).
//!
//! Everything is computed from the statement's catalog handle when the
//! relation is scanned: a session sees its own uncommitted DDL, other
//! sessions the committed catalog, as with PostgreSQL's MVCC catalogs.
//! Rows are built by column name ([`RowB`]): a column not set gets its
//! type's neutral value (0, false, NULL), so a relation keeps PostgreSQL's
//! column order without every builder listing every column.
//!
//! ## Object identifiers
//! Tables, indexes, sequences, functions and triggers have the OIDs the
//! catalog gave them. The rest follow PostgreSQL where it has fixed ones:
//!
//! ```text
//!   namespaces  pg_catalog 11, public 2200, information_schema 13000,
//!               pg_toast 99, a session's pg_temp_N 0xF000_0000 + N
//!   roles       postgres 10 (the one login role), pg_database_owner 6171
//!   catalogs    pg_class 1259, pg_type 1247, ... (Rel::oid)
//!   types       PostgreSQL's type OIDs (DataType::oid)
//!   constraints a PRIMARY KEY / UNIQUE constraint has its index's OID;
//!               CHECK constraints CHECK_OID_BASE + their ordinal among all
//!               tables' checks in OID order (stable while the tables are)
//!   defaults    pg_attrdef rows ATTRDEF_OID_BASE + ordinal, likewise
//! ```
//!
//! Left out: the row types of tables (pg_class.reltype is 0), system
//! columns in pg_attribute (ctid, xmin...), ACLs (all NULL: one superuser),
//! statistics; comments (COMMENT ON is not supported, pg_description is
//! empty).

use std::sync::Arc;

use nestor_catalog::{
    AccessMethod, Catalog, FunctionDef, IndexDef, IndexKey, Persistence, Returns, TableDef,
    TriggerTiming, PG_CATALOG_NAMESPACE_OID, PUBLIC_NAMESPACE_OID,
};
use nestor_common::{DbError, RelId, SqlState};
use nestor_plan::functions::CatalogFn;
use nestor_plan::pg_catalog::{
    self as spec, Rel, INFORMATION_SCHEMA_NAMESPACE_OID, PSEUDO_TYPES, TOAST_NAMESPACE_OID,
};
use nestor_types::array::Array;
use nestor_types::datatype::{DataType, RegKind};
use nestor_types::Value;

use crate::context::Ev;

type Rows = Vec<Vec<Value>>;

/// A session's temporary namespace is `pg_temp_<session>` with this OID
/// plus the session number.
pub const TEMP_NAMESPACE_OID_BASE: u32 = 0xF000_0000;
pub const SUPERUSER_OID: u32 = 10;
pub const DATABASE_OWNER_ROLE_OID: u32 = 6171;
pub const CHECK_OID_BASE: u32 = 0xE000_0000;
pub const ATTRDEF_OID_BASE: u32 = 0xD000_0000;
/// pg_default_acl rows: their ordinal in key order plus this.
pub const DEFAULT_ACL_OID_BASE: u32 = 0xC000_0000;
const HEAP_AM_OID: u32 = 2;
const BTREE_AM_OID: u32 = 403;
const HASH_AM_OID: u32 = 405;
const GIN_AM_OID: u32 = 2742;
const DEFAULT_COLLATION_OID: u32 = 100;
/// The OID of the `postgres` database (each session's own:
/// `Catalog::database_oid`).
pub const DATABASE_OID: u32 = 5;
const PLPGSQL_LANGUAGE_OID: u32 = 13010;
const INTERNAL_LANGUAGE_OID: u32 = 12;
const PLPGSQL_EXTENSION_OID: u32 = 13009;

fn text(s: impl AsRef<str>) -> Value {
    Value::Text(Arc::from(s.as_ref()))
}

fn oid(o: u32) -> Value {
    Value::Int8(i64::from(o))
}

/// pg_aggregate: the CREATE AGGREGATE aggregates (the built-in ones have
/// no pg_proc rows). A step that is a user function shows its OID; a
/// built-in one, which has no pg_proc row, shows 0 ('-').
fn aggregate_rows(c: &Catalog) -> Rows {
    let fn_oid = |name: Option<&str>, nargs: usize| -> u32 {
        let Some(name) = name else { return 0 };
        c.functions(name)
            .iter()
            .find(|f| f.input_types().len() == nargs)
            .map_or(0, |f| f.oid.0)
    };
    c.all_functions()
        .iter()
        .filter_map(|f| Some((f, f.aggregate.as_ref()?)))
        .map(|(f, a)| {
            let nargs = f.input_types().len();
            let final_args = if a.finalfunc_extra { 1 + nargs } else { 1 };
            RowB::new(Rel::Aggregate)
                .set("aggfnoid", oid(f.oid.0))
                .set("aggkind", text("n"))
                .set("aggnumdirectargs", Value::Int2(0))
                .set("aggtransfn", oid(fn_oid(Some(&a.sfunc), 1 + nargs)))
                .set(
                    "aggfinalfn",
                    oid(fn_oid(a.finalfunc.as_deref(), final_args)),
                )
                .set("aggcombinefn", oid(fn_oid(a.combinefunc.as_deref(), 2)))
                .set("aggserialfn", oid(0))
                .set("aggdeserialfn", oid(0))
                .set("aggmtransfn", oid(0))
                .set("aggminvtransfn", oid(0))
                .set("aggmfinalfn", oid(0))
                .set("aggfinalextra", Value::Bool(a.finalfunc_extra))
                .set("aggmfinalextra", Value::Bool(false))
                .set("aggfinalmodify", text("r"))
                .set("aggmfinalmodify", text("r"))
                .set("aggsortop", oid(0))
                .set("aggtranstype", oid(a.stype.oid()))
                .set("aggtransspace", Value::Int4(0))
                .set("aggmtranstype", oid(0))
                .set("aggmtransspace", Value::Int4(0))
                .set(
                    "agginitval",
                    a.initcond.as_deref().map_or(Value::Null, text),
                )
                .done()
        })
        .collect()
}

/// One row of a catalog relation, filled by column name.
struct RowB {
    cols: Vec<(&'static str, DataType)>,
    vals: Vec<Value>,
}

impl RowB {
    fn new(rel: Rel) -> RowB {
        let cols = spec::columns(rel);
        let vals = cols.iter().map(|(_, t)| neutral(*t)).collect();
        RowB { cols, vals }
    }

    fn set(&mut self, name: &str, v: Value) -> &mut RowB {
        let i = self
            .cols
            .iter()
            .position(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("catalog column {name} does not exist"));
        self.vals[i] = v;
        self
    }

    fn done(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.vals)
    }
}

/// The value a column holds unless a builder sets it.
fn neutral(t: DataType) -> Value {
    match t {
        DataType::Oid | DataType::Int8 | DataType::Reg(_) => Value::Int8(0),
        DataType::Int4 => Value::Int4(0),
        DataType::Int2 => Value::Int2(0),
        DataType::Float4 => Value::Float4(0.0),
        DataType::Bool => Value::Bool(false),
        _ => Value::Null,
    }
}

/// The namespace a table lives in.
fn table_namespace(t: &TableDef, catalog: &Catalog) -> u32 {
    temp_or(
        t.persistence == Persistence::Temporary,
        t.namespace,
        catalog,
    )
}

/// The name of the schema a table lives in (its schema, or the session's
/// `pg_temp_N`).
pub(crate) fn table_schema_name(t: &TableDef, catalog: &Catalog) -> String {
    namespace_name(catalog, table_namespace(t, catalog))
}

/// The session's pg_temp_N for a TEMP object, else its schema `ns`.
/// pg_get_ruledef's text of a rule on relation `rel` (its name as the
/// output should show it), in PostgreSQL's layout.
fn rule_definition(rel: &str, r: &nestor_catalog::RuleDef) -> String {
    let mut out = format!(
        "CREATE RULE {} AS\n    ON {} TO {rel}",
        quote_ident(&r.name),
        r.event.name()
    );
    if let Some(q) = &r.qual {
        out.push_str(&format!("\n  WHERE {q}"));
    }
    out.push_str(" DO ");
    if r.instead {
        out.push_str("INSTEAD ");
    }
    match r.actions.as_slice() {
        [] => out.push_str("NOTHING;"),
        [one] => out.push_str(&format!(" {one};")),
        many => {
            out.push('(');
            for a in many {
                out.push_str(&format!(" {a};\n"));
            }
            out.push_str(");");
        }
    }
    out
}

/// The relation a rule is on.
struct RuleOwner {
    oid: RelId,
    name: String,
    namespace: u32,
    temporary: bool,
}

/// Every rule (other than the `_RETURN` rules of views), with its relation.
fn all_rules(c: &Catalog) -> Vec<(RuleOwner, nestor_catalog::RuleDef)> {
    let mut out = Vec::new();
    for t in c.tables() {
        for r in &t.rules {
            let owner = RuleOwner {
                oid: t.oid,
                name: t.name.clone(),
                namespace: t.namespace,
                temporary: t.persistence == Persistence::Temporary,
            };
            out.push((owner, r.clone()));
        }
    }
    for v in c.views() {
        for r in &v.rules {
            let owner = RuleOwner {
                oid: v.oid,
                name: v.name.clone(),
                namespace: v.namespace,
                temporary: v.temporary,
            };
            out.push((owner, r.clone()));
        }
    }
    out
}

fn temp_or(temporary: bool, ns: u32, catalog: &Catalog) -> u32 {
    match (temporary, catalog.plan_scope()) {
        (true, Some(s)) => TEMP_NAMESPACE_OID_BASE + s.0,
        (true, None) => PUBLIC_NAMESPACE_OID,
        (false, _) => ns,
    }
}

/// The rows of `rel` now.
pub fn rows(rel: Rel, ev: &mut Ev) -> Rows {
    let c = ev.ctx.catalog;
    match rel {
        Rel::Class => class_rows(c),
        Rel::Attribute => attribute_rows(c),
        Rel::Type => {
            let mut rows = type_rows();
            rows.extend(enum_type_rows(c));
            rows.extend(domain_type_rows(c));
            rows.extend(composite_type_rows(c));
            rows
        }
        Rel::Enum => enum_rows(c),
        Rel::Cast => cast_rows(c),
        Rel::Namespace => namespace_rows(c),
        Rel::Index => index_rows(c),
        Rel::Constraint => {
            let mut rows = constraint_rows(c);
            rows.extend(domain_constraint_rows(c));
            rows
        }
        Rel::Attrdef => attrdef_rows(c),
        Rel::Am => [
            (HEAP_AM_OID, "heap", "t"),
            (BTREE_AM_OID, "btree", "i"),
            (HASH_AM_OID, "hash", "i"),
            (GIN_AM_OID, "gin", "i"),
        ]
        .into_iter()
            .map(|(o, name, kind)| {
                RowB::new(Rel::Am)
                    .set("oid", oid(o))
                    .set("amname", text(name))
                    .set("amtype", text(kind))
                    .done()
            })
            .collect(),
        Rel::Roles | Rel::Authid | Rel::User => role_rows(c, rel),
        Rel::AuthMembers => auth_member_rows(c),
        Rel::Database => c
            .databases()
            .iter()
            .map(|d| {
                RowB::new(Rel::Database)
                    .set("oid", oid(d.oid.0))
                    .set("datname", text(&d.name))
                    .set("datdba", oid(d.owner.0))
                    .set("encoding", Value::Int4(6))
                    .set("datlocprovider", text("c"))
                    .set("datistemplate", Value::Bool(d.is_template))
                    .set("datallowconn", Value::Bool(d.allow_conn))
                    .set("datconnlimit", Value::Int4(d.conn_limit))
                    .set("dattablespace", oid(1663))
                    .set("datcollate", text("C"))
                    .set("datctype", text("C"))
                    .done()
            })
            .collect(),
        Rel::Trigger => trigger_rows(c),
        Rel::Collation => [
            (DEFAULT_COLLATION_OID, "default", "d", None),
            (950, "C", "c", Some("C")),
            (951, "POSIX", "c", Some("POSIX")),
        ]
        .into_iter()
        .map(|(o, name, provider, locale)| {
            RowB::new(Rel::Collation)
                .set("oid", oid(o))
                .set("collname", text(name))
                .set("collnamespace", oid(PG_CATALOG_NAMESPACE_OID))
                .set("collowner", oid(SUPERUSER_OID))
                .set("collprovider", text(provider))
                .set("collisdeterministic", Value::Bool(true))
                .set("collencoding", Value::Int4(-1))
                .set("collcollate", locale.map_or(Value::Null, text))
                .set("collctype", locale.map_or(Value::Null, text))
                .done()
        })
        .collect(),
        Rel::Sequence => c
            .sequences()
            .iter()
            .map(|s| {
                RowB::new(Rel::Sequence)
                    .set("seqrelid", oid(s.oid.0))
                    .set("seqtypid", oid(sequence_type(c, s).oid()))
                    .set("seqstart", Value::Int8(s.start))
                    .set("seqincrement", Value::Int8(s.increment))
                    .set("seqmax", Value::Int8(s.max))
                    .set("seqmin", Value::Int8(s.min))
                    .set("seqcache", Value::Int8(s.cache))
                    .set("seqcycle", Value::Bool(s.cycle))
                    .done()
            })
            .collect(),
        Rel::Depend => depend_rows(c),
        Rel::Matviews => c
            .tables()
            .iter()
            .filter_map(|t| Some((t, t.matview.as_ref()?)))
            .map(|(t, m)| {
                RowB::new(Rel::Matviews)
                    .set("schemaname", text(table_schema_name(t, c)))
                    .set("matviewname", text(&t.name))
                    .set(
                        "matviewowner",
                        text(role_name(
                            c,
                            c.acl(nestor_catalog::acl::ObjKind::Table, t.oid.0).owner.0,
                        )),
                    )
                    .set("hasindexes", Value::Bool(!t.indexes.is_empty()))
                    .set("ispopulated", Value::Bool(m.populated))
                    .set(
                        "definition",
                        text(view_def(c, &ev.ctx.eval, &m.query, &matview_columns(t), PLAIN_LAYOUT)),
                    )
                    .done()
            })
            .collect(),
        Rel::Views => c
            .views()
            .iter()
            .map(|v| {
                RowB::new(Rel::Views)
                    .set(
                        "schemaname",
                        text(namespace_name(c, temp_or(v.temporary, v.namespace, c))),
                    )
                    .set("viewname", text(&v.name))
                    .set(
                        "viewowner",
                        text(role_name(
                            c,
                            c.acl(nestor_catalog::acl::ObjKind::Table, v.oid.0).owner.0,
                        )),
                    )
                    .set(
                        "definition",
                        text(view_def(c, &ev.ctx.eval, &v.query, &v.columns, PLAIN_LAYOUT)),
                    )
                    .done()
            })
            .collect(),
        Rel::Rewrite => c
            .views()
            .iter()
            .map(|v| (v.rule_oid, v.oid))
            .chain(
                c.tables()
                    .iter()
                    .filter_map(|t| Some((t.matview.as_ref()?.rule_oid, t.oid))),
            )
            .map(|(rule, rel)| {
                RowB::new(Rel::Rewrite)
                    .set("oid", oid(rule.0))
                    .set("rulename", text("_RETURN"))
                    .set("ev_class", oid(rel.0))
                    .set("ev_type", text("1"))
                    .set("ev_enabled", text("O"))
                    .set("is_instead", Value::Bool(true))
                    .done()
            })
            .chain(all_rules(c).into_iter().map(|(rel, r)| {
                RowB::new(Rel::Rewrite)
                    .set("oid", oid(r.oid.0))
                    .set("rulename", text(&r.name))
                    .set("ev_class", oid(rel.oid.0))
                    .set("ev_type", text((r.event.code() as char).to_string()))
                    .set("ev_enabled", text("O"))
                    .set("is_instead", Value::Bool(r.instead))
                    .done()
            }))
            .collect(),
        Rel::Rules => all_rules(c)
            .into_iter()
            .map(|(rel, r)| {
                let schema = namespace_name(c, temp_or(rel.temporary, rel.namespace, c));
                let qualified = format!("{}.{}", quote_ident(&schema), quote_ident(&rel.name));
                RowB::new(Rel::Rules)
                    .set("schemaname", text(&schema))
                    .set("tablename", text(&rel.name))
                    .set("rulename", text(&r.name))
                    .set(
                        "definition",
                        text(rule_definition(&qualified, &r)),
                    )
                    .done()
            })
            .collect(),
        Rel::Extension => std::iter::once((
            "plpgsql".to_string(),
            PLPGSQL_EXTENSION_OID,
            PG_CATALOG_NAMESPACE_OID,
            "1.0".to_string(),
        ))
        .chain(c.extensions().into_iter().map(|(name, e)| {
            (name, e.oid.0, nestor_catalog::PUBLIC_NAMESPACE_OID, e.version)
        }))
        .map(|(name, o, ns, version)| {
            RowB::new(Rel::Extension)
                .set("oid", oid(o))
                .set("extname", text(&name))
                .set("extowner", oid(SUPERUSER_OID))
                .set("extnamespace", oid(ns))
                .set("extversion", text(&version))
                .done()
        })
        .collect(),
        Rel::Tablespace => [(1663, "pg_default"), (1664, "pg_global")]
            .into_iter()
            .map(|(o, name)| {
                RowB::new(Rel::Tablespace)
                    .set("oid", oid(o))
                    .set("spcname", text(name))
                    .set("spcowner", oid(SUPERUSER_OID))
                    .done()
            })
            .collect(),
        Rel::Proc => nestor_types::io_functions::IO_FUNCTIONS
            .iter()
            .map(io_proc_row)
            .chain(c.all_functions().iter().map(|f| proc_row(c, f)))
            .collect(),
        Rel::Language => [
            (INTERNAL_LANGUAGE_OID, "internal", false),
            (13, "c", false),
            (14, "sql", true),
            (PLPGSQL_LANGUAGE_OID, "plpgsql", true),
        ]
        .into_iter()
        .map(|(o, name, pl)| {
            RowB::new(Rel::Language)
                .set("oid", oid(o))
                .set("lanname", text(name))
                .set("lanowner", oid(SUPERUSER_OID))
                .set("lanispl", Value::Bool(o == PLPGSQL_LANGUAGE_OID))
                .set("lanpltrusted", Value::Bool(pl))
                .done()
        })
        .collect(),
        Rel::Opclass => {
            let mut rows = opclass_rows();
            rows.extend(hash_opclass_rows());
            rows.extend(user_opclass_rows(c));
            rows
        }
        Rel::Opfamily => opfamily_rows(c),
        Rel::Amop => amop_rows(c),
        Rel::Amproc => amproc_rows(c),
        Rel::Indexes => c
            .tables()
            .iter()
            .flat_map(|t| {
                t.indexes.iter().map(|i| {
                    RowB::new(Rel::Indexes)
                        .set("schemaname", text(table_schema_name(t, c)))
                        .set("tablename", text(&t.name))
                        .set("indexname", text(&i.name))
                        .set("indexdef", text(index_def(c, t, i)))
                        .done()
                })
            })
            .collect(),
        Rel::Tables => c
            .tables()
            .iter()
            .filter(|t| t.matview.is_none())
            .map(|t| {
                RowB::new(Rel::Tables)
                    .set("schemaname", text(table_schema_name(t, c)))
                    .set("tablename", text(&t.name))
                    .set(
                        "tableowner",
                        text(role_name(
                            c,
                            c.acl(nestor_catalog::acl::ObjKind::Table, t.oid.0).owner.0,
                        )),
                    )
                    .set("hasindexes", Value::Bool(!t.indexes.is_empty()))
                    .set("hastriggers", Value::Bool(!t.triggers.is_empty()))
                    .set("rowsecurity", Value::Bool(t.row_security.enabled))
                    .done()
            })
            .collect(),
        Rel::Policy => policy_rows(c, Rel::Policy),
        Rel::Policies => policy_rows(c, Rel::Policies),
        Rel::Settings => ev
            .ctx
            .settings
            .all()
            .into_iter()
            .map(|r| {
                RowB::new(Rel::Settings)
                    .set("name", text(r.name))
                    .set("setting", text(r.value))
                    .set("short_desc", text(r.desc))
                    .set("context", text(r.context))
                    .set("vartype", text(r.vartype))
                    .set("source", text("default"))
                    .set("pending_restart", Value::Bool(false))
                    .done()
            })
            .collect(),
        Rel::Description => descriptions(c)
            .into_iter()
            .map(|(o, class, sub, d)| {
                RowB::new(Rel::Description)
                    .set("objoid", oid(o))
                    .set("classoid", oid(class))
                    .set("objsubid", Value::Int4(sub))
                    .set("description", text(&d))
                    .done()
            })
            .collect(),
        // Features Nestor does not have: the relations exist, empty.
        Rel::Inherits => {
            let row = |child: u32, parent: u32, seq: usize| {
                RowB::new(Rel::Inherits)
                    .set("inhrelid", oid(child))
                    .set("inhparent", oid(parent))
                    .set("inhseqno", Value::Int4(seq as i32))
                    .set("inhdetachpending", Value::Bool(false))
                    .done()
            };
            let tables = c.tables();
            let mut rows: Vec<_> = tables
                .iter()
                .flat_map(|t| {
                    t.inherits
                        .iter()
                        .enumerate()
                        .map(move |(i, p)| row(t.oid.0, p.0, i + 1))
                })
                .collect();
            // A partition's indexes are partitions of its parent's.
            for (child, parent) in index_partitions(c, &tables) {
                rows.push(row(child, parent, 1));
            }
            rows
        }
        Rel::PartitionedTable => partitioned_rows(c),
        Rel::Aggregate => aggregate_rows(c),
        Rel::Range => range_rows(),
        Rel::TsParser | Rel::TsTemplate | Rel::TsDict | Rel::TsConfig | Rel::TsConfigMap => {
            text_search_rows(rel)
        }
        Rel::Shdescription
        | Rel::StatisticExt
        | Rel::Publication
        | Rel::PublicationRel
        | Rel::PublicationNamespace
        | Rel::ForeignTable
        | Rel::EventTrigger
        | Rel::Operator
        | Rel::InitPrivs
        | Rel::Transform
        | Rel::Conversion
        | Rel::ForeignDataWrapper
        | Rel::ForeignServer
        | Rel::UserMapping
        | Rel::LargeobjectMetadata
        | Rel::Seclabel
        | Rel::Shseclabel
        | Rel::Subscription
        | Rel::PreparedXacts
        | Rel::Seclabels
        // GRANT ... ON PARAMETER is not supported: no parameter has an ACL.
        | Rel::ParameterAcl => Vec::new(),
        Rel::DefaultAcl => default_acl_rows(c),
        Rel::TimezoneAbbrevs => timezone_abbrev_rows(ev.ctx.txn_start_us),
        Rel::DbRoleSetting => c
            .role_settings()
            .into_iter()
            .map(|((database, role), config)| {
                RowB::new(Rel::DbRoleSetting)
                    .set("setdatabase", oid(database))
                    .set("setrole", oid(role))
                    .set("setconfig", setconfig(&config))
                    .done()
            })
            .collect(),
    }
}

fn namespace_name(c: &Catalog, ns: u32) -> String {
    match ns {
        PG_CATALOG_NAMESPACE_OID => "pg_catalog".into(),
        PUBLIC_NAMESPACE_OID => "public".into(),
        INFORMATION_SCHEMA_NAMESPACE_OID => "information_schema".into(),
        TOAST_NAMESPACE_OID => "pg_toast".into(),
        n if n >= TEMP_NAMESPACE_OID_BASE => format!("pg_temp_{}", n - TEMP_NAMESPACE_OID_BASE),
        n => c.schema_name(n).unwrap_or_default(),
    }
}

fn namespace_rows(c: &Catalog) -> Rows {
    let mut spaces = vec![
        (TOAST_NAMESPACE_OID, SUPERUSER_OID),
        (PG_CATALOG_NAMESPACE_OID, SUPERUSER_OID),
        (PUBLIC_NAMESPACE_OID, DATABASE_OWNER_ROLE_OID),
        (INFORMATION_SCHEMA_NAMESPACE_OID, SUPERUSER_OID),
    ];
    if let Some(s) = c.plan_scope() {
        let temp = c
            .tables()
            .iter()
            .any(|t| t.persistence == Persistence::Temporary)
            || c.views().iter().any(|v| v.temporary);
        if temp {
            spaces.push((TEMP_NAMESPACE_OID_BASE + s.0, SUPERUSER_OID));
        }
    }
    let created: Vec<u32> = c.schemas().iter().map(|s| s.oid.0).collect();
    spaces.extend(created.iter().map(|&o| (o, SUPERUSER_OID)));
    spaces
        .into_iter()
        .map(|(o, owner)| {
            // public starts with PostgreSQL 15's initial owner and
            // privileges (pg_dump compares them with what it expects).
            let (owner, acl) = if o == PUBLIC_NAMESPACE_OID || created.contains(&o) {
                owner_acl(c, nestor_catalog::acl::ObjKind::Schema, o)
            } else {
                (owner, Value::Null)
            };
            RowB::new(Rel::Namespace)
                .set("oid", oid(o))
                .set("nspname", text(namespace_name(c, o)))
                .set("nspowner", oid(owner))
                .set("nspacl", acl)
                .done()
        })
        .collect()
}

/// The predefined role pg_database_owner (not stored: it has no
/// attributes and cannot be changed).
fn database_owner_role() -> nestor_catalog::RoleDef {
    nestor_catalog::RoleDef::new(
        nestor_common::RelId(DATABASE_OWNER_ROLE_OID),
        "pg_database_owner",
    )
}

/// pg_roles, pg_authid and pg_user rows from the role catalog (pg_roles
/// and pg_user mask the password as PostgreSQL's views do).
/// pg_default_acl: ALTER DEFAULT PRIVILEGES entries. Their OIDs are
/// numbered in key order from DEFAULT_ACL_OID_BASE (they have no object
/// of their own to be named by).
fn default_acl_rows(c: &Catalog) -> Rows {
    let name = |r: u32| role_name(c, r);
    c.default_acls()
        .into_iter()
        .enumerate()
        .map(|(k, ((role, schema, letter), items))| {
            let texts = items
                .iter()
                .map(|i| text(nestor_catalog::acl::item_text(i, &name)))
                .collect();
            RowB::new(Rel::DefaultAcl)
                .set("oid", oid(DEFAULT_ACL_OID_BASE + k as u32))
                .set("defaclrole", oid(role))
                .set("defaclnamespace", oid(schema))
                .set("defaclobjtype", text((letter as char).to_string()))
                .set(
                    "defaclacl",
                    Array::from_items(DataType::Text, texts).value(),
                )
                .done()
        })
        .collect()
}

/// A pg_db_role_setting entry's settings as PostgreSQL's `name=value`
/// text array (NULL when empty).
fn setconfig(config: &[(String, String)]) -> Value {
    if config.is_empty() {
        return Value::Null;
    }
    let items = config
        .iter()
        .map(|(k, v)| text(format!("{k}={v}")))
        .collect();
    Array::from_items(DataType::Text, items).value()
}

fn role_rows(c: &Catalog, rel: Rel) -> Rows {
    let mut roles: Vec<nestor_catalog::RoleDef> = c.roles().iter().map(|r| (**r).clone()).collect();
    roles.push(database_owner_role());
    roles.sort_by_key(|r| r.oid.0);
    let until = |r: &nestor_catalog::RoleDef| r.valid_until.map_or(Value::Null, Value::TimestampTz);
    roles
        .iter()
        .filter(|r| rel != Rel::User || r.login)
        .map(|r| {
            let mut row = RowB::new(rel);
            // The role's settings for every database (pg_roles.rolconfig).
            let config = setconfig(&c.role_setting((0, r.oid.0)));
            if rel == Rel::User {
                row.set("useconfig", config);
                row.set("usename", text(&r.name))
                    .set("usesysid", oid(r.oid.0))
                    .set("usecreatedb", Value::Bool(r.createdb))
                    .set("usesuper", Value::Bool(r.superuser))
                    .set("userepl", Value::Bool(r.replication))
                    .set("usebypassrls", Value::Bool(r.bypassrls))
                    .set("passwd", text("********"))
                    .set("valuntil", until(r));
                return row.done();
            }
            row.set("oid", oid(r.oid.0))
                .set("rolname", text(&r.name))
                .set("rolsuper", Value::Bool(r.superuser))
                .set("rolinherit", Value::Bool(r.inherit))
                .set("rolcreaterole", Value::Bool(r.createrole))
                .set("rolcreatedb", Value::Bool(r.createdb))
                .set("rolcanlogin", Value::Bool(r.login))
                .set("rolreplication", Value::Bool(r.replication))
                .set("rolbypassrls", Value::Bool(r.bypassrls))
                .set("rolconnlimit", Value::Int4(r.conn_limit))
                .set("rolvaliduntil", until(r));
            match rel {
                Rel::Roles => {
                    row.set("rolpassword", text("********"));
                    row.set("rolconfig", config);
                }
                _ => {
                    row.set(
                        "rolpassword",
                        r.password.as_deref().map_or(Value::Null, text),
                    );
                }
            }
            row.done()
        })
        .collect()
}

/// pg_auth_members: one row per membership.
fn auth_member_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for r in c.roles() {
        for m in &r.member_of {
            out.push(
                RowB::new(Rel::AuthMembers)
                    .set("roleid", oid(m.role.0))
                    .set("member", oid(r.oid.0))
                    .set("grantor", oid(m.grantor.0))
                    .set("admin_option", Value::Bool(m.admin))
                    .done(),
            );
        }
    }
    out
}

/// pg_class rows: tables, their indexes, sequences, and the catalog's own
/// relations.
/// The session-independent context partition bounds print in (their
/// values are constants of the key's type; timestamptz prints in UTC).
fn bound_ctx() -> nestor_types::EvalCtx {
    nestor_types::EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0)
}

/// pg_get_partkeydef: `RANGE (a, ((b + 1)), c COLLATE "C")`.
fn partkey_def(c: &Catalog, table: u32) -> Option<String> {
    use nestor_catalog::partition::KeyPart;
    let t = c.table_by_oid(nestor_common::RelId(table))?;
    let k = t.partition_key.as_ref()?;
    let parts: Vec<String> = k
        .parts
        .iter()
        .zip(&k.collations)
        .enumerate()
        .map(|(i, (p, coll))| {
            let mut s = match p {
                KeyPart::Column(i) => quote_ident(&t.columns[*i].name),
                KeyPart::Expr(e) => nestor_plan::select::partition::keydef_expr_text(&e.sql),
            };
            if let Some(coll) = coll {
                s.push_str(&format!(" COLLATE {}", quote_ident(coll)));
            }
            // A class other than the type's default follows (get_opclass_name).
            let class = k.opclasses.get(i).copied().flatten();
            if let Some(class) = class.and_then(|o| c.opclass_by_oid(o)) {
                if !class.default {
                    s.push_str(&format!(" {}", quote_ident(&class.name)));
                }
            }
            s
        })
        .collect();
    Some(format!("{} ({})", k.strategy.keyword(), parts.join(", ")))
}

/// pg_get_partition_constraintdef: a partition's constraint after its
/// ancestors' (PostgreSQL's generate_partition_qual), as ruleutils
/// prints it; NULL for a table that is no partition and for a default
/// partition (not built yet: psql then shows no constraint).
fn partition_constraint_def(c: &Catalog, table: u32) -> Option<String> {
    let t = c.table_by_oid(nestor_common::RelId(table))?;
    let mut chain = Vec::new();
    let mut cur = t;
    while let (Some(b), Some(&p)) = (cur.partition_bound.clone(), cur.inherits.first()) {
        let parent = c.table_by_oid(p)?;
        chain.push((b, parent.clone()));
        cur = parent;
    }
    let mut items = Vec::new();
    for (b, parent) in chain.iter().rev() {
        items.extend(bound_qual(parent, b)?);
    }
    match items.len() {
        0 => None,
        1 => items.pop(),
        _ => Some(format!("({})", items.join(" AND "))),
    }
}

/// A key element as a partition constraint reads it, and its type.
struct QualKey {
    text: String,
    ty: DataType,
    collation: Option<String>,
}

impl QualKey {
    /// `key op constant` as ruleutils prints the operator clause.
    fn op(&self, op: &str, v: &Value) -> String {
        let mut lit = typed_literal(v, self.ty);
        if let Some(coll) = &self.collation {
            lit.push_str(&format!(" COLLATE {}", quote_ident(coll)));
        }
        format!("({} {op} {lit})", self.op_side())
    }

    /// The key as an operand: relabelled to text when the operator class
    /// is text's (varchar) or a collation is named.
    fn op_side(&self) -> String {
        if matches!(self.ty, DataType::Varchar(_)) || self.collation.is_some() {
            format!("({})::text", self.text)
        } else {
            self.text.clone()
        }
    }
}

fn qual_keys(parent: &TableDef) -> Option<Vec<QualKey>> {
    use nestor_catalog::partition::KeyPart;
    let k = parent.partition_key.as_ref()?;
    Some(
        k.parts
            .iter()
            .enumerate()
            .map(|(i, p)| QualKey {
                text: match p {
                    KeyPart::Column(c) => quote_ident(&parent.columns[*c].name),
                    KeyPart::Expr(e) => nestor_plan::select::partition::expr_text(&e.sql),
                },
                ty: k.part_type(i, &parent.columns),
                collation: k.collations[i].clone(),
            })
            .collect(),
    )
}

/// A constant as ruleutils' get_const_expr prints it: int4 and numeric
/// with a point bare when not negative, booleans as words, everything
/// else quoted with its type.
fn typed_literal(v: &Value, ty: DataType) -> String {
    use nestor_catalog::partition::literal;
    let ec = bound_ctx();
    match v {
        Value::Null | Value::Bool(_) => literal(v, &ec),
        Value::Int4(i) if *i >= 0 => literal(v, &ec),
        Value::Numeric(_) if !literal(v, &ec).starts_with('\'') => literal(v, &ec),
        _ => {
            let shown = if matches!(ty, DataType::Varchar(_)) {
                DataType::Varchar(None)
            } else {
                ty
            };
            let ty_name = format_type(shown.oid(), None).unwrap_or_else(|| shown.to_string());
            format!("'{}'::{ty_name}", v.to_text(&ec).replace('\'', "''"))
        }
    }
}

fn and_of(mut args: Vec<String>) -> String {
    if args.len() == 1 {
        return args.pop().unwrap_or_default();
    }
    format!("({})", args.join(" AND "))
}

fn or_of(mut args: Vec<String>) -> String {
    if args.len() == 1 {
        return args.pop().unwrap_or_default();
    }
    format!("({})", args.join(" OR "))
}

/// One level's constraint items (get_qual_for_list / _range / _hash).
fn bound_qual(
    parent: &TableDef,
    bound: &nestor_catalog::partition::PartitionBound,
) -> Option<Vec<String>> {
    use nestor_catalog::partition::PartitionBound as B;
    let keys = qual_keys(parent)?;
    match bound {
        B::Default => None,
        B::Hash { modulus, remainder } => {
            let k: Vec<String> = keys.iter().map(|k| k.text.clone()).collect();
            Some(vec![format!(
                "satisfies_hash_partition('{}'::oid, {modulus}, {remainder}, {})",
                parent.oid.0,
                k.join(", ")
            )])
        }
        B::List(vals) => {
            let k = keys.first()?;
            let non_null: Vec<&Value> = vals.iter().filter(|v| !v.is_null()).collect();
            let has_null = non_null.len() < vals.len();
            if non_null.is_empty() {
                return Some(vec![format!("({} IS NULL)", k.text)]);
            }
            let eq = match non_null.as_slice() {
                [v] => k.op("=", v),
                _ => {
                    let lits: Vec<String> =
                        non_null.iter().map(|v| typed_literal(v, k.ty)).collect();
                    format!("({} = ANY (ARRAY[{}]))", k.op_side(), lits.join(", "))
                }
            };
            if has_null {
                Some(vec![format!("(({} IS NULL) OR {eq})", k.text)])
            } else {
                Some(vec![format!("({} IS NOT NULL)", k.text), eq])
            }
        }
        B::Range { from, to } => Some(range_qual(&keys, from, to)),
    }
}

/// get_qual_for_range: every key NOT NULL, equal leading datums as
/// equalities, then an OR of arms for the lower bound and one for the
/// upper.
fn range_qual(
    keys: &[QualKey],
    from: &[nestor_catalog::partition::RangeDatum],
    to: &[nestor_catalog::partition::RangeDatum],
) -> Vec<String> {
    use nestor_catalog::partition::RangeDatum as D;
    let n = keys.len();
    let mut items: Vec<String> = keys
        .iter()
        .map(|k| format!("({} IS NOT NULL)", k.text))
        .collect();
    let value = |d: Option<&D>| match d {
        Some(D::Value(v)) => Some(v.clone()),
        _ => None,
    };
    let mut i = 0;
    while i < n {
        match (value(from.get(i)), value(to.get(i))) {
            (Some(l), Some(u)) if l == u => {
                items.push(keys[i].op("=", &l));
                i += 1;
            }
            _ => break,
        }
    }
    let (mut lower_arms, mut upper_arms) = (Vec::new(), Vec::new());
    let (mut need_lower, mut need_upper) = (true, true);
    let mut arm = 0;
    // One arm per column from the first unequal one; the loop ends when
    // neither bound has a finite datum left to add.
    while i + arm < n {
        let (mut l_args, mut u_args) = (Vec::new(), Vec::new());
        let (mut next_lower, mut next_upper) = (false, false);
        for (j, key) in keys.iter().enumerate().skip(i) {
            let (ld_next, ud_next) = (from.get(j + 1), to.get(j + 1));
            if let (true, Some(l)) = (need_lower, value(from.get(j))) {
                let op = if j - i < arm {
                    "="
                } else if j == n - 1 || matches!(ld_next, Some(D::MinValue)) {
                    ">="
                } else {
                    ">"
                };
                l_args.push(key.op(op, &l));
            }
            if let (true, Some(u)) = (need_upper, value(to.get(j))) {
                let op = if j - i < arm {
                    "="
                } else if matches!(ud_next, Some(D::MaxValue)) {
                    "<="
                } else {
                    "<"
                };
                u_args.push(key.op(op, &u));
            }
            if j - i == arm {
                next_lower = need_lower && matches!(ld_next, Some(D::Value(_)));
                next_upper = need_upper && matches!(ud_next, Some(D::Value(_)));
                break;
            }
        }
        if !l_args.is_empty() {
            lower_arms.push(and_of(l_args));
        }
        if !u_args.is_empty() {
            upper_arms.push(and_of(u_args));
        }
        (need_lower, need_upper) = (next_lower, next_upper);
        if !need_lower && !need_upper {
            break;
        }
        arm += 1;
    }
    if !lower_arms.is_empty() {
        items.push(or_of(lower_arms));
    }
    if !upper_arms.is_empty() {
        items.push(or_of(upper_arms));
    }
    items
}

/// pg_partitioned_table: one row per partitioned table.
fn partitioned_rows(c: &Catalog) -> Rows {
    c.tables()
        .iter()
        .filter_map(|t| {
            let k = t.partition_key.as_ref()?;
            let types: Vec<DataType> = (0..k.parts.len())
                .map(|i| k.part_type(i, &t.columns))
                .collect();
            let attrs = k.parts.iter().map(|p| match p {
                nestor_catalog::partition::KeyPart::Column(i) => *i as i64 + 1,
                nestor_catalog::partition::KeyPart::Expr(_) => 0,
            });
            let exprs: Vec<String> = k
                .parts
                .iter()
                .filter_map(|p| match p {
                    nestor_catalog::partition::KeyPart::Expr(e) => Some(e.sql.clone()),
                    _ => None,
                })
                .collect();
            let collations = k.collations.clone();
            let default = c
                .children(t.oid)
                .iter()
                .find(|p| {
                    p.partition_bound == Some(nestor_catalog::partition::PartitionBound::Default)
                })
                .map_or(0, |p| p.oid.0);
            Some(
                RowB::new(Rel::PartitionedTable)
                    .set("partrelid", oid(t.oid.0))
                    .set("partstrat", text(k.strategy.letter().to_string()))
                    .set("partnatts", Value::Int2(k.parts.len() as i16))
                    .set("partdefid", oid(default))
                    .set("partattrs", vector(DataType::Int2, attrs))
                    .set(
                        "partexprs",
                        if exprs.is_empty() {
                            Value::Null
                        } else {
                            text(format!("({})", exprs.join(" ")))
                        },
                    )
                    .set(
                        "partclass",
                        vector(
                            DataType::Oid,
                            types.iter().enumerate().map(|(i, t)| {
                                let user = k.opclasses.get(i).copied().flatten();
                                i64::from(user.unwrap_or_else(|| opclass_of(*t)))
                            }),
                        ),
                    )
                    .set(
                        "partcollation",
                        vector(
                            DataType::Oid,
                            types
                                .iter()
                                .zip(&collations)
                                .map(|(t, coll)| match coll.as_deref() {
                                    Some(c) => i64::from(collation_oid(c)),
                                    None if t.is_string() => i64::from(DEFAULT_COLLATION_OID),
                                    None => 0,
                                }),
                        ),
                    )
                    .done(),
            )
        })
        .collect()
}

fn class_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    let tables = c.tables();
    let parents: std::collections::HashSet<u32> = tables
        .iter()
        .flat_map(|t| t.inherits.iter().map(|p| p.0))
        .collect();
    let index_links = index_partitions(c, &tables);
    let index_parents: std::collections::HashSet<u32> =
        index_links.iter().map(|&(_, p)| p).collect();
    let index_children: std::collections::HashSet<u32> =
        index_links.iter().map(|&(i, _)| i).collect();
    for t in tables {
        let ns = table_namespace(&t, c);
        let checks = t.checks.len() as i16;
        out.push(
            with_owner(
                class_row(
                    t.oid.0,
                    &t.name,
                    ns,
                    if t.matview.is_some() {
                        "m"
                    } else if t.partition_key.is_some() {
                        "p"
                    } else {
                        "r"
                    },
                    t.persistence.code(),
                    if t.partition_key.is_some() {
                        0
                    } else {
                        HEAP_AM_OID
                    },
                ),
                c,
                nestor_catalog::acl::ObjKind::Table,
                t.oid.0,
            )
            .set("relhasindex", Value::Bool(!t.indexes.is_empty()))
            .set("relhasrules", Value::Bool(!t.rules.is_empty()))
            .set("relrowsecurity", Value::Bool(t.row_security.enabled))
            .set("relforcerowsecurity", Value::Bool(t.row_security.forced))
            .set("relnatts", Value::Int2(t.columns.len() as i16))
            .set("relchecks", Value::Int2(checks))
            .set("relhassubclass", Value::Bool(parents.contains(&t.oid.0)))
            .set(
                "relhastriggers",
                // Foreign keys are triggers in PostgreSQL (psql looks
                // for them only when this is set).
                Value::Bool(
                    !t.triggers.is_empty()
                        || !t.foreign_keys.is_empty()
                        || !c.referencing(t.oid).is_empty(),
                ),
            )
            .set("relreplident", text("d"))
            .set("relispartition", Value::Bool(t.partition_bound.is_some()))
            .set(
                "relpartbound",
                t.partition_bound
                    .as_ref()
                    .map_or(Value::Null, |b| text(b.to_sql(&bound_ctx()))),
            )
            .set(
                "relispopulated",
                Value::Bool(t.matview.as_ref().is_none_or(|m| m.populated)),
            )
            .done(),
        );
        for i in &t.indexes {
            out.push(
                class_row(
                    i.oid.0,
                    &i.name,
                    ns,
                    if t.partition_key.is_some() { "I" } else { "i" },
                    t.persistence.code(),
                    i.method.oid(),
                )
                .set("relnatts", Value::Int2(index_width(i) as i16))
                .set("reloptions", index_reloptions(i))
                .set(
                    "relowner",
                    oid(c.acl(nestor_catalog::acl::ObjKind::Table, t.oid.0).owner.0),
                )
                .set(
                    "relhassubclass",
                    Value::Bool(index_parents.contains(&i.oid.0)),
                )
                .set(
                    "relispartition",
                    Value::Bool(index_children.contains(&i.oid.0)),
                )
                .done(),
            );
        }
    }
    for t in c.composites() {
        out.push(
            class_row(t.relid, &t.name, PUBLIC_NAMESPACE_OID, "c", "p", 0)
                .set("reltype", oid(t.oid))
                .set("relowner", oid(t.owner))
                .set("relfilenode", oid(0))
                .set("relnatts", Value::Int2(t.attrs.len() as i16))
                .set("relreplident", text("n"))
                .done(),
        );
    }
    for s in c.sequences() {
        let ns = temp_or(s.temporary, s.namespace, c);
        let persistence = if s.temporary { "t" } else { "p" };
        out.push(
            with_owner(
                class_row(s.oid.0, &s.name, ns, "S", persistence, 0),
                c,
                nestor_catalog::acl::ObjKind::Sequence,
                s.oid.0,
            )
            .set("relnatts", Value::Int2(3))
            .done(),
        );
    }
    for v in c.views() {
        out.push(
            with_owner(
                class_row(
                    v.oid.0,
                    &v.name,
                    temp_or(v.temporary, v.namespace, c),
                    "v",
                    if v.temporary { "t" } else { "p" },
                    0,
                ),
                c,
                nestor_catalog::acl::ObjKind::Table,
                v.oid.0,
            )
            .set("relnatts", Value::Int2(v.columns.len() as i16))
            .set("relhasrules", Value::Bool(true))
            .set("relhastriggers", Value::Bool(!v.triggers.is_empty()))
            .set("reloptions", view_reloptions(&v))
            .done(),
        );
    }
    for r in Rel::ALL {
        let kind = if r.is_view() { "v" } else { "r" };
        let am = if r.is_view() { 0 } else { HEAP_AM_OID };
        out.push(
            class_row(r.oid(), r.name(), PG_CATALOG_NAMESPACE_OID, kind, "p", am)
                .set("relnatts", Value::Int2(spec::columns(r).len() as i16))
                .done(),
        );
    }
    out
}

/// pg_description: the built-in comments, then COMMENT ON's whose object
/// exists (a user comment replaces a built-in one on the same object), as
/// (objoid, classoid, objsubid, text).
pub(crate) fn descriptions(c: &Catalog) -> Vec<(u32, u32, i32, String)> {
    let mut out: Vec<(u32, u32, i32, String)> = [
        (
            PLPGSQL_EXTENSION_OID,
            Rel::Extension.oid(),
            "PL/pgSQL procedural language",
        ),
        (
            PUBLIC_NAMESPACE_OID,
            Rel::Namespace.oid(),
            "standard public schema",
        ),
    ]
    .into_iter()
    .map(|(o, class, d)| (o, class, 0, d.to_string()))
    .collect();
    let user = c.comments();
    out.retain(|(o, class, sub, _)| !user.iter().any(|(k, _)| *k == (*class, *o, *sub)));
    for ((class, o, sub), text) in user {
        if comment_target_exists(c, class, o, sub) {
            out.push((o, class, sub, text));
        }
    }
    out
}

/// Whether the object a comment is keyed to still exists.
fn comment_target_exists(c: &Catalog, class: u32, o: u32, sub: i32) -> bool {
    let relation_columns = |o: u32| -> Option<usize> {
        if let Some(t) = c.table_by_oid(RelId(o)) {
            return Some(t.columns.len());
        }
        if let Some(v) = c.views().into_iter().find(|v| v.oid.0 == o) {
            return Some(v.columns.len());
        }
        let other = c.sequence_by_oid(RelId(o)).is_some()
            || c.tables()
                .iter()
                .any(|t| t.indexes.iter().any(|i| i.oid.0 == o));
        other.then_some(0)
    };
    match class {
        1259 => match relation_columns(o) {
            None => false,
            Some(_) if sub == 0 => true,
            Some(n) => {
                let k = sub as usize - 1;
                sub > 0
                    && k < n
                    && c.table_by_oid(RelId(o))
                        .is_none_or(|t| !t.columns[k].dropped)
            }
        },
        1255 => {
            c.function_by_oid(RelId(o)).is_some() || nestor_types::io_functions::by_oid(o).is_some()
        }
        2620 => trigger_owners(c)
            .iter()
            .any(|t| t.triggers.iter().any(|g| g.oid.0 == o)),
        1247 => {
            nestor_types::domains::lookup(o).is_some()
                || nestor_types::composites::lookup(o).is_some()
                || nestor_types::enums::lookup(o).is_some()
        }
        2606 => {
            c.tables().iter().any(|t| {
                t.indexes.iter().any(|i| i.constraint && i.oid.0 == o)
                    || t.foreign_keys.iter().any(|f| f.oid.0 == o)
            }) || c
                .domains()
                .iter()
                .any(|d| d.checks.iter().any(|k| k.oid == o))
        }
        2615 => {
            [
                PUBLIC_NAMESPACE_OID,
                PG_CATALOG_NAMESPACE_OID,
                INFORMATION_SCHEMA_NAMESPACE_OID,
            ]
            .contains(&o)
                || c.schema_name(o).is_some()
        }
        _ => false,
    }
}

/// obj_description(oid [, catalog]) / col_description(table, column).
pub(crate) fn description(
    c: &Catalog,
    objoid: u32,
    classoid: Option<u32>,
    sub: i32,
) -> Option<String> {
    descriptions(c)
        .into_iter()
        .find(|(o, class, s, _)| *o == objoid && *s == sub && classoid.is_none_or(|k| k == *class))
        .map(|(_, _, _, d)| d)
}

/// An index's reloptions (`{fastupdate=off}`; NULL when it has none).
fn index_reloptions(i: &IndexDef) -> Value {
    let opts = index_options(i);
    if opts.is_empty() {
        return Value::Null;
    }
    let items = opts.iter().map(|(k, v)| text(format!("{k}={v}"))).collect();
    Array::from_items(DataType::Text, items).value()
}

/// An index's storage parameters, name and value as written.
fn index_options(i: &IndexDef) -> &[(String, String)] {
    i.exprs.as_ref().map_or(&[], |x| &x.options[..])
}

/// ` WITH (k=v, ...)` of pg_get_indexdef: a value that is a plain
/// identifier bare, any other quoted (ruleutils' flatten_reloptions).
fn index_with(i: &IndexDef) -> String {
    let opts = index_options(i);
    if opts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = opts
        .iter()
        .map(|(k, v)| {
            if nestor_common::keywords::quote_identifier(v) == *v {
                format!("{k}={v}")
            } else {
                format!("{k}='{}'", v.replace('\'', "''"))
            }
        })
        .collect();
    format!(" WITH ({})", parts.join(", "))
}

/// A view's reloptions as PostgreSQL keeps them: its check option,
/// security_barrier and security_invoker when set.
fn view_reloptions(v: &nestor_catalog::ViewDef) -> Value {
    let mut opts = Vec::new();
    if v.check_option != nestor_catalog::ViewCheckOption::None {
        opts.push(text(format!(
            "check_option={}",
            v.check_option.name().to_ascii_lowercase()
        )));
    }
    if v.security_barrier {
        opts.push(text("security_barrier=true"));
    }
    if v.security_invoker {
        opts.push(text("security_invoker=true"));
    }
    if opts.is_empty() {
        return Value::Null;
    }
    Array::from_items(DataType::Text, opts).value()
}

/// A role's name for the catalog views (the OID when it is gone).
pub(crate) fn role_name(c: &Catalog, o: u32) -> String {
    if o == DATABASE_OWNER_ROLE_OID {
        return "pg_database_owner".into();
    }
    c.role_by_oid(RelId(o))
        .map_or_else(|| o.to_string(), |r| r.name.clone())
}

/// An object's owner OID and its ACL as aclitem[] text (NULL: default).
fn owner_acl(c: &Catalog, kind: nestor_catalog::acl::ObjKind, o: u32) -> (u32, Value) {
    let a = c.acl(kind, o);
    let name = |r: u32| role_name(c, r);
    let acl = a.acl.as_ref().map_or(Value::Null, |items| {
        let texts = items
            .iter()
            .map(|i| text(nestor_catalog::acl::item_text(i, &name)))
            .collect();
        Array::from_items(DataType::Text, texts).value()
    });
    (a.owner.0, acl)
}

/// relowner and relacl of a relation.
fn with_owner(mut r: RowB, c: &Catalog, kind: nestor_catalog::acl::ObjKind, o: u32) -> RowB {
    let (owner, acl) = owner_acl(c, kind, o);
    r.set("relowner", oid(owner)).set("relacl", acl);
    r
}

fn class_row(o: u32, name: &str, ns: u32, kind: &str, persistence: &str, am: u32) -> RowB {
    let mut r = RowB::new(Rel::Class);
    r.set("oid", oid(o))
        .set("relname", text(name))
        .set("relnamespace", oid(ns))
        .set("relowner", oid(SUPERUSER_OID))
        .set("relam", oid(am))
        .set("relfilenode", oid(if kind == "v" { 0 } else { o }))
        .set("reltuples", Value::Float4(-1.0))
        .set("relpersistence", text(persistence))
        .set("relkind", text(kind))
        .set("relispopulated", Value::Bool(true))
        .set("relreplident", text("n"));
    r
}

/// Storage facts PostgreSQL keeps per type: (typlen, byval, align,
/// storage, category).
/// A type's pg_type.typstorage (b'p' for types that cannot be TOASTed).
pub(crate) fn type_storage(t: DataType) -> u8 {
    type_facts(t).3.as_bytes()[0]
}

fn type_facts(t: DataType) -> (i16, bool, &'static str, &'static str, &'static str) {
    use DataType as T;
    match t {
        T::Bool => (1, true, "c", "p", "B"),
        T::Int2 => (2, true, "s", "p", "N"),
        T::Int4 | T::Oid | T::Reg(_) => (4, true, "i", "p", "N"),
        T::Int8 => (8, true, "d", "p", "N"),
        T::Float4 => (4, true, "i", "p", "N"),
        T::Float8 => (8, true, "d", "p", "N"),
        T::Numeric(_) => (-1, false, "i", "m", "N"),
        T::Date => (4, true, "i", "p", "D"),
        T::Timestamp(_) | T::TimestampTz(_) | T::Time(_) => (8, true, "d", "p", "D"),
        T::TimeTz(_) => (12, false, "d", "p", "D"),
        T::Money => (8, true, "d", "p", "N"),
        T::Interval(_) => (16, false, "d", "p", "T"),
        T::Uuid => (16, false, "c", "p", "U"),
        T::PgLsn => (8, true, "d", "p", "U"),
        T::Bit(_) | T::VarBit(_) => (-1, false, "i", "x", "V"),
        T::Name => (64, false, "c", "p", "S"),
        T::Text | T::Varchar(_) | T::Char(_) => (-1, false, "i", "x", "S"),
        T::Bytea | T::Jsonb | T::Json | T::JsonPath | T::TsVector => (-1, false, "i", "x", "U"),
        T::TsQuery => (-1, false, "i", "p", "U"),
        T::Unknown => (-2, false, "c", "p", "X"),
        T::Void => (4, true, "i", "p", "P"),
        // An array is aligned as its elements, at least as an int.
        T::Array(e) if type_facts(*e).2 == "d" => (-1, false, "d", "x", "A"),
        T::Array(_) | T::Int2Vector | T::OidVector => (-1, false, "i", "x", "A"),
        T::Record(_) => (-1, false, "d", "x", "P"),
        T::Enum(_) => (4, true, "i", "p", "E"),
        T::Poly(p) if p.is_array() => (-1, false, "d", "x", "P"),
        T::Poly(_) => (4, true, "i", "p", "P"),
        T::Geo(k) if k.typlen() < 0 => (-1, false, "d", "x", "G"),
        T::Geo(k) => (k.typlen(), false, "d", "p", "G"),
        T::Range(k) => (-1, false, k.typalign(), "x", "R"),
    }
}

/// pg_type's name of a type (`int4`, `_text`, `bpchar`).
pub fn typname(t: DataType) -> String {
    use DataType as T;
    match t {
        T::Bool => "bool".into(),
        T::Int2 => "int2".into(),
        T::Int4 => "int4".into(),
        T::Int8 => "int8".into(),
        T::Float4 => "float4".into(),
        T::Float8 => "float8".into(),
        T::Numeric(_) => "numeric".into(),
        T::Varchar(_) => "varchar".into(),
        T::Char(_) => "bpchar".into(),
        T::Timestamp(_) => "timestamp".into(),
        T::TimestampTz(_) => "timestamptz".into(),
        T::Time(_) => "time".into(),
        T::TimeTz(_) => "timetz".into(),
        T::VarBit(_) => "varbit".into(),
        T::Array(e) => format!("_{}", typname(*e)),
        t => t.name().into(),
    }
}

/// Every type with a pg_type row: the base types, their arrays, the
/// vectors and the pseudo types functions use.
fn all_types() -> Vec<DataType> {
    use DataType as T;
    let mut v = vec![
        T::Bool,
        T::Bytea,
        T::Name,
        T::Int8,
        T::Int2,
        T::Int2Vector,
        T::Int4,
        T::Text,
        T::Oid,
        T::OidVector,
        T::Float4,
        T::Float8,
        T::Unknown,
        T::Char(None),
        T::Varchar(None),
        T::Date,
        T::Timestamp(None),
        T::TimestampTz(None),
        T::Time(None),
        T::TimeTz(None),
        T::Money,
        T::Interval(None),
        T::NUMERIC,
        T::Uuid,
        T::PgLsn,
        T::Bit(None),
        T::VarBit(None),
        T::Jsonb,
        T::Json,
        T::JsonPath,
        T::Void,
        T::Reg(RegKind::Proc),
        T::Reg(RegKind::Class),
        T::Reg(RegKind::Type),
        T::Reg(RegKind::Namespace),
        T::Reg(RegKind::Config),
        T::Reg(RegKind::Dictionary),
        T::TsVector,
        T::TsQuery,
    ];
    v.extend(nestor_types::geometry::GeoKind::ALL.map(T::Geo));
    v.extend(nestor_types::range::RangeKind::ALL.map(T::Range));
    v.extend(
        nestor_types::datatype::array_types().map(|e| e.0.array_of().expect("an element type")),
    );
    v
}

fn type_rows() -> Rows {
    let mut out = Vec::new();
    for t in all_types() {
        let (len, byval, align, storage, category) = type_facts(t);
        // point and line subscript to float8, lseg and box to point.
        let elem = match t {
            DataType::Geo(k) => nestor_types::geometry::catalog::subscript_element(k),
            t => t.element(),
        }
        .map_or(0, DataType::oid);
        let array = t.array_of().map_or(0, DataType::oid);
        let name = typname(t);
        let mut r = RowB::new(Rel::Type);
        match t {
            DataType::Range(_) => set_io_functions(&mut r, "range"),
            _ => set_io_functions(&mut r, &name),
        }
        out.push(
            r.set("oid", oid(t.oid()))
                .set("typname", text(&name))
                .set("typnamespace", oid(PG_CATALOG_NAMESPACE_OID))
                .set("typowner", oid(SUPERUSER_OID))
                .set("typlen", Value::Int2(len))
                .set("typbyval", Value::Bool(byval))
                .set(
                    "typtype",
                    text(match t {
                        DataType::Void => "p",
                        DataType::Range(_) => "r",
                        _ => "b",
                    }),
                )
                .set("typcategory", text(category))
                .set(
                    "typispreferred",
                    Value::Bool(matches!(
                        t,
                        DataType::Text
                            | DataType::Float8
                            | DataType::Bool
                            | DataType::Oid
                            | DataType::TimestampTz(_)
                            | DataType::VarBit(_)
                            | DataType::Interval(_)
                    )),
                )
                .set("typisdefined", Value::Bool(true))
                .set(
                    "typdelim",
                    text(
                        if t == DataType::Geo(nestor_types::geometry::GeoKind::Box) {
                            ";"
                        } else {
                            ","
                        },
                    ),
                )
                .set("typelem", oid(elem))
                .set("typarray", oid(array))
                .set("typalign", text(align))
                .set("typstorage", text(storage))
                .set("typtypmod", Value::Int4(-1))
                .set(
                    "typcollation",
                    oid(if t.is_string() && t != DataType::Unknown {
                        DEFAULT_COLLATION_OID
                    } else {
                        0
                    }),
                )
                .done(),
        );
    }
    for (o, name) in PSEUDO_TYPES {
        let mut r = RowB::new(Rel::Type);
        r.set("oid", oid(o))
            .set("typname", text(name))
            .set("typnamespace", oid(PG_CATALOG_NAMESPACE_OID))
            .set("typowner", oid(SUPERUSER_OID))
            .set(
                "typlen",
                Value::Int2(match o {
                    2249 | 2287 | 2277 | 5078 | 3831 | 5080 => -1,
                    2275 => -2,
                    2281 => 8,
                    _ => 4,
                }),
            )
            .set("typtype", text("p"))
            .set("typcategory", text("P"))
            .set("typisdefined", Value::Bool(true))
            .set("typdelim", text(","))
            .set("typtypmod", Value::Int4(-1));
        match o {
            2249 => r.set("typarray", oid(2287)),
            2287 => r.set("typelem", oid(2249)),
            _ => &mut r,
        };
        set_io_functions(&mut r, name);
        out.push(r.done());
    }
    out
}

/// What every pg_type row of a user-defined type in public (an enum, a
/// composite, their array types) has in common: its names, owner and I/O
/// functions, not a domain, no typmod, no collation.
fn user_type_row(o: u32, name: &str, io: &str, owner: u32) -> RowB {
    let mut r = RowB::new(Rel::Type);
    set_io_functions(&mut r, io);
    r.set("oid", oid(o))
        .set("typname", text(name))
        .set("typnamespace", oid(PUBLIC_NAMESPACE_OID))
        .set("typowner", oid(owner))
        .set("typispreferred", Value::Bool(false))
        .set("typisdefined", Value::Bool(true))
        .set("typdelim", text(","))
        .set("typnotnull", Value::Bool(false))
        .set("typbasetype", oid(0))
        .set("typtypmod", Value::Int4(-1))
        .set("typndims", Value::Int4(0))
        .set("typcollation", oid(0));
    r
}

/// The pg_type rows of the enum types and their array types.
fn enum_type_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for e in c.enum_types() {
        let base = |o: u32, name: &str, io: &str| {
            let mut r = user_type_row(o, name, io, e.owner);
            r.set("typbyval", Value::Bool(io == "enum"))
                .set("typrelid", oid(0));
            r
        };
        let mut r = base(e.oid, &e.name, "enum");
        r.set("typlen", Value::Int2(4))
            .set("typtype", text("e"))
            .set("typcategory", text("E"))
            .set("typelem", oid(0))
            .set("typarray", oid(e.array_oid))
            .set("typalign", text("i"))
            .set("typstorage", text("p"));
        out.push(r.done());
        let mut a = base(e.array_oid, &format!("_{}", e.name), "_enum");
        a.set("typlen", Value::Int2(-1))
            .set("typtype", text("b"))
            .set("typcategory", text("A"))
            .set("typelem", oid(e.oid))
            .set("typarray", oid(0))
            .set("typalign", text("i"))
            .set("typstorage", text("x"));
        out.push(a.done());
    }
    out
}

/// The pg_type rows of the domains (typtype 'd') and their array types.
fn domain_type_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for d in c.domains() {
        let (len, byval, align, storage, category) = type_facts(d.base);
        let base_name = typname(d.base);
        let mut r = RowB::new(Rel::Type);
        set_io_functions(&mut r, &base_name);
        r.set("oid", oid(d.oid))
            .set("typname", text(&d.name))
            .set("typnamespace", oid(PUBLIC_NAMESPACE_OID))
            .set("typowner", oid(d.owner))
            .set("typlen", Value::Int2(len))
            .set("typbyval", Value::Bool(byval))
            .set("typtype", text("d"))
            .set("typcategory", text(category))
            .set("typispreferred", Value::Bool(false))
            .set("typisdefined", Value::Bool(true))
            .set("typdelim", text(","))
            .set("typrelid", oid(0))
            .set("typelem", oid(0))
            .set("typarray", oid(d.array_oid))
            .set("typalign", text(align))
            .set("typstorage", text(storage))
            .set("typnotnull", Value::Bool(d.not_null))
            .set("typbasetype", oid(d.parent.unwrap_or(d.base.oid())))
            .set(
                "typtypmod",
                Value::Int4(if d.parent.is_some() {
                    -1
                } else {
                    d.base.typmod()
                }),
            )
            .set("typndims", Value::Int4(0))
            .set(
                "typcollation",
                oid(if d.base.is_string() {
                    DEFAULT_COLLATION_OID
                } else {
                    0
                }),
            );
        if let Some(def) = &d.default {
            r.set("typdefault", text(default_shown(d.base, def)));
        }
        out.push(r.done());
        let mut a = RowB::new(Rel::Type);
        set_io_functions(&mut a, "_int4");
        a.set("oid", oid(d.array_oid))
            .set("typname", text(format!("_{}", d.name)))
            .set("typnamespace", oid(PUBLIC_NAMESPACE_OID))
            .set("typowner", oid(d.owner))
            .set("typlen", Value::Int2(-1))
            .set("typbyval", Value::Bool(false))
            .set("typtype", text("b"))
            .set("typcategory", text("A"))
            .set("typispreferred", Value::Bool(false))
            .set("typisdefined", Value::Bool(true))
            .set("typdelim", text(","))
            .set("typrelid", oid(0))
            .set("typelem", oid(d.oid))
            .set("typarray", oid(0))
            .set("typalign", text(align))
            .set("typstorage", text("x"))
            .set("typnotnull", Value::Bool(false))
            .set("typbasetype", oid(0))
            .set("typtypmod", Value::Int4(-1))
            .set("typndims", Value::Int4(0));
        out.push(a.done());
    }
    out
}

/// The pg_type rows of the composite types (typtype 'c', typrelid their
/// pg_class row) and their array types, as DefineCompositeType makes
/// them.
fn composite_type_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for t in c.composites() {
        let base = |o: u32, name: &str, io: &str| {
            let mut r = user_type_row(o, name, io, t.owner);
            r.set("typlen", Value::Int2(-1))
                .set("typbyval", Value::Bool(false))
                .set("typalign", text("d"))
                .set("typstorage", text("x"));
            r
        };
        let mut r = base(t.oid, &t.name, "record");
        r.set("typtype", text("c"))
            .set("typcategory", text("C"))
            .set("typrelid", oid(t.relid))
            .set("typelem", oid(0))
            .set("typarray", oid(t.array_oid));
        out.push(r.done());
        let mut a = base(t.array_oid, &format!("_{}", t.name), "_int4");
        a.set("typtype", text("b"))
            .set("typcategory", text("A"))
            .set("typrelid", oid(0))
            .set("typelem", oid(t.oid))
            .set("typarray", oid(0));
        out.push(a.done());
    }
    out
}

/// pg_depend rows of composite types (pg_dump orders its CREATE TYPEs
/// and tables by them): a composite type's pg_type row belongs to its
/// pg_class row ('i'), and each attribute, table column and function
/// argument of a composite type depends on that type ('n').
fn composite_depend_rows(c: &Catalog) -> Rows {
    let (class, typ, proc) = (Rel::Class.oid(), Rel::Type.oid(), Rel::Proc.oid());
    let row = |classid: u32, objid: u32, sub: i32, refclass: u32, refobj: u32, t: &str| {
        vec![
            oid(classid),
            oid(objid),
            Value::Int4(sub),
            oid(refclass),
            oid(refobj),
            Value::Int4(0),
            text(t),
        ]
    };
    // The composite types a type names (itself, or its array's element).
    let composite = |t: DataType| match t {
        DataType::Record(r) if r.oid != 0 => Some(r.oid),
        DataType::Array(DataType::Record(r)) if r.oid != 0 => Some(r.oid),
        _ => None,
    };
    let mut out = Vec::new();
    for t in c.composites() {
        out.push(row(typ, t.oid, 0, class, t.relid, "i"));
        for (k, (_, ty)) in t.attrs.iter().enumerate() {
            if let Some(o) = composite(*ty) {
                out.push(row(class, t.relid, k as i32 + 1, typ, o, "n"));
            }
        }
    }
    for t in c.tables() {
        for (k, col) in t.columns.iter().enumerate().filter(|(_, c)| !c.dropped) {
            if let Some(o) = composite(col.ty) {
                out.push(row(class, t.oid.0, k as i32 + 1, typ, o, "n"));
            }
        }
    }
    for f in c.all_functions() {
        for a in &f.args {
            if let Some(o) = composite(a.ty) {
                out.push(row(proc, f.oid.0, 0, typ, o, "n"));
            }
        }
    }
    out
}

/// The pg_constraint rows of the domains' CHECK constraints (contypid).
fn domain_constraint_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for d in c.domains() {
        for k in &d.checks {
            out.push(
                RowB::new(Rel::Constraint)
                    .set("oid", oid(k.oid))
                    .set("conname", text(&k.name))
                    .set("connamespace", oid(PUBLIC_NAMESPACE_OID))
                    .set("contype", text("c"))
                    .set("condeferrable", Value::Bool(false))
                    .set("condeferred", Value::Bool(false))
                    .set("convalidated", Value::Bool(k.validated))
                    .set("conrelid", oid(0))
                    .set("contypid", oid(d.oid))
                    .set("conindid", oid(0))
                    .set("confrelid", oid(0))
                    .set("confupdtype", text(" "))
                    .set("confdeltype", text(" "))
                    .set("confmatchtype", text(" "))
                    .set("conislocal", Value::Bool(true))
                    .set("coninhcount", Value::Int4(0))
                    .set("connoinherit", Value::Bool(false))
                    .set("conbin", text(&k.expr))
                    .done(),
            );
        }
    }
    out
}

/// pg_get_constraintdef of a domain's CHECK constraint.
fn domain_constraint_def(c: &Catalog, o: u32, pretty: bool) -> Option<String> {
    c.domains().iter().find_map(|d| {
        let k = d.checks.iter().find(|k| k.oid == o)?;
        let mut s = if pretty {
            format!("CHECK ({})", k.expr)
        } else {
            format!("CHECK (({}))", k.expr)
        };
        if !k.validated {
            s.push_str(" NOT VALID");
        }
        Some(s)
    })
}

/// pg_cast: PostgreSQL's built-in casts between types Nestor has, then
/// the user's (CREATE CAST).
fn cast_rows(c: &Catalog) -> Rows {
    let row = |o: u32, source: u32, target: u32, func: u32, context: char, method: char| {
        RowB::new(Rel::Cast)
            .set("oid", oid(o))
            .set("castsource", oid(source))
            .set("casttarget", oid(target))
            .set("castfunc", oid(func))
            .set("castcontext", text(context.to_string()))
            .set("castmethod", text(method.to_string()))
            .done()
    };
    let mut out: Rows = nestor_types::cast_catalog::visible()
        .map(|r| row(r.0, r.1, r.2, r.3, char::from(r.4), char::from(r.5)))
        .collect();
    for k in c.casts() {
        let func = match &k.method {
            nestor_catalog::cast::CastMethod::Function { oid, .. } => *oid,
            _ => 0,
        };
        let context = nestor_catalog::cast::context_letter(k.context);
        out.push(row(
            k.oid,
            k.source,
            k.target,
            func,
            context,
            k.method.letter(),
        ));
    }
    out
}

/// pg_range: the built-in range types (their canonical and subtype
/// difference functions have no pg_proc rows here: shown as `-`).
fn range_rows() -> Rows {
    nestor_types::range::RangeKind::ALL
        .iter()
        .map(|k| {
            RowB::new(Rel::Range)
                .set("rngtypid", oid(k.oid()))
                .set("rngsubtype", oid(k.subtype().oid()))
                .set("rngmultitypid", oid(k.multirange_oid()))
                .set("rngcollation", oid(0))
                .set("rngsubopc", oid(k.subtype_opclass()))
                .set("rngcanonical", oid(0))
                .set("rngsubdiff", oid(0))
                .done()
        })
        .collect()
}

/// pg_enum: every label of every enum type.
fn enum_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for e in c.enum_types() {
        for l in &e.labels {
            out.push(
                RowB::new(Rel::Enum)
                    .set("oid", oid(l.oid))
                    .set("enumtypid", oid(e.oid))
                    .set("enumsortorder", Value::Float4(l.sort_order))
                    .set("enumlabel", text(&l.label))
                    .done(),
            );
        }
    }
    out
}

/// pg_type's typinput, typoutput, typreceive and typsend of `typname`.
fn set_io_functions(r: &mut RowB, typname: &str) {
    use nestor_types::io_functions::{of_type, IoKind};
    for (col, kind) in [
        ("typinput", IoKind::In),
        ("typoutput", IoKind::Out),
        ("typreceive", IoKind::Recv),
        ("typsend", IoKind::Send),
    ] {
        r.set(col, oid(of_type(typname, kind).map_or(0, |f| f.oid)));
    }
}

/// The text search catalogs: the default parser, the simple and snowball
/// templates, the simple and english_stem dictionaries and the simple and
/// english configurations with their token maps (OIDs as PostgreSQL 15's,
/// the support functions' too, though those have no pg_proc rows here:
/// regproc shows their numbers).
fn text_search_rows(rel: Rel) -> Rows {
    use nestor_types::tsearch::config::{self, Dict, CONFIGS};
    const PARSER: u32 = 3722;
    const SIMPLE_TEMPLATE: u32 = 3727;
    const SNOWBALL_TEMPLATE: u32 = 13150;
    const SIMPLE_DICT: u32 = 3765;
    const ENGLISH_STEM_DICT: u32 = 13163;
    let ns = oid(PG_CATALOG_NAMESPACE_OID);
    match rel {
        Rel::TsParser => vec![RowB::new(rel)
            .set("oid", oid(PARSER))
            .set("prsname", text("default"))
            .set("prsnamespace", ns)
            .set("prsstart", oid(3717))
            .set("prstoken", oid(3718))
            .set("prsend", oid(3719))
            .set("prsheadline", oid(3720))
            .set("prslextype", oid(3721))
            .done()],
        Rel::TsTemplate => [
            (SIMPLE_TEMPLATE, "simple", 3725, 3726),
            (SNOWBALL_TEMPLATE, "snowball", 13148, 13149),
        ]
        .into_iter()
        .map(|(o, n, init, lexize)| {
            RowB::new(rel)
                .set("oid", oid(o))
                .set("tmplname", text(n))
                .set("tmplnamespace", ns.clone())
                .set("tmplinit", oid(init))
                .set("tmpllexize", oid(lexize))
                .done()
        })
        .collect(),
        Rel::TsDict => [
            (SIMPLE_DICT, "simple", SIMPLE_TEMPLATE, None),
            (
                ENGLISH_STEM_DICT,
                "english_stem",
                SNOWBALL_TEMPLATE,
                Some("language = 'english', stopwords = 'english'"),
            ),
        ]
        .into_iter()
        .map(|(o, n, t, init)| {
            RowB::new(rel)
                .set("oid", oid(o))
                .set("dictname", text(n))
                .set("dictnamespace", ns.clone())
                .set("dictowner", oid(SUPERUSER_OID))
                .set("dicttemplate", oid(t))
                .set("dictinitoption", init.map_or(Value::Null, text))
                .done()
        })
        .collect(),
        Rel::TsConfig => CONFIGS
            .iter()
            .map(|(o, n)| {
                RowB::new(rel)
                    .set("oid", oid(*o))
                    .set("cfgname", text(n))
                    .set("cfgnamespace", ns.clone())
                    .set("cfgowner", oid(SUPERUSER_OID))
                    .set("cfgparser", oid(PARSER))
                    .done()
            })
            .collect(),
        _ => CONFIGS
            .iter()
            .flat_map(|(cfg, _)| {
                (1..=23u8).filter_map(move |t| {
                    let d = config::dictionary(*cfg, t)?;
                    Some(
                        RowB::new(Rel::TsConfigMap)
                            .set("mapcfg", oid(*cfg))
                            .set("maptokentype", Value::Int4(i32::from(t)))
                            .set("mapseqno", Value::Int4(1))
                            .set(
                                "mapdict",
                                oid(match d {
                                    Dict::Simple => SIMPLE_DICT,
                                    Dict::EnglishStem => ENGLISH_STEM_DICT,
                                }),
                            )
                            .done(),
                    )
                })
            })
            .collect(),
    }
}

/// pg_proc's row of a type I/O function (`nestor_types::io_functions`).
fn io_proc_row(f: &nestor_types::io_functions::IoFn) -> Vec<Value> {
    RowB::new(Rel::Proc)
        .set("oid", oid(f.oid))
        .set("proname", text(f.name))
        .set("pronamespace", oid(PG_CATALOG_NAMESPACE_OID))
        .set("proowner", oid(SUPERUSER_OID))
        .set("prolang", oid(INTERNAL_LANGUAGE_OID))
        .set("procost", Value::Float4(1.0))
        .set("prorows", Value::Float4(0.0))
        .set("prokind", text("f"))
        .set("proisstrict", Value::Bool(true))
        .set("proretset", Value::Bool(false))
        .set("provolatile", text(if f.stable { "s" } else { "i" }))
        .set("proparallel", text("s"))
        .set("pronargs", Value::Int2(f.args.len() as i16))
        .set("pronargdefaults", Value::Int2(0))
        .set("prorettype", oid(f.ret))
        .set(
            "proargtypes",
            vector(DataType::Oid, f.args.iter().map(|a| i64::from(*a))),
        )
        .set("prosrc", text(f.name))
        .done()
}

/// A column's pg_attribute row (relation `rel`, number `num`).
fn attribute_row(rel: u32, num: i16, name: &str, ty: DataType) -> RowB {
    let (len, byval, align, storage, _) = type_facts(ty);
    let mut r = RowB::new(Rel::Attribute);
    r.set("attrelid", oid(rel))
        .set("attname", text(name))
        .set("atttypid", oid(ty.oid()))
        .set("attstattarget", Value::Int4(-1))
        .set("attlen", Value::Int2(len))
        .set("attnum", Value::Int2(num))
        .set(
            "attndims",
            Value::Int4(i32::from(
                ty.is_array()
                    && len == -1
                    && ty.element().is_some()
                    && !matches!(ty, DataType::Int2Vector | DataType::OidVector),
            )),
        )
        .set("attcacheoff", Value::Int4(-1))
        .set("atttypmod", Value::Int4(ty.typmod()))
        .set("attbyval", Value::Bool(byval))
        .set("attalign", text(align))
        .set("attstorage", text(storage))
        .set("attcompression", text(""))
        .set("attidentity", text(""))
        .set("attgenerated", text(""))
        .set("attislocal", Value::Bool(true))
        .set(
            "attcollation",
            oid(if ty.is_string() {
                DEFAULT_COLLATION_OID
            } else {
                0
            }),
        );
    r
}

/// A column's attacl (NULL: no column privileges).
fn column_acl(c: &Catalog, a: &nestor_catalog::acl::ObjAcl, attnum: i16) -> Value {
    let items = a.column(attnum);
    if items.is_empty() {
        return Value::Null;
    }
    let name = |r: u32| role_name(c, r);
    let texts = items
        .iter()
        .map(|i| text(nestor_catalog::acl::item_text(i, &name)))
        .collect();
    Array::from_items(DataType::Text, texts).value()
}

fn attribute_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    let table_kind = nestor_catalog::acl::ObjKind::Table;
    for t in c.tables() {
        let acl = c.acl(table_kind, t.oid.0);
        for (i, col) in t.columns.iter().enumerate() {
            let num = i as i16 + 1;
            let mut r = if col.dropped {
                let mut r = attribute_row(
                    t.oid.0,
                    num,
                    &format!("........pg.dropped.{num}........"),
                    DataType::Unknown,
                );
                r.set("atttypid", oid(0))
                    .set("attisdropped", Value::Bool(true));
                r
            } else {
                let mut r = attribute_row(t.oid.0, num, &col.name, col.ty);
                if let Some(d) = col.domain {
                    r.set("atttypid", oid(d)).set("atttypmod", Value::Int4(-1));
                }
                if let Some(s) = col.storage {
                    r.set("attstorage", text(char::from(s).to_string()));
                }
                if col.compression != 0 {
                    r.set(
                        "attcompression",
                        text(char::from(col.compression).to_string()),
                    );
                }
                r
            };
            let identity = t.identity(i);
            r.set("attnotnull", Value::Bool(col.not_null))
                .set(
                    "atthasdef",
                    Value::Bool(col.default.is_some() && identity.is_none()),
                )
                .set(
                    "attidentity",
                    text(match identity {
                        Some(id) if id.always => "a",
                        Some(_) => "d",
                        None => "",
                    }),
                )
                .set("atthasmissing", Value::Bool(!col.missing.is_null()))
                .set("attacl", column_acl(c, &acl, i as i16 + 1))
                .set("attgenerated", text(if col.generated { "s" } else { "" }));
            out.push(r.done());
        }
        for idx in &t.indexes {
            let hash = idx.method == AccessMethod::Hash;
            for (k, (name, ty)) in index_attributes(c, &t, idx).into_iter().enumerate() {
                // A PostgreSQL hash index stores the key's 32-bit hash
                // code (every hash class's opckeytype is int4), so its
                // attribute is an integer whatever the key's type.
                let gin = idx.method == AccessMethod::Gin;
                let ty = if hash {
                    DataType::Int4
                } else if gin {
                    gin_key_type(idx, k, ty)
                } else {
                    ty
                };
                let mut r = attribute_row(idx.oid.0, k as i16 + 1, &name, ty);
                r.set("attnotnull", Value::Bool(false));
                // A key that is a column has the column's storage (SET
                // STORAGE reaches the table's indexes).
                let col = index_key_column(idx, k).filter(|_| !hash && !gin);
                if let Some(s) = col.and_then(|col| t.columns[col].storage) {
                    r.set("attstorage", text(char::from(s).to_string()));
                }
                out.push(r.done());
            }
        }
    }
    for v in c.views() {
        let acl = c.acl(table_kind, v.oid.0);
        for (i, (name, ty)) in v.columns.iter().enumerate() {
            let num = i as i16 + 1;
            let mut r = attribute_row(v.oid.0, num, name, *ty);
            r.set("attacl", column_acl(c, &acl, num)).set(
                "atthasdef",
                Value::Bool(v.defaults.iter().any(|(p, _)| *p == i)),
            );
            out.push(r.done());
        }
    }
    for t in c.composites() {
        for (i, (name, ty)) in t.attrs.iter().enumerate() {
            let mut r = attribute_row(t.relid, i as i16 + 1, name, *ty);
            if let Some(d) = t.attr_domain(i) {
                r.set("atttypid", oid(d)).set("atttypmod", Value::Int4(-1));
            }
            out.push(r.done());
        }
    }
    for r in Rel::ALL {
        for (i, (name, ty)) in spec::columns(r).into_iter().enumerate() {
            out.push(attribute_row(r.oid(), i as i16 + 1, name, ty).done());
        }
    }
    out
}

fn vector(elem: DataType, items: impl IntoIterator<Item = i64>) -> Value {
    let items = items
        .into_iter()
        .map(|v| {
            if elem == DataType::Int2 {
                Value::Int2(v as i16)
            } else {
                Value::Int8(v)
            }
        })
        .collect();
    Array::vector(elem, items).value()
}

/// The default btree operator class of a type (pg_opclass.oid).
fn opclass_of(t: DataType) -> u32 {
    use DataType as T;
    match t {
        T::Bool => 424,
        T::Bytea => 428,
        T::Name => 1986,
        T::Int2 => 1979,
        T::Int4 => 1978,
        T::Int8 => 3124,
        T::Oid => 1981,
        T::Float4 => 1970,
        T::Float8 => 1971,
        T::Char(_) => 426,
        T::Date => 3122,
        T::Timestamp(_) => 3128,
        T::TimestampTz(_) => 3127,
        T::Interval(_) => 3123,
        T::Time(_) => 10038,
        T::TimeTz(_) => 10041,
        T::Money => 10047,
        T::Numeric(_) => 3125,
        T::Uuid => 2968,
        T::PgLsn => 3253,
        T::Bit(_) => 10002,
        T::VarBit(_) => 10043,
        T::Jsonb => 4033,
        T::TsVector => 10071,
        T::TsQuery => 10074,
        T::Array(_) | T::Int2Vector | T::OidVector => 397,
        _ => 3126, // text_ops: text, varchar
    }
}

/// The default hash operator class of a type (pg_opclass.oid, as
/// PostgreSQL numbers them), for a hash index's indclass.
fn hash_opclass_of(t: DataType) -> u32 {
    use DataType as T;
    match t {
        T::Bool => 10048,
        T::Bytea => 10049,
        T::Name => 10029,
        T::Int2 => 10019,
        T::Int4 => 10020,
        T::Int8 => 10021,
        T::Oid => 10031,
        T::Float4 => 10013,
        T::Float8 => 10014,
        T::Char(_) => 10005,
        T::Date => 10011,
        T::Timestamp(_) => 10046,
        T::TimestampTz(_) => 10040,
        T::Interval(_) => 10023,
        T::Time(_) => 10039,
        T::TimeTz(_) => 10042,
        T::Numeric(_) => 10030,
        T::Uuid => 10066,
        T::PgLsn => 10068,
        T::Jsonb => 10089,
        T::OidVector => 10033,
        T::Array(_) => 10001,
        T::Enum(_) => 10070,
        T::Range(_) => 10077,
        T::Record(_) => 10035,
        _ => 10037, // text_ops: text, varchar
    }
}

/// PostgreSQL's default hash operator classes of the types Nestor has:
/// (pg_opclass.oid, opcname, opcintype, opcfamily).
const HASH_OPCLASSES: [(u32, &str, u32, u32); 26] = [
    (10001, "array_ops", 2277, 627),
    (10005, "bpchar_ops", 1042, 427),
    (10011, "date_ops", 1082, 435),
    (10013, "float4_ops", 700, 1971),
    (10014, "float8_ops", 701, 1971),
    (10019, "int2_ops", 21, 1977),
    (10020, "int4_ops", 23, 1977),
    (10021, "int8_ops", 20, 1977),
    (10023, "interval_ops", 1186, 1983),
    (10029, "name_ops", 19, 1995),
    (10030, "numeric_ops", 1700, 1998),
    (10031, "oid_ops", 26, 1990),
    (10033, "oidvector_ops", 30, 1992),
    (10035, "record_ops", 2249, 6194),
    (10037, "text_ops", 25, 1995),
    (10039, "time_ops", 1083, 1997),
    (10040, "timestamptz_ops", 1184, 1999),
    (10042, "timetz_ops", 1266, 2001),
    (10046, "timestamp_ops", 1114, 2040),
    (10048, "bool_ops", 16, 2222),
    (10049, "bytea_ops", 17, 2223),
    (10066, "uuid_ops", 2950, 2969),
    (10068, "pg_lsn_ops", 3220, 3254),
    (10070, "enum_ops", 3500, 3523),
    (10077, "range_ops", 3831, 3903),
    (10089, "jsonb_ops", 3802, 4034),
];

/// pg_opclass rows of the default hash classes ([`hash_opclass_of`]
/// names them in a hash index's indclass).
fn hash_opclass_rows() -> Rows {
    HASH_OPCLASSES
        .iter()
        .map(|&(o, name, intype, family)| {
            RowB::new(Rel::Opclass)
                .set("oid", oid(o))
                .set("opcmethod", oid(HASH_AM_OID))
                .set("opcname", text(name))
                .set("opcnamespace", oid(PG_CATALOG_NAMESPACE_OID))
                .set("opcowner", oid(SUPERUSER_OID))
                .set("opcfamily", oid(family))
                .set("opcintype", oid(intype))
                .set("opcdefault", Value::Bool(true))
                .set("opckeytype", oid(0))
                .done()
        })
        .collect()
}

/// A btree operator class's pg_opclass row.
fn btree_opclass_row(o: u32, name: &str, intype: u32, default: bool) -> Vec<Value> {
    RowB::new(Rel::Opclass)
        .set("oid", oid(o))
        .set("opcmethod", oid(BTREE_AM_OID))
        .set("opcname", text(name))
        .set("opcnamespace", oid(PG_CATALOG_NAMESPACE_OID))
        .set("opcowner", oid(SUPERUSER_OID))
        .set("opcintype", oid(intype))
        .set("opcdefault", Value::Bool(default))
        .done()
}

fn opclass_rows() -> Rows {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for t in all_types() {
        let o = opclass_of(t);
        if seen.contains(&o) || t == DataType::Void || t == DataType::Unknown {
            continue;
        }
        seen.push(o);
        let intype = if t.is_array() {
            2277
        } else if o == 3126 {
            DataType::Text.oid()
        } else {
            t.oid()
        };
        let name = if t.is_array() {
            "array_ops".to_string()
        } else {
            format!(
                "{}_ops",
                typname(if o == 3126 { DataType::Text } else { t })
            )
        };
        out.push(btree_opclass_row(o, &name, intype, true));
    }
    // The non-default btree classes an index may name.
    for (o, name, intype) in NAMED_BTREE_OPCLASSES {
        out.push(btree_opclass_row(o, name, intype, false));
    }
    // GIN's classes (`nestor_catalog::gin`).
    for g in nestor_catalog::gin::GinClass::ALL {
        let intype = if g == nestor_catalog::gin::GinClass::ArrayOps {
            2277
        } else {
            DataType::Jsonb.oid()
        };
        out.push(
            RowB::new(Rel::Opclass)
                .set("oid", oid(g.oid()))
                .set("opcmethod", oid(GIN_AM_OID))
                .set("opcname", text(g.name()))
                .set("opcnamespace", oid(PG_CATALOG_NAMESPACE_OID))
                .set("opcowner", oid(SUPERUSER_OID))
                .set("opcfamily", oid(g.family()))
                .set("opcintype", oid(intype))
                .set("opcdefault", Value::Bool(g.is_default()))
                .done(),
        );
    }
    out
}

/// pg_opclass rows of the user's operator classes.
fn user_opclass_rows(c: &Catalog) -> Rows {
    c.opclasses()
        .iter()
        .map(|k| {
            RowB::new(Rel::Opclass)
                .set("oid", oid(k.oid))
                .set("opcmethod", oid(k.am.oid()))
                .set("opcname", text(&k.name))
                .set("opcnamespace", oid(PUBLIC_NAMESPACE_OID))
                .set("opcowner", oid(k.owner))
                .set("opcfamily", oid(k.family))
                .set("opcintype", oid(k.intype))
                .set("opcdefault", Value::Bool(k.default))
                .set("opckeytype", oid(0))
                .done()
        })
        .collect()
}

/// pg_opfamily: the user's operator families (the built-in ones have
/// no rows yet).
fn opfamily_rows(c: &Catalog) -> Rows {
    c.opfamilies()
        .iter()
        .map(|f| {
            RowB::new(Rel::Opfamily)
                .set("oid", oid(f.oid))
                .set("opfmethod", oid(f.am.oid()))
                .set("opfname", text(&f.name))
                .set("opfnamespace", oid(PUBLIC_NAMESPACE_OID))
                .set("opfowner", oid(f.owner))
                .done()
        })
        .collect()
}

/// pg_amop: the operators of the user's operator classes.
fn amop_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for k in c.opclasses() {
        for m in &k.operators {
            out.push(
                RowB::new(Rel::Amop)
                    .set("oid", oid(m.oid))
                    .set("amopfamily", oid(k.family))
                    .set("amoplefttype", oid(m.left))
                    .set("amoprighttype", oid(m.right))
                    .set("amopstrategy", Value::Int2(m.number))
                    .set("amoppurpose", text("s"))
                    .set("amopopr", oid(m.opr))
                    .set("amopmethod", oid(k.am.oid()))
                    .set("amopsortfamily", oid(0))
                    .done(),
            );
        }
    }
    out
}

/// pg_amproc: the support functions of the user's operator classes (a
/// dropped function's row went with it, as in PostgreSQL).
fn amproc_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for k in c.opclasses() {
        for m in &k.procs {
            let exists = c.functions(&m.name).iter().any(|f| f.oid.0 == m.func);
            if !exists {
                continue;
            }
            out.push(
                RowB::new(Rel::Amproc)
                    .set("oid", oid(m.oid))
                    .set("amprocfamily", oid(k.family))
                    .set("amproclefttype", oid(m.left))
                    .set("amprocrighttype", oid(m.right))
                    .set("amprocnum", Value::Int2(m.number))
                    .set("amproc", oid(m.func))
                    .done(),
            );
        }
    }
    out
}

fn index_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for t in c.tables() {
        for i in &t.indexes {
            let n = index_width(i) as i16;
            let attrs = index_attributes(c, &t, i);
            let types: Vec<DataType> = attrs.iter().map(|(_, ty)| *ty).collect();
            let (indkey, indexprs, indpred) = match &i.exprs {
                None => (
                    i.columns.iter().map(|&k| k as i64 + 1).collect::<Vec<_>>(),
                    Value::Null,
                    Value::Null,
                ),
                Some(x) => {
                    let key = x
                        .keys
                        .iter()
                        .map(|k| match k {
                            IndexKey::Column(c) => *c as i64 + 1,
                            IndexKey::Expr(_) => 0,
                        })
                        .collect();
                    let exprs: Vec<&str> = x
                        .keys
                        .iter()
                        .filter_map(|k| match k {
                            IndexKey::Expr(e) => Some(e.as_str()),
                            IndexKey::Column(_) => None,
                        })
                        .collect();
                    let exprs = if exprs.is_empty() {
                        Value::Null
                    } else {
                        text(exprs.join(", "))
                    };
                    (key, exprs, x.predicate.as_deref().map_or(Value::Null, text))
                }
            };
            out.push(
                RowB::new(Rel::Index)
                    .set("indexrelid", oid(i.oid.0))
                    .set("indrelid", oid(t.oid.0))
                    .set("indnatts", Value::Int2(n))
                    .set("indnkeyatts", Value::Int2(n))
                    .set("indisunique", Value::Bool(i.unique))
                    .set(
                        "indnullsnotdistinct",
                        Value::Bool(i.index.nulls_not_distinct),
                    )
                    .set("indisprimary", Value::Bool(i.primary))
                    .set("indimmediate", Value::Bool(true))
                    .set("indisvalid", Value::Bool(true))
                    .set("indisready", Value::Bool(true))
                    .set("indislive", Value::Bool(true))
                    .set("indkey", vector(DataType::Int2, indkey))
                    .set("indexprs", indexprs)
                    .set("indpred", indpred)
                    .set(
                        "indcollation",
                        vector(
                            DataType::Oid,
                            types.iter().enumerate().map(|(k, t)| {
                                match i.keyopts.get(k).and_then(|o| o.collation.as_deref()) {
                                    Some(c) => i64::from(collation_oid(c)),
                                    None if t.is_string() => i64::from(DEFAULT_COLLATION_OID),
                                    None => 0,
                                }
                            }),
                        ),
                    )
                    .set(
                        "indclass",
                        vector(
                            DataType::Oid,
                            types.iter().enumerate().map(|(k, t)| {
                                let named = i
                                    .keyopts
                                    .get(k)
                                    .and_then(|o| o.opclass.as_deref())
                                    .and_then(named_opclass_oid);
                                i64::from(match i.method {
                                    AccessMethod::Btree => named.unwrap_or_else(|| opclass_of(*t)),
                                    AccessMethod::Hash => hash_opclass_of(*t),
                                    AccessMethod::Gin => gin_class_of(i, k),
                                })
                            }),
                        ),
                    )
                    .set(
                        "indoption",
                        vector(
                            DataType::Int2,
                            (0..types.len()).map(|k| i64::from(i.key_opt(k).indoption())),
                        ),
                    )
                    .done(),
            );
        }
    }
    out
}

/// The type a GIN index stores for key `k` of type `ty` (its class's
/// opckeytype): array_ops an element, jsonb_ops and tsvector_ops text,
/// jsonb_path_ops a hash (integer).
fn gin_key_type(i: &IndexDef, k: usize, ty: DataType) -> DataType {
    use nestor_catalog::gin::GinClass;
    match i.exprs.as_ref().and_then(|x| x.gin.get(k)) {
        Some(GinClass::ArrayOps) => ty.element().unwrap_or(ty),
        Some(GinClass::JsonbOps | GinClass::TsvectorOps) => DataType::Text,
        Some(GinClass::JsonbPathOps) => DataType::Int4,
        None => ty,
    }
}

/// The pg_opclass oid of a GIN index's key `k`.
fn gin_class_of(i: &IndexDef, k: usize) -> u32 {
    i.exprs
        .as_ref()
        .and_then(|x| x.gin.get(k))
        .map_or(0, |c| c.oid())
}

/// A constraint of some table, as pg_constraint and pg_get_constraintdef
/// see it.
enum Constraint<'a> {
    Index(&'a IndexDef),
    Check(usize),
    Foreign(&'a nestor_catalog::ForeignKey),
}

/// Which constraint of its table a pg_constraint row is.
#[derive(Clone, Copy)]
enum Slot {
    Index(usize),
    Check(usize),
    Foreign(usize),
}

/// Every constraint with its OID, in table OID order (the numbering the
/// module header describes).
fn constraints(c: &Catalog) -> Vec<(u32, Arc<TableDef>, Slot)> {
    let mut tables = c.tables();
    tables.sort_by_key(|t| t.oid.0);
    let mut out = Vec::new();
    let mut ordinal = 0u32;
    for t in tables {
        for (k, i) in t.indexes.iter().enumerate() {
            if i.constraint {
                out.push((i.oid.0, t.clone(), Slot::Index(k)));
            }
        }
        for k in 0..t.checks.len() {
            out.push((CHECK_OID_BASE + ordinal, t.clone(), Slot::Check(k)));
            ordinal += 1;
        }
        for (k, fk) in t.foreign_keys.iter().enumerate() {
            out.push((fk.oid.0, t.clone(), Slot::Foreign(k)));
        }
    }
    out
}

fn constraint_of(t: &TableDef, slot: Slot) -> Constraint<'_> {
    match slot {
        Slot::Index(k) => Constraint::Index(&t.indexes[k]),
        Slot::Check(k) => Constraint::Check(k),
        Slot::Foreign(k) => Constraint::Foreign(&t.foreign_keys[k]),
    }
}

fn column_list(t: &TableDef, cols: &[usize]) -> String {
    let names: Vec<String> = cols
        .iter()
        .map(|&k| quote_ident(&t.columns[k].name))
        .collect();
    names.join(", ")
}

/// `pg_get_constraintdef`; `pretty` drops the check expression's own
/// parentheses, as PostgreSQL's pretty-printer does.
/// `public_visible`: search_path holds public, so names in it print
/// unqualified (PostgreSQL's generate_relation_name).
fn constraint_def(
    c: &Catalog,
    t: &TableDef,
    con: &Constraint,
    pretty: bool,
    public_visible: bool,
) -> String {
    let mut def = constraint_body(c, t, con, pretty, public_visible);
    if !constraint_validated(t, con) {
        def.push_str(" NOT VALID");
    }
    def
}

/// pg_constraint.convalidated: false for a CHECK or FOREIGN KEY added NOT
/// VALID and not validated since.
fn constraint_validated(t: &TableDef, con: &Constraint) -> bool {
    let name = match con {
        Constraint::Index(_) => return true,
        Constraint::Check(k) => &t.checks[*k].name,
        Constraint::Foreign(fk) => &fk.name,
    };
    !t.not_valid.contains(name)
}

fn constraint_body(
    c: &Catalog,
    t: &TableDef,
    con: &Constraint,
    pretty: bool,
    public_visible: bool,
) -> String {
    match con {
        Constraint::Foreign(fk) => {
            let parent = c.table_by_oid(fk.parent);
            let (pname, pcols) = match &parent {
                Some(p) => (
                    if pretty || public_visible {
                        quote_ident(&p.name)
                    } else {
                        qualified(c, p, &p.name)
                    },
                    column_list(p, &fk.parent_columns),
                ),
                None => (fk.parent.0.to_string(), String::new()),
            };
            let mut s = format!(
                "FOREIGN KEY ({}) REFERENCES {pname}({pcols})",
                column_list(t, &fk.columns)
            );
            if fk.match_full {
                s.push_str(" MATCH FULL");
            }
            if fk.on_update != nestor_catalog::FkAction::NoAction {
                s.push_str(&format!(" ON UPDATE {}", fk.on_update.sql()));
            }
            if fk.on_delete != nestor_catalog::FkAction::NoAction {
                s.push_str(&format!(" ON DELETE {}", fk.on_delete.sql()));
            }
            if fk.deferrable {
                s.push_str(" DEFERRABLE");
            }
            if fk.deferred {
                s.push_str(" INITIALLY DEFERRED");
            }
            s
        }
        Constraint::Index(i) if i.primary => {
            format!("PRIMARY KEY ({})", column_list(t, &i.columns))
        }
        Constraint::Index(i) => format!("UNIQUE ({})", column_list(t, &i.columns)),
        Constraint::Check(k) if pretty => format!("CHECK ({})", t.checks[*k].expr),
        Constraint::Check(k) => format!("CHECK (({}))", t.checks[*k].expr),
    }
}

fn constraint_rows(c: &Catalog) -> Rows {
    constraints(c)
        .into_iter()
        .map(|(o, t, slot)| {
            let con = constraint_of(&t, slot);
            let mut r = RowB::new(Rel::Constraint);
            r.set("oid", oid(o))
                .set("connamespace", oid(table_namespace(&t, c)))
                .set("condeferrable", Value::Bool(false))
                .set("condeferred", Value::Bool(false))
                .set("convalidated", Value::Bool(constraint_validated(&t, &con)))
                .set("conrelid", oid(t.oid.0))
                .set("confupdtype", text(" "))
                .set("confdeltype", text(" "))
                .set("confmatchtype", text(" "))
                .set("conislocal", Value::Bool(true))
                .set("connoinherit", Value::Bool(false));
            match &con {
                Constraint::Index(i) => {
                    let keys = i
                        .columns
                        .iter()
                        .map(|&k| Value::Int2(k as i16 + 1))
                        .collect();
                    r.set("conname", text(&i.name))
                        .set("contype", text(if i.primary { "p" } else { "u" }))
                        .set("conindid", oid(i.oid.0))
                        .set("conkey", Array::from_items(DataType::Int2, keys).value());
                }
                Constraint::Check(k) => {
                    r.set("conname", text(&t.checks[*k].name))
                        .set("contype", text("c"))
                        .set("conbin", text(&t.checks[*k].expr));
                }
                Constraint::Foreign(fk) => {
                    let ints = |cols: &[usize]| {
                        let v = cols.iter().map(|&k| Value::Int2(k as i16 + 1)).collect();
                        Array::from_items(DataType::Int2, v).value()
                    };
                    let index = c.table_by_oid(fk.parent).and_then(|p| {
                        let mut want = fk.parent_columns.clone();
                        want.sort_unstable();
                        p.indexes
                            .iter()
                            .find(|i| {
                                let mut have = i.columns.clone();
                                have.sort_unstable();
                                i.unique && have == want
                            })
                            .map(|i| i.oid.0)
                    });
                    let code = |a: nestor_catalog::FkAction| text((a.code() as char).to_string());
                    r.set("conname", text(&fk.name))
                        .set("contype", text("f"))
                        .set("condeferrable", Value::Bool(fk.deferrable))
                        .set("condeferred", Value::Bool(fk.deferred))
                        .set("conindid", oid(index.unwrap_or(0)))
                        .set("confrelid", oid(fk.parent.0))
                        .set("confupdtype", code(fk.on_update))
                        .set("confdeltype", code(fk.on_delete))
                        .set("confmatchtype", text(if fk.match_full { "f" } else { "s" }))
                        .set("conkey", ints(&fk.columns))
                        .set("confkey", ints(&fk.parent_columns));
                }
            }
            r.done()
        })
        .collect()
}

/// `(oid, table, column number)` of every column default.
fn defaults(c: &Catalog) -> Vec<(u32, Arc<TableDef>, usize)> {
    let mut tables = c.tables();
    tables.sort_by_key(|t| t.oid.0);
    let mut out = Vec::new();
    let mut ordinal = 0;
    for t in tables {
        for (k, col) in t.columns.iter().enumerate() {
            // An identity column's nextval is not a default to PostgreSQL.
            if col.default.is_some() && !col.dropped && t.identity(k).is_none() {
                out.push((ATTRDEF_OID_BASE + ordinal, t.clone(), k));
                ordinal += 1;
            }
        }
    }
    out
}

/// A serial default `nextval('s.seq'::regclass)` as PostgreSQL prints it
/// (the regclass constant by its name): `seq` alone when the search path
/// finds that sequence by it. The catalog keeps the qualified name, which
/// finds the sequence whatever the path of the session that inserts.
fn relative_nextval(c: &Catalog, d: String) -> String {
    let Some(q) = d
        .strip_prefix("nextval('")
        .and_then(|r| r.strip_suffix("'::regclass)"))
    else {
        return d;
    };
    let Some((_, bare)) = q.split_once('.') else {
        // Kept alone: a sequence of public (or a TEMP one), qualified
        // when the path does not find it by its name.
        if c.sequence(q).is_none() && c.sequence(&format!("public.{q}")).is_some() {
            return format!("nextval('public.{q}'::regclass)");
        }
        return d;
    };
    match (c.sequence(q), c.sequence(bare)) {
        (Some(a), Some(b)) if a.oid == b.oid => format!("nextval('{bare}'::regclass)"),
        _ => d,
    }
}

/// A column default as PostgreSQL's deparser prints it: a lone string
/// literal carries its cast (`'x'::text`).
pub(crate) fn default_text(t: &TableDef, k: usize) -> Option<String> {
    let col = &t.columns[k];
    Some(default_shown(col.ty, col.default.as_deref()?))
}

/// A DEFAULT of type `ty` as PostgreSQL's deparser prints it (see
/// [`default_text`]).
fn default_shown(ty: DataType, d: &str) -> String {
    let lone_literal = d.len() >= 2
        && d.starts_with('\'')
        && d.ends_with('\'')
        && !d[1..d.len() - 1].replace("''", "").contains('\'');
    if lone_literal && ty.is_string() {
        return format!("{d}::{}", ty.base());
    }
    if let Some(shown) = bits_default(ty, d, lone_literal) {
        return shown;
    }
    if lone_literal {
        // PostgreSQL stores the literal converted to the column's type and
        // prints the constant: booleans and non-negative integers and
        // numerics bare, everything else quoted with its type.
        let raw = d[1..d.len() - 1].replace("''", "'");
        let ev = nestor_types::EvalCtx::new(Default::default(), 0);
        if let Ok(v) = nestor_types::text::parse_text(ty.base(), &raw, &ev) {
            let shown = match &v {
                Value::Bool(b) => Some(b.to_string()),
                Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Numeric(_)
                    if !raw.trim_start().starts_with('-') =>
                {
                    Some(v.to_text(&ev))
                }
                _ => None,
            };
            if let Some(s) = shown {
                return s;
            }
        }
        return format!("{d}::{}", ty.base());
    }
    d.to_string()
}

/// A bit string DEFAULT as PostgreSQL prints it: a `B'..'`/`X'..'`
/// constant is a `bit` (`'0101'::"bit"`, whatever the column), a quoted
/// literal the column's type without its length (`'1001'::bit varying`);
/// None for anything else.
fn bits_default(ty: DataType, d: &str, lone_literal: bool) -> Option<String> {
    let (digits, cast) = match d.as_bytes() {
        [p @ (b'b' | b'B' | b'x' | b'X'), b'\'', .., b'\'']
            if !d[2..d.len() - 1].contains('\'') =>
        {
            (format!("{}{}", *p as char, &d[2..d.len() - 1]), "\"bit\"")
        }
        _ if lone_literal && matches!(ty, DataType::Bit(_)) => {
            (d[1..d.len() - 1].to_string(), "\"bit\"")
        }
        _ if lone_literal && matches!(ty, DataType::VarBit(_)) => {
            (d[1..d.len() - 1].to_string(), "bit varying")
        }
        _ => return None,
    };
    let bits = nestor_types::bits::parse(&digits).ok()?;
    Some(format!("'{}'::{cast}", bits.to_text()))
}

fn attrdef_rows(c: &Catalog) -> Rows {
    let tables = defaults(c);
    let next = ATTRDEF_OID_BASE + tables.len() as u32;
    let mut out: Rows = tables
        .into_iter()
        .map(|(o, t, k)| {
            let d = default_text(&t, k).map(|d| relative_nextval(c, d));
            attrdef_row(o, t.oid.0, k, d)
        })
        .collect();
    // Views' column defaults (ALTER VIEW ... SET DEFAULT) follow, in
    // view OID order.
    let mut views = c.views();
    views.sort_by_key(|v| v.oid.0);
    let view_defaults = views
        .iter()
        .flat_map(|v| v.defaults.iter().map(move |(k, d)| (v, *k, d)))
        .filter(|(v, k, _)| *k < v.columns.len());
    for (o, (v, k, d)) in (next..).zip(view_defaults) {
        let shown = default_shown(v.columns[k].1, d);
        out.push(attrdef_row(o, v.oid.0, k, Some(shown)));
    }
    out
}

fn attrdef_row(o: u32, rel: u32, k: usize, d: Option<String>) -> Vec<Value> {
    RowB::new(Rel::Attrdef)
        .set("oid", oid(o))
        .set("adrelid", oid(rel))
        .set("adnum", Value::Int2(k as i16 + 1))
        .set("adbin", d.map_or(Value::Null, text))
        .done()
}

/// A relation with triggers, as pg_trigger and pg_get_triggerdef see it.
struct TriggerOwner {
    oid: u32,
    name: String,
    /// Schema-qualified, quoted.
    qualified: String,
    /// attnum - 1 of a column by name.
    attnums: Vec<(String, usize)>,
    triggers: Vec<nestor_catalog::TriggerDef>,
}

/// The tables and views with triggers.
fn trigger_owners(c: &Catalog) -> Vec<TriggerOwner> {
    let mut out = Vec::new();
    for t in c.tables() {
        if t.triggers.is_empty() {
            continue;
        }
        out.push(TriggerOwner {
            oid: t.oid.0,
            name: t.name.clone(),
            qualified: qualified(c, &t, &t.name),
            attnums: t
                .live_columns()
                .map(|(k, col)| (col.name.clone(), k))
                .collect(),
            triggers: t.triggers.clone(),
        });
    }
    for v in c.views() {
        if v.triggers.is_empty() {
            continue;
        }
        let ns = temp_or(v.temporary, v.namespace, c);
        out.push(TriggerOwner {
            oid: v.oid.0,
            name: v.name.clone(),
            qualified: format!(
                "{}.{}",
                quote_ident(&namespace_name(c, ns)),
                quote_ident(&v.name)
            ),
            attnums: v
                .columns
                .iter()
                .enumerate()
                .map(|(k, (n, _))| (n.clone(), k))
                .collect(),
            triggers: v.triggers.clone(),
        });
    }
    out
}

/// pg_trigger.tgtype: ROW 1, BEFORE 2, INSERT 4, DELETE 8, UPDATE 16,
/// TRUNCATE 32, INSTEAD 64.
fn trigger_type(tg: &nestor_catalog::TriggerDef) -> i16 {
    use nestor_catalog::{TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_TRUNCATE, TRIGGER_UPDATE};
    let mut ty = 0i16;
    if tg.row {
        ty |= 1;
    }
    match tg.timing {
        TriggerTiming::Before => ty |= 2,
        TriggerTiming::Instead => ty |= 64,
        TriggerTiming::After => {}
    }
    for (bit, pg) in [
        (TRIGGER_INSERT, 4),
        (TRIGGER_DELETE, 8),
        (TRIGGER_UPDATE, 16),
        (TRIGGER_TRUNCATE, 32),
    ] {
        if tg.events & bit != 0 {
            ty |= pg;
        }
    }
    ty
}

/// pg_policy rows (the expressions as SQL text, which pg_get_expr
/// returns as ruleutils prints them), or the pg_policies view's.
fn policy_rows(c: &Catalog, rel: Rel) -> Rows {
    let mut out = Vec::new();
    for t in c.tables() {
        for p in &t.row_security.policies {
            let expr = |e: &Option<String>| {
                e.as_deref().map_or(Value::Null, |s| {
                    text(nestor_plan::select::partition::expr_text(s))
                })
            };
            let row = if rel == Rel::Policy {
                RowB::new(Rel::Policy)
                    .set("oid", oid(p.oid.0))
                    .set("polname", text(&p.name))
                    .set("polrelid", oid(t.oid.0))
                    .set("polcmd", text((p.cmd.code() as char).to_string()))
                    .set("polpermissive", Value::Bool(p.permissive))
                    .set(
                        "polroles",
                        Array::from_items(DataType::Oid, p.roles.iter().map(|&r| oid(r)).collect())
                            .value(),
                    )
                    .set("polqual", expr(&p.qual))
                    .set("polwithcheck", expr(&p.check))
                    .done()
            } else {
                let roles = p
                    .roles
                    .iter()
                    .map(|&r| match r {
                        0 => text("public"),
                        r => text(role_name(c, r)),
                    })
                    .collect();
                RowB::new(Rel::Policies)
                    .set("schemaname", text(table_schema_name(&t, c)))
                    .set("tablename", text(&t.name))
                    .set("policyname", text(&p.name))
                    .set(
                        "permissive",
                        text(if p.permissive {
                            "PERMISSIVE"
                        } else {
                            "RESTRICTIVE"
                        }),
                    )
                    .set("roles", Array::from_items(DataType::Name, roles).value())
                    .set("cmd", text(p.cmd.name()))
                    .set("qual", expr(&p.qual))
                    .set("with_check", expr(&p.check))
                    .done()
            };
            out.push(row);
        }
    }
    out
}

/// row_security_active(table): PostgreSQL's check_enable_rls without
/// its error: the table has row-level security enabled and the current
/// role is no superuser, no BYPASSRLS role and not its owner (unless
/// FORCE).
fn row_security_active(c: &Catalog, arg: &Value, ev: &Ev) -> Result<Value, DbError> {
    let name = match arg {
        Value::Null => return Ok(Value::Null),
        v => nestor_plan::valops::to_text(v, &ev.ctx.eval).unwrap_or_default(),
    };
    let t = match name.parse::<u32>() {
        Ok(oid) => c.table_by_oid(RelId(oid)),
        Err(_) => c.table(&name),
    };
    let Some(t) = t else {
        return Err(DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        ));
    };
    let role = c.rls_user().role;
    if !t.row_security.enabled || role == 0 {
        return Ok(Value::Bool(false));
    }
    let owner = c.acl(nestor_catalog::acl::ObjKind::Table, t.oid.0).owner;
    let owns = c.has_privs_of_role(RelId(role), owner);
    Ok(Value::Bool(!owns || t.row_security.forced))
}

fn trigger_rows(c: &Catalog) -> Rows {
    let mut out = Vec::new();
    for t in trigger_owners(c) {
        for tg in &t.triggers {
            let mut args = Vec::new();
            for a in &tg.args {
                args.extend_from_slice(a.as_bytes());
                args.push(0);
            }
            let attrs = tg
                .columns
                .iter()
                .filter_map(|n| t.attnums.iter().find(|(c, _)| c == n))
                .map(|&(_, k)| k as i64 + 1);
            out.push(
                RowB::new(Rel::Trigger)
                    .set("oid", oid(tg.oid.0))
                    .set("tgrelid", oid(t.oid))
                    .set("tgparentid", oid(tg.parent.map_or(0, |p| p.0)))
                    .set("tgname", text(&tg.name))
                    .set("tgfoid", oid(tg.function.0))
                    .set("tgtype", Value::Int2(trigger_type(tg)))
                    .set("tgenabled", text(tg.enabled.code().to_string()))
                    .set("tgnargs", Value::Int2(tg.args.len() as i16))
                    .set("tgattr", vector(DataType::Int2, attrs))
                    .set("tgargs", Value::Bytea(Arc::from(args)))
                    .set("tgqual", tg.when.as_deref().map_or(Value::Null, text))
                    .set(
                        "tgoldtable",
                        tg.old_table.as_deref().map_or(Value::Null, text),
                    )
                    .set(
                        "tgnewtable",
                        tg.new_table.as_deref().map_or(Value::Null, text),
                    )
                    .done(),
            );
        }
    }
    out
}

/// A sequence's data type: its AS type; for sequences logged before that
/// was kept, its owning column's for serial columns (smallserial, serial,
/// bigserial), bigint otherwise.
pub(crate) fn sequence_type(c: &Catalog, s: &nestor_catalog::Sequence) -> DataType {
    match s.type_oid {
        21 => return DataType::Int2,
        23 => return DataType::Int4,
        20 => return DataType::Int8,
        _ => {}
    }
    s.owned_by
        .as_ref()
        .and_then(|(table, column)| {
            let t = c.table(&c.qualify(s.namespace, table))?;
            let ty = t.columns[t.column_index(column)?].ty;
            ty.is_integer().then_some(ty)
        })
        .unwrap_or(DataType::Int8)
}

fn depend_rows(c: &Catalog) -> Rows {
    let class = i64::from(Rel::Class.oid());
    let mut out = Vec::new();
    for t in c.tables() {
        for i in &t.indexes {
            out.push(vec![
                Value::Int8(class),
                oid(i.oid.0),
                Value::Int4(0),
                Value::Int8(class),
                oid(t.oid.0),
                Value::Int4(0),
                text(if i.constraint { "i" } else { "a" }),
            ]);
        }
    }
    // A view's _RETURN rule belongs to the view ('i') and depends on what
    // the query reads ('n'): pg_dump orders views after their tables by
    // these.
    let rewrite = i64::from(Rel::Rewrite.oid());
    let rules = c
        .views()
        .iter()
        .map(|v| (v.oid, v.rule_oid, v.depends_on.clone()))
        .chain(c.tables().iter().filter_map(|t| {
            let m = t.matview.as_ref()?;
            Some((t.oid, m.rule_oid, m.depends_on.clone()))
        }))
        .collect::<Vec<_>>();
    for (view, rule, depends_on) in rules {
        let rows = std::iter::once((view, "i")).chain(depends_on.iter().map(|d| (*d, "n")));
        for (on, deptype) in rows {
            out.push(vec![
                Value::Int8(rewrite),
                oid(rule.0),
                Value::Int4(0),
                Value::Int8(class),
                oid(on.0),
                Value::Int4(0),
                text(deptype),
            ]);
        }
    }
    // A column default that calls nextval('s'::regclass) depends on s
    // (pg_dump then sets such defaults after creating the sequence).
    let sequences = c.sequences();
    for (o, t, k) in defaults(c) {
        let Some(d) = t.columns[k].default.as_deref() else {
            continue;
        };
        for s in &sequences {
            let called = |name: &str| d.contains(&format!("nextval('{name}'::regclass)"));
            let qualified = c.qualify(s.namespace, &s.name);
            let bare_is_it = s.namespace == PUBLIC_NAMESPACE_OID || s.temporary;
            if (bare_is_it && called(&s.name)) || called(&qualified) {
                out.push(vec![
                    oid(Rel::Attrdef.oid()),
                    oid(o),
                    Value::Int4(0),
                    Value::Int8(class),
                    oid(s.oid.0),
                    Value::Int4(0),
                    text("n"),
                ]);
            }
        }
    }
    for s in c.sequences() {
        if let Some((table, column)) = &s.owned_by {
            if let Some(t) = c.table(&c.qualify(s.namespace, table)) {
                let k = t.column_index(column);
                let attnum = k.map_or(0, |k| k as i32 + 1);
                // An identity sequence depends internally ('i') on its
                // column, a serial's automatically ('a').
                let deptype = if k.and_then(|k| t.identity(k)).is_some() {
                    "i"
                } else {
                    "a"
                };
                out.push(vec![
                    Value::Int8(class),
                    oid(s.oid.0),
                    Value::Int4(0),
                    Value::Int8(class),
                    oid(t.oid.0),
                    Value::Int4(attnum),
                    text(deptype),
                ]);
            }
        }
    }
    out.extend(composite_depend_rows(c));
    out
}

/// pg_proc.provariadic: the element type of a VARIADIC argument (0 for
/// none; `anyelement` for `VARIADIC anyarray`).
fn variadic_element(f: &FunctionDef) -> u32 {
    use nestor_types::datatype::Poly;
    let Some(a) = f
        .args
        .iter()
        .find(|a| a.mode == nestor_catalog::ArgMode::Variadic)
    else {
        return 0;
    };
    match a.ty {
        DataType::Poly(Poly::AnyArray) => Poly::AnyElement.oid(),
        DataType::Poly(Poly::AnyCompatibleArray) => Poly::AnyCompatible.oid(),
        t => t.element().map_or(0, DataType::oid),
    }
}

fn proc_row(c: &Catalog, f: &FunctionDef) -> Vec<Value> {
    let proc_owner = owner_acl(c, nestor_catalog::acl::ObjKind::Function, f.oid.0);
    let inputs: Vec<_> = f.args.iter().filter(|a| a.mode.is_input()).collect();
    let rettype = match &f.returns {
        _ if f.procedure && f.args.iter().any(|a| a.mode.is_output()) => 2249,
        _ if f.procedure => DataType::Void.oid(),
        Returns::Scalar(t) => f.result_domain.unwrap_or_else(|| t.oid()),
        Returns::Row(_) | Returns::RowType(_) | Returns::Record => 2249,
        Returns::Trigger => 2279,
    };
    let all_in = f.args.iter().all(|a| a.mode == nestor_catalog::ArgMode::In);
    let names: Vec<Value> = f.args.iter().map(|a| text(&a.name)).collect();
    let modes: Vec<Value> = f
        .args
        .iter()
        .map(|a| {
            text(match a.mode {
                nestor_catalog::ArgMode::In => "i",
                nestor_catalog::ArgMode::Out => "o",
                nestor_catalog::ArgMode::InOut => "b",
                nestor_catalog::ArgMode::Variadic => "v",
            })
        })
        .collect();
    RowB::new(Rel::Proc)
        .set("oid", oid(f.oid.0))
        .set("proname", text(&f.name))
        .set("pronamespace", oid(PUBLIC_NAMESPACE_OID))
        .set("proowner", oid(proc_owner.0))
        .set("proacl", proc_owner.1)
        .set(
            "prolang",
            oid(match f.language {
                nestor_catalog::Language::Sql => 14,
                nestor_catalog::Language::PlPgSql => PLPGSQL_LANGUAGE_OID,
            }),
        )
        .set("procost", Value::Float4(100.0))
        .set(
            "prorows",
            Value::Float4(if f.retset { 1000.0 } else { 0.0 }),
        )
        .set(
            "prokind",
            text(match (f.procedure, &f.aggregate) {
                (true, _) => "p",
                (false, Some(_)) => "a",
                (false, None) => "f",
            }),
        )
        .set("provariadic", oid(variadic_element(f)))
        .set("proisstrict", Value::Bool(f.strict))
        .set("proretset", Value::Bool(f.retset))
        .set("provolatile", text(f.volatility.code().to_string()))
        .set("proparallel", text("u"))
        .set("pronargs", Value::Int2(inputs.len() as i16))
        .set(
            "pronargdefaults",
            Value::Int2(inputs.iter().filter(|a| a.default.is_some()).count() as i16),
        )
        .set("prorettype", oid(rettype))
        .set(
            "proargtypes",
            vector(DataType::Oid, inputs.iter().map(|a| i64::from(a.ty.oid()))),
        )
        .set(
            "proallargtypes",
            if all_in {
                Value::Null
            } else {
                Array::from_items(
                    DataType::Oid,
                    f.args.iter().map(|a| oid(a.ty.oid())).collect(),
                )
                .value()
            },
        )
        .set(
            "proargmodes",
            if all_in {
                Value::Null
            } else {
                Array::from_items(DataType::Text, modes).value()
            },
        )
        .set(
            "proargnames",
            if f.args.iter().all(|a| a.name.is_empty()) {
                Value::Null
            } else {
                Array::from_items(DataType::Text, names).value()
            },
        )
        .set("prosrc", text(&f.body))
        .done()
}

// ----- functions ------------------------------------------------------------

/// `quote_literal`: single quotes, doubled inside; with a backslash the
/// E'' form with backslashes doubled, as PostgreSQL writes it.
pub fn quote_literal(s: &str) -> String {
    let body = s.replace('\'', "''");
    if s.contains('\\') {
        format!("E'{}'", body.replace('\\', "\\\\"))
    } else {
        format!("'{body}'")
    }
}

pub use nestor_plan::pg_catalog::quote_ident;

fn qualified(c: &Catalog, t: &TableDef, name: &str) -> String {
    format!(
        "{}.{}",
        quote_ident(&table_schema_name(t, c)),
        quote_ident(name)
    )
}

/// (index, parent index) for each partition's index that an index of
/// its partitioned parent claims.
fn index_partitions(c: &Catalog, tables: &[Arc<TableDef>]) -> Vec<(u32, u32)> {
    use nestor_catalog::partition_index::claiming;
    let mut out = Vec::new();
    for t in tables.iter().filter(|t| t.partition_bound.is_some()) {
        let Some(parent) = t.inherits.first().and_then(|&p| c.table_by_oid(p)) else {
            continue;
        };
        for i in &t.indexes {
            if let Some(p) = claiming(&parent, t, i) {
                out.push((i.oid.0, p.oid.0));
            }
        }
    }
    out
}

/// Key columns of an index (plain or computed).
fn index_width(i: &IndexDef) -> usize {
    i.exprs.as_ref().map_or(i.columns.len(), |x| x.keys.len())
}

/// The attributes of an index relation: (name, type) per key column, an
/// expression's named as PostgreSQL names it (`lower`, `expr`) and typed
/// by binding it.
/// The table column index key `k` is, when it is a plain column.
fn index_key_column(i: &IndexDef, k: usize) -> Option<usize> {
    match &i.exprs {
        None => i.columns.get(k).copied(),
        Some(x) => match x.keys.get(k) {
            Some(IndexKey::Column(col)) => Some(*col),
            _ => None,
        },
    }
}

fn index_attributes(c: &Catalog, t: &Arc<TableDef>, i: &IndexDef) -> Vec<(String, DataType)> {
    use nestor_plan::select::index_expr;
    let Some(x) = &i.exprs else {
        return i
            .columns
            .iter()
            .map(|&k| (t.columns[k].name.clone(), t.columns[k].ty))
            .collect();
    };
    let bound = index_expr::bind_stored(c, t, x).ok();
    x.keys
        .iter()
        .enumerate()
        .map(|(k, key)| {
            let ty = bound
                .as_ref()
                .and_then(|b| b.keys.get(k))
                .map_or(DataType::Text, |(_, ty)| *ty);
            let name = match key {
                IndexKey::Column(col) => t.columns[*col].name.clone(),
                IndexKey::Expr(e) => nestor_parser::parse_expr(e)
                    .map_or_else(|_| "expr".into(), |n| index_expr::default_name_part(&n)),
            };
            (name, ty)
        })
        .collect()
}

/// The key columns as `pg_get_indexdef` prints them (`a`, `lower(b)`,
/// `((a + 1))`; `pretty`: `(a + 1)`).
fn index_columns(t: &TableDef, i: &IndexDef, pretty: bool) -> Vec<String> {
    let mut keys = index_keys(t, i, pretty);
    // A GIN key's class is shown unless it is its type's default
    // (`(body jsonb_path_ops)`), as pg_get_indexdef does.
    if let Some(x) = &i.exprs {
        for (key, g) in keys.iter_mut().zip(&x.gin) {
            if !g.is_default() {
                key.push(' ');
                key.push_str(g.name());
            }
        }
    }
    for (key, o) in keys.iter_mut().zip(&i.keyopts) {
        key.push_str(&key_decoration(o, i.method));
    }
    keys
}

/// What pg_get_indexdef prints after a key: COLLATE when not the key's
/// own, a class that is not the default, then DESC (NULLS LAST when not
/// DESC's default) or NULLS FIRST, for a method that orders.
pub(crate) fn key_decoration(o: &nestor_catalog::IndexKeyOpt, am: AccessMethod) -> String {
    let mut out = String::new();
    if let Some(c) = &o.collation {
        out.push_str(&format!(" COLLATE {}", quote_ident(c)));
    }
    if let Some(c) = &o.opclass {
        out.push_str(&format!(" {}", quote_ident(c)));
    }
    if am == AccessMethod::Btree {
        match (o.desc, o.nulls_first) {
            (true, true) => out.push_str(" DESC"),
            (true, false) => out.push_str(" DESC NULLS LAST"),
            (false, true) => out.push_str(" NULLS FIRST"),
            (false, false) => {}
        }
    }
    out
}

/// pg_collation.oid of a collation an index or partition key names
/// (100: default; ucs_basic's is the one PostgreSQL 15's initdb gives it).
fn collation_oid(name: &str) -> u32 {
    match name {
        "C" => 950,
        "POSIX" => 951,
        "ucs_basic" => 12340,
        _ => DEFAULT_COLLATION_OID,
    }
}

/// pg_opclass.oid of a btree class an index key names that is not its
/// type's default: a non-default class, or another type's default (a
/// binary-coercible one, `bpchar_ops` on text).
fn named_opclass_oid(name: &str) -> Option<u32> {
    use DataType as T;
    let other = match name {
        "bpchar_ops" => Some(opclass_of(T::Char(None))),
        "oid_ops" => Some(opclass_of(T::Oid)),
        "bit_ops" => Some(opclass_of(T::Bit(None))),
        "varbit_ops" => Some(opclass_of(T::VarBit(None))),
        _ => None,
    };
    NAMED_BTREE_OPCLASSES
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(o, ..)| *o)
        .or(other)
}

/// The btree classes an index may name that are no type's default:
/// (pg_opclass.oid, opcname, opcintype), as PostgreSQL 15 numbers them.
const NAMED_BTREE_OPCLASSES: [(u32, &str, u32); 4] = [
    (4217, "text_pattern_ops", 25),
    (4218, "varchar_pattern_ops", 25),
    (4219, "bpchar_pattern_ops", 1042),
    (10044, "varchar_ops", 25),
];

/// The keys alone, as `pg_get_indexdef(index, column, pretty)` shows one.
fn index_keys(t: &TableDef, i: &IndexDef, pretty: bool) -> Vec<String> {
    use nestor_plan::select::index_expr;
    let Some(x) = &i.exprs else {
        return i
            .columns
            .iter()
            .map(|&k| quote_ident(&t.columns[k].name))
            .collect();
    };
    x.keys
        .iter()
        .map(|k| match k {
            IndexKey::Column(c) => quote_ident(&t.columns[*c].name),
            IndexKey::Expr(e) if pretty => index_expr::key_column_text(&index_expr::pretty(e)),
            IndexKey::Expr(e) => index_expr::key_column_text(e),
        })
        .collect()
}

/// `CREATE [UNIQUE] INDEX name ON [ONLY] public.t USING method (a, b)`, with
/// ` WHERE (pred)` for a partial index (`pretty`: as psql's `\d` shows
/// it, minimal parentheses).
fn index_def(c: &Catalog, t: &TableDef, i: &IndexDef) -> String {
    index_def_as(c, t, i, false)
}

fn index_def_as(c: &Catalog, t: &TableDef, i: &IndexDef, pretty: bool) -> String {
    // The pretty form names the table as search_path finds it
    // (PostgreSQL's generate_relation_name), the other always qualified.
    let table = if pretty {
        visible_name(c, t.namespace, &t.name)
    } else if t.persistence == Persistence::Temporary {
        format!("pg_temp.{}", quote_ident(&t.name))
    } else {
        format!(
            "{}.{}",
            quote_ident(&table_schema_name(t, c)),
            quote_ident(&t.name)
        )
    };
    format!(
        "CREATE {}INDEX {} ON {}{} USING {} ({})",
        if i.unique { "UNIQUE " } else { "" },
        quote_ident(&i.name),
        // A partitioned table's index is its own (each partition has
        // one), as pg_get_indexdef says with ONLY.
        if t.partition_key.is_some() {
            "ONLY "
        } else {
            ""
        },
        table,
        i.method.name(),
        index_columns(t, i, pretty).join(", ")
    ) + if i.index.nulls_not_distinct {
        " NULLS NOT DISTINCT"
    } else {
        ""
    } + &index_with(i)
        + &match i.exprs.as_ref().and_then(|x| x.predicate.as_deref()) {
            None => String::new(),
            Some(p) if pretty => format!(" WHERE {}", nestor_plan::select::index_expr::pretty(p)),
            Some(p) => format!(" WHERE {p}"),
        }
}

fn find_index(c: &Catalog, o: u32) -> Option<(Arc<TableDef>, IndexDef)> {
    c.tables().into_iter().find_map(|t| {
        let i = t.indexes.iter().find(|i| i.oid.0 == o)?.clone();
        Some((t, i))
    })
}

fn function_result(c: &Catalog, f: &FunctionDef, public_visible: bool) -> Option<String> {
    if f.procedure {
        return None;
    }
    let outs: Vec<String> = f
        .args
        .iter()
        .filter(|a| a.mode.is_output())
        .map(|a| format!("{} {}", quote_ident(&a.name), a.ty))
        .collect();
    let setof = if f.retset { "SETOF " } else { "" };
    Some(match &f.returns {
        Returns::Row(cols) if f.retset && outs.is_empty() => {
            let cols: Vec<String> = cols
                .iter()
                .map(|(n, t)| format!("{} {t}", quote_ident(n)))
                .collect();
            format!("TABLE({})", cols.join(", "))
        }
        Returns::Row(_) | Returns::Record if !outs.is_empty() => format!("{setof}record"),
        Returns::Row(_) | Returns::Record => format!("{setof}record"),
        Returns::RowType(rel) => format!(
            "{setof}{}",
            c.table_by_oid(*rel)
                .map_or_else(|| "record".to_string(), |t| t.name.clone())
        ),
        Returns::Trigger => "trigger".into(),
        Returns::Scalar(_) if f.result_domain.is_some() => format!(
            "{setof}{}",
            f.result_domain
                .and_then(nestor_types::domains::lookup)
                .map_or_else(String::new, |d| d.name.clone())
        ),
        Returns::Scalar(t) => format!("{setof}{}", signature_type(*t, public_visible)),
    })
}

/// A type's name in a function's signature: a user-defined composite or
/// enum type (or an array of one) qualified when `public` is not on
/// search_path (as format_type_be prints it).
fn signature_type(t: DataType, public_visible: bool) -> String {
    let elem = match t {
        DataType::Array(e) => *e,
        t => t,
    };
    let user = match elem {
        DataType::Record(r) => {
            nestor_types::composites::lookup(r.oid).is_some_and(|c| c.relid != c.oid)
        }
        DataType::Enum(_) => true,
        _ => false,
    };
    if public_visible || !user {
        t.to_string()
    } else {
        format!("public.{t}")
    }
}

fn function_arguments(f: &FunctionDef, identity: bool, public_visible: bool) -> String {
    let table_result = f.retset
        && matches!(f.returns, Returns::Row(_))
        && !f.args.iter().any(|a| a.mode.is_output());
    let _ = table_result;
    let parts: Vec<String> = f
        .args
        .iter()
        .filter(|a| !identity || a.mode.is_input())
        .map(|a| {
            let mode = match a.mode {
                // PostgreSQL marks a procedure's IN arguments, as DROP
                // PROCEDURE's syntax would otherwise be ambiguous.
                nestor_catalog::ArgMode::In if f.procedure => "IN ",
                nestor_catalog::ArgMode::In => "",
                nestor_catalog::ArgMode::Out => "OUT ",
                nestor_catalog::ArgMode::InOut => "INOUT ",
                nestor_catalog::ArgMode::Variadic => "VARIADIC ",
            };
            let name = if a.name.is_empty() {
                String::new()
            } else {
                format!("{} ", quote_ident(&a.name))
            };
            let default = match (&a.default, identity) {
                (Some(d), false) => format!(" DEFAULT {d}"),
                _ => String::new(),
            };
            format!(
                "{mode}{name}{}{default}",
                signature_type(a.ty, public_visible)
            )
        })
        .collect();
    parts.join(", ")
}

/// `pg_get_viewdef`: the query as PostgreSQL's deparser lays it out
/// (`viewdef`), with the semicolon PostgreSQL ends it with; a query that
/// module does not cover shows its stored text on one line.
fn view_def(
    c: &Catalog,
    eval: &nestor_types::EvalCtx,
    query: &str,
    columns: &[(String, DataType)],
    layout: crate::viewdef::Layout,
) -> String {
    match crate::viewdef::definition(c, eval, query, columns, layout) {
        Some(d) => format!("{d};"),
        None => format!(" {};", visible_query(c, query)),
    }
}

/// The layout of pg_views.definition and pg_get_viewdef(view): not
/// pretty, every target entry on its own line.
const PLAIN_LAYOUT: crate::viewdef::Layout = crate::viewdef::Layout {
    pretty: false,
    wrap: 0,
};

/// A materialized view's columns, for the deparser's output names.
fn matview_columns(t: &nestor_catalog::TableDef) -> Vec<(String, DataType)> {
    t.columns
        .iter()
        .filter(|c| !c.dropped)
        .map(|c| (c.name.clone(), c.ty))
        .collect()
}

/// The relations a query names without a schema, as (text offset,
/// name), and the names of its WITH queries.
pub(crate) fn collect_unqualified(
    v: &serde_json::Value,
    out: &mut Vec<(usize, String)>,
    ctes: &mut Vec<String>,
) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(name) = map.get("ctename").and_then(|c| c.as_str()) {
                ctes.push(name.to_string());
            }
            for (k, child) in map {
                if k == "RangeVar" || k == "relation" {
                    let rel = child.get("relname").and_then(|r| r.as_str());
                    let schema = child.get("schemaname").and_then(|r| r.as_str());
                    let at = child.get("location").and_then(|l| l.as_i64());
                    if let (Some(rel), Some(at)) = (rel.filter(|r| !r.is_empty()), at) {
                        if schema.unwrap_or("").is_empty() && at >= 0 {
                            out.push((at as usize, rel.to_string()));
                        }
                    }
                }
                collect_unqualified(child, out, ctes);
            }
        }
        serde_json::Value::Array(items) => {
            for i in items {
                collect_unqualified(i, out, ctes);
            }
        }
        _ => {}
    }
}

/// A stored view query as PostgreSQL's deparser prints it under the
/// current search path: a relation of `public` it names alone (the
/// catalog keeps other schemas' names qualified) gets `public.` when the
/// path would not find it by its name alone.
fn visible_query(c: &Catalog, query: &str) -> String {
    let Ok(stmts) = nestor_parser::parse_sql(query) else {
        return query.to_string();
    };
    let Ok(json) = serde_json::to_value(&stmts) else {
        return query.to_string();
    };
    let (mut vars, mut ctes) = (Vec::new(), Vec::new());
    collect_unqualified(&json, &mut vars, &mut ctes);
    let oid = |r: Option<nestor_catalog::Relation>| match r {
        Some(nestor_catalog::Relation::Table(t)) => Some(t.oid),
        Some(nestor_catalog::Relation::View(v)) => Some(v.oid),
        Some(nestor_catalog::Relation::Sequence(s)) => Some(s.oid),
        _ => None,
    };
    let mut at: Vec<usize> = vars
        .into_iter()
        .filter(|(_, rel)| !ctes.contains(rel))
        .filter(|(_, rel)| {
            let public = oid(c.relation(&format!("public.{rel}")));
            public.is_some() && oid(c.relation(rel)) != public
        })
        .map(|(at, _)| at)
        .collect();
    if at.is_empty() {
        return query.to_string();
    }
    at.sort_by_key(|a| std::cmp::Reverse(*a));
    let mut shown = query.to_string();
    for a in at {
        if shown.is_char_boundary(a) {
            shown.insert_str(a, "public.");
        }
    }
    shown
}

/// `pg_get_triggerdef`; `pretty` names the table without its schema (as
/// PostgreSQL does when it is visible: every table is) and drops the
/// outer parentheses of WHEN.
fn trigger_def(c: &Catalog, o: u32, pretty: bool) -> Option<String> {
    use nestor_catalog::{TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_TRUNCATE, TRIGGER_UPDATE};
    let (t, tg) = trigger_owners(c).into_iter().find_map(|t| {
        let tg = t.triggers.iter().find(|g| g.oid.0 == o)?.clone();
        Some((t, tg))
    })?;
    let mut events = Vec::new();
    for (bit, name) in [
        (TRIGGER_INSERT, "INSERT"),
        (TRIGGER_DELETE, "DELETE"),
        (TRIGGER_UPDATE, "UPDATE"),
        (TRIGGER_TRUNCATE, "TRUNCATE"),
    ] {
        if tg.events & bit != 0 {
            if bit == TRIGGER_UPDATE && !tg.columns.is_empty() {
                events.push(format!(
                    "UPDATE OF {}",
                    tg.columns
                        .iter()
                        .map(|c| quote_ident(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            } else {
                events.push(name.to_string());
            }
        }
    }
    let func = c
        .function_by_oid(tg.function)
        .map_or_else(|| tg.function.0.to_string(), |f| f.name.clone());
    let args: Vec<String> = tg
        .args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "''")))
        .collect();
    let mut referencing = String::new();
    if tg.has_transition() {
        referencing.push_str(" REFERENCING");
        for (what, name) in [("OLD", &tg.old_table), ("NEW", &tg.new_table)] {
            if let Some(n) = name {
                referencing.push_str(&format!(" {what} TABLE AS {}", quote_ident(n)));
            }
        }
    }
    Some(format!(
        "CREATE TRIGGER {} {} {} ON {}{referencing} FOR EACH {}{} EXECUTE FUNCTION {}({})",
        quote_ident(&tg.name),
        match tg.timing {
            TriggerTiming::Before => "BEFORE",
            TriggerTiming::After => "AFTER",
            TriggerTiming::Instead => "INSTEAD OF",
        },
        events.join(" OR "),
        if pretty {
            quote_ident(&t.name)
        } else {
            t.qualified.clone()
        },
        if tg.row { "ROW" } else { "STATEMENT" },
        match &tg.when {
            None => String::new(),
            Some(w) if pretty => format!(" WHEN ({w})"),
            Some(w) => format!(" WHEN (({w}))"),
        },
        quote_ident(&func),
        args.join(", ")
    ))
}

/// `pg_size_pretty` as PostgreSQL 15 computes it: bytes below 10 kB,
/// then kB, MB, GB, TB, PB below 20 480 of each, half-rounded.
fn size_pretty(v: &Value) -> Option<String> {
    let mut size: i128 = match v {
        Value::Numeric(n) => n.to_string().split('.').next()?.parse().ok()?,
        v => i128::from(v.as_i64()?),
    };
    // (name, limit, half-rounded, unit bits)
    const UNITS: [(&str, i128, bool, u32); 6] = [
        ("bytes", 10 * 1024, false, 0),
        ("kB", 20 * 1024 - 1, true, 10),
        ("MB", 20 * 1024 - 1, true, 20),
        ("GB", 20 * 1024 - 1, true, 30),
        ("TB", 20 * 1024 - 1, true, 40),
        ("PB", 20 * 1024 - 1, true, 50),
    ];
    for (k, &(name, limit, round, bits)) in UNITS.iter().enumerate() {
        let last = k + 1 == UNITS.len();
        if last || size.abs() < limit {
            if round {
                size = (size + if size < 0 { -1 } else { 1 }) / 2;
            }
            return Some(format!("{size} {name}"));
        }
        let next = UNITS[k + 1];
        let shift = next.3 - bits - u32::from(next.2) + u32::from(round);
        size /= 1i128 << shift;
    }
    None
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

/// A relation argument given by OID or by name.
fn relation_oid(c: &Catalog, v: &Value) -> Result<Option<u32>, DbError> {
    Ok(match v {
        Value::Null => None,
        Value::Text(name) => Some(c.regclass(name)?),
        v => Some(int(v) as u32),
    })
}

/// Call a catalog function.
pub fn call(f: CatalogFn, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let c = ev.ctx.catalog;
    if let CatalogFn::TypeOf(o) = f {
        return Ok(Value::Int8(i64::from(o)));
    }
    if matches!(f, CatalogFn::QuoteNullable | CatalogFn::QuoteLiteral) {
        // quote_literal/quote_nullable(anyelement): another type's value
        // as its cast to text (PostgreSQL's SQL wrappers `$1::text`).
        let shown = match &args[0] {
            Value::Null => None,
            Value::Text(t) => Some(t.to_string()),
            v => Some(
                nestor_plan::valops::cast(v.clone(), DataType::Text, true, &ev.ctx.eval)?
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            ),
        };
        return Ok(match (f, shown) {
            (_, Some(t)) => text(quote_literal(&t)),
            (CatalogFn::QuoteNullable, None) => text("NULL"),
            (_, None) => Value::Null,
        });
    }
    if matches!(
        f,
        CatalogFn::SatisfiesHashPartition | CatalogFn::SatisfiesHashPartitionVariadic
    ) {
        // Not strict: NULL keys hash to nothing, NULL bounds answer false.
        return crate::hash_partition::call(f, args, ev);
    }
    let strict = !matches!(f, CatalogFn::IndexDef | CatalogFn::CurrentSchemas);
    if strict && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if args.first().is_some_and(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        CatalogFn::UserById => match int(&args[0]) as u32 {
            DATABASE_OWNER_ROLE_OID => text("pg_database_owner"),
            o => match c.role_by_oid(nestor_common::RelId(o)) {
                Some(r) => text(&r.name),
                None => text(format!("unknown (OID={o})")),
            },
        },
        CatalogFn::IndexDef => {
            let Some((t, i)) = find_index(c, int(&args[0]) as u32) else {
                return Ok(Value::Null);
            };
            let pretty = matches!(args.get(2), Some(Value::Bool(true)));
            match args.get(1).map_or(0, int) {
                0 => text(index_def_as(c, &t, &i, pretty)),
                k => match index_keys(&t, &i, pretty).get((k as usize).wrapping_sub(1)) {
                    Some(col) if k > 0 => text(col.clone()),
                    _ => text(""),
                },
            }
        }
        CatalogFn::ConstraintDef => {
            let o = int(&args[0]) as u32;
            if let Some(s) =
                domain_constraint_def(c, o, matches!(args.get(1), Some(Value::Bool(true))))
            {
                return Ok(text(s));
            }
            constraints(c).into_iter().find(|(x, _, _)| *x == o).map_or(
                Value::Null,
                |(_, t, slot)| {
                    let pretty = matches!(args.get(1), Some(Value::Bool(true)));
                    text(constraint_def(
                        c,
                        &t,
                        &constraint_of(&t, slot),
                        pretty,
                        public_visible(ev),
                    ))
                },
            )
        }
        CatalogFn::Expr => args[0].clone(),
        CatalogFn::PartKeyDef => partkey_def(c, int(&args[0]) as u32).map_or(Value::Null, text),
        CatalogFn::SatisfiesHashPartition | CatalogFn::SatisfiesHashPartitionVariadic => {
            unreachable!("called above")
        }
        CatalogFn::RowSecurityActive => row_security_active(c, &args[0], ev)?,
        CatalogFn::PartitionRoot => {
            // NULL for a table neither partitioned nor a partition.
            let mut cur = c.table_by_oid(RelId(int(&args[0]) as u32));
            if cur
                .as_ref()
                .is_none_or(|t| t.partition_key.is_none() && t.partition_bound.is_none())
            {
                return Ok(Value::Null);
            }
            let mut root = Value::Null;
            while let Some(t) = cur {
                root = Value::Int8(i64::from(t.oid.0));
                cur = t.partition_parent().and_then(|p| c.table_by_oid(p));
            }
            root
        }
        CatalogFn::PartitionConstraintDef => {
            partition_constraint_def(c, int(&args[0]) as u32).map_or(Value::Null, text)
        }
        CatalogFn::TriggerDef => {
            let pretty = matches!(args.get(1), Some(Value::Bool(true)));
            trigger_def(c, int(&args[0]) as u32, pretty).map_or(Value::Null, text)
        }
        CatalogFn::RelationIsUpdatable => {
            let o = RelId(int(&args[0]) as u32);
            let mut mask = nestor_plan::view_write::relation_updatable(c, ev.ctx.eval, o);
            if matches!(args.get(1), Some(Value::Bool(true))) {
                mask |= nestor_plan::view_write::trigger_updatable(c, o);
            }
            Value::Int4(mask)
        }
        CatalogFn::ColumnIsUpdatable => {
            let o = RelId(int(&args[0]) as u32);
            let attnum = int(&args[1]);
            Value::Bool(nestor_plan::view_write::column_updatable(
                c,
                ev.ctx.eval,
                o,
                attnum,
            ))
        }
        CatalogFn::ViewDef => {
            let Some(o) = relation_oid(c, &args[0])? else {
                return Ok(Value::Null);
            };
            // pretty (PRETTYFLAG_PAREN) for `true` and for a wrap
            // column, which also sets where target entries wrap.
            let layout = match args.get(1) {
                Some(Value::Bool(p)) => crate::viewdef::Layout {
                    pretty: *p,
                    wrap: 0,
                },
                Some(Value::Int4(w)) => crate::viewdef::Layout {
                    pretty: true,
                    wrap: *w,
                },
                _ => PLAIN_LAYOUT,
            };
            let matview = c.table_by_oid(RelId(o)).and_then(|t| {
                let m = t.matview.as_ref()?;
                Some(view_def(
                    c,
                    &ev.ctx.eval,
                    &m.query,
                    &matview_columns(&t),
                    layout,
                ))
            });
            match matview {
                Some(q) => text(q),
                None => c
                    .views()
                    .iter()
                    .find(|v| v.oid.0 == o)
                    .map_or(Value::Null, |v| {
                        text(view_def(c, &ev.ctx.eval, &v.query, &v.columns, layout))
                    }),
            }
        }
        CatalogFn::RuleDef => {
            let o = int(&args[0]) as u32;
            let pretty = args.get(1).is_some_and(|v| matches!(v, Value::Bool(true)));
            if let Some((rel, r)) = all_rules(c).into_iter().find(|(_, r)| r.oid.0 == o) {
                let schema = namespace_name(c, temp_or(rel.temporary, rel.namespace, c));
                let name = if pretty && public_visible(ev) && schema == "public" {
                    quote_ident(&rel.name)
                } else {
                    format!("{}.{}", quote_ident(&schema), quote_ident(&rel.name))
                };
                return Ok(text(rule_definition(&name, &r)));
            }
            c.views()
                .iter()
                .find(|v| v.rule_oid.0 == o)
                .map_or(Value::Null, |v| {
                    text(format!(
                        "CREATE RULE \"_RETURN\" AS\n    ON SELECT TO public.{} DO INSTEAD {};",
                        quote_ident(&v.name),
                        v.query
                    ))
                })
        }
        CatalogFn::StatisticsColumns | CatalogFn::FunctionSqlBody => Value::Null,
        CatalogFn::FunctionResult => c
            .function_by_oid(RelId(int(&args[0]) as u32))
            .and_then(|f| function_result(c, &f, public_visible(ev)))
            .map_or(Value::Null, text),
        CatalogFn::FunctionArguments | CatalogFn::FunctionIdentityArguments => c
            .function_by_oid(RelId(int(&args[0]) as u32))
            .map_or(Value::Null, |def| {
                text(function_arguments(
                    &def,
                    f == CatalogFn::FunctionIdentityArguments,
                    public_visible(ev),
                ))
            }),
        CatalogFn::RelationIsPublishable => {
            let o = relation_oid(c, &args[0])?.unwrap_or(0);
            Value::Bool(
                c.table_by_oid(RelId(o))
                    .is_some_and(|t| t.persistence == Persistence::Permanent),
            )
        }
        CatalogFn::RelationSize => {
            // The bytes of the rows the statement sees (no pages: the
            // relation is in memory).
            let o = relation_oid(c, &args[0])?.unwrap_or(0);
            match args.get(1).map(|f| f.as_str().unwrap_or("")) {
                None | Some("main") => {}
                Some("fsm" | "vm" | "init") => return Ok(Value::Int8(0)),
                Some(_) => {
                    return Err(
                        DbError::new(SqlState::InvalidParameterValue, "invalid fork name")
                            .with_hint(
                                "Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\".",
                            ),
                    )
                }
            }
            let mut bytes = 0usize;
            if let Some(t) = c.table_by_oid(RelId(o)) {
                t.storage
                    .for_each_stored(&ev.ctx.snapshot, |_, b| {
                        bytes += b.len();
                        Ok::<(), ()>(())
                    })
                    .ok();
            }
            Value::Int8(bytes as i64)
        }
        CatalogFn::SizePretty => size_pretty(&args[0]).map_or(Value::Null, text),
        CatalogFn::QuoteLiteral | CatalogFn::QuoteNullable | CatalogFn::TypeOf(_) => {
            unreachable!("handled before the NULL check")
        }
        CatalogFn::QuoteIdent => text(quote_ident(args[0].as_str().unwrap_or(""))),
        CatalogFn::SerialSequence => {
            let table = args[0].as_str().unwrap_or("");
            let column = args[1].as_str().unwrap_or("");
            let o = c.regclass(table)?;
            let t = c.table_by_oid(RelId(o)).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{table}\" does not exist"),
                )
            })?;
            // The column name is taken as written (PostgreSQL: "not
            // treated as an identifier, so it retains its case").
            let col = column;
            if t.column_index(col).is_none() {
                return Err(DbError::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{col}\" of relation \"{}\" does not exist", t.name),
                ));
            }
            c.sequences()
                .into_iter()
                .find(|s| {
                    s.owned_by
                        .as_ref()
                        .is_some_and(|(tb, cn)| *tb == t.name && cn == col)
                        && s.namespace == t.namespace
                })
                .map_or(Value::Null, |s| {
                    let schema = namespace_name(c, s.namespace);
                    text(format!("{}.{}", quote_ident(&schema), quote_ident(&s.name)))
                })
        }
        CatalogFn::SequenceState(last) => match c.sequence_by_oid(RelId(int(&args[0]) as u32)) {
            Some(s) => {
                let (value, called) = *s.state.lock();
                if last {
                    Value::Int8(value)
                } else {
                    Value::Bool(called)
                }
            }
            None => Value::Null,
        },
        CatalogFn::AclDefault => {
            let owner = nestor_catalog::acl::quote_role(&role_name(c, int(&args[1]) as u32));
            let items: Vec<String> = match args[0].as_str().unwrap_or("") {
                "r" => vec![format!("{owner}=arwdDxt/{owner}")],
                "s" => vec![format!("{owner}=rwU/{owner}")],
                "d" => vec![format!("=Tc/{owner}"), format!("{owner}=CTc/{owner}")],
                "f" => vec![format!("=X/{owner}"), format!("{owner}=X/{owner}")],
                "l" | "T" => vec![format!("=U/{owner}"), format!("{owner}=U/{owner}")],
                "n" => vec![format!("{owner}=UC/{owner}")],
                _ => Vec::new(),
            };
            Array::from_items(DataType::Text, items.iter().map(text).collect()).value()
        }
        CatalogFn::RegName(kind) => text(reg_name(c, kind, int(&args[0]) as u32)),
        CatalogFn::RegNames(kind) => {
            // An array of OIDs as the array of their names would print.
            let Value::Array(a) = &args[0] else {
                return Err(DbError::internal("reg name array of a non-array"));
            };
            let items = a
                .items
                .iter()
                .map(|v| match v {
                    Value::Null => Value::Null,
                    v => text(reg_name(c, kind, int(v) as u32)),
                })
                .collect();
            let names = Array::new(DataType::Text, a.dims.clone(), items)?;
            text(names.to_text(&ev.ctx.eval))
        }
        CatalogFn::ToReg(kind) => {
            let name = args[0].as_str().unwrap_or("");
            match spec::reg_lookup(c, kind, name) {
                Ok(o) if name.trim().parse::<u32>().is_err() => Value::Int8(i64::from(o)),
                _ => Value::Null,
            }
        }
        CatalogFn::RegInput(kind) => {
            let name = args[0].as_str().unwrap_or("");
            Value::Int8(i64::from(spec::reg_lookup(c, kind, name)?))
        }
        CatalogFn::CurrentSchemas => {
            // The schemas of search_path that exist (`$user`: a schema
            // named after the current role), pg_catalog first when
            // implicit ones are asked for and the path does not list it,
            // as PostgreSQL.
            let implicit = matches!(args[0], Value::Bool(true));
            let path = ev.ctx.settings.get("search_path").unwrap_or("");
            let items = nestor_settings::search_path_items(path);
            let user = crate::privilege::current_role_name(ev.ctx.settings);
            let mut names = Vec::new();
            if implicit && !items.iter().any(|i| i == "pg_catalog") {
                names.push(text("pg_catalog"));
            }
            for item in &items {
                let name = if item == "$user" { user } else { item.as_str() };
                let exists =
                    spec::NAMESPACES.iter().any(|(_, n)| *n == name) || c.schema(name).is_some();
                let listed = (implicit || name != "pg_catalog") && exists;
                if listed && !names.contains(&text(name)) {
                    names.push(text(name));
                }
            }
            Array::from_items(DataType::Name, names).value()
        }
    })
}

/// format_type as the session sees it: a user-defined type (composite,
/// enum, domain, or an array of one: all in `public`) is qualified when
/// search_path does not name `public` (pg_dump's empty path, so that a
/// restore finds it).
pub(crate) fn format_type_visible(ev: &Ev, type_oid: u32, typmod: Option<i32>) -> Option<String> {
    let s = format_type(type_oid, typmod)?;
    let user_type = |o: u32| {
        nestor_types::composites::lookup(o).is_some_and(|c| c.relid != c.oid)
            || nestor_types::enums::lookup(o).is_some()
            || nestor_types::domains::lookup(o).is_some()
    };
    let elem = match DataType::from_oid(type_oid) {
        Some(DataType::Array(DataType::Record(r))) => r.oid,
        Some(DataType::Array(DataType::Enum(e))) => *e,
        _ => nestor_types::domains::lookup_array(type_oid).map_or(type_oid, |d| d.oid),
    };
    if public_visible(ev) || !user_type(elem) {
        return Some(s);
    }
    Some(format!("public.{s}"))
}

/// Whether search_path names `public` (then objects there print without
/// their schema).
fn public_visible(ev: &Ev) -> bool {
    ev.ctx
        .settings
        .get("search_path")
        .unwrap_or("")
        .split(',')
        .any(|s| s.trim().trim_matches('"') == "public")
}

/// A relation's name as regclass prints it: qualified when its schema is
/// not `public` (the only schema unqualified names resolve in).
fn visible_name(c: &Catalog, ns: u32, name: &str) -> String {
    let found = |r: Option<nestor_catalog::Relation>| match r {
        Some(nestor_catalog::Relation::Table(t)) => t.namespace == ns,
        Some(nestor_catalog::Relation::View(v)) => v.namespace == ns,
        Some(nestor_catalog::Relation::Sequence(s)) => s.namespace == ns,
        Some(nestor_catalog::Relation::Index { table, .. }) => table.namespace == ns,
        None => false,
    };
    match ns {
        nestor_catalog::TEMP_NAMESPACE => quote_ident(name),
        _ if found(c.relation(name)) => quote_ident(name),
        _ => format!(
            "{}.{}",
            quote_ident(&namespace_name(c, ns)),
            quote_ident(name)
        ),
    }
}

/// The output function of a reg* type: the name (the number when no
/// object has the OID, `-` for 0 where PostgreSQL prints that).
fn reg_name(c: &Catalog, kind: RegKind, o: u32) -> String {
    let found = match kind {
        RegKind::Config => nestor_types::tsearch::config::config_name(o).map(str::to_string),
        RegKind::Dictionary => {
            nestor_types::tsearch::config::dictionary_name(o).map(str::to_string)
        }
        RegKind::Class => spec::by_oid(o)
            .map(|r| r.name().to_string())
            .or_else(|| {
                c.table_by_oid(RelId(o))
                    .map(|t| visible_name(c, t.namespace, &t.name))
            })
            .or_else(|| {
                c.sequence_by_oid(RelId(o))
                    .map(|s| visible_name(c, s.namespace, &s.name))
            })
            .or_else(|| {
                let v = c.views().into_iter().find(|v| v.oid.0 == o)?;
                Some(visible_name(c, v.namespace, &v.name))
            })
            .or_else(|| find_index(c, o).map(|(t, i)| visible_name(c, t.namespace, &i.name))),
        RegKind::Type => format_type(o, None).filter(|_| o != 0),
        RegKind::Namespace => Some(namespace_name(c, o)).filter(|n| !n.is_empty()),
        RegKind::Proc => nestor_types::io_functions::by_oid(o)
            .map(|f| f.name.to_string())
            .or_else(|| c.function_by_oid(RelId(o)).map(|f| quote_ident(&f.name))),
        RegKind::Role if o == DATABASE_OWNER_ROLE_OID => Some("pg_database_owner".into()),
        RegKind::Role => c.role_by_oid(RelId(o)).map(|r| quote_ident(&r.name)),
    };
    match found {
        Some(n) => n,
        None if o == 0 && matches!(kind, RegKind::Proc | RegKind::Type) => "-".into(),
        None => o.to_string(),
    }
}

/// `format_type(type, typmod)`: NULL typmod means none.
pub fn format_type(type_oid: u32, typmod: Option<i32>) -> Option<String> {
    if let Some(d) = nestor_types::domains::lookup(type_oid) {
        return Some(quote_ident(&d.name));
    }
    if let Some(d) = nestor_types::domains::lookup_array(type_oid) {
        return Some(format!("{}[]", quote_ident(&d.name)));
    }
    // `bit` without a typmod is plain; with typmod -1 it is quoted (not
    // BIT, which means bit(1)), as DataType's Display prints it.
    if type_oid == DataType::Bit(None).oid() && typmod.is_none() {
        return Some("bit".to_string());
    }
    if let Some(t) = DataType::from_oid_typmod(type_oid, typmod.unwrap_or(-1)) {
        return Some(t.to_string());
    }
    if type_oid == 2287 {
        return Some("record[]".to_string());
    }
    PSEUDO_TYPES
        .iter()
        .find(|p| p.0 == type_oid)
        .map(|p| p.1.to_string())
        .or_else(|| (type_oid == 0).then(|| "-".to_string()))
}

/// pg_timezone_abbrevs: each abbreviation of the `Default` set with its
/// meaning at the transaction's start (a dynamic one's meaning then).
fn timezone_abbrev_rows(now: i64) -> Vec<Vec<Value>> {
    use nestor_types::tz_abbrevs::{meaning_at_utc, ABBREVS};
    ABBREVS
        .iter()
        .map(|&(name, kind)| {
            let (offset, dst) = meaning_at_utc(name, kind, now);
            let iv = nestor_types::datetime::Interval::new(0, 0, i64::from(offset) * 1_000_000);
            RowB::new(Rel::TimezoneAbbrevs)
                .set("abbrev", text(name))
                .set("utc_offset", Value::Interval(iv))
                .set("is_dst", Value::Bool(dst))
                .done()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_pretty_rounds_as_postgresql() {
        let p = |n: i64| size_pretty(&Value::Int8(n)).unwrap();
        assert_eq!(p(8192), "8192 bytes");
        assert_eq!(p(10240), "10 kB");
        assert_eq!(p(123456789), "118 MB");
        assert_eq!(p(-10240), "-10 kB");
    }

    #[test]
    fn quote_ident_quotes_what_postgresql_quotes() {
        assert_eq!(quote_ident("abc"), "abc");
        assert_eq!(quote_ident("Abc"), "\"Abc\"");
        assert_eq!(quote_ident("select"), "\"select\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_ident("1a"), "\"1a\"");
    }
}
