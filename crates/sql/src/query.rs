//! The query engine entry points (owned by the query engine).

use nestor_common::DbError;

use crate::exec_api::{Prepared, RowSink, Settings, StatementCtx};
use crate::session::Engine;

/// Plan one parsed statement. `param_hints` are the client's parameter type
/// OIDs (0 = infer).
pub fn prepare(
    _engine: &Engine,
    _settings: &Settings,
    _stmt: &str,
    _param_hints: &[u32],
) -> Result<Prepared, DbError> {
    Err(DbError::unsupported("query engine (being written)"))
}

/// Execute a planned statement; returns the command tag ("SELECT 3",
/// "INSERT 0 1", "CREATE TABLE").
pub fn execute(
    _ctx: &mut StatementCtx<'_>,
    _prepared: &Prepared,
    _params: &[nestor_types::Value],
    _sink: &mut dyn RowSink,
) -> Result<String, DbError> {
    Err(DbError::unsupported("query engine (being written)"))
}
