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
//! An aggregate of several arguments gets them as one record (the
//! call's `arg` is their row constructor, so DISTINCT compares them
//! together) that the executor spreads over the step row `[state, value1,
//! ..., valueN]`; one of none (`name(*)`) gets `[state]`. The executor
//! runs the steps with PostgreSQL's strictness rules
//! (exec/src/executor/aggregate.rs).

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
    args: &[DataType],
) -> Result<UserAggSteps, DbError> {
    let mut b = Binder::new(catalog, eval, "", &[], plan_query);
    let mut scope = Scope::default();
    let names: Vec<String> = std::iter::once("state".to_string())
        .chain((1..=args.len()).map(|i| format!("value{i}")))
        .collect();
    for (name, &ty) in names.iter().zip(std::iter::once(&spec.stype).chain(args)) {
        scope.cols.push(ScopeCol {
            perm: None,
            rel: String::new(),
            name: name.clone(),
            ty,
            hidden: false,
            table_oid: 0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
            subst: None,
            using_cast: None,
        });
    }
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let all: Vec<&str> = names.iter().map(String::as_str).collect();
    let inline = std::mem::replace(&mut b.no_inline, true);
    let steps = bind_steps(&mut b, spec, &all);
    b.no_inline = inline;
    let ((sfunc, st), finalfunc) = steps?;
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
    let (finalfunc, result) = match finalfunc {
        Some((e, t)) => (Some(e), t),
        None => (None, spec.stype),
    };
    let init = match &spec.initcond {
        Some(text) => valops::cast(Value::Text(text.as_str().into()), spec.stype, true, &eval)?,
        None => Value::Null,
    };
    let sfunc_strict = strict(&sfunc);
    // A strict transition function without INITCOND starts from the first
    // row's first argument (PostgreSQL's check in AggregateCreate).
    let first_fits = args.first().is_some_and(|a| a.base() == spec.stype.base());
    if sfunc_strict && init.is_null() && !first_fits {
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
        nargs: args.len(),
    })
}

/// Whether a bound call is strict: a user function as declared; a
/// built-in as PostgreSQL declares it (most are; the array builders
/// that aggregate definitions use as steps are not, so `array_append`
/// collects NULLs).
fn strict(e: &Expr) -> bool {
    const NOT_STRICT: &[&str] = &[
        "array_append",
        "array_prepend",
        "array_cat",
        "concat",
        "concat_ws",
    ];
    match e {
        Expr::UserFunc(f, _) => f.0.strict,
        Expr::Cast(inner, _) => strict(inner),
        Expr::Func(crate::functions::Func::Library(f), _) => !NOT_STRICT.contains(&f.name),
        _ => true,
    }
}

/// The operator or GREATEST/LEAST that one of PostgreSQL's internal
/// two-argument functions stands for (`int4pl` is `+`, `int4larger` is
/// GREATEST): Nestor's function library has no pg_proc names for them,
/// and aggregate definitions name them as transition functions (and
/// queries and index expressions call them: `textcat(f1, f2)`).
pub(crate) fn internal_operator(name: &str) -> Option<(&'static str, bool)> {
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

/// PostgreSQL's internal support functions that aggregate definitions
/// name (`int4_avg_accum` is avg(int4)'s transition function), as
/// expressions over their arguments `{0}`, `{1}`: Nestor's function
/// library has no pg_proc entries for them.
fn internal_template(name: &str, nargs: usize) -> Option<&'static str> {
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    Some(match (name, nargs) {
        // count's transition: the count so far plus one.
        ("int8inc", 1) => "{0} + 1::int8",
        ("int8inc_any", 2) => "{0} + 1::int8",
        // avg over small integers: the state is {count, sum}.
        ("int2_avg_accum" | "int4_avg_accum", 2) => "ARRAY[{0}[1] + 1, {0}[2] + {1}]::int8[]",
        ("int8_avg", 1) => "CASE WHEN {0}[1] = 0 THEN NULL ELSE {0}[2]::numeric / {0}[1] END",
        _ => return None,
    })
}

/// `name(col, ...)` over the step row's columns.
fn call(name: &str, cols: &[&str]) -> Result<Node, DbError> {
    let string = |s: &str| Node {
        node: Some(NodeEnum::String(pb::String { sval: s.into() })),
    };
    if let Some(template) = internal_template(name, cols.len()) {
        let mut text = template.to_string();
        for (i, c) in cols.iter().enumerate() {
            text = text.replace(&format!("{{{i}}}"), &format!("\"{c}\""));
        }
        return template_expr(&text);
    }
    let columns = || -> Vec<Node> {
        cols.iter()
            .map(|c| Node {
                node: Some(NodeEnum::ColumnRef(pb::ColumnRef {
                    fields: vec![string(c)],
                    location: -1,
                })),
            })
            .collect()
    };
    if let Some(n) = internal_operator_node(name, columns(), -1) {
        return Ok(n);
    }
    let args = columns();
    Ok(Node {
        node: Some(NodeEnum::FuncCall(Box::new(pb::FuncCall {
            funcname: name.split('.').map(string).collect(),
            args,
            location: -1,
            ..Default::default()
        }))),
    })
}

/// `name(a, b)` of an [`internal_operator`] function as the expression it
/// stands for (`a || b`, `GREATEST(a, b)`) at `location`; None for
/// another name or arity.
pub(crate) fn internal_operator_node(
    name: &str,
    mut args: Vec<Node>,
    location: i32,
) -> Option<Node> {
    let string = |s: &str| Node {
        node: Some(NodeEnum::String(pb::String { sval: s.into() })),
    };
    let (op, minmax) = internal_operator(name)?;
    if args.len() != 2 {
        return None;
    }
    if !minmax {
        let r = args.pop().map(Box::new);
        let l = args.pop().map(Box::new);
        return Some(Node {
            node: Some(NodeEnum::AExpr(Box::new(pb::AExpr {
                kind: pb::AExprKind::AexprOp as i32,
                name: vec![string(op)],
                lexpr: l,
                rexpr: r,
                location,
            }))),
        });
    }
    let op = if op == "greatest" {
        pb::MinMaxOp::IsGreatest
    } else {
        pb::MinMaxOp::IsLeast
    };
    Some(Node {
        node: Some(NodeEnum::MinMaxExpr(Box::new(pb::MinMaxExpr {
            op: op as i32,
            args,
            location,
            ..Default::default()
        }))),
    })
}

/// The expression of an [`internal_template`] (with its columns filled
/// in) as a parse tree.
fn template_expr(text: &str) -> Result<Node, DbError> {
    let stmts = nestor_parser::parse_sql(&format!("SELECT {text}"))?;
    let target = stmts
        .first()
        .and_then(|s| s.stmt.as_ref())
        .and_then(|n| match n.node.as_ref() {
            Some(NodeEnum::SelectStmt(sel)) => sel.target_list.first(),
            _ => None,
        })
        .and_then(|t| match t.node.as_ref() {
            Some(NodeEnum::ResTarget(rt)) => rt.val.as_deref().cloned(),
            _ => None,
        });
    target.ok_or_else(|| DbError::internal("internal aggregate function template"))
}

impl Binder<'_> {
    /// The CREATE AGGREGATE aggregate named `name` taking arguments of
    /// types `args` (exactly, else each by an implicit numeric or string
    /// coercion), with its steps bound, and the types it takes.
    #[allow(clippy::type_complexity)]
    pub(super) fn user_aggregate(
        &self,
        name: &str,
        args: &[DataType],
    ) -> Result<Option<(Arc<UserAgg>, Vec<DataType>)>, DbError> {
        let cands = aggregates(self.catalog, name);
        let arity = |f: &&Arc<FunctionDef>| f.input_types().len() == args.len();
        let exact = cands.iter().filter(arity).find(|f| {
            f.input_types()
                .iter()
                .zip(args)
                .all(|(w, a)| w.base() == a.base())
        });
        let loose = || {
            cands.iter().filter(arity).find(|f| {
                f.input_types().iter().zip(args).all(|(&want, &arg)| {
                    arg.base() == want.base()
                        || arg == DataType::Unknown
                        || (arg.is_numeric() && want.is_numeric())
                        || (arg.is_string() && want.is_string())
                })
            })
        };
        // A polymorphic aggregate takes arguments its declared types
        // resolve consistently for (as a polymorphic function does).
        let pairs = |f: &Arc<FunctionDef>| -> Vec<(DataType, DataType)> {
            f.input_types()
                .into_iter()
                .zip(args.iter().copied())
                .collect()
        };
        let poly = || {
            cands
                .iter()
                .filter(arity)
                .find(|f| f.is_polymorphic() && super::polymorphic::consistent(&pairs(f)))
        };
        let Some(def) = exact.or_else(poly).or_else(loose) else {
            return Ok(None);
        };
        let declared = def.aggregate.as_ref().expect("an aggregate");
        let (want, spec) = if def.is_polymorphic() {
            let r = super::polymorphic::Resolution::of(&pairs(def))?;
            let want = def
                .input_types()
                .into_iter()
                .map(|t| r.concrete(t))
                .collect::<Result<Vec<_>, _>>()?;
            let mut spec = (**declared).clone();
            spec.stype = r.concrete(spec.stype)?;
            (want, std::borrow::Cow::Owned(spec))
        } else {
            (def.input_types(), std::borrow::Cow::Borrowed(&**declared))
        };
        let steps = steps((self.catalog, self.eval, self.plan_query), &spec, &want)?;
        Ok(Some((
            Arc::new(UserAgg {
                def: UserFn(def.clone()),
                steps,
            }),
            want,
        )))
    }
}

/// The transition step, and the final one if any, bound as calls.
#[allow(clippy::type_complexity)]
fn bind_steps(
    b: &mut Binder,
    spec: &nestor_catalog::AggregateSpec,
    all: &[&str],
) -> Result<((Expr, DataType), Option<(Expr, DataType)>), DbError> {
    let sfunc = b.bind(&call(&spec.sfunc, all)?)?;
    let finalfunc = match &spec.finalfunc {
        Some(f) => {
            let cols: &[&str] = if spec.finalfunc_extra { all } else { &all[..1] };
            Some(b.bind(&call(f, cols)?)?)
        }
        None => None,
    };
    Ok((sfunc, finalfunc))
}
