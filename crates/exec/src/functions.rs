//! Function calls at run time: the functions that read the statement's
//! state (now(), nextval(), txid_current(), pg_sleep(), set_config() ...)
//! and the pure ones. Resolution happened at bind time
//! (`nestor_plan::functions::lookup`).
//!
//! Snapshot functions: Nestor's snapshots are commit sequence numbers, not
//! lists of running XIDs. `pg_current_snapshot()` still answers in
//! PostgreSQL's `xmin:xmax:xip,...` format so tools can parse it: `xmax` is
//! the next XID to be assigned, `xip` the XIDs of transactions running in
//! any session (from the session registry), and `xmin` the smallest of
//! those (or `xmax` when none run). Visibility itself never uses this list.

use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::{DbError, SessionId, SqlState, Xid};
use nestor_plan::functions::{AdvisoryFn, AdvisoryOp, Func};
use nestor_plan::valops::{self, as_f64, as_i64};
use nestor_settings::SettingChange;
use nestor_txn::{LockKey, LockMode, TxnError, WaitPolicy, XactStatus};
use nestor_types::array::{Array, Dim};
use nestor_types::array_subscript;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::context::Ev;

/// Microseconds since 2000-01-01 UTC now.
pub fn now_us() -> i64 {
    nestor_types::context::system_now()
}

/// The functions PostgreSQL (or the extension it comes from) grants
/// EXECUTE on to superusers only: 42501 for anyone else.
fn superuser_only(ev: &Ev, name: &str) -> Result<(), DbError> {
    if ev.ctx.role.superuser {
        return Ok(());
    }
    Err(crate::privilege::denied(
        nestor_catalog::acl::ObjKind::Function,
        name,
    ))
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

/// Call with evaluated arguments. Most functions are strict: NULL in,
/// NULL out (the library's functions apply their own NULL rules).
pub fn call(f: Func, args: Vec<Value>, ev: &mut Ev) -> Result<Value, DbError> {
    match f {
        Func::Library(lib) => {
            let r = lib.call(&args, &ev.ctx.eval);
            // Text search functions raise notices (the empty query) that
            // the library keeps for the statement.
            if nestor_types::tsearch::has_notices() {
                ev.ctx.notices.extend(nestor_types::tsearch::take_notices());
            }
            return r;
        }
        Func::ArrayCtor { elem, nested } => return array_ctor(elem, nested, args),
        Func::ArrayFill { elem } => return array_fill(elem, &args),
        Func::Subscript => return subscript(args),
        Func::Slice { omitted } => return slice(omitted, args),
        Func::ArrayAssign {
            elem,
            slice,
            omitted,
        } => return array_assign(elem, slice, omitted, args),
        Func::JsonbAssign { expect_array } => {
            let (base, rest) = args
                .split_first()
                .ok_or_else(|| no_args("jsonb assignment"))?;
            let (value, subs) = rest
                .split_first()
                .ok_or_else(|| no_args("jsonb assignment"))?;
            return nestor_types::jsonb_edit::subscript_assign(base, value, subs, expect_array);
        }
        Func::Catalog(c) => return crate::pg_catalog::call(c, &args, ev),
        Func::EnumFirst(t) | Func::EnumLast(t) | Func::EnumRange(t) => return enum_fn(f, t, &args),
        Func::Bitwise(op, ty) => return bitwise(op, ty, &args),
        Func::FieldSelect(k) => {
            return Ok(match &args[0] {
                Value::Record(fields) => fields.get(k).cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            })
        }
        Func::FieldStore { field, fields } => return field_store(field, fields, args),
        Func::Srf(_) => {
            return Err(DbError::unsupported(
                "set-returning functions in this position",
            ))
        }
        Func::JsonBuild {
            object,
            binary,
            single,
            json_args,
        } => {
            let how = JsonBuild {
                object,
                binary,
                single,
                json_args,
            };
            return json_build(how, &args, &ev.ctx.eval);
        }
        Func::ArrayToJson => {
            let pretty = match args.get(1) {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Ok(Value::Null),
            };
            return Ok(match args.first() {
                Some(Value::Array(a)) => {
                    let mut out = String::new();
                    json_array(a, 0, pretty, &mut a.items.iter(), &ev.ctx.eval, &mut out);
                    Value::Text(Arc::from(out))
                }
                _ => Value::Null,
            });
        }
        Func::FormatVariadic => {
            if args[0].is_null() {
                return Ok(Value::Null);
            }
            let mut vals = vec![args[0].clone()];
            if let Some(Value::Array(a)) = args.get(1) {
                vals.extend(a.items.iter().cloned());
            }
            let types: Vec<DataType> = vals.iter().map(Value::data_type).collect();
            let r = nestor_types::functions::resolve("format", &types)?;
            return r.func.call(&vals, &ev.ctx.eval);
        }
        Func::JsonBuildVariadic { object, binary } => {
            let how = JsonBuild {
                object,
                binary,
                single: false,
                json_args: 0,
            };
            return match args.first() {
                Some(Value::Array(a)) => json_build(how, &a.items, &ev.ctx.eval),
                _ => Ok(Value::Null),
            };
        }
        Func::FormatType if !args[0].is_null() => {
            let typmod = args[1].as_i64().map(|m| m as i32);
            return Ok(crate::pg_catalog::format_type_visible(
                ev,
                int_arg(&args[0]) as u32,
                typmod,
            )
            .map_or(Value::Null, |s| Value::Text(s.into())));
        }
        Func::RowCtor => return Ok(Value::Record(std::sync::Arc::from(args))),
        Func::RowToJson(rt, binary) => {
            let sep = match args.get(1) {
                None | Some(Value::Bool(false)) => ",",
                Some(Value::Bool(true)) => ",\n ",
                Some(_) => return Ok(Value::Null),
            };
            return Ok(match &args[0] {
                Value::Record(fields) => {
                    let mut out = String::new();
                    record_json_sep(fields, rt, &ev.ctx.eval, sep, &mut out);
                    if binary {
                        Value::Jsonb(nestor_types::json::normalize_jsonb(&out)?.into())
                    } else {
                        Value::Text(out.into())
                    }
                }
                _ => Value::Null,
            });
        }
        Func::PopulateRecord { rt, .. } => {
            return nestor_types::json_populate::populate_record(
                rt,
                &args[0],
                &args[1],
                &ev.ctx.eval,
            )
        }
        Func::RowCompare(op) => {
            return Ok(match (&args[0], &args[1]) {
                (Value::Record(a), Value::Record(b)) => {
                    valops::row_compare(op, a, b, &ev.ctx.eval).map_or(Value::Null, Value::Bool)
                }
                _ => Value::Null,
            })
        }
        Func::AnyArray { op, all } => {
            return Ok(match &args[1] {
                Value::Array(a) => quantified(&args[0], op, all, a.items.iter(), &ev.ctx.eval),
                _ => Value::Null,
            })
        }
        Func::LibraryAny { func, all } => {
            let Value::Array(a) = &args[1] else {
                return Ok(Value::Null);
            };
            // PostgreSQL's ScalarArrayOpExpr: ANY is true on the first
            // true, ALL false on the first false; otherwise a NULL result
            // makes it NULL.
            let mut saw_null = false;
            for item in &a.items {
                let r = func.call(&[args[0].clone(), item.clone()], &ev.ctx.eval)?;
                match r {
                    Value::Bool(b) if b != all => return Ok(Value::Bool(b)),
                    Value::Bool(_) => {}
                    _ => saw_null = true,
                }
            }
            if nestor_types::tsearch::has_notices() {
                ev.ctx.notices.extend(nestor_types::tsearch::take_notices());
            }
            return Ok(if saw_null {
                Value::Null
            } else {
                Value::Bool(all)
            });
        }
        Func::LikeAny {
            ci,
            negated,
            all,
            regex,
        } => {
            return Ok(match (&args[0], &args[1]) {
                (Value::Text(s), Value::Array(a)) => {
                    like_quantified(s, (ci, negated, regex), all, a.items.iter())?
                }
                _ => Value::Null,
            })
        }
        _ => {}
    }
    let strict = !matches!(
        f,
        Func::CurrentSetting
            | Func::SetConfig
            | Func::ObjDescription
            | Func::ColDescription
            | Func::PgNotify
    );
    if strict && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    match f {
        Func::Now => Ok(Value::TimestampTz(ev.ctx.txn_start_us)),
        Func::StatementTimestamp => Ok(Value::TimestampTz(ev.ctx.stmt_start_us)),
        Func::ClockTimestamp => Ok(Value::TimestampTz(now_us())),
        // In the session's time zone, as PostgreSQL's current_date and
        // localtimestamp.
        Func::CurrentDate => {
            let local = ev.ctx.eval.time_zone.local_of_utc(ev.ctx.txn_start_us);
            Ok(Value::Date(local.div_euclid(86_400_000_000) as i32))
        }
        Func::LocalTimestamp => Ok(Value::Timestamp(
            ev.ctx.eval.time_zone.local_of_utc(ev.ctx.txn_start_us),
        )),
        Func::PgNotify => {
            let channel = text(&args[0], &ev.ctx.eval).unwrap_or_default();
            let payload = text(&args[1], &ev.ctx.eval).unwrap_or_default();
            crate::notify::check_notify(&channel, &payload)?;
            let level = ev.ctx.txn.level().0;
            ev.ctx.notifies.push(crate::PendingNotify {
                level,
                channel,
                payload,
            });
            Ok(Value::Null)
        }
        Func::PgSleep => match as_f64(&args[0]) {
            Some(secs) => pg_sleep(secs, ev),
            None => Ok(Value::Null),
        },
        Func::PgSleepFor if args[0].is_null() => Ok(Value::Null),
        Func::PgSleepFor => {
            let iv = nestor_types::datetime::parse_interval(
                &text(&args[0], &ev.ctx.eval).unwrap_or_default(),
            )?;
            pg_sleep((iv.span() as f64) / 1e6, ev)
        }
        Func::Random => Ok(Value::Float8(random_f64())),
        Func::TxidCurrent
        | Func::TxidCurrentIfAssigned
        | Func::CurrentSnapshot
        | Func::SnapshotXmin
        | Func::SnapshotXmax
        | Func::XactStatus => transaction_fn(f, &args, ev),
        Func::CurrentSetting => current_setting(&args, ev),
        Func::SetConfig => set_config(&args, ev),
        Func::Nextval | Func::Currval | Func::Setval | Func::Lastval => sequence_fn(f, &args, ev),
        Func::Advisory(a) => advisory(a, &args, ev),
        f => session_fn(f, &args, ev),
    }
}

/// Functions about the transaction and snapshots.
fn transaction_fn(f: Func, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    match f {
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
        Func::SnapshotXmin | Func::SnapshotXmax => snapshot_part(f, &args[0], &ev.ctx.eval),
        Func::XactStatus => xact_status(&args[0], ev),
        other => Err(DbError::internal(format!(
            "{other:?} is not a transaction function"
        ))),
    }
}

/// pg_promote(wait => true, wait_seconds => 60): superuser only; 55000 on
/// a server that is not a replica; false when not promoted within the wait.
fn promote(args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let repl = &ev.ctx.db.replication;
    if !repl.in_recovery() {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "recovery is not in progress",
        )
        .with_hint("Recovery control functions can only be executed during recovery."));
    }
    let wait = !matches!(args.first(), Some(Value::Bool(false)));
    let seconds = match args.get(1) {
        None | Some(Value::Null) => 60,
        Some(v) => as_i64(v).unwrap_or(60),
    };
    if seconds <= 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "\"wait_seconds\" must not be negative or zero",
        ));
    }
    let wait_ms = if wait { seconds as u64 * 1000 } else { 0 };
    (ev.ctx.wait_event)(Some(("IPC", "Promote")));
    let promoted = repl.request_promotion(wait_ms);
    (ev.ctx.wait_event)(None);
    if wait && !promoted {
        ev.ctx.notices.push(
            DbError::new(
                SqlState::Warning,
                format!("server did not promote within {seconds} seconds"),
            )
            .with_severity(nestor_common::error::Severity::Warning),
        );
    }
    Ok(Value::Bool(promoted || !wait))
}

/// enum_first, enum_last, enum_range (PostgreSQL's enum.c): the first
/// or last label of the type, or its labels from the lower bound (NULL:
/// the first) to the upper (NULL: the last), empty when they are out of
/// order.
fn enum_fn(f: Func, oid: u32, args: &[Value]) -> Result<Value, DbError> {
    let def = nestor_types::enums::lookup(oid).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!("cache lookup failed for type {oid}"),
        )
    })?;
    let name = DataType::Enum(oid).name();
    let empty = || {
        DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!("enum {name} contains no values"),
        )
    };
    let labels = &def.labels;
    let safe = |l: &nestor_types::enums::EnumLabel| {
        nestor_types::enums::check_safe(l.oid).map(|()| Value::Enum(l.oid))
    };
    match f {
        Func::EnumFirst(_) => return safe(labels.first().ok_or_else(empty)?),
        Func::EnumLast(_) => return safe(labels.last().ok_or_else(empty)?),
        _ => {}
    }
    let at = |v: Option<&Value>| match v {
        Some(Value::Enum(l)) => labels.iter().position(|x| x.oid == *l),
        _ => None,
    };
    let (lo, hi) = match args {
        [a, b] => (
            at(Some(a)).unwrap_or(0),
            at(Some(b)).map_or(labels.len(), |i| i + 1),
        ),
        _ => (0, labels.len()),
    };
    let items: Vec<Value> = labels
        .get(lo..hi.max(lo))
        .unwrap_or_default()
        .iter()
        .map(safe)
        .collect::<Result<_, _>>()?;
    Ok(Array::from_items(DataType::Enum(oid), items).value())
}

/// Functions about the session, the server and the catalog.
fn session_fn(f: Func, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let ec = ev.ctx.eval;
    Ok(match f {
        Func::Version => text_val(
            "PostgreSQL 15.0 (Nestor 0.1.0) on x86_64-pc-linux-gnu, compiled by rustc, 64-bit",
        ),
        Func::CurrentDatabase => text_val(setting(ev, "nestor.database", "postgres")),
        Func::CurrentUser => match crate::privilege::current_role_name(ev.ctx.settings) {
            "" => text_val("postgres"),
            name => text_val(name),
        },
        Func::SessionUser => text_val(setting(ev, "session_authorization", "postgres")),
        Func::CurrentSchema => match ev.ctx.catalog.search_path_schemas().first() {
            Some(s) => text_val(s.as_str()),
            None => Value::Null,
        },
        Func::TableIsVisible => Value::Bool(is_visible(ev.ctx.catalog, int_arg(&args[0]) as u32)),
        Func::BackendPid => Value::Int4(ev.ctx.session.0 as i32),
        Func::TriggerDepth => Value::Int4(ev.ctx.trigger_depth as i32),
        Func::CurrentWalLsn => {
            if ev.ctx.db.replication.in_recovery() {
                return Err(DbError::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    "recovery is in progress",
                )
                .with_hint("WAL control functions cannot be executed during recovery."));
            }
            Value::PgLsn(ev.ctx.db.wal_lsn().0)
        }
        Func::IsInRecovery => Value::Bool(ev.ctx.db.replication.in_recovery()),
        Func::LastWalReceiveLsn => ev
            .ctx
            .db
            .replication
            .receive_lsn()
            .map_or(Value::Null, |l| Value::PgLsn(l.0)),
        Func::LastWalReplayLsn => ev
            .ctx
            .db
            .replication
            .replay_lsn()
            .map_or(Value::Null, |l| Value::PgLsn(l.0)),
        Func::LastXactReplayTimestamp => ev
            .ctx
            .db
            .replication
            .replay_time_us()
            .map_or(Value::Null, Value::TimestampTz),
        Func::Promote => promote(args, ev)?,
        Func::StatReset => {
            superuser_only(ev, "pg_stat_reset")?;
            ev.ctx.db.stats.reset();
            Value::Null
        }
        Func::StatForceNextFlush => Value::Null,
        Func::WaitSamplingReset => {
            superuser_only(ev, "nestor_wait_sampling_reset_profile")?;
            ev.ctx.db.wait_sampling.reset_profile();
            Value::Null
        }
        Func::StatStatementsReset => {
            superuser_only(ev, "pg_stat_statements_reset")?;
            let arg = |i: usize| args.get(i).and_then(as_i64).unwrap_or(0);
            ev.ctx
                .db
                .stat_statements
                .reset(arg(0) as u32, arg(1) as u32, arg(2));
            Value::Null
        }
        Func::CancelBackend => {
            let pid = SessionId(as_i64(&args[0]).unwrap_or(0) as u32);
            Value::Bool(ev.ctx.db.sessions.cancel(pid, None))
        }
        Func::IsolationTestSessionIsBlocked => {
            // PostgreSQL: whether pg_blocking_pids($1) or
            // pg_safe_snapshot_blocking_pids($1) meets $2.
            let pid = SessionId(as_i64(&args[0]).unwrap_or(0) as u32);
            let list = text(&args[1], &ec).unwrap_or_default();
            let interesting = int_list(&list)?;
            let mut blockers = ev.ctx.db.txn.locks.blocking_sessions(pid);
            blockers.extend(ev.ctx.db.txn.ssi.safe_snapshot_blockers(pid));
            Value::Bool(blockers.iter().any(|b| interesting.contains(&b.0)))
        }
        Func::BlockingPids => {
            let Some(pid) = as_i64(&args[0]) else {
                return Ok(Value::Null);
            };
            let mut blockers = ev.ctx.db.txn.locks.blocking_sessions(SessionId(pid as u32));
            blockers.sort_unstable_by_key(|s| s.0);
            let items = blockers
                .into_iter()
                .map(|s| Value::Int4(s.0 as i32))
                .collect();
            Array::from_items(DataType::Int4, items).value()
        }
        Func::TerminateBackend => {
            let pid = SessionId(as_i64(&args[0]).unwrap_or(0) as u32);
            Value::Bool(ev.ctx.db.sessions.terminate(pid))
        }
        Func::ObjDescription | Func::ColDescription => {
            let Some(o) = as_i64(&args[0]) else {
                return Ok(Value::Null);
            };
            let (class, sub) = if f == Func::ColDescription {
                match as_i64(&args[1]) {
                    Some(k) => (Some(1259), k as i32),
                    None => return Ok(Value::Null),
                }
            } else {
                let class = match args.get(1) {
                    None => None,
                    Some(Value::Null) => return Ok(Value::Null),
                    Some(v) => {
                        let name = text(v, &ec).unwrap_or_default();
                        let name = name
                            .strip_prefix("pg_catalog.")
                            .unwrap_or(&name)
                            .to_string();
                        match nestor_plan::pg_catalog::by_name(&name) {
                            Some(rel) => Some(rel.oid()),
                            None => return Ok(Value::Null),
                        }
                    }
                };
                (class, 0)
            };
            crate::pg_catalog::description(ev.ctx.catalog, o as u32, class, sub)
                .map_or(Value::Null, |d| Value::Text(d.into()))
        }
        Func::Regclass => {
            let name = text(&args[0], &ec).unwrap_or_default();
            Value::Int8(nestor_plan::pg_catalog::regclass(ev.ctx.catalog, &name)? as i64)
        }
        Func::HasPrivilege(kind) => crate::privilege::has_privilege_fn(kind, args, ev)?,
        f => catalog_fn(f, args, &ec)?,
    })
}

/// pg_table_is_visible (and the other *_is_visible): a relation is
/// visible when its name alone finds it through the search path; other
/// objects (types, functions: in pg_catalog or public) always are.
fn is_visible(c: &nestor_catalog::Catalog, oid: u32) -> bool {
    use nestor_catalog::Relation;
    let rid = nestor_common::RelId(oid);
    let named = c
        .table_by_oid(rid)
        .map(|t| t.name.clone())
        .or_else(|| c.sequence_by_oid(rid).map(|s| s.name.clone()))
        .or_else(|| {
            c.views()
                .iter()
                .find(|v| v.oid == rid)
                .map(|v| v.name.clone())
        })
        .or_else(|| {
            c.tables().iter().find_map(|t| {
                t.indexes
                    .iter()
                    .find(|i| i.oid == rid)
                    .map(|i| i.name.clone())
            })
        });
    let Some(name) = named else {
        return true;
    };
    let found = match c.relation(&name) {
        Some(Relation::Table(t)) => t.oid,
        Some(Relation::Sequence(s)) => s.oid,
        Some(Relation::View(v)) => v.oid,
        Some(Relation::Index { table, index }) => table
            .indexes
            .iter()
            .find(|i| i.name == index)
            .map_or(nestor_common::RelId(0), |i| i.oid),
        None => nestor_common::RelId(0),
    };
    found == rid
}

/// Catalog helpers tools call, and the binder's internal conversions.
fn catalog_fn(f: Func, args: &[Value], ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    Ok(match f {
        Func::PgEncodingToChar => text_val(match int_arg(&args[0]) {
            0 => "SQL_ASCII",
            6 => "UTF8",
            _ => "",
        }),
        Func::AssignCast(t) => valops::cast(args[0].clone(), t, false, ec)?,
        Func::BinaryCoerce { from, to } if !args[0].is_null() => {
            nestor_types::binary::parse_binary(to, &args[0].to_binary_as(from))?
        }
        Func::BinaryCoerce { .. } => Value::Null,
        Func::CtidText => text_val(format!("({},1)", int_arg(&args[0]))),
        Func::BpcharToText => {
            text_val(text(&args[0], ec).unwrap_or_default().trim_end_matches(' '))
        }
        other => return Err(DbError::internal(format!("{other:?} reached catalog_fn"))),
    })
}

/// `ARRAY[...]`: one dimension of `args`, or (`nested`) one more
/// dimension over equally shaped arrays.
fn array_ctor(elem: DataType, nested: bool, args: Vec<Value>) -> Result<Value, DbError> {
    if !nested {
        return Ok(Array::from_items(elem, args).value());
    }
    let mismatch = || {
        DbError::new(
            SqlState::ArraySubscriptError,
            "multidimensional arrays must have array expressions with matching dimensions",
        )
    };
    let mut inner: Option<Vec<Dim>> = None;
    let mut items = Vec::new();
    let n = args.len();
    for v in args {
        let Value::Array(a) = v else {
            return Err(mismatch());
        };
        match &inner {
            None => inner = Some(a.dims.clone()),
            Some(d) if *d == a.dims => {}
            Some(_) => return Err(mismatch()),
        }
        items.extend(a.items.iter().cloned());
    }
    let inner = inner.unwrap_or_default();
    if inner.is_empty() {
        return Ok(Array::from_items(elem, Vec::new()).value());
    }
    let mut dims = vec![Dim {
        len: n as i32,
        lower: 1,
    }];
    dims.extend(inner);
    Ok(Array::new(elem, dims, items)?.value())
}

/// array_fill: `args[0]` in every position of an array of the given
/// dimensions and lower bounds (default 1), with PostgreSQL's errors.
fn array_fill(elem: DataType, args: &[Value]) -> Result<Value, DbError> {
    let null = || {
        DbError::new(
            SqlState::NullValueNotAllowed,
            "dimension array or low bound array cannot be null",
        )
    };
    let subscripts = |detail: &str| {
        DbError::new(
            SqlState::ArraySubscriptError,
            "wrong number of array subscripts",
        )
        .with_detail(detail)
    };
    let ints = |v: &Value| -> Result<Vec<i32>, DbError> {
        let Value::Array(a) = v else {
            return Err(null());
        };
        if a.ndims() > 1 {
            return Err(subscripts("Dimension array must be one dimensional."));
        }
        a.items
            .iter()
            .map(|x| match x {
                Value::Int4(i) => Ok(*i),
                _ => Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "dimension values cannot be null",
                )),
            })
            .collect()
    };
    let lens = ints(&args[1])?;
    let lowers = match args.get(2) {
        Some(v) => {
            let l = ints(v)?;
            if l.len() != lens.len() {
                return Err(subscripts(
                    "Low bound array has different size than dimensions array.",
                ));
            }
            l
        }
        None => vec![1; lens.len()],
    };
    if lens.len() > nestor_types::array::ARRAY_DIMS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "number of array dimensions ({}) exceeds the maximum allowed ({})",
                lens.len(),
                nestor_types::array::ARRAY_DIMS_MAX
            ),
        ));
    }
    if lens.iter().any(|&l| l < 0) {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "array size exceeds the maximum allowed ({})",
                nestor_types::array::ARRAY_ITEMS_MAX
            ),
        ));
    }
    if lens.is_empty() || lens.contains(&0) {
        return Ok(Array::from_items(elem, Vec::new()).value());
    }
    let count = lens
        .iter()
        .try_fold(1usize, |n, &l| n.checked_mul(l as usize))
        .filter(|&n| n <= nestor_types::array::ARRAY_ITEMS_MAX)
        .ok_or_else(|| {
            DbError::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "array size exceeds the maximum allowed ({})",
                    nestor_types::array::ARRAY_ITEMS_MAX
                ),
            )
        })?;
    // The value is a copy per position: bounded like any built value.
    if count.saturating_mul(args[0].size_bytes()) > nestor_common::limits::VALUE_BYTES_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "requested length too large",
        ));
    }
    let dims = lens
        .iter()
        .zip(&lowers)
        .map(|(&len, &lower)| Dim { len, lower })
        .collect();
    Ok(Array::new(elem, dims, vec![args[0].clone(); count])?.value())
}

/// `a[i][j]`: NULL outside the array, for a NULL subscript, or with a
/// different number of subscripts than dimensions.
fn subscript(args: Vec<Value>) -> Result<Value, DbError> {
    if let (Value::Text(name), Some(i)) = (&args[0], args[1].as_i64()) {
        // name[i]: the byte at i ("char"), '' past the end.
        let byte = usize::try_from(i).ok().and_then(|i| name.as_bytes().get(i));
        return Ok(Value::Text(Arc::from(
            byte.map_or(String::new(), |b| char::from(*b).to_string()),
        )));
    }
    if let (Value::Geo(_), [Some(i)]) = (&args[0], [args[1].as_i64()]) {
        return Ok(nestor_types::geometry::catalog::subscript(&args[0], i));
    }
    let Value::Array(a) = &args[0] else {
        return Ok(Value::Null);
    };
    let mut subs = Vec::with_capacity(args.len() - 1);
    for s in &args[1..] {
        match s.as_i64() {
            Some(i) => subs.push(i),
            None => return Ok(Value::Null),
        }
    }
    Ok(a.get(&subs).cloned().unwrap_or(Value::Null))
}

/// `a[lo:hi]...` (`nestor_types::array_subscript::get_slice`); NULL for
/// a NULL array or bound.
fn slice(omitted: u16, args: Vec<Value>) -> Result<Value, DbError> {
    let Value::Array(a) = &args[0] else {
        return Ok(Value::Null);
    };
    let Some((lower, upper)) = slice_bounds(omitted, &args[1..]) else {
        return Ok(Value::Null);
    };
    Ok(array_subscript::get_slice(a, &lower, &upper).value())
}

/// The (lower, upper) bounds of a slice's argument pairs, None where
/// omitted; None in all if a given bound is NULL.
#[allow(clippy::type_complexity)]
fn slice_bounds(omitted: u16, pairs: &[Value]) -> Option<(Vec<Option<i32>>, Vec<Option<i32>>)> {
    let mut lower = Vec::with_capacity(pairs.len() / 2);
    let mut upper = Vec::with_capacity(pairs.len() / 2);
    for (i, v) in pairs.iter().enumerate() {
        let b = if omitted & (1 << i) != 0 {
            None
        } else {
            Some(v.as_i64()? as i32)
        };
        if i % 2 == 0 {
            lower.push(b);
        } else {
            upper.push(b);
        }
    }
    Some((lower, upper))
}

/// A record after `r.f := v` (`Func::FieldStore`): a NULL record is
/// assigned into as one of NULL fields.
fn field_store(field: usize, fields: usize, args: Vec<Value>) -> Result<Value, DbError> {
    let mut args = args.into_iter();
    let base = args.next().unwrap_or(Value::Null);
    let value = args.next().unwrap_or(Value::Null);
    let mut out: Vec<Value> = match base {
        Value::Record(r) => r.to_vec(),
        _ => vec![Value::Null; fields],
    };
    let slot = out
        .get_mut(field)
        .ok_or_else(|| DbError::internal("field assignment past the record's fields"))?;
    *slot = value;
    Ok(Value::Record(Arc::from(out)))
}

/// An array column's value after `a[...] := v` (`Func::ArrayAssign`): a
/// NULL array is assigned into as an empty one; a NULL subscript is
/// PostgreSQL's 22004.
fn array_assign(
    elem: DataType,
    slice: bool,
    omitted: u16,
    args: Vec<Value>,
) -> Result<Value, DbError> {
    let mut args = args.into_iter();
    let base = args.next().unwrap_or(Value::Null);
    let value = args.next().unwrap_or(Value::Null);
    let subs: Vec<Value> = args.collect();
    let null_sub = || {
        DbError::new(
            SqlState::NullValueNotAllowed,
            "array subscript in assignment must not be null",
        )
    };
    // A geometric column assigned through its raw subscripts.
    if let DataType::Geo(_) = elem {
        let i = subs.first().and_then(Value::as_i64).ok_or_else(null_sub)?;
        return nestor_types::geometry::catalog::subscript_assign(&base, i, &value);
    }
    let empty;
    let a: &Array = match &base {
        Value::Array(a) => a,
        _ => {
            empty = Array::from_items(elem, Vec::new());
            &empty
        }
    };
    if !slice {
        let mut idx = Vec::with_capacity(subs.len());
        for s in &subs {
            idx.push(s.as_i64().ok_or_else(null_sub)? as i32);
        }
        return Ok(array_subscript::set_element(a, &idx, value)?.value());
    }
    let (lower, upper) = slice_bounds(omitted, &subs).ok_or_else(null_sub)?;
    let src = match &value {
        Value::Array(s) => Some(s.as_ref()),
        _ => None,
    };
    Ok(array_subscript::set_slice(a, &lower, &upper, src)?.value())
}

fn no_args(what: &str) -> DbError {
    DbError::internal(format!("{what} without its arguments"))
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
        return Ok(void());
    }
    let end = Instant::now() + Duration::from_secs_f64(secs.min(1e9));
    (ev.ctx.wait_event)(Some(("Timeout", "PgSleep")));
    let result = loop {
        if let Err(e) = (ev.ctx.wait.interrupt)() {
            break Err(DbError::from(e));
        }
        let now = Instant::now();
        if now >= end {
            break Ok(void());
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
    let xmax = ev.ctx.db.txn.next_xid().0;
    let mut xip: Vec<u64> = ev
        .ctx
        .db
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
    let next = ev.ctx.db.txn.next_xid().0 as i64;
    if xid >= next {
        return Err(bad_param(format!("transaction ID {xid} is in the future")));
    }
    if xid < 1 {
        return Ok(Value::Null);
    }
    let s = match ev.ctx.db.txn.xact_status(Xid(xid as u64)) {
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
    let canonical = nestor_settings::canonicalize_from(ev.ctx.settings, &name, &value)?;
    ev.ctx.setting_changes.push(SettingChange {
        name: name.to_ascii_lowercase(),
        value: canonical.clone(),
        is_local,
    });
    Ok(text_val(canonical))
}

fn sequence_fn(f: Func, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let catalog = &ev.ctx.catalog;
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
        v => catalog.sequence_named(&text(v, &ev.ctx.eval).unwrap_or_default())?,
    };
    {
        use nestor_catalog::acl::{SELECT, UPDATE, USAGE};
        let any = match f {
            Func::Nextval => USAGE | UPDATE,
            Func::Currval => SELECT | USAGE,
            _ => UPDATE,
        };
        crate::privilege::require_sequence(ev.ctx, seq.oid.0, &seq.name, any)?;
    }
    let temporary = seq.temporary || seq.namespace == nestor_catalog::TEMP_NAMESPACE;
    if ev.ctx.read_only && matches!(f, Func::Nextval | Func::Setval) && !temporary {
        // PostgreSQL's PreventCommandIfReadOnly (also what a replica's
        // sessions get: their transactions are all read-only), which
        // spares temporary sequences as it spares temporary tables.
        let what = if f == Func::Nextval {
            "nextval()"
        } else {
            "setval()"
        };
        return Err(DbError::new(
            SqlState::ReadOnlySqlTransaction,
            format!("cannot execute {what} in a read-only transaction"),
        ));
    }
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

/// A one-dimensional integer array literal, `{1,2,3}` (PostgreSQL's
/// array_in for int4, without NULLs or nesting).
fn int_list(text: &str) -> Result<Vec<u32>, DbError> {
    let malformed = || {
        DbError::new(
            SqlState::InvalidTextRepresentation,
            format!("malformed array literal: \"{text}\""),
        )
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(malformed)?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    inner
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|_| malformed()))
        .collect()
}

/// The pg_advisory_* functions. Session-level locks live in the lock
/// table under the session's pseudo-owner (held across transactions);
/// transaction-level ones are taken by the transaction like a row lock, so
/// its end (or a rollback to a savepoint before them) releases them.
fn advisory(a: AdvisoryFn, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let locks = &ev.ctx.db.txn.locks;
    let session = ev.ctx.session;
    if a.op == AdvisoryOp::UnlockAll {
        locks.unlock_session_all(session);
        return Ok(void());
    }
    let db = ev.ctx.catalog.database_oid();
    let key = match args {
        [k] => LockKey::Advisory {
            key: as_i64(k).unwrap_or(0),
            pair: false,
            db,
        },
        [k1, k2] => LockKey::Advisory {
            key: (as_i64(k1).unwrap_or(0) << 32) | (as_i64(k2).unwrap_or(0) as u32 as i64),
            pair: true,
            db,
        },
        _ => return Err(DbError::internal("advisory lock arguments")),
    };
    let exclusive = !a.shared;
    let policy = match a.op {
        AdvisoryOp::TryLock => WaitPolicy::NoWait,
        _ => WaitPolicy::Block,
    };
    match (a.op, a.xact) {
        (AdvisoryOp::Unlock, _) => {
            let held = locks.unlock_session(session, key, exclusive);
            if !held {
                let mode = if exclusive {
                    "ExclusiveLock"
                } else {
                    "ShareLock"
                };
                ev.ctx.notices.push(
                    DbError::new(
                        SqlState::Warning,
                        format!("you don't own a lock of type {mode}"),
                    )
                    .with_severity(nestor_common::error::Severity::Warning),
                );
            }
            Ok(Value::Bool(held))
        }
        (op, false) => {
            let got = locks.lock_session(session, key, exclusive, policy, &ev.ctx.wait)?;
            Ok(match op {
                AdvisoryOp::TryLock => Value::Bool(got),
                _ => void(),
            })
        }
        (op, true) => {
            let mode = if exclusive {
                LockMode::Update
            } else {
                LockMode::Share
            };
            let what = || "advisory lock".to_string();
            let got = match ev.ctx.txn.lock(key, mode, policy, &ev.ctx.wait, &what) {
                Ok(_) => true,
                Err(TxnError::LockNotAvailable { .. }) if policy == WaitPolicy::NoWait => false,
                Err(e) => return Err(e.into()),
            };
            Ok(match op {
                AdvisoryOp::TryLock => Value::Bool(got),
                _ => void(),
            })
        }
    }
}

/// The value of a function returning void: not NULL, printed as ''.
fn void() -> Value {
    Value::Text(Arc::from(""))
}

/// `x op ANY/ALL (ys)`: true as soon as one `y` satisfies it (ANY) or one
/// fails it (ALL); otherwise NULL if some comparison was with a NULL, else
/// false (ANY) / true (ALL). Empty `ys`: false (ANY), true (ALL).
pub(crate) fn quantified<'v>(
    x: &Value,
    op: nestor_plan::ir::Cmp,
    all: bool,
    ys: impl Iterator<Item = &'v Value>,
    ec: &nestor_types::EvalCtx,
) -> Value {
    if let Value::Record(xs) = x {
        return quantified_rows(xs, op, all, ys, ec);
    }
    let mut unknown = false;
    for y in ys {
        if x.is_null() || y.is_null() {
            unknown = true;
            continue;
        }
        let holds = op.holds(valops::compare(x, y, ec));
        if holds != all {
            return Value::Bool(holds);
        }
    }
    if unknown {
        Value::Null
    } else {
        Value::Bool(all)
    }
}

/// `s LIKE ANY/ALL (patterns)`: as [`quantified`], a NULL pattern makes
/// an otherwise undecided result NULL.
fn like_quantified<'v>(
    s: &str,
    (ci, negated, regex): (bool, bool, bool),
    all: bool,
    patterns: impl Iterator<Item = &'v Value>,
) -> Result<Value, DbError> {
    let mut unknown = false;
    for p in patterns {
        let Value::Text(p) = p else {
            unknown = true;
            continue;
        };
        let matched = if regex {
            nestor_types::regex::matches(s, p, ci)?
        } else {
            valops::like(s, p, ci)?
        };
        let holds = matched != negated;
        if holds != all {
            return Ok(Value::Bool(holds));
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(all)
    })
}

/// [`quantified`] of a row: each subquery row compared as row
/// constructors are (`valops::row_compare`).
fn quantified_rows<'v>(
    xs: &[Value],
    op: nestor_plan::ir::Cmp,
    all: bool,
    ys: impl Iterator<Item = &'v Value>,
    ec: &nestor_types::EvalCtx,
) -> Value {
    let mut unknown = false;
    for y in ys {
        let Value::Record(ys) = y else {
            unknown = true;
            continue;
        };
        match valops::row_compare(op, xs, ys, ec) {
            None => unknown = true,
            Some(holds) if holds != all => return Value::Bool(holds),
            Some(_) => {}
        }
    }
    if unknown {
        Value::Null
    } else {
        Value::Bool(all)
    }
}

/// json_build_object/array, to_json and their jsonb forms. json keeps
/// PostgreSQL's spacing (`{"a" : 1, "b" : [1, 2]}`); jsonb is normalized.
/// What `json_build` builds (`Func::JsonBuild`'s fields).
#[derive(Clone, Copy)]
struct JsonBuild {
    object: bool,
    binary: bool,
    single: bool,
    json_args: u128,
}

impl JsonBuild {
    fn is_json(self, i: usize) -> bool {
        i < 128 && self.json_args & (1 << i) != 0
    }
}

/// The value of argument `i` as JSON: a json argument's text as written.
fn json_arg(how: JsonBuild, i: usize, v: &Value, ec: &nestor_types::EvalCtx, out: &mut String) {
    match v {
        Value::Text(s) if how.is_json(i) => out.push_str(s.trim()),
        v => json_value(v, ec, out),
    }
}

/// json[b]_build_object's checks of the key at argument `i`: not NULL,
/// and a scalar (not an array, a record or JSON).
fn json_key_check(how: JsonBuild, i: usize, key: &Value) -> Result<(), DbError> {
    if key.is_null() {
        return Err(if how.binary {
            DbError::new(
                SqlState::InvalidParameterValue,
                format!("argument {}: key must not be null", i + 1),
            )
        } else {
            DbError::new(
                SqlState::NullValueNotAllowed,
                format!("argument {} cannot be null", i + 1),
            )
            .with_hint("Object keys should be text.")
        });
    }
    if how.is_json(i) || matches!(key, Value::Array(_) | Value::Record(_) | Value::Jsonb(_)) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "key value must be scalar, not array, composite, or json",
        ));
    }
    Ok(())
}

fn json_build(
    how: JsonBuild,
    args: &[Value],
    ec: &nestor_types::EvalCtx,
) -> Result<Value, DbError> {
    let JsonBuild {
        object,
        binary,
        single,
        ..
    } = how;
    let mut out = String::new();
    if single && args[0].is_null() {
        // to_json / to_jsonb are strict.
        return Ok(Value::Null);
    }
    if single {
        json_arg(how, 0, &args[0], ec, &mut out);
    } else if object {
        if !args.len().is_multiple_of(2) {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "argument list must have even number of elements",
            )
            .with_hint(format!(
                "The arguments of {} must consist of alternating keys and values.",
                if binary {
                    "jsonb_build_object()"
                } else {
                    "json_build_object()"
                }
            )));
        }
        out.push('{');
        for (i, pair) in args.chunks(2).enumerate() {
            json_key_check(how, 2 * i, &pair[0])?;
            if i > 0 {
                out.push_str(", ");
            }
            let key = text(&pair[0], ec).unwrap_or_default();
            nestor_types::json::write_json_string(&mut out, &key);
            out.push_str(" : ");
            json_arg(how, 2 * i + 1, &pair[1], ec, &mut out);
        }
        out.push('}');
    } else {
        out.push('[');
        for (i, v) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            json_arg(how, i, v, ec, &mut out);
        }
        out.push(']');
    }
    if out.len() > nestor_common::limits::VALUE_BYTES_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "requested length too large",
        ));
    }
    if binary {
        let normalized = nestor_types::json::normalize_jsonb(&out)?;
        return Ok(Value::Jsonb(Arc::from(normalized)));
    }
    Ok(Value::Text(Arc::from(out)))
}

/// One SQL value as JSON, as PostgreSQL's datum_to_json writes it.
/// row_to_json: `{"name":value,...}` (no spaces), a field that is itself
/// a record as a nested object.
fn record_json(
    fields: &[Value],
    rt: &nestor_types::datatype::RecordType,
    ec: &nestor_types::EvalCtx,
    out: &mut String,
) {
    record_json_sep(fields, rt, ec, ",", out)
}

/// `record_json` with `sep` between the fields: row_to_json(r, true)
/// puts ",\n " between the top level's (composite_to_json's line feeds).
fn record_json_sep(
    fields: &[Value],
    rt: &nestor_types::datatype::RecordType,
    ec: &nestor_types::EvalCtx,
    sep: &str,
    out: &mut String,
) {
    out.push('{');
    for (i, v) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let (name, ty) = rt
            .fields
            .get(i)
            .map_or((format!("f{}", i + 1), None), |(n, t)| {
                (n.clone(), Some(*t))
            });
        nestor_types::json::write_json_string(out, &name);
        out.push(':');
        match (v, ty) {
            (Value::Record(inner), Some(DataType::Record(it))) => record_json(inner, it, ec, out),
            // A json field is embedded as it is.
            (Value::Text(s), Some(DataType::Json)) => out.push_str(s),
            (v, _) => json_value(v, ec, out),
        }
    }
    out.push('}');
}

/// The context with DateStyle ISO: JSON's dates and times are ISO 8601.
fn iso(ec: &nestor_types::EvalCtx) -> nestor_types::EvalCtx {
    nestor_types::EvalCtx {
        date_style: nestor_types::datestyle::DateStyle::ISO_MDY,
        ..*ec
    }
}

fn json_value(v: &Value, ec: &nestor_types::EvalCtx, out: &mut String) {
    use std::fmt::Write;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Numeric(_) => {
            out.push_str(&v.to_text(ec))
        }
        Value::Float4(_) | Value::Float8(_) => {
            let t = v.to_text(ec);
            if t.parse::<f64>().is_ok_and(f64::is_finite) {
                out.push_str(&t);
            } else {
                nestor_types::json::write_json_string(out, &t);
            }
        }
        Value::Jsonb(s) => out.push_str(s),
        Value::Array(a) => json_array(a, 0, false, &mut a.items.iter(), ec, out),
        Value::Date(_) => {
            nestor_types::json::write_json_string(out, &v.to_text(&iso(ec)));
        }
        Value::Timestamp(_) | Value::TimestampTz(_) => {
            // ISO 8601 with a T and a zone of hours and minutes, as
            // PostgreSQL's JSON output, whatever the DateStyle.
            let mut t = v.to_text(&iso(ec)).replacen(' ', "T", 1);
            let b = t.as_bytes();
            let hours_only_zone =
                b.len() > 3 && matches!(b[b.len() - 3], b'+' | b'-') && b[b.len() - 4] != b'-';
            if matches!(v, Value::TimestampTz(_)) && hours_only_zone {
                t.push_str(":00");
            }
            let _ = write!(out, "\"{t}\"");
        }
        v => nestor_types::json::write_json_string(out, &v.to_text(ec)),
    }
}

/// An array (from dimension `level` down) as JSON arrays; `pretty` (at
/// the top level only) puts a line feed after each comma, as
/// array_to_json(a, true).
fn json_array<'a>(
    a: &nestor_types::array::Array,
    level: usize,
    pretty: bool,
    items: &mut impl Iterator<Item = &'a Value>,
    ec: &nestor_types::EvalCtx,
    out: &mut String,
) {
    out.push('[');
    let len = a.dims.get(level).map_or(0, |d| d.len);
    for i in 0..len {
        if i > 0 {
            out.push_str(if pretty && level == 0 { ",\n " } else { "," });
        }
        if level + 1 < a.dims.len() {
            json_array(a, level + 1, false, items, ec, out);
        } else if let Some(v) = items.next() {
            match (v, a.elem) {
                // A record element is an object (its fields named by its
                // type, f1, f2, ... for an anonymous one).
                (Value::Record(fields), DataType::Record(rt)) => record_json(fields, rt, ec, out),
                _ => json_value(v, ec, out),
            }
        }
    }
    out.push(']');
}

/// The values of a select-list set-returning function (`Plan::ProjectSet`),
/// at most [`SRF_VALUES_MAX`] of them.
pub(crate) fn srf_values(
    kind: nestor_plan::functions::SrfKind,
    args: &[Value],
    ec: &nestor_types::EvalCtx,
) -> Result<Vec<Value>, DbError> {
    use nestor_plan::functions::SrfKind;
    let too_many = || {
        DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("a set-returning function in a select list returns at most {SRF_VALUES_MAX} rows per input row"),
        )
    };
    Ok(match kind {
        SrfKind::Set(f) => {
            let rows = f.rows(args, ec)?;
            if rows.len() > SRF_VALUES_MAX {
                return Err(too_many());
            }
            // A populate function's rows are records, whatever their width.
            let records = matches!(f, nestor_types::set_fns::SetFn::Populate { .. });
            rows.into_iter()
                .map(|mut row| {
                    if row.len() == 1 && !records {
                        row.pop().expect("one column")
                    } else {
                        Value::Record(std::sync::Arc::from(row))
                    }
                })
                .collect()
        }
        SrfKind::JsonbPathQuery => {
            return Err(DbError::internal(
                "jsonb_path_query is bound as unnest of its items",
            ))
        }
        SrfKind::ExpandArray => match &args[0] {
            // PostgreSQL's SQL definition: `$1[s]` for s over the first
            // dimension's subscripts (NULL for an array of more
            // dimensions), and s's 1-based position.
            Value::Array(a) => match a.dims.first() {
                Some(d) => (0..d.len)
                    .map(|i| {
                        let x = if a.dims.len() == 1 {
                            a.items[i as usize].clone()
                        } else {
                            Value::Null
                        };
                        Value::Record(std::sync::Arc::from(vec![x, Value::Int4(i + 1)]))
                    })
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        },
        SrfKind::Unnest => match &args[0] {
            Value::Array(a) => a.items.clone(),
            _ => Vec::new(),
        },
        SrfKind::GenerateSubscripts => {
            let (Value::Array(a), Some(dim)) = (&args[0], args[1].as_i64()) else {
                return Ok(Vec::new());
            };
            let Some(d) = a.dim(dim) else {
                return Ok(Vec::new());
            };
            let mut v: Vec<Value> = (d.lower..d.lower + d.len).map(Value::Int4).collect();
            if matches!(args.get(2), Some(Value::Bool(true))) {
                v.reverse();
            }
            v
        }
        SrfKind::GenerateSeries => {
            if args.iter().any(Value::is_null) {
                return Ok(Vec::new());
            }
            if let [Value::Numeric(start), Value::Numeric(stop), step @ ..] = args {
                let step = match step {
                    [Value::Numeric(s)] => Some(s),
                    _ => None,
                };
                let mut v = Vec::new();
                for x in nestor_types::Numeric::series(start, stop, step)? {
                    if v.len() >= SRF_VALUES_MAX {
                        return Err(too_many());
                    }
                    v.push(Value::Numeric(x));
                }
                return Ok(v);
            }
            let int = |v: &Value| as_i64(v).unwrap_or(0);
            let (start, stop) = (int(&args[0]), int(&args[1]));
            let step = args.get(2).map_or(1, int);
            if step == 0 {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    "step size cannot equal zero",
                ));
            }
            let is4 = matches!(args[0], Value::Int4(_));
            let mut v = Vec::new();
            let mut i = start;
            while (step > 0 && i <= stop) || (step < 0 && i >= stop) {
                if v.len() >= SRF_VALUES_MAX {
                    return Err(too_many());
                }
                v.push(if is4 {
                    Value::Int4(i as i32)
                } else {
                    Value::Int8(i)
                });
                match i.checked_add(step) {
                    Some(x) => i = x,
                    None => break,
                }
            }
            v
        }
    })
}

/// Rows one select-list set-returning call may give for one input row
/// (they are held at once; FROM-clause generate_series streams instead).
pub const SRF_VALUES_MAX: usize = 10_000_000;

/// Integer bit operators (Func::Bitwise): the result in `ty`'s width, as
/// PostgreSQL's int2/int4/int8 and/or/xor/not/shl/shr (shifts wrap within
/// the width; out-of-range shifts take the amount modulo the width, as C).
fn bitwise(op: u8, ty: DataType, args: &[Value]) -> Result<Value, DbError> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let a = as_i64(&args[0]).unwrap_or(0);
    let b = args.get(1).and_then(as_i64).unwrap_or(0);
    let bits = match ty {
        DataType::Int2 => 16,
        DataType::Int4 => 32,
        _ => 64,
    };
    let shift = (b.rem_euclid(bits)) as u32;
    let r: i64 = match op {
        b'&' => a & b,
        b'|' => a | b,
        b'#' => a ^ b,
        b'~' => !a,
        b'<' => match ty {
            DataType::Int2 => i64::from((a as i16).wrapping_shl(shift)),
            DataType::Int4 => i64::from((a as i32).wrapping_shl(shift)),
            _ => a.wrapping_shl(shift),
        },
        _ => match ty {
            DataType::Int2 => i64::from((a as i16).wrapping_shr(shift)),
            DataType::Int4 => i64::from((a as i32).wrapping_shr(shift)),
            _ => a.wrapping_shr(shift),
        },
    };
    Ok(match ty {
        DataType::Int2 => Value::Int2(r as i16),
        DataType::Int4 => Value::Int4(r as i32),
        _ => Value::Int8(r),
    })
}
