//! Calls of user-defined functions and procedures (CREATE FUNCTION):
//! choosing among overloads, named arguments, defaults, result types.
//!
//! Resolution follows PostgreSQL's rules in a simplified form: a candidate
//! takes the call's arguments positionally, then by name (`f(a => 1)`),
//! and fills the rest from DEFAULTs; each given argument must convert to
//! the declared type implicitly (an unknown literal converts to anything,
//! numbers only widen: int2 < int4 < int8 < numeric < real < double, the
//! string types convert among themselves). Of the candidates left, the one
//! with the most exact type matches wins; among tied ones, where an
//! unknown literal is given, those taking a string there are preferred
//! (PostgreSQL's string-category rule); a tie left is 42725 "function ...
//! is not unique", none is 42883 "function ... does not exist".
//!
//! A VARIADIC argument takes the call's remaining arguments one by one,
//! packed into an array of its element type (`f(1, 2, 3)`), or the array
//! itself when the call says so (`f(VARIADIC ARRAY[1, 2])`); only then,
//! as in PostgreSQL.
//!
//! In an expression, a function with several OUT arguments returns its
//! row as an anonymous record of them (`SELECT dup(22)`, `(dup(22)).f3`),
//! and one returning `record` a record without field names. A
//! set-returning one in a select list is `unnest` of the array its call
//! collects its rows into (`SELECT array_to_set(ARRAY['a'])`).
//!
//! A polymorphic argument (`anyelement`, ...) takes any type consistent
//! with the call's other polymorphic arguments and never counts as an
//! exact match; the chosen function is then replaced by its instance for
//! the resolved types (`polymorphic.rs`), which the rest of the binder
//! and the executor see.
//!
//! Built-in functions are found first (pg_catalog precedes public on
//! PostgreSQL's search path), so a user function never shadows one.

use std::sync::Arc;

use nestor_catalog::{ArgMode, FuncArg, FunctionDef, Returns};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_types::cast::Coercion;
use nestor_types::datatype::{DataType, Poly};

use super::{node, polymorphic, AggCtx, Binder, Scope};
use crate::functions::Func;
use crate::ir::{Expr, UserFn};

/// A call's arguments as written: (name for named notation, bound
/// expression, its type).
type Given = Vec<(Option<String>, Expr, DataType)>;

fn bind_args(b: &mut Binder, args: &[pb::Node]) -> Result<Given, DbError> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        match node(a)? {
            NodeEnum::NamedArgExpr(na) => {
                let arg = na
                    .arg
                    .as_deref()
                    .ok_or_else(|| DbError::internal("named argument without a value"))?;
                let (e, t) = b.bind(arg)?;
                out.push((Some(na.name.clone()), e, t));
            }
            _ => {
                let (e, t) = b.bind(a)?;
                out.push((None, e, t));
            }
        }
    }
    Ok(out)
}

/// Rank in PostgreSQL's numeric category (implicit casts only widen).
fn numeric_rank(t: DataType) -> Option<u8> {
    Some(match t.base() {
        DataType::Int2 => 1,
        DataType::Int4 => 2,
        DataType::Int8 => 3,
        DataType::Numeric(_) => 4,
        DataType::Float4 => 5,
        DataType::Float8 => 6,
        _ => return None,
    })
}

/// Whether a value of `from` passes as `to` implicitly: Some(exact).
fn implicit(from: DataType, to: DataType) -> Option<bool> {
    if from.base() == to.base() {
        return Some(true);
    }
    if from == DataType::Unknown {
        return Some(false);
    }
    if let (Some(a), Some(b)) = (numeric_rank(from), numeric_rank(to)) {
        return (a < b).then_some(false);
    }
    if from.is_string() && to.is_string() {
        return Some(false);
    }
    // An anonymous record (a ROW(...) constructor) passes as a composite
    // type (can_coerce_type's RECORD to complex rule); the fields are cast
    // one by one, a wrong count failing there ("Input has too many
    // columns").
    if let (DataType::Record(a), DataType::Record(b)) = (from, to) {
        if a.oid == 0 && b.oid != 0 {
            return Some(false);
        }
    }
    None
}

/// The arguments a call names: a function's input arguments; every
/// argument of a procedure, OUT ones included (PostgreSQL 14+: `CALL
/// p(1, NULL)` for `p(IN a int, OUT b int)`).
fn called_args(def: &FunctionDef) -> impl Iterator<Item = &FuncArg> {
    def.args
        .iter()
        .filter(move |a| def.procedure || a.mode.is_input())
}

/// How a candidate takes a call's arguments.
struct Fit {
    /// Per called argument: the given argument feeding it (None: its
    /// DEFAULT).
    slots: Vec<Option<usize>>,
    /// Whether the last slot is a VARIADIC argument given element by
    /// element (`f(1, 2, 3)`): the given arguments from its index on.
    spread: bool,
    /// How many types match exactly.
    exact: usize,
}

/// The type each element of a VARIADIC argument of type `t` passes as.
fn variadic_element(t: DataType) -> Option<DataType> {
    match t {
        DataType::Poly(Poly::AnyArray) => Some(DataType::Poly(Poly::AnyElement)),
        DataType::Poly(Poly::AnyCompatibleArray) => Some(DataType::Poly(Poly::AnyCompatible)),
        t => t.element(),
    }
}

/// Whether a candidate takes the call's arguments, and how. A VARIADIC
/// argument takes its elements one by one, or (`VARIADIC arr` in the
/// call, `variadic`) the array itself, as PostgreSQL's candidates do.
fn fit(b: &Binder, def: &FunctionDef, given: &Given, variadic: bool) -> Option<Fit> {
    let inputs: Vec<&FuncArg> = called_args(def).collect();
    let positional = given.iter().take_while(|g| g.0.is_none()).count();
    let variadic_last = inputs.last().is_some_and(|a| a.mode == ArgMode::Variadic);
    if variadic && !variadic_last {
        return None;
    }
    let spread =
        variadic_last && !variadic && positional == given.len() && given.len() >= inputs.len();
    if positional > inputs.len() && !spread {
        return None;
    }
    let mut slots: Vec<Option<usize>> = vec![None; inputs.len()];
    for (i, slot) in slots.iter_mut().enumerate().take(positional) {
        *slot = Some(i);
    }
    for (gi, g) in given.iter().enumerate().skip(positional) {
        let name = g.0.as_deref()?;
        let i = inputs.iter().position(|a| a.name == name)?;
        if slots[i].is_some() {
            return None;
        }
        slots[i] = Some(gi);
    }
    // A VARIADIC argument takes an array only when the call says VARIADIC.
    if variadic_last && !variadic && !spread && slots.last().is_some_and(Option::is_some) {
        return None;
    }
    let mut exact = 0;
    let mut poly = Vec::new();
    let mut check = |declared: DataType, actual: DataType| -> Option<()> {
        match declared {
            // A polymorphic argument takes any type, consistently with
            // the others (checked below); it is never an exact match.
            DataType::Poly(_) => poly.push((declared, actual)),
            _ => {
                let user = || {
                    b.user_cast_allows(actual, declared, Coercion::Implicit)
                        .then_some(false)
                };
                exact += usize::from(implicit(actual, declared).or_else(user)?)
            }
        }
        Some(())
    };
    for (i, slot) in slots.iter().enumerate() {
        match slot {
            Some(gi) if spread && i + 1 == inputs.len() => {
                let elem = variadic_element(inputs[i].ty)?;
                for g in &given[*gi..] {
                    check(elem, g.2)?;
                }
            }
            Some(gi) => check(inputs[i].ty, given[*gi].2)?,
            None if inputs[i].default.is_some() => {}
            None => return None,
        }
    }
    if !poly.is_empty() && !polymorphic::consistent(&poly) {
        return None;
    }
    Some(Fit {
        slots,
        spread,
        exact,
    })
}

fn type_list(given: &Given) -> String {
    let names: Vec<String> = given
        .iter()
        .map(|g| {
            let t = g.2.name().to_string();
            match &g.0 {
                Some(n) => format!("{n} => {t}"),
                None => t,
            }
        })
        .collect();
    names.join(", ")
}

/// PostgreSQL finds this while compiling the function for the call.
fn trigger_called(def: &FunctionDef) -> DbError {
    let e = DbError::new(
        SqlState::FeatureNotSupported,
        "trigger functions can only be called as triggers",
    )
    .unpositioned();
    match def.language {
        nestor_catalog::Language::PlPgSql => e.with_context(format!(
            "compilation of PL/pgSQL function \"{}\" near line 1",
            def.name
        )),
        nestor_catalog::Language::Sql => e,
    }
}

/// Among tied candidates, where an unknown literal is given, keep those
/// taking a string there if any does (PostgreSQL's func_select_candidate
/// prefers the string category for unknowns: `f('x')` picks `f(text)`
/// over `f(int)`).
fn prefer_strings_for_unknowns(best: &mut Vec<(Arc<FunctionDef>, Fit)>, given: &Given) {
    let declared = |def: &FunctionDef, fit: &Fit, gi: usize| -> Option<DataType> {
        let slot = fit.slots.iter().position(|s| *s == Some(gi)).or_else(|| {
            // A spread VARIADIC's later elements.
            (fit.spread && fit.slots.last().copied().flatten() <= Some(gi))
                .then(|| fit.slots.len() - 1)
        })?;
        let t = called_args(def).nth(slot)?.ty;
        match fit.spread && slot + 1 == fit.slots.len() {
            true => variadic_element(t),
            false => Some(t),
        }
    };
    for (gi, g) in given.iter().enumerate() {
        if g.2 != DataType::Unknown {
            continue;
        }
        let string = |d: &(Arc<FunctionDef>, Fit)| {
            declared(&d.0, &d.1, gi).is_some_and(|t| t.is_string() && t != DataType::Unknown)
        };
        if best.iter().any(string) {
            best.retain(string);
        }
    }
}

/// A chosen function and its input arguments (defaults filled in, in
/// declaration order).
pub type Chosen = (Arc<FunctionDef>, Vec<Expr>);

/// Choose the function (or procedure) `name` for these arguments and build
/// its input argument list. Ok(None) when nothing of that name exists.
fn choose(
    b: &mut Binder,
    name: &str,
    given: &Given,
    variadic: bool,
    procedure: bool,
) -> Result<Option<Chosen>, DbError> {
    let all = b.catalog.functions(name);
    if all.is_empty() {
        return Ok(None);
    }
    let kind = if procedure { "procedure" } else { "function" };
    let mut best: Vec<(Arc<FunctionDef>, Fit)> = Vec::new();
    // Aggregates are bound as aggregates (bind::user_agg), never called.
    for def in all
        .iter()
        .filter(|d| d.procedure == procedure && d.aggregate.is_none())
    {
        if let Some(f) = fit(b, def, given, variadic) {
            match best.first().map(|x| x.1.exact) {
                Some(e) if f.exact < e => {}
                Some(e) if f.exact == e => best.push((def.clone(), f)),
                _ => best = vec![(def.clone(), f)],
            }
        }
    }
    if best.len() > 1 {
        prefer_strings_for_unknowns(&mut best, given);
    }
    let (def, fit) = match best.len() {
        1 => best.pop().expect("one"),
        0 => {
            let (code, hint) = if procedure && all.iter().any(|d| !d.procedure) {
                (
                    SqlState::WrongObjectType,
                    "To call a function, use SELECT.",
                )
            } else if !procedure && all.iter().all(|d| d.procedure) {
                (SqlState::WrongObjectType, "To call a procedure, use CALL.")
            } else {
                (
                    SqlState::UndefinedFunction,
                    "No function matches the given name and argument types. You might need to add explicit type casts.",
                )
            };
            let msg = if code == SqlState::WrongObjectType {
                format!(
                    "{name}({}) is {}",
                    type_list(given),
                    if procedure {
                        "not a procedure"
                    } else {
                        "a procedure"
                    }
                )
            } else {
                format!("{kind} {name}({}) does not exist", type_list(given))
            };
            let hint = if procedure && code == SqlState::UndefinedFunction {
                "No procedure matches the given name and argument types. You might need to add explicit type casts."
            } else {
                hint
            };
            return Err(DbError::new(code, msg).with_hint(hint));
        }
        _ => {
            return Err(DbError::new(
                SqlState::AmbiguousFunction,
                format!("{kind} {name}({}) is not unique", type_list(given)),
            )
            .with_hint(
                "Could not choose a best candidate function. You might need to add explicit type casts.",
            ))
        }
    };
    b.need(
        nestor_catalog::acl::ObjKind::Function,
        def.oid.0,
        &def.name,
        nestor_catalog::acl::EXECUTE,
    );
    let mut inputs: Vec<FuncArg> = called_args(&def).cloned().collect();
    let mut given = given.clone();
    let given_len = given.len();
    let mut take = |gi: usize| {
        let g = std::mem::replace(
            &mut given[gi],
            (
                None,
                Expr::Const(nestor_types::Value::Null),
                DataType::Unknown,
            ),
        );
        (g.1, g.2)
    };
    // Each slot's bound arguments: one, or a spread VARIADIC's elements.
    let mut bound: Vec<Vec<(Expr, DataType)>> = Vec::with_capacity(inputs.len());
    for (i, slot) in fit.slots.iter().enumerate() {
        bound.push(match slot {
            Some(gi) if fit.spread && i + 1 == inputs.len() => {
                (*gi..given_len).map(&mut take).collect()
            }
            Some(gi) => vec![take(*gi)],
            None => vec![bind_default(
                b,
                inputs[i].default.as_deref().expect("fit checked"),
            )?],
        });
    }
    let spread_at = fit.spread.then(|| inputs.len() - 1);
    // A polymorphic function: the instance of the types this call
    // resolves to.
    let def = if def.is_polymorphic() {
        let mut pairs: Vec<(DataType, DataType)> = Vec::new();
        for (i, (a, g)) in inputs.iter().zip(&bound).enumerate() {
            let declared = match spread_at {
                Some(s) if s == i => variadic_element(a.ty).expect("fit checked"),
                _ => a.ty,
            };
            pairs.extend(g.iter().map(|(_, t)| (declared, *t)));
        }
        let inst = polymorphic::instance(&def, &polymorphic::Resolution::of(&pairs)?)?;
        inputs = called_args(&inst).cloned().collect();
        inst
    } else {
        def
    };
    let mut args = Vec::with_capacity(inputs.len());
    for (i, mut g) in bound.into_iter().enumerate() {
        let want = inputs[i].ty;
        let e = match spread_at {
            Some(s) if s == i => {
                let elem = want.element().expect("a VARIADIC argument is an array");
                let mut items = Vec::with_capacity(g.len());
                for (e, t) in g {
                    items.push(b.coerce(e, t, elem)?);
                }
                let ctor = Func::ArrayCtor {
                    elem: elem.base(),
                    nested: false,
                };
                Expr::Func(ctor, items)
            }
            _ => {
                let (e, t) = g.pop().expect("one argument");
                b.coerce(e, t, want)?
            }
        };
        let e = match inputs[i].domain.and_then(nestor_types::domains::lookup) {
            Some(d) => b.coerce_to_domain(e, &d)?,
            None => e,
        };
        args.push(e);
    }
    Ok(Some((def, args)))
}

/// Bind a stored DEFAULT expression of an argument: no columns in scope.
fn bind_default(b: &mut Binder, sql: &str) -> Result<(Expr, DataType), DbError> {
    let n = nestor_parser::parse_expr(sql)?;
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let agg = std::mem::replace(&mut b.agg, AggCtx::NotAllowed("DEFAULT expressions"));
    let r = b.bind(&n);
    b.agg = agg;
    b.scopes.pop();
    b.outer_refs.pop();
    r
}

/// A function call in an expression. Ok(None) when no user function has
/// that name (the caller reports the built-in lookup's error).
pub(crate) fn bind_call(
    b: &mut Binder,
    name: &str,
    f: &pb::FuncCall,
) -> Result<Option<(Expr, DataType)>, DbError> {
    let given = bind_args(b, &f.args)?;
    let Some((def, args)) = choose(b, name, &given, f.func_variadic, false)? else {
        return Ok(None);
    };
    let ty = match (&def.returns, def.retset) {
        // In a select list: its rows (collected into an array by the
        // call) unnested, as the built-in set-returning functions are.
        (Returns::Trigger, _) => return Err(trigger_called(&def)),
        (returns, true) if b.srf_allowed => {
            let elem = match returns {
                Returns::Scalar(t) => *t,
                Returns::Row(cols) => {
                    DataType::Record(nestor_types::datatype::record_type(cols.clone()))
                }
                _ => DataType::Record(nestor_types::datatype::record_type(Vec::new())),
            };
            let call = Expr::UserFunc(UserFn(def), args);
            let unnest = Func::Srf(crate::functions::SrfKind::Unnest);
            return Ok(Some((Expr::Func(unnest, vec![call]), elem)));
        }
        (_, true) => {
            if let AggCtx::NotAllowed(clause) = b.agg {
                return Err(crate::bind::err_at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        format!("set-returning functions are not allowed in {clause}"),
                    ),
                    b.text,
                    f.location,
                ));
            }
            return Err(DbError::unsupported(format!(
                "set-returning function {name}() in this position"
            )));
        }
        (Returns::Scalar(t), false) => *t,
        // OUT arguments: one row, as an anonymous record of them.
        (Returns::Row(cols), false) => {
            DataType::Record(nestor_types::datatype::record_type(cols.clone()))
        }
        // `RETURNS record`: a record whose fields the caller cannot name.
        (Returns::Record, false) => {
            DataType::Record(nestor_types::datatype::record_type(Vec::new()))
        }
        // The table's row type (of its columns now): the first row as
        // one value, as for a composite type.
        (Returns::RowType(rel), false) => nestor_types::composites::type_for_oid(rel.0)
            .ok_or_else(|| {
                DbError::internal(format!("function {name}() returns a dropped row type"))
            })?,
    };
    // A result declared as a domain is checked against it, as
    // PostgreSQL's function result coercion does.
    let domain = def.result_domain.and_then(nestor_types::domains::lookup);
    if let Some(inlined) = super::inline::inline_call(b, &def, &args) {
        return Ok(Some((inlined, ty)));
    }
    let call = Expr::UserFunc(UserFn(def), args);
    let call = match domain {
        Some(d) => b.coerce_to_domain(call, &d)?,
        None => call,
    };
    Ok(Some((call, ty)))
}

/// A user function in FROM: its definition, bound arguments and result
/// columns (name, type; none for a function returning record, whose
/// columns the caller's column definition list gives). Ok(None) when no
/// user function has that name.
#[allow(clippy::type_complexity)]
pub(crate) fn bind_from(
    b: &mut Binder,
    name: &str,
    f: &pb::FuncCall,
) -> Result<Option<(Arc<FunctionDef>, Vec<Expr>, Vec<(String, DataType)>)>, DbError> {
    let given = bind_args(b, &f.args)?;
    // No candidate: at the call, as PostgreSQL places it.
    let at = |e: DbError| match e.code {
        SqlState::UndefinedFunction | SqlState::AmbiguousFunction => {
            nestor_parser::ast::err_at(e, b.text, f.location)
        }
        _ => e,
    };
    let Some((def, args)) = choose(b, name, &given, f.func_variadic, false).map_err(at)? else {
        return Ok(None);
    };
    let cols = match &def.returns {
        Returns::Scalar(DataType::Record(rt)) if rt.oid != 0 => rt.fields.clone(),
        Returns::Scalar(t) => {
            // The column is named after the single output argument, else
            // after the function.
            let out = def
                .args
                .iter()
                .find(|a| a.mode.is_output() && !a.name.is_empty())
                .map(|a| a.name.clone())
                .unwrap_or_else(|| name.to_string());
            vec![(out, *t)]
        }
        Returns::Row(_) | Returns::RowType(_) => def
            .result_columns(b.catalog)?
            .expect("a row result has columns"),
        Returns::Trigger => return Err(trigger_called(&def)),
        // Its columns come from the call's column definition list.
        Returns::Record => Vec::new(),
    };
    Ok(Some((def, args, cols)))
}

/// CALL proc(args): the procedure and its bound arguments, one per
/// argument of the procedure in order (OUT ones too: the executor passes
/// the input ones, and PL/pgSQL writes the output ones back).
pub fn bind_procedure_call(
    b: &mut Binder,
    name: &str,
    f: &pb::FuncCall,
) -> Result<Chosen, DbError> {
    let given = bind_args(b, &f.args)?;
    let at = |e: DbError| nestor_parser::ast::err_at(e, b.text, f.location);
    match choose(b, name, &given, f.func_variadic, true).map_err(at)? {
        Some(found) => Ok(found),
        None => Err(at(DbError::new(
            SqlState::UndefinedFunction,
            format!("procedure {name}({}) does not exist", type_list(&given)),
        )
        .with_hint(
            "No procedure matches the given name and argument types. You might need to add explicit type casts.",
        ))),
    }
}
