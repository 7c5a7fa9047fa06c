//! Value operations the executor needs: text input/output, casts,
//! arithmetic and comparison, with PostgreSQL's error texts.
//!
//! This module is the one seam between the query engine and the types
//! crate's value semantics. Everything that depends on the session (time
//! zone, transaction timestamp) takes the statement's [`EvalCtx`]
//! explicitly: no session state travels through thread-locals.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};
use nestor_types::context::EvalCtx;
use nestor_types::datatype::DataType;
use nestor_types::ops::{self, BinaryOp};
use nestor_types::{Numeric, Value};

pub(crate) fn numeric_value(n: Numeric) -> Value {
    Value::Numeric(n)
}

/// A boolean value's truth (None for NULL and non-booleans).
pub fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// AND (`decisive` false) or OR (`decisive` true) of `items`, each
/// evaluated by `eval` in turn: the decisive value ends the evaluation;
/// otherwise any NULL makes the result NULL. The executor and the pure
/// evaluator of index expressions share it.
pub fn and_or<T>(
    items: &[T],
    decisive: bool,
    mut eval: impl FnMut(&T) -> Result<Value, DbError>,
) -> Result<Value, DbError> {
    let mut unknown = false;
    for e in items {
        match truthy(&eval(e)?) {
            Some(b) if b == decisive => return Ok(Value::Bool(decisive)),
            None => unknown = true,
            Some(_) => {}
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(!decisive)
    })
}

/// PostgreSQL's text output of a value (None for NULL).
pub fn to_text(v: &Value, c: &EvalCtx) -> Option<String> {
    if v.is_null() {
        return None;
    }
    Some(v.to_text(c))
}

/// Render for messages (the 23505 DETAIL): NULL shows as `null`.
pub fn render(v: &Value, c: &EvalCtx) -> String {
    to_text(v, c).unwrap_or_else(|| "null".into())
}

pub fn cannot_cast(from: DataType, to: DataType) -> DbError {
    DbError::new(
        SqlState::CannotCoerce,
        format!("cannot cast type {} to {}", from, to),
    )
}

/// Cast `v` to `ty`; `explicit` (CAST/::) truncates strings to their
/// length, assignment (false) fails with 22001.
pub fn cast(v: Value, ty: DataType, explicit: bool, c: &EvalCtx) -> Result<Value, DbError> {
    if v.is_null() || ty == DataType::Unknown {
        return Ok(v);
    }
    nestor_types::cast::cast(&v, ty, explicit, c)
}

pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64(),
        _ => None,
    }
}

pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Numeric(n) => Some(n.to_f64()),
        _ => v.as_f64(),
    }
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// `a op b` (operands coerced by the binder; `ty` is the result type).
pub fn arith(op: Arith, a: &Value, b: &Value, c: &EvalCtx) -> Result<Value, DbError> {
    let bop = match op {
        Arith::Add => BinaryOp::Add,
        Arith::Sub => BinaryOp::Sub,
        Arith::Mul => BinaryOp::Mul,
        Arith::Div => BinaryOp::Div,
        Arith::Mod => BinaryOp::Mod,
    };
    if let Some(r) = ops::same_int_arith(bop, a, b) {
        return r;
    }
    ops::binary_op(bop, a, b, c)
}

/// Unary minus.
pub fn negate(v: &Value) -> Result<Value, DbError> {
    ops::negate(v)
}

/// Compare two non-null values (of comparable types).
pub fn compare(a: &Value, b: &Value, c: &EvalCtx) -> Ordering {
    match ops::compare_in(a, b, c, "=") {
        Ok(Some(o)) => o,
        _ => a.cmp(b),
    }
}

/// Two rows compared field by field as PostgreSQL compares row
/// constructors (RowCompareExpr, and `=` / `<>` as the AND / OR of the
/// fields' comparisons): `=` is false at the first unequal pair of
/// non-NULL fields, else NULL if a field is NULL; `<>` is its negation;
/// `<`, `<=`, `>`, `>=` are decided by the first pair that differs, and
/// are NULL if a NULL field is reached before that. None is NULL.
pub fn row_compare(op: Cmp, a: &[Value], b: &[Value], c: &EvalCtx) -> Option<bool> {
    match op {
        Cmp::Eq | Cmp::Ne => {
            let mut unknown = false;
            for (x, y) in a.iter().zip(b) {
                if x.is_null() || y.is_null() {
                    unknown = true;
                } else if !compare(x, y, c).is_eq() {
                    return Some(op == Cmp::Ne);
                }
            }
            (!unknown).then_some(op == Cmp::Eq)
        }
        _ => {
            for (x, y) in a.iter().zip(b) {
                if x.is_null() || y.is_null() {
                    return None;
                }
                let o = compare(x, y, c);
                if !o.is_eq() {
                    return Some(op.holds(o));
                }
            }
            Some(op.holds(Ordering::Equal))
        }
    }
}

/// SQL LIKE with `%` and `_` and backslash escapes; a pattern ending in
/// the escape character is 22025.
pub fn like(s: &str, pat: &str, ci: bool) -> Result<bool, DbError> {
    ops::like(s, pat, Some('\\'), ci)
}

/// `x LIKE p` of two LIKE operands: text (or char) with text, bytea with
/// bytea (byte by byte: each byte is read as the Latin-1 character of its
/// value, so `_` matches one byte); NULL for anything else.
pub fn like_values(x: &Value, p: &Value, ci: bool, negated: bool) -> Result<Value, DbError> {
    use nestor_types::bytea_fns::latin1;
    Ok(match (x, p) {
        (Value::Text(s), Value::Text(p)) => Value::Bool(like(s, p, ci)? != negated),
        (Value::Bytea(s), Value::Bytea(p)) => {
            Value::Bool(like(&latin1(s), &latin1(p), ci)? != negated)
        }
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_comparison_like_postgresql() {
        let c = EvalCtx::utc_now();
        let i = Value::Int4;
        let rc = |op, a: &[Value], b: &[Value]| row_compare(op, a, b, &c);
        assert_eq!(rc(Cmp::Lt, &[i(1), i(2)], &[i(1), i(3)]), Some(true));
        assert_eq!(rc(Cmp::Lt, &[i(1), i(2)], &[i(1), Value::Null]), None);
        // The NULL after the deciding pair is not examined.
        assert_eq!(
            rc(Cmp::Lt, &[i(1), i(2), i(3)], &[i(1), i(3), Value::Null]),
            Some(true)
        );
        assert_eq!(
            rc(Cmp::Eq, &[i(1), i(2), i(3)], &[i(1), Value::Null, i(4)]),
            Some(false)
        );
        assert_eq!(
            rc(Cmp::Ne, &[i(1), i(2), i(3)], &[i(1), Value::Null, i(4)]),
            Some(true)
        );
        assert_eq!(rc(Cmp::Eq, &[i(1), Value::Null], &[i(1), i(2)]), None);
        assert_eq!(rc(Cmp::Ge, &[i(1), i(2)], &[i(1), i(2)]), Some(true));
    }

    #[test]
    fn like_patterns() {
        assert!(like("hello", "h%o", false).unwrap());
        assert!(like("hello", "_ello", false).unwrap());
        assert!(!like("hello", "h%x", false).unwrap());
        assert!(like("HeLLo", "hello", true).unwrap());
        assert!(like("a%b", "a\\%b", false).unwrap());
        assert!(like("", "%", false).unwrap());
        assert_eq!(
            like("ab", "a\\", false).unwrap_err().code,
            SqlState::InvalidEscapeSequence
        );
        let b = |s: &[u8]| Value::Bytea(s.into());
        let m = |x: &[u8], p: &[u8]| like_values(&b(x), &b(p), false, false).unwrap();
        assert_eq!(m(b"abc", b"_b_"), Value::Bool(true));
        assert_eq!(m(b"\xff\x00z", b"__z"), Value::Bool(true));
        assert_eq!(m(b"\xff\x00z", b"_z"), Value::Bool(false));
    }

    #[test]
    fn assignment_cast_does_not_truncate() {
        let c = EvalCtx::utc_now();
        let e = cast(
            Value::Text("abcdef".into()),
            DataType::Varchar(Some(3)),
            false,
            &c,
        )
        .unwrap_err();
        assert_eq!(e.code, SqlState::StringDataRightTruncation);
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn holds(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Cmp::Eq => o == Equal,
            Cmp::Ne => o != Equal,
            Cmp::Lt => o == Less,
            Cmp::Le => o != Greater,
            Cmp::Gt => o == Greater,
            Cmp::Ge => o != Less,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "=",
            Cmp::Ne => "<>",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub fn flip(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }
}
