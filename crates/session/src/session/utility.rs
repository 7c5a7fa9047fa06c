//! Statements the session executes itself: transaction control, SET / SHOW
//! / RESET, PREPARE / EXECUTE / DEALLOCATE, DISCARD, and COPY's
//! sub-protocol. Each is a small function from the parse tree to messages;
//! the state they change lives in [`Session`], [`crate::txn_block`] and
//! [`crate::settings`].

use std::sync::Arc;
use std::time::Duration;

use nestor_common::error::Severity;
use nestor_common::limits::CHECKPOINT_DDL_WAIT_MS;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{
    node::Node as NodeEnum, CopyStmt, ExecuteStmt, Node, PrepareStmt, RawStmt, TransactionStmt,
    TransactionStmtKind as K, VariableSetKind, VariableSetStmt,
};
use nestor_types::Value;

use super::copy_server::{self, ServerEnd, Source};
use super::{duplicate_statement, CopyInState, RowOut, Session};
use crate::copy::{self, CopyParser, COPY_BATCH_ROWS};
use crate::cursor;
use crate::encode;
use crate::portal::StmtBody;
use crate::protocol::{BackendMsg, FormatCode, FrontendMsg};
use crate::txn_block::{parse_isolation, TxnOptions};
use nestor_exec::pg_catalog::quote_ident;
use nestor_exec::{const_text, ColumnDesc, CommandTag, RowsCommand};
use nestor_settings as settings;

/// COMMIT, ROLLBACK, ROLLBACK TO (and PREPARE TRANSACTION): what a failed
/// block still accepts.
pub(crate) fn is_txn_exit(node: &NodeEnum) -> bool {
    match node {
        NodeEnum::TransactionStmt(t) => matches!(
            K::try_from(t.kind),
            Ok(K::TransStmtCommit
                | K::TransStmtRollback
                | K::TransStmtRollbackTo
                | K::TransStmtPrepare)
        ),
        _ => false,
    }
}

fn text_column(name: &str) -> ColumnDesc {
    ColumnDesc {
        name: name.to_string(),
        type_oid: 25,
        type_size: -1,
        type_modifier: -1,
        table_oid: 0,
        column_id: 0,
    }
}

/// Result columns of a utility statement (for Describe).
pub(crate) fn result_columns(
    s: &Session,
    node: &NodeEnum,
) -> Result<Option<Vec<ColumnDesc>>, DbError> {
    Ok(match node {
        NodeEnum::VariableShowStmt(v) if v.name == "all" => Some(vec![
            text_column("name"),
            text_column("setting"),
            text_column("description"),
        ]),
        NodeEnum::VariableShowStmt(v) => Some(vec![text_column(show_name(&v.name)?)]),
        NodeEnum::ExecuteStmt(e) => s.statements.get(&e.name).and_then(|p| p.columns.clone()),
        // An unknown cursor fails at execution, as in PostgreSQL.
        NodeEnum::FetchStmt(f) if !f.ismove => match s.cursors.get(&f.portalname) {
            Some(c) => Some(c.columns.clone()),
            None => s
                .portals
                .get(&f.portalname)
                .and_then(|p| p.stmt.columns.clone()),
        },
        _ => None,
    })
}

fn show_name(name: &str) -> Result<&'static str, DbError> {
    settings::canonical_name(name)
}

fn tag(rows: &mut RowOut<'_>, t: &'static str) {
    rows.out
        .push(BackendMsg::CommandComplete(CommandTag::Plain(t)));
}

/// Execute a utility statement.
pub(crate) fn execute(
    s: &mut Session,
    text: &Arc<str>,
    raw: &RawStmt,
    node: &NodeEnum,
    params: &[Value],
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    match node {
        NodeEnum::DeclareCursorStmt(d) => declare_cursor(s, text, d, params, rows),
        NodeEnum::FetchStmt(f) => fetch(s, f, rows),
        NodeEnum::ClosePortalStmt(c) => {
            if c.portalname.is_empty() {
                s.cursors.clear();
            } else {
                s.cursor(&c.portalname)?;
                s.cursors.remove(&c.portalname);
            }
            s.publish_cursors();
            tag(rows, "CLOSE CURSOR");
            Ok(())
        }
        NodeEnum::TransactionStmt(t) => transaction(s, t, rows),
        NodeEnum::VariableSetStmt(v) => set(s, v, rows),
        NodeEnum::VariableShowStmt(v) => show(s, &v.name, rows),
        NodeEnum::PrepareStmt(p) => prepare(s, text, raw, p, rows),
        NodeEnum::ExecuteStmt(e) => execute_prepared(s, text, e, rows),
        NodeEnum::CreateTableAsStmt(_) => match super::ctas_execute::rewrite(s, text, node)? {
            Some((text, raw)) => s.exec_raw(&text, &raw, params, rows),
            None => Err(DbError::internal("CREATE TABLE AS run as a utility")),
        },
        NodeEnum::DeallocateStmt(d) => {
            if d.isall || d.name.is_empty() {
                s.drop_statements(false);
                tag(rows, "DEALLOCATE ALL");
            } else {
                s.drop_statement(&d.name)
                    .ok_or_else(|| missing_statement(&d.name))?;
                tag(rows, "DEALLOCATE");
            }
            Ok(())
        }
        NodeEnum::DiscardStmt(d) => discard(s, d, rows),
        NodeEnum::CopyStmt(c) => copy_stmt(s, text, c, rows),
        NodeEnum::CheckPointStmt(_) => {
            // A checkpoint waits for transactions with schema changes to end
            // (docs/durability.md): in one itself it would wait forever.
            if s.block.txn().is_some_and(|t| t.has_schema_changes()) {
                return Err(DbError::unsupported(
                    "CHECKPOINT in a transaction that changed the schema",
                ));
            }
            if s.engine.config.durable {
                s.engine
                    .checkpoint_within(Duration::from_millis(CHECKPOINT_DDL_WAIT_MS))?;
            }
            tag(rows, "CHECKPOINT");
            Ok(())
        }
        NodeEnum::ConstraintsSetStmt(c) => set_constraints(s, c, rows),
        NodeEnum::ListenStmt(l) => listen(
            s,
            nestor_exec::ListenOp::Listen(l.conditionname.clone()),
            "LISTEN",
            rows,
        ),
        NodeEnum::UnlistenStmt(u) => {
            let op = if u.conditionname.is_empty() {
                nestor_exec::ListenOp::UnlistenAll
            } else {
                nestor_exec::ListenOp::Unlisten(u.conditionname.clone())
            };
            listen(s, op, "UNLISTEN", rows)
        }
        NodeEnum::NotifyStmt(n) => {
            if s.engine.replication.in_recovery() {
                return Err(during_recovery("NOTIFY"));
            }
            nestor_exec::notify::check_notify(&n.conditionname, &n.payload)?;
            let level = s.block.level();
            s.block.notifies.push(nestor_exec::PendingNotify {
                level,
                channel: n.conditionname.clone(),
                payload: n.payload.clone(),
            });
            tag(rows, "NOTIFY");
            Ok(())
        }
        other => Err(DbError::unsupported(nestor_parser::ast::command_name(
            other,
        ))),
    }
}

/// LISTEN / UNLISTEN: takes effect when the transaction commits
/// (nestor_exec::notify).
fn listen(
    s: &mut Session,
    op: nestor_exec::ListenOp,
    what: &'static str,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if s.engine.replication.in_recovery() {
        return Err(during_recovery(what));
    }
    let level = s.block.level();
    s.block.listens.push((level, op));
    tag(rows, what);
    Ok(())
}

/// PostgreSQL's refusal of LISTEN/NOTIFY on a hot standby.
fn during_recovery(what: &str) -> DbError {
    DbError::new(
        SqlState::ReadOnlySqlTransaction,
        format!("cannot execute {what} during recovery"),
    )
}

/// SET CONSTRAINTS { ALL | name, ... } { DEFERRED | IMMEDIATE }: whether
/// the transaction's DEFERRABLE constraints (all, or the named ones) are
/// checked at commit; IMMEDIATE also runs the waiting checks of those
/// constraints at once (the others keep waiting). Outside a block
/// PostgreSQL warns, still looks the names up, and changes nothing.
fn set_constraints(
    s: &mut Session,
    c: &nestor_parser::pb::ConstraintsSetStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let mut names = Vec::new();
    for n in &c.constraints {
        if let Some(NodeEnum::RangeVar(rv)) = n.node.as_ref() {
            // Constraints of tables in public are found by name alone.
            if rv.schemaname == "public" {
                names.push(rv.relname.clone());
            } else {
                names.push(nestor_plan::bind::relname(rv)?);
            }
        }
    }
    let in_block = s.block.in_explicit_block();
    if !in_block {
        notice(
            rows,
            DbError::new(
                SqlState::NoActiveSqlTransaction,
                "SET CONSTRAINTS can only be used in transaction blocks",
            )
            .with_severity(nestor_common::error::Severity::Warning),
        );
    }
    let named = if names.is_empty() {
        None
    } else {
        let (r, _) =
            s.with_statement(|ctx| nestor_exec::named_constraints(ctx, &names, c.deferred));
        Some(r?)
    };
    if !in_block {
        tag(rows, "SET CONSTRAINTS");
        return Ok(());
    }
    let checks = match &named {
        None => {
            s.block.constraints_deferred.set_all(c.deferred);
            std::mem::take(&mut s.block.deferred)
        }
        Some(list) => {
            for (_, _, oid) in list {
                s.block.constraints_deferred.set(*oid, c.deferred);
            }
            let set: Vec<(nestor_common::RelId, String)> =
                list.iter().map(|(t, n, _)| (*t, n.clone())).collect();
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut s.block.deferred)
                .into_iter()
                .partition(|d| d.concerns(&set));
            s.block.deferred = later;
            now
        }
    };
    if c.deferred {
        // Nothing runs now: the checks wait as before.
        let mut checks = checks;
        checks.append(&mut s.block.deferred);
        s.block.deferred = checks;
    } else if !checks.is_empty() {
        let (r, notices) = s.with_statement(|ctx| nestor_exec::check_deferred(ctx, checks));
        for n in notices {
            notice(rows, n);
        }
        r?;
    }
    tag(rows, "SET CONSTRAINTS");
    Ok(())
}

// ----- cursors -------------------------------------------------------------

/// The query a DECLARE opens, as a statement of its own.
pub(crate) fn cursor_query(d: &nestor_parser::pb::DeclareCursorStmt) -> Result<RawStmt, DbError> {
    let query = d
        .query
        .clone()
        .ok_or_else(|| DbError::internal("DECLARE without a query"))?;
    if let Some(NodeEnum::SelectStmt(sel)) = query.node.as_ref() {
        if sel
            .with_clause
            .as_ref()
            .is_some_and(nestor_plan::with_modify::has_writes)
        {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "DECLARE CURSOR must not contain data-modifying statements in WITH",
            ));
        }
    }
    Ok(RawStmt {
        stmt: Some(query),
        stmt_location: 0,
        stmt_len: 0,
    })
}

/// DECLARE name [NO SCROLL | SCROLL] CURSOR [WITH HOLD] FOR query: run the
/// query now, in this statement's snapshot, and keep its rows.
fn declare_cursor(
    s: &mut Session,
    text: &Arc<str>,
    d: &nestor_parser::pb::DeclareCursorStmt,
    params: &[Value],
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let hold = d.options & cursor::CURSOR_OPT_HOLD != 0;
    if !hold && !s.block.in_explicit_block() && !s.block.multi_statement {
        return Err(DbError::new(
            SqlState::NoActiveSqlTransaction,
            "DECLARE CURSOR can only be used in transaction blocks",
        ));
    }
    s.drop_stale_cursors();
    if d.portalname.is_empty() {
        return Err(DbError::new(
            SqlState::InvalidCursorName,
            "invalid cursor name: must not be empty",
        ));
    }
    if s.cursors.contains_key(&d.portalname) {
        return Err(DbError::new(
            SqlState::DuplicateCursor,
            format!("cursor \"{}\" already exists", d.portalname),
        ));
    }
    let raw = cursor_query(d)?;
    let Some(NodeEnum::SelectStmt(sel)) = raw.stmt.as_ref().and_then(|n| n.node.as_ref()) else {
        return Err(DbError::internal("DECLARE of something other than SELECT"));
    };
    check_read_only(d.options, sel)?;
    let hints: Vec<u32> = params.iter().map(|_| 0).collect();
    let (prepared, updatable, tracked) = prepare_cursor(s, text, &raw, sel, &hints)?;
    let mut columns = prepared
        .columns
        .clone()
        .ok_or_else(|| DbError::internal("cursor query returns no rows"))?;
    columns.truncate(columns.len().saturating_sub(2 * tracked));
    let scrollable = scrollable(d.options, sel, &prepared);
    let params = coerce_params(s, params, &prepared.param_types)?;
    let mut sink = cursor::CursorSink::new();
    let (r, notices) =
        s.with_statement(|ctx| nestor_exec::execute(ctx, &prepared, &params, &mut sink));
    for n in notices {
        notice(rows, n);
    }
    // An error computing the rows is met by the FETCH that reads that far
    // (PostgreSQL runs a cursor's query lazily); others fail DECLARE, as
    // do those of a query without FROM, whose expressions PostgreSQL's
    // planner folds (`SELECT 1 / 0` fails at DECLARE).
    let failure = match r {
        Ok(_) => None,
        Err(e) if deferred_to_fetch(&e) && !sel.from_clause.is_empty() => Some(e),
        Err(e) => return Err(e),
    };
    let mut found = sink.rows;
    let origins = match tracked {
        0 => Vec::new(),
        n => found
            .iter_mut()
            .map(|row| cursor::take_origins(row, n))
            .collect(),
    };
    s.cursors.insert(
        d.portalname.clone(),
        cursor::Cursor {
            columns,
            rows: found,
            pos: 0,
            scrollable,
            hold,
            binary: d.options & cursor::CURSOR_OPT_BINARY != 0,
            statement: text.clone(),
            created_us: crate::session::now_us(),
            txn_start_us: s.block.start_us,
            savepoint_depth: s.block.level() as usize,
            updatable,
            origins,
            _growth: Some(sink.growth),
            failure,
            failed: false,
        },
    );
    s.publish_cursors();
    tag(rows, "DECLARE CURSOR");
    Ok(())
}

/// Errors of computing a cursor's rows (data exceptions, integrity
/// violations and errors raised by functions it calls), which PostgreSQL
/// raises only when a FETCH gets that far; not cancels, lock or
/// serialization failures, or running out of memory.
fn deferred_to_fetch(e: &DbError) -> bool {
    matches!(&e.sqlstate()[..2], "22" | "23" | "P0" | "2F" | "38" | "39")
}

/// Plan DECLARE's query, with the origins of the tables WHERE CURRENT OF
/// can reach appended (crate::cursor) when there are such tables and the
/// query takes them (an aggregate does not: then it is planned as
/// written). Returns the plan, what WHERE CURRENT OF can use, and how many
/// tables' origins each row ends with.
fn prepare_cursor(
    s: &mut Session,
    text: &Arc<str>,
    raw: &RawStmt,
    sel: &nestor_parser::pb::SelectStmt,
    hints: &[u32],
) -> Result<(nestor_exec::Prepared, cursor::Updatable, usize), DbError> {
    let (marks, tracked) = cursor::trackable(&s.catalog, sel);
    let with_origins = if tracked.is_empty() {
        None
    } else {
        let node = NodeEnum::SelectStmt(Box::new(cursor::with_origins(sel, &tracked)));
        let aug = RawStmt {
            stmt: Some(Box::new(Node { node: Some(node) })),
            stmt_location: 0,
            stmt_len: 0,
        };
        s.prepare_query(text, &aug, hints).ok()
    };
    let n = tracked.len();
    let members = tracked.into_iter().map(|t| t.members);
    Ok(match with_origins {
        Some(p) if marks => (p, cursor::Updatable::Marks(members.collect()), n),
        Some(p) => (p, cursor::Updatable::Scan(members.flatten().collect()), n),
        // A locked table whose origins could not be kept is still a FOR
        // UPDATE reference (the errors count them); its rows have none.
        None if marks => (
            s.prepare_query(text, raw, hints)?,
            cursor::Updatable::Marks(members.collect()),
            0,
        ),
        None => (s.prepare_query(text, raw, hints)?, cursor::Updatable::No, 0),
    })
}

/// Whether a cursor allows backward moves (crate::cursor): SCROLL does,
/// NO SCROLL does not, else PostgreSQL's rule — a plan that can run
/// backward and locks no rows.
fn scrollable(
    options: i32,
    sel: &nestor_parser::pb::SelectStmt,
    prepared: &nestor_exec::Prepared,
) -> bool {
    if options & cursor::CURSOR_OPT_SCROLL != 0 {
        return true;
    }
    if options & cursor::CURSOR_OPT_NO_SCROLL != 0 {
        return false;
    }
    // A SELECT without FROM is a Result node in PostgreSQL (a ProjectSet
    // over one with a set-returning function), which cannot run backward,
    // whatever Nestor's plan for it (a function scan).
    let from_less =
        sel.from_clause.is_empty() && sel.values_lists.is_empty() && sel.sort_clause.is_empty();
    sel.locking_clause.is_empty() && !from_less && prepared.supports_backward_scan()
}

/// PostgreSQL's refusals of a cursor that locks rows: it may not be
/// WITH HOLD, SCROLL or INSENSITIVE (in that order).
fn check_read_only(options: i32, sel: &nestor_parser::pb::SelectStmt) -> Result<(), DbError> {
    use nestor_parser::pb::LockClauseStrength as S;
    let Some(NodeEnum::LockingClause(lc)) =
        sel.locking_clause.first().and_then(|l| l.node.as_ref())
    else {
        return Ok(());
    };
    let strength = match S::try_from(lc.strength) {
        Ok(S::LcsFornokeyupdate) => "FOR NO KEY UPDATE",
        Ok(S::LcsForshare) => "FOR SHARE",
        Ok(S::LcsForkeyshare) => "FOR KEY SHARE",
        _ => "FOR UPDATE",
    };
    let unsupported = SqlState::FeatureNotSupported;
    for (bit, what, kind, code, verdict) in [
        (
            cursor::CURSOR_OPT_HOLD,
            "DECLARE CURSOR WITH HOLD",
            "Holdable",
            unsupported,
            "supported",
        ),
        (
            cursor::CURSOR_OPT_SCROLL,
            "DECLARE SCROLL CURSOR",
            "Scrollable",
            unsupported,
            "supported",
        ),
        (
            cursor::CURSOR_OPT_INSENSITIVE,
            "DECLARE INSENSITIVE CURSOR",
            "Insensitive",
            SqlState::InvalidCursorDefinition,
            "valid",
        ),
    ] {
        if options & bit != 0 {
            return Err(
                DbError::new(code, format!("{what} ... {strength} is not {verdict}"))
                    .with_detail(format!("{kind} cursors must be READ ONLY.")),
            );
        }
    }
    Ok(())
}

/// Parameters bound to a DECLARE arrive typed as the client said (often
/// unknown, i.e. text): cast them to what the cursor's query inferred.
fn coerce_params(s: &Session, params: &[Value], oids: &[u32]) -> Result<Vec<Value>, DbError> {
    let ec = s.eval_ctx();
    params
        .iter()
        .zip(oids)
        .map(
            |(v, oid)| match nestor_types::datatype::DataType::from_oid(*oid) {
                Some(ty) => nestor_plan::valops::cast(v.clone(), ty, false, &ec),
                None => Ok(v.clone()),
            },
        )
        .collect()
}

/// FETCH / MOVE [direction] [FROM | IN] name.
fn fetch(
    s: &mut Session,
    f: &nestor_parser::pb::FetchStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if !s.cursors.contains_key(&f.portalname) && s.portals.contains_key(&f.portalname) {
        return fetch_portal(s, f, rows);
    }
    let codec = s.eval_ctx();
    let cursor = s.cursor_mut(&f.portalname)?;
    cursor.check_runnable(&f.portalname)?;
    let dir = cursor::direction(f.direction, f.how_many);
    let found = cursor.fetch(dir, f.ismove)?;
    let n = found.len() as u64;
    if f.ismove {
        rows.out.push(BackendMsg::CommandComplete(CommandTag::Rows(
            RowsCommand::Move,
            n,
        )));
        return Ok(());
    }
    // A BINARY cursor's rows go in binary over the simple protocol (the
    // extended protocol's Bind chose the formats).
    let formats = if rows.describe && cursor.binary {
        vec![1]
    } else {
        rows.formats.clone()
    };
    if rows.describe {
        rows.out
            .push(BackendMsg::RowDescription(encode::field_descs(
                &cursor.columns,
                &formats,
            )));
    }
    let types: Vec<_> = cursor
        .columns
        .iter()
        .map(|c| encode::wire_type(c.type_oid))
        .collect();
    for row in found {
        rows.out.push(BackendMsg::DataRow(encode::encode_row(
            &codec, &row, &types, &formats,
        )));
    }
    rows.out.push(BackendMsg::CommandComplete(CommandTag::Rows(
        RowsCommand::Fetch,
        n,
    )));
    Ok(())
}

/// FETCH / MOVE FORWARD on a portal the extended protocol opened (asyncpg
/// moves its cursors this way): the portal runs on for that many rows, as
/// an Execute with a row limit would, and the rows are sent (FETCH) or
/// skipped (MOVE). Such a portal only goes forward.
fn fetch_portal(
    s: &mut Session,
    f: &nestor_parser::pb::FetchStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let max_rows = match cursor::direction(f.direction, f.how_many) {
        cursor::Direction::Forward(n) if n >= i64::from(u32::MAX) => 0,
        cursor::Direction::Forward(n) if n > 0 => n as u32,
        cursor::Direction::Forward(0) | cursor::Direction::Relative(0) => {
            return Err(DbError::unsupported(
                "FETCH of the current row of a protocol portal",
            ))
        }
        _ => {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                "cursor can only scan forward",
            )
            .with_hint("Declare it with SCROLL option to enable backward scan."))
        }
    };
    let Some(mut portal) = s.portals.remove(&f.portalname) else {
        return Err(DbError::internal("portal vanished"));
    };
    if rows.describe && !f.ismove {
        if let Some(cols) = &portal.stmt.columns {
            rows.out
                .push(BackendMsg::RowDescription(encode::field_descs(
                    cols,
                    &portal.formats,
                )));
        }
    }
    let mut out = Vec::new();
    let r = s.execute_portal(&mut portal, max_rows, &mut out);
    s.portals.insert(f.portalname.clone(), portal);
    r?;
    let mut n = 0u64;
    for m in out {
        match m {
            BackendMsg::DataRow(_) if f.ismove => n += 1,
            BackendMsg::DataRow(d) => {
                n += 1;
                rows.out.push(BackendMsg::DataRow(d));
            }
            BackendMsg::CommandComplete(_) | BackendMsg::PortalSuspended => {}
            other => rows.out.push(other),
        }
    }
    let kind = if f.ismove {
        RowsCommand::Move
    } else {
        RowsCommand::Fetch
    };
    rows.out
        .push(BackendMsg::CommandComplete(CommandTag::Rows(kind, n)));
    Ok(())
}

pub(super) fn missing_statement(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidSqlStatementName,
        format!("prepared statement \"{name}\" does not exist"),
    )
}

fn notice(rows: &mut RowOut<'_>, e: DbError) {
    rows.out.push(BackendMsg::Notice(e));
}

// ----- transaction control ---------------------------------------------------

fn transaction(s: &mut Session, t: &TransactionStmt, rows: &mut RowOut<'_>) -> Result<(), DbError> {
    let kind = K::try_from(t.kind).unwrap_or(K::Undefined);
    let name = &t.savepoint_name;
    let txn_start = s.block.txn().is_some().then_some(s.block.start_us);
    let r = transaction_kind(s, t, kind, name, rows);
    if r.is_ok() || s.block.txn().is_none() {
        s.cursors_after_txn_stmt(kind, r.as_ref().ok().copied(), txn_start);
    }
    let r = r?;
    s.publish_txn();
    tag(rows, r);
    Ok(())
}

fn transaction_kind(
    s: &mut Session,
    t: &TransactionStmt,
    kind: K,
    name: &str,
    rows: &mut RowOut<'_>,
) -> Result<&'static str, DbError> {
    Ok(match kind {
        K::TransStmtBegin | K::TransStmtStart => {
            let opts = txn_options(&t.options)?;
            let engine = s.engine.clone();
            if let Some(w) =
                s.block
                    .begin(&engine, &mut s.settings, opts, crate::session::now_us())?
            {
                notice(rows, w);
            }
            if kind == K::TransStmtStart {
                "START TRANSACTION"
            } else {
                "BEGIN"
            }
        }
        K::TransStmtCommit | K::TransStmtRollback if t.chain => {
            let engine = s.engine.clone();
            let commit = kind == K::TransStmtCommit;
            if commit && s.block.in_explicit_block() {
                s.check_deferred_for_commit()?;
            }
            let now = crate::session::now_us();
            s.block
                .end_and_chain(&engine, &mut s.settings, commit, now)?
        }
        K::TransStmtCommit => {
            s.check_deferred_for_commit()?;
            let (tg, w) = s.block.commit(&mut s.settings)?;
            if let Some(w) = w {
                notice(rows, w);
            }
            for w in std::mem::take(&mut s.block.warnings) {
                notice(rows, w);
            }
            tg
        }
        K::TransStmtRollback => {
            if let Some(w) = s.block.rollback(&mut s.settings) {
                notice(rows, w);
            }
            "ROLLBACK"
        }
        K::TransStmtSavepoint => {
            s.block.savepoint(&mut s.settings, name)?;
            "SAVEPOINT"
        }
        K::TransStmtRollbackTo => {
            s.block.rollback_to(&mut s.settings, name)?;
            "ROLLBACK"
        }
        K::TransStmtRelease => {
            s.block.release(&mut s.settings, name)?;
            "RELEASE"
        }
        _ => return Err(DbError::unsupported("two-phase commit")),
    })
}

fn txn_options(opts: &[Node]) -> Result<TxnOptions, DbError> {
    let mut o = TxnOptions::default();
    for n in opts {
        let Some(NodeEnum::DefElem(d)) = n.node.as_ref() else {
            continue;
        };
        let v = d.arg.as_deref().and_then(const_text).unwrap_or_default();
        match d.defname.as_str() {
            "transaction_isolation" => o.isolation = Some(parse_isolation(&v)?),
            "transaction_read_only" => o.read_only = Some(v == "1" || v == "on" || v == "true"),
            "transaction_deferrable" => o.deferrable = Some(v == "1" || v == "on" || v == "true"),
            other => return Err(DbError::unsupported(format!("transaction option {other}"))),
        }
    }
    Ok(o)
}

// ----- SET / SHOW / RESET ------------------------------------------------------

fn set(s: &mut Session, v: &VariableSetStmt, rows: &mut RowOut<'_>) -> Result<(), DbError> {
    let kind = VariableSetKind::try_from(v.kind).unwrap_or(VariableSetKind::Undefined);
    let outside = !s.block.in_explicit_block() && !s.block.multi_statement;
    if v.is_local && outside {
        notice(rows, warn_no_block("SET LOCAL"));
    }
    match kind {
        VariableSetKind::VarSetMulti => set_multi(s, v, outside, rows)?,
        VariableSetKind::VarResetAll => s.settings.reset_all(),
        VariableSetKind::VarSetDefault | VariableSetKind::VarReset => {
            set_special(s, &v.name, None, v.is_local)?
        }
        VariableSetKind::VarSetValue => {
            let value = nestor_exec::set_stmt_value(&v.name, &v.args)?;
            set_special(s, &v.name, Some(value), v.is_local)?
        }
        _ => return Err(DbError::unsupported("SET FROM CURRENT")),
    }
    let t = if matches!(
        kind,
        VariableSetKind::VarReset | VariableSetKind::VarResetAll
    ) {
        "RESET"
    } else {
        "SET"
    };
    tag(rows, t);
    Ok(())
}

fn warn_no_block(what: &str) -> DbError {
    DbError::new(
        SqlState::NoActiveSqlTransaction,
        format!("{what} can only be used in transaction blocks"),
    )
    .with_severity(Severity::Warning)
}

/// SET of one parameter (value None = default), with the per-transaction
/// parameters routed to the transaction block.
fn set_special(
    s: &mut Session,
    name: &str,
    value: Option<String>,
    local: bool,
) -> Result<(), DbError> {
    let lname = name.to_ascii_lowercase();
    match (lname.as_str(), value) {
        ("role", v) => set_role(s, v, local),
        ("session_authorization", v) => set_session_authorization(s, v, local),
        ("transaction_isolation", Some(v)) => {
            let opts = TxnOptions {
                isolation: Some(parse_isolation(&v)?),
                ..TxnOptions::default()
            };
            s.block.set_options(&mut s.settings, opts)
        }
        ("transaction_read_only", Some(v)) => {
            let ro = settings::canonicalize("transaction_read_only", &v)? == "on";
            let opts = TxnOptions {
                read_only: Some(ro),
                ..TxnOptions::default()
            };
            s.block.set_options(&mut s.settings, opts)
        }
        ("transaction_deferrable", Some(v)) => {
            let d = settings::canonicalize("transaction_deferrable", &v)? == "on";
            let opts = TxnOptions {
                deferrable: Some(d),
                ..TxnOptions::default()
            };
            s.block.set_options(&mut s.settings, opts)
        }
        ("default_transaction_isolation", Some(v)) => {
            let c = settings::canonicalize(name, &v)?;
            parse_isolation(&c)?;
            s.settings.set(name, c, local);
            s.block.mirror(&mut s.settings);
            Ok(())
        }
        (_, Some(v)) => {
            let c = settings::canonicalize_from(s.settings.view(), name, &v)?;
            s.settings.set(name, c, local);
            Ok(())
        }
        (_, None) => s.settings.reset(name, local),
    }
}

/// SET ROLE name | NONE, RESET ROLE: the session user must be a member
/// of the role (or a superuser), as in PostgreSQL.
fn set_role(s: &mut Session, value: Option<String>, local: bool) -> Result<(), DbError> {
    let target = value.unwrap_or_else(|| "none".into());
    if target != "none" {
        let role = s.catalog.role(&target).ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("role \"{target}\" does not exist"),
            )
        })?;
        let session_user = s
            .settings
            .view()
            .get("session_authorization")
            .unwrap_or("")
            .to_string();
        let me = s.catalog.role(&session_user);
        let allowed = me
            .as_ref()
            .is_some_and(|m| m.superuser || s.catalog.is_member_of(m.oid, role.oid));
        if !allowed {
            return Err(DbError::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied to set role \"{target}\""),
            ));
        }
    }
    s.settings.set("role", target, local);
    s.refresh_is_superuser();
    Ok(())
}

/// SET SESSION AUTHORIZATION name | DEFAULT: only a session that logged in
/// as a superuser may become another user; it also resets the role.
fn set_session_authorization(
    s: &mut Session,
    value: Option<String>,
    local: bool,
) -> Result<(), DbError> {
    let target = value.unwrap_or_else(|| s.info.user.clone());
    let authenticated = s.catalog.role(&s.info.user);
    if target != s.info.user && !authenticated.is_some_and(|r| r.superuser) {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            "permission denied to set session authorization",
        ));
    }
    if s.catalog.role(&target).is_none() {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!("role \"{target}\" does not exist"),
        ));
    }
    s.settings.set("session_authorization", target, local);
    s.settings.set("role", "none".into(), local);
    s.refresh_is_superuser();
    Ok(())
}

/// SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION ...
fn set_multi(
    s: &mut Session,
    v: &VariableSetStmt,
    outside: bool,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if v.name == "TRANSACTION SNAPSHOT" {
        return import_snapshot(s, v, outside, rows);
    }
    let opts = txn_options(&v.args)?;
    if v.name == "TRANSACTION" {
        if outside {
            notice(rows, warn_no_block("SET TRANSACTION"));
        }
        return s.block.set_options(&mut s.settings, opts);
    }
    assert_eq!(
        v.name, "SESSION CHARACTERISTICS",
        "the grammar's SET ... MULTI forms"
    );
    if let Some(iso) = opts.isolation {
        s.settings
            .set("default_transaction_isolation", iso.name().into(), false);
    }
    let on_off = |b: bool| if b { "on" } else { "off" };
    if let Some(ro) = opts.read_only {
        s.settings
            .set("default_transaction_read_only", on_off(ro).into(), false);
    }
    if let Some(d) = opts.deferrable {
        s.settings
            .set("default_transaction_deferrable", on_off(d).into(), false);
    }
    s.block.mirror(&mut s.settings);
    Ok(())
}

/// SET TRANSACTION SNAPSHOT 'id', checked in PostgreSQL's order
/// (ImportSnapshot). Nestor exports no snapshots (pg_export_snapshot does
/// not exist), so a well-placed identifier is always unknown.
fn import_snapshot(
    s: &mut Session,
    v: &VariableSetStmt,
    outside: bool,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let id = v.args.first().and_then(const_text).unwrap_or_default();
    if outside {
        notice(rows, warn_no_block("SET TRANSACTION"));
    }
    let Some(txn) = s.block.txn() else {
        return Err(DbError::new(
            SqlState::NoActiveSqlTransaction,
            "SET TRANSACTION SNAPSHOT can only be used in transaction blocks",
        ));
    };
    if txn.has_snapshot() {
        return Err(DbError::new(
            SqlState::ActiveSqlTransaction,
            "SET TRANSACTION SNAPSHOT must be called before any query",
        ));
    }
    if !txn.isolation().uses_transaction_snapshot() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ",
        ));
    }
    Err(DbError::new(
        SqlState::InvalidParameterValue,
        format!("invalid snapshot identifier: \"{id}\""),
    ))
}

fn show(s: &mut Session, name: &str, rows: &mut RowOut<'_>) -> Result<(), DbError> {
    if name == "all" {
        if rows.describe {
            let cols = [
                text_column("name"),
                text_column("setting"),
                text_column("description"),
            ];
            rows.out
                .push(BackendMsg::RowDescription(encode::field_descs(&cols, &[])));
        }
        for (n, v, d) in s.settings.show_all() {
            rows.out.push(BackendMsg::DataRow(vec![
                Some(n.into_bytes()),
                Some(v.into_bytes()),
                Some(d.into_bytes()),
            ]));
        }
    } else {
        let col = show_name(name)?;
        let value = s.settings.show(name)?;
        if rows.describe {
            rows.out
                .push(BackendMsg::RowDescription(encode::field_descs(
                    &[text_column(col)],
                    &[],
                )));
        }
        rows.out
            .push(BackendMsg::DataRow(vec![Some(value.into_bytes())]));
    }
    tag(rows, "SHOW");
    Ok(())
}

// ----- PREPARE / EXECUTE / DISCARD ---------------------------------------------

fn type_oid(text: &str, n: &Node) -> Result<u32, DbError> {
    let Some(NodeEnum::TypeName(t)) = n.node.as_ref() else {
        return Err(DbError::unsupported("this PREPARE parameter type"));
    };
    let name = t
        .names
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(NodeEnum::String(s)) => Some(s.sval.clone()),
            _ => None,
        })
        .next_back()
        .unwrap_or_default();
    let mods: Vec<i64> = t
        .typmods
        .iter()
        .filter_map(|m| const_text(m).and_then(|v| v.parse().ok()))
        .collect();
    let ty = nestor_types::datatype::DataType::from_sql_name(&name, &mods)
        .map_err(|e| nestor_parser::ast::err_at(e, text, t.location))?;
    if t.array_bounds.is_empty() {
        return Ok(ty.oid());
    }
    ty.array_of().map(|a| a.oid()).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!("type \"{name}[]\" does not exist"),
        )
    })
}

fn prepare(
    s: &mut Session,
    text: &Arc<str>,
    raw: &RawStmt,
    p: &PrepareStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if s.statements.contains_key(&p.name) {
        return Err(duplicate_statement(&p.name));
    }
    let hints = p
        .argtypes
        .iter()
        .map(|n| type_oid(text, n))
        .collect::<Result<Vec<_>, _>>()?;
    let inner = RawStmt {
        stmt: p.query.clone(),
        stmt_location: raw.stmt_location,
        stmt_len: raw.stmt_len,
    };
    let stmt = s.build_prepared(text.clone(), inner, &hints)?;
    s.put_statement(p.name.clone(), stmt, true);
    tag(rows, "PREPARE");
    Ok(())
}

fn execute_prepared(
    s: &mut Session,
    text: &str,
    e: &ExecuteStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let stmt = s
        .statements
        .get(&e.name)
        .cloned()
        .ok_or_else(|| missing_statement(&e.name))?;
    check_param_count(&e.name, e.params.len(), stmt.param_types.len())?;
    let params = execute_params(s, text, &e.params, &stmt.param_types)?;
    stmt.count_execution();
    match &stmt.body {
        StmtBody::Query(prepared) => {
            if rows.describe {
                if let Some(cols) = &prepared.columns {
                    rows.out
                        .push(BackendMsg::RowDescription(encode::field_descs(cols, &[])));
                }
            }
            let t = s.run_prepared(prepared, &params, rows, None)?;
            rows.out.push(BackendMsg::CommandComplete(t));
            Ok(())
        }
        StmtBody::Utility => {
            let node = stmt.raw.stmt.as_ref().and_then(|n| n.node.as_ref());
            let node = node.ok_or_else(|| DbError::internal("empty statement node"))?;
            execute(s, &stmt.text, &stmt.raw, node, &params, rows)
        }
        StmtBody::Empty => {
            rows.out.push(BackendMsg::EmptyQueryResponse);
            Ok(())
        }
    }
}

/// EXECUTE's argument count must be the statement's parameter count
/// (42601).
pub(super) fn check_param_count(name: &str, got: usize, expected: usize) -> Result<(), DbError> {
    if got == expected {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::SyntaxError,
        format!("wrong number of parameters for prepared statement \"{name}\""),
    )
    .with_detail(format!("Expected {expected} parameters but got {got}.")))
}

/// The values of EXECUTE's arguments, coerced to the statement's parameter
/// types. Constants are parsed directly; any other expression (pgbench
/// sends `EXECUTE sel(10 * 5 + 1)`) is evaluated by the query engine as a
/// one-row `SELECT arg1, arg2, ...` and each result assigned to its type.
pub(super) fn execute_params(
    s: &mut Session,
    text: &str,
    args: &[Node],
    oids: &[u32],
) -> Result<Vec<Value>, DbError> {
    let codec = s.eval_ctx();
    if let Some(consts) = args
        .iter()
        .zip(oids)
        .map(|(n, oid)| {
            const_param(&codec, n, *oid).map(|r| {
                r.map_err(|e| {
                    let loc = n.node.as_ref().map_or(-1, nestor_parser::ast::location_of);
                    nestor_parser::ast::err_at(e, text, loc)
                })
            })
        })
        .collect::<Option<Result<Vec<_>, _>>>()
    {
        return consts;
    }
    let target_list = args
        .iter()
        .map(|n| Node {
            node: Some(NodeEnum::ResTarget(Box::new(
                nestor_parser::pb::ResTarget {
                    val: Some(Box::new(n.clone())),
                    ..Default::default()
                },
            ))),
        })
        .collect();
    let select = nestor_parser::pb::SelectStmt {
        target_list,
        limit_option: nestor_parser::pb::LimitOption::Default as i32,
        op: nestor_parser::pb::SetOperation::SetopNone as i32,
        ..Default::default()
    };
    let raw = RawStmt {
        stmt: Some(Box::new(Node {
            node: Some(NodeEnum::SelectStmt(Box::new(select))),
        })),
        stmt_location: 0,
        stmt_len: 0,
    };
    let prepared = nestor_exec::prepare(&s.catalog, s.eval_ctx(), text, &raw, &[])?;
    if prepared.param_types.is_empty() {
        // (With `$n` among the arguments the execution below fails on it.)
        check_arg_types(text, args, oids, prepared.columns.as_deref().unwrap_or(&[]))?;
    }
    let mut out: Vec<Vec<Value>> = Vec::new();
    let (r, _) = s.with_statement(|ctx| nestor_exec::execute(ctx, &prepared, &[], &mut out));
    r?;
    let row = out
        .pop()
        .ok_or_else(|| DbError::internal("EXECUTE arguments gave no row"))?;
    let ec = s.eval_ctx();
    row.into_iter()
        .zip(oids)
        .map(
            |(v, oid)| match nestor_types::datatype::DataType::from_oid(*oid) {
                Some(ty) => nestor_plan::valops::cast(v, ty, false, &ec),
                None => Ok(v),
            },
        )
        .collect()
}

/// Each typed EXECUTE argument must be assignable to its parameter's type
/// (42804 at the argument, as PostgreSQL's EvaluateParams words it); an
/// untyped literal takes the parameter's type.
fn check_arg_types(
    text: &str,
    args: &[Node],
    oids: &[u32],
    columns: &[ColumnDesc],
) -> Result<(), DbError> {
    use nestor_types::datatype::DataType;
    for (i, ((n, &oid), c)) in args.iter().zip(oids).zip(columns).enumerate() {
        let untyped = matches!(n.node.as_ref(), Some(NodeEnum::AConst(c))
            if c.isnull || matches!(c.val, Some(nestor_parser::pb::a_const::Val::Sval(_))));
        if untyped {
            continue;
        }
        let from = DataType::from_oid_typmod(c.type_oid, c.type_modifier);
        let (Some(from), Some(to)) = (from, DataType::from_oid(oid)) else {
            continue;
        };
        if !nestor_plan::bind::assignment_compatible(from, to) {
            let e = DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "parameter ${} of type {} cannot be coerced to the expected type {}",
                    i + 1,
                    from.name(),
                    to.name()
                ),
            )
            .with_hint("You will need to rewrite or cast the expression.");
            let loc = n.node.as_ref().map_or(-1, nestor_parser::ast::location_of);
            return Err(nestor_parser::ast::err_at(e, text, loc));
        }
    }
    Ok(())
}

/// A constant EXECUTE argument parsed as its parameter's type (None: not
/// a constant).
fn const_param(
    codec: &nestor_types::EvalCtx,
    n: &Node,
    oid: u32,
) -> Option<Result<Value, DbError>> {
    use nestor_parser::pb::a_const::Val;
    let Some(NodeEnum::AConst(c)) = n.node.as_ref() else {
        // A cast constant converts from its own type (`10.5::float` to an
        // integer parameter rounds), as any expression does.
        return None;
    };
    if c.isnull {
        return Some(Ok(Value::Null));
    }
    let ty = nestor_types::datatype::DataType::from_oid(oid)?;
    // A string literal is untyped: it reads as the parameter's type. A
    // number or boolean is typed: read directly only where its type
    // converts to the parameter's without rounding or failing.
    let direct = match c.val.as_ref()? {
        Val::Sval(_) => true,
        Val::Ival(_) => ty.is_numeric(),
        Val::Fval(_) => ty.is_numeric() && !ty.is_integer(),
        Val::Boolval(_) => ty == nestor_types::datatype::DataType::Bool,
        Val::Bsval(_) => false,
    };
    if !direct {
        return None;
    }
    const_text(n).map(|text| nestor_types::text::parse_text(encode::wire_type(oid), &text, codec))
}

/// DISCARD ALL | PLANS | SEQUENCES | TEMP. Plans are re-planned whenever
/// the catalog changes, so PLANS has nothing to drop.
fn discard(
    s: &mut Session,
    d: &nestor_parser::pb::DiscardStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let mode = nestor_parser::pb::DiscardMode::try_from(d.target)
        .unwrap_or(nestor_parser::pb::DiscardMode::DiscardAll);
    let all = mode == nestor_parser::pb::DiscardMode::DiscardAll;
    if all && s.block.in_explicit_block() {
        return Err(DbError::new(
            SqlState::ActiveSqlTransaction,
            "DISCARD ALL cannot run inside a transaction block",
        ));
    }
    let temp = all || mode == nestor_parser::pb::DiscardMode::DiscardTemp;
    // TEMP tables are dropped at once, outside the transaction: one that
    // wrote (maybe to them) must end first.
    if temp && s.block.txn().is_some_and(|t| !t.xid().is_none()) {
        return Err(DbError::unsupported(
            "DISCARD TEMP in a transaction that has written",
        ));
    }
    if all {
        s.drop_statements(true);
        s.portals.clear();
        s.cursors.clear();
        s.publish_cursors();
        s.settings.reset_all();
        s.engine.txn.locks.unlock_session_all(s.info.pid);
    }
    if all || mode == nestor_parser::pb::DiscardMode::DiscardSequences {
        s.engine.catalog.forget_session(s.info.pid);
    }
    if temp {
        s.catalog.drop_temp_objects(&s.engine.store);
    }
    let t = match mode {
        nestor_parser::pb::DiscardMode::DiscardPlans => "DISCARD PLANS",
        nestor_parser::pb::DiscardMode::DiscardSequences => "DISCARD SEQUENCES",
        nestor_parser::pb::DiscardMode::DiscardTemp => "DISCARD TEMP",
        _ => "DISCARD ALL",
    };
    tag(rows, t);
    Ok(())
}

// ----- COPY ------------------------------------------------------------------

/// Column names and type OIDs of `table [(cols)]`, asked of the planner
/// through a `SELECT cols FROM table`.
fn copy_columns(s: &mut Session, c: &CopyStmt) -> Result<(String, Vec<String>), DbError> {
    let rel = c
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("COPY without a relation"))?;
    let table = if rel.schemaname.is_empty() {
        quote_ident(&rel.relname)
    } else {
        format!(
            "{}.{}",
            quote_ident(&rel.schemaname),
            quote_ident(&rel.relname)
        )
    };
    let cols: Vec<String> = c
        .attlist
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(NodeEnum::String(s)) => Some(s.sval.clone()),
            _ => None,
        })
        .collect();
    // Generated columns are never copied: a table with some copies the
    // others by default and refuses them when named.
    let def = nestor_plan::bind::relname(rel)
        .ok()
        .and_then(|n| s.catalog.table(&n))
        .filter(|t| t.columns.iter().any(|c| c.generated && !c.dropped));
    let Some(def) = def else {
        return Ok((table, cols));
    };
    if let Some(g) = cols.iter().find(|c| {
        def.column_index(c)
            .is_some_and(|i| def.columns[i].generated)
    }) {
        return Err(nestor_plan::modify::copy_generated_column(g));
    }
    if cols.is_empty() {
        let plain = def.live_columns().filter(|(_, c)| !c.generated);
        return Ok((table, plain.map(|(_, c)| c.name.clone()).collect()));
    }
    Ok((table, cols))
}

fn select_text(table: &str, cols: &[String]) -> String {
    let list = if cols.is_empty() {
        "*".to_string()
    } else {
        cols.iter()
            .map(|c| quote_ident(c))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("SELECT {list} FROM {table}")
}

fn plan_text(s: &mut Session, text: &str) -> Result<nestor_exec::Prepared, DbError> {
    let mut stmts = nestor_parser::parse_sql(text)?;
    let raw = stmts
        .pop()
        .ok_or_else(|| DbError::internal("empty COPY query"))?;
    s.prepare_query(text, &raw, &[])
}

fn copy_stmt(
    s: &mut Session,
    text: &Arc<str>,
    c: &CopyStmt,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let server = ServerEnd::of(c);
    if let Some(end) = &server {
        copy_server::check_privilege(s, end, c.is_from)?;
    } else if !rows.describe {
        return Err(DbError::unsupported("COPY in the extended query protocol"));
    }
    // (COPY TO ... WHERE is refused by the grammar, as in PostgreSQL.)
    let opts = copy::parse_options(c, text)?;
    if c.is_from {
        copy_from(s, text, c, opts, server, rows)
    } else {
        copy_to(s, text, c, opts, server, rows)
    }
}

fn copy_from(
    s: &mut Session,
    text: &str,
    c: &CopyStmt,
    opts: copy::CopyOptions,
    server: Option<ServerEnd>,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if s.block.read_only() {
        return Err(DbError::new(
            SqlState::ReadOnlySqlTransaction,
            "cannot execute COPY FROM in a read-only transaction",
        ));
    }
    let (table, cols) = copy_columns(s, c)?;
    // The target first: its errors are PostgreSQL's (no cursor, "column
    // ... of relation ..."), not the helper SELECT's.
    let rel = c
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("COPY without a relation"))?;
    let name = nestor_plan::bind::relname(rel)?;
    if let Some(e) = copy_into_non_table(s, &name, &rel.relname) {
        return refuse_copy_data(s, e, opts, server, rows);
    }
    let mut target = nestor_plan::modify::copy_target(&s.catalog, s.eval_ctx(), &name, &cols)?;
    if let Some(w) = &c.where_clause {
        let f =
            nestor_plan::modify::bind_copy_where(&s.catalog, s.eval_ctx(), text, &target.table, w)?;
        target.filter = Some(f);
    }
    // INSERT on the table, or on each column copied (PostgreSQL's
    // insertedCols of COPY FROM).
    copy_privilege(s, &target.table, &name, &cols, true)?;
    nestor_plan::modify::refuse_copy_from_rls(&s.catalog, s.eval_ctx(), &target.table)?;
    let plan = plan_text(s, &select_text(&table, &cols))?;
    let desc = plan.columns.unwrap_or_default();
    let rel = c
        .relation
        .as_ref()
        .map(|r| r.relname.clone())
        .unwrap_or_default();
    let oids = desc.iter().map(|d| d.type_oid).collect();
    let typmods: Vec<i32> = desc.iter().map(|d| d.type_modifier).collect();
    let names: Vec<String> = desc.iter().map(|d| d.name.clone()).collect();
    let all: Vec<String> = target
        .table
        .live_columns()
        .map(|(_, c)| c.name.clone())
        .collect();
    let mut opts = opts;
    opts.resolve_force(&names, &all, &target.table.name)?;
    let ncols = desc.len();
    let format = copy_format_code(&opts);
    let source = match &server {
        Some(end) => Some(Source::open(s, end)?),
        None => None,
    };
    s.copy_in = Some(CopyInState {
        parser: CopyParser::new(opts, oids, names)
            .with_typmods(&typmods)
            .with_relation(rel),
        target: Some(target),
        count: 0,
        failed: None,
        rest: Vec::new(),
        text: Arc::from(""),
        tracked: None,
        notices: Vec::new(),
    });
    if let Some(source) = source {
        return s.copy_from_source(source, rows);
    }
    rows.out.push(BackendMsg::CopyInResponse {
        format: format as i8,
        column_formats: vec![format; ncols],
    });
    Ok(())
}

/// COPY FROM into a view, materialized view or sequence: PostgreSQL's
/// error (CopyFrom's relkind check). Views take COPY only through an
/// INSTEAD OF INSERT trigger, which Nestor does not have.
fn copy_into_non_table(s: &Session, name: &str, bare: &str) -> Option<DbError> {
    let (what, hint) = match s.catalog.table(name) {
        Some(t) if t.matview.is_some() => ("materialized view", None),
        Some(_) => return None,
        None if s.catalog.view(name).is_some() => (
            "view",
            Some("To enable copying to a view, provide an INSTEAD OF INSERT trigger."),
        ),
        None if s.catalog.sequence(name).is_some() => ("sequence", None),
        None => return None,
    };
    let e = DbError::new(
        SqlState::WrongObjectType,
        format!("cannot copy to {what} \"{bare}\""),
    );
    Some(match hint {
        Some(h) => e.with_hint(h),
        None => e,
    })
}

/// COPY TO from a view, materialized view, sequence or partitioned
/// table: PostgreSQL's error (DoCopyTo's relkind check).
fn copy_from_non_table(s: &Session, name: &str, bare: &str) -> Option<DbError> {
    const HINT: &str = "Try the COPY (SELECT ...) TO variant.";
    let (what, hint) = match s.catalog.table(name) {
        Some(t) if t.matview.is_some() => ("materialized view", true),
        Some(t) if t.partition_key.is_some() => ("partitioned table", true),
        Some(_) => return None,
        None if s.catalog.view(name).is_some() => ("view", true),
        None if s.catalog.sequence(name).is_some() => ("sequence", false),
        None => return None,
    };
    let e = DbError::new(
        SqlState::WrongObjectType,
        format!("cannot copy from {what} \"{bare}\""),
    );
    Some(if hint { e.with_hint(HINT) } else { e })
}

/// Fail a COPY FROM whose target PostgreSQL refuses only once the copy
/// has begun: from STDIN, the client has been told to send its data
/// (CopyInResponse) and the data is read and dropped, the error coming
/// at its end, so a script's data lines are never taken for statements.
fn refuse_copy_data(
    s: &mut Session,
    e: DbError,
    opts: copy::CopyOptions,
    server: Option<ServerEnd>,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    if server.is_some() {
        return Err(e);
    }
    let format = copy_format_code(&opts);
    let parser = CopyParser::new(opts, Vec::new(), Vec::new());
    s.copy_in = Some(CopyInState {
        parser,
        target: None,
        count: 0,
        failed: Some(e),
        rest: Vec::new(),
        text: Arc::from(""),
        tracked: None,
        notices: Vec::new(),
    });
    rows.out.push(BackendMsg::CopyInResponse {
        format: format as i8,
        column_formats: Vec::new(),
    });
    Ok(())
}

/// COPY's privilege: INSERT (FROM) or SELECT (TO) on the table, or on
/// each column copied (PostgreSQL's insertedCols / selectedCols of COPY),
/// checked before anything else about the table, as DoCopy does.
fn copy_privilege(
    s: &Session,
    t: &nestor_catalog::TableDef,
    name: &str,
    cols: &[String],
    from: bool,
) -> Result<(), DbError> {
    let role = s.role_ctx();
    if role.superuser {
        return Ok(());
    }
    let copied: Vec<i16> = if cols.is_empty() {
        t.live_columns().map(|(i, _)| i as i16 + 1).collect()
    } else {
        cols.iter()
            .filter_map(|n| t.column_index(n))
            .map(|i| i as i16 + 1)
            .collect()
    };
    let (privs, cols) = if from {
        (
            nestor_catalog::acl::INSERT,
            nestor_plan::perm::PermCols {
                insert: copied,
                ..Default::default()
            },
        )
    } else {
        (
            nestor_catalog::acl::SELECT,
            nestor_plan::perm::PermCols {
                select: copied,
                ..Default::default()
            },
        )
    };
    let need = nestor_plan::perm::Perm {
        kind: nestor_catalog::acl::ObjKind::Table,
        oid: t.oid.0,
        name: name.to_string(),
        privs,
        check_as: None,
        location: -1,
        cols,
        lock_only: false,
    };
    if nestor_exec::privilege::perm_allowed(&s.catalog, role.oid, &need) {
        return Ok(());
    }
    Err(nestor_exec::privilege::denied(
        nestor_catalog::acl::ObjKind::Table,
        name,
    ))
}

fn copy_to(
    s: &mut Session,
    text: &Arc<str>,
    c: &CopyStmt,
    opts: copy::CopyOptions,
    server: Option<ServerEnd>,
    rows: &mut RowOut<'_>,
) -> Result<(), DbError> {
    let plan = match &c.query {
        Some(q) => {
            let raw = RawStmt {
                stmt: Some(q.clone()),
                stmt_location: 0,
                stmt_len: 0,
            };
            s.prepare_query(text, &raw, &[])?
        }
        None => {
            let (table, cols) = copy_columns(s, c)?;
            if let Some(rel) = c.relation.as_ref() {
                let name = nestor_plan::bind::relname(rel)?;
                if let Some(e) = copy_from_non_table(s, &name, &rel.relname) {
                    return Err(e);
                }
                // Privileges before the policies (planning the SELECT
                // applies them), as PostgreSQL's DoCopy.
                if let Some(t) = s.catalog.table(&name) {
                    copy_privilege(s, &t, &name, &cols, false)?;
                }
            }
            // A table's own rows, not its inheritance children's.
            plan_text(s, &select_text(&format!("ONLY {table}"), &cols))?
        }
    };
    let mut buf: Vec<Vec<Value>> = Vec::new();
    let (r, notices) = s.with_statement(|ctx| nestor_exec::execute(ctx, &plan, &[], &mut buf));
    rows.out.extend(notices.into_iter().map(BackendMsg::Notice));
    r?;
    let cols = plan.columns.unwrap_or_default();
    let names: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
    let all: Vec<String> = match c.relation.as_ref().map(nestor_plan::bind::relname) {
        Some(Ok(rel)) => s.catalog.table(&rel).map_or_else(Vec::new, |t| {
            t.live_columns().map(|(_, c)| c.name.clone()).collect()
        }),
        _ => Vec::new(),
    };
    let rel = c.relation.as_ref().map_or("", |r| r.relname.as_str());
    let mut opts = opts;
    opts.resolve_force(&names, &all, rel)?;
    let format = copy_format_code(&opts);
    let n = buf.len();
    let data = if opts.format == copy::CopyFormat::Binary {
        copy_out_binary(&cols, buf)
    } else {
        copy_out_text(s, &cols, buf, &opts)
    };
    match &server {
        Some(end) => copy_server::write_all(end, &data)?,
        None => {
            rows.out.push(BackendMsg::CopyOutResponse {
                format: format as i8,
                column_formats: vec![format; cols.len()],
            });
            rows.out.extend(data.into_iter().map(BackendMsg::CopyData));
            rows.out.push(BackendMsg::CopyDone);
        }
    }
    rows.out.push(BackendMsg::CommandComplete(CommandTag::Rows(
        RowsCommand::Copy,
        n as u64,
    )));
    Ok(())
}

/// The overall and per-column format code of CopyIn/CopyOutResponse.
fn copy_format_code(opts: &copy::CopyOptions) -> FormatCode {
    match opts.format {
        copy::CopyFormat::Binary => 1,
        copy::CopyFormat::Text | copy::CopyFormat::Csv => 0,
    }
}

/// COPY TO rows in text or CSV format, one CopyData payload per line.
fn copy_out_text(
    s: &Session,
    cols: &[ColumnDesc],
    buf: Vec<Vec<Value>>,
    opts: &copy::CopyOptions,
) -> Vec<Vec<u8>> {
    let codec = s.eval_ctx();
    let mut out = Vec::with_capacity(buf.len() + 1);
    if opts.header {
        let names: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
        out.push(copy::format_header(&names, opts));
    }
    for row in buf {
        out.push(copy::format_row(&codec, &row, opts));
    }
    out
}

/// COPY TO rows in binary format, as PostgreSQL's CopyData payloads: the
/// header goes with the first tuple, one payload per tuple, the trailer
/// alone (or with the header when there are no rows).
fn copy_out_binary(cols: &[ColumnDesc], buf: Vec<Vec<Value>>) -> Vec<Vec<u8>> {
    let types: Vec<_> = cols.iter().map(|c| encode::wire_type(c.type_oid)).collect();
    let mut out = Vec::with_capacity(buf.len() + 1);
    let mut pending = copy::binary_header();
    for row in buf {
        pending.extend_from_slice(&copy::binary_row(&row, &types));
        out.push(std::mem::take(&mut pending));
    }
    pending.extend_from_slice(&copy::BINARY_TRAILER);
    out.push(pending);
    out
}

impl Session {
    /// A message while COPY FROM STDIN is in progress.
    pub(crate) fn handle_copy_message(&mut self, msg: FrontendMsg, out: &mut Vec<BackendMsg>) {
        match msg {
            FrontendMsg::CopyData(data) => self.copy_data(&data),
            FrontendMsg::CopyDone => self.copy_done(out),
            FrontendMsg::CopyFail(why) => {
                let e = DbError::new(
                    SqlState::QueryCanceled,
                    format!("COPY from stdin failed: {why}"),
                );
                self.copy_in = None;
                self.fail(e, out);
                self.finish_query(out);
            }
            // Flush/Sync are ignored during COPY, as PostgreSQL does.
            FrontendMsg::Flush | FrontendMsg::Sync => {}
            _ => {
                self.copy_in = None;
                let e = DbError::new(
                    SqlState::ProtocolViolation,
                    "unexpected message type during COPY from stdin",
                );
                self.fail(e, out);
                self.finish_query(out);
            }
        }
    }

    fn copy_data(&mut self, data: &[u8]) {
        let codec = self.eval_ctx();
        let Some(c) = self.copy_in.as_mut() else {
            return;
        };
        if c.failed.is_some() {
            return;
        }
        if let Err(e) = c.parser.feed(&codec, data) {
            c.failed = Some(e);
            return;
        }
        // A table with triggers takes the COPY in one batch, so that its
        // statement triggers fire once (its AFTER ROW events are queued in
        // memory as PostgreSQL's are).
        let batched = c
            .target
            .as_ref()
            .is_some_and(|t| t.table.triggers.is_empty());
        if c.parser.rows.len() >= COPY_BATCH_ROWS && batched {
            if let Err(e) = self.copy_flush() {
                if let Some(c) = self.copy_in.as_mut() {
                    c.failed = Some(e);
                }
            }
        }
    }

    /// Insert the parsed rows through the query engine.
    fn copy_flush(&mut self) -> Result<(), DbError> {
        let Some(mut c) = self.copy_in.take() else {
            return Ok(());
        };
        let Some(target) = c.target.take() else {
            self.copy_in = Some(c);
            return Ok(());
        };
        let batch = std::mem::take(&mut c.parser.rows);
        let lines = std::mem::take(&mut c.parser.lines);
        let texts = std::mem::take(&mut c.parser.texts);
        let text_ends = std::mem::take(&mut c.parser.text_ends);
        let mut done = 0u64;
        let (r, notices) =
            self.with_statement(|ctx| nestor_exec::copy_insert(ctx, &target, batch, &mut done));
        c.notices.extend(notices);
        let r = match r {
            Ok(n) => {
                c.count += n;
                Ok(())
            }
            Err(e) if e.context.is_none() => {
                let line = lines.get(done as usize).copied().unwrap_or(0);
                // PostgreSQL quotes the line of an error its checks raise
                // while the line is at hand, not of a unique violation
                // (found when its buffered rows are flushed).
                let text = copy::batch_line(&texts, &text_ends, done as usize)
                    .filter(|_| e.code != SqlState::UniqueViolation);
                Err(e.with_context(c.parser.row_context(line, text)))
            }
            // A value failing its column's domain (exec's copy_insert
            // names the column and value).
            Err(mut e)
                if e.context
                    .as_deref()
                    .is_some_and(|x| x.starts_with("column ")) =>
            {
                let line = lines.get(done as usize).copied().unwrap_or(0);
                let field = e.context.take().unwrap_or_default();
                Err(e.with_context(format!("{}, {field}", c.parser.context(line))))
            }
            Err(e) => Err(e),
        };
        c.target = Some(target);
        self.copy_in = Some(c);
        r
    }

    /// End the COPY FROM in progress: the parser's last row, the last
    /// batch. Returns its state (rows counted, notices) and the result.
    fn copy_finish(&mut self) -> Option<(CopyInState, Result<(), DbError>)> {
        let codec = self.eval_ctx();
        let mut result = match self.copy_in.as_mut() {
            Some(c) => match c.failed.take() {
                Some(e) => Err(e),
                None => c.parser.finish(&codec),
            },
            None => Ok(()),
        };
        if result.is_ok() {
            result = self.copy_flush();
        }
        let c = self.copy_in.take()?;
        Some((c, result))
    }

    /// COPY FROM a server-side file or program: its data goes through
    /// the same parser and batches as CopyData messages, synchronously.
    fn copy_from_source(
        &mut self,
        mut source: Source,
        rows: &mut RowOut<'_>,
    ) -> Result<(), DbError> {
        let read = loop {
            let chunk = match source.read_chunk() {
                Ok(chunk) => chunk,
                Err(e) => break Err(e),
            };
            if chunk.is_empty() {
                break Ok(());
            }
            self.copy_data(&chunk);
            if self.copy_in.as_ref().is_some_and(|c| c.failed.is_some()) {
                break Ok(());
            }
        };
        let failed = read.is_err() || self.copy_in.as_ref().is_some_and(|c| c.failed.is_some());
        let closed = source.close(failed);
        if let Err(e) = read {
            self.copy_in = None;
            return Err(e);
        }
        let Some((mut c, result)) = self.copy_finish() else {
            return Err(DbError::internal("COPY FROM lost its state"));
        };
        rows.out.extend(c.notices.drain(..).map(BackendMsg::Notice));
        result?;
        closed?;
        rows.out.push(BackendMsg::CommandComplete(CommandTag::Rows(
            RowsCommand::Copy,
            c.count,
        )));
        Ok(())
    }

    fn copy_done(&mut self, out: &mut Vec<BackendMsg>) {
        let Some((mut c, result)) = self.copy_finish() else {
            return;
        };
        out.extend(c.notices.drain(..).map(BackendMsg::Notice));
        match result {
            Ok(()) => {
                if let Some((start, stmt)) = &c.tracked {
                    let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
                    self.record_utility(stmt, elapsed_ms, c.count);
                }
                out.push(BackendMsg::CommandComplete(CommandTag::Rows(
                    RowsCommand::Copy,
                    c.count,
                )));
                if self.run_statements(c.text, None, c.rest, out) {
                    self.finish_query(out);
                }
            }
            Err(e) => {
                self.fail(e, out);
                self.finish_query(out);
            }
        }
    }
}
