//! # nestor-types: the SQL value layer
//!
//! Everything the executor needs to hold, read, print, convert and compute
//! with PostgreSQL values, with PostgreSQL's results, messages and
//! SQLSTATEs. No session state lives here: the session settings that
//! matter (TimeZone, DateStyle, IntervalStyle, extra_float_digits, the
//! transaction timestamp) come in an [`EvalCtx`].
//!
//! ## Types and values
//! * [`DataType`] — static SQL type with typmod: `oid()`, `typlen()`,
//!   `typmod()`, `from_oid_typmod(oid, typmod)`, `from_sql_name(name,
//!   &typmods)` (PostgreSQL names and aliases; `json` is 0A000),
//!   `name()` for messages, `Display` = `format_type` (`character
//!   varying(5)`).
//! * [`Value`] — one datum (`Null`, `Bool`, `Int2/4/8`, `Float4/8`,
//!   `Numeric(Numeric)`, `Text`, `Bytea`, `Date`, `Timestamp`,
//!   `TimestampTz`, `Time` ([`time`]: microseconds since midnight), `Uuid`,
//!   `PgLsn` ([`pg_lsn`]), `Bits` (bit and bit varying, [`bits`]),
//!   `TsVector` / `TsQuery` (full text search, [`tsearch`]),
//!   `Jsonb`, `Interval(Interval)`, `Geo` — the geometric types of
//!   [`geometry`]); `Ord`/`Eq`/
//!   `Hash` are the index order (NULL last, ints by value). [`Row`] =
//!   `Arc<[Value]>`. text/varchar/char/name share `Text` (char values are
//!   stored blank-padded); oid is `Int8`.
//! * [`Numeric`] — arbitrary precision decimal ([`numeric`]).
//! * [`datetime::Interval`], [`datetime::TimeZone`] (UTC or fixed offset;
//!   `TimeZone::parse` reads a `SET TIME ZONE` value).
//!
//! ## Conversion
//! * Text: [`Value::to_text`]`(&ctx)`, [`text::parse_text`]`(ty, s, &ctx)`.
//! * Binary: [`Value::to_binary`] / [`Value::to_binary_as`]`(ty)`,
//!   [`binary::parse_binary`]`(ty, bytes)`.
//! * Casts: [`cast::cast`]`(v, to, explicit, &ctx)`, or
//!   [`cast::cast_from`]`(v, from, to, explicit, &ctx)` when the static
//!   source type matters (`char(n)` → text drops padding; int4 → oid);
//!   [`cast::apply_typmod`] for column coercion (assignment: `explicit =
//!   false`).
//!
//! ## Planning
//! * [`cast::common_supertype`] / [`cast::common_supertype_all`] — UNION,
//!   CASE, COALESCE, IN, mixed comparisons (None: "cannot be matched").
//! * [`cast::coercion`]`(from, to)` — `Implicit` / `Assignment` /
//!   `Explicit` / None (no cast).
//! * [`ops::binary_result_type`]`(op, l, r)` — result type of an operator
//!   or None (then evaluating gives 42883 with PostgreSQL's message).
//! * [`functions::scalar_return_type`]`(name, &arg_types)` — overload
//!   resolution and result type of a built-in function (42883 otherwise);
//!   [`functions::function_volatility`], [`functions::is_scalar_function`].
//!
//! ## Evaluation
//! * [`ops::binary_op`]`(op, &a, &b, &ctx)` — `+ - * / % ^ || = <> < <= >
//!   >= LIKE ILIKE NOT LIKE NOT ILIKE` with NULL propagation;
//!   [`ops::negate`], [`ops::abs`], [`ops::compare`] / [`ops::compare_in`]
//!   (`Ok(None)` for NULL), [`ops::like`]`(s, pattern, escape, ci)`.
//! * [`functions::call_scalar`]`(name, &args)` /
//!   [`functions::call_scalar_ctx`] — `None` if not a built-in here.
//!
//! Operands of mixed numeric types are promoted as PostgreSQL would after
//! its implicit casts, so the planner may, but need not, insert casts.

#![forbid(unsafe_code)]

/// One strict built-in of a function table (geometry, ranges): the call
/// site's `Def { name, args, ret, imp }` whose code returns NULL for any
/// NULL argument before running `$body` over the values `$v`. `Def`,
/// `Value` and `EvalCtx` are the calling module's.
macro_rules! strict_def {
    ($name:literal, [$($a:expr),*], $ret:expr, |$v:ident| $body:expr) => {
        Def {
            name: $name,
            args: &[$($a),*],
            ret: $ret,
            imp: |$v: &[Value], _: &EvalCtx| {
                if $v.iter().any(Value::is_null) {
                    return Ok(Value::Null);
                }
                $body
            },
        }
    };
}

pub mod array;
pub(crate) mod array_fns;
pub mod array_subscript;
pub(crate) mod bigint;
pub mod binary;
pub mod bits;
pub mod bytea_fns;
pub mod cast;
pub mod cast_catalog;
pub mod composites;
pub mod context;
pub mod database_scope;
pub mod datatype;
pub mod datestyle;
pub mod datetime;
pub mod datetime_fns;
pub(crate) mod datetime_input;
pub mod domains;
pub mod enums;
pub mod extensions;
pub(crate) mod float;
pub mod formatting;
pub mod functions;
pub mod geometry;
pub mod gin_jsonb;
pub mod hash_fns;
pub mod interval_typmod;
pub mod io_functions;
pub mod json;
pub mod json_object;
pub mod json_ops;
pub mod json_populate;
pub mod jsonb_edit;
pub mod jsonb_ops;
pub mod jsonb_order;
pub mod jsonpath;
pub(crate) mod math_fns;
pub mod md5;
pub mod moments;
pub mod money;
pub mod numeric;
pub mod ops;
pub mod pg_lsn;
pub mod range;
pub mod regex;
pub mod regr;
pub mod set_fns;
pub mod string_fns;
pub mod text;
pub mod time;
pub mod timetz;
pub mod tsearch;
pub mod tz_abbrevs;
pub mod value;

pub use context::EvalCtx;
pub use datatype::DataType;
pub use numeric::Numeric;
pub use value::{Row, Value};
