//! The query engine entry points (owned by the query engine).
//!
//! Contract with the session:
//!
//! 1. [`parse_sql`] turns a query string into libpg_query `RawStmt`s (once per
//!    Query/Parse message). Syntax errors come back as 42601 with PostgreSQL's
//!    message and the 1-based cursor position.
//! 2. For each statement, [`is_query_engine_statement`] says whether the query
//!    engine handles it (SELECT/VALUES/INSERT/UPDATE/DELETE/EXPLAIN and DDL:
//!    CREATE/DROP/ALTER TABLE, CREATE/DROP INDEX, CREATE/DROP SEQUENCE,
//!    TRUNCATE, VACUUM, ANALYZE). Everything else (transaction control,
//!    SET/SHOW/RESET, PREPARE/EXECUTE/DEALLOCATE, COPY, DISCARD, LISTEN...)
//!    is the session's.
//! 3. [`prepare`] plans the statement once; [`execute`] runs the plan with
//!    parameter values (as often as the session likes).
//!
//! COPY FROM: the session resolves the target with [`copy_target`], parses
//! the data into values of the target's column types, and hands batches to
//! [`copy_insert`]. COPY TO is planned as a SELECT through prepare/execute.

use nestor_common::DbError;
use nestor_types::Value;
use pg_query::protobuf::RawStmt;
use pg_query::NodeEnum;

use crate::exec_api::{Prepared, RowSink, Settings, StatementCtx};
use crate::session::Engine;

pub use crate::dml::CopyTarget;

/// Parse a query string (one or more statements) with PostgreSQL's grammar.
/// Node locations inside the statements are byte offsets into `text`.
pub fn parse_sql(text: &str) -> Result<Vec<RawStmt>, DbError> {
    crate::parse::parse_sql(text)
}

/// Whether `node` (a `RawStmt`'s `stmt`) is for the query engine; see the
/// module header for the list.
pub fn is_query_engine_statement(node: &NodeEnum) -> bool {
    crate::stmt::handles(node)
}

/// Plan one parsed statement. `text` is the full query string the statement
/// was parsed from (its locations index into it), `stmt` one of the
/// statements [`parse_sql`] returned, `param_hints` the client's parameter
/// type OIDs (0 = infer). The plan is reused across executions.
pub fn prepare(
    engine: &Engine,
    settings: &Settings,
    text: &str,
    stmt: &RawStmt,
    param_hints: &[u32],
) -> Result<Prepared, DbError> {
    crate::stmt::prepare(engine, settings, text, stmt, param_hints)
}

/// Execute a planned statement; returns the command tag ("SELECT 3",
/// "INSERT 0 1", "CREATE TABLE"). `params` are the values of $1..$n in the
/// types of `prepared.param_types`.
pub fn execute(
    ctx: &mut StatementCtx<'_>,
    prepared: &Prepared,
    params: &[Value],
    sink: &mut dyn RowSink,
) -> Result<String, DbError> {
    crate::stmt::execute(ctx, prepared, params, sink)
}

/// Resolve the target of `COPY table [(columns)] FROM ...`: the relation and
/// the types of the columns the data provides, in data order (all columns
/// when `columns` is empty).
pub fn copy_target(
    engine: &Engine,
    settings: &Settings,
    table: &str,
    columns: &[String],
) -> Result<CopyTarget, DbError> {
    crate::dml::copy_target(engine, settings, table, columns)
}

/// Insert rows parsed from COPY data (one value per target column, already of
/// the column's type); defaults fill the other columns, constraints are
/// checked. Returns the number of rows inserted; on error, `done` tells how
/// many rows went in before the failing one.
pub fn copy_insert(
    ctx: &mut StatementCtx<'_>,
    target: &CopyTarget,
    rows: Vec<Vec<Value>>,
    done: &mut u64,
) -> Result<u64, DbError> {
    crate::dml::copy_insert(ctx, target, rows, done)
}
