//! Built-in scalar functions: the one function library.
//!
//! * [`resolve`]`(name, arg_types)` — bind time, once per call site: does
//!   the function exist for these argument types, what must each argument
//!   be cast to, what does it return? It resolves overloads as PostgreSQL
//!   would after implicit casts (`round(int)` is `round(double precision)`,
//!   `round(numeric, int)` is numeric, `abs` keeps its argument type...).
//!   The answer is a [`Resolved`] holding a [`ScalarFn`] handle (name,
//!   volatility, implementation) the executor calls directly. Errors are
//!   42883 `function f(types) does not exist`.
//! * [`call_scalar_ctx`]`(name, args, ctx)` — resolve by the arguments'
//!   run-time types and call, for tools and tests.
//!
//! Strict functions return NULL when any argument is NULL; `concat`,
//! `concat_ws` (NULL separator gives NULL), `coalesce`, `nullif`,
//! `greatest` and `least` have their own NULL rules. Names are matched
//! case-insensitively; `substring(s from a for b)`, `position(a in b)` and
//! `trim(both x from s)` are the parser's sugar for `substring(s, a, b)`,
//! `position(b, a)` (haystack first, like strpos) and `btrim(s, x)`. A
//! handle's volatility tells the planner which calls may be constant-folded
//! (`gen_random_uuid` is volatile).
//!
//! Families of functions live in their own modules, each with a `NAMES`
//! list and a `resolve` consulted first: [`crate::array_fns`],
//! [`crate::regex`], [`crate::jsonb_ops`], [`crate::jsonb_edit`], [`crate::json_object`], [`crate::json_ops`], [`crate::jsonpath`], [`crate::datetime_fns`]
//! (date_trunc, extract, age, make_*, justify_*), [`crate::formatting`]
//! (to_char, to_timestamp, to_date, to_number) and [`crate::string_fns`] (format,
//! initcap, translate, chr, overlay...) and [`crate::math_fns`] (trigonometry,
//! hyperbolic functions, gcd, lcm, factorial, scales, width_bucket) and
//! [`crate::bytea_fns`] (encode/decode, get/set_byte/bit, sha*, convert_*)
//! and [`crate::regr`] (the float8 aggregates' transition functions).
//!
//! String functions count characters, not bytes. A `char(n)` argument
//! should be cast to text first ([`crate::cast::cast_from`] drops its
//! padding), as PostgreSQL does for `length` and friends.

use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::cast::{cast, common_supertype_all};
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datetime::TimeZone;
use crate::md5::md5_hex;
use crate::numeric::Numeric;
use crate::ops::{self, compare};
use crate::value::Value;

/// How often a function's result may change for the same arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Volatile,
}

/// Every function [`call_scalar_ctx`] knows.
pub(crate) const NAMES: &[&str] = &[
    "abs",
    "round",
    "trunc",
    "floor",
    "ceil",
    "ceiling",
    "mod",
    "div",
    "power",
    "pow",
    "sqrt",
    "cbrt",
    "ln",
    "log",
    "log10",
    "exp",
    "sign",
    "length",
    "char_length",
    "character_length",
    "octet_length",
    "lower",
    "upper",
    "substr",
    "substring",
    "position",
    "strpos",
    "concat",
    "concat_ws",
    "replace",
    "trim",
    "btrim",
    "ltrim",
    "rtrim",
    "lpad",
    "rpad",
    "left",
    "right",
    "repeat",
    "reverse",
    "split_part",
    "md5",
    "booleq",
    "boolne",
    "booland_statefunc",
    "boolor_statefunc",
    "gen_random_uuid",
    "coalesce",
    "nullif",
    "greatest",
    "least",
];

use nestor_common::limits::VALUE_BYTES_MAX;

/// Is `name` a scalar function of this module?
pub(crate) fn is_scalar_function(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    NAMES.contains(&lower.as_str())
        || crate::array_fns::NAMES.contains(&lower.as_str())
        || crate::regex::NAMES.contains(&lower.as_str())
        || crate::jsonb_ops::NAMES.contains(&lower.as_str())
        || crate::jsonb_edit::NAMES.contains(&lower.as_str())
        || crate::json_object::NAMES.contains(&lower.as_str())
        || crate::json_ops::NAMES.contains(&lower.as_str())
        || crate::jsonpath::NAMES.contains(&lower.as_str())
        || crate::datetime_fns::NAMES.contains(&lower.as_str())
        || crate::formatting::NAMES.contains(&lower.as_str())
        || crate::string_fns::NAMES.contains(&lower.as_str())
        || crate::math_fns::NAMES.contains(&lower.as_str())
        || crate::regr::NAMES.contains(&lower.as_str())
        || crate::bytea_fns::NAMES.contains(&lower.as_str())
        || crate::hash_fns::NAMES.contains(&lower.as_str())
        || crate::money::NAMES.contains(&lower.as_str())
        || crate::bits::NAMES.contains(&lower.as_str())
        || crate::io_functions::is_send(&lower)
        || crate::extensions::provider(&lower).is_some()
        || crate::geometry::catalog::is_function(&lower)
        || crate::range::catalog::is_function(&lower)
        || crate::tsearch::catalog::is_function(&lower)
}

/// 42883 `function f(types) does not exist`, with PostgreSQL's hint.
pub fn undefined_function(name: &str, args: &[DataType]) -> DbError {
    no_function(name, args)
}

pub(crate) fn no_function(name: &str, args: &[DataType]) -> DbError {
    let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
    DbError::new(
        SqlState::UndefinedFunction,
        format!("function {}({}) does not exist", name.to_ascii_lowercase(), list.join(", ")),
    )
    .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

fn is_num_like(t: DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Numeric(_) | DataType::Unknown)
}

/// An argument that passes as an integer: one, or an untyped literal.
pub(crate) fn is_int_like(t: DataType) -> bool {
    t.is_integer() || t == DataType::Unknown
}

/// Whether an argument of type `from` passes as `to` (same type, unknown,
/// or an implicit widening in the numeric category).
pub(crate) fn passes_as(from: DataType, to: DataType) -> bool {
    let rank = |t: DataType| match t {
        DataType::Int2 => Some(1),
        DataType::Int4 => Some(2),
        DataType::Int8 => Some(3),
        DataType::Numeric(_) => Some(4),
        DataType::Float4 => Some(5),
        DataType::Float8 => Some(6),
        _ => None,
    };
    from.base() == to.base()
        || from == DataType::Unknown
        || (from.is_string() && to.is_string())
        || (crate::bits::is_bits(from) && crate::bits::is_bits(to))
        || matches!((rank(from.base()), rank(to)), (Some(a), Some(b)) if a < b)
        || (from.is_integer() && to == DataType::Oid)
}

/// An argument that passes as text: a string type, or an untyped literal.
pub(crate) fn is_text_arg(t: DataType) -> bool {
    t.is_string() || t == DataType::Unknown
}

fn is_text_like(t: DataType) -> bool {
    t.is_string()
}

/// Return type of `name(args...)`, resolving overloads like PostgreSQL.
pub(crate) fn scalar_return_type(name: &str, args: &[DataType]) -> Result<DataType, DbError> {
    let lower = name.to_ascii_lowercase();
    numeric_return_type(&lower, args)
        .or_else(|| other_return_type(&lower, args))
        .unwrap_or_else(|| Err(no_function(&lower, args)))
}

/// Result types of the numeric functions (None: not one of them).
fn numeric_return_type(lower: &str, args: &[DataType]) -> Option<Result<DataType, DbError>> {
    use DataType as T;
    let nf = || no_function(lower, args);
    let num_or_float = |t: DataType| -> Result<DataType, DbError> {
        match t {
            T::Numeric(_) => Ok(T::NUMERIC),
            t if t.is_numeric() || t == T::Unknown => Ok(T::Float8),
            _ => Err(nf()),
        }
    };
    Some(match (lower, args) {
        ("abs", [t]) if t.is_numeric() => Ok(t.base()),
        ("abs", [T::Unknown]) => Ok(T::Float8),
        (
            "round" | "trunc" | "floor" | "ceil" | "ceiling" | "sqrt" | "sign" | "ln" | "log"
            | "log10" | "exp",
            [t],
        ) => num_or_float(*t),
        // cbrt is float8 only (numeric casts to it implicitly).
        ("cbrt", [t]) if t.is_numeric() || *t == T::Unknown => Ok(T::Float8),
        // log(b, x) is numeric only: a float argument has no implicit
        // cast to numeric.
        ("log", [a, b]) if is_num_like(*a) && is_num_like(*b) => Ok(T::NUMERIC),
        ("round" | "trunc", [a, b])
            if (a.is_integer() || matches!(a, T::Numeric(_) | T::Unknown)) && is_int_like(*b) =>
        {
            Ok(T::NUMERIC)
        }
        ("power" | "pow", [a, b]) if a.is_numeric() || b.is_numeric() => {
            let numeric = [a, b].iter().any(|t| matches!(t, T::Numeric(_)))
                && ![a, b].iter().any(|t| matches!(t, T::Float4 | T::Float8));
            Ok(if numeric { T::NUMERIC } else { T::Float8 })
        }
        ("div", [a, b]) if is_num_like(*a) && is_num_like(*b) => Ok(T::NUMERIC),
        ("mod", [a, b]) => {
            match crate::ops::binary_result_type(crate::ops::BinaryOp::Mod, *a, *b) {
                Some(t) => Ok(t),
                None => Err(nf()),
            }
        }
        _ => return None,
    })
}

/// Result types of the string and conditional functions (None: not one of
/// them for these arguments).
fn other_return_type(lower: &str, args: &[DataType]) -> Option<Result<DataType, DbError>> {
    use DataType as T;
    let nf = || no_function(lower, args);
    let all = |pred: fn(DataType) -> bool| args.iter().all(|t| pred(*t));
    let n = args.len();
    Some(match (lower, args) {
        ("length" | "octet_length", [T::Bytea]) => Ok(T::Int4),
        ("length" | "char_length" | "character_length" | "octet_length", [t])
            if is_text_like(*t) =>
        {
            Ok(T::Int4)
        }
        ("lower" | "upper" | "reverse" | "md5", [t]) if is_text_like(*t) => Ok(T::Text),
        ("md5", [T::Bytea]) => Ok(T::Text),
        ("booleq" | "boolne", [T::Bool, T::Bool]) => Ok(T::Bool),
        // bool_and / bool_or's transition functions.
        ("booland_statefunc" | "boolor_statefunc", [T::Bool, T::Bool]) => Ok(T::Bool),
        ("substr" | "substring", [T::Bytea, rest @ ..])
            if (1..=2).contains(&rest.len()) && rest.iter().all(|t| is_int_like(*t)) =>
        {
            Ok(T::Bytea)
        }
        ("substr" | "substring", [s, rest @ ..])
            if is_text_like(*s)
                && (1..=2).contains(&rest.len())
                && rest.iter().all(|t| is_int_like(*t)) =>
        {
            Ok(T::Text)
        }
        ("position" | "strpos", [a, b]) if is_text_like(*a) && is_text_like(*b) => Ok(T::Int4),
        ("concat", _) => Ok(T::Text),
        ("concat_ws", [sep, ..]) if is_text_like(*sep) => Ok(T::Text),
        ("replace", [a, b, c]) if is_text_like(*a) && is_text_like(*b) && is_text_like(*c) => {
            Ok(T::Text)
        }
        ("trim" | "btrim" | "ltrim" | "rtrim", _) if (1..=2).contains(&n) && all(is_text_like) => {
            Ok(T::Text)
        }
        ("lpad" | "rpad", [s, l, rest @ ..])
            if is_text_like(*s)
                && is_int_like(*l)
                && rest.len() <= 1
                && rest.iter().all(|t| is_text_like(*t)) =>
        {
            Ok(T::Text)
        }
        ("left" | "right" | "repeat", [s, k]) if is_text_like(*s) && is_int_like(*k) => Ok(T::Text),
        ("split_part", [a, b, k]) if is_text_like(*a) && is_text_like(*b) && is_int_like(*k) => {
            Ok(T::Text)
        }
        ("gen_random_uuid", []) => Ok(T::Uuid),
        ("pg_lsn", [t]) if t.is_integer() || matches!(t, T::Numeric(_) | T::Unknown) => {
            Ok(T::PgLsn)
        }
        ("coalesce" | "greatest" | "least", [_, ..]) => {
            common_supertype_all(args).ok_or_else(|| {
                let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
                DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "{} types {} cannot be matched",
                        lower.to_uppercase(),
                        list.join(" and ")
                    ),
                )
            })
        }
        ("nullif", [a, b]) => common_supertype_all(&[*a, *b])
            .map(|_| a.resolve_unknown())
            .ok_or_else(nf),
        _ => return None,
    })
}

/// The implementation of a resolved function: evaluated arguments (already
/// of the resolved argument types) and the session context.
pub(crate) type Imp = fn(&[Value], &EvalCtx) -> Result<Value, DbError>;

/// A built-in scalar function resolved for its argument types, once, at
/// bind time: a typed handle the planner keeps in the expression and the
/// executor calls directly (no lookup by name per call).
#[derive(Clone, Copy, Eq)]
pub struct ScalarFn {
    /// Canonical name (EXPLAIN, messages).
    pub name: &'static str,
    pub volatility: Volatility,
    pub(crate) imp: Imp,
}

impl ScalarFn {
    pub fn call(&self, args: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
        (self.imp)(args, ctx)
    }
}

impl PartialEq for ScalarFn {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && std::ptr::fn_addr_eq(self.imp, other.imp)
    }
}

impl std::fmt::Debug for ScalarFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// A resolved call: the function's handle, the types its arguments must
/// have (an argument of unknown type — a quoted literal, an untyped
/// parameter — takes the type the function wants there), and the result
/// type.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub func: ScalarFn,
    pub arg_types: Vec<DataType>,
    pub ret: DataType,
}

impl Resolved {
    /// The resolution of `name` by a module whose functions are `names`
    /// (its `resolve` is only asked for those): the listed `&'static str`
    /// becomes the function's canonical name.
    pub(crate) fn listed(
        names: &[&'static str],
        name: &str,
        imp: Imp,
        arg_types: Vec<DataType>,
        ret: DataType,
        volatile: bool,
    ) -> Resolved {
        Resolved {
            func: ScalarFn {
                name: names
                    .iter()
                    .find(|x| **x == name)
                    .expect("resolve is asked for listed names only"),
                volatility: if volatile {
                    Volatility::Volatile
                } else {
                    Volatility::Immutable
                },
                imp,
            },
            arg_types,
            ret,
        }
    }
}

/// The type an argument of unknown type takes at position `i` of a call of
/// `name` with `n` arguments.
fn unknown_arg_type(name: &str, n: usize, i: usize) -> DataType {
    match (name, n, i) {
        // Resolved with the other arguments' common type.
        ("coalesce" | "greatest" | "least" | "nullif", ..) => DataType::Unknown,
        ("round" | "trunc", 2, 0) | ("mod" | "div", _, _) => DataType::NUMERIC,
        ("round" | "trunc", 2, 1) => DataType::Int4,
        ("log", 2, _) => DataType::NUMERIC,
        ("booleq" | "boolne" | "booland_statefunc" | "boolor_statefunc", ..) => DataType::Bool,
        (
            "abs" | "round" | "trunc" | "floor" | "ceil" | "ceiling" | "sqrt" | "sign" | "cbrt"
            | "ln" | "log" | "log10" | "exp",
            ..,
        )
        | ("power" | "pow", ..) => DataType::Float8,
        ("substr" | "substring", _, 1 | 2)
        | ("left" | "right" | "repeat" | "lpad" | "rpad", _, 1)
        | ("split_part", _, 2) => DataType::Int4,
        _ => DataType::Text,
    }
}

/// Resolve `name(args)` once, at bind time; 42883 `function f(types) does
/// not exist` if there is no such function for these argument types.
pub fn resolve(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    let lower = name.to_ascii_lowercase();
    if let Some(r) = crate::bits::resolve(&lower, args) {
        return r;
    }
    if lower == "substring" {
        if let Some(r) = crate::regex::substring(args) {
            return Ok(r);
        }
    }
    if let Some(r) = crate::range::catalog::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::tsearch::catalog::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::array_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::bytea_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::extensions::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::hash_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::money::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::io_functions::resolve_send(&lower, args) {
        return r;
    }
    if let Some(r) = crate::regex::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::jsonb_ops::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::jsonb_edit::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::json_object::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::json_ops::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::jsonpath::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::datetime_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::formatting::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::string_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::math_fns::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::regr::resolve(&lower, args) {
        return r;
    }
    if let Some(r) = crate::geometry::catalog::resolve(&lower, args) {
        return r;
    }
    // power(numeric, unknown) is power(numeric, numeric), as PostgreSQL
    // resolves it (an unknown beside a float or an integer is float8).
    let numeric_power = matches!(lower.as_str(), "power" | "pow")
        && args.iter().any(|t| matches!(t, DataType::Numeric(_)))
        && !args
            .iter()
            .any(|t| matches!(t, DataType::Float4 | DataType::Float8));
    let arg_types: Vec<DataType> = args
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            DataType::Unknown if numeric_power => DataType::NUMERIC,
            DataType::Unknown => unknown_arg_type(&lower, args.len(), i),
            // character(n) is read as text (padding dropped), as the text
            // functions PostgreSQL resolves to see it; octet_length counts
            // the stored bytes (bpcharoctetlen).
            DataType::Char(_) if !matches!(lower.as_str(), "octet_length") => {
                match unknown_arg_type(&lower, args.len(), i) {
                    DataType::Text => DataType::Text,
                    _ => *t,
                }
            }
            t => *t,
        })
        .collect();
    let ret = scalar_return_type(&lower, &arg_types).map_err(|_| no_function(&lower, args))?;
    let (name, imp) =
        implementation(&lower, args.len()).ok_or_else(|| no_function(&lower, args))?;
    let volatility = if name == "gen_random_uuid" {
        Volatility::Volatile
    } else {
        Volatility::Immutable
    };
    Ok(Resolved {
        func: ScalarFn {
            name,
            volatility,
            imp,
        },
        arg_types,
        ret,
    })
}

/// Strict functions: NULL if any argument is NULL.
fn null_in(args: &[Value]) -> bool {
    args.iter().any(Value::is_null)
}

macro_rules! strict {
    ($name:literal, |$a:ident| $body:expr) => {
        (
            $name,
            (|$a: &[Value], _: &EvalCtx| {
                if null_in($a) {
                    Ok(Value::Null)
                } else {
                    $body
                }
            }) as Imp,
        )
    };
}

/// The implementation of `name` with `n` arguments (types already checked
/// by [`scalar_return_type`]).
fn implementation(name: &str, n: usize) -> Option<(&'static str, Imp)> {
    Some(match (name, n) {
        ("concat", _) => ("concat", concat as Imp),
        ("concat_ws", _) => ("concat_ws", concat_ws as Imp),
        ("coalesce", _) => ("coalesce", |a, _| {
            Ok(a.iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null))
        }),
        ("nullif", 2) => ("nullif", nullif as Imp),
        ("greatest", _) => ("greatest", |a, _| extreme(a, Ordering::Greater)),
        ("least", _) => ("least", |a, _| extreme(a, Ordering::Less)),
        ("gen_random_uuid", 0) => ("gen_random_uuid", |_, _| {
            Ok(Value::Uuid(gen_random_uuid(&mut rand::thread_rng())))
        }),
        _ => strict_implementation(name, n)?,
    })
}

/// pg_lsn(numeric).
fn pg_lsn_of(v: &Value) -> Result<Value, DbError> {
    let n = match v {
        Value::Numeric(n) => n.clone(),
        Value::Text(s) => crate::Numeric::parse(s)?,
        other => crate::Numeric::from_i64(other.as_i64().unwrap_or(0)),
    };
    Ok(Value::PgLsn(crate::pg_lsn::from_numeric(&n)?))
}

fn strict_implementation(name: &str, n: usize) -> Option<(&'static str, Imp)> {
    Some(match (name, n) {
        ("abs", 1) => strict!("abs", |a| ops::abs(&a[0])),
        ("pg_lsn", 1) => strict!("pg_lsn", |a| pg_lsn_of(&a[0])),
        ("round", 1) => strict!("round", |a| math1("round", &a[0])),
        ("trunc", 1) => strict!("trunc", |a| math1("trunc", &a[0])),
        ("floor", 1) => strict!("floor", |a| math1("floor", &a[0])),
        ("ceil" | "ceiling", 1) => strict!("ceil", |a| math1("ceil", &a[0])),
        ("sqrt", 1) => strict!("sqrt", |a| math1("sqrt", &a[0])),
        ("sign", 1) => strict!("sign", |a| math1("sign", &a[0])),
        ("cbrt", 1) => strict!("cbrt", |a| math1("cbrt", &a[0])),
        ("ln", 1) => strict!("ln", |a| math1("ln", &a[0])),
        ("log", 1) => strict!("log", |a| log10("log", &a[0])),
        ("log10", 1) => strict!("log10", |a| log10("log10", &a[0])),
        ("exp", 1) => strict!("exp", |a| math1("exp", &a[0])),
        ("log", 2) => strict!("log", |a| {
            let (b, x) = (as_numeric("log", a, 0)?, as_numeric("log", a, 1)?);
            Numeric::log(&b, &x).map(Value::Numeric)
        }),
        ("round", 2) => strict!("round", |a| round_scale("round", a)),
        ("trunc", 2) => strict!("trunc", |a| round_scale("trunc", a)),
        ("power" | "pow", 2) => strict!("power", |a| power(a)),
        ("div", 2) => strict!("div", |a| {
            let (x, y) = (as_numeric("div", a, 0)?, as_numeric("div", a, 1)?);
            x.div_trunc(&y).map(Value::Numeric)
        }),
        ("mod", 2) => strict!("mod", |a| {
            ops::binary_op(
                ops::BinaryOp::Mod,
                &a[0],
                &a[1],
                &EvalCtx::new(TimeZone::UTC, 0),
            )
        }),
        ("length" | "char_length" | "character_length", 1) => {
            strict!("length", |a| length("length", a))
        }
        ("octet_length", 1) => strict!("octet_length", |a| length("octet_length", a)),
        ("lower", 1) => strict!("lower", |a| Ok(text(
            str_arg("lower", a, 0)?.to_lowercase()
        ))),
        ("upper", 1) => strict!("upper", |a| Ok(text(
            str_arg("upper", a, 0)?.to_uppercase()
        ))),
        ("reverse", 1) => strict!("reverse", |a| {
            Ok(text(
                str_arg("reverse", a, 0)?.chars().rev().collect::<String>(),
            ))
        }),
        ("md5", 1) => strict!("md5", |a| md5(a)),
        ("booleq", 2) => strict!("booleq", |a| Ok(Value::Bool(a[0] == a[1]))),
        ("boolne", 2) => strict!("boolne", |a| Ok(Value::Bool(a[0] != a[1]))),
        ("booland_statefunc", 2) => strict!("booland_statefunc", |a| Ok(Value::Bool(
            a[0] == Value::Bool(true) && a[1] == Value::Bool(true)
        ))),
        ("boolor_statefunc", 2) => strict!("boolor_statefunc", |a| Ok(Value::Bool(
            a[0] == Value::Bool(true) || a[1] == Value::Bool(true)
        ))),
        ("substr" | "substring", 2 | 3) => strict!("substr", |a| substr("substr", a)),
        ("position", 2) => strict!("position", |a| {
            strpos(str_arg("position", a, 0)?, str_arg("position", a, 1)?)
        }),
        ("strpos", 2) => strict!("strpos", |a| {
            strpos(str_arg("strpos", a, 0)?, str_arg("strpos", a, 1)?)
        }),
        ("replace", 3) => strict!("replace", |a| replace(a)),
        ("trim" | "btrim", 1 | 2) => strict!("btrim", |a| trim("btrim", a)),
        ("ltrim", 1 | 2) => strict!("ltrim", |a| trim("ltrim", a)),
        ("rtrim", 1 | 2) => strict!("rtrim", |a| trim("rtrim", a)),
        ("lpad", 2 | 3) => strict!("lpad", |a| pad("lpad", a)),
        ("rpad", 2 | 3) => strict!("rpad", |a| pad("rpad", a)),
        ("left", 2) => strict!("left", |a| left_right("left", a)),
        ("right", 2) => strict!("right", |a| left_right("right", a)),
        ("repeat", 2) => strict!("repeat", |a| repeat(a)),
        ("split_part", 3) => strict!("split_part", |a| split_part(a)),
        _ => return None,
    })
}

/// Resolve by the arguments' run-time types and call (tools and tests; the
/// executor calls the handle the planner resolved). None if `name` is not
/// a function here.
pub fn call_scalar_ctx(
    name: &str,
    args: &[Value],
    ctx: &EvalCtx,
) -> Option<Result<Value, DbError>> {
    if !is_scalar_function(name) {
        return None;
    }
    let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
    Some(resolve(name, &types).and_then(|r| r.func.call(args, ctx)))
}

fn md5(args: &[Value]) -> Result<Value, DbError> {
    match &args[0] {
        Value::Bytea(b) => Ok(text(md5_hex(b))),
        _ => Ok(text(md5_hex(str_arg("md5", args, 0)?.as_bytes()))),
    }
}

fn replace(args: &[Value]) -> Result<Value, DbError> {
    let (s, from, to) = (
        str_arg("replace", args, 0)?,
        str_arg("replace", args, 1)?,
        str_arg("replace", args, 2)?,
    );
    Ok(text(if from.is_empty() {
        s.to_string()
    } else {
        s.replace(from, to)
    }))
}

fn arg_error(name: &str, args: &[Value]) -> DbError {
    let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
    no_function(name, &types)
}

fn int_arg(name: &str, args: &[Value], i: usize) -> Result<i64, DbError> {
    args.get(i)
        .and_then(Value::as_i64)
        .ok_or_else(|| arg_error(name, args))
}

fn str_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a str, DbError> {
    match args.get(i) {
        Some(Value::Text(s)) => Ok(s),
        _ => Err(arg_error(name, args)),
    }
}

fn text(s: impl AsRef<str>) -> Value {
    Value::Text(Arc::from(s.as_ref()))
}

fn math1(name: &str, v: &Value) -> Result<Value, DbError> {
    if let Value::Numeric(n) = v {
        return Ok(Value::Numeric(match name {
            "round" => n.round(0)?,
            "trunc" => n.trunc(0)?,
            "floor" => n.floor()?,
            "ceil" | "ceiling" => n.ceil()?,
            "sign" => Numeric::from_i64(n.signum() as i64),
            "ln" => n.ln()?,
            "log10" => Numeric::log(&Numeric::from_i64(10), n)?,
            "exp" => n.exp()?,
            "cbrt" => return float_math("cbrt", n.to_f64()).map(Value::Float8),
            _ => n.sqrt()?,
        }));
    }
    let f = match v {
        Value::Float4(f) => *f as f64,
        Value::Float8(f) => *f,
        other => other
            .as_i64()
            .ok_or_else(|| arg_error(name, std::slice::from_ref(v)))? as f64,
    };
    float_math(name, f).map(Value::Float8)
}

/// log(x) and log10(x): for numeric PostgreSQL's SQL functions
/// `log(10, x)`, whose errors carry that function's CONTEXT line.
fn log10(name: &str, v: &Value) -> Result<Value, DbError> {
    let r = math1("log10", v);
    match v {
        Value::Numeric(_) => {
            r.map_err(|e| e.with_context(format!("SQL function \"{name}\" statement 1")))
        }
        _ => r,
    }
}

/// The float8 forms (dround, dsqrt, dcbrt, dlog1, dlog10, dexp ...), with
/// PostgreSQL's errors: 2201E for the logarithm of zero or of a negative
/// number, 2201F for the square root of a negative number, 22003 when a
/// finite argument gives an infinite or vanishing result.
fn float_math(name: &str, f: f64) -> Result<f64, DbError> {
    let log_arg = |f: f64| {
        if f == 0.0 {
            Err(DbError::new(
                SqlState::InvalidArgumentForLogarithm,
                "cannot take logarithm of zero",
            ))
        } else if f < 0.0 {
            Err(DbError::new(
                SqlState::InvalidArgumentForLogarithm,
                "cannot take logarithm of a negative number",
            ))
        } else {
            Ok(f)
        }
    };
    let r = match name {
        "round" => f.round_ties_even(),
        "trunc" => f.trunc(),
        "floor" => f.floor(),
        "ceil" | "ceiling" => f.ceil(),
        "sign" if f.is_nan() => f,
        "sign" => {
            if f > 0.0 {
                1.0
            } else if f < 0.0 {
                -1.0
            } else {
                0.0
            }
        }
        "cbrt" => glibc_cbrt(f),
        "ln" => log_arg(f)?.ln(),
        "log10" => log_arg(f)?.log10(),
        "exp" if f.is_nan() => f,
        "exp" if f.is_infinite() => f.max(0.0),
        "exp" => {
            let r = f.exp();
            if r.is_infinite() {
                return Err(ops::float_overflow());
            }
            if r == 0.0 {
                return Err(ops::float_underflow());
            }
            r
        }
        _ if f < 0.0 => {
            return Err(DbError::new(
                SqlState::InvalidArgumentForPowerFunction,
                "cannot take square root of a negative number",
            ))
        }
        _ => f.sqrt(),
    };
    if matches!(name, "ln" | "log10") && r == 0.0 && f != 1.0 {
        return Err(ops::float_underflow());
    }
    Ok(r)
}

/// cbrt as the C library PostgreSQL 15 is built with computes it (glibc's
/// dbl-64 s_cbrt.c: a polynomial first guess refined by one Halley step,
/// scaled by 2^(e/3)), so the last digit is PostgreSQL's: cbrt(27) is
/// 3.0000000000000004 there, where a correctly rounded cbrt gives 3.
fn glibc_cbrt(x: f64) -> f64 {
    const CBRT2: f64 = 1.259_921_049_894_873_2;
    const SQR_CBRT2: f64 = 1.587_401_051_968_199_6;
    const FACTOR: [f64; 5] = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];
    if !x.is_finite() || x == 0.0 {
        return x + x;
    }
    // frexp: |x| = xm * 2^xe with 0.5 <= xm < 1.
    let (xm, xe) = {
        let (a, shift) = if x.abs() < f64::MIN_POSITIVE {
            (x.abs() * 2f64.powi(54), 54)
        } else {
            (x.abs(), 0)
        };
        let bits = a.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i32;
        (
            f64::from_bits((bits & !(0x7ff_u64 << 52)) | (1022_u64 << 52)),
            e - 1022 - shift,
        )
    };
    let u = 0.354_895_765_043_919_84
        + ((1.508_191_937_815_849
            + ((-2.114_994_941_673_713
                + ((2.446_931_225_635_344_4
                    + ((-1.834_692_774_836_130_8
                        + (0.784_932_344_976_639_2 - 0.145_263_899_385_486_37 * xm) * xm)
                        * xm))
                    * xm))
                * xm))
            * xm);
    let t2 = u * u * u;
    let ym = u * (t2 + 2.0 * xm) / (2.0 * t2 + xm) * FACTOR[(2 + xe % 3) as usize];
    ym * 2f64.powi(xe / 3) * if x < 0.0 { -1.0 } else { 1.0 }
}

fn as_numeric(name: &str, args: &[Value], i: usize) -> Result<Numeric, DbError> {
    match &args[i] {
        Value::Numeric(n) => Ok(n.clone()),
        v => v
            .as_i64()
            .map(Numeric::from_i64)
            .ok_or_else(|| arg_error(name, args)),
    }
}

fn round_scale(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let n = as_numeric(name, args, 0)?;
    let s = int_arg(name, args, 1)?;
    Ok(Value::Numeric(if name == "round" {
        n.round(s)?
    } else {
        n.trunc(s)?
    }))
}

fn power(args: &[Value]) -> Result<Value, DbError> {
    let floaty = args
        .iter()
        .any(|v| matches!(v, Value::Float4(_) | Value::Float8(_)));
    let numeric = args.iter().any(|v| matches!(v, Value::Numeric(_)));
    if numeric && !floaty {
        let a = as_numeric("power", args, 0)?;
        let b = as_numeric("power", args, 1)?;
        return a.power(&b).map(Value::Numeric);
    }
    let f = |v: &Value| match v {
        Value::Float4(x) => Some(*x as f64),
        Value::Float8(x) => Some(*x),
        Value::Numeric(n) => Some(n.to_f64()),
        other => other.as_i64().map(|i| i as f64),
    };
    match (f(&args[0]), f(&args[1])) {
        (Some(x), Some(y)) => ops::float_arith(ops::BinaryOp::Pow, x, y).map(Value::Float8),
        _ => Err(arg_error("power", args)),
    }
}

fn length(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let n = match (&args[0], name) {
        (Value::Bytea(b), _) => b.len(),
        (Value::Text(s), "octet_length") => s.len(),
        (Value::Text(s), _) => s.chars().count(),
        _ => return Err(arg_error(name, args)),
    };
    Ok(Value::Int4(n.min(i32::MAX as usize) as i32))
}

fn substr(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let start = int_arg(name, args, 1)?;
    let count = if args.len() == 3 {
        Some(int_arg(name, args, 2)?)
    } else {
        None
    };
    if count.is_some_and(|c| c < 0) {
        return Err(DbError::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        ));
    }
    // 1-based [start, start+count) clipped to the string.
    let from = (start.max(1) - 1) as usize;
    let to = count.map(|c| start.saturating_add(c).max(1) - 1);
    let take = |len: usize| -> (usize, usize) {
        let end = to.map_or(len, |t| (t as usize).min(len));
        (from.min(len), end.max(from.min(len)))
    };
    match &args[0] {
        Value::Bytea(b) => {
            let (a, z) = take(b.len());
            Ok(Value::Bytea(Arc::from(&b[a..z])))
        }
        Value::Text(s) => {
            let (a, z) = take(usize::MAX);
            Ok(text(s.chars().skip(a).take(z - a).collect::<String>()))
        }
        _ => Err(arg_error(name, args)),
    }
}

fn strpos(haystack: &str, needle: &str) -> Result<Value, DbError> {
    Ok(Value::Int4(match haystack.find(needle) {
        Some(byte) => haystack[..byte].chars().count() as i32 + 1,
        None => 0,
    }))
}

fn trim(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let s = str_arg(name, args, 0)?;
    let set: Vec<char> = if args.len() == 2 {
        str_arg(name, args, 1)?.chars().collect()
    } else {
        vec![' ']
    };
    let pred = |c: char| set.contains(&c);
    Ok(text(match name {
        "ltrim" => s.trim_start_matches(pred),
        "rtrim" => s.trim_end_matches(pred),
        _ => s.trim_matches(pred),
    }))
}

fn too_large() -> DbError {
    DbError::new(SqlState::ProgramLimitExceeded, "requested length too large")
}

fn pad(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let s = str_arg(name, args, 0)?;
    let len = int_arg(name, args, 1)?.clamp(0, i32::MAX as i64) as usize;
    let fill = if args.len() == 3 {
        str_arg(name, args, 2)?
    } else {
        " "
    };
    let chars: Vec<char> = s.chars().collect();
    if chars.len() >= len || fill.is_empty() {
        return Ok(text(chars.iter().take(len).collect::<String>()));
    }
    if len.saturating_mul(4) > VALUE_BYTES_MAX {
        return Err(too_large());
    }
    let padding: String = fill.chars().cycle().take(len - chars.len()).collect();
    Ok(text(if name == "lpad" {
        padding + s
    } else {
        s.to_string() + &padding
    }))
}

fn left_right(name: &str, args: &[Value]) -> Result<Value, DbError> {
    let chars: Vec<char> = str_arg(name, args, 0)?.chars().collect();
    let n = int_arg(name, args, 1)?;
    let len = chars.len() as i64;
    let keep = if n >= 0 { n.min(len) } else { (len + n).max(0) } as usize;
    let slice = if name == "left" {
        &chars[..keep]
    } else {
        &chars[chars.len() - keep..]
    };
    Ok(text(slice.iter().collect::<String>()))
}

fn repeat(args: &[Value]) -> Result<Value, DbError> {
    let s = str_arg("repeat", args, 0)?;
    let n = int_arg("repeat", args, 1)?.max(0) as usize;
    if s.len().saturating_mul(n) > VALUE_BYTES_MAX {
        return Err(too_large());
    }
    Ok(text(s.repeat(n)))
}

fn split_part(args: &[Value]) -> Result<Value, DbError> {
    let s = str_arg("split_part", args, 0)?;
    let delim = str_arg("split_part", args, 1)?;
    let n = int_arg("split_part", args, 2)?;
    if n == 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "field position must not be zero",
        ));
    }
    if delim.is_empty() {
        return Ok(text(if n == 1 || n == -1 { s } else { "" }));
    }
    let parts: Vec<&str> = s.split(delim).collect();
    let idx = if n > 0 { n - 1 } else { parts.len() as i64 + n };
    Ok(text(
        usize::try_from(idx)
            .ok()
            .and_then(|i| parts.get(i))
            .copied()
            .unwrap_or(""),
    ))
}

/// Text of a concat() argument: the output function (bool is `t`).
fn concat_text(v: &Value, ctx: &EvalCtx) -> String {
    v.to_text(ctx)
}

/// 54000 once a result grows past [`VALUE_BYTES_MAX`].
pub(crate) fn check_result_len(len: usize) -> Result<(), DbError> {
    if len > VALUE_BYTES_MAX {
        return Err(too_large());
    }
    Ok(())
}

fn concat(args: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let mut out = String::new();
    for v in args.iter().filter(|v| !v.is_null()) {
        out.push_str(&concat_text(v, ctx));
        if out.len() > VALUE_BYTES_MAX {
            return Err(too_large());
        }
    }
    Ok(text(out))
}

fn concat_ws(args: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let Some((sep, rest)) = args.split_first() else {
        return Err(no_function("concat_ws", &[]));
    };
    if sep.is_null() {
        return Ok(Value::Null);
    }
    let sep = concat_text(sep, ctx);
    let parts: Vec<String> = rest
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| concat_text(v, ctx))
        .collect();
    Ok(text(parts.join(&sep)))
}

fn nullif(args: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let [a, b] = args else {
        return Err(arg_error("nullif", args));
    };
    let b = if let (Value::Text(_), false) = (b, matches!(a, Value::Text(_))) {
        cast(b, a.data_type(), false, ctx)?
    } else {
        b.clone()
    };
    match ops::compare_in(a, &b, ctx, "=")? {
        Some(Ordering::Equal) => Ok(Value::Null),
        _ => Ok(a.clone()),
    }
}

fn extreme(args: &[Value], want: Ordering) -> Result<Value, DbError> {
    let mut best: Option<&Value> = None;
    for v in args.iter().filter(|v| !v.is_null()) {
        best = match best {
            Some(b) if compare(v, b)? != Some(want) => Some(b),
            _ => Some(v),
        };
    }
    Ok(best.cloned().unwrap_or(Value::Null))
}

/// A version-4 (random) UUID from the caller's RNG.
pub(crate) fn gen_random_uuid<R: rand::RngCore + ?Sized>(rng: &mut R) -> [u8; 16] {
    let mut u = [0u8; 16];
    rng.fill_bytes(&mut u);
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_text;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn call_scalar(name: &str, args: &[Value]) -> Option<Result<Value, DbError>> {
        call_scalar_ctx(name, args, &ctx())
    }

    fn volatility(name: &str, args: &[DataType]) -> Volatility {
        resolve(name, args).unwrap().func.volatility
    }

    fn call(name: &str, args: &[Value]) -> String {
        call_scalar(name, args).unwrap().unwrap().to_text(&ctx())
    }

    fn err(name: &str, args: &[Value]) -> (SqlState, String) {
        let e = call_scalar(name, args).unwrap().unwrap_err();
        (e.code, e.message.clone())
    }

    fn t(s: &str) -> Value {
        Value::text(s)
    }

    fn n(s: &str) -> Value {
        parse_text(DataType::NUMERIC, s, &ctx()).unwrap()
    }

    fn i(v: i32) -> Value {
        Value::Int4(v)
    }

    #[test]
    fn math_like_postgres() {
        assert_eq!(call("round", &[Value::Float8(2.5)]), "2");
        assert_eq!(call("round", &[n("2.5")]), "3");
        assert_eq!(call("round", &[n("-2.5")]), "-3");
        assert_eq!(call("trunc", &[Value::Float8(2.7)]), "2");
        assert_eq!(call("round", &[n("1.2345"), i(2)]), "1.23");
        assert_eq!(call("round", &[n("1.5"), i(-1)]), "0");
        assert_eq!(call("trunc", &[n("1234.5"), i(-2)]), "1200");
        assert_eq!(call("mod", &[n("-7.5"), i(2)]), "-1.5");
        assert_eq!(call("power", &[i(2), i(3)]), "8");
        assert_eq!(call("sqrt", &[i(2)]), "1.4142135623730951");
        assert_eq!(call("cbrt", &[i(27)]), "3.0000000000000004");
        assert_eq!(call("cbrt", &[Value::Float8(-8.0)]), "-2");
        assert_eq!(call("cbrt", &[Value::Float8(2.5)]), "1.3572088082974532");
        assert_eq!(
            call("cbrt", &[Value::Float8(5e-324)]),
            "1.7031839360032601e-108"
        );
        assert_eq!(call("ln", &[i(2)]), "0.6931471805599453");
        assert_eq!(
            err("ln", &[Value::Float8(0.0)]).1,
            "cannot take logarithm of zero"
        );
        assert_eq!(call("sqrt", &[Value::Float8(4.0)]), "2");
        assert_eq!(call("ceil", &[Value::Float8(-1.5)]), "-1");
        assert_eq!(call("floor", &[n("-0.5")]), "-1");
        assert_eq!(call("ceil", &[n("-0.5")]), "0");
        assert_eq!(call("abs", &[Value::Int2(-5)]), "5");
        assert_eq!(
            err("sqrt", &[Value::Float8(-1.0)]).1,
            "cannot take square root of a negative number"
        );
        assert_eq!(
            call_scalar("round", &[Value::Null]).unwrap().unwrap(),
            Value::Null
        );
        use DataType as T;
        let rt = |name: &str, a: &[T]| scalar_return_type(name, a).unwrap();
        assert_eq!(rt("round", &[T::Int4]), T::Float8);
        assert_eq!(rt("sqrt", &[T::Int4]), T::Float8);
        assert_eq!(rt("power", &[T::Int4, T::Int4]), T::Float8);
        assert_eq!(rt("mod", &[T::Int4, T::Int4]), T::Int4);
        assert_eq!(rt("floor", &[T::Int4]), T::Float8);
        assert_eq!(rt("abs", &[T::Int2]), T::Int2);
        assert_eq!(rt("ceil", &[T::NUMERIC]), T::NUMERIC);
        assert_eq!(rt("greatest", &[T::Int4, T::NUMERIC]), T::NUMERIC);
        assert_eq!(rt("coalesce", &[T::Unknown, T::Unknown]), T::Text);
        let e = scalar_return_type("round", &[T::Float8, T::Int4]).unwrap_err();
        assert_eq!(
            e.message,
            "function round(double precision, integer) does not exist"
        );
        assert_eq!(
            scalar_return_type("nosuch", &[]).unwrap_err().code,
            SqlState::UndefinedFunction
        );
        assert_eq!(
            scalar_return_type("COALESCE", &[T::Int4, T::Text])
                .unwrap_err()
                .message,
            "COALESCE types integer and text cannot be matched"
        );
    }

    #[test]
    fn strings_like_postgres() {
        assert_eq!(
            call(
                "concat",
                &[
                    t("a"),
                    Value::Bool(true),
                    Value::Null,
                    n("1.50"),
                    Value::Float8(2.0)
                ]
            ),
            "at1.502"
        );
        assert_eq!(
            call("concat_ws", &[t(","), t("a"), Value::Null, t("b")]),
            "a,b"
        );
        assert_eq!(
            call_scalar("concat_ws", &[Value::Null, t("a")])
                .unwrap()
                .unwrap(),
            Value::Null
        );
        assert_eq!(call("substr", &[t("hello"), i(0), i(3)]), "he");
        assert_eq!(call("substr", &[t("hello"), i(-1)]), "hello");
        assert_eq!(call("substr", &[t("hello"), i(2)]), "ello");
        assert_eq!(call("substring", &[t("hello"), i(2), i(2)]), "el");
        assert_eq!(call("substr", &[t("héllo"), i(2), i(2)]), "él");
        assert_eq!(call("substr", &[t("hello"), i(-5), i(3)]), "");
        assert_eq!(
            call(
                "substr",
                &[t("hello"), Value::Int8(i64::MAX), Value::Int8(i64::MAX)]
            ),
            ""
        );
        assert_eq!(
            err("substr", &[t("hello"), i(1), i(-1)]).1,
            "negative substring length not allowed"
        );
        assert_eq!(call("position", &[t("hello"), t("l")]), "3");
        assert_eq!(call("strpos", &[t("hello"), t("")]), "1");
        assert_eq!(call("strpos", &[t("héllo"), t("l")]), "3");
        assert_eq!(call("position", &[t("hello"), t("z")]), "0");
        assert_eq!(call("length", &[t("héllo")]), "5");
        assert_eq!(call("octet_length", &[t("héllo")]), "6");
        assert_eq!(call("lpad", &[t("hi"), i(5)]), "   hi");
        assert_eq!(call("lpad", &[t("hi"), i(5), t("xy")]), "xyxhi");
        assert_eq!(call("lpad", &[t("hello"), i(3)]), "hel");
        assert_eq!(call("rpad", &[t("hi"), i(5), t("xy")]), "hixyx");
        assert_eq!(call("lpad", &[t("hi"), i(-1)]), "");
        assert_eq!(call("lpad", &[t("hi"), i(5), t("")]), "hi");
        assert_eq!(call("left", &[t("hello"), i(2)]), "he");
        assert_eq!(call("left", &[t("hello"), i(-2)]), "hel");
        assert_eq!(call("right", &[t("hello"), i(2)]), "lo");
        assert_eq!(call("right", &[t("hello"), i(-2)]), "llo");
        assert_eq!(call("repeat", &[t("ab"), i(3)]), "ababab");
        assert_eq!(call("repeat", &[t("ab"), i(-1)]), "");
        assert_eq!(
            err("repeat", &[t("ab"), i(i32::MAX)]).0,
            SqlState::ProgramLimitExceeded
        );
        assert_eq!(call("reverse", &[t("héllo")]), "olléh");
        assert_eq!(call("split_part", &[t("a,b,c"), t(","), i(2)]), "b");
        assert_eq!(call("split_part", &[t("a,b,c"), t(","), i(-1)]), "c");
        assert_eq!(call("split_part", &[t("a,b,c"), t(","), i(5)]), "");
        assert_eq!(call("split_part", &[t("abc"), t(""), i(1)]), "abc");
        assert_eq!(call("split_part", &[t("abc"), t(""), i(2)]), "");
        assert_eq!(
            err("split_part", &[t("a,b"), t(","), i(0)]),
            (
                SqlState::InvalidParameterValue,
                "field position must not be zero".into()
            )
        );
        assert_eq!(call("btrim", &[t("xxhixx"), t("x")]), "hi");
        assert_eq!(call("trim", &[t("  hi  ")]), "hi");
        assert_eq!(call("ltrim", &[t("  hi")]), "hi");
        assert_eq!(call("rtrim", &[t("hi  ")]), "hi");
        assert_eq!(call("replace", &[t("hello"), t("l"), t("L")]), "heLLo");
        assert_eq!(call("replace", &[t("hello"), t(""), t("x")]), "hello");
        assert_eq!(call("md5", &[t("abc")]), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(call("upper", &[t("héllo")]), "HÉLLO");
        assert_eq!(call("lower", &[t("HÉLLO")]), "héllo");
        assert!(call_scalar("no_such_fn", &[]).is_none());
    }

    #[test]
    fn conditionals_and_uuid() {
        assert_eq!(call("greatest", &[i(1), n("2.5"), Value::Null]), "2.5");
        assert_eq!(call("least", &[i(3), Value::Null, i(1)]), "1");
        assert_eq!(call("coalesce", &[Value::Null, i(2), i(3)]), "2");
        assert_eq!(
            call_scalar("nullif", &[i(1), i(1)]).unwrap().unwrap(),
            Value::Null
        );
        assert_eq!(call("nullif", &[i(1), i(2)]), "1");
        assert_eq!(
            call_scalar("greatest", &[Value::Null]).unwrap().unwrap(),
            Value::Null
        );
        let u = call("gen_random_uuid", &[]);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(volatility("gen_random_uuid", &[]), Volatility::Volatile);
        assert_eq!(
            volatility("Lower", &[DataType::Text]),
            Volatility::Immutable
        );
        assert_eq!(call("div", &[n("-7.5"), i(2)]), "-3");
        assert_eq!(call("div", &[n("9"), n("0.4")]), "22");
    }
}
