//! Rows of the system views, computed when scanned (their names and columns
//! are the planner's, `nestor_plan::sysviews`): pg_stat_activity and
//! nestor_stat_savepoints from the session registry, pg_sequences from the
//! catalog; the pg_catalog relations are `crate::pg_catalog`'s.

use std::sync::Arc;

use nestor_catalog::Catalog;
use nestor_plan::sysviews::View;
use nestor_types::datetime::UNIX_EPOCH_USECS;
use nestor_types::numeric::Numeric;
use nestor_types::Value;

use crate::context::Ev;
use crate::registry::ActivityRow;

type Rows = Vec<Vec<Value>>;

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

/// The rows of `view` now.
pub fn rows(view: View, ev: &mut Ev) -> Rows {
    let db = ev.ctx.db;
    match view {
        View::StatActivity => db
            .sessions
            .activity()
            .iter()
            .map(|a| {
                let datid = ev.ctx.catalog.database(&a.datname).map_or(0, |d| d.oid.0);
                activity_row(a, datid)
            })
            .collect(),
        View::StatSavepoints => db.sessions.activity().iter().map(savepoint_row).collect(),
        View::StatWal => vec![wal_row(db)],
        View::StatReplication => db.replication.senders().iter().map(sender_row).collect(),
        View::StatWalReceiver => db.replication.receiver().iter().map(receiver_row).collect(),
        View::Memory => vec![memory_row()],
        View::StatSsl => db.sessions.activity().iter().map(ssl_row).collect(),
        View::Locks => lock_rows(ev),
        View::WaitSamplingProfile => db
            .wait_sampling
            .profile()
            .into_iter()
            .map(|(pid, event, n)| {
                let (t, e) = wait_pair(event);
                vec![Value::Int4(pid.0 as i32), t, e, Value::Int8(n as i64)]
            })
            .collect(),
        View::WaitSamplingHistory => db
            .wait_sampling
            .history()
            .into_iter()
            .map(|h| {
                let (t, e) = wait_pair(h.event);
                vec![
                    Value::Int4(h.pid.0 as i32),
                    Value::TimestampTz(h.ts_us),
                    t,
                    e,
                ]
            })
            .collect(),
        View::Sequences => sequence_rows(ev.ctx.catalog),
        View::StatStatements => statement_rows(ev),
        View::StatDatabase => database_rows(ev),
        View::StatTables { .. } => table_rows(ev),
        View::StatIndexes { .. } => index_rows(ev),
        View::StatioTables { .. } => statio_table_rows(ev),
        View::StatStatementsInfo => vec![vec![
            Value::Int8(db.stat_statements.dealloc()),
            Value::TimestampTz(db.stat_statements.stats_reset_us()),
        ]],
        View::Cursors => db
            .sessions
            .get(ev.ctx.session)
            .map(|s| s.cursors.lock().iter().map(cursor_row).collect())
            .unwrap_or_default(),
        View::PreparedStatements => db
            .sessions
            .get(ev.ctx.session)
            .map(|s| s.prepared.lock().iter().map(|p| prepared_row(p)).collect())
            .unwrap_or_default(),
        View::Catalog(rel) => {
            let tableoid = Value::Int8(i64::from(rel.oid()));
            let mut rows = crate::pg_catalog::rows(rel, ev);
            for r in &mut rows {
                r.push(tableoid.clone());
            }
            rows
        }
    }
}

fn cursor_row(c: &crate::registry::CursorInfo) -> Vec<Value> {
    vec![
        text(&c.name),
        text(&c.statement),
        Value::Bool(c.holdable),
        Value::Bool(c.binary),
        Value::Bool(c.scrollable),
        Value::TimestampTz(c.creation_time_us),
    ]
}

fn prepared_row(p: &crate::registry::PreparedInfo) -> Vec<Value> {
    use nestor_types::datatype::{DataType, RegKind};
    let types = p
        .param_types
        .iter()
        .map(|o| Value::Int8(i64::from(*o)))
        .collect();
    vec![
        text(&p.name),
        text(&p.statement),
        Value::TimestampTz(p.prepare_time_us),
        nestor_types::array::Array::from_items(DataType::Reg(RegKind::Type), types).value(),
        Value::Bool(p.from_sql),
        Value::Int8(p.executions.load(std::sync::atomic::Ordering::Relaxed)),
        Value::Int8(0),
    ]
}

fn activity_row(a: &ActivityRow, datid: u32) -> Vec<Value> {
    vec![
        Value::Int8(i64::from(datid)),
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
}

/// pg_stat_wal. Nestor writes no full-page images (wal_fpi is 0) and, like
/// PostgreSQL with track_wal_io_timing off (its default), does not time
/// writes and syncs; stats_reset is when the log was opened (server start).
/// Without a WAL (in-memory database) the counters are all zero.
fn wal_row(db: &crate::Database) -> Vec<Value> {
    let wal = db.log.wal();
    let s = wal.as_ref().map(|w| w.stats()).unwrap_or_default();
    let int = |n: u64| Value::Int8(i64::try_from(n).unwrap_or(i64::MAX));
    vec![
        int(s.records),
        Value::Int8(0),
        Value::Numeric(Numeric::from_i64(
            i64::try_from(s.bytes_written).unwrap_or(i64::MAX),
        )),
        int(s.buffer_full_waits),
        int(s.writes),
        int(s.fsyncs),
        Value::Float8(0.0),
        Value::Float8(0.0),
        wal.map_or(Value::Null, |w| {
            let unix = w.opened().duration_since(std::time::UNIX_EPOCH);
            Value::TimestampTz(unix.unwrap_or_default().as_micros() as i64 + UNIX_EPOCH_USECS)
        }),
    ]
}

fn lsn_value(l: nestor_common::Lsn) -> Value {
    Value::PgLsn(l.0)
}

fn lag(us: Option<i64>) -> Value {
    us.map_or(Value::Null, |us| {
        Value::Interval(nestor_types::datetime::Interval::new(0, 0, us))
    })
}

/// pg_stat_replication: one row per walsender (docs/replication.md).
fn sender_row(s: &crate::replication::SenderStatus) -> Vec<Value> {
    vec![
        Value::Int4(s.pid as i32),
        Value::Int8(10),
        text(&s.usename),
        text(&s.application_name),
        opt_text(&s.client_addr),
        Value::Null,
        Value::Null,
        Value::TimestampTz(s.backend_start_us),
        Value::Null,
        text(s.state),
        lsn_value(s.sent_lsn),
        lsn_value(s.write_lsn),
        lsn_value(s.flush_lsn),
        lsn_value(s.replay_lsn),
        lag(s.write_lag_us),
        lag(s.flush_lag_us),
        lag(s.replay_lag_us),
        Value::Int4(if s.sync_state == "async" { 0 } else { 1 }),
        text(s.sync_state),
        opt_ts(s.reply_time_us),
    ]
}

/// pg_stat_wal_receiver: the replica's walreceiver (no row on a primary).
fn receiver_row(r: &crate::replication::ReceiverStatus) -> Vec<Value> {
    vec![
        Value::Int4(r.pid as i32),
        text(r.status),
        lsn_value(r.receive_start_lsn),
        Value::Int4(r.received_tli),
        lsn_value(r.written_lsn),
        lsn_value(r.flushed_lsn),
        Value::Int4(r.received_tli),
        opt_ts(r.last_msg_send_time_us),
        opt_ts(r.last_msg_receipt_time_us),
        lsn_value(r.latest_end_lsn),
        opt_ts(r.latest_end_time_us),
        opt_text(&r.slot_name),
        text(&r.sender_host),
        Value::Int4(r.sender_port),
        text(&r.conninfo),
    ]
}

/// nestor_memory: the memory budget's last measurement, its limit (NULL
/// without one), where the measurement comes from, whether writes are
/// being refused (53200), and what the categories hold as counted
/// (`nestor_common::memory::Category`, in that order).
fn memory_row() -> Vec<Value> {
    use nestor_common::memory;
    let int = |n: u64| Value::Int8(i64::try_from(n).unwrap_or(i64::MAX));
    let limit = memory::limit_bytes();
    let categories = memory::Category::ALL.map(|c| int(memory::held(c)));
    let mut row = vec![
        int(memory::used_bytes()),
        if limit == u64::MAX {
            Value::Null
        } else {
            int(limit)
        },
        text(memory::source()),
        Value::Bool(memory::check_write().is_err()),
    ];
    row.extend(categories);
    row
}

fn savepoint_row(a: &ActivityRow) -> Vec<Value> {
    vec![
        Value::Int4(a.pid.0 as i32),
        Value::Int8(a.savepoint_depth as i64),
        Value::Int8(a.savepoints_defined as i64),
        Value::Int8(a.savepoint_rollbacks as i64),
    ]
}

fn sequence_rows(catalog: &Catalog) -> Rows {
    catalog
        .sequences()
        .iter()
        .map(|s| {
            let (last, called) = *s.state.lock();
            vec![
                text(
                    catalog
                        .schema_name(s.namespace)
                        .unwrap_or_else(|| "public".into()),
                ),
                text(&s.name),
                text(crate::pg_catalog::role_name(
                    catalog,
                    catalog
                        .acl(nestor_catalog::acl::ObjKind::Sequence, s.oid.0)
                        .owner
                        .0,
                )),
                Value::Int8(i64::from(
                    crate::pg_catalog::sequence_type(catalog, s).oid(),
                )),
                Value::Int8(s.start),
                Value::Int8(s.min),
                Value::Int8(s.max),
                Value::Int8(s.increment),
                Value::Bool(s.cycle),
                Value::Int8(s.cache),
                if called {
                    Value::Int8(last)
                } else {
                    Value::Null
                },
            ]
        })
        .collect()
}

/// pg_stat_ssl: one row per session; no client certificates (client_dn,
/// client_serial and issuer_dn are NULL, as for a connection without one).
fn ssl_row(a: &ActivityRow) -> Vec<Value> {
    let text = |s: &str| Value::Text(s.into());
    match &a.ssl {
        Some(s) => vec![
            Value::Int4(a.pid.0 as i32),
            Value::Bool(true),
            text(&s.version),
            text(&s.cipher),
            Value::Int4(s.bits),
            Value::Null,
            Value::Null,
            Value::Null,
        ],
        None => vec![
            Value::Int4(a.pid.0 as i32),
            Value::Bool(false),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ],
    }
}

/// A sampled wait event as (event_type, event) values; NULLs: on CPU.
fn wait_pair(event: crate::wait_sampling::WaitEvent) -> (Value, Value) {
    match event {
        Some((t, e)) => (text(t), text(e)),
        None => (Value::Null, Value::Null),
    }
}

/// pg_locks: every lock in the lock table (row, transaction, advisory and
/// relation locks, granted or awaited) and the relation locks in the
/// sessions' fast-path lists. Row locks, which PostgreSQL keeps in tuple
/// headers and so never lists, appear as `tuple` locks in the mode
/// PostgreSQL's heavyweight tuple lock takes for them (heapam.c's
/// tupleLockExtraInfo). No virtualxid rows: Nestor has no virtual XIDs.
fn lock_rows(ev: &mut Ev) -> Rows {
    use nestor_txn::{LockKey, LockMode};
    let db = ev.ctx.db;
    let table_of: std::collections::HashMap<u32, u32> = ev
        .ctx
        .catalog
        .tables()
        .iter()
        .map(|t| (t.storage.id.0, t.oid.0))
        .collect();
    // pg_locks' columns, by position (plan::sysviews::View::Locks).
    const LOCKTYPE: usize = 0;
    const DATABASE: usize = 1;
    const RELATION: usize = 2;
    const PAGE: usize = 3;
    const TUPLE: usize = 4;
    const TRANSACTIONID: usize = 6;
    const CLASSID: usize = 7;
    const OBJID: usize = 8;
    const OBJSUBID: usize = 9;
    const PID: usize = 11;
    const MODE: usize = 12;
    const GRANTED: usize = 13;
    const FASTPATH: usize = 14;
    const COLUMNS: usize = 16;
    debug_assert_eq!(COLUMNS, View::Locks.columns().len());
    let oid = |o: u32| Value::Int8(i64::from(o));
    let mut out = Vec::new();
    for r in db.txn.lock_rows() {
        let mut row = vec![Value::Null; COLUMNS];
        row[DATABASE] = oid(5);
        row[PID] = Value::Int4(r.session.0 as i32);
        row[GRANTED] = Value::Bool(r.granted);
        row[FASTPATH] = Value::Bool(r.fastpath);
        let kind = match r.key {
            LockKey::Relation(o) => {
                row[RELATION] = oid(o);
                "relation"
            }
            LockKey::Row(rel, rid) => {
                row[RELATION] = table_of.get(&rel.0).map_or(Value::Null, |&o| oid(o));
                row[PAGE] = Value::Int4(rid.0 as i32);
                row[TUPLE] = Value::Int2(1);
                "tuple"
            }
            LockKey::Txn(x) => {
                row[TRANSACTIONID] = Value::Int8(x.0 as i64);
                "transactionid"
            }
            LockKey::Advisory { key, pair, db } => {
                row[DATABASE] = oid(db);
                row[CLASSID] = oid((key as u64 >> 32) as u32);
                row[OBJID] = oid(key as u32);
                row[OBJSUBID] = Value::Int2(if pair { 2 } else { 1 });
                "advisory"
            }
        };
        row[LOCKTYPE] = text(kind);
        let modes: Vec<&'static str> = match (r.key, r.mode) {
            (_, LockMode::Table(m)) => m.modes().map(|m| m.name()).collect(),
            // A transaction holds its own XID exclusively; waiters share it.
            (LockKey::Txn(_), _) if r.granted => vec!["ExclusiveLock"],
            (LockKey::Txn(_), _) => vec!["ShareLock"],
            (LockKey::Advisory { .. }, LockMode::Update) => vec!["ExclusiveLock"],
            (LockKey::Advisory { .. }, _) => vec!["ShareLock"],
            (_, LockMode::KeyShare) => vec!["AccessShareLock"],
            (_, LockMode::Share) => vec!["RowShareLock"],
            (_, LockMode::NoKeyUpdate) => vec!["ExclusiveLock"],
            (_, LockMode::Update) => vec!["AccessExclusiveLock"],
        };
        for mode in modes {
            let mut row = row.clone();
            row[MODE] = text(mode);
            out.push(row);
        }
    }
    out
}

/// pg_stat_statements: one row per (user, database, query). As in
/// PostgreSQL, a role that is not a superuser sees the text and queryid of
/// its own statements only ("<insufficient privilege>" and NULL for the
/// others'). Planning, block, WAL and JIT columns are 0
/// (`crate::stat_statements`).
fn statement_rows(ev: &Ev) -> Rows {
    let role = ev.ctx.role;
    let int = |n: u64| Value::Int8(i64::try_from(n).unwrap_or(i64::MAX));
    let zero_i = Value::Int8(0);
    let zero_f = Value::Float8(0.0);
    ev.ctx
        .db
        .stat_statements
        .rows()
        .into_iter()
        .map(|e| {
            let visible = role.superuser || e.userid == role.oid.0;
            let mut row = vec![
                Value::Int8(i64::from(e.userid)),
                Value::Int8(i64::from(e.dbid)),
                Value::Bool(e.toplevel),
                if visible {
                    Value::Int8(e.queryid)
                } else {
                    Value::Null
                },
                if visible {
                    Value::Text(e.query.clone())
                } else {
                    text("<insufficient privilege>")
                },
                zero_i.clone(),
            ];
            row.extend(std::iter::repeat_n(zero_f.clone(), 5));
            row.extend([
                int(e.calls),
                Value::Float8(e.total_ms),
                Value::Float8(e.min_ms),
                Value::Float8(e.max_ms),
                Value::Float8(e.mean_ms),
                Value::Float8(e.stddev_ms),
                int(e.rows),
            ]);
            // shared_blks_* (4), local_blks_* (4), temp_blks_* (2)
            row.extend(std::iter::repeat_n(zero_i.clone(), 10));
            // blk_read/write_time, temp_blk_read/write_time
            row.extend(std::iter::repeat_n(zero_f.clone(), 4));
            row.extend([
                zero_i.clone(),
                zero_i.clone(),
                Value::Numeric(Numeric::from_i64(0)),
                zero_i.clone(),
                zero_f.clone(),
                zero_i.clone(),
                zero_f.clone(),
                zero_i.clone(),
                zero_f.clone(),
                zero_i.clone(),
                zero_f.clone(),
                int(e.savepoints),
            ]);
            row
        })
        .collect()
}

fn count(n: u64) -> Value {
    Value::Int8(i64::try_from(n).unwrap_or(i64::MAX))
}

/// pg_stat_database: the database's row, then PostgreSQL's row for shared
/// objects (datid 0, NULL datname; nothing counts there in Nestor). Tuple
/// counters are the sums of pg_stat_all_tables' (tup_returned: rows read by
/// sequential scans plus rows fetched by index scans; tup_fetched: the
/// latter); block, temporary file, checksum and session-time counters are
/// 0 or NULL (no blocks, no temporary files, no checksums); conflicts are
/// 0 (a replica never cancels a query: docs/replication.md).
fn database_rows(ev: &Ev) -> Rows {
    use crate::stats::Counter as C;
    use std::sync::atomic::Ordering::Relaxed;
    let db = ev.ctx.db;
    let s = &db.stats;
    let sums = s.sums();
    let name = ev
        .ctx
        .settings
        .get("nestor.database")
        .unwrap_or("postgres")
        .to_string();
    let backends = db.sessions.activity().len();
    let zero = Value::Int8(0);
    let zero_f = Value::Float8(0.0);
    let row = |datid: u32, name: Value, backends: usize, counts: [u64; 12], reset: Value| {
        let [commit, rollback, returned, fetched, ins, upd, del, deadlocks, sessions, temp_files, temp_bytes, _] =
            counts;
        vec![
            Value::Int8(i64::from(datid)),
            name,
            Value::Int4(i32::try_from(backends).unwrap_or(i32::MAX)),
            count(commit),
            count(rollback),
            zero.clone(),
            zero.clone(),
            count(returned),
            count(fetched),
            count(ins),
            count(upd),
            count(del),
            zero.clone(),
            count(temp_files),
            count(temp_bytes),
            count(deadlocks),
            Value::Null,
            Value::Null,
            zero_f.clone(),
            zero_f.clone(),
            zero_f.clone(),
            zero_f.clone(),
            zero_f.clone(),
            count(sessions),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            reset,
        ]
    };
    let fetched = sums[C::IdxTupFetch as usize];
    let (commits, rollbacks) = s.xacts();
    vec![
        row(
            ev.ctx.catalog.database_oid(),
            text(name),
            backends,
            [
                commits,
                rollbacks,
                sums[C::SeqTupRead as usize] + fetched,
                fetched,
                sums[C::Inserted as usize],
                sums[C::Updated as usize],
                sums[C::Deleted as usize],
                s.deadlocks.load(Relaxed),
                s.sessions.load(Relaxed),
                s.temp_files.load(Relaxed),
                s.temp_bytes.load(Relaxed),
                0,
            ],
            Value::TimestampTz(s.stats_reset_us()),
        ),
        row(0, Value::Null, 0, [0; 12], Value::Null),
    ]
}

/// pg_stat_all_tables / pg_stat_user_tables: one row per table the session
/// sees (its TEMP ones in pg_temp_N). idx_scan and idx_tup_fetch are NULL
/// for a table without indexes, as in PostgreSQL. n_live_tup is exact: the
/// rows the statement's snapshot sees (PostgreSQL's is an estimate);
/// n_dead_tup the versions superseded and not yet pruned (storage's
/// count). The background pruner stands for autovacuum (last_autovacuum,
/// autovacuum_count) and VACUUM's pruning for vacuum; nothing analyzes
/// (last_*analyze NULL, counts 0), so n_mod_since_analyze is every change
/// counted; n_tup_hot_upd is 0 (no pages, no HOT).
fn table_rows(ev: &Ev) -> Rows {
    use crate::stats::Counter as C;
    let catalog = ev.ctx.catalog;
    let s = &ev.ctx.db.stats;
    let snap = ev.ctx.snapshot;
    let ts = |(n, at): (u64, Option<i64>)| {
        (
            count(n),
            at.map_or(Value::Null, |us| Value::TimestampTz(us + UNIX_EPOCH_USECS)),
        )
    };
    catalog
        .tables()
        .iter()
        .map(|t| {
            let index_oids: Vec<u32> = t.indexes.iter().map(|i| i.oid.0).collect();
            let (c, _) = s.table_and_indexes(t.oid.0, &index_oids);
            let indexed = !t.indexes.is_empty();
            let idx = |v: u64| if indexed { count(v) } else { Value::Null };
            let live = t.storage.scan(&snap).count() as u64;
            let (vacuum_count, last_vacuum) =
                ts(t.storage.prune_passes(nestor_storage::PruneBy::Vacuum));
            let (auto_count, last_auto) =
                ts(t.storage.prune_passes(nestor_storage::PruneBy::Background));
            let (ins, upd, del) = (
                c[C::Inserted as usize],
                c[C::Updated as usize],
                c[C::Deleted as usize],
            );
            vec![
                Value::Int8(i64::from(t.oid.0)),
                text(crate::pg_catalog::table_schema_name(t, catalog)),
                text(&t.name),
                count(c[C::SeqScan as usize]),
                count(c[C::SeqTupRead as usize]),
                idx(c[C::IdxScan as usize]),
                idx(c[C::IdxTupFetch as usize]),
                count(ins),
                count(upd),
                count(del),
                Value::Int8(0),
                count(live),
                count(t.storage.dead_versions()),
                count(ins + upd + del),
                count(ins),
                last_vacuum,
                last_auto,
                Value::Null,
                Value::Null,
                vacuum_count,
                auto_count,
                Value::Int8(0),
                Value::Int8(0),
            ]
        })
        .collect()
}

/// pg_stat_all_indexes / pg_stat_user_indexes: one row per index of each
/// table the session sees. idx_scan counts the index's lookups (each
/// execution of an inner index lookup of a nested loop, as PostgreSQL);
/// idx_tup_read and idx_tup_fetch both count the visible rows they
/// returned (PostgreSQL's idx_tup_read counts index entries, visible or
/// not: Nestor's index scans return visible rows only).
fn index_rows(ev: &Ev) -> Rows {
    use crate::stats::Counter as C;
    let catalog = ev.ctx.catalog;
    let s = &ev.ctx.db.stats;
    let mut out = Vec::new();
    for t in catalog.tables() {
        let oids: Vec<u32> = t.indexes.iter().map(|i| i.oid.0).collect();
        let (_, counts) = s.table_and_indexes(t.oid.0, &oids);
        let schema = crate::pg_catalog::table_schema_name(&t, catalog);
        for (i, c) in t.indexes.iter().zip(counts) {
            let fetched = count(c[C::IdxTupFetch as usize]);
            out.push(vec![
                Value::Int8(i64::from(t.oid.0)),
                Value::Int8(i64::from(i.oid.0)),
                text(&schema),
                text(&t.name),
                text(&i.name),
                count(c[C::IdxScan as usize]),
                fetched.clone(),
                fetched,
            ]);
        }
    }
    out
}

/// pg_statio_all_tables / pg_statio_user_tables: one row per table the
/// session sees; every block counter is 0 (tables and indexes live in
/// memory: no block is ever read, nor found in a buffer cache), idx_*
/// NULL for a table without indexes and toast_* / tidx_* NULL (no TOAST
/// tables), as PostgreSQL shows them for such tables.
fn statio_table_rows(ev: &Ev) -> Rows {
    let catalog = ev.ctx.catalog;
    catalog
        .tables()
        .iter()
        .map(|t| {
            let idx = if t.indexes.is_empty() {
                Value::Null
            } else {
                Value::Int8(0)
            };
            vec![
                Value::Int8(i64::from(t.oid.0)),
                text(crate::pg_catalog::table_schema_name(t, catalog)),
                text(&t.name),
                Value::Int8(0),
                Value::Int8(0),
                idx.clone(),
                idx,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ]
        })
        .collect()
}
