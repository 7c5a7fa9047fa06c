//! SQL values and types (PostgreSQL's type system, the subset Nestor
//! supports). Storage keeps rows as `Vec<Value>`; index keys are `Vec<Value>`
//! ordered by [`Value`]'s total order (NULLs last, as a btree ASC index).

pub mod value;

pub use value::{Row, Value};
