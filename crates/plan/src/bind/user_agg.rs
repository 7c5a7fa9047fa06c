//! Aggregates made by CREATE AGGREGATE in the binder.
//!
//! The catalog keeps the transition and final functions by name
//! (`AggregateSpec`); a call resolves them for the argument's type as
//! calls over a row of their own, so a transition function may be a
//! built-in, a SQL or a PL/pgSQL function, with the binder's usual
//! resolution and implicit casts:
//!
//! ```text
//!   CREATE AGGREGATE my_sum(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0')
//!   my_sum(x)   AggCall { func: User, arg: x, user: steps }
//!               steps.sfunc    = int4pl(Col 0, Col 1)   over [state, x]
//!               steps.finalfunc = None, init = 0
//! ```
//!
//! The executor runs the steps with PostgreSQL's strictness rules
//! (exec/src/executor/aggregate.rs). Only aggregates of one argument are
//! supported (CREATE AGGREGATE refuses others with 0A000).

use std::sync::Arc;

use nestor_catalog::{AggregateSpec, Catalog, FunctionDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_types::{DataType, EvalCtx, Value};

use super::{Binder, QueryPlanner, Scope, ScopeCol};
use crate::ir::{Expr, UserAgg, UserAggSteps, UserFn};
use crate::valops;

/// The CREATE AGGREGATE aggregates named `name`.
pub fn aggregates(catalog: &Catalog, name: &str) -> Vec<Arc<FunctionDef>> {
    catalog
        .functions(name)
        .into_iter()
        .filter(|f| f.aggregate.is_some())
        .collect()
}

/// The aggregate's steps for an argument of type `arg` (see the module
/// header): 42883 when a function is missing, 42804 when the transition
/// function does not return the state type. `plan_query` plans the
/// subqueries a step's SQL may hold (`select::plan_query`).
pub fn steps(
    (catalog, eval, plan_query): (&Catalog, EvalCtx, QueryPlanner),
    spec: &AggregateSpec,
    arg: DataType,
) -> Result<UserAggSteps, DbError> {
    let mut b = Binder::new(catalog, eval, "", &[], plan_query);
    let mut scope = Scope::default();
    for (name, ty) in [("state", spec.stype), ("value", arg)] {
        scope.cols.push(ScopeCol {
            perm: None,
            rel: String::new(),
            name: name.into(),
            ty,
            hidden: false,
            table_oid: 0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
        });
    }
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let (sfunc, st) = b.bind(&call(&spec.sfunc, &["state", "value"]))?;
    if st.base() != spec.stype.base() {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "return type of transition function {} is not {}",
                spec.sfunc,
                spec.stype.name()
            ),
        ));
    }
    let (finalfunc, result) = match &spec.finalfunc {
        Some(f) => {
            let args: &[&str] = if spec.finalfunc_extra {
                &["state", "value"]
            } else {
                &["state"]
            };
            let (e, t) = b.bind(&call(f, args))?;
            (Some(e), t)
        }
        None => (None, spec.stype),
    };
    let init = match &spec.initcond {
        Some(text) => valops::cast(Value::Text(text.as_str().into()), spec.stype, true, &eval)?,
        None => Value::Null,
    };
    let sfunc_strict = strict(&sfunc);
    if sfunc_strict && init.is_null() && arg.base() != spec.stype.base() {
        return Err(DbError::new(
            SqlState::InvalidFunctionDefinition,
            "must not omit initial value when transition function is strict and transition type is not compatible with input type",
        ));
    }
    Ok(UserAggSteps {
        final_strict: finalfunc.as_ref().is_some_and(strict),
        sfunc,
        sfunc_strict,
        finalfunc,
        init,
        result,
    })
}

/// Whether a bound call is strict: a user function as declared; the
/// built-ins PostgreSQL's aggregates use are.
fn strict(e: &Expr) -> bool {
    match e {
        Expr::UserFunc(f, _) => f.0.strict,
        Expr::Cast(inner, _) => strict(inner),
        _ => true,
    }
}

/// The operator or GREATEST/LEAST that one of PostgreSQL's internal
/// two-argument functions stands for (`int4pl` is `+`, `int4larger` is
/// GREATEST): Nestor's function library has no pg_proc names for them,
/// and aggregate definitions name them as transition functions.
fn internal_operator(name: &str) -> Option<(&'static str, bool)> {
    const TYPES: &[&str] = &[
        "int2",
        "int4",
        "int8",
        "int24",
        "int42",
        "int28",
        "int82",
        "int48",
        "int84",
        "float4",
        "float8",
        "float48",
        "float84",
        "numeric_",
        "interval_",
        "cash_",
        "date_",
        "text_",
        "timestamp_",
        "timestamptz_",
    ];
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    if name == "textcat" {
        return Some(("||", false));
    }
    let suffix = TYPES.iter().find_map(|t| name.strip_prefix(t))?;
    Some(match suffix {
        "pl" | "add" => ("+", false),
        "mi" | "sub" => ("-", false),
        "mul" => ("*", false),
        "div" => ("/", false),
        "larger" => ("greatest", true),
        "smaller" => ("least", true),
        _ => return None,
    })
}

/// `name(col, ...)` over the step row's columns.
fn call(name: &str, cols: &[&str]) -> Node {
    let string = |s: &str| Node {
        node: Some(NodeEnum::String(pb::String { sval: s.into() })),
    };
    let mut args: Vec<Node> = cols
        .iter()
        .map(|c| Node {
            node: Some(NodeEnum::ColumnRef(pb::ColumnRef {
                fields: vec![string(c)],
                location: -1,
            })),
        })
        .collect();
    match (internal_operator(name), args.len()) {
        (Some((op, false)), 2) => {
            let r = args.pop().map(Box::new);
            let l = args.pop().map(Box::new);
            return Node {
                node: Some(NodeEnum::AExpr(Box::new(pb::AExpr {
                    kind: pb::AExprKind::AexprOp as i32,
                    name: vec![string(op)],
                    lexpr: l,
                    rexpr: r,
                    location: -1,
                }))),
            };
        }
        (Some((op, true)), 2) => {
            let op = if op == "greatest" {
                pb::MinMaxOp::IsGreatest
            } else {
                pb::MinMaxOp::IsLeast
            };
            return Node {
                node: Some(NodeEnum::MinMaxExpr(Box::new(pb::MinMaxExpr {
                    op: op as i32,
                    args,
                    location: -1,
                    ..Default::default()
                }))),
            };
        }
        _ => {}
    }
    Node {
        node: Some(NodeEnum::FuncCall(Box::new(pb::FuncCall {
            funcname: name.split('.').map(string).collect(),
            args,
            location: -1,
            ..Default::default()
        }))),
    }
}

impl Binder<'_> {
    /// The CREATE AGGREGATE aggregate of one argument named `name` taking
    /// an argument of type `arg` (exactly, else by an implicit numeric or
    /// string coercion), with its steps bound.
    pub(super) fn user_aggregate(
        &self,
        name: &str,
        arg: DataType,
    ) -> Result<Option<(Arc<UserAgg>, DataType)>, DbError> {
        let cands = aggregates(self.catalog, name);
        let one = |f: &&Arc<FunctionDef>| f.input_types().len() == 1;
        let exact = cands
            .iter()
            .filter(one)
            .find(|f| f.input_types()[0].base() == arg.base());
        let loose = || {
            cands.iter().filter(one).find(|f| {
                let want = f.input_types()[0];
                arg == DataType::Unknown
                    || (arg.is_numeric() && want.is_numeric())
                    || (arg.is_string() && want.is_string())
            })
        };
        let Some(def) = exact.or_else(loose) else {
            return Ok(None);
        };
        let want = def.input_types()[0];
        let spec = def.aggregate.as_ref().expect("an aggregate");
        let steps = steps((self.catalog, self.eval, self.plan_query), spec, want)?;
        Ok(Some((
            Arc::new(UserAgg {
                def: UserFn(def.clone()),
                steps,
            }),
            want,
        )))
    }
}
