//! Inlining of simple SQL functions (PostgreSQL's inline_function).
//!
//! A call of a LANGUAGE sql function whose body is one `SELECT expr` (no
//! FROM, WHERE, GROUP BY, ...) is replaced by that expression with the
//! call's arguments in place of its parameters, as PostgreSQL's planner
//! does. The call then costs what the expression costs (a SQL function
//! run as such prepares and executes its body per call), an index can be
//! built on it and used for it, and EXPLAIN shows the expression:
//!
//! ```text
//!   CREATE FUNCTION addone(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 1';
//!   SELECT addone(a) FROM t       binds as     SELECT (a + 1) FROM t
//! ```
//!
//! Only when that cannot change what the call means (PostgreSQL's
//! conditions, simplified): a scalar, non-set result of the body's exact
//! type, no domain on it; a body without aggregates, windows, subqueries,
//! set-returning functions, and without volatile functions unless the
//! function is declared VOLATILE; arguments without volatile functions or
//! subqueries, and any argument the body reads more than once a plain
//! column, constant or parameter (so nothing is computed twice). A STRICT
//! function's expression is guarded: NULL when any argument is NULL. The
//! EXECUTE privilege the call needs is recorded before this, and the
//! body's own needs are added, so permissions are checked as for the call.
//! A function being inlined is not inlined again inside itself (recursion
//! stays a call), and nesting is capped at [`INLINE_DEPTH_MAX`].

use std::cell::RefCell;

use nestor_catalog::{FunctionDef, Language, Returns, Volatility};
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;

use super::{Binder, VarConflict, VarResolver};
use crate::ir::Expr;

/// How many inlined calls may nest in one another.
const INLINE_DEPTH_MAX: usize = 8;

thread_local! {
    /// The functions being inlined on this thread, innermost last.
    static INLINING: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// A SQL function's parameters by name, as its body refers to them
/// (`a`, `f.a`): the inliner's and the SQL-function runner's resolver.
pub struct FunctionParams<'a> {
    pub def: &'a FunctionDef,
}

impl VarResolver for FunctionParams<'_> {
    fn resolve(&self, parts: &[&str]) -> Result<Option<(usize, DataType)>, nestor_common::DbError> {
        let name = match parts {
            [n] => *n,
            [f, n] if *f == self.def.name => *n,
            _ => return Ok(None),
        };
        Ok(self
            .def
            .args
            .iter()
            .filter(|a| a.mode.is_input())
            .enumerate()
            .find(|(_, a)| !a.name.is_empty() && a.name == name)
            .map(|(i, a)| (i, a.ty)))
    }

    fn conflict(&self) -> VarConflict {
        VarConflict::UseColumn
    }
}

/// The call `def(args)` as the expression its body computes, or None when
/// it is not to be inlined (see the module header).
pub(super) fn inline_call(b: &mut Binder, def: &FunctionDef, args: &[Expr]) -> Option<Expr> {
    let Returns::Scalar(result) = def.returns else {
        return None;
    };
    if b.no_inline
        || def.language != Language::Sql
        || def.retset
        || def.procedure
        || def.result_domain.is_some()
        || def.aggregate.is_some()
        || matches!(result, DataType::Void | DataType::Record(_))
        || args.iter().any(|a| !a.is_movable())
    {
        return None;
    }
    let active = INLINING.with(|s| {
        let s = s.borrow();
        s.len() >= INLINE_DEPTH_MAX || s.contains(&def.oid.0)
    });
    if active {
        return None;
    }
    let body = select_expr(&def.body)?;
    INLINING.with(|s| s.borrow_mut().push(def.oid.0));
    let bound = bind_body(b, def, &body);
    INLINING.with(|s| s.borrow_mut().pop());
    let (expr, ty) = bound?;
    if ty != result || !inlinable_body(&expr, def.volatility) {
        return None;
    }
    let mut uses = vec![0usize; args.len()];
    expr.walk(&mut |e| {
        if let Expr::Param(i) = e {
            if let Some(n) = uses.get_mut(*i) {
                *n += 1;
            }
        }
    });
    if uses.iter().zip(args).any(|(&n, a)| n > 1 && !simple(a)) {
        return None;
    }
    if def.strict && !args.iter().all(simple) {
        return None;
    }
    let inlined = expr
        .rewrite(&mut |e| {
            Ok(match e {
                Expr::Param(i) => Some(
                    args.get(*i)
                        .cloned()
                        .unwrap_or(Expr::Const(nestor_types::Value::Null)),
                ),
                _ => None,
            })
        })
        .ok()?;
    Some(match (def.strict, args) {
        (false, _) | (true, []) => inlined,
        (true, args) => Expr::Case {
            operand: None,
            whens: vec![(
                Expr::Or(
                    args.iter()
                        .map(|a| Expr::IsNull(Box::new(a.clone()), false))
                        .collect(),
                ),
                Expr::Const(nestor_types::Value::Null),
            )],
            else_: Some(Box::new(inlined)),
        },
    })
}

/// The body's one target expression, when the body is `SELECT expr` and
/// nothing else.
fn select_expr(body: &str) -> Option<nestor_parser::pb::Node> {
    let stmts = nestor_parser::parse_sql(body).ok()?;
    let [stmt] = stmts.as_slice() else {
        return None;
    };
    let Some(NodeEnum::SelectStmt(sel)) = stmt.stmt.as_ref().and_then(|s| s.node.as_ref()) else {
        return None;
    };
    let bare = sel.from_clause.is_empty()
        && sel.where_clause.is_none()
        && sel.group_clause.is_empty()
        && sel.having_clause.is_none()
        && sel.window_clause.is_empty()
        && sel.sort_clause.is_empty()
        && sel.limit_count.is_none()
        && sel.limit_offset.is_none()
        && sel.distinct_clause.is_empty()
        && sel.with_clause.is_none()
        && sel.into_clause.is_none()
        && sel.locking_clause.is_empty()
        && sel.values_lists.is_empty()
        && sel.larg.is_none();
    let [target] = sel.target_list.as_slice() else {
        return None;
    };
    match target.node.as_ref()? {
        NodeEnum::ResTarget(rt) if bare => rt.val.as_deref().cloned(),
        _ => None,
    }
}

/// The body expression bound over the parameters (`$n` and names, as
/// `Expr::Param`), its needs added to the call's; None if it does not
/// bind.
fn bind_body(
    b: &mut Binder,
    def: &FunctionDef,
    body: &nestor_parser::pb::Node,
) -> Option<(Expr, DataType)> {
    let hints: Vec<u32> = def.input_types().iter().map(|t| t.oid()).collect();
    let params = FunctionParams { def };
    let text = def.body.clone();
    let mut inner = Binder::new(b.catalog, b.eval, &text, &hints, b.plan_query);
    inner.vars = Some(&params);
    let bound = inner.bind(body).ok()?;
    let perms = std::mem::take(&mut inner.perms);
    for p in perms {
        crate::perm::need(&mut b.perms, p);
    }
    Some(bound)
}

/// Whether the bound body may stand in for the call.
fn inlinable_body(e: &Expr, declared: Volatility) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) | Expr::Outer { .. } | Expr::Col(_) => {
            ok = false
        }
        Expr::Func(f, _) => {
            ok &= !matches!(f, crate::functions::Func::Srf(_))
                && (!f.is_volatile() || declared == Volatility::Volatile)
        }
        Expr::UserFunc(f, _) => {
            ok &= f.0.volatility != Volatility::Volatile || declared == Volatility::Volatile
        }
        _ => {}
    });
    ok
}

/// An argument cheap enough to be read more than once.
fn simple(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Col(_) | Expr::Const(_) | Expr::Param(_) | Expr::Outer { .. }
    )
}
