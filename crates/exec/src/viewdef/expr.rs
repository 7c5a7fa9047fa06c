//! Expressions: the parse tree analyzed into the nodes PostgreSQL's
//! parse analysis would make (`E`: typed, with the implicit casts and
//! rewrites it adds), then printed as ruleutils' get_rule_expr prints
//! them.
//!
//! The analysis is deliberately small: column types come from the
//! catalog, literals get the type of what they meet (an unknown literal
//! alone becomes text), operators and a table of common functions say
//! which casts PostgreSQL inserts. Anything else is `Unsupported`, and the
//! view keeps its stored text.

use super::{string_list, Col, Deparser, Target, Unsupported, INDENT_VAR, R};
use nestor_common::keywords::quote_identifier;
use nestor_parser::pb;
use nestor_types::{DataType, EvalCtx};
use pb::node::Node as N;

/// How a cast is represented after analysis, which decides whether the
/// cast node itself counts as simple (isSimpleNode): a function cast is,
/// a relabeling or I/O conversion only when its argument is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum CastKind {
    Func,
    Relabel,
    Io,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum BoolOp {
    And,
    Or,
    Not,
}

/// An analyzed expression.
#[derive(Clone, Debug)]
pub(super) enum E {
    Var {
        rte: String,
        col: String,
        ty: Option<DataType>,
    },
    /// A literal: `text` is its value's text (None: NULL); `ty` None is
    /// a literal of unknown type (printed bare).
    Const {
        text: Option<String>,
        ty: Option<DataType>,
    },
    Op {
        name: String,
        args: Vec<E>,
        ty: Option<DataType>,
    },
    Bool {
        op: BoolOp,
        args: Vec<E>,
    },
    Func {
        name: String,
        args: Vec<E>,
        ty: Option<DataType>,
        agg: Option<Box<Agg>>,
        over: Option<Box<Over>>,
    },
    Cast {
        arg: Box<E>,
        ty: DataType,
        implicit: bool,
        kind: CastKind,
    },
    NullTest {
        arg: Box<E>,
        not: bool,
    },
    BoolTest {
        arg: Box<E>,
        test: &'static str,
    },
    Case {
        arg: Option<Box<E>>,
        whens: Vec<(E, E)>,
        default: Box<E>,
        ty: Option<DataType>,
    },
    /// ScalarArrayOpExpr: `left op ANY|ALL (right)`.
    AnyAll {
        op: String,
        all: bool,
        left: Box<E>,
        right: Box<E>,
    },
    Array {
        elems: Vec<E>,
        ty: Option<DataType>,
    },
    Coalesce {
        args: Vec<E>,
        ty: Option<DataType>,
    },
    /// NULLIF, GREATEST, LEAST: `NAME(args)`.
    Keyword {
        name: &'static str,
        args: Vec<E>,
        ty: Option<DataType>,
    },
    /// CURRENT_DATE and the other SQL value functions.
    SqlValue {
        text: &'static str,
        ty: Option<DataType>,
    },
    /// `a IS DISTINCT FROM b` (NOT DISTINCT is NOT over it).
    Distinct {
        args: Vec<E>,
    },
    /// A function PostgreSQL prints in its SQL syntax (get_func_sql_syntax):
    /// EXTRACT, SUBSTRING, POSITION, TRIM.
    SqlFunc {
        form: SqlForm,
        args: Vec<E>,
        ty: Option<DataType>,
    },
    /// A subquery in an expression: printed where it stands (its text
    /// depends on the indentation there).
    SubLink {
        kind: SubKind,
        test: Option<Box<E>>,
        query: Box<pb::SelectStmt>,
        ty: Option<DataType>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum SqlForm {
    Extract(String),
    Substring,
    Position,
    Trim(&'static str),
    AtTimeZone,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum SubKind {
    Exists,
    /// `x IN (...)` (= ANY) or `x op ANY|ALL (...)`.
    Any(&'static str),
    All(&'static str),
    Expr,
    Array,
}

/// An aggregate's decorations.
#[derive(Clone, Debug, Default)]
pub(super) struct Agg {
    star: bool,
    distinct: bool,
    order: Vec<(E, pb::SortBy)>,
    filter: Option<E>,
}

/// A window function's window: named, or an inline specification.
#[derive(Clone, Debug)]
pub(super) enum Over {
    Named(String),
    Spec(Box<WindowSpec>),
}

#[derive(Clone, Debug)]
pub(super) struct WindowSpec {
    partition: Vec<E>,
    order: Vec<(E, pb::SortBy)>,
    frame: i32,
    start: Option<E>,
    end: Option<E>,
}

impl E {
    pub(super) fn ty(&self) -> Option<DataType> {
        match self {
            E::Var { ty, .. }
            | E::Const { ty, .. }
            | E::Op { ty, .. }
            | E::Func { ty, .. }
            | E::Case { ty, .. }
            | E::Array { ty, .. }
            | E::Coalesce { ty, .. }
            | E::Keyword { ty, .. }
            | E::SqlValue { ty, .. }
            | E::SqlFunc { ty, .. }
            | E::SubLink { ty, .. } => *ty,
            E::Cast { ty, .. } => Some(*ty),
            E::Bool { .. }
            | E::NullTest { .. }
            | E::BoolTest { .. }
            | E::AnyAll { .. }
            | E::Distinct { .. } => Some(DataType::Bool),
        }
    }

    pub(super) fn is_null_const(&self) -> bool {
        matches!(self, E::Const { text: None, .. })
    }

    fn is_unknown_literal(&self) -> bool {
        matches!(self, E::Const { ty: None, .. })
    }
}

/// Frame option bits (PostgreSQL's FRAMEOPTION_*; libpg_query keeps them).
mod frame {
    pub const NONDEFAULT: i32 = 0x1;
    pub const RANGE: i32 = 0x2;
    pub const ROWS: i32 = 0x4;
    pub const GROUPS: i32 = 0x8;
    pub const BETWEEN: i32 = 0x10;
    pub const START_UNBOUNDED_PRECEDING: i32 = 0x20;
    pub const END_UNBOUNDED_FOLLOWING: i32 = 0x100;
    pub const START_CURRENT_ROW: i32 = 0x200;
    pub const END_CURRENT_ROW: i32 = 0x400;
    pub const START_OFFSET_PRECEDING: i32 = 0x800;
    pub const END_OFFSET_PRECEDING: i32 = 0x1000;
    pub const START_OFFSET_FOLLOWING: i32 = 0x2000;
    pub const END_OFFSET_FOLLOWING: i32 = 0x4000;
    pub const EXCLUDE_CURRENT_ROW: i32 = 0x8000;
    pub const EXCLUDE_GROUP: i32 = 0x10000;
    pub const EXCLUDE_TIES: i32 = 0x20000;
}

// ---------------------------------------------------------------------
// Analysis
// ---------------------------------------------------------------------

impl Deparser<'_> {
    /// A WHERE/HAVING/ON condition, a target entry or any other
    /// expression, analyzed; unknown literals left standing alone become
    /// text as PostgreSQL resolves them in a view.
    pub(super) fn analyze(&mut self, n: &pb::Node) -> R<E> {
        let e = self.analyze_inner(n)?;
        Ok(resolve_unknown(e))
    }

    /// LIMIT/OFFSET: coerced to bigint (a literal becomes bigint, an
    /// integer expression gets an implicit, unshown cast).
    pub(super) fn analyze_limit(&mut self, n: &pb::Node) -> R<E> {
        let e = self.analyze_inner(n)?;
        coerce(e, DataType::Int8)
    }

    /// A VALUES item (unknown literals stay unknown until the column's
    /// type is settled).
    pub(super) fn analyze_value(&mut self, n: &pb::Node) -> R<E> {
        self.analyze_inner(n)
    }

    /// The target list with `*` expanded.
    pub(super) fn targets(&mut self, list: &[pb::Node]) -> R<Vec<Target>> {
        let mut out = Vec::new();
        for t in list {
            let Some(N::ResTarget(rt)) = t.node.as_ref() else {
                return Err(Unsupported);
            };
            if !rt.indirection.is_empty() {
                return Err(Unsupported);
            }
            let val = rt.val.as_deref().ok_or(Unsupported)?;
            if let Some(N::ColumnRef(cr)) = val.node.as_ref() {
                if matches!(
                    cr.fields.last().and_then(|f| f.node.as_ref()),
                    Some(N::AStar(_))
                ) {
                    self.expand_star(cr, &mut out)?;
                    continue;
                }
            }
            let expr = self.analyze(val)?;
            let name = if rt.name.is_empty() {
                figure_colname(val)
            } else {
                rt.name.clone()
            };
            out.push(Target { expr, name });
        }
        Ok(out)
    }

    /// `*` or `rel.*`: the columns of the entries of this level.
    fn expand_star(&mut self, cr: &pb::ColumnRef, out: &mut Vec<Target>) -> R<()> {
        let fields = &cr.fields[..cr.fields.len() - 1];
        let qual = string_list(fields)?;
        let level = self.levels.last().ok_or(Unsupported)?;
        let cols: Vec<(String, E)> = match qual.as_slice() {
            [] => level.items.iter().flatten().cloned().collect(),
            [rel] => {
                let r = level
                    .rtes
                    .iter()
                    .find(|r| !r.hidden && &r.refname == rel)
                    .ok_or(Unsupported)?;
                (0..r.cols.len())
                    .map(|c| (r.cols[c].name.clone(), var(r, c)))
                    .collect()
            }
            _ => return Err(Unsupported),
        };
        if cols.is_empty() {
            return Err(Unsupported);
        }
        out.extend(cols.into_iter().map(|(name, expr)| Target { expr, name }));
        Ok(())
    }

    /// GROUP BY / ORDER BY / DISTINCT ON item: an output column number,
    /// an output column name (ORDER BY prefers those; GROUP BY prefers
    /// input columns) or an expression.
    pub(super) fn sort_group_expr(
        &mut self,
        n: &pb::Node,
        targets: &[Target],
        group: bool,
    ) -> R<E> {
        match n.node.as_ref() {
            Some(N::AConst(pb::AConst {
                val: Some(pb::a_const::Val::Ival(i)),
                ..
            })) => {
                let k = usize::try_from(i.ival).map_err(|_| Unsupported)?;
                let t = targets
                    .get(k.checked_sub(1).ok_or(Unsupported)?)
                    .ok_or(Unsupported)?;
                return Ok(t.expr.clone());
            }
            Some(N::ColumnRef(cr)) if cr.fields.len() == 1 => {
                let name = string_list(&cr.fields)?.remove(0);
                let input = self.resolve_column(std::slice::from_ref(&name)).is_ok();
                let by_name: Vec<&Target> = targets.iter().filter(|t| t.name == name).collect();
                if (!group || !input) && !by_name.is_empty() {
                    if by_name.len() > 1 {
                        return Err(Unsupported);
                    }
                    return Ok(by_name[0].expr.clone());
                }
            }
            _ => {}
        }
        self.analyze(n)
    }

    fn analyze_inner(&mut self, n: &pb::Node) -> R<E> {
        self.step()?;
        match n.node.as_ref().ok_or(Unsupported)? {
            N::ColumnRef(cr) => {
                let names = string_list(&cr.fields)?;
                self.resolve_column(&names)
            }
            N::AConst(c) => literal(c),
            N::TypeCast(tc) => self.type_cast(tc),
            N::AExpr(a) => self.a_expr(a),
            N::BoolExpr(b) => self.bool_expr(b),
            N::NullTest(t) => {
                let arg =
                    resolve_unknown(self.analyze_inner(t.arg.as_deref().ok_or(Unsupported)?)?);
                if matches!(arg.ty(), Some(DataType::Record(_)) | None) {
                    return Err(Unsupported);
                }
                Ok(E::NullTest {
                    arg: Box::new(arg),
                    not: t.nulltesttype == pb::NullTestType::IsNotNull as i32,
                })
            }
            N::BooleanTest(t) => {
                let arg = self.analyze_inner(t.arg.as_deref().ok_or(Unsupported)?)?;
                let arg = coerce(arg, DataType::Bool)?;
                let test = match pb::BoolTestType::try_from(t.booltesttype) {
                    Ok(pb::BoolTestType::IsTrue) => " IS TRUE",
                    Ok(pb::BoolTestType::IsNotTrue) => " IS NOT TRUE",
                    Ok(pb::BoolTestType::IsFalse) => " IS FALSE",
                    Ok(pb::BoolTestType::IsNotFalse) => " IS NOT FALSE",
                    Ok(pb::BoolTestType::IsUnknown) => " IS UNKNOWN",
                    Ok(pb::BoolTestType::IsNotUnknown) => " IS NOT UNKNOWN",
                    _ => return Err(Unsupported),
                };
                Ok(E::BoolTest {
                    arg: Box::new(arg),
                    test,
                })
            }
            N::FuncCall(f) => self.func_call(f),
            N::CaseExpr(c) => self.case_expr(c),
            N::CoalesceExpr(c) => {
                let args = c
                    .args
                    .iter()
                    .map(|a| self.analyze_inner(a))
                    .collect::<R<Vec<E>>>()?;
                let (args, ty) = unify(args)?;
                Ok(E::Coalesce { args, ty: Some(ty) })
            }
            N::AArrayExpr(a) => {
                let elems = a
                    .elements
                    .iter()
                    .map(|x| self.analyze_inner(x))
                    .collect::<R<Vec<E>>>()?;
                if elems.is_empty() {
                    return Err(Unsupported);
                }
                let (elems, ty) = unify(elems)?;
                let ty = ty.array_of();
                if ty.is_none() {
                    return Err(Unsupported);
                }
                Ok(E::Array { elems, ty })
            }
            N::SubLink(s) => self.sublink(s),
            N::MinMaxExpr(m) => {
                let name = match pb::MinMaxOp::try_from(m.op) {
                    Ok(pb::MinMaxOp::IsGreatest) => "GREATEST",
                    Ok(pb::MinMaxOp::IsLeast) => "LEAST",
                    _ => return Err(Unsupported),
                };
                let args = m
                    .args
                    .iter()
                    .map(|a| self.analyze_inner(a))
                    .collect::<R<Vec<E>>>()?;
                let (args, ty) = unify(args)?;
                Ok(E::Keyword {
                    name,
                    args,
                    ty: Some(ty),
                })
            }
            N::SqlvalueFunction(f) => sql_value(f.op),
            _ => Err(Unsupported),
        }
    }

    /// A column reference: the innermost level whose entries have the
    /// column (qualified references match the entry's name).
    pub(super) fn resolve_column(&self, names: &[String]) -> R<E> {
        for level in self.levels.iter().rev() {
            let found = match names {
                [col] => {
                    if let Some((_, e)) = level.merged.iter().rev().find(|m| &m.0 == col) {
                        Some(e.clone())
                    } else {
                        let mut hits = level.rtes.iter().filter(|r| !r.hidden).filter_map(|r| {
                            r.cols
                                .iter()
                                .position(|c| &c.name == col)
                                .map(|c| var(r, c))
                        });
                        let first = hits.next();
                        if hits.next().is_some() {
                            return Err(Unsupported);
                        }
                        first
                    }
                }
                [rel, col] => level
                    .rtes
                    .iter()
                    .find(|r| !r.hidden && &r.refname == rel)
                    .map(|r| {
                        r.cols
                            .iter()
                            .position(|c| &c.name == col)
                            .map(|c| var(r, c))
                    })
                    .map(|v| v.ok_or(Unsupported))
                    .transpose()?,
                _ => return Err(Unsupported),
            };
            if let Some(v) = found {
                return Ok(v);
            }
        }
        Err(Unsupported)
    }

    fn type_cast(&mut self, tc: &pb::TypeCast) -> R<E> {
        let tn = tc.type_name.as_ref().ok_or(Unsupported)?;
        let ty = nestor_plan::bind::type_from_name(tn).map_err(|_| Unsupported)?;
        if matches!(ty, DataType::Record(_)) {
            return Err(Unsupported);
        }
        let arg_node = tc.arg.as_deref().ok_or(Unsupported)?;
        if let (Some(N::AArrayExpr(a)), DataType::Array(elem)) = (arg_node.node.as_ref(), ty) {
            // `ARRAY['a', 'b']::text[]`: the element type is pushed down
            // to the elements (transformArrayExpr), no cast remains.
            let elems = a
                .elements
                .iter()
                .map(|x| {
                    let e = self.analyze_inner(x)?;
                    match e.ty() {
                        Some(t) if !same_type(t, *elem) => Err(Unsupported),
                        _ => coerce(e, *elem),
                    }
                })
                .collect::<R<Vec<E>>>()?;
            return Ok(E::Array {
                elems,
                ty: Some(ty),
            });
        }
        let arg = self.analyze_inner(arg_node)?;
        if let E::Const { text, ty: None } = arg {
            // A literal cast is the constant of that type.
            if ty == DataType::Unknown {
                return Ok(E::Const { text, ty: None });
            }
            return Ok(E::Const { text, ty: Some(ty) });
        }
        let from = arg.ty().ok_or(Unsupported)?;
        if from == ty {
            return Ok(arg);
        }
        Ok(E::Cast {
            arg: Box::new(arg),
            ty,
            implicit: false,
            kind: cast_kind(from, ty),
        })
    }

    fn a_expr(&mut self, a: &pb::AExpr) -> R<E> {
        let kind = pb::AExprKind::try_from(a.kind).map_err(|_| Unsupported)?;
        let name = string_list(&a.name)?;
        let op = match name.as_slice() {
            [op] => op.clone(),
            _ => return Err(Unsupported),
        };
        let left = a.lexpr.as_deref();
        let right = a.rexpr.as_deref().ok_or(Unsupported)?;
        match kind {
            pb::AExprKind::AexprOp if is_row(left) || is_row(Some(right)) => {
                self.row_comparison(&op, left.ok_or(Unsupported)?, right)
            }
            pb::AExprKind::AexprOp | pb::AExprKind::AexprLike | pb::AExprKind::AexprIlike => {
                let r = self.analyze_inner(right)?;
                match left {
                    Some(l) => {
                        let l = self.analyze_inner(l)?;
                        binary(&op, l, r)
                    }
                    None => prefix(&op, r),
                }
            }
            pb::AExprKind::AexprIn => self.in_list(&op, left.ok_or(Unsupported)?, right),
            pb::AExprKind::AexprOpAny | pb::AExprKind::AexprOpAll => {
                let x = self.analyze_inner(left.ok_or(Unsupported)?)?;
                let arr = self.analyze_inner(right)?;
                let all = kind == pb::AExprKind::AexprOpAll;
                any_all(&op, all, x, arr)
            }
            pb::AExprKind::AexprNullif
            | pb::AExprKind::AexprDistinct
            | pb::AExprKind::AexprNotDistinct => {
                let l = self.analyze_inner(left.ok_or(Unsupported)?)?;
                let r = self.analyze_inner(right)?;
                // The operands meet as `=` makes them meet.
                let E::Op { args, .. } = binary("=", l, r)? else {
                    return Err(Unsupported);
                };
                match kind {
                    pb::AExprKind::AexprNullif => {
                        let ty = args.first().and_then(E::ty);
                        Ok(E::Keyword {
                            name: "NULLIF",
                            args,
                            ty,
                        })
                    }
                    pb::AExprKind::AexprDistinct => Ok(E::Distinct { args }),
                    _ => Ok(E::Bool {
                        op: BoolOp::Not,
                        args: vec![E::Distinct { args }],
                    }),
                }
            }
            pb::AExprKind::AexprBetween | pb::AExprKind::AexprNotBetween => {
                let Some(N::List(bounds)) = right.node.as_ref() else {
                    return Err(Unsupported);
                };
                let [lo, hi] = bounds.items.as_slice() else {
                    return Err(Unsupported);
                };
                let x = self.analyze_inner(left.ok_or(Unsupported)?)?;
                let (lo, hi) = (self.analyze_inner(lo)?, self.analyze_inner(hi)?);
                let not = kind == pb::AExprKind::AexprNotBetween;
                let (o1, o2, b) = if not {
                    ("<", ">", BoolOp::Or)
                } else {
                    (">=", "<=", BoolOp::And)
                };
                Ok(E::Bool {
                    op: b,
                    args: vec![binary(o1, x.clone(), lo)?, binary(o2, x, hi)?],
                })
            }
            _ => Err(Unsupported),
        }
    }

    /// `(a, b) = (1, 2)`: the pairwise comparisons joined by AND (`<>`:
    /// by OR), as make_row_comparison_op builds them. Ordering
    /// comparisons (a RowCompareExpr) are not covered.
    fn row_comparison(&mut self, op: &str, left: &pb::Node, right: &pb::Node) -> R<E> {
        let items = |d: &mut Self, n: &pb::Node| -> R<Vec<E>> {
            let Some(N::RowExpr(r)) = n.node.as_ref() else {
                return Err(Unsupported);
            };
            r.args.iter().map(|a| d.analyze_inner(a)).collect()
        };
        let (l, r) = (items(self, left)?, items(self, right)?);
        if l.len() != r.len() || l.is_empty() {
            return Err(Unsupported);
        }
        let bool_op = match op {
            "=" => BoolOp::And,
            "<>" => BoolOp::Or,
            _ => return Err(Unsupported),
        };
        let mut args = l
            .into_iter()
            .zip(r)
            .map(|(a, b)| binary(op, a, b))
            .collect::<R<Vec<E>>>()?;
        if args.len() == 1 {
            return args.pop().ok_or(Unsupported);
        }
        Ok(E::Bool { op: bool_op, args })
    }

    /// `x IN (a, b)`: one comparison for one item, else `x = ANY
    /// (ARRAY[a, b])` (`<> ALL` for NOT IN) when every item is free of
    /// column references, as transformAExprIn builds it.
    fn in_list(&mut self, op: &str, left: &pb::Node, right: &pb::Node) -> R<E> {
        let Some(N::List(items)) = right.node.as_ref() else {
            return Err(Unsupported);
        };
        let x = self.analyze_inner(left)?;
        let items = items
            .items
            .iter()
            .map(|i| self.analyze_inner(i))
            .collect::<R<Vec<E>>>()?;
        if items.len() == 1 {
            return binary(op, x, items.into_iter().next().ok_or(Unsupported)?);
        }
        if items.iter().any(|i| !matches!(i, E::Const { .. })) {
            return Err(Unsupported);
        }
        let all = match op {
            "=" => false,
            "<>" => true,
            _ => return Err(Unsupported),
        };
        let xt = without_typmod(x.ty().ok_or(Unsupported)?);
        if let DataType::Varchar(_) = xt {
            // No varchar operators: the array is built of varchar and
            // cast to text[], x cast to text.
            let elems = items
                .into_iter()
                .map(|i| coerce(i, xt))
                .collect::<R<Vec<E>>>()?;
            let text_array = DataType::Text.array_of().ok_or(Unsupported)?;
            return Ok(E::AnyAll {
                op: op.to_string(),
                all,
                left: Box::new(to_text(x)?),
                right: Box::new(E::Cast {
                    arg: Box::new(E::Array {
                        elems,
                        ty: xt.array_of(),
                    }),
                    ty: text_array,
                    implicit: true,
                    kind: CastKind::Io,
                }),
            });
        }
        if !plain_operand_type(xt) {
            return Err(Unsupported);
        }
        let elems = items
            .into_iter()
            .map(|i| coerce(i, xt))
            .collect::<R<Vec<E>>>()?;
        Ok(E::AnyAll {
            op: op.to_string(),
            all,
            left: Box::new(x),
            right: Box::new(E::Array {
                elems,
                ty: xt.array_of(),
            }),
        })
    }

    fn bool_expr(&mut self, b: &pb::BoolExpr) -> R<E> {
        let op = match pb::BoolExprType::try_from(b.boolop) {
            Ok(pb::BoolExprType::AndExpr) => BoolOp::And,
            Ok(pb::BoolExprType::OrExpr) => BoolOp::Or,
            Ok(pb::BoolExprType::NotExpr) => BoolOp::Not,
            _ => return Err(Unsupported),
        };
        let args = b
            .args
            .iter()
            .map(|a| {
                self.analyze_inner(a)
                    .and_then(|e| coerce(e, DataType::Bool))
            })
            .collect::<R<Vec<E>>>()?;
        Ok(E::Bool { op, args })
    }

    fn case_expr(&mut self, c: &pb::CaseExpr) -> R<E> {
        let arg = match c.arg.as_deref() {
            Some(a) => Some(resolve_unknown(self.analyze_inner(a)?)),
            None => None,
        };
        let mut conds = Vec::new();
        let mut results = Vec::new();
        for w in &c.args {
            let Some(N::CaseWhen(cw)) = w.node.as_ref() else {
                return Err(Unsupported);
            };
            let cond = self.analyze_inner(cw.expr.as_deref().ok_or(Unsupported)?)?;
            let cond = match &arg {
                Some(a) => {
                    // `CASE x WHEN v`: `x = v` made as the operator makes
                    // it; v printed alone.
                    let E::Op { mut args, .. } = binary("=", a.clone(), cond)? else {
                        return Err(Unsupported);
                    };
                    args.pop().ok_or(Unsupported)?
                }
                None => coerce(cond, DataType::Bool)?,
            };
            conds.push(cond);
            results.push(self.analyze_inner(cw.result.as_deref().ok_or(Unsupported)?)?);
        }
        let default = match c.defresult.as_deref() {
            Some(d) => self.analyze_inner(d)?,
            None => E::Const {
                text: None,
                ty: None,
            },
        };
        results.push(default);
        let (mut results, ty) = unify(results)?;
        let default = results.pop().ok_or(Unsupported)?;
        Ok(E::Case {
            arg: arg.map(Box::new),
            whens: conds.into_iter().zip(results).collect(),
            default: Box::new(default),
            ty: Some(ty),
        })
    }

    fn sublink(&mut self, s: &pb::SubLink) -> R<E> {
        let Some(N::SelectStmt(q)) = s.subselect.as_deref().and_then(|q| q.node.as_ref()) else {
            return Err(Unsupported);
        };
        // The subquery's columns, from a rendering thrown away: it is
        // printed again where it stands.
        let outer = std::mem::take(&mut self.buf);
        let saved = self.indent;
        let cols = self.query(q, None, false);
        self.buf = outer;
        self.indent = saved;
        let cols = cols?;
        let first = cols.first().and_then(|c| c.ty);
        let kind = pb::SubLinkType::try_from(s.sub_link_type).map_err(|_| Unsupported)?;
        let (kind, test, ty) = match kind {
            pb::SubLinkType::ExistsSublink => (SubKind::Exists, None, Some(DataType::Bool)),
            pb::SubLinkType::ExprSublink if cols.len() == 1 => (SubKind::Expr, None, first),
            pb::SubLinkType::ArraySublink if cols.len() == 1 => {
                (SubKind::Array, None, first.and_then(|t| t.array_of()))
            }
            pb::SubLinkType::AnySublink | pb::SubLinkType::AllSublink if cols.len() == 1 => {
                let op = match string_list(&s.oper_name)?.as_slice() {
                    [] => "=".to_string(),
                    [op] => op.clone(),
                    _ => return Err(Unsupported),
                };
                let op = comparison(&op).ok_or(Unsupported)?;
                let x = self.analyze_inner(s.testexpr.as_deref().ok_or(Unsupported)?)?;
                let t = first.ok_or(Unsupported)?;
                if x.ty().is_some_and(|xt| xt != t) || !plain_operand_type(t) {
                    return Err(Unsupported);
                }
                let x = coerce(x, t)?;
                let kind = if s.sub_link_type == pb::SubLinkType::AllSublink as i32 {
                    SubKind::All(op)
                } else {
                    SubKind::Any(op)
                };
                (kind, Some(Box::new(x)), Some(DataType::Bool))
            }
            _ => return Err(Unsupported),
        };
        Ok(E::SubLink {
            kind,
            test,
            query: Box::new((**q).clone()),
            ty,
        })
    }

    fn func_call(&mut self, f: &pb::FuncCall) -> R<E> {
        if f.funcformat == pb::CoercionForm::CoerceSqlSyntax as i32 {
            return self.sql_syntax_call(f);
        }
        if f.func_variadic
            || f.agg_within_group
            || f.funcformat != pb::CoercionForm::CoerceExplicitCall as i32
        {
            return Err(Unsupported);
        }
        let name = match string_list(&f.funcname)?.as_slice() {
            [n] => n.clone(),
            [schema, n] if schema == "pg_catalog" => n.clone(),
            _ => return Err(Unsupported),
        };
        let args = f
            .args
            .iter()
            .map(|a| self.analyze_inner(a))
            .collect::<R<Vec<E>>>()?;
        let user = self.c.functions(&name);
        let (args, ty, is_agg, window) = if user.is_empty() {
            let (args, ty) = function_signature(&name, args, f.agg_star)?;
            (args, ty, is_aggregate(&name), is_window(&name))
        } else {
            let (args, ty, agg) = user_function(&user, args)?;
            (args, ty, agg, false)
        };
        let agg = if is_agg {
            let mut order = Vec::new();
            for s in &f.agg_order {
                let Some(N::SortBy(sb)) = s.node.as_ref() else {
                    return Err(Unsupported);
                };
                let e =
                    resolve_unknown(self.analyze_inner(sb.node.as_deref().ok_or(Unsupported)?)?);
                order.push((e, (**sb).clone()));
            }
            let filter = match f.agg_filter.as_deref() {
                Some(x) => Some(coerce(self.analyze_inner(x)?, DataType::Bool)?),
                None => None,
            };
            Some(Box::new(Agg {
                star: f.agg_star,
                distinct: f.agg_distinct,
                order,
                filter,
            }))
        } else {
            if f.agg_star || f.agg_distinct || !f.agg_order.is_empty() || f.agg_filter.is_some() {
                return Err(Unsupported);
            }
            None
        };
        let over = match f.over.as_deref() {
            Some(w) if is_agg || window => Some(Box::new(self.window(w)?)),
            Some(_) => return Err(Unsupported),
            None if window => return Err(Unsupported),
            None => None,
        };
        Ok(E::Func {
            name,
            args,
            ty,
            agg,
            over,
        })
    }

    /// EXTRACT, SUBSTRING ... FROM ... FOR, POSITION ... IN, TRIM: the
    /// functions written in SQL syntax that PostgreSQL prints back so.
    fn sql_syntax_call(&mut self, f: &pb::FuncCall) -> R<E> {
        if f.over.is_some() || f.agg_filter.is_some() || !f.agg_order.is_empty() {
            return Err(Unsupported);
        }
        let name = match string_list(&f.funcname)?.as_slice() {
            [schema, n] if schema == "pg_catalog" => n.clone(),
            _ => return Err(Unsupported),
        };
        let args = f
            .args
            .iter()
            .map(|a| self.analyze_inner(a))
            .collect::<R<Vec<E>>>()?;
        use DataType::*;
        let types: Vec<Option<DataType>> = args.iter().map(E::ty).collect();
        let (form, args, ty) = match (name.as_str(), args.len()) {
            ("extract", 2) => {
                let mut it = args.into_iter();
                let Some(E::Const {
                    text: Some(field),
                    ty: None,
                }) = it.next()
                else {
                    return Err(Unsupported);
                };
                let src = it.next().ok_or(Unsupported)?;
                let ok = matches!(
                    src.ty(),
                    Some(Date | Timestamp(_) | TimestampTz(_) | Time(_) | Interval(_))
                );
                if !ok || !field.chars().all(|c| c.is_ascii_alphabetic()) {
                    return Err(Unsupported);
                }
                (
                    SqlForm::Extract(field.to_ascii_lowercase()),
                    vec![src],
                    Some(Numeric(None)),
                )
            }
            ("substring", 2 | 3) if matches!(types.get(1), Some(Some(Int4)) | Some(None)) => {
                let mut it = args.into_iter();
                let s = to_text(it.next().ok_or(Unsupported)?)?;
                let rest = it.map(|a| coerce(a, Int4)).collect::<R<Vec<E>>>()?;
                (
                    SqlForm::Substring,
                    std::iter::once(s).chain(rest).collect(),
                    Some(Text),
                )
            }
            ("position", 2) => {
                let args = args.into_iter().map(to_text).collect::<R<Vec<E>>>()?;
                (SqlForm::Position, args, Some(Int4))
            }
            ("timezone", 2) => {
                // `x AT TIME ZONE zone`: args are (zone, x).
                let mut it = args.into_iter();
                let zone = it.next().ok_or(Unsupported)?;
                let x = it.next().ok_or(Unsupported)?;
                let ty = match x.ty() {
                    Some(TimestampTz(_)) => Timestamp(None),
                    Some(Timestamp(_)) => TimestampTz(None),
                    Some(TimeTz(_)) => TimeTz(None),
                    _ => return Err(Unsupported),
                };
                let zone = match zone.ty() {
                    Some(Interval(_)) => zone,
                    _ => coerce(zone, Text)?,
                };
                if !matches!(zone.ty(), Some(Text | Interval(_))) {
                    return Err(Unsupported);
                }
                (SqlForm::AtTimeZone, vec![zone, x], Some(ty))
            }
            ("btrim" | "ltrim" | "rtrim", 1 | 2) => {
                let side = match name.as_str() {
                    "btrim" => "BOTH",
                    "ltrim" => "LEADING",
                    _ => "TRAILING",
                };
                let args = args.into_iter().map(to_text).collect::<R<Vec<E>>>()?;
                (SqlForm::Trim(side), args, Some(Text))
            }
            _ => return Err(Unsupported),
        };
        Ok(E::SqlFunc { form, args, ty })
    }

    fn window(&mut self, w: &pb::WindowDef) -> R<Over> {
        if !w.name.is_empty() {
            // `OVER w`: a window of the WINDOW clause.
            let known = self
                .levels
                .last()
                .is_some_and(|l| l.windows.iter().any(|(n, _)| n == &w.name));
            return known
                .then(|| Over::Named(w.name.clone()))
                .ok_or(Unsupported);
        }
        Ok(Over::Spec(Box::new(self.window_spec_of(w)?)))
    }

    /// A window specification (inline or of the WINDOW clause).
    pub(super) fn window_spec_of(&mut self, w: &pb::WindowDef) -> R<WindowSpec> {
        if !w.refname.is_empty() {
            return Err(Unsupported);
        }
        let partition = w
            .partition_clause
            .iter()
            .map(|p| self.analyze(p))
            .collect::<R<Vec<E>>>()?;
        let mut order = Vec::new();
        for s in &w.order_clause {
            let Some(N::SortBy(sb)) = s.node.as_ref() else {
                return Err(Unsupported);
            };
            let e = self.analyze(sb.node.as_deref().ok_or(Unsupported)?)?;
            order.push((e, (**sb).clone()));
        }
        // ROWS/GROUPS offsets are bigint; a RANGE offset has the sort
        // column's type (an interval for dates and times).
        let offset_ty = if w.frame_options & (frame::ROWS | frame::GROUPS) != 0 {
            Some(DataType::Int8)
        } else {
            match order.first().and_then(|(e, _)| e.ty()) {
                Some(t) if is_datetime(t) => Some(DataType::Interval(None)),
                Some(t) if rank(t).is_some() => Some(t),
                _ => None,
            }
        };
        let offset = |d: &mut Self, n: Option<&pb::Node>| -> R<Option<E>> {
            let Some(n) = n else {
                return Ok(None);
            };
            let e = d.analyze_inner(n)?;
            let t = offset_ty.ok_or(Unsupported)?;
            let fits = e.is_unknown_literal()
                || e.ty()
                    .is_some_and(|et| same_type(et, t) || (t == DataType::Int8 && is_int(et)));
            if !fits {
                return Err(Unsupported);
            }
            Ok(Some(coerce(e, t)?))
        };
        let start = offset(self, w.start_offset.as_deref())?;
        let end = offset(self, w.end_offset.as_deref())?;
        Ok(WindowSpec {
            partition,
            order,
            frame: w.frame_options,
            start,
            end,
        })
    }
}

/// `x op ANY|ALL (array)`: the array's elements of x's type (a literal
/// array takes it), x a literal of the elements' type.
fn any_all(op: &str, all: bool, x: E, arr: E) -> R<E> {
    let op = comparison(op).ok_or(Unsupported)?;
    let (x, arr) = match (x.is_unknown_literal(), arr.is_unknown_literal()) {
        (_, true) => {
            let t = x.ty().ok_or(Unsupported)?;
            let at = t.array_of().ok_or(Unsupported)?;
            (x, coerce(arr, at)?)
        }
        (true, false) => match arr.ty() {
            Some(DataType::Array(el)) => (coerce(x, *el)?, arr),
            _ => return Err(Unsupported),
        },
        (false, false) => (x, arr),
    };
    match (x.ty(), arr.ty()) {
        (Some(t), Some(DataType::Array(el))) if same_type(t, *el) && plain_operand_type(t) => {}
        _ => return Err(Unsupported),
    }
    Ok(E::AnyAll {
        op: op.to_string(),
        all,
        left: Box::new(x),
        right: Box::new(arr),
    })
}

/// Whether an operand is a row constructor `(a, b)` / `ROW(...)`.
fn is_row(n: Option<&pb::Node>) -> bool {
    matches!(n.and_then(|n| n.node.as_ref()), Some(N::RowExpr(_)))
}

/// CURRENT_DATE and friends: their keyword and type.
fn sql_value(op: i32) -> R<E> {
    use pb::SqlValueFunctionOp as F;
    let (text, ty) = match F::try_from(op).map_err(|_| Unsupported)? {
        F::SvfopCurrentDate => ("CURRENT_DATE", DataType::Date),
        F::SvfopCurrentTime => ("CURRENT_TIME", DataType::TimeTz(None)),
        F::SvfopCurrentTimestamp => ("CURRENT_TIMESTAMP", DataType::TimestampTz(None)),
        F::SvfopLocaltime => ("LOCALTIME", DataType::Time(None)),
        F::SvfopLocaltimestamp => ("LOCALTIMESTAMP", DataType::Timestamp(None)),
        F::SvfopCurrentRole => ("CURRENT_ROLE", DataType::Name),
        F::SvfopCurrentUser => ("CURRENT_USER", DataType::Name),
        F::SvfopUser => ("USER", DataType::Name),
        F::SvfopSessionUser => ("SESSION_USER", DataType::Name),
        F::SvfopCurrentCatalog => ("CURRENT_CATALOG", DataType::Name),
        F::SvfopCurrentSchema => ("CURRENT_SCHEMA", DataType::Name),
        _ => return Err(Unsupported),
    };
    Ok(E::SqlValue { text, ty: Some(ty) })
}

/// A column of an entry as a Var.
pub(super) fn var(r: &super::Rte, c: usize) -> E {
    let col: &Col = &r.cols[c];
    E::Var {
        rte: r.name.clone(),
        col: col.name.clone(),
        ty: col.ty,
    }
}

/// A literal as the parser types it: integers int4 (int8 when larger),
/// decimals numeric, strings unknown.
fn literal(c: &pb::AConst) -> R<E> {
    use pb::a_const::Val;
    if c.isnull {
        return Ok(E::Const {
            text: None,
            ty: None,
        });
    }
    match c.val.as_ref().ok_or(Unsupported)? {
        Val::Ival(i) => Ok(E::Const {
            text: Some(i.ival.to_string()),
            ty: Some(DataType::Int4),
        }),
        Val::Fval(f) => {
            let t = &f.fval;
            if t.contains(['e', 'E']) || t.starts_with('.') || t.ends_with('.') {
                return Err(Unsupported);
            }
            let ty = if t.contains('.') || t.parse::<i64>().is_err() {
                DataType::Numeric(None)
            } else {
                DataType::Int8
            };
            Ok(E::Const {
                text: Some(t.trim_start_matches('+').to_string()),
                ty: Some(ty),
            })
        }
        Val::Boolval(b) => Ok(E::Const {
            text: Some(if b.boolval { "true" } else { "false" }.to_string()),
            ty: Some(DataType::Bool),
        }),
        Val::Sval(s) => Ok(E::Const {
            text: Some(s.sval.clone()),
            ty: None,
        }),
        Val::Bsval(_) => Err(Unsupported),
    }
}

/// A literal's text as the constant of `ty` prints it: strings as
/// written, integers, numerics and booleans normalized here, other types
/// through their input and output functions.
fn normalize_literal(text: &str, ty: DataType, eval: &EvalCtx) -> R<String> {
    match ty {
        DataType::Int2 | DataType::Int4 | DataType::Int8 => text
            .trim()
            .parse::<i64>()
            .map(|v| v.to_string())
            .map_err(|_| Unsupported),
        DataType::Numeric(None) => {
            let t = text.trim();
            let ok = !t.is_empty()
                && t.trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.')
                && t.matches('.').count() <= 1
                && !t.starts_with('.')
                && !t.ends_with('.');
            ok.then(|| t.to_string()).ok_or(Unsupported)
        }
        DataType::Bool => match text.trim().to_ascii_lowercase().as_str() {
            "t" | "true" | "yes" | "y" | "on" | "1" => Ok("true".into()),
            "f" | "false" | "no" | "n" | "off" | "0" => Ok("false".into()),
            _ => Err(Unsupported),
        },
        DataType::Text | DataType::Varchar(None) | DataType::Char(None) | DataType::Name => {
            Ok(text.to_string())
        }
        // An explicit cast to varchar(n) truncates.
        DataType::Varchar(Some(n)) => Ok(text.chars().take(n as usize).collect()),
        DataType::Char(_) | DataType::Numeric(Some(_)) => Err(Unsupported),
        // Dates, intervals and the rest: the value's output text, as the
        // constant PostgreSQL stored prints under the session's styles.
        _ => nestor_types::text::parse_text(ty, text, eval)
            .map(|v| v.to_text(eval))
            .map_err(|_| Unsupported),
    }
}

/// An unknown literal standing alone: text.
fn resolve_unknown(e: E) -> E {
    match e {
        E::Const { text, ty: None } => E::Const {
            text,
            ty: Some(DataType::Text),
        },
        e => e,
    }
}

/// `e` as type `ty` the way an implicit coercion makes it: literals of
/// unknown type become constants of it, other expressions get an
/// implicit cast (shown only where ruleutils shows implicit casts).
fn coerce(e: E, ty: DataType) -> R<E> {
    match e {
        E::Const { text, ty: None } => Ok(E::Const { text, ty: Some(ty) }),
        e => {
            let from = e.ty().ok_or(Unsupported)?;
            if same_type(from, ty) {
                return Ok(e);
            }
            if !implicit_castable(from, ty) {
                return Err(Unsupported);
            }
            Ok(E::Cast {
                arg: Box::new(e),
                ty,
                implicit: true,
                kind: cast_kind(from, ty),
            })
        }
    }
}

pub(super) fn same_type(a: DataType, b: DataType) -> bool {
    use DataType::*;
    matches!(
        (a, b),
        (Numeric(_), Numeric(_))
            | (Varchar(_), Varchar(_))
            | (Char(_), Char(_))
            | (Timestamp(_), Timestamp(_))
            | (TimestampTz(_), TimestampTz(_))
            | (Interval(_), Interval(_))
    ) || a == b
}

/// The common type of two USING columns: the same type, or the wider
/// of two numeric types.
pub(super) fn common_type(a: DataType, b: DataType) -> R<DataType> {
    if same_type(a, b) {
        return Ok(a);
    }
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) if x >= y => Ok(a),
        (Some(_), Some(_)) => Ok(b),
        _ => Err(Unsupported),
    }
}

/// The implicit casts this module places (PostgreSQL's pg_cast
/// `castcontext = 'i'` among the common types).
fn implicit_castable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    if let (Some(a), Some(b)) = (rank(from), rank(to)) {
        return a < b;
    }
    matches!(
        (from, to),
        (Varchar(_) | Char(_) | Name, Text)
            | (Text | Char(_), Varchar(_))
            | (Date, Timestamp(_) | TimestampTz(_))
            | (Timestamp(_), TimestampTz(_))
    )
}

/// The numeric types' promotion order.
fn rank(t: DataType) -> Option<u8> {
    match t {
        DataType::Int2 => Some(0),
        DataType::Int4 => Some(1),
        DataType::Int8 => Some(2),
        DataType::Numeric(_) => Some(3),
        DataType::Float4 => Some(4),
        DataType::Float8 => Some(5),
        _ => None,
    }
}

fn is_int(t: DataType) -> bool {
    matches!(t, DataType::Int2 | DataType::Int4 | DataType::Int8)
}

fn cast_kind(from: DataType, to: DataType) -> CastKind {
    use DataType::*;
    match (from, to) {
        (Varchar(_), Text) | (Text, Varchar(_)) | (Varchar(_), Varchar(_)) => CastKind::Relabel,
        (_, Text | Varchar(_)) | (Text | Varchar(_), _) => CastKind::Io,
        _ => CastKind::Func,
    }
}

/// Types an `= ANY (ARRAY[...])` or subquery comparison prints without
/// extra casts.
fn plain_operand_type(t: DataType) -> bool {
    matches!(
        t,
        DataType::Int2
            | DataType::Int4
            | DataType::Int8
            | DataType::Numeric(_)
            | DataType::Float8
            | DataType::Text
            | DataType::Bool
            | DataType::Date
    )
}

/// The comparison operators' names (static for SubKind).
fn comparison(op: &str) -> Option<&'static str> {
    ["=", "<>", "<", ">", "<=", ">="]
        .into_iter()
        .find(|c| *c == op)
}

/// A prefix operator (`- x`).
fn prefix(op: &str, arg: E) -> R<E> {
    let t = arg.ty().ok_or(Unsupported)?;
    if op != "-" || rank(t).is_none() {
        return Err(Unsupported);
    }
    if let E::Const { text: Some(v), ty } = &arg {
        if !v.starts_with('-') {
            // The grammar folds `-` into a numeric literal.
            return Ok(E::Const {
                text: Some(format!("-{v}")),
                ty: *ty,
            });
        }
    }
    Ok(E::Op {
        name: op.to_string(),
        args: vec![arg],
        ty: Some(t),
    })
}

/// A binary operator: the operand casts PostgreSQL's operator resolution
/// implies and the result type.
fn binary(op: &str, l: E, r: E) -> R<E> {
    if matches!(op, "->" | "->>" | "@>" | "<@" | "?") {
        return json_op(op, l, r);
    }
    let cmp = comparison(op).is_some();
    let like = matches!(
        op,
        "~~" | "!~~" | "~~*" | "!~~*" | "~" | "!~" | "~*" | "!~*"
    );
    let arith = matches!(op, "+" | "-" | "*" | "/" | "%");
    let (l, r) = match (l.is_unknown_literal(), r.is_unknown_literal()) {
        (true, true) if cmp || like || op == "||" => {
            (coerce(l, DataType::Text)?, coerce(r, DataType::Text)?)
        }
        (true, true) => return Err(Unsupported),
        (true, false) => {
            let t = operand_type_for_literal(r.ty().ok_or(Unsupported)?, like || op == "||");
            (coerce(l, t)?, r)
        }
        (false, true) => {
            let t = operand_type_for_literal(l.ty().ok_or(Unsupported)?, like || op == "||");
            let r = coerce(r, t)?;
            (l, r)
        }
        (false, false) => (l, r),
    };
    let (lt, rt) = (l.ty().ok_or(Unsupported)?, r.ty().ok_or(Unsupported)?);
    if op == "||" && is_texty(lt) != is_texty(rt) {
        // textanycat / anytextcat: the other side goes as it is.
        let plain = |t: DataType| !matches!(t, DataType::Array(_) | DataType::Unknown);
        if !(plain(lt) && plain(rt)) {
            return Err(Unsupported);
        }
        let (l, r) = if is_texty(lt) {
            (to_text(l)?, r)
        } else {
            (l, to_text(r)?)
        };
        return Ok(E::Op {
            name: op.to_string(),
            args: vec![l, r],
            ty: Some(DataType::Text),
        });
    }
    if like || op == "||" {
        if !(is_texty(lt) && is_texty(rt)) {
            return Err(Unsupported);
        }
        let ty = if like { DataType::Bool } else { DataType::Text };
        return Ok(E::Op {
            name: op.to_string(),
            args: vec![to_text(l)?, to_text(r)?],
            ty: Some(ty),
        });
    }
    if !(cmp || arith) {
        return Err(Unsupported);
    }
    let (l, r, common) = match (rank(lt), rank(rt)) {
        (Some(a), Some(b)) => numeric_operands(l, r, a, b, op)?,
        _ if is_texty(lt) && is_texty(rt) && cmp => {
            if matches!((lt, rt), (DataType::Char(_), DataType::Char(_)))
                || (lt == DataType::Name && rt == DataType::Name)
                || matches!(
                    (lt, rt),
                    (DataType::Name, DataType::Text) | (DataType::Text, DataType::Name)
                )
            {
                (l, r, lt)
            } else {
                (to_text(l)?, to_text(r)?, DataType::Text)
            }
        }
        _ if same_type(lt, rt) && cmp => (l, r, lt),
        _ if cmp && is_datetime(lt) && is_datetime(rt) => (l, r, lt),
        _ => return datetime_arith(op, l, r),
    };
    let ty = if cmp { DataType::Bool } else { common };
    Ok(E::Op {
        name: op.to_string(),
        args: vec![l, r],
        ty: Some(ty),
    })
}

/// The json/jsonb operators: `->`/`->>` by key (a literal key is text)
/// or index, jsonb containment and key existence.
fn json_op(op: &str, l: E, r: E) -> R<E> {
    use DataType::*;
    let lt = l.ty().ok_or(Unsupported)?;
    if !matches!(lt, Json | Jsonb) {
        return Err(Unsupported);
    }
    let literal = r.is_unknown_literal();
    let (r, ty) = match op {
        "->" | "->>" => {
            let r = if literal { coerce(r, Text)? } else { r };
            if !matches!(r.ty(), Some(Text | Int4)) {
                return Err(Unsupported);
            }
            (r, if op == "->" { lt } else { Text })
        }
        "@>" | "<@" if lt == Jsonb && (literal || r.ty() == Some(Jsonb)) => {
            (coerce(r, Jsonb)?, Bool)
        }
        "?" if lt == Jsonb && (literal || r.ty() == Some(Text)) => (coerce(r, Text)?, Bool),
        _ => return Err(Unsupported),
    };
    Ok(E::Op {
        name: op.to_string(),
        args: vec![l, r],
        ty: Some(ty),
    })
}

/// What type an unknown literal takes facing `other`: its type, except
/// that string operators (LIKE, ||) and varchar comparisons work on text.
fn operand_type_for_literal(other: DataType, string_op: bool) -> DataType {
    match other {
        DataType::Varchar(_) | DataType::Name => DataType::Text,
        DataType::Char(_) if string_op => DataType::Text,
        DataType::Char(_) => DataType::Char(None),
        t if string_op && !is_texty(t) => DataType::Text,
        t => without_typmod(t),
    }
}

/// A type without its modifier: what an implicit coercion to a common
/// or operator input type targets (typmod -1).
fn without_typmod(t: DataType) -> DataType {
    use DataType::*;
    match t {
        Numeric(_) => Numeric(None),
        Varchar(_) => Varchar(None),
        Char(_) => Char(None),
        Timestamp(_) => Timestamp(None),
        TimestampTz(_) => TimestampTz(None),
        Time(_) => Time(None),
        TimeTz(_) => TimeTz(None),
        Interval(_) => Interval(None),
        Bit(_) => Bit(None),
        VarBit(_) => VarBit(None),
        t => t,
    }
}

/// Numeric operands: integers of different widths meet through
/// PostgreSQL's cross-type operators (no cast; `%` has none), anything
/// else is promoted to the wider type.
fn numeric_operands(l: E, r: E, a: u8, b: u8, op: &str) -> R<(E, E, DataType)> {
    let (lt, rt) = (l.ty().ok_or(Unsupported)?, r.ty().ok_or(Unsupported)?);
    let wider = if a >= b { lt } else { rt };
    let cross = (is_int(lt) && is_int(rt) && op != "%")
        || (matches!(
            (lt, rt),
            (DataType::Float4, DataType::Float8) | (DataType::Float8, DataType::Float4)
        ));
    let wider = match wider {
        DataType::Numeric(_) => DataType::Numeric(None),
        w => w,
    };
    if cross || a == b {
        return Ok((l, r, wider));
    }
    Ok((coerce(l, wider)?, coerce(r, wider)?, wider))
}

fn is_datetime(t: DataType) -> bool {
    matches!(
        t,
        DataType::Date | DataType::Timestamp(_) | DataType::TimestampTz(_)
    )
}

/// Date/time arithmetic with the result types of PostgreSQL's
/// operators (date - date is integer, date + integer date, ...).
fn datetime_arith(op: &str, l: E, r: E) -> R<E> {
    use DataType::*;
    let (lt, rt) = (l.ty().ok_or(Unsupported)?, r.ty().ok_or(Unsupported)?);
    let ty = match (lt, op, rt) {
        (Date, "-", Date) => Int4,
        (Date, "+" | "-", Int4) | (Int4, "+", Date) => Date,
        (Date, "+" | "-", Interval(_)) => Timestamp(None),
        (Timestamp(_), "+" | "-", Interval(_)) => Timestamp(None),
        (TimestampTz(_), "+" | "-", Interval(_)) => TimestampTz(None),
        (Timestamp(_), "-", Timestamp(_)) | (TimestampTz(_), "-", TimestampTz(_)) => Interval(None),
        (Interval(_), "+" | "-", Interval(_)) => Interval(None),
        _ => return Err(Unsupported),
    };
    Ok(E::Op {
        name: op.to_string(),
        args: vec![l, r],
        ty: Some(ty),
    })
}

fn is_texty(t: DataType) -> bool {
    matches!(
        t,
        DataType::Text | DataType::Varchar(_) | DataType::Char(_) | DataType::Name
    )
}

/// A string operand as text (varchar relabeled, char and name cast).
fn to_text(e: E) -> R<E> {
    match e.ty() {
        Some(DataType::Text) => Ok(e),
        Some(DataType::Name) => Err(Unsupported),
        _ => coerce(e, DataType::Text),
    }
}

/// Common type of CASE results, COALESCE arguments, ARRAY elements:
/// the first typed one's (all typed ones must agree, up to numeric
/// promotion), text when all are unknown literals.
pub(super) fn unify(items: Vec<E>) -> R<(Vec<E>, DataType)> {
    let mut ty: Option<DataType> = None;
    for i in &items {
        if i.is_unknown_literal() {
            continue;
        }
        let t = i.ty().ok_or(Unsupported)?;
        ty = Some(match ty {
            None => t,
            Some(u) if same_type(u, t) => u,
            Some(u) => match (rank(u), rank(t)) {
                (Some(a), Some(b)) if a >= b => u,
                (Some(_), Some(_)) => t,
                _ => return Err(Unsupported),
            },
        });
    }
    // Literals take the common type without a modifier
    // (coerce_to_common_type uses typmod -1): `'x'::character varying`.
    let ty = ty.map_or(DataType::Text, without_typmod);
    let items = items
        .into_iter()
        .map(|i| coerce(i, ty))
        .collect::<R<Vec<E>>>()?;
    Ok((items, ty))
}

fn is_aggregate(name: &str) -> bool {
    matches!(
        name,
        "jsonb_agg"
            | "json_agg"
            | "count"
            | "sum"
            | "avg"
            | "min"
            | "max"
            | "string_agg"
            | "array_agg"
            | "bool_and"
            | "bool_or"
            | "every"
    )
}

fn is_window(name: &str) -> bool {
    matches!(
        name,
        "row_number"
            | "rank"
            | "dense_rank"
            | "percent_rank"
            | "cume_dist"
            | "ntile"
            | "lag"
            | "lead"
            | "first_value"
            | "last_value"
            | "nth_value"
    )
}

/// The common built-in functions: their arguments as PostgreSQL coerces
/// them and their result type. Others are `Unsupported`.
fn function_signature(name: &str, args: Vec<E>, star: bool) -> R<(Vec<E>, Option<DataType>)> {
    use DataType::*;
    let types: Vec<Option<DataType>> = args.iter().map(E::ty).collect();
    let first = types.first().copied().flatten();
    let one = |args: Vec<E>, t: DataType| -> R<Vec<E>> {
        args.into_iter().map(|a| coerce(a, t)).collect()
    };
    match (name, args.len()) {
        ("count", 0) if star => Ok((args, Some(Int8))),
        ("count", 1) => Ok((
            vec![resolve_unknown(args.into_iter().next().ok_or(Unsupported)?)],
            Some(Int8),
        )),
        ("sum", 1) => {
            let t = first.ok_or(Unsupported)?;
            let ty = match t {
                Int2 | Int4 => Int8,
                Int8 | Numeric(_) => Numeric(None),
                Float4 | Float8 | Interval(_) | Money => t,
                _ => return Err(Unsupported),
            };
            Ok((args, Some(ty)))
        }
        ("avg", 1) => {
            let t = first.ok_or(Unsupported)?;
            let ty = match t {
                Int2 | Int4 | Int8 | Numeric(_) => Numeric(None),
                Float4 | Float8 => Float8,
                Interval(_) => t,
                _ => return Err(Unsupported),
            };
            Ok((args, Some(ty)))
        }
        ("min" | "max", 1) => {
            let t = first.ok_or(Unsupported)?;
            match t {
                // No varchar min/max: the text ones, through a cast.
                Varchar(_) => Ok((one(args, Text)?, Some(Text))),
                Char(_) => Err(Unsupported),
                _ => Ok((args, Some(t))),
            }
        }
        ("bool_and" | "bool_or" | "every", 1) => Ok((one(args, Bool)?, Some(Bool))),
        ("string_agg", 2) => {
            if matches!(first, Some(Bytea)) {
                return Err(Unsupported);
            }
            Ok((one(args, Text)?, Some(Text)))
        }
        ("array_agg", 1) => {
            let t = first.ok_or(Unsupported)?;
            Ok((args, t.array_of()))
        }
        ("row_number" | "rank" | "dense_rank", 0) => Ok((args, Some(Int8))),
        ("percent_rank" | "cume_dist", 0) => Ok((args, Some(Float8))),
        ("ntile", 1) => Ok((one(args, Int4)?, Some(Int4))),
        ("lag" | "lead" | "first_value" | "last_value", 1) => {
            let t = first.ok_or(Unsupported)?;
            Ok((args, Some(t)))
        }
        ("lag" | "lead", 2) => {
            let t = first.ok_or(Unsupported)?;
            let mut it = args.into_iter();
            let a = it.next().ok_or(Unsupported)?;
            let n = coerce(it.next().ok_or(Unsupported)?, Int4)?;
            Ok((vec![a, n], Some(t)))
        }
        ("upper" | "lower" | "btrim" | "ltrim" | "rtrim" | "md5" | "initcap" | "reverse", 1) => {
            Ok((one(args, Text)?, Some(Text)))
        }
        ("length" | "char_length" | "octet_length", 1) => {
            if matches!(first, Some(Char(_)) | Some(Bytea)) {
                return Err(Unsupported);
            }
            Ok((one(args, Text)?, Some(Int4)))
        }
        ("replace", 3) => Ok((one(args, Text)?, Some(Text))),
        ("substr", 2 | 3) | ("left" | "right" | "repeat", 2) => {
            let mut it = args.into_iter();
            let s = coerce(it.next().ok_or(Unsupported)?, Text)?;
            let rest = it.map(|a| coerce(a, Int4)).collect::<R<Vec<E>>>()?;
            Ok((std::iter::once(s).chain(rest).collect(), Some(Text)))
        }
        ("abs", 1) => {
            let t = first.ok_or(Unsupported)?;
            rank(t).ok_or(Unsupported)?;
            Ok((args, Some(t)))
        }
        ("round", 1 | 2) if matches!(first, Some(Numeric(_))) => {
            let mut it = args.into_iter();
            let x = it.next().ok_or(Unsupported)?;
            let rest = it.map(|a| coerce(a, Int4)).collect::<R<Vec<E>>>()?;
            Ok((
                std::iter::once(x).chain(rest).collect(),
                Some(Numeric(None)),
            ))
        }
        ("now", 0) => Ok((args, Some(TimestampTz(None)))),
        ("split_part", 3) => fixed(args, &[Text, Text, Int4], Text),
        ("current_setting", 1) => fixed(args, &[Text], Text),
        ("regexp_replace", 3) => fixed(args, &[Text, Text, Text], Text),
        ("regexp_replace", 4) => fixed(args, &[Text, Text, Text, Text], Text),
        ("strpos", 2) => fixed(args, &[Text, Text], Int4),
        ("lpad" | "rpad", 2) => fixed(args, &[Text, Int4], Text),
        ("lpad" | "rpad", 3) => fixed(args, &[Text, Int4, Text], Text),
        ("to_date", 2) => fixed(args, &[Text, Text], Date),
        ("to_timestamp", 2) => fixed(args, &[Text, Text], TimestampTz(None)),
        ("to_number", 2) => fixed(args, &[Text, Text], Numeric(None)),
        ("mod", 2) if types.iter().all(|t| matches!(t, Some(Int4) | None)) => {
            fixed(args, &[Int4, Int4], Int4)
        }
        ("ceil" | "ceiling" | "floor" | "trunc" | "sqrt", 1) => match first {
            Some(Numeric(_)) => fixed(args, &[Numeric(None)], Numeric(None)),
            Some(Float8) => fixed(args, &[Float8], Float8),
            _ => Err(Unsupported),
        },
        ("age", 2) => match (first, types.get(1).copied().flatten()) {
            (Some(TimestampTz(_)), Some(TimestampTz(_))) => fixed(
                args,
                &[TimestampTz(None), TimestampTz(None)],
                Interval(None),
            ),
            (Some(Timestamp(_)), Some(Timestamp(_))) => {
                fixed(args, &[Timestamp(None), Timestamp(None)], Interval(None))
            }
            _ => Err(Unsupported),
        },
        ("jsonb_agg", 1) if first.is_some() => Ok((args, Some(Jsonb))),
        ("json_agg", 1) if first.is_some() => Ok((args, Some(Json))),
        ("date_trunc", 2) if matches!(types.get(1), Some(Some(Timestamp(_) | TimestampTz(_)))) => {
            let ty = types[1];
            let mut it = args.into_iter();
            let unit = coerce(it.next().ok_or(Unsupported)?, Text)?;
            Ok((vec![unit, it.next().ok_or(Unsupported)?], ty))
        }
        ("to_char", 2)
            if matches!(
                first,
                Some(Timestamp(_) | TimestampTz(_) | Numeric(_) | Int4 | Int8 | Float8)
            ) =>
        {
            let mut it = args.into_iter();
            let v = it.next().ok_or(Unsupported)?;
            let fmt = coerce(it.next().ok_or(Unsupported)?, Text)?;
            Ok((vec![v, fmt], Some(Text)))
        }
        // concat takes "any": its literals stay unknown (printed bare).
        ("concat", 1..) => Ok((args, Some(Text))),
        ("random", 0) => Ok((args, Some(Float8))),
        ("generate_series", 2 | 3) if types.iter().all(|t| matches!(t, Some(Int4))) => {
            Ok((args, Some(Int4)))
        }
        ("generate_series", 3) if matches!(first, Some(Timestamp(_) | TimestampTz(_))) => {
            let t = first.ok_or(Unsupported)?;
            let mut it = args.into_iter();
            let a = coerce(it.next().ok_or(Unsupported)?, t)?;
            let b = coerce(it.next().ok_or(Unsupported)?, t)?;
            let step = coerce(it.next().ok_or(Unsupported)?, Interval(None))?;
            Ok((vec![a, b, step], Some(t)))
        }
        ("unnest", 1) if matches!(first, Some(Array(_))) => Ok((args, first)),
        _ => Err(Unsupported),
    }
}

/// A call of a function or aggregate made with CREATE FUNCTION /
/// CREATE AGGREGATE: only the plain case, one definition of that name
/// whose parameters the arguments match exactly (literals take the
/// parameter's type), no defaults, variadics or polymorphic types.
fn user_function(
    defs: &[std::sync::Arc<nestor_catalog::FunctionDef>],
    args: Vec<E>,
) -> R<(Vec<E>, Option<DataType>, bool)> {
    let [def] = defs else {
        return Err(Unsupported);
    };
    let ty = match &def.returns {
        nestor_catalog::function::Returns::Scalar(t)
            if !def.retset && def.result_domain.is_none() =>
        {
            *t
        }
        _ => return Err(Unsupported),
    };
    let params = &def.args;
    let plain = params.iter().all(|p| {
        p.mode == nestor_catalog::function::ArgMode::In
            && p.default.is_none()
            && p.domain.is_none()
            && !is_poly(p.ty)
    });
    if def.procedure || !plain || params.len() != args.len() || is_poly(ty) {
        return Err(Unsupported);
    }
    let args = args
        .into_iter()
        .zip(params)
        .map(|(a, p)| match a.ty() {
            Some(t) if same_type(t, p.ty) => Ok(a),
            Some(_) => Err(Unsupported),
            None => coerce(a, p.ty),
        })
        .collect::<R<Vec<E>>>()?;
    Ok((args, Some(ty), def.aggregate.is_some()))
}

/// A polymorphic pseudo-type, or an array of one.
fn is_poly(t: DataType) -> bool {
    matches!(t, DataType::Poly(_) | DataType::Record(_))
        || matches!(t, DataType::Array(DataType::Poly(_)))
}

/// A function of fixed parameter types: literals take them, other
/// arguments of another type get the implicit cast (shown, as on any
/// function argument); anything else is not this function.
fn fixed(args: Vec<E>, params: &[DataType], ret: DataType) -> R<(Vec<E>, Option<DataType>)> {
    if args.len() != params.len() {
        return Err(Unsupported);
    }
    let args = args
        .into_iter()
        .zip(params)
        .map(|(a, p)| coerce(a, *p))
        .collect::<R<Vec<E>>>()?;
    Ok((args, Some(ret)))
}

/// FigureColname: the name the parser gives an output column.
fn figure_colname(n: &pb::Node) -> String {
    match n.node.as_ref() {
        Some(N::ColumnRef(cr)) => string_list(&cr.fields)
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_else(|| "?column?".into()),
        Some(N::FuncCall(f)) => string_list(&f.funcname)
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_else(|| "?column?".into()),
        Some(N::TypeCast(tc)) => {
            let inner = tc
                .arg
                .as_deref()
                .map(figure_colname)
                .filter(|s| s != "?column?");
            inner.unwrap_or_else(|| {
                tc.type_name
                    .as_ref()
                    .and_then(|t| string_list(&t.names).ok())
                    .and_then(|mut v| v.pop())
                    .unwrap_or_else(|| "?column?".into())
            })
        }
        Some(N::CaseExpr(_)) => "case".into(),
        Some(N::MinMaxExpr(m)) => match pb::MinMaxOp::try_from(m.op) {
            Ok(pb::MinMaxOp::IsGreatest) => "greatest".into(),
            _ => "least".into(),
        },
        Some(N::AExpr(a)) if a.kind == pb::AExprKind::AexprNullif as i32 => "nullif".into(),
        Some(N::SqlvalueFunction(f)) => match pb::SqlValueFunctionOp::try_from(f.op) {
            Ok(pb::SqlValueFunctionOp::SvfopCurrentDate) => "current_date".into(),
            Ok(pb::SqlValueFunctionOp::SvfopCurrentTime) => "current_time".into(),
            Ok(pb::SqlValueFunctionOp::SvfopCurrentTimestamp) => "current_timestamp".into(),
            Ok(pb::SqlValueFunctionOp::SvfopLocaltime) => "localtime".into(),
            Ok(pb::SqlValueFunctionOp::SvfopLocaltimestamp) => "localtimestamp".into(),
            Ok(pb::SqlValueFunctionOp::SvfopCurrentRole) => "current_role".into(),
            Ok(pb::SqlValueFunctionOp::SvfopCurrentUser) => "current_user".into(),
            Ok(pb::SqlValueFunctionOp::SvfopUser) => "user".into(),
            Ok(pb::SqlValueFunctionOp::SvfopSessionUser) => "session_user".into(),
            Ok(pb::SqlValueFunctionOp::SvfopCurrentCatalog) => "current_catalog".into(),
            _ => "current_schema".into(),
        },
        Some(N::CoalesceExpr(_)) => "coalesce".into(),
        Some(N::AArrayExpr(_)) => "array".into(),
        Some(N::SubLink(s)) => match pb::SubLinkType::try_from(s.sub_link_type) {
            Ok(pb::SubLinkType::ExistsSublink) => "exists".into(),
            Ok(pb::SubLinkType::ArraySublink) => "array".into(),
            _ => "?column?".into(),
        },
        _ => "?column?".into(),
    }
}

// ---------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------

/// Whether a parent gives its arguments parentheses of its own or
/// separates them (function-like nodes, CASE; not casts).
fn separates(parent: &E) -> bool {
    matches!(
        parent,
        E::Func { .. } | E::Array { .. } | E::Coalesce { .. } | E::Case { .. } | E::Keyword { .. }
    )
}

/// The single-character binary operator of an Op (for precedence).
fn simple_op(e: &E) -> Option<char> {
    match e {
        E::Op { name, args, .. } if args.len() == 2 && name.len() == 1 => name.chars().next(),
        _ => None,
    }
}

/// isSimpleNode: whether `node` needs no parentheses under `parent`
/// (`first`: it is the parent's first argument).
fn is_simple(node: &E, parent: &E, first: bool) -> bool {
    match node {
        E::Var { .. } | E::Const { .. } => true,
        E::Func { .. }
        | E::Array { .. }
        | E::Coalesce { .. }
        | E::Case { .. }
        | E::Keyword { .. }
        | E::SqlValue { .. }
        | E::SqlFunc { .. } => true,
        E::Cast { arg, kind, .. } => match kind {
            CastKind::Func => true,
            _ => is_simple(arg, node, true),
        },
        E::Op { .. } if matches!(parent, E::Op { .. }) => {
            let (Some(op), Some(pop)) = (simple_op(node), simple_op(parent)) else {
                return false;
            };
            let lo = |c: char| "+-".contains(c);
            let hi = |c: char| "*/%".contains(c);
            if !(lo(op) || hi(op)) || !(lo(pop) || hi(pop)) {
                return false;
            }
            if hi(op) && lo(pop) {
                return true;
            }
            if lo(op) && hi(pop) {
                return false;
            }
            first
        }
        E::Op { .. }
        | E::NullTest { .. }
        | E::BoolTest { .. }
        | E::SubLink { .. }
        | E::Distinct { .. } => separates(parent) || matches!(parent, E::Bool { .. }),
        E::Bool { op, .. } => match parent {
            E::Bool { op: pop, .. } => match op {
                BoolOp::Not | BoolOp::And => matches!(pop, BoolOp::And | BoolOp::Or),
                BoolOp::Or => *pop == BoolOp::Or,
            },
            p => separates(p),
        },
        E::AnyAll { .. } => false,
    }
}

impl Deparser<'_> {
    /// get_rule_expr.
    pub(super) fn expr(&mut self, e: &E, show_implicit: bool) -> R<()> {
        self.step()?;
        let pretty = self.layout.pretty;
        match e {
            E::Var { rte, col, .. } => {
                // A FULL JOIN's merged column has no entry: its name alone.
                if !rte.is_empty() {
                    self.buf.push_str(&quote_identifier(rte));
                    self.buf.push('.');
                }
                self.buf.push_str(&quote_identifier(col));
            }
            E::Const { text, ty } => self.constant(text.as_deref(), *ty, false)?,
            E::Op { name, args, .. } => {
                if !pretty {
                    self.buf.push('(');
                }
                match args.as_slice() {
                    [l, r] => {
                        self.paren_expr(l, e, true, true)?;
                        self.buf.push_str(&format!(" {name} "));
                        self.paren_expr(r, e, true, false)?;
                    }
                    [a] => {
                        self.buf.push_str(&format!("{name} "));
                        self.paren_expr(a, e, true, true)?;
                    }
                    _ => return Err(Unsupported),
                }
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::Bool { op, args } => {
                if !pretty {
                    self.buf.push('(');
                }
                match op {
                    BoolOp::Not => {
                        self.buf.push_str("NOT ");
                        self.paren_expr(args.first().ok_or(Unsupported)?, e, false, true)?;
                    }
                    BoolOp::And | BoolOp::Or => {
                        let sep = if *op == BoolOp::And { " AND " } else { " OR " };
                        for (i, a) in args.iter().enumerate() {
                            if i > 0 {
                                self.buf.push_str(sep);
                            }
                            self.paren_expr(a, e, false, i == 0)?;
                        }
                    }
                }
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::Cast {
                arg, ty, implicit, ..
            } => {
                if *implicit && !show_implicit {
                    return self.paren_expr(arg, e, false, true);
                }
                self.coercion(arg, *ty, e)?;
            }
            E::NullTest { arg, not } => {
                if !pretty {
                    self.buf.push('(');
                }
                self.paren_expr(arg, e, true, true)?;
                self.buf
                    .push_str(if *not { " IS NOT NULL" } else { " IS NULL" });
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::BoolTest { arg, test } => {
                if !pretty {
                    self.buf.push('(');
                }
                self.paren_expr(arg, e, false, true)?;
                self.buf.push_str(test);
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::Func { .. } => self.func(e)?,
            E::Case {
                arg,
                whens,
                default,
                ..
            } => {
                self.keyword("CASE", 0, INDENT_VAR, 0);
                if let Some(a) = arg {
                    self.buf.push(' ');
                    self.expr(a, true)?;
                }
                for (w, r) in whens {
                    self.keyword("WHEN ", 0, 0, 0);
                    self.expr(w, false)?;
                    self.buf.push_str(" THEN ");
                    self.expr(r, true)?;
                }
                self.keyword("ELSE ", 0, 0, 0);
                self.expr(default, true)?;
                self.keyword("END", -INDENT_VAR, 0, 0);
            }
            E::AnyAll {
                op,
                all,
                left,
                right,
            } => {
                if !pretty {
                    self.buf.push('(');
                }
                self.paren_expr(left, e, true, true)?;
                self.buf
                    .push_str(&format!(" {op} {} (", if *all { "ALL" } else { "ANY" }));
                self.paren_expr(right, e, true, false)?;
                self.buf.push(')');
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::Array { elems, .. } => {
                self.buf.push_str("ARRAY[");
                for (i, x) in elems.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(", ");
                    }
                    self.expr(x, true)?;
                }
                self.buf.push(']');
            }
            E::Keyword { name, args, .. } => {
                self.buf.push_str(name);
                self.buf.push('(');
                for (i, x) in args.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(", ");
                    }
                    self.expr(x, true)?;
                }
                self.buf.push(')');
            }
            E::SqlValue { text, .. } => self.buf.push_str(text),
            E::Distinct { args } => {
                let [l, r] = args.as_slice() else {
                    return Err(Unsupported);
                };
                if !pretty {
                    self.buf.push('(');
                }
                self.paren_expr(l, e, true, true)?;
                self.buf.push_str(" IS DISTINCT FROM ");
                self.paren_expr(r, e, true, false)?;
                if !pretty {
                    self.buf.push(')');
                }
            }
            E::SqlFunc { form, args, .. } => self.sql_func(form, args)?,
            E::Coalesce { args, .. } => {
                self.buf.push_str("COALESCE(");
                for (i, x) in args.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(", ");
                    }
                    self.expr(x, true)?;
                }
                self.buf.push(')');
            }
            E::SubLink {
                kind, test, query, ..
            } => self.sublink_expr(*kind, test.as_deref(), query)?,
        }
        Ok(())
    }

    /// get_func_sql_syntax (its arguments without implicit casts).
    fn sql_func(&mut self, form: &SqlForm, args: &[E]) -> R<()> {
        match (form, args) {
            (SqlForm::Extract(field), [x]) => {
                self.buf.push_str(&format!("EXTRACT({field} FROM "));
                self.expr(x, false)?;
            }
            (SqlForm::Substring, [s, rest @ ..]) => {
                self.buf.push_str("SUBSTRING(");
                self.expr(s, false)?;
                for (kw, x) in [" FROM ", " FOR "].into_iter().zip(rest) {
                    self.buf.push_str(kw);
                    self.expr(x, false)?;
                }
            }
            (SqlForm::Position, [haystack, needle]) => {
                self.buf.push_str("POSITION((");
                self.expr(needle, false)?;
                self.buf.push_str(") IN (");
                self.expr(haystack, false)?;
                self.buf.push(')');
            }
            (SqlForm::AtTimeZone, [zone, x]) => {
                let node = E::SqlFunc {
                    form: SqlForm::AtTimeZone,
                    args: Vec::new(),
                    ty: None,
                };
                self.buf.push('(');
                self.paren_expr(x, &node, false, true)?;
                self.buf.push_str(" AT TIME ZONE ");
                self.paren_expr(zone, &node, false, false)?;
                self.buf.push(')');
                return Ok(());
            }
            (SqlForm::Trim(side), [s, chars @ ..]) => {
                self.buf.push_str("TRIM(");
                self.buf.push_str(side);
                if let Some(c) = chars.first() {
                    self.buf.push(' ');
                    self.expr(c, false)?;
                }
                self.buf.push_str(" FROM ");
                self.expr(s, false)?;
            }
            _ => return Err(Unsupported),
        }
        self.buf.push(')');
        Ok(())
    }

    /// get_rule_expr_paren.
    fn paren_expr(&mut self, node: &E, parent: &E, show_implicit: bool, first: bool) -> R<()> {
        let paren = self.layout.pretty && !is_simple(node, parent, first);
        if paren {
            self.buf.push('(');
        }
        self.expr(node, show_implicit)?;
        if paren {
            self.buf.push(')');
        }
        Ok(())
    }

    /// get_coercion_expr: `arg::type`, the argument parenthesized
    /// unless pretty printing finds it simple.
    fn coercion(&mut self, arg: &E, ty: DataType, node: &E) -> R<()> {
        let pretty = self.layout.pretty;
        if !pretty {
            self.buf.push('(');
        }
        self.paren_expr(arg, node, false, true)?;
        if !pretty {
            self.buf.push(')');
        }
        self.buf.push_str("::");
        self.buf.push_str(&ty.to_string());
        Ok(())
    }

    /// get_const_expr with showtype 0 (or `always`: 1).
    fn constant(&mut self, text: Option<&str>, ty: Option<DataType>, always: bool) -> R<()> {
        let Some(v) = text else {
            self.buf.push_str("NULL");
            if let Some(t) = ty {
                self.buf.push_str("::");
                self.buf.push_str(&t.to_string());
            }
            return Ok(());
        };
        let normalized = match ty {
            Some(t) => normalize_literal(v, t, self.eval)?,
            None => v.to_string(),
        };
        let v = normalized.as_str();
        if v.contains('\\') {
            return Err(Unsupported);
        }
        let label = match ty {
            Some(DataType::Int4) if !v.starts_with('-') => {
                self.buf.push_str(v);
                false
            }
            Some(DataType::Numeric(None))
                if v.starts_with(|c: char| c.is_ascii_digit()) && v.contains('.') =>
            {
                self.buf.push_str(v);
                false
            }
            Some(DataType::Bool) => {
                self.buf.push_str(v);
                false
            }
            None => {
                self.buf.push_str(&quote_literal(v));
                false
            }
            Some(_) => {
                self.buf.push_str(&quote_literal(v));
                true
            }
        };
        if let Some(t) = ty.filter(|_| label || always) {
            self.buf.push_str("::");
            self.buf.push_str(&t.to_string());
        }
        Ok(())
    }

    /// A GROUP BY / ORDER BY item (get_rule_sortgroupclause): a
    /// constant with its type, a column bare, anything else in
    /// parentheses when pretty or function-like.
    pub(super) fn sortgroup(&mut self, e: &E) -> R<()> {
        match e {
            E::Const { text, ty } => self.constant(text.as_deref(), *ty, true),
            E::Var { .. } => self.expr(e, true),
            _ => {
                let paren = self.layout.pretty || matches!(e, E::Func { .. });
                if paren {
                    self.buf.push('(');
                }
                self.expr(e, true)?;
                if paren {
                    self.buf.push(')');
                }
                Ok(())
            }
        }
    }

    /// Functions, aggregates and window functions.
    fn func(&mut self, e: &E) -> R<()> {
        let E::Func {
            name,
            args,
            agg,
            over,
            ..
        } = e
        else {
            return Err(Unsupported);
        };
        self.buf.push_str(&quote_identifier(name));
        self.buf.push('(');
        if let Some(a) = agg.as_deref().filter(|_| over.is_none()) {
            if a.distinct {
                self.buf.push_str("DISTINCT ");
            }
            if a.star {
                self.buf.push('*');
            }
        } else if agg.as_deref().is_some_and(|a| a.star) {
            self.buf.push('*');
        }
        for (i, x) in args.iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.expr(x, true)?;
        }
        if let Some(a) = agg.as_deref() {
            if !a.order.is_empty() {
                if over.is_some() {
                    return Err(Unsupported);
                }
                self.buf.push_str(" ORDER BY ");
                self.sort_list(&a.order)?;
            }
            if let Some(f) = &a.filter {
                self.buf.push_str(") FILTER (WHERE ");
                self.expr(f, false)?;
            }
        }
        self.buf.push(')');
        if let Some(o) = over.as_deref() {
            self.buf.push_str(" OVER ");
            match o {
                Over::Named(n) => self.buf.push_str(&quote_identifier(n)),
                Over::Spec(s) => self.window_spec(s)?,
            }
        }
        Ok(())
    }

    fn sort_list(&mut self, items: &[(E, pb::SortBy)]) -> R<()> {
        for (i, (e, sb)) in items.iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.sortgroup(e)?;
            self.sort_options(sb, e.ty())?;
        }
        Ok(())
    }

    /// get_rule_windowspec.
    pub(super) fn window_spec(&mut self, w: &WindowSpec) -> R<()> {
        self.buf.push('(');
        let mut space = false;
        if !w.partition.is_empty() {
            self.buf.push_str("PARTITION BY ");
            for (i, p) in w.partition.iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.sortgroup(p)?;
            }
            space = true;
        }
        if !w.order.is_empty() {
            if space {
                self.buf.push(' ');
            }
            self.buf.push_str("ORDER BY ");
            self.sort_list(&w.order)?;
            space = true;
        }
        let f = w.frame;
        if f & frame::NONDEFAULT != 0 {
            if space {
                self.buf.push(' ');
            }
            self.buf.push_str(if f & frame::RANGE != 0 {
                "RANGE "
            } else if f & frame::ROWS != 0 {
                "ROWS "
            } else if f & frame::GROUPS != 0 {
                "GROUPS "
            } else {
                return Err(Unsupported);
            });
            if f & frame::BETWEEN != 0 {
                self.buf.push_str("BETWEEN ");
            }
            self.frame_bound(
                f,
                w.start.as_ref(),
                (frame::START_UNBOUNDED_PRECEDING, "UNBOUNDED PRECEDING "),
                frame::START_CURRENT_ROW,
                (frame::START_OFFSET_PRECEDING, frame::START_OFFSET_FOLLOWING),
            )?;
            if f & frame::BETWEEN != 0 {
                self.buf.push_str("AND ");
                self.frame_bound(
                    f,
                    w.end.as_ref(),
                    (frame::END_UNBOUNDED_FOLLOWING, "UNBOUNDED FOLLOWING "),
                    frame::END_CURRENT_ROW,
                    (frame::END_OFFSET_PRECEDING, frame::END_OFFSET_FOLLOWING),
                )?;
            }
            if f & frame::EXCLUDE_CURRENT_ROW != 0 {
                self.buf.push_str("EXCLUDE CURRENT ROW ");
            } else if f & frame::EXCLUDE_GROUP != 0 {
                self.buf.push_str("EXCLUDE GROUP ");
            } else if f & frame::EXCLUDE_TIES != 0 {
                self.buf.push_str("EXCLUDE TIES ");
            }
            self.buf.pop();
        }
        self.buf.push(')');
        Ok(())
    }

    fn frame_bound(
        &mut self,
        f: i32,
        offset: Option<&E>,
        unbounded: (i32, &str),
        current: i32,
        (preceding, following): (i32, i32),
    ) -> R<()> {
        if f & unbounded.0 != 0 {
            self.buf.push_str(unbounded.1);
        } else if f & current != 0 {
            self.buf.push_str("CURRENT ROW ");
        } else if f & (preceding | following) != 0 {
            self.expr(offset.ok_or(Unsupported)?, false)?;
            self.buf.push_str(if f & preceding != 0 {
                " PRECEDING "
            } else {
                " FOLLOWING "
            });
        } else {
            return Err(Unsupported);
        }
        Ok(())
    }

    /// get_sublink_expr.
    fn sublink_expr(&mut self, kind: SubKind, test: Option<&E>, q: &pb::SelectStmt) -> R<()> {
        self.buf.push_str(if kind == SubKind::Array {
            "ARRAY("
        } else {
            "("
        });
        let mut paren = true;
        match (kind, test) {
            (SubKind::Exists, _) => self.buf.push_str("EXISTS "),
            (SubKind::Any(op), Some(x)) => {
                self.expr(x, true)?;
                if op == "=" {
                    self.buf.push_str(" IN ");
                } else {
                    self.buf.push_str(&format!(" {op} ANY "));
                }
            }
            (SubKind::All(op), Some(x)) => {
                self.expr(x, true)?;
                self.buf.push_str(&format!(" {op} ALL "));
            }
            (SubKind::Expr | SubKind::Array, None) => paren = false,
            _ => return Err(Unsupported),
        }
        if paren {
            self.buf.push('(');
        }
        self.query(q, None, false)?;
        self.buf.push_str(if paren { "))" } else { ")" });
        Ok(())
    }
}

/// simple_quote_literal: `'...'` with quotes doubled. (A backslash would
/// be doubled under standard_conforming_strings = off: `constant` leaves
/// such literals to the stored text.)
fn quote_literal(v: &str) -> String {
    format!("'{}'", v.replace('\'', "''"))
}
