//! SQL values and types.
pub(crate) mod bigint;
pub mod binary;
pub mod cast;
pub mod context;
pub mod datatype;
pub mod datetime;
pub mod float;
pub mod functions;
pub mod json;
pub mod md5;
pub mod numeric;
pub mod ops;
pub mod text;
pub mod value;

pub use numeric::Numeric;
pub use value::{Row, Value};
