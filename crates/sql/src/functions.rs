//! Scalar functions: resolution by name and argument types at bind time,
//! and calls at run time.
//!
//! [`lookup`] maps a (lower-cased, schema-stripped) name and the argument
//! types to a [`Func`], the types the arguments must be coerced to, and the
//! result type. Functions that need the statement's state (now(),
//! nextval(), txid_current(), pg_sleep(), set_config()...) read it through
//! the evaluation context [`Ev`]; the others are pure.
//!
//! Snapshot functions: Nestor's snapshots are commit sequence numbers, not
//! lists of running XIDs. `pg_current_snapshot()` still answers in
//! PostgreSQL's `xmin:xmax:xip,...` format so tools can parse it: `xmax` is
//! the next XID to be assigned, `xip` the XIDs of transactions running in
//! any session (from the session registry), and `xmin` the smallest of
//! those (or `xmax` when none run). Visibility itself never uses this list.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nestor_common::{DbError, SessionId, SqlState, Xid};
use nestor_txn::XactStatus;
use nestor_types::datatype::DataType;
use nestor_types::datetime::UNIX_EPOCH_USECS;
use nestor_types::Value;

use crate::catalog::Sequence;
use crate::exec_api::SettingChange;
use crate::expr::Ev;
use crate::valops::{self, as_f64, as_i64};

/// A resolved function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// A pure function of the types crate's library
    /// (`nestor_types::functions::NAMES[i]`), e.g. repeat, lpad, split_part.
    Library(u16),
    /// pg_current_wal_lsn(): the WAL's next LSN, as text 'X/Y'.
    CurrentWalLsn,
    Now,
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    PgSleep,
    Random,
    Version,
    CurrentDatabase,
    CurrentUser,
    CurrentSchema,
    BackendPid,
    TxidCurrent,
    TxidCurrentIfAssigned,
    CurrentSnapshot,
    SnapshotXmin,
    SnapshotXmax,
    XactStatus,
    CurrentSetting,
    SetConfig,
    CancelBackend,
    TerminateBackend,
    Nextval,
    Currval,
    Setval,
    Lastval,
    Abs,
    Lower,
    Upper,
    Length,
    Substr,
    Round,
    Floor,
    Ceil,
    Mod,
    Concat,
    Trim,
    Replace,
    Sqrt,
    Power,
    GenRandomUuid,
    ToCharSimple,
    FormatType,
    PgGetExpr,
    ObjDescription,
    TableIsVisible,
    PgEncodingToChar,
    HasPrivilege,
    PgGetUserbyid,
    Left,
    Right,
    Strpos,
    Int8FromText,
    /// Assignment cast to a column type (length checks raise 22001).
    AssignCast(DataType),
    /// `ctid` text `(row,1)` from the hidden row-id column.
    CtidText,
    /// `'name'::regclass` for a non-constant name.
    Regclass,
    LocalTimestamp,
    /// pg_sleep_for(interval given as text).
    PgSleepFor,
    /// character(n) to text: trailing spaces are not significant.
    BpcharToText,
    /// length(bytea): the number of bytes.
    ByteaLength,
}

impl Func {
    /// Volatile functions are not evaluated at plan time.
    pub fn is_volatile(self) -> bool {
        !matches!(
            self,
            Func::Abs
                | Func::Lower
                | Func::Upper
                | Func::Length
                | Func::Substr
                | Func::Round
                | Func::Floor
                | Func::Ceil
                | Func::Mod
                | Func::Concat
                | Func::Trim
                | Func::Replace
                | Func::Sqrt
                | Func::Power
                | Func::Left
                | Func::Right
                | Func::Strpos
                | Func::Library(_)
                | Func::Int8FromText
                | Func::AssignCast(_)
                | Func::CtidText
                | Func::BpcharToText
                | Func::ByteaLength
        )
    }
}

/// How a function was resolved: the coercions of its arguments (None =
/// keep) and its result type.
pub struct Resolved {
    pub func: Func,
    pub arg_types: Vec<Option<DataType>>,
    pub ret: DataType,
}

fn undefined(name: &str, args: &[DataType]) -> DbError {
    let list: Vec<&str> = args.iter().map(|t| t.resolve_unknown().name()).collect();
    DbError::new(
        SqlState::UndefinedFunction,
        format!("function {}({}) does not exist", name, list.join(", ")),
    )
    .with_hint(
        "No function matches the given name and argument types. You might need to add explicit type casts.",
    )
}

fn numeric_result(t: DataType) -> DataType {
    match t {
        DataType::Unknown => DataType::Float8,
        t if t.is_numeric() => t.base(),
        _ => DataType::Float8,
    }
}

/// Resolve `name(args)`.
pub fn lookup(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use DataType as T;
    let n = args.len();
    let text = Some(T::Text);
    let int8 = Some(T::Int8);
    let r = |func, arg_types: Vec<Option<DataType>>, ret| {
        Ok(Resolved {
            func,
            arg_types,
            ret,
        })
    };
    let none = Vec::new;
    match (name, n) {
        ("now" | "transaction_timestamp", 0) => r(Func::Now, none(), T::TimestampTz),
        ("statement_timestamp", 0) => r(Func::StatementTimestamp, none(), T::TimestampTz),
        ("clock_timestamp", 0) => r(Func::ClockTimestamp, none(), T::TimestampTz),
        ("pg_sleep", 1) => r(Func::PgSleep, vec![Some(T::Float8)], T::Unknown),
        ("random", 0) => r(Func::Random, none(), T::Float8),
        ("version", 0) => r(Func::Version, none(), T::Text),
        ("current_database", 0) => r(Func::CurrentDatabase, none(), T::Name),
        ("current_user" | "session_user" | "user" | "current_role", 0) => {
            r(Func::CurrentUser, none(), T::Name)
        }
        ("current_schema", 0) => r(Func::CurrentSchema, none(), T::Name),
        ("pg_backend_pid", 0) => r(Func::BackendPid, none(), T::Int4),
        ("pg_current_wal_lsn" | "pg_current_wal_insert_lsn", 0) => {
            r(Func::CurrentWalLsn, none(), T::Text)
        }
        ("txid_current" | "pg_current_xact_id", 0) => r(Func::TxidCurrent, none(), T::Int8),
        ("txid_current_if_assigned" | "pg_current_xact_id_if_assigned", 0) => {
            r(Func::TxidCurrentIfAssigned, none(), T::Int8)
        }
        ("pg_current_snapshot" | "txid_current_snapshot", 0) => {
            r(Func::CurrentSnapshot, none(), T::Text)
        }
        ("pg_snapshot_xmin" | "txid_snapshot_xmin", 1) => {
            r(Func::SnapshotXmin, vec![text], T::Int8)
        }
        ("pg_snapshot_xmax" | "txid_snapshot_xmax", 1) => {
            r(Func::SnapshotXmax, vec![text], T::Int8)
        }
        ("pg_xact_status" | "txid_status", 1) => r(Func::XactStatus, vec![int8], T::Text),
        ("current_setting", 1) => r(Func::CurrentSetting, vec![text], T::Text),
        ("current_setting", 2) => r(Func::CurrentSetting, vec![text, Some(T::Bool)], T::Text),
        ("set_config", 3) => r(Func::SetConfig, vec![text, text, Some(T::Bool)], T::Text),
        ("pg_cancel_backend", 1) => r(Func::CancelBackend, vec![Some(T::Int4)], T::Bool),
        ("pg_terminate_backend", 1 | 2) => r(
            Func::TerminateBackend,
            vec![Some(T::Int4), int8][..n].to_vec(),
            T::Bool,
        ),
        ("nextval", 1) => r(Func::Nextval, vec![regclass(args)], T::Int8),
        ("currval", 1) => r(Func::Currval, vec![regclass(args)], T::Int8),
        ("setval", 2) => r(Func::Setval, vec![regclass(args), int8], T::Int8),
        ("setval", 3) => r(
            Func::Setval,
            vec![regclass(args), int8, Some(T::Bool)],
            T::Int8,
        ),
        ("lastval", 0) => r(Func::Lastval, none(), T::Int8),
        ("abs", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Abs, vec![Some(t)], t)
        }
        ("lower", 1) => r(Func::Lower, vec![text], T::Text),
        ("upper", 1) => r(Func::Upper, vec![text], T::Text),
        ("length" | "octet_length", 1) if args[0] == T::Bytea => {
            r(Func::ByteaLength, vec![None], T::Int4)
        }
        ("length" | "char_length" | "character_length", 1) => r(Func::Length, vec![text], T::Int4),
        ("substr" | "substring", 2) => r(Func::Substr, vec![text, Some(T::Int8)], T::Text),
        ("substr" | "substring", 3) => r(Func::Substr, vec![text, int8, int8], T::Text),
        ("round", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Round, vec![Some(t)], t)
        }
        ("round", 2) => r(
            Func::Round,
            vec![Some(T::NUMERIC), Some(T::Int4)],
            T::NUMERIC,
        ),
        ("floor", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Floor, vec![Some(t)], t)
        }
        ("ceil" | "ceiling", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Ceil, vec![Some(t)], t)
        }
        ("mod", 2) => {
            let t = if args.iter().all(|a| a.is_integer()) {
                T::Int8
            } else {
                T::NUMERIC
            };
            r(Func::Mod, vec![Some(t), Some(t)], t)
        }
        ("concat", _) => r(Func::Concat, vec![None; n], T::Text),
        ("btrim" | "trim", 1) => r(Func::Trim, vec![text], T::Text),
        ("replace", 3) => r(Func::Replace, vec![text, text, text], T::Text),
        ("sqrt", 1) => r(Func::Sqrt, vec![Some(T::Float8)], T::Float8),
        ("power" | "pow", 2) => r(
            Func::Power,
            vec![Some(T::Float8), Some(T::Float8)],
            T::Float8,
        ),
        ("gen_random_uuid", 0) => r(Func::GenRandomUuid, none(), T::Uuid),
        ("format_type", 2) => r(Func::FormatType, vec![int8, Some(T::Int4)], T::Text),
        ("pg_get_expr", 2 | 3) => r(Func::PgGetExpr, vec![None; n], T::Text),
        ("obj_description" | "col_description" | "shobj_description", 1 | 2) => {
            r(Func::ObjDescription, vec![None; n], T::Text)
        }
        ("pg_table_is_visible" | "pg_type_is_visible" | "pg_function_is_visible", 1) => {
            r(Func::TableIsVisible, vec![None], T::Bool)
        }
        ("pg_encoding_to_char", 1) => r(Func::PgEncodingToChar, vec![None], T::Name),
        ("has_table_privilege" | "has_schema_privilege" | "has_database_privilege", 2 | 3) => {
            r(Func::HasPrivilege, vec![None; n], T::Bool)
        }
        ("pg_get_userbyid", 1) => r(Func::PgGetUserbyid, vec![None], T::Name),
        ("left", 2) => r(Func::Left, vec![text, int8], T::Text),
        ("right", 2) => r(Func::Right, vec![text, int8], T::Text),
        ("strpos", 2) => r(Func::Strpos, vec![text, text], T::Int4),
        ("to_char", _) => r(Func::ToCharSimple, vec![None; n], T::Text),
        _ => library(name, args),
    }
}

/// A sequence function's regclass argument: an OID (`'s'::regclass`, as
/// stored defaults say) stays one; anything else is a name as text.
fn regclass(args: &[DataType]) -> Option<DataType> {
    match args.first() {
        Some(DataType::Oid) => None,
        _ => Some(DataType::Text),
    }
}

/// Fall back to the types crate's library of pure functions.
fn library(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use nestor_types::functions as lib;
    let Some(i) = lib::NAMES.iter().position(|n| *n == name) else {
        return Err(undefined(name, args));
    };
    let ret = lib::scalar_return_type(name, args).map_err(|_| undefined(name, args))?;
    Ok(Resolved {
        func: Func::Library(i as u16),
        arg_types: vec![None; args.len()],
        ret,
    })
}

/// Microseconds since 2000-01-01 UTC now.
pub fn now_us() -> i64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    d.as_micros() as i64 + UNIX_EPOCH_USECS
}

fn text(v: &Value, ec: &nestor_types::EvalCtx) -> Option<String> {
    valops::to_text(v, ec)
}

fn text_val(s: impl Into<Arc<str>>) -> Value {
    Value::Text(s.into())
}

fn bad_param(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

impl Func {
    /// Call with evaluated arguments. Most functions are strict: NULL in,
    /// NULL out.
    pub fn call(self, args: Vec<Value>, ev: &mut Ev) -> Result<Value, DbError> {
        let strict = !matches!(
            self,
            Func::Concat
                | Func::CurrentSetting
                | Func::SetConfig
                | Func::ObjDescription
                | Func::PgGetExpr
        );
        if strict && args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        match self {
            Func::Now => Ok(Value::TimestampTz(ev.ctx.txn_start_us)),
            Func::StatementTimestamp => Ok(Value::TimestampTz(ev.ctx.stmt_start_us)),
            Func::ClockTimestamp => Ok(Value::TimestampTz(now_us())),
            Func::CurrentDate => Ok(Value::Date((ev.ctx.txn_start_us / 86_400_000_000) as i32)),
            Func::PgSleep => pg_sleep(as_f64(&args[0]).unwrap_or(0.0), ev),
            Func::PgSleepFor => {
                let iv = nestor_types::datetime::parse_interval(
                    &text(&args[0], &ev.ctx.eval).unwrap_or_default(),
                )?;
                let secs = (iv.span() as f64) / 1e6;
                pg_sleep(secs, ev)
            }
            Func::LocalTimestamp => Ok(Value::Timestamp(ev.ctx.txn_start_us)),
            Func::Regclass => {
                let name = text(&args[0], &ev.ctx.eval).unwrap_or_default();
                Ok(Value::Int8(
                    crate::sysviews::regclass(ev.ctx.engine, &name)? as i64,
                ))
            }
            Func::Random => Ok(Value::Float8(random_f64())),
            Func::Version => Ok(text_val(
                "PostgreSQL 15.0 (Nestor 0.1.0) on x86_64-pc-linux-gnu, compiled by rustc, 64-bit",
            )),
            Func::CurrentDatabase => Ok(text_val(setting(ev, "nestor.database", "postgres"))),
            Func::CurrentUser => Ok(text_val(setting(ev, "session_authorization", "postgres"))),
            Func::CurrentSchema => Ok(text_val("public")),
            Func::BackendPid => Ok(Value::Int4(ev.ctx.session.0 as i32)),
            Func::CurrentWalLsn => {
                let lsn = ev.ctx.engine.log.wal().map_or(0, |w| w.next_lsn());
                Ok(Value::Text(
                    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF).into(),
                ))
            }
            Func::TxidCurrent => {
                if ev.ctx.read_only {
                    return Err(DbError::new(
                        SqlState::ReadOnlySqlTransaction,
                        "cannot assign TransactionIds during recovery",
                    ));
                }
                Ok(Value::Int8(ev.ctx.txn.assign_xid().0 as i64))
            }
            Func::TxidCurrentIfAssigned => {
                let x = ev.ctx.txn.xid();
                Ok(if x.is_none() {
                    Value::Null
                } else {
                    Value::Int8(x.0 as i64)
                })
            }
            Func::CurrentSnapshot => Ok(text_val(current_snapshot(ev))),
            Func::SnapshotXmin | Func::SnapshotXmax => snapshot_part(self, &args[0], &ev.ctx.eval),
            Func::XactStatus => xact_status(&args[0], ev),
            Func::CurrentSetting => current_setting(&args, ev),
            Func::SetConfig => set_config(&args, ev),
            Func::CancelBackend => {
                let pid = SessionId(as_i64(&args[0]).unwrap_or(0) as u32);
                Ok(Value::Bool(ev.ctx.engine.sessions.cancel(pid, None)))
            }
            Func::TerminateBackend => {
                let pid = SessionId(as_i64(&args[0]).unwrap_or(0) as u32);
                Ok(Value::Bool(ev.ctx.engine.sessions.terminate(pid)))
            }
            Func::Nextval | Func::Currval | Func::Setval | Func::Lastval => {
                sequence_fn(self, &args, ev)
            }
            _ => crate::functions::pure(self, &args, &ev.ctx.eval),
        }
    }
}

fn setting(ev: &Ev, name: &str, default: &str) -> String {
    ev.ctx
        .settings
        .get(name)
        .map(str::to_string)
        .unwrap_or_else(|| default.to_string())
}

/// Sleep in small steps, polling for cancel and statement_timeout.
fn pg_sleep(secs: f64, ev: &mut Ev) -> Result<Value, DbError> {
    if secs.is_nan() || secs <= 0.0 {
        return Ok(Value::Null);
    }
    let end = Instant::now() + Duration::from_secs_f64(secs.min(1e9));
    (ev.ctx.wait_event)(Some(("Timeout", "PgSleep")));
    let result = loop {
        if let Err(e) = (ev.ctx.wait.interrupt)() {
            break Err(DbError::from(e));
        }
        let now = Instant::now();
        if now >= end {
            break Ok(Value::Null);
        }
        std::thread::sleep((end - now).min(Duration::from_millis(10)));
    };
    (ev.ctx.wait_event)(None);
    result
}

fn random_f64() -> f64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new(
            (now_us() as u64) ^ ((&STATE as *const _ as u64) << 17) | 1
        );
    }
    STATE.with(|s| {
        // xorshift64*
        let mut x = s.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    })
}

fn current_snapshot(ev: &Ev) -> String {
    let xmax = ev.ctx.engine.txn.next_xid().0;
    let mut xip: Vec<u64> = ev
        .ctx
        .engine
        .sessions
        .activity()
        .iter()
        .filter_map(|a| a.backend_xid)
        .collect();
    let own = ev.ctx.txn.xid();
    if !own.is_none() && !xip.contains(&own.0) {
        xip.push(own.0);
    }
    xip.sort_unstable();
    xip.dedup();
    let xmin = xip.first().copied().unwrap_or(xmax);
    let list: Vec<String> = xip.iter().map(u64::to_string).collect();
    format!("{xmin}:{xmax}:{}", list.join(","))
}

fn snapshot_part(f: Func, v: &Value, ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    let s = text(v, ec).unwrap_or_default();
    let mut parts = s.split(':');
    let xmin = parts.next().and_then(|p| p.parse::<i64>().ok());
    let xmax = parts.next().and_then(|p| p.parse::<i64>().ok());
    let bad = || {
        DbError::new(
            SqlState::InvalidTextRepresentation,
            format!("invalid input syntax for type pg_snapshot: \"{s}\""),
        )
    };
    let (xmin, xmax) = (xmin.ok_or_else(bad)?, xmax.ok_or_else(bad)?);
    Ok(Value::Int8(if f == Func::SnapshotXmin {
        xmin
    } else {
        xmax
    }))
}

fn xact_status(v: &Value, ev: &Ev) -> Result<Value, DbError> {
    let xid = as_i64(v).unwrap_or(0);
    let next = ev.ctx.engine.txn.next_xid().0 as i64;
    if xid >= next {
        return Err(bad_param(format!("transaction ID {xid} is in the future")));
    }
    if xid < 1 {
        return Ok(Value::Null);
    }
    let s = match ev.ctx.engine.txn.xact_status(Xid(xid as u64)) {
        XactStatus::InProgress => "in progress",
        XactStatus::Committed => "committed",
        XactStatus::Aborted => "aborted",
        XactStatus::Unknown => return Ok(Value::Null),
    };
    Ok(text_val(s))
}

fn current_setting(args: &[Value], ev: &Ev) -> Result<Value, DbError> {
    let Some(name) = args.first().and_then(|v| text(v, &ev.ctx.eval)) else {
        return Ok(Value::Null);
    };
    let missing_ok = matches!(args.get(1), Some(Value::Bool(true)));
    let lname = name.to_ascii_lowercase();
    for c in ev.ctx.setting_changes.iter().rev() {
        if c.name == lname {
            return Ok(text_val(c.value.clone()));
        }
    }
    match ev.ctx.settings.get(&lname) {
        Some(v) => Ok(text_val(v)),
        None if missing_ok => Ok(Value::Null),
        None => Err(DbError::new(
            SqlState::UndefinedObject,
            format!("unrecognized configuration parameter \"{name}\""),
        )),
    }
}

fn set_config(args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let name = args
        .first()
        .and_then(|v| text(v, &ev.ctx.eval))
        .ok_or_else(|| {
            DbError::new(SqlState::NullValueNotAllowed, "SET requires parameter name")
        })?;
    let value = args
        .get(1)
        .and_then(|v| text(v, &ev.ctx.eval))
        .unwrap_or_default();
    let is_local = matches!(args.get(2), Some(Value::Bool(true)));
    let canonical = crate::settings::canonicalize(&name, &value)?;
    ev.ctx.setting_changes.push(SettingChange {
        name: name.to_ascii_lowercase(),
        value: canonical.clone(),
        is_local,
    });
    Ok(text_val(canonical))
}

fn seq_by_name(name: &str, ev: &Ev) -> Result<Arc<Sequence>, DbError> {
    sequence_named(&ev.ctx.engine.catalog, name)
}

/// The sequence a regclass-style name denotes; 42P01 if there is none.
pub fn sequence_named(
    catalog: &crate::catalog::Catalog,
    name: &str,
) -> Result<Arc<Sequence>, DbError> {
    let n = name.trim_matches('"');
    let n = n.strip_prefix("public.").unwrap_or(n).to_ascii_lowercase();
    catalog.sequence(&n).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )
    })
}

fn sequence_fn(f: Func, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let catalog = &ev.ctx.engine.catalog;
    let session = ev.ctx.session;
    if f == Func::Lastval {
        return catalog.lastval(session).map(Value::Int8).ok_or_else(|| {
            DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                "lastval is not yet defined in this session",
            )
        });
    }
    let seq = match &args[0] {
        Value::Int8(oid) => catalog
            .sequence_by_oid(nestor_common::RelId(*oid as u32))
            .ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedTable,
                    format!("could not open relation with OID {oid}"),
                )
            })?,
        v => seq_by_name(&text(v, &ev.ctx.eval).unwrap_or_default(), ev)?,
    };
    match f {
        Func::Nextval => {
            let v = seq.next()?;
            catalog.set_currval(session, seq.oid, v);
            Ok(Value::Int8(v))
        }
        Func::Currval => catalog
            .currval(session, seq.oid)
            .map(Value::Int8)
            .ok_or_else(|| {
                DbError::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    format!(
                        "currval of sequence \"{}\" is not yet defined in this session",
                        seq.name
                    ),
                )
            }),
        _ => {
            let v = as_i64(&args[1]).unwrap_or(0);
            if v < seq.min || v > seq.max {
                return Err(DbError::new(
                    SqlState::NumericValueOutOfRange,
                    format!(
                        "setval: value {v} is out of bounds for sequence \"{}\" ({}..{})",
                        seq.name, seq.min, seq.max
                    ),
                ));
            }
            let called = !matches!(args.get(2), Some(Value::Bool(false)));
            *seq.state.lock() = (v, called);
            if called {
                // As PostgreSQL's do_setval: currval() reports it too.
                catalog.set_currval(session, seq.oid, v);
            }
            if called {
                // As PostgreSQL: setval(.., true) also sets currval.
                catalog.set_seq_currval(session, seq.oid, v);
            }
            seq.dirty.store(true, std::sync::atomic::Ordering::Release);
            Ok(Value::Int8(v))
        }
    }
}

fn int_arg(v: &Value) -> i64 {
    as_i64(v).unwrap_or(0)
}

/// Pure functions.
pub fn pure(f: Func, args: &[Value], ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    let s0 = || text(&args[0], ec).unwrap_or_default();
    Ok(match f {
        Func::Abs => match &args[0] {
            Value::Int2(i) => Value::Int2(i.checked_abs().ok_or_else(range_err)?),
            Value::Int4(i) => Value::Int4(i.checked_abs().ok_or_else(range_err)?),
            Value::Int8(i) => Value::Int8(i.checked_abs().ok_or_else(range_err)?),
            Value::Float4(x) => Value::Float4(x.abs()),
            Value::Float8(x) => Value::Float8(x.abs()),
            v => valops::numeric_of(v).map_or(Value::Null, |n| valops::numeric_value(n.abs())),
        },
        Func::Lower => text_val(s0().to_lowercase()),
        Func::Upper => text_val(s0().to_uppercase()),
        Func::Length => Value::Int4(s0().chars().count() as i32),
        Func::Substr => substr(&s0(), int_arg(&args[1]), args.get(2).map(int_arg))?,
        Func::Round | Func::Floor | Func::Ceil => rounding(f, args)?,
        Func::Mod => valops::arith(valops::Arith::Mod, &args[0], &args[1], ec)?,
        Func::Concat => text_val(args.iter().filter_map(|v| text(v, ec)).collect::<String>()),
        Func::Trim => text_val(s0().trim_matches(' ')),
        Func::BpcharToText => text_val(s0().trim_end_matches(' ')),
        Func::ByteaLength => match &args[0] {
            Value::Bytea(b) => Value::Int4(b.len() as i32),
            _ => Value::Null,
        },
        Func::Replace => {
            let from = text(&args[1], ec).unwrap_or_default();
            let to = text(&args[2], ec).unwrap_or_default();
            if from.is_empty() {
                text_val(s0())
            } else {
                text_val(s0().replace(&from, &to))
            }
        }
        Func::Sqrt => {
            let x = as_f64(&args[0]).unwrap_or(0.0);
            if x < 0.0 {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    "cannot take square root of a negative number",
                ));
            }
            Value::Float8(x.sqrt())
        }
        Func::Power => Value::Float8(
            as_f64(&args[0])
                .unwrap_or(0.0)
                .powf(as_f64(&args[1]).unwrap_or(0.0)),
        ),
        Func::GenRandomUuid => {
            let mut u = [0u8; 16];
            for c in u.chunks_mut(8) {
                let r =
                    (random_f64() * (1u64 << 53) as f64) as u64 ^ (now_us() as u64).rotate_left(17);
                c.copy_from_slice(&r.to_le_bytes());
            }
            u[6] = (u[6] & 0x0f) | 0x40;
            u[8] = (u[8] & 0x3f) | 0x80;
            Value::Uuid(u)
        }
        Func::FormatType => {
            let t = DataType::from_oid_typmod(int_arg(&args[0]) as u32, int_arg(&args[1]) as i32);
            t.map_or(Value::Null, |t| text_val(t.to_string()))
        }
        Func::PgGetExpr | Func::ObjDescription | Func::PgGetUserbyid | Func::ToCharSimple => {
            if f == Func::PgGetUserbyid {
                text_val("postgres")
            } else if f == Func::ToCharSimple {
                args.first()
                    .and_then(|v| text(v, ec))
                    .map_or(Value::Null, text_val)
            } else {
                Value::Null
            }
        }
        Func::TableIsVisible | Func::HasPrivilege => Value::Bool(true),
        Func::PgEncodingToChar => text_val("UTF8"),
        Func::Left | Func::Right => {
            let s: Vec<char> = s0().chars().collect();
            let n = int_arg(&args[1]);
            let len = s.len() as i64;
            let k = if n >= 0 { n.min(len) } else { (len + n).max(0) } as usize;
            let out: String = if f == Func::Left {
                s[..k].iter().collect()
            } else {
                s[s.len() - k..].iter().collect()
            };
            text_val(out)
        }
        Func::Strpos => {
            let s = s0();
            let needle = text(&args[1], ec).unwrap_or_default();
            Value::Int4(
                s.find(&needle)
                    .map_or(0, |b| s[..b].chars().count() as i32 + 1),
            )
        }
        Func::Library(i) => {
            let name = nestor_types::functions::NAMES[i as usize];
            match nestor_types::functions::call_scalar_ctx(name, args, ec) {
                Some(r) => r?,
                None => {
                    return Err(DbError::internal(format!(
                        "library function {name} vanished"
                    )))
                }
            }
        }
        Func::Int8FromText => valops::from_text(&s0(), DataType::Int8, ec)?,
        Func::AssignCast(t) => valops::cast(args[0].clone(), t, false, ec)?,
        Func::CtidText => text_val(format!("({},1)", int_arg(&args[0]))),
        _ => return Err(DbError::internal(format!("{f:?} is not a pure function"))),
    })
}

fn range_err() -> DbError {
    DbError::new(SqlState::NumericValueOutOfRange, "integer out of range")
}

fn substr(s: &str, start: i64, len: Option<i64>) -> Result<Value, DbError> {
    if let Some(l) = len {
        if l < 0 {
            return Err(DbError::new(
                SqlState::DataException,
                "negative substring length not allowed",
            ));
        }
    }
    let chars: Vec<char> = s.chars().collect();
    let from = start.max(1);
    let to = match len {
        Some(l) => start.saturating_add(l),
        None => i64::MAX,
    };
    let lo = (from - 1).clamp(0, chars.len() as i64) as usize;
    let hi = (to - 1).clamp(lo as i64, chars.len() as i64) as usize;
    Ok(text_val(chars[lo..hi].iter().collect::<String>()))
}

fn rounding(f: Func, args: &[Value]) -> Result<Value, DbError> {
    let v = &args[0];
    match v {
        Value::Float4(_) | Value::Float8(_) => {
            let x = as_f64(v).unwrap_or(0.0);
            let r = match f {
                Func::Round => x.round_ties_even(),
                Func::Floor => x.floor(),
                _ => x.ceil(),
            };
            Ok(if matches!(v, Value::Float4(_)) {
                Value::Float4(r as f32)
            } else {
                Value::Float8(r)
            })
        }
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => Ok(v.clone()),
        _ => {
            let n =
                valops::numeric_of(v).ok_or_else(|| DbError::internal("round of non-number"))?;
            let scale = args.get(1).map(int_arg).unwrap_or(0);
            let r = match f {
                Func::Round => n.round(scale)?,
                Func::Floor => n.floor()?,
                _ => n.ceil()?,
            };
            Ok(valops::numeric_value(r))
        }
    }
}
