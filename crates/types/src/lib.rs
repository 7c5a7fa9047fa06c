//! SQL values and types.
pub(crate) mod bigint;
pub mod numeric;
pub mod value;

pub use numeric::Numeric;
pub use value::{Row, Value};
