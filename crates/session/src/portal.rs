//! Prepared statements and portals of the extended query protocol (also
//! what SQL-level PREPARE / EXECUTE use).
//!
//! A [`PreparedStmt`] is parsed and planned once, at Parse (or PREPARE): the
//! plan lives in it and every Bind/Execute reuses it. Statements the session
//! handles itself (BEGIN, SET, SHOW, ...) keep their parse tree instead of a
//! plan. A [`Portal`] is a prepared statement with parameter values and
//! result formats bound; it exists until its transaction ends. Execution
//! with a row limit runs the statement to completion the first time and
//! hands out the buffered rows in chunks (PortalSuspended between them),
//! which keeps the executor a simple push pipeline; the cost is memory for
//! the not-yet-fetched rows of that portal only.

use std::collections::VecDeque;
use std::sync::Arc;

use nestor_parser::pb::RawStmt;

use crate::protocol::FormatCode;
use nestor_exec::{ColumnDesc, CommandTag, Prepared, RowsCommand};
use nestor_types::Value;

/// What a prepared statement runs.
pub(crate) enum StmtBody {
    /// An empty query string (Execute answers EmptyQueryResponse).
    Empty,
    /// Planned by the query engine.
    Query(Prepared),
    /// Handled by the session (transaction control, SET, SHOW, ...).
    Utility,
}

/// A parsed (and, for queries, planned) statement.
pub(crate) struct PreparedStmt {
    /// The query text the statement came from (locations index into it).
    pub text: Arc<str>,
    pub raw: RawStmt,
    pub body: StmtBody,
    pub param_types: Vec<u32>,
    /// Result columns (None: the statement returns no rows).
    pub columns: Option<Vec<ColumnDesc>>,
    /// What pg_prepared_statements shows of a named statement (None for
    /// the unnamed one); its execution counter is bumped at each use.
    pub info: Option<Arc<nestor_exec::PreparedInfo>>,
}

impl PreparedStmt {
    /// Count one execution (pg_prepared_statements' generic_plans).
    pub fn count_execution(&self) {
        if let Some(i) = &self.info {
            i.executions
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Rows already produced by a portal run with a row limit.
pub struct Pending {
    pub rows: VecDeque<Vec<Value>>,
    pub tag: CommandTag,
}

/// A bound statement.
pub(crate) struct Portal {
    pub stmt: Arc<PreparedStmt>,
    pub params: Vec<Value>,
    pub formats: Vec<FormatCode>,
    pub pending: Option<Pending>,
    /// Ran to completion (a further Execute returns no rows).
    pub done: bool,
}

impl Portal {
    pub fn new(stmt: Arc<PreparedStmt>, params: Vec<Value>, formats: Vec<FormatCode>) -> Portal {
        Portal {
            stmt,
            params,
            formats,
            pending: None,
            done: false,
        }
    }
}

/// `SELECT 5` → `SELECT n` for the rows one Execute returned; other tags
/// (INSERT ... RETURNING) keep their total, as in PostgreSQL.
pub(crate) fn chunk_tag(tag: CommandTag, rows: usize) -> CommandTag {
    match tag {
        CommandTag::Rows(RowsCommand::Select, _) => tag.with_rows(rows as u64),
        other => other,
    }
}
