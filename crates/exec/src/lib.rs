//! # nestor-exec: running statements
//!
//! The session hands the query engine one statement at a time:
//!
//! 1. [`prepare`] plans a parsed statement once (`nestor_plan`), keeping the
//!    plan with the catalog version it was made at ([`Prepared`]); prepared
//!    statements reuse it, and an execution after a schema change re-plans.
//! 2. [`execute`] runs it inside a [`StatementCtx`] — the transaction, the
//!    statement's snapshot, the session's settings and [`EvalCtx`], the
//!    wait bounds — pushing result rows into a [`RowSink`] and returning
//!    the [`CommandTag`].
//! 3. COPY FROM: the session resolves the target with
//!    `nestor_plan::modify::copy_target`, parses the data into values of the
//!    target's column types, and hands batches to [`copy_insert`].
//!
//! ```text
//!   Prepared ──execute──▶ statement ──▶ executor::run (push-based operators)
//!                             │            eval (Expr interpreter, functions)
//!                             ├──▶ modify (INSERT/UPDATE/DELETE, EvalPlanQual)
//!                             └──▶ ddl    (catalog changes with undo + redo)
//! ```
//!
//! Also here: the [`Database`] every statement runs against and the session
//! [`registry`] that pg_stat_activity, cancel and terminate read.
//!
//! [`EvalCtx`]: nestor_types::EvalCtx

#![forbid(unsafe_code)]

pub mod context;
pub mod database;
mod ddl;
pub mod executor;
mod foreign_keys;
pub mod functions;
mod hash_partition;
mod members;
mod merge;
mod modify;
pub mod notify;
pub mod pg_catalog;
mod plpgsql;
pub mod privilege;
pub mod registry;
mod relation_lock;
pub mod replication;
pub mod spill;
pub mod stat_statements;
pub mod statement;
pub mod stats;
mod sysviews;
pub mod tag;
#[cfg(test)]
mod tests;
mod triggers;
mod viewdef;
pub mod wait_sampling;
mod with_modify;
pub mod workmem;

pub use context::{
    ColumnDesc, Cursors, Ev, FetchDirection, NoCursors, OpenedCursor, RowSink, StatementCtx,
};

/// Server-side code's entry points (see [`context::Routines`]).
pub(crate) static ROUTINES: context::Routines = context::Routines {
    call: plpgsql::call,
    trigger: plpgsql::call_trigger,
    create_function: plpgsql::commands::create_function,
    run_do: plpgsql::commands::run_do,
    run_sql: statement::run_internal,
    describe: statement::describe_query,
    describe_needs: statement::describe_query_needs,
    run_raw: statement::run_raw,
    query_rows: statement::query_rows,
};
pub use database::Database;
pub use ddl::{const_text, set_stmt_value};
pub use foreign_keys::{check_deferred, named_constraints, ConstraintModes, DeferredCheck};
pub use modify::copy_insert;
pub use notify::{ListenOp, Notification, PendingNotify};
pub use registry::{ActivityRow, CancelToken, CursorInfo, PreparedInfo, Registry};
pub use statement::{execute, prepare, Prepared};
pub use tag::{CommandTag, RowsCommand};
