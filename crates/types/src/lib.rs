//! SQL values and types.
pub mod binary;
pub(crate) mod bigint;
pub mod cast;
pub mod context;
pub mod datatype;
pub mod datetime;
pub mod float;
pub mod json;
pub mod numeric;
pub mod ops;
pub mod text;
pub mod value;

pub use numeric::Numeric;
pub use value::{Row, Value};
