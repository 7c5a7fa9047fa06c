//! Bound expressions and their evaluation.
//!
//! The binder turns libpg_query's expression nodes into [`Expr`]: names are
//! resolved to positions in the input row (`Col`), to a row of an enclosing
//! query (`Outer`, for correlated subqueries), or to `$n` parameters;
//! operand types are decided and implicit coercions made explicit as
//! `Cast`s, so evaluation never looks at types except where an operator's
//! result type matters (kept in the node).
//!
//! Evaluation is the executor's (`nestor_exec::eval`).

use std::sync::Arc;

use nestor_common::DbError;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use super::Plan;
use crate::functions::Func;
use crate::valops::Arith;
use nestor_catalog::FunctionDef;

pub use crate::valops::Cmp;

/// IS [NOT] TRUE/FALSE/UNKNOWN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolTest {
    True,
    NotTrue,
    False,
    NotFalse,
    Unknown,
    NotUnknown,
}

/// Kinds of subquery expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum SubKind {
    Scalar,
    Exists,
    /// `expr op ANY (subquery)` (IN is `= ANY`); `all` for ALL.
    Any {
        lhs: Box<Expr>,
        op: Cmp,
        all: bool,
    },
    /// `ARRAY(subquery)`: the column's values as an array of `elem`; of
    /// arrays (of `elem`), stacked into one of a dimension more.
    Array {
        elem: DataType,
        of_arrays: bool,
    },
}

/// A subquery inside an expression.
#[derive(Clone, Debug)]
pub struct SubQuery {
    pub kind: SubKind,
    /// Shared, so that a rewritten copy of the expression (its left
    /// operand moved to another row layout) keeps the same plan and id.
    pub plan: Arc<Plan>,
    /// Query nesting level of the expression containing the subquery: the
    /// row it is evaluated on becomes `Outer { level, .. }` inside.
    pub level: usize,
    /// Whether the plan refers to rows of enclosing queries (else its
    /// result is computed once per execution and cached under `id`).
    pub correlated: bool,
    pub id: usize,
    /// In the select list, HAVING or ORDER BY of a query that aggregates:
    /// the row the subquery sees as its enclosing level's, in that level's
    /// input layout, computed from the aggregated row (the grouped columns
    /// where they were, NULL for the others, then the aggregates of
    /// subqueries that belong to that level: `bind/outer_agg.rs`).
    pub remap: Option<Vec<Expr>>,
}

impl PartialEq for SubQuery {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

/// An aggregate call (before the planner replaces it by a column of the
/// aggregation's output).
#[derive(Clone, Debug, PartialEq)]
pub struct AggCall {
    pub func: AggFunc,
    pub arg: Option<Expr>,
    /// string_agg's delimiter (a constant; NULL means none).
    pub delimiter: Option<Value>,
    pub distinct: bool,
    pub ty: DataType,
    /// `agg(x ORDER BY k [DESC] [NULLS FIRST|LAST], ...)`: the rows are fed
    /// to the aggregate in this order (expressions over the input row).
    pub order: Vec<AggOrder>,
    /// `FILTER (WHERE cond)`: only rows where it is true are aggregated.
    pub filter: Option<Expr>,
    /// An ordered-set aggregate's direct arguments (`percentile_cont(0.5)
    /// WITHIN GROUP (ORDER BY x)`: the 0.5), over the input row but
    /// reading only grouped columns, so any row of the group gives their
    /// value; the aggregated values are the `order` keys.
    pub direct: Vec<Expr>,
    /// For [`AggFunc::User`]: the CREATE AGGREGATE aggregate's steps.
    pub user: Option<Arc<UserAgg>>,
}

/// A CREATE AGGREGATE aggregate bound for one call: its transition and
/// final functions as calls over a row of their own.
#[derive(Clone, Debug, PartialEq)]
pub struct UserAgg {
    pub def: UserFn,
    pub steps: UserAggSteps,
}

/// The bound steps of a user aggregate: `sfunc` over the row `[state,
/// value1, ...]`, `finalfunc` over `[state, NULL...]` (the NULLs for
/// FINALFUNC_EXTRA), the initial state (NULL without INITCOND).
#[derive(Clone, Debug, PartialEq)]
pub struct UserAggSteps {
    pub sfunc: Expr,
    pub sfunc_strict: bool,
    pub finalfunc: Option<Expr>,
    pub final_strict: bool,
    pub init: Value,
    /// The aggregate's result type.
    pub result: DataType,
    /// How many arguments it takes: with more than one, the value fed is
    /// the record of them, spread over `value1..valueN` of the step row.
    pub nargs: usize,
}

/// A window function call (before the planner replaces it by a column of
/// the Window node's output): `func(args) OVER (PARTITION BY partition
/// ORDER BY order frame)`.
#[derive(Clone, Debug, PartialEq)]
pub struct WinCall {
    pub func: WinFunc,
    pub args: Vec<Expr>,
    pub partition: Vec<Expr>,
    pub order: Vec<AggOrder>,
    pub frame: WinFrame,
    pub ty: DataType,
    /// `agg(x) FILTER (WHERE cond) OVER (...)`: only the frame's rows
    /// where it is true are aggregated.
    pub filter: Option<Expr>,
    /// For `WinFunc::Agg(AggFunc::User)`: the user aggregate's steps.
    pub user: Option<Arc<UserAgg>>,
}

/// The window functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    /// An aggregate over the window frame.
    Agg(AggFunc),
}

/// A window frame: which rows of the partition an aggregate or
/// first/last/nth_value sees for the current row.
#[derive(Clone, Debug, PartialEq)]
pub struct WinFrame {
    pub mode: FrameMode,
    pub start: FrameBound,
    pub end: FrameBound,
    pub exclude: FrameExclude,
}

/// How a frame's bounds count: ROWS by position, RANGE by the ORDER BY
/// value (CURRENT ROW is the peer group; an offset is added to the one
/// ORDER BY key), GROUPS by peer group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameMode {
    Rows,
    Range,
    Groups,
}

/// EXCLUDE: which rows around the current one leave its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameExclude {
    NoOthers,
    CurrentRow,
    /// The current row and its peers.
    Group,
    /// The current row's peers, not itself.
    Ties,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    /// `n PRECEDING`: a constant or parameter; an int8 count of rows
    /// (ROWS) or peer groups (GROUPS), or for RANGE a value of the type
    /// the ORDER BY key's in_range takes (the key's numeric type, or an
    /// interval for date/time keys).
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

impl WinFrame {
    /// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: PostgreSQL's
    /// default (the whole partition when there is no ORDER BY, as every
    /// row is then a peer of every other).
    pub fn default_frame() -> WinFrame {
        WinFrame {
            mode: FrameMode::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
            exclude: FrameExclude::NoOthers,
        }
    }
}

/// One ORDER BY key inside an aggregate call.
#[derive(Clone, Debug, PartialEq)]
pub struct AggOrder {
    pub key: Expr,
    pub desc: bool,
    pub nulls_first: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    BoolAnd,
    BoolOr,
    /// bit_and / bit_or / bit_xor (`&`, `|`, `#`) over integers and bit
    /// strings: the operator folded over the non-NULL inputs.
    Bitwise(u8),
    StringAgg,
    ArrayAgg,
    /// array_agg of arrays: the inputs stacked into one array of a
    /// dimension more (`nestor_types::array::Array::stack`).
    ArrayAggArrays,
    /// json_agg / jsonb_agg: the argument arrives as json (to_json /
    /// to_jsonb of it); `structured`: it is an array, which json_agg
    /// puts on a line of its own.
    JsonAgg {
        binary: bool,
        structured: bool,
    },
    /// json_object_agg / jsonb_object_agg: the argument arrives as the
    /// jsonb pair `[key, value]`.
    JsonObjectAgg {
        binary: bool,
    },
    /// var_pop, var_samp, stddev_pop, stddev_samp (`types/src/moments.rs`).
    Moment(nestor_types::moments::MomentAgg),
    /// regr_*, covar_pop, covar_samp and corr (`types/src/regr.rs`): the
    /// argument is the record `(y, x)` of float8s.
    Regr(nestor_types::regr::RegrAgg),
    /// `percentile_cont(fraction) WITHIN GROUP (ORDER BY x)` over float8
    /// or interval; `array`: the direct argument is a float8[] of
    /// fractions and the result an array of the same shape.
    PercentileCont {
        array: bool,
    },
    /// `percentile_disc(fraction) WITHIN GROUP (ORDER BY x)`, any
    /// sortable type.
    PercentileDisc {
        array: bool,
    },
    /// `mode() WITHIN GROUP (ORDER BY x)`: the most frequent value.
    Mode,
    /// `rank(args) WITHIN GROUP (ORDER BY keys)` and the other
    /// hypothetical-set aggregates: where the row of the direct arguments
    /// would fall among the group's rows.
    Hypothetical(HypotheticalRank),
    /// An aggregate made by CREATE AGGREGATE (the call's `user`).
    User,
    /// `range_intersect_agg(anyrange)`: the intersection of the ranges.
    RangeIntersect,
}

impl AggFunc {
    /// Whether it is an ordered-set aggregate (called with WITHIN GROUP).
    pub fn is_ordered_set(self) -> bool {
        matches!(
            self,
            AggFunc::PercentileCont { .. }
                | AggFunc::PercentileDisc { .. }
                | AggFunc::Mode
                | AggFunc::Hypothetical(_)
        )
    }
}

/// The hypothetical-set aggregates (orderedsetaggs.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HypotheticalRank {
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
}

/// A user-defined function (CREATE FUNCTION), compared by identity.
#[derive(Clone)]
pub struct UserFn(pub Arc<FunctionDef>);

impl PartialEq for UserFn {
    fn eq(&self, o: &UserFn) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

impl std::fmt::Debug for UserFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.signature())
    }
}

/// A bound expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Value),
    /// `$n`, zero-based.
    Param(usize),
    /// A column of the input row.
    Col(usize),
    /// A column of the row of an enclosing query at `level`.
    Outer {
        level: usize,
        col: usize,
    },
    Arith(Arith, Box<Expr>, Box<Expr>, DataType),
    Neg(Box<Expr>),
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    /// IS [NOT] DISTINCT FROM (`negated` = IS NOT DISTINCT FROM).
    Distinct(Box<Expr>, Box<Expr>, bool),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    IsNull(Box<Expr>, bool),
    BoolTest(Box<Expr>, BoolTest),
    Cast(Box<Expr>, DataType),
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        else_: Option<Box<Expr>>,
    },
    Coalesce(Vec<Expr>),
    /// GROUPING(args): bound, the grouping expressions; after aggregation
    /// (select::grouping), the grouping-set mask then the arguments'
    /// positions in the group columns, as int constants.
    Grouping(Vec<Expr>),
    /// GREATEST (`true`) / LEAST.
    MinMax(Vec<Expr>, bool),
    NullIf(Box<Expr>, Box<Expr>),
    InList {
        lhs: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        lhs: Box<Expr>,
        pattern: Box<Expr>,
        ci: bool,
        negated: bool,
    },
    Concat(Box<Expr>, Box<Expr>),
    Func(Func, Vec<Expr>),
    /// A call of a user-defined function with its input arguments (in
    /// declaration order, defaults filled in, coerced to the declared
    /// types).
    UserFunc(UserFn, Vec<Expr>),
    Sub(Arc<SubQuery>),
    Agg(Box<AggCall>),
    Window(Box<WinCall>),
    /// A value coerced to a domain (`'5'::posint`): the argument, already
    /// of the domain's base type, then the domain's constraints checked.
    Domain(Box<DomainCoerce>),
}

/// A cast to a domain: the value and the domain's constraints, bound.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainCoerce {
    pub arg: Expr,
    pub checks: DomainChecks,
    /// The error cursor of a failure (1-based character position): a
    /// string literal's, whose input PostgreSQL checks while parsing.
    pub at: Option<u32>,
}

/// A domain's constraints bound over one value (23502 and 23514 when it
/// fails them, as PostgreSQL's CoerceToDomain).
#[derive(Clone, Debug, PartialEq)]
pub struct DomainChecks {
    pub domain: String,
    /// The value is an array of the domain: each element is checked.
    pub elements: bool,
    pub not_null: bool,
    /// (constraint name, boolean expression); `VALUE` is `Col(0)` of a
    /// one-column row.
    pub checks: Vec<(String, Expr)>,
    /// The checks the parts of a non-NULL value need first: attributes
    /// of a composite declared with domains, the elements of an array of
    /// such composites (a composite's input checks its attributes before
    /// a domain over it checks the whole).
    pub parts: Vec<(DomainPart, DomainChecks)>,
}

/// Which part of a value a [`DomainChecks::parts`] entry checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DomainPart {
    /// Field `i` of a record.
    Field(usize),
    /// Each element of an array.
    Elements,
}

impl Expr {
    /// Visit every sub-expression (not into subquery plans).
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        let each = |v: &[Expr], f: &mut dyn FnMut(&Expr)| v.iter().for_each(|e| e.walk(f));
        match self {
            Expr::Const(_) | Expr::Param(_) | Expr::Col(_) | Expr::Outer { .. } => {}
            Expr::Arith(_, a, b, _)
            | Expr::Cmp(_, a, b)
            | Expr::Distinct(a, b, _)
            | Expr::NullIf(a, b)
            | Expr::Concat(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Neg(a)
            | Expr::Not(a)
            | Expr::IsNull(a, _)
            | Expr::BoolTest(a, _)
            | Expr::Cast(a, _) => a.walk(f),
            // The checks are over the value, not this level's row.
            Expr::Domain(d) => d.arg.walk(f),
            Expr::And(v)
            | Expr::Or(v)
            | Expr::Coalesce(v)
            | Expr::Grouping(v)
            | Expr::MinMax(v, _)
            | Expr::Func(_, v)
            | Expr::UserFunc(_, v) => each(v, f),
            Expr::Case {
                operand,
                whens,
                else_,
            } => {
                if let Some(o) = operand {
                    o.walk(f);
                }
                for (w, t) in whens {
                    w.walk(f);
                    t.walk(f);
                }
                if let Some(e) = else_ {
                    e.walk(f);
                }
            }
            Expr::InList { lhs, list, .. } => {
                lhs.walk(f);
                each(list, f);
            }
            Expr::Like { lhs, pattern, .. } => {
                lhs.walk(f);
                pattern.walk(f);
            }
            Expr::Sub(s) => {
                if let SubKind::Any { lhs, .. } = &s.kind {
                    lhs.walk(f);
                }
            }
            Expr::Agg(a) => {
                if let Some(x) = &a.arg {
                    x.walk(f);
                }
                each(&a.direct, f);
                for o in &a.order {
                    o.key.walk(f);
                }
                if let Some(x) = &a.filter {
                    x.walk(f);
                }
            }
            Expr::Window(w) => {
                each(&w.args, f);
                each(&w.partition, f);
                for o in &w.order {
                    o.key.walk(f);
                }
                if let Some(x) = &w.filter {
                    x.walk(f);
                }
            }
        }
    }

    /// Rewrite bottom-up: `f` may replace a node (return Some).
    pub fn rewrite(
        self,
        f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>, DbError>,
    ) -> Result<Expr, DbError> {
        if let Some(e) = f(&self)? {
            return Ok(e);
        }
        let r = |e: Box<Expr>, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>, DbError>| {
            e.rewrite(f).map(Box::new)
        };
        let rv = |v: Vec<Expr>, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>, DbError>| {
            v.into_iter()
                .map(|e| e.rewrite(f))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(match self {
            e @ (Expr::Const(_) | Expr::Param(_) | Expr::Col(_) | Expr::Outer { .. }) => e,
            // The left operand of ANY/ALL is evaluated on this level's row
            // (walk() reports its columns): rewrite it like any operand.
            Expr::Sub(s) => match &s.kind {
                SubKind::Any { lhs, op, all } => Expr::Sub(Arc::new(SubQuery {
                    kind: SubKind::Any {
                        lhs: r(lhs.clone(), f)?,
                        op: *op,
                        all: *all,
                    },
                    plan: s.plan.clone(),
                    level: s.level,
                    correlated: s.correlated,
                    id: s.id,
                    remap: s.remap.clone(),
                })),
                _ => Expr::Sub(s),
            },
            Expr::Arith(op, a, b, t) => Expr::Arith(op, r(a, f)?, r(b, f)?, t),
            Expr::Cmp(op, a, b) => Expr::Cmp(op, r(a, f)?, r(b, f)?),
            Expr::Distinct(a, b, n) => Expr::Distinct(r(a, f)?, r(b, f)?, n),
            Expr::NullIf(a, b) => Expr::NullIf(r(a, f)?, r(b, f)?),
            Expr::Concat(a, b) => Expr::Concat(r(a, f)?, r(b, f)?),
            Expr::Neg(a) => Expr::Neg(r(a, f)?),
            Expr::Not(a) => Expr::Not(r(a, f)?),
            Expr::IsNull(a, n) => Expr::IsNull(r(a, f)?, n),
            Expr::BoolTest(a, t) => Expr::BoolTest(r(a, f)?, t),
            Expr::Cast(a, t) => Expr::Cast(r(a, f)?, t),
            Expr::Domain(d) => {
                let d = *d;
                Expr::Domain(Box::new(DomainCoerce {
                    arg: d.arg.rewrite(f)?,
                    checks: d.checks,
                    at: d.at,
                }))
            }
            Expr::And(v) => Expr::And(rv(v, f)?),
            Expr::Or(v) => Expr::Or(rv(v, f)?),
            Expr::Coalesce(v) => Expr::Coalesce(rv(v, f)?),
            Expr::Grouping(v) => Expr::Grouping(rv(v, f)?),
            Expr::MinMax(v, g) => Expr::MinMax(rv(v, f)?, g),
            Expr::Func(func, v) => Expr::Func(func, rv(v, f)?),
            Expr::UserFunc(func, v) => Expr::UserFunc(func, rv(v, f)?),
            Expr::Case {
                operand,
                whens,
                else_,
            } => Expr::Case {
                operand: operand.map(|o| r(o, f)).transpose()?,
                whens: whens
                    .into_iter()
                    .map(|(w, t)| Ok((w.rewrite(f)?, t.rewrite(f)?)))
                    .collect::<Result<Vec<_>, DbError>>()?,
                else_: else_.map(|e| r(e, f)).transpose()?,
            },
            Expr::InList { lhs, list, negated } => Expr::InList {
                lhs: r(lhs, f)?,
                list: rv(list, f)?,
                negated,
            },
            Expr::Like {
                lhs,
                pattern,
                ci,
                negated,
            } => Expr::Like {
                lhs: r(lhs, f)?,
                pattern: r(pattern, f)?,
                ci,
                negated,
            },
            Expr::Agg(a) => Expr::Agg(a),
            // A window call's operands are over this level's row (the
            // aggregation's output when there is one): rewritten with it.
            Expr::Window(w) => {
                let w = *w;
                Expr::Window(Box::new(WinCall {
                    filter: w.filter.map(|x| x.rewrite(f)).transpose()?,
                    args: rv(w.args, f)?,
                    partition: rv(w.partition, f)?,
                    order: w
                        .order
                        .into_iter()
                        .map(|o| {
                            Ok(AggOrder {
                                key: o.key.rewrite(f)?,
                                desc: o.desc,
                                nulls_first: o.nulls_first,
                            })
                        })
                        .collect::<Result<Vec<_>, DbError>>()?,
                    ..w
                }))
            }
        })
    }

    /// Whether it is a constant or parameter (computable before a scan).
    pub fn is_row_independent(&self) -> bool {
        let mut ok = true;
        self.walk(&mut |e| match e {
            Expr::Col(_) | Expr::Outer { .. } | Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => {
                ok = false
            }
            Expr::Func(f, _) if f.is_volatile() => ok = false,
            Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
                ok = false
            }
            _ => {}
        });
        ok
    }

    /// Whether it has one value for a whole scan of a table: row
    /// independent, or reading only the rows of enclosing queries (a
    /// correlated subquery's scan runs once per outer row, with that row
    /// fixed), so it can be an index key.
    pub fn is_scan_constant(&self) -> bool {
        let mut ok = true;
        self.walk(&mut |e| match e {
            Expr::Col(_) | Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => ok = false,
            Expr::Func(f, _) if f.is_volatile() => ok = false,
            Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
                ok = false
            }
            _ => {}
        });
        ok
    }

    /// Whether evaluating it once per row is all it does: no volatile or
    /// set-returning function, no subquery (what may move between plan
    /// nodes or into another expression without changing the result).
    pub fn is_movable(&self) -> bool {
        let mut ok = true;
        self.walk(&mut |e| match e {
            Expr::Sub(_) | Expr::Func(crate::functions::Func::Srf(_), _) => ok = false,
            Expr::Func(f, _) if f.is_volatile() => ok = false,
            Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
                ok = false
            }
            _ => {}
        });
        ok
    }

    /// Whether a set-returning function is called in it (a select-list
    /// item run by `Plan::ProjectSet`).
    pub fn contains_srf(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            found |= matches!(e, Expr::Func(crate::functions::Func::Srf(_), _));
        });
        found
    }

    /// Column positions read from the input row.
    pub fn columns(&self) -> Vec<usize> {
        let mut v = Vec::new();
        self.walk(&mut |e| {
            if let Expr::Col(c) = e {
                v.push(*c);
            }
        });
        v
    }

    /// Whether it holds a correlated subquery. Such a subquery reads the
    /// row the expression is evaluated on in the query level's own layout
    /// (its `Outer` references are positions in it), so the expression
    /// must see that row whole: it is neither pushed below a join nor
    /// evaluated on a shifted row.
    pub fn has_correlated_subquery(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let Expr::Sub(s) = e {
                found |= s.correlated;
            }
        });
        found
    }

    /// Shift column references by `delta` (join row layouts).
    pub fn shift(self, delta: isize) -> Expr {
        self.rewrite(&mut |e| {
            Ok(match e {
                Expr::Col(c) => Some(Expr::Col((*c as isize + delta) as usize)),
                _ => None,
            })
        })
        .expect("shift never fails")
    }
}

/// A CHECK constraint bound over its table's row (data columns, then the
/// hidden system columns), or a stored generated column's expression.
#[derive(Clone, Debug)]
pub struct BoundCheck {
    pub name: String,
    pub expr: Expr,
    /// For the constraint of a column's domain: the domain's name (`name`
    /// is empty for its NOT NULL). These come after the generated columns
    /// in a table's list.
    pub domain: Option<String>,
    /// Not a check: the generation expression of stored generated column
    /// `col` (`name` empty, `expr` coerced to the column's type), which
    /// every write computes before the checks run. These come first in a
    /// table's list.
    pub generated: Option<usize>,
    /// A row-level security policy's check of new rows
    /// (`select::rls`), checked after the domains, before NOT NULL.
    pub rls: Option<RlsCheck>,
}

/// What a new row's check names when it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// INSERT or UPDATE: "new row violates row-level security policy".
    NewRow,
    /// The existing row of ON CONFLICT DO UPDATE: "(USING expression)".
    Conflict,
    /// The target row of MERGE's UPDATE or DELETE: "target row violates
    /// ... (USING expression)".
    MergeTarget,
}

/// A new-row check from a policy: its kind and, for a restrictive
/// policy, its name (the error names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RlsCheck {
    pub kind: CheckKind,
    pub policy: Option<String>,
    /// The table whose policy it is, when bound over another's row (a
    /// partition's, an inheritance child's): the error names it, as
    /// PostgreSQL's WithCheckOption does.
    pub table: Option<String>,
}

impl RlsCheck {
    /// PostgreSQL's ExecWithCheckOptions error for a row failing it.
    pub fn error(&self, table: &str) -> nestor_common::DbError {
        let (row, using) = match self.kind {
            CheckKind::NewRow => ("new", ""),
            CheckKind::Conflict => ("new", " (USING expression)"),
            CheckKind::MergeTarget => ("target", " (USING expression)"),
        };
        let policy = match &self.policy {
            Some(p) => format!(" \"{p}\""),
            None => String::new(),
        };
        let table = self.table.as_deref().unwrap_or(table);
        nestor_common::DbError::new(
            nestor_common::SqlState::InsufficientPrivilege,
            format!(
                "{row} row violates row-level security policy{policy}{using} for table \"{table}\""
            ),
        )
    }
}
