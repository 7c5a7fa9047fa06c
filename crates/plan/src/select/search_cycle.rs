//! SEARCH and CYCLE clauses of WITH RECURSIVE (PostgreSQL 14+).
//!
//! ```text
//!   WITH RECURSIVE g(f, t, label) AS (init UNION [ALL] step)
//!     SEARCH DEPTH FIRST BY f, t SET seq
//!     CYCLE f, t SET is_cycle [TO v DEFAULT d] USING path
//! ```
//!
//! is planned as PostgreSQL's rewriteSearchCycle.c rewrites it: the CTE
//! gets more columns after its own (the search column, then the cycle
//! mark and path), computed on each side of the UNION from the row it
//! produces:
//!
//! ```text
//!   column     init side                 step side (over the step's row)
//!   seq DEPTH  ARRAY[ROW(f, t)]          array_cat(seq, ARRAY[ROW(f, t)])
//!   seq BREADTH ROW(0::int8, f, t)       ROW((seq).f1 + 1, f, t)
//!   is_cycle   d                         CASE WHEN ROW(f, t) = ANY (path)
//!                                             THEN v ELSE d END
//!   path       ARRAY[ROW(f, t)]          array_cat(path, ARRAY[ROW(f, t)])
//!   filter                               step rows whose working-table row
//!                                        has is_cycle <> v
//! ```
//!
//! The step side needs the working table's seq, is_cycle and path: they
//! are appended to the recursive term's select list as `sg.seq, ...`,
//! `sg` being the working table's name in its FROM list (which must hold
//! it at the top level, as PostgreSQL requires), and the step's output is
//! then projected (and filtered) as above. The working table shows the
//! added columns to names but not to `*` (PostgreSQL's p_dontexpand), so
//! `SELECT * FROM a` in the recursive term stays the CTE's own columns.
//! The expressions are bound from parse nodes over the row they read, so
//! they get the binder's own record, array and `= ANY` typing; the mark
//! value and default (constants, by the grammar) are bound first, to
//! their common type, as PostgreSQL does before analysing the query.
//! PostgreSQL's checks, messages and SQLSTATEs are kept, in its order as
//! far as the planning order allows.

use nestor_common::{DbError, SqlState};
use nestor_parser::ast::{column_ref, string, wrap};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;

use crate::bind::{self, err_at, req, Binder, Scope, ScopeCol};
use crate::ir::{Expr, OutCol, Plan};

/// A CTE's SEARCH and CYCLE clauses, the cycle mark bound.
pub(crate) struct SearchCycle<'a> {
    search: Option<&'a pb::CteSearchClause>,
    cycle: Option<Cycle<'a>>,
    /// The CTE's name and its position in the text (for "WITH query is
    /// not recursive").
    cte_name: &'a str,
    cte_location: i32,
}

struct Cycle<'a> {
    clause: &'a pb::CteCycleClause,
    /// TO and DEFAULT, coerced to their common type `ty`.
    value: Expr,
    default: Expr,
    ty: DataType,
}

/// The columns the clauses read, as positions in the CTE's row.
struct Shape {
    search: Vec<usize>,
    cycle: Vec<usize>,
}

/// What the recursive term is planned as: the query, and whether the
/// added columns were appended to its select list.
pub(crate) struct Step {
    pub query: pb::SelectStmt,
    pub extended: bool,
}

impl<'a> SearchCycle<'a> {
    /// The clauses of `cte`, None without any. Binds the cycle mark's value
    /// and default (PostgreSQL does it before the query, which may read
    /// the mark).
    pub(crate) fn of(
        b: &mut Binder,
        cte: &'a pb::CommonTableExpr,
    ) -> Result<Option<SearchCycle<'a>>, DbError> {
        if cte.search_clause.is_none() && cte.cycle_clause.is_none() {
            return Ok(None);
        }
        let cycle = match cte.cycle_clause.as_deref() {
            Some(c) => Some(bind_mark(b, c)?),
            None => None,
        };
        Ok(Some(SearchCycle {
            search: cte.search_clause.as_ref(),
            cycle,
            cte_name: &cte.ctename,
            cte_location: cte.location,
        }))
    }

    /// 42601 for a CTE the clauses cannot apply to (PostgreSQL's message).
    pub(crate) fn not_recursive(&self, b: &Binder) -> DbError {
        err_at(
            DbError::new(SqlState::SyntaxError, "WITH query is not recursive"),
            b.text,
            self.cte_location,
        )
    }

    /// How many columns the clauses add.
    pub(crate) fn added(&self) -> usize {
        usize::from(self.search.is_some()) + 2 * usize::from(self.cycle.is_some())
    }

    /// The names of the added columns, in order.
    fn added_names(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(s) = self.search {
            v.push(s.search_seq_column.clone());
        }
        if let Some(c) = &self.cycle {
            v.push(c.clause.cycle_mark_column.clone());
            v.push(c.clause.cycle_path_column.clone());
        }
        v
    }

    /// PostgreSQL's checks of the column lists against the CTE's columns.
    fn shape(&self, b: &Binder, names: &[String]) -> Result<Shape, DbError> {
        let at = |e: DbError, loc: i32| err_at(e, b.text, loc);
        let mut shape = Shape {
            search: Vec::new(),
            cycle: Vec::new(),
        };
        if let Some(s) = self.search {
            shape.search =
                positions(&s.search_col_list, names, "search").map_err(|e| at(e, s.location))?;
            if names.contains(&s.search_seq_column) {
                return Err(at(
                    syntax(format!(
                        "search sequence column name \"{}\" already used in WITH query column list",
                        s.search_seq_column
                    )),
                    s.location,
                ));
            }
        }
        if let Some(c) = &self.cycle {
            let c = c.clause;
            shape.cycle =
                positions(&c.cycle_col_list, names, "cycle").map_err(|e| at(e, c.location))?;
            for (what, name) in [
                ("mark", &c.cycle_mark_column),
                ("path", &c.cycle_path_column),
            ] {
                if names.contains(name) {
                    return Err(at(
                        syntax(format!(
                            "cycle {what} column name \"{name}\" already used in WITH query column list"
                        )),
                        c.location,
                    ));
                }
            }
            if c.cycle_mark_column == c.cycle_path_column {
                return Err(at(
                    syntax("cycle mark column name and cycle path column name are the same".into()),
                    c.location,
                ));
            }
        }
        if let (Some(s), Some(c)) = (self.search, &self.cycle) {
            for (what, name) in [
                ("mark", &c.clause.cycle_mark_column),
                ("path", &c.clause.cycle_path_column),
            ] {
                if s.search_seq_column == *name {
                    return Err(at(
                        syntax(format!(
                            "search sequence column name and cycle {what} column name are the same"
                        )),
                        s.location,
                    ));
                }
            }
        }
        Ok(shape)
    }

    /// The non-recursive term's projection with the added columns (its
    /// columns `cols`), and the added columns for the working table and
    /// the CTE. Err when the column lists do not fit (raised by
    /// [`SearchCycle::check`] after the structural checks).
    pub(crate) fn init_columns(
        &self,
        b: &mut Binder,
        cols: &[OutCol],
    ) -> Result<(Vec<Expr>, Vec<OutCol>), DbError> {
        let names: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
        let shape = self.shape(b, &names)?;
        let mut nodes = Vec::new();
        if let Some(s) = self.search {
            let row = row_of(&shape.search);
            nodes.push(if s.search_breadth_first {
                let NodeEnum::RowExpr(mut r) = row else {
                    return Err(DbError::internal("search row is not a row"));
                };
                r.args.insert(0, int8_zero());
                wrap(NodeEnum::RowExpr(r))
            } else {
                array_of(row)
            });
        }
        if self.cycle.is_some() {
            nodes.push(array_of(row_of(&shape.cycle)));
        }
        let types: Vec<DataType> = cols.iter().map(|c| c.ty).collect();
        let mut bound = bind_over(b, &types, &nodes)?.into_iter();
        let mut exprs: Vec<Expr> = (0..cols.len()).map(Expr::Col).collect();
        let mut added = Vec::new();
        let names = self.added_names();
        let mut out = |e: Expr, ty: DataType, exprs: &mut Vec<Expr>| {
            exprs.push(e);
            added.push(OutCol {
                name: names[added.len()].clone(),
                ty,
                table_oid: 0,
                column_id: 0,
            });
        };
        if self.search.is_some() {
            let (e, t) = next(&mut bound)?;
            out(e, t, &mut exprs);
        }
        if let Some(c) = &self.cycle {
            out(c.default.clone(), c.ty, &mut exprs);
            let (e, t) = next(&mut bound)?;
            out(e, t, &mut exprs);
        }
        Ok((exprs, added))
    }

    /// The recursive term to plan: `r` with the added columns of the
    /// working table appended to its select list, when `r` is a plain
    /// SELECT reading the working table at its top level.
    pub(crate) fn step_query(&self, r: &pb::SelectStmt, can_extend: bool) -> Step {
        let alias = can_extend
            .then(|| top_level_alias(r, self.cte_name))
            .flatten();
        let Some(alias) = alias else {
            return Step {
                query: r.clone(),
                extended: false,
            };
        };
        let mut query = r.clone();
        for name in self.added_names() {
            query
                .target_list
                .push(wrap(NodeEnum::ResTarget(Box::new(pb::ResTarget {
                    name: name.clone(),
                    val: Some(Box::new(column_ref(&[&alias, &name]))),
                    location: -1,
                    ..Default::default()
                }))));
        }
        Step {
            query,
            extended: true,
        }
    }

    /// The structural checks PostgreSQL makes once the query is known to
    /// be recursive, in its order, then the column lists' (`init_err`).
    pub(crate) fn check(
        &self,
        sel: &pb::SelectStmt,
        step: &Step,
        init_err: Option<DbError>,
    ) -> Result<(), DbError> {
        if sel.larg.as_deref().is_some_and(is_set_op) {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT",
            ));
        }
        if sel.rarg.as_deref().is_some_and(is_set_op) {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT",
            ));
        }
        if let Some(e) = init_err {
            return Err(e);
        }
        if !step.extended {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!(
                    "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"{}\" must be at the top level of its right-hand SELECT",
                    self.cte_name
                ),
            ));
        }
        Ok(())
    }

    /// The recursive term's plan with the added columns computed from its
    /// row (`n` columns of its own, then the working table's added ones),
    /// and the cycle filter.
    pub(crate) fn extend_step(
        &self,
        b: &mut Binder,
        step: Plan,
        step_cols: &[OutCol],
        cte_names: &[String],
    ) -> Result<Plan, DbError> {
        let n = step_cols.len() - self.added();
        let shape = self.shape(b, cte_names)?;
        let types: Vec<DataType> = step_cols.iter().map(|c| c.ty).collect();
        let mut at = n;
        let mut nodes = Vec::new();
        if let Some(s) = self.search {
            let seq = col(at);
            at += 1;
            let row = row_of(&shape.search);
            nodes.push(if s.search_breadth_first {
                let NodeEnum::RowExpr(mut r) = row else {
                    return Err(DbError::internal("search row is not a row"));
                };
                r.args.insert(0, depth_plus_one(seq));
                wrap(NodeEnum::RowExpr(r))
            } else {
                array_cat(seq, array_of(row))
            });
        }
        let cycle_at = at;
        if self.cycle.is_some() {
            let row = row_of(&shape.cycle);
            nodes.push(any_eq(row.clone(), col(cycle_at + 1)));
            nodes.push(array_cat(col(cycle_at + 1), array_of(row)));
        }
        let mut bound = bind_over(b, &types, &nodes)?.into_iter();
        let mut exprs: Vec<Expr> = (0..n).map(Expr::Col).collect();
        if self.search.is_some() {
            exprs.push(next(&mut bound)?.0);
        }
        let Some(c) = &self.cycle else {
            return Ok(Plan::Project {
                input: Box::new(step),
                exprs,
            });
        };
        let seen = next(&mut bound)?.0;
        exprs.push(Expr::Case {
            operand: None,
            whens: vec![(seen, c.value.clone())],
            else_: Some(Box::new(c.default.clone())),
        });
        exprs.push(next(&mut bound)?.0);
        // Rows continue from working-table rows not marked as cycles.
        let mark = req(&c.clause.cycle_mark_value)?.clone();
        let pred = bind_over(b, &types, &[op("<>", col(cycle_at), mark)])?
            .pop()
            .map(|(e, _)| e)
            .ok_or_else(|| DbError::internal("cycle filter not bound"))?;
        Ok(Plan::Project {
            input: Box::new(Plan::Filter {
                input: Box::new(step),
                pred,
            }),
            exprs,
        })
    }
}

/// Bind TO and DEFAULT to their common type (PostgreSQL's "CYCLE types
/// ... cannot be matched", at the default) and check it has `=`.
fn bind_mark<'a>(b: &mut Binder, c: &'a pb::CteCycleClause) -> Result<Cycle<'a>, DbError> {
    let list = [
        req(&c.cycle_mark_value)?.clone(),
        req(&c.cycle_mark_default)?.clone(),
    ];
    let (mut exprs, ty) = b.bind_common(&list, "CYCLE")?;
    if matches!(ty, DataType::Json) {
        return Err(DbError::new(
            SqlState::UndefinedFunction,
            format!(
                "could not identify an equality operator for type {}",
                ty.name()
            ),
        ));
    }
    let default = exprs
        .pop()
        .ok_or_else(|| DbError::internal("cycle default"))?;
    let value = exprs
        .pop()
        .ok_or_else(|| DbError::internal("cycle value"))?;
    Ok(Cycle {
        clause: c,
        value,
        default,
        ty,
    })
}

fn syntax(msg: String) -> DbError {
    DbError::new(SqlState::SyntaxError, msg)
}

/// The positions of a clause's columns among the CTE's (the first of a
/// repeated name, as PostgreSQL's make_path_rowexpr).
fn positions(list: &[Node], names: &[String], what: &str) -> Result<Vec<usize>, DbError> {
    let mut out: Vec<usize> = Vec::with_capacity(list.len());
    for n in bind::names(list) {
        let Some(i) = names.iter().position(|c| *c == n) else {
            return Err(syntax(format!(
                "{what} column \"{n}\" not in WITH query column list"
            )));
        };
        if out.contains(&i) {
            return Err(DbError::new(
                SqlState::DuplicateColumn,
                format!("{what} column \"{n}\" specified more than once"),
            ));
        }
        out.push(i);
    }
    Ok(out)
}

fn is_set_op(s: &pb::SelectStmt) -> bool {
    !matches!(
        super::set_op(s),
        pb::SetOperation::SetopNone | pb::SetOperation::Undefined
    )
}

/// The name the recursive term's FROM list gives the working table at its
/// top level (through JOINs, not in subqueries), None when it is not there
/// or the term's own WITH hides it.
fn top_level_alias(r: &pb::SelectStmt, cte: &str) -> Option<String> {
    if is_set_op(r) {
        return None;
    }
    if let Some(w) = &r.with_clause {
        let hides = w.ctes.iter().any(
            |c| matches!(c.node.as_ref(), Some(NodeEnum::CommonTableExpr(x)) if x.ctename == cte),
        );
        if hides {
            return None;
        }
    }
    r.from_clause.iter().find_map(|n| alias_in(n, cte))
}

fn alias_in(n: &Node, cte: &str) -> Option<String> {
    match n.node.as_ref()? {
        NodeEnum::RangeVar(rv) if rv.schemaname.is_empty() && rv.relname == cte => {
            Some(bind::alias_or(rv, &rv.relname))
        }
        NodeEnum::JoinExpr(j) => j
            .larg
            .as_deref()
            .and_then(|l| alias_in(l, cte))
            .or_else(|| j.rarg.as_deref().and_then(|r| alias_in(r, cte))),
        _ => None,
    }
}

/// Bind `nodes` over a row of `types`, its column i named [`col`]`(i)`,
/// at a level of its own. The nodes are made here: errors have no
/// position in the statement.
fn bind_over(
    b: &mut Binder,
    types: &[DataType],
    nodes: &[Node],
) -> Result<Vec<(Expr, DataType)>, DbError> {
    let cols = types
        .iter()
        .enumerate()
        .map(|(i, &ty)| ScopeCol {
            perm: None,
            rel: String::new(),
            name: col_name(i),
            ty,
            hidden: false,
            table_oid: 0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
            subst: None,
            using_cast: None,
        })
        .collect();
    b.scopes.push(Scope {
        cols,
        floor: 0,
        using_joins: Vec::new(),
        hidden_rels: Vec::new(),
        alias_floor: 0,
        param_start: 0,
        nullable_row_ids: Vec::new(),
        lateral_target: false,
        pending_duplicate: None,
    });
    b.outer_refs.push(None);
    let r: Result<Vec<_>, DbError> = nodes.iter().map(|n| b.bind(n)).collect();
    b.outer_refs.pop();
    b.scopes.pop();
    r.map_err(|mut e| {
        e.position = None;
        e
    })
}

fn next(it: &mut impl Iterator<Item = (Expr, DataType)>) -> Result<(Expr, DataType), DbError> {
    it.next()
        .ok_or_else(|| DbError::internal("search/cycle expression not bound"))
}

fn col_name(i: usize) -> String {
    format!("*{i}*")
}

/// Column `i` of the row [`bind_over`] binds over.
fn col(i: usize) -> Node {
    column_ref(&[&col_name(i)])
}

/// `ROW(c_i, c_j, ...)` of the given columns.
fn row_of(cols: &[usize]) -> NodeEnum {
    NodeEnum::RowExpr(Box::new(pb::RowExpr {
        args: cols.iter().map(|&i| col(i)).collect(),
        location: -1,
        ..Default::default()
    }))
}

fn array_of(elem: NodeEnum) -> Node {
    wrap(NodeEnum::AArrayExpr(pb::AArrayExpr {
        elements: vec![wrap(elem)],
        location: -1,
    }))
}

fn array_cat(a: Node, b: Node) -> Node {
    wrap(NodeEnum::FuncCall(Box::new(pb::FuncCall {
        funcname: vec![string("array_cat")],
        args: vec![a, b],
        location: -1,
        ..Default::default()
    })))
}

fn op(name: &str, l: Node, r: Node) -> Node {
    wrap(NodeEnum::AExpr(Box::new(pb::AExpr {
        kind: pb::AExprKind::AexprOp as i32,
        name: vec![string(name)],
        lexpr: Some(Box::new(l)),
        rexpr: Some(Box::new(r)),
        location: -1,
    })))
}

/// `row = ANY (path)`.
fn any_eq(row: NodeEnum, path: Node) -> Node {
    wrap(NodeEnum::AExpr(Box::new(pb::AExpr {
        kind: pb::AExprKind::AexprOpAny as i32,
        name: vec![string("=")],
        lexpr: Some(Box::new(wrap(row))),
        rexpr: Some(Box::new(path)),
        location: -1,
    })))
}

fn int_const(v: i32) -> Node {
    wrap(NodeEnum::AConst(pb::AConst {
        isnull: false,
        location: -1,
        val: Some(pb::a_const::Val::Ival(pb::Integer { ival: v })),
    }))
}

/// `0::int8`, the depth of the non-recursive term's rows.
fn int8_zero() -> Node {
    wrap(NodeEnum::TypeCast(Box::new(pb::TypeCast {
        arg: Some(Box::new(int_const(0))),
        type_name: Some(pb::TypeName {
            names: vec![string("pg_catalog"), string("int8")],
            typemod: -1,
            location: -1,
            ..Default::default()
        }),
        location: -1,
    })))
}

/// `(seq).f1 + 1`: the depth of a step's row, one more than its working
/// table row's (the first field of the breadth-first search record).
fn depth_plus_one(seq: Node) -> Node {
    let depth = wrap(NodeEnum::AIndirection(Box::new(pb::AIndirection {
        arg: Some(Box::new(seq)),
        indirection: vec![string("f1")],
    })));
    op("+", depth, int_const(1))
}
