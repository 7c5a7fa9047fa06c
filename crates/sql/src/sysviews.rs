//! System views, computed when scanned: pg_stat_activity (from the session
//! registry), nestor_stat_savepoints (savepoint counters per session), and
//! a small emulation of pg_catalog (pg_class, pg_namespace, pg_database,
//! pg_tables) from the catalog, enough for drivers' and tools' startup
//! queries. OIDs of user relations are the catalog's; namespaces use
//! PostgreSQL's fixed OIDs (11 pg_catalog, 2200 public).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::catalog::{PG_CATALOG_NAMESPACE_OID, PUBLIC_NAMESPACE_OID};
use crate::expr::Ev;
use crate::session::Engine;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    StatActivity,
    StatSavepoints,
    Class,
    Namespace,
    Database,
    Tables,
    Sequences,
}

fn text(s: impl AsRef<str>) -> Value {
    Value::Text(Arc::from(s.as_ref()))
}

fn opt_text(s: &Option<String>) -> Value {
    s.as_ref().map_or(Value::Null, text)
}

fn opt_ts(t: Option<i64>) -> Value {
    t.map_or(Value::Null, Value::TimestampTz)
}

fn opt_xid(x: Option<u64>) -> Value {
    x.map_or(Value::Null, |x| Value::Int8(x as i64))
}

impl View {
    pub fn by_name(name: &str) -> Option<View> {
        Some(match name {
            "pg_stat_activity" => View::StatActivity,
            "nestor_stat_savepoints" => View::StatSavepoints,
            "pg_class" => View::Class,
            "pg_namespace" => View::Namespace,
            "pg_database" => View::Database,
            "pg_tables" => View::Tables,
            "pg_sequences" => View::Sequences,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            View::StatActivity => "pg_stat_activity",
            View::StatSavepoints => "nestor_stat_savepoints",
            View::Class => "pg_class",
            View::Namespace => "pg_namespace",
            View::Database => "pg_database",
            View::Tables => "pg_tables",
            View::Sequences => "pg_sequences",
        }
    }

    pub fn columns(self) -> Vec<(&'static str, DataType)> {
        use DataType as T;
        match self {
            View::StatActivity => vec![
                ("datid", T::Oid),
                ("datname", T::Name),
                ("pid", T::Int4),
                ("usename", T::Name),
                ("application_name", T::Text),
                ("client_addr", T::Text),
                ("backend_start", T::TimestampTz),
                ("xact_start", T::TimestampTz),
                ("query_start", T::TimestampTz),
                ("state_change", T::TimestampTz),
                ("wait_event_type", T::Text),
                ("wait_event", T::Text),
                ("state", T::Text),
                ("backend_xid", T::Int8),
                ("backend_xmin", T::Int8),
                ("query", T::Text),
                ("backend_type", T::Text),
            ],
            View::StatSavepoints => vec![
                ("pid", T::Int4),
                ("depth", T::Int8),
                ("savepoints_defined", T::Int8),
                ("rollbacks_to", T::Int8),
            ],
            View::Class => vec![
                ("oid", T::Oid),
                ("relname", T::Name),
                ("relnamespace", T::Oid),
                ("relkind", T::Text),
                ("relpersistence", T::Text),
                ("reltuples", T::Float4),
                ("relhasindex", T::Bool),
                ("relispartition", T::Bool),
                ("relowner", T::Oid),
            ],
            View::Namespace => vec![("oid", T::Oid), ("nspname", T::Name), ("nspowner", T::Oid)],
            View::Database => vec![
                ("oid", T::Oid),
                ("datname", T::Name),
                ("encoding", T::Int4),
                ("datcollate", T::Name),
                ("datctype", T::Name),
                ("datallowconn", T::Bool),
            ],
            View::Tables => vec![
                ("schemaname", T::Name),
                ("tablename", T::Name),
                ("tableowner", T::Name),
                ("hasindexes", T::Bool),
            ],
            View::Sequences => vec![
                ("schemaname", T::Name),
                ("sequencename", T::Name),
                ("start_value", T::Int8),
                ("increment_by", T::Int8),
                ("last_value", T::Int8),
            ],
        }
    }

    pub fn rows(self, ev: &mut Ev) -> Result<Vec<Vec<Value>>, DbError> {
        let engine = ev.ctx.engine;
        Ok(match self {
            View::StatActivity => engine
                .sessions
                .activity()
                .into_iter()
                .map(|a| {
                    vec![
                        Value::Int8(5),
                        text(&a.datname),
                        Value::Int4(a.pid.0 as i32),
                        text(&a.usename),
                        text(&a.application_name),
                        opt_text(&a.client_addr),
                        Value::TimestampTz(a.backend_start_us),
                        opt_ts(a.xact_start_us),
                        opt_ts(a.query_start_us),
                        opt_ts(a.state_change_us),
                        opt_text(&a.wait_event_type),
                        opt_text(&a.wait_event),
                        text(&a.state),
                        opt_xid(a.backend_xid),
                        opt_xid(a.backend_xmin),
                        text(&a.query),
                        text("client backend"),
                    ]
                })
                .collect(),
            View::StatSavepoints => engine
                .sessions
                .activity()
                .into_iter()
                .map(|a| {
                    vec![
                        Value::Int4(a.pid.0 as i32),
                        Value::Int8(a.savepoint_depth as i64),
                        Value::Int8(a.savepoints_defined as i64),
                        Value::Int8(a.savepoint_rollbacks as i64),
                    ]
                })
                .collect(),
            View::Class => class_rows(engine),
            View::Namespace => vec![
                vec![
                    Value::Int8(PG_CATALOG_NAMESPACE_OID as i64),
                    text("pg_catalog"),
                    Value::Int8(10),
                ],
                vec![
                    Value::Int8(PUBLIC_NAMESPACE_OID as i64),
                    text("public"),
                    Value::Int8(10),
                ],
                vec![
                    Value::Int8(13000),
                    text("information_schema"),
                    Value::Int8(10),
                ],
            ],
            View::Database => vec![vec![
                Value::Int8(5),
                text(ev.ctx.settings.get("nestor.database").unwrap_or("postgres")),
                Value::Int4(6),
                text("C"),
                text("C"),
                Value::Bool(true),
            ]],
            View::Tables => engine
                .catalog
                .tables()
                .into_iter()
                .map(|t| {
                    vec![
                        text("public"),
                        text(&t.name),
                        text("postgres"),
                        Value::Bool(!t.indexes.is_empty()),
                    ]
                })
                .collect(),
            View::Sequences => engine
                .catalog
                .sequences()
                .into_iter()
                .map(|s| {
                    let (last, called) = *s.state.lock();
                    vec![
                        text("public"),
                        text(&s.name),
                        Value::Int8(s.start),
                        Value::Int8(s.increment),
                        if called {
                            Value::Int8(last)
                        } else {
                            Value::Null
                        },
                    ]
                })
                .collect(),
        })
    }
}

fn class_rows(engine: &Engine) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    let ns = Value::Int8(PUBLIC_NAMESPACE_OID as i64);
    for t in engine.catalog.tables() {
        let persistence = match t.persistence {
            crate::catalog::Persistence::Permanent => "p",
            crate::catalog::Persistence::Unlogged => "u",
            crate::catalog::Persistence::Temporary => "t",
        };
        out.push(vec![
            Value::Int8(t.oid.0 as i64),
            text(&t.name),
            ns.clone(),
            text("r"),
            text(persistence),
            Value::Float4(-1.0),
            Value::Bool(!t.indexes.is_empty()),
            Value::Bool(false),
            Value::Int8(10),
        ]);
        for i in &t.indexes {
            out.push(vec![
                Value::Int8(i.oid.0 as i64),
                text(&i.name),
                ns.clone(),
                text("i"),
                text(persistence),
                Value::Float4(-1.0),
                Value::Bool(false),
                Value::Bool(false),
                Value::Int8(10),
            ]);
        }
    }
    for s in engine.catalog.sequences() {
        out.push(vec![
            Value::Int8(s.oid.0 as i64),
            text(&s.name),
            ns.clone(),
            text("S"),
            text("p"),
            Value::Float4(1.0),
            Value::Bool(false),
            Value::Bool(false),
            Value::Int8(10),
        ]);
    }
    out
}

/// `'name'::regclass`: the OID of a relation.
pub fn regclass(engine: &Engine, name: &str) -> Result<u32, DbError> {
    let n = name.trim();
    let n = n.strip_prefix("public.").unwrap_or(n);
    let n = n.trim_matches('"');
    if let Ok(oid) = n.parse::<u32>() {
        return Ok(oid);
    }
    match engine.catalog.relation(n) {
        Some(crate::catalog::Relation::Table(t)) => Ok(t.oid.0),
        Some(crate::catalog::Relation::Index { table, index }) => Ok(table
            .indexes
            .iter()
            .find(|i| i.name == index)
            .map_or(0, |i| i.oid.0)),
        Some(crate::catalog::Relation::Sequence(s)) => Ok(s.oid.0),
        None => Err(DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )),
    }
}
