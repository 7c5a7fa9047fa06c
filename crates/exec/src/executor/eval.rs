//! Expression evaluation: a plain recursive interpreter over a row slice.
//!
//! Everything that needs the statement's state (functions like nextval()
//! or now(), subqueries, parameters) goes through [`Ev`], the per-execution
//! context. Three-valued logic follows SQL: AND/OR short-circuit on a
//! decisive operand and yield NULL when undecided.
//!
//! ```text
//!   WHERE a > 1 AND b IS NULL   on row (a=5, b=NULL)
//!   And[Cmp(Gt, Col 0, Const 1), IsNull(Col 1)]
//!     Cmp  -> compare(5, 1) = Greater -> true
//!     IsNull(NULL)                    -> true      => true
//! ```
//!
//! Comparisons, IS DISTINCT FROM, IN lists and LIKE read a column or
//! constant operand where it is (`operand`: no clone of a string's `Arc`
//! per row); a comparison of two leaves needs no stack-depth check, and
//! two integers (any widths) compare by value directly, as
//! `valops::compare` would.

use std::borrow::Cow;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{BoolTest, Cmp, Expr};
use nestor_plan::valops;
use nestor_types::Value;

use crate::context::Ev;

pub(crate) use nestor_plan::valops::truthy;

fn bool_val(b: Option<bool>) -> Value {
    b.map_or(Value::Null, Value::Bool)
}

/// Evaluation of bound expressions.
pub(crate) trait Eval {
    fn eval(&self, row: &[Value], ev: &mut Ev) -> Result<Value, DbError>;

    /// Evaluate as a predicate: NULL counts as false.
    fn test(&self, row: &[Value], ev: &mut Ev) -> Result<bool, DbError> {
        Ok(truthy(&self.eval(row, ev)?) == Some(true))
    }
}

impl Eval for Expr {
    fn test(&self, row: &[Value], ev: &mut Ev) -> Result<bool, DbError> {
        match self {
            Expr::Cmp(op, a, b) => {
                if let Some(holds) = int_test(*op, a, b, row, ev)? {
                    return Ok(holds);
                }
            }
            // An AND is true when every item is, an OR when one is: each
            // item is tested without building its value. Stopping at an
            // item that is NULL rather than false skips the items after
            // it, which PostgreSQL leaves free too (the order in which a
            // condition's parts run is not defined; see "Expression
            // Evaluation Rules" in its manual).
            Expr::And(items) => {
                nestor_common::stack::check()?;
                for e in items {
                    if !e.test(row, ev)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            Expr::Or(items) => {
                nestor_common::stack::check()?;
                for e in items {
                    if e.test(row, ev)? {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            _ => {}
        }
        Ok(truthy(&self.eval(row, ev)?) == Some(true))
    }

    fn eval(&self, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
        match self {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Param(i) => param(*i, ev),
            Expr::Col(i) => Ok(row[*i].clone()),
            // `col op constant` does not recurse: no stack check.
            Expr::Cmp(op, a, b) if leaf(a) && leaf(b) => compare(*op, a, b, row, ev),
            // Nor does `col + constant`, whose operands are read in place.
            Expr::Arith(op, a, b, _) => match (leaf_ref(a, row), leaf_ref(b, row)) {
                (Some(x), Some(y)) => valops::arith(*op, x, y, &ev.ctx.eval),
                _ => {
                    nestor_common::stack::check()?;
                    eval_node(self, row, ev)
                }
            },
            _ => {
                nestor_common::stack::check()?;
                eval_node(self, row, ev)
            }
        }
    }
}

/// A value (`v[0]`) coerced to a domain must pass its NOT NULL and CHECK
/// constraints (a CHECK that is NULL passes, as in a table).
pub(crate) fn check_domain(
    d: &nestor_plan::ir::DomainChecks,
    v: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    use nestor_plan::bind::domain::domain_violation;
    if !d.parts.is_empty() && !v[0].is_null() {
        check_parts(&d.parts, &v[0], ev)?;
    }
    if d.not_null && v[0].is_null() {
        return Err(domain_violation(&d.domain, None));
    }
    for (name, c) in &d.checks {
        if truthy(&c.eval(v, ev)?) == Some(false) {
            return Err(domain_violation(&d.domain, Some(name)));
        }
    }
    Ok(())
}

/// `v` against `d`: itself, or each of its elements when `d` is of an
/// array's elements.
fn check_value(d: &nestor_plan::ir::DomainChecks, v: &Value, ev: &mut Ev) -> Result<(), DbError> {
    if !d.elements {
        return check_domain(d, std::slice::from_ref(v), ev);
    }
    if let Value::Array(a) = v {
        for item in &a.items {
            check_domain(d, std::slice::from_ref(item), ev)?;
        }
    }
    Ok(())
}

/// The fields or elements of `v` (not NULL) against the checks of the
/// domains declared inside its type.
fn check_parts(
    parts: &[(nestor_plan::ir::DomainPart, nestor_plan::ir::DomainChecks)],
    v: &Value,
    ev: &mut Ev,
) -> Result<(), DbError> {
    use nestor_plan::ir::DomainPart;
    for (part, c) in parts {
        match (part, v) {
            (DomainPart::Field(i), Value::Record(f)) => {
                if let Some(x) = f.get(*i) {
                    check_value(c, x, ev)?;
                }
            }
            (DomainPart::Elements, Value::Array(a)) => {
                for item in &a.items {
                    if !item.is_null() {
                        check_value(c, item, ev)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A column or a constant: evaluated without evaluating anything else.
fn leaf(e: &Expr) -> bool {
    matches!(e, Expr::Col(_) | Expr::Const(_))
}

/// An integer of any width, as [`valops::compare`] compares them: by
/// value.
fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    }
}

/// A WHERE clause's `a op b` over integers at hand (`aid = 5`,
/// `aid % 7 = 0`: columns, constants, and arithmetic over two of those),
/// decided without building values; NULL is not true. None: not such a
/// comparison, evaluate it in general. Operands are evaluated in the
/// general path's order, and the arithmetic is the general path's
/// (`valops::arith`: same results, same errors).
fn int_test(op: Cmp, a: &Expr, b: &Expr, row: &[Value], ev: &Ev) -> Result<Option<bool>, DbError> {
    let x = match int_operand(a, row, ev)? {
        IntOperand::Int(x) => x,
        IntOperand::Null => return Ok(Some(false)),
        IntOperand::Other => return Ok(None),
    };
    Ok(match int_operand(b, row, ev)? {
        IntOperand::Int(y) => Some(op.holds(x.cmp(&y))),
        IntOperand::Null => Some(false),
        IntOperand::Other => None,
    })
}

/// What [`int_test`] makes of an operand.
enum IntOperand {
    Int(i64),
    Null,
    /// Not an integer leaf, or not integer arithmetic over two.
    Other,
}

/// A column's or a constant's value, borrowed.
fn leaf_ref<'a>(e: &'a Expr, row: &'a [Value]) -> Option<&'a Value> {
    match e {
        Expr::Col(i) => Some(&row[*i]),
        Expr::Const(v) => Some(v),
        _ => None,
    }
}

fn int_value(v: &Value) -> IntOperand {
    match v {
        Value::Null => IntOperand::Null,
        v => int_of(v).map_or(IntOperand::Other, IntOperand::Int),
    }
}

fn int_operand(e: &Expr, row: &[Value], ev: &Ev) -> Result<IntOperand, DbError> {
    if let Some(v) = leaf_ref(e, row) {
        return Ok(int_value(v));
    }
    let Expr::Arith(op, x, y, _) = e else {
        return Ok(IntOperand::Other);
    };
    let (Some(x), Some(y)) = (leaf_ref(x, row), leaf_ref(y, row)) else {
        return Ok(IntOperand::Other);
    };
    if matches!(int_value(x), IntOperand::Other) || matches!(int_value(y), IntOperand::Other) {
        return Ok(IntOperand::Other);
    }
    Ok(int_value(&valops::arith(*op, x, y, &ev.ctx.eval)?))
}

/// Eval of the nodes with children (checked for stack depth first).
fn eval_node(e: &Expr, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    match e {
        Expr::Const(v) => Ok(v.clone()),
        Expr::Param(i) => param(*i, ev),
        Expr::Col(i) => Ok(row[*i].clone()),
        Expr::Outer { level, col } => Ok(ev.outer[*level][*col].clone()),
        Expr::Arith(op, a, b, _) => {
            let x = a.eval(row, ev)?;
            let y = b.eval(row, ev)?;
            valops::arith(*op, &x, &y, &ev.ctx.eval)
        }
        Expr::Neg(a) => valops::negate(&a.eval(row, ev)?),
        Expr::Cmp(op, a, b) => compare(*op, a, b, row, ev),
        Expr::Distinct(a, b, negated) => distinct(a, b, *negated, row, ev),
        Expr::Not(a) => Ok(bool_val(truthy(&a.eval(row, ev)?).map(|b| !b))),
        Expr::And(v) => valops::and_or(v, false, |e| e.eval(row, ev)),
        Expr::Or(v) => valops::and_or(v, true, |e| e.eval(row, ev)),
        Expr::IsNull(a, negated) => Ok(Value::Bool(match a.eval(row, ev)? {
            // A row is NULL when all its fields are, NOT NULL when none is.
            Value::Record(f) if *negated => f.iter().all(|v| !v.is_null()),
            Value::Record(f) => f.iter().all(Value::is_null),
            v => v.is_null() != *negated,
        })),
        Expr::BoolTest(a, t) => Ok(Value::Bool(bool_test(*t, truthy(&a.eval(row, ev)?)))),
        Expr::Cast(a, t) => valops::cast(a.eval(row, ev)?, *t, true, &ev.ctx.eval),
        Expr::Domain(d) => {
            let v = d.arg.eval(row, ev)?;
            check_value(&d.checks, &v, ev).map_err(|e| match d.at {
                Some(p) if e.position.is_none() => e.with_position(p),
                _ => e,
            })?;
            Ok(v)
        }
        Expr::Case {
            operand,
            whens,
            else_,
        } => case(operand.as_deref(), whens, else_.as_deref(), row, ev),
        Expr::Coalesce(v) => coalesce(v, row, ev),
        Expr::Grouping(v) => grouping(v, row, ev),
        Expr::MinMax(v, greatest) => min_max(v, *greatest, row, ev),
        Expr::NullIf(a, b) => null_if(a, b, row, ev),
        Expr::InList { lhs, list, negated } => in_list(lhs, list, *negated, row, ev),
        Expr::Like {
            lhs,
            pattern,
            ci,
            negated,
        } => like(lhs, pattern, *ci, *negated, row, ev),
        Expr::Concat(a, b) => concat(a, b, row, ev),
        Expr::Func(f, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(row, ev)?);
            }
            crate::functions::call(*f, vals, ev)
        }
        Expr::UserFunc(f, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(row, ev)?);
            }
            match (crate::ROUTINES.call)(&f.0, vals, ev.ctx)? {
                crate::context::Outcome::Value(v) => Ok(v),
                // A set-returning function (only under a select list's
                // unnest): its rows as an array.
                crate::context::Outcome::Rows(rows) if f.0.retset => {
                    rows_array(&f.0, rows, &ev.ctx.eval)
                }
                // OUT arguments: the row as a record.
                crate::context::Outcome::Rows(rows)
                    if matches!(f.0.returns, nestor_catalog::Returns::Row(_)) =>
                {
                    Ok(rows
                        .into_iter()
                        .next()
                        .map_or(Value::Null, |r| Value::Record(r.into())))
                }
                // A table's row type: the first row's columns as a value
                // of it (or the row's one column when it already is one).
                crate::context::Outcome::Rows(rows)
                    if matches!(f.0.returns, nestor_catalog::Returns::RowType(_)) =>
                {
                    row_type_value(&f.0, rows, &ev.ctx.eval)
                }
                crate::context::Outcome::Rows(rows) => Ok(rows
                    .into_iter()
                    .next()
                    .and_then(|r| r.into_iter().next())
                    .unwrap_or(Value::Null)),
            }
        }
        Expr::Sub(s) => super::eval_subquery(s, row, ev),
        Expr::Agg(_) => Err(DbError::new(
            SqlState::GroupingError,
            "aggregate functions are not allowed here",
        )),
        Expr::Window(_) => Err(DbError::new(
            SqlState::WindowingError,
            "window functions are not allowed here",
        )),
    }
}

/// A function returning a table's row type, called in an expression:
/// its first row as a value of that type (NULL without one).
fn row_type_value(
    def: &nestor_catalog::FunctionDef,
    rows: Vec<Vec<Value>>,
    ec: &nestor_types::EvalCtx,
) -> Result<Value, DbError> {
    let nestor_catalog::Returns::RowType(rel) = def.returns else {
        return Err(DbError::internal("not a row-type function"));
    };
    let Some(row) = rows.into_iter().next() else {
        return Ok(Value::Null);
    };
    let v = match row.as_slice() {
        [Value::Record(_)] => row.into_iter().next().expect("one value"),
        _ => Value::Record(row.into()),
    };
    match nestor_types::composites::type_for_oid(rel.0) {
        Some(t) if !v.is_null() => valops::cast(v, t, false, ec),
        _ => Ok(v),
    }
}

/// A set-returning user function's rows as one array: its values, or
/// records of its columns (of its composite type, when it names one).
fn rows_array(
    def: &nestor_catalog::FunctionDef,
    rows: Vec<Vec<Value>>,
    ec: &nestor_types::EvalCtx,
) -> Result<Value, DbError> {
    use nestor_types::datatype::{record_type, DataType};
    let (scalar, composite) = match def.returns {
        nestor_catalog::Returns::Scalar(t @ DataType::Record(rt)) if rt.oid != 0 => (None, Some(t)),
        nestor_catalog::Returns::Scalar(DataType::Record(_)) => (None, None),
        nestor_catalog::Returns::Scalar(t) => (Some(t), None),
        _ => (None, None),
    };
    let mut items = Vec::with_capacity(rows.len());
    for r in rows {
        items.push(match (scalar, composite) {
            (Some(_), _) => r.into_iter().next().unwrap_or(Value::Null),
            // A row of the fields, or the one record itself.
            (None, Some(t)) => {
                let v = match r.as_slice() {
                    [Value::Record(_)] => r.into_iter().next().expect("one value"),
                    _ => Value::Record(r.into()),
                };
                valops::cast(v, t, false, ec)?
            }
            (None, None) => Value::Record(r.into()),
        });
    }
    let elem = scalar
        .or(composite)
        .unwrap_or(DataType::Record(record_type(Vec::new())));
    Ok(nestor_types::array::Array::from_items(elem.base(), items).value())
}

fn param(i: usize, ev: &Ev) -> Result<Value, DbError> {
    ev.params.get(i).cloned().ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedParameter,
            format!("there is no parameter ${}", i + 1),
        )
    })
}

/// An operand's value, borrowed when it is a column of the row or a
/// constant (the common `col op constant`: no clone of a string's `Arc`,
/// no copy per row), else evaluated.
fn operand<'a>(e: &'a Expr, row: &'a [Value], ev: &mut Ev) -> Result<Cow<'a, Value>, DbError> {
    match e {
        Expr::Col(i) => Ok(Cow::Borrowed(&row[*i])),
        Expr::Const(v) => Ok(Cow::Borrowed(v)),
        _ => e.eval(row, ev).map(Cow::Owned),
    }
}

fn compare(op: Cmp, a: &Expr, b: &Expr, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let x = operand(a, row, ev)?;
    if x.is_null() {
        return Ok(Value::Null);
    }
    let y = operand(b, row, ev)?;
    if y.is_null() {
        return Ok(Value::Null);
    }
    if let (Some(i), Some(j)) = (int_of(&x), int_of(&y)) {
        return Ok(Value::Bool(op.holds(i.cmp(&j))));
    }
    Ok(Value::Bool(op.holds(valops::compare(&x, &y, &ev.ctx.eval))))
}

/// IS [NOT] DISTINCT FROM (`negated` = IS NOT DISTINCT FROM).
fn distinct(
    a: &Expr,
    b: &Expr,
    negated: bool,
    row: &[Value],
    ev: &mut Ev,
) -> Result<Value, DbError> {
    let x = operand(a, row, ev)?;
    let y = operand(b, row, ev)?;
    let same = match (x.is_null(), y.is_null()) {
        (true, true) => true,
        (false, false) => valops::compare(&x, &y, &ev.ctx.eval).is_eq(),
        _ => false,
    };
    Ok(Value::Bool(same == negated))
}

fn bool_test(t: BoolTest, b: Option<bool>) -> bool {
    match t {
        BoolTest::True => b == Some(true),
        BoolTest::NotTrue => b != Some(true),
        BoolTest::False => b == Some(false),
        BoolTest::NotFalse => b != Some(false),
        BoolTest::Unknown => b.is_none(),
        BoolTest::NotUnknown => b.is_some(),
    }
}

fn case(
    operand: Option<&Expr>,
    whens: &[(Expr, Expr)],
    else_: Option<&Expr>,
    row: &[Value],
    ev: &mut Ev,
) -> Result<Value, DbError> {
    let op = match operand {
        Some(o) => Some(o.eval(row, ev)?),
        None => None,
    };
    for (w, t) in whens {
        let hit = match &op {
            Some(o) => {
                let x = w.eval(row, ev)?;
                !o.is_null() && !x.is_null() && valops::compare(o, &x, &ev.ctx.eval).is_eq()
            }
            None => w.test(row, ev)?,
        };
        if hit {
            return t.eval(row, ev);
        }
    }
    match else_ {
        Some(e) => e.eval(row, ev),
        None => Ok(Value::Null),
    }
}

fn coalesce(v: &[Expr], row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    for e in v {
        let x = e.eval(row, ev)?;
        if !x.is_null() {
            return Ok(x);
        }
    }
    Ok(Value::Null)
}

/// GROUPING() after aggregation: `[mask, positions...]` (see
/// nestor_plan's select::grouping); one bit per argument, the first the
/// highest.
fn grouping(v: &[Expr], row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let Some((mask, positions)) = v.split_first() else {
        return Err(DbError::internal("GROUPING() without its mask"));
    };
    let Value::Int8(mask) = mask.eval(row, ev)? else {
        return Err(DbError::internal("GROUPING() read outside an aggregation"));
    };
    let mut out = 0i32;
    for p in positions {
        let Value::Int4(i) = p.eval(row, ev)? else {
            return Err(DbError::internal("GROUPING() position is not an int"));
        };
        out = (out << 1) | ((mask >> i) & 1) as i32;
    }
    Ok(Value::Int4(out))
}

/// GREATEST (`greatest`) / LEAST: NULLs are ignored.
fn min_max(v: &[Expr], greatest: bool, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let mut best = Value::Null;
    for e in v {
        let x = e.eval(row, ev)?;
        if x.is_null() {
            continue;
        }
        let better = best.is_null() || {
            let o = valops::compare(&x, &best, &ev.ctx.eval);
            if greatest {
                o.is_gt()
            } else {
                o.is_lt()
            }
        };
        if better {
            best = x;
        }
    }
    Ok(best)
}

fn null_if(a: &Expr, b: &Expr, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let x = a.eval(row, ev)?;
    let y = b.eval(row, ev)?;
    if !x.is_null() && !y.is_null() && valops::compare(&x, &y, &ev.ctx.eval).is_eq() {
        Ok(Value::Null)
    } else {
        Ok(x)
    }
}

fn in_list(
    lhs: &Expr,
    list: &[Expr],
    negated: bool,
    row: &[Value],
    ev: &mut Ev,
) -> Result<Value, DbError> {
    let x = operand(lhs, row, ev)?;
    if x.is_null() {
        return Ok(Value::Null);
    }
    let mut unknown = false;
    for e in list {
        let y = operand(e, row, ev)?;
        if y.is_null() {
            unknown = true;
        } else if valops::compare(&x, &y, &ev.ctx.eval).is_eq() {
            return Ok(Value::Bool(!negated));
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(negated)
    })
}

fn like(
    lhs: &Expr,
    pattern: &Expr,
    ci: bool,
    negated: bool,
    row: &[Value],
    ev: &mut Ev,
) -> Result<Value, DbError> {
    let x = operand(lhs, row, ev)?;
    let p = operand(pattern, row, ev)?;
    valops::like_values(&x, &p, ci, negated)
}

fn concat(a: &Expr, b: &Expr, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let x = a.eval(row, ev)?;
    let y = b.eval(row, ev)?;
    if let (Value::Bytea(l), Value::Bytea(r)) = (&x, &y) {
        return Ok(Value::Bytea(Arc::from([&l[..], &r[..]].concat())));
    }
    match (
        valops::to_text(&x, &ev.ctx.eval),
        valops::to_text(&y, &ev.ctx.eval),
    ) {
        (Some(s), Some(t)) => Ok(Value::Text(Arc::from(s + &t))),
        _ => Ok(Value::Null),
    }
}
