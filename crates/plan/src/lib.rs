//! # nestor-plan: from parse tree to plan
//!
//! ```text
//!   parse tree (nestor-parser)
//!      │  bind:     names → column positions, types decided, implicit
//!      │            casts made explicit, functions resolved (Binder)
//!      ▼
//!   Expr + logical shape (select / modify: FROM tree, WHERE conjuncts,
//!      │            aggregates, ORDER BY, LIMIT, FOR UPDATE)
//!      │  access paths: conjuncts pushed down the join tree; at a table
//!      │            leaf they choose SeqScan or IndexScan (select::build)
//!      ▼
//!   Plan tree (tree) wrapped in a PlannedStmt (statement)
//! ```
//!
//! Planning reads the catalog and the session's [`nestor_types::EvalCtx`]
//! (constants are folded in the session's time zone); it never touches
//! rows, transactions or sessions. The executor (`nestor-exec`) runs the
//! result. toydb's build/optimize split is here as bind-then-build: the
//! binder produces expressions over a query level's row layout, and
//! `select::build` places them on the physical join tree.
//!
//! Left out: a cost model (index choice is rule-based: most equality
//! columns, then ranges), join reordering, hash and merge joins.

#![forbid(unsafe_code)]

pub mod bind;
pub mod functions;
pub mod information_schema;
pub mod instead;
pub mod ir;
pub mod merge;
pub mod modify;
pub mod perm;
pub mod pg_catalog;
pub mod rewrite;
pub mod select;
pub mod statement;
pub mod sysviews;
pub mod valops;
pub mod view_write;
pub mod with_modify;

pub use ir::{Expr, OutCol, Plan};
pub use statement::{explain, handles, plan_statement, Planned, PlannedStmt};
