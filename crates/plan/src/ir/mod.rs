//! The plan IR: bound expressions ([`Expr`]) and the operator tree
//! ([`Plan`]) the executor runs.
//!
//! The two types are one recursive structure — an expression may hold a
//! subquery's plan (`Expr::Sub`), and operators hold expressions — so they
//! live in one module. Everything else in the planner builds them; the
//! executor (`nestor-exec`) consumes them.
//!
//! ```text
//!   SELECT a FROM t WHERE b > (SELECT max(x) FROM u)
//!   Project [Col 0]
//!     SeqScan t  filter: Cmp(Gt, Col 1, Sub(Scalar, Aggregate(SeqScan u)))
//! ```

mod expr;
mod plan;

pub use expr::*;
pub use plan::*;
