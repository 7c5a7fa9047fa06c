//! Expression and partial indexes in the SQL layer: binding their key
//! expressions and predicates with PostgreSQL's checks, their stored and
//! displayed text, their evaluation for storage, and the implication test
//! that lets the planner use a partial index.
//!
//! The catalog keeps a computed index as SQL text
//! (`nestor_catalog::IndexExprs`): each key expression and the predicate
//! in PostgreSQL's non-pretty ruleutils form (`(a + 1)`, `lower(b)`,
//! `(a > 10)`), which is what `pg_get_expr(indexprs)` and
//! `pg_get_indexdef` print and what re-binds to the same expression. The
//! pretty form psql's `\d` shows is that text re-parsed and deparsed
//! (minimal parentheses, [`pretty`]).
//!
//! ```text
//!   CREATE INDEX ON t (a, lower(b)) WHERE a > 10
//!   keys [Column(0), Expr("lower(b)")], predicate "(a > 10)"
//!   storage: Index::computed(.., ["a", "lower(b)"]) + IndexKeys:
//!     row -> (a > 10) true ? Some([a, lower(b)]) : None
//! ```
//!
//! Storage computes keys itself (undo, pruning and recovery have no
//! statement), so evaluation here is a pure function of the row with no
//! statement context ([`eval`]): the binder admits, besides IMMUTABLE
//! built-in functions and operators, only expression forms it can
//! evaluate that way; others are 0A000 naming the construct. User-defined
//! functions are among those (PostgreSQL allows IMMUTABLE ones).
//!
//! The planner uses a partial index only when the query's conjuncts imply
//! its predicate ([`implied`], a small part of PostgreSQL's predtest.c:
//! equal conjuncts, comparisons of one expression with constants, a
//! strict comparison implying IS NOT NULL, OR on either side); an unproven
//! implication just leaves the index unused.

use std::sync::Arc;

use nestor_catalog::{Catalog, IndexDef, IndexExprs, IndexKey, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::Node;
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;
use nestor_types::{EvalCtx, Value};

use crate::bind::{self, AggCtx, WinCtx};
use crate::functions::Func;
use crate::ir::{BoolTest, Cmp, Expr};
use crate::select;
use crate::valops;
use crate::valops::truthy;

/// Which part of an index an expression is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Key,
    Predicate,
}

impl Part {
    fn what(self) -> &'static str {
        match self {
            Part::Key => "index expression",
            Part::Predicate => "index predicate",
        }
    }
}

/// A computed index bound over its table's row: the key expressions with
/// their types (a column key is `Expr::Col`) and the predicate's
/// conjuncts.
#[derive(Clone, Debug)]
pub struct BoundIndex {
    pub keys: Vec<(Expr, DataType)>,
    pub predicate: Vec<Expr>,
}

/// Bind one key expression or the predicate of an index on `table`, with
/// PostgreSQL's checks (transformExpr's, then DefineIndex's mutability
/// check) and Nestor's (see the module header).
pub fn bind_part(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    table: &Arc<TableDef>,
    n: &Node,
    part: Part,
) -> Result<(Expr, DataType), DbError> {
    bind_part_folding(catalog, eval, (text, n), table, part, true)
}

/// [`bind_part`], with or without the binder's constant folding.
fn bind_part_folding(
    catalog: &Catalog,
    eval: EvalCtx,
    (text, n): (&str, &Node),
    table: &Arc<TableDef>,
    part: Part,
    fold: bool,
) -> Result<(Expr, DataType), DbError> {
    if let Some(at) = find_sublink(n) {
        let e = DbError::new(
            SqlState::FeatureNotSupported,
            format!("cannot use subquery in {}", part.what()),
        );
        return Err(nestor_parser::ast::err_at(e, text, at));
    }
    let mut b = select::row_binder(catalog, eval, text, table);
    b.fold_constants = fold;
    let (agg, win) = match part {
        Part::Key => (
            "index expressions",
            "window functions are not allowed in index expressions",
        ),
        Part::Predicate => (
            "index predicates",
            "window functions are not allowed in index predicates",
        ),
    };
    b.agg = AggCtx::NotAllowed(agg);
    b.window = WinCtx::NotAllowed(win, SqlState::WindowingError);
    let (e, t) = match part {
        Part::Key => b.bind(n)?,
        Part::Predicate => (b.bind_bool(n, "WHERE")?, DataType::Bool),
    };
    if e.columns().iter().any(|&c| c >= table.columns.len()) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "index creation on system columns is not supported",
        ));
    }
    if !immutable(&e, table) {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            format!("functions in {} must be marked IMMUTABLE", part.what()),
        ));
    }
    if let Some(what) = not_evaluable(&e) {
        return Err(DbError::unsupported(format!("{what} in {}s", part.what())));
    }
    Ok((e, t))
}

/// Bind a stored computed index (its text, as [`render`] made it).
pub fn bind_stored(
    catalog: &Catalog,
    table: &Arc<TableDef>,
    x: &IndexExprs,
) -> Result<BoundIndex, DbError> {
    let eval = EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0);
    let mut keys = Vec::with_capacity(x.keys.len());
    for k in &x.keys {
        keys.push(match k {
            IndexKey::Column(c) => {
                let col = table
                    .columns
                    .get(*c)
                    .ok_or_else(|| DbError::internal("index key column out of range"))?;
                (Expr::Col(*c), col.ty)
            }
            IndexKey::Expr(text) => {
                let n = nestor_parser::parse_expr(text)?;
                bind_part(catalog, eval, text, table, &n, Part::Key)?
            }
        });
    }
    let predicate = match &x.predicate {
        None => Vec::new(),
        Some(text) => {
            let n = nestor_parser::parse_expr(text)?;
            let (e, _) = bind_part(catalog, eval, text, table, &n, Part::Predicate)?;
            select::conjuncts(e)
        }
    };
    Ok(BoundIndex { keys, predicate })
}

/// The stored text of a bound expression: PostgreSQL's non-pretty form
/// when Nestor's renderer produces one that binds back to the same
/// expression, else the deparse of what was written (`written`).
pub fn render(
    catalog: &Catalog,
    table: &Arc<TableDef>,
    e: &Expr,
    part: Part,
    written: &Node,
) -> Result<String, DbError> {
    let name = |c: usize| {
        table
            .columns
            .get(c)
            .map_or_else(String::new, |col| quote(&col.name))
    };
    // A user function call is kept as written: binding inlines a simple
    // SQL function's body (`bind/inline.rs`), which PostgreSQL's stored
    // expression does not show.
    if calls_user_function(catalog, written) {
        return written_text(written, part);
    }
    // So is arithmetic on constants, which binding folds (PostgreSQL
    // stores `a + (1 + 2)`, and folds it only to plan a query).
    let eval = EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0);
    let text = nestor_parser::deparse_expr(written)?;
    let unfolded = bind_part_folding(catalog, eval, (&text, written), table, part, false);
    if unfolded.is_ok_and(|(u, _)| u != *e) {
        return written_text(written, part);
    }
    let text = render_node(e, &name);
    let same = nestor_parser::parse_expr(&text)
        .ok()
        .and_then(|n| bind_part(catalog, eval, &text, table, &n, part).ok())
        .is_some_and(|(again, _)| again == *e);
    if same {
        return Ok(text);
    }
    written_text(written, part)
}

/// The deparse of what was written, in the parentheses PostgreSQL's
/// stored form has: a predicate's, and a key's unless it is a plain
/// function call (`((f(a) + 1))` in pg_get_indexdef, `f(a)` bare).
fn written_text(written: &Node, part: Part) -> Result<String, DbError> {
    let text = nestor_parser::deparse_expr(written)?;
    Ok(match part {
        Part::Key if matches!(written.node.as_ref(), Some(NodeEnum::FuncCall(_))) => text,
        Part::Predicate | Part::Key => format!("({text})"),
    })
}

/// Whether an expression as written calls a function the catalog has
/// (a user-defined one), or one of PostgreSQL's internal operator
/// functions (`textcat`), which binding turns into the operator.
pub fn calls_user_function(catalog: &Catalog, written: &Node) -> bool {
    serde_json::to_value(written).is_ok_and(|json| {
        function_calls(&json).iter().any(|(name, n)| {
            !catalog.functions(name).is_empty()
                || (*n == 2 && crate::bind::user_agg::internal_operator(name).is_some())
        })
    })
}

/// The function calls in a parse tree (as serde JSON: `{"FuncCall":
/// {"funcname": [...], "args": [...]}}`): each one's name (its last part,
/// any schema dropped) and argument count.
pub fn function_calls(v: &serde_json::Value) -> Vec<(String, usize)> {
    fn walk(v: &serde_json::Value, out: &mut Vec<(String, usize)>) {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(call) = map.get("FuncCall") {
                    let name = call
                        .get("funcname")
                        .and_then(|n| n.as_array())
                        .and_then(|parts| parts.last())
                        .and_then(|p| p.pointer("/node/String/sval"))
                        .and_then(|s| s.as_str());
                    if let Some(name) = name {
                        let args = call
                            .get("args")
                            .and_then(|a| a.as_array())
                            .map_or(0, Vec::len);
                        out.push((name.to_string(), args));
                    }
                }
                map.values().for_each(|c| walk(c, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

fn quote(name: &str) -> String {
    nestor_common::keywords::quote_identifier(name)
}

/// ruleutils' non-pretty rendering of the forms an index admits: every
/// operator expression in parentheses, casts as `(x)::type`.
fn render_node(e: &Expr, name: &dyn Fn(usize) -> String) -> String {
    let r = |x: &Expr| render_node(x, name);
    let list = |v: &[Expr], sep: &str| v.iter().map(r).collect::<Vec<_>>().join(sep);
    match e {
        Expr::And(v) => format!("({})", list(v, " AND ")),
        Expr::Or(v) => format!("({})", list(v, " OR ")),
        Expr::Not(a) => format!("(NOT {})", r(a)),
        Expr::Concat(a, b) => format!("({} || {})", r(a), r(b)),
        Expr::Neg(a) => format!("(- {})", r(a)),
        Expr::BoolTest(a, t) => {
            let t = match t {
                BoolTest::True => "IS TRUE",
                BoolTest::NotTrue => "IS NOT TRUE",
                BoolTest::False => "IS FALSE",
                BoolTest::NotFalse => "IS NOT FALSE",
                BoolTest::Unknown => "IS UNKNOWN",
                BoolTest::NotUnknown => "IS NOT UNKNOWN",
            };
            format!("({} {t})", r(a))
        }
        Expr::Distinct(a, b, negated) => format!(
            "({} IS {}DISTINCT FROM {})",
            r(a),
            if *negated { "NOT " } else { "" },
            r(b)
        ),
        Expr::Coalesce(v) => format!("COALESCE({})", list(v, ", ")),
        Expr::MinMax(v, greatest) => format!(
            "{}({})",
            if *greatest { "GREATEST" } else { "LEAST" },
            list(v, ", ")
        ),
        Expr::NullIf(a, b) => format!("NULLIF({}, {})", r(a), r(b)),
        Expr::Cast(a, t) => match a.as_ref() {
            // A constant's cast is its literal's type: '5'::bigint.
            Expr::Const(_) => crate::ir::render_expr(e, name),
            _ => format!("({})::{}", r(a), t),
        },
        // An operator's function (`doc -> 'inner'`) as the operator, as
        // ruleutils prints it.
        Expr::Func(Func::Library(f), args)
            if args.len() == 2 && crate::ir::containment_operator(f.name).is_some() =>
        {
            let op = crate::ir::containment_operator(f.name).unwrap_or("->");
            format!("({} {op} {})", r(&args[0]), r(&args[1]))
        }
        Expr::Func(Func::Library(f), args) => format!("{}({})", f.name, list(args, ", ")),
        Expr::Cmp(op, a, b) => format!("({} {} {})", r(a), op.symbol(), r(b)),
        Expr::Arith(op, a, b, _) => {
            let s = match op {
                valops::Arith::Add => "+",
                valops::Arith::Sub => "-",
                valops::Arith::Mul => "*",
                valops::Arith::Div => "/",
                valops::Arith::Mod => "%",
            };
            format!("({} {s} {})", r(a), r(b))
        }
        Expr::IsNull(a, false) => format!("({} IS NULL)", r(a)),
        Expr::IsNull(a, true) => format!("({} IS NOT NULL)", r(a)),
        Expr::InList {
            lhs,
            list: l,
            negated,
        } => format!(
            "({} {}IN ({}))",
            r(lhs),
            if *negated { "NOT " } else { "" },
            list(l, ", ")
        ),
        // Anything else: whatever EXPLAIN shows, checked by re-binding.
        e => crate::ir::render_expr(e, name),
    }
}

/// The key as `pg_get_indexdef` shows one column: a column's name, a
/// function call as is, any other expression in parentheses. `text` is
/// the stored (non-pretty) form, or the [`pretty`] one.
pub fn key_column_text(text: &str) -> String {
    if is_function_call(text) {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// Whether stored expression text is a plain function call (`lower(b)`),
/// which pg_get_indexdef prints without parentheses of its own.
fn is_function_call(text: &str) -> bool {
    let Ok(n) = nestor_parser::parse_expr(text) else {
        return false;
    };
    matches!(n.node.as_ref(), Some(NodeEnum::FuncCall(_)))
}

/// The pretty form of stored expression text: parsed and deparsed, which
/// keeps only the parentheses the grammar needs (PostgreSQL's
/// PRETTY_PAREN printing, for the forms indexes admit).
pub fn pretty(text: &str) -> String {
    nestor_parser::parse_expr(text)
        .ok()
        .and_then(|n| nestor_parser::deparse_expr(&n).ok())
        .unwrap_or_else(|| text.to_string())
}

/// PostgreSQL's default index name part for a key expression
/// (FigureIndexColname): a function's name, `case`, a cast's operand's
/// name, else `expr`.
pub fn default_name_part(n: &Node) -> String {
    let name = select::derive_name(n);
    if name == "?column?" {
        "expr".into()
    } else {
        name
    }
}

/// The location of a subquery in an expression's parse tree, if any (the
/// forms an index expression can take; others fail to bind or evaluate).
fn find_sublink(n: &Node) -> Option<i32> {
    let node = n.node.as_ref()?;
    let opt = |x: &Option<Box<Node>>| x.as_deref().and_then(find_sublink);
    let all = |v: &[Node]| v.iter().find_map(find_sublink);
    match node {
        NodeEnum::SubLink(s) => Some(s.location),
        NodeEnum::AExpr(a) => opt(&a.lexpr).or_else(|| opt(&a.rexpr)),
        NodeEnum::BoolExpr(b) => all(&b.args),
        NodeEnum::FuncCall(f) => all(&f.args),
        NodeEnum::TypeCast(t) => opt(&t.arg),
        NodeEnum::NullTest(t) => opt(&t.arg),
        NodeEnum::BooleanTest(t) => opt(&t.arg),
        NodeEnum::CoalesceExpr(c) => all(&c.args),
        NodeEnum::MinMaxExpr(m) => all(&m.args),
        NodeEnum::List(l) => all(&l.items),
        NodeEnum::CaseExpr(c) => opt(&c.arg)
            .or_else(|| all(&c.args))
            .or_else(|| opt(&c.defresult)),
        NodeEnum::CaseWhen(w) => opt(&w.expr).or_else(|| opt(&w.result)),
        _ => None,
    }
}

/// Whether every function and operator of `e` is IMMUTABLE.
fn immutable(e: &Expr, table: &TableDef) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Func(Func::Library(f), _) => {
            ok &= f.volatility == nestor_types::functions::Volatility::Immutable
        }
        Expr::Func(f, _) => ok &= !f.is_volatile() && !matches!(f, Func::Catalog(_)),
        Expr::UserFunc(f, _) => ok &= f.0.volatility == nestor_catalog::Volatility::Immutable,
        Expr::Cast(a, to) => {
            if let Some(from) = cast_source_type(a, table) {
                ok &= !stable_cast(from, *to);
            }
        }
        Expr::Param(_) | Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => ok = false,
        _ => {}
    });
    ok
}

/// The type a cast converts from, where it is plain to see (a column or
/// a constant).
fn cast_source_type(e: &Expr, table: &TableDef) -> Option<DataType> {
    match e {
        Expr::Const(v) => (!v.is_null()).then(|| v.data_type()),
        Expr::Col(c) => table.columns.get(*c).map(|c| c.ty),
        _ => None,
    }
}

/// Casts PostgreSQL marks STABLE: date/time and money input and output
/// (DateStyle, TimeZone, lc_monetary), conversions to and from timestamp
/// with time zone, and time to time with time zone.
fn stable_cast(from: DataType, to: DataType) -> bool {
    let datetime = |t: DataType| {
        matches!(
            t,
            DataType::Date
                | DataType::Timestamp(_)
                | DataType::TimestampTz(_)
                | DataType::Time(_)
                | DataType::TimeTz(_)
                | DataType::Interval(..)
                | DataType::Money
        )
    };
    if matches!((from, to), (DataType::Time(_), DataType::TimeTz(_))) {
        return true;
    }
    let textual = |t: DataType| matches!(t, DataType::Text | DataType::Varchar(_));
    let tz = |t: DataType| matches!(t, DataType::TimestampTz(_));
    (datetime(from) && textual(to))
        || (textual(from) && datetime(to))
        || (tz(from) && datetime(to) && !tz(to))
        || (tz(to) && datetime(from) && !tz(from))
}

/// The first construct of `e` that [`eval`] cannot evaluate, named.
fn not_evaluable(e: &Expr) -> Option<String> {
    let mut what = None;
    e.walk(&mut |x| {
        if what.is_some() {
            return;
        }
        what = match x {
            Expr::Const(_)
            | Expr::Col(_)
            | Expr::Arith(..)
            | Expr::Neg(_)
            | Expr::Cmp(..)
            | Expr::Distinct(..)
            | Expr::Not(_)
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::IsNull(..)
            | Expr::BoolTest(..)
            | Expr::Cast(..)
            | Expr::Case { .. }
            | Expr::Coalesce(_)
            | Expr::MinMax(..)
            | Expr::NullIf(..)
            | Expr::InList { .. }
            | Expr::Like { .. }
            | Expr::Concat(..)
            | Expr::Func(Func::Library(_), _) => None,
            Expr::UserFunc(..) => Some("user-defined functions".into()),
            Expr::Func(Func::RowCtor, _) => Some("ROW constructors".into()),
            Expr::Func(Func::ArrayCtor { .. }, _) => Some("ARRAY constructors".into()),
            Expr::Func(Func::Subscript | Func::Slice { .. }, _) => Some("array subscripts".into()),
            Expr::Func(Func::AnyArray { .. } | Func::LikeAny { .. }, _) => {
                Some("ANY/ALL (array) comparisons".into())
            }
            Expr::Func(f, _) => Some(format!("function {}", f.explain_name())),
            Expr::Domain(_) => Some("domain coercions".into()),
            _ => Some("this kind of expression".into()),
        };
    });
    what
}

/// Evaluate an expression [`bind_part`] admitted over a table row (a
/// stored row may be shorter: missing columns read as NULL).
pub fn eval(e: &Expr, row: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
    nestor_common::stack::check()?;
    let ev = |x: &Expr| eval(x, row, c);
    Ok(match e {
        Expr::Const(v) => v.clone(),
        Expr::Col(i) => row.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Arith(op, a, b, _) => valops::arith(*op, &ev(a)?, &ev(b)?, c)?,
        Expr::Neg(a) => valops::negate(&ev(a)?)?,
        Expr::Cmp(op, a, b) => {
            let (x, y) = (ev(a)?, ev(b)?);
            if x.is_null() || y.is_null() {
                Value::Null
            } else {
                Value::Bool(op.holds(valops::compare(&x, &y, c)))
            }
        }
        Expr::Distinct(a, b, negated) => {
            let (x, y) = (ev(a)?, ev(b)?);
            let same = match (x.is_null(), y.is_null()) {
                (true, true) => true,
                (false, false) => valops::compare(&x, &y, c).is_eq(),
                _ => false,
            };
            Value::Bool(same == *negated)
        }
        Expr::Not(a) => truth(truthy(&ev(a)?).map(|b| !b)),
        Expr::And(v) => valops::and_or(v, false, |e| eval(e, row, c))?,
        Expr::Or(v) => valops::and_or(v, true, |e| eval(e, row, c))?,
        Expr::IsNull(a, negated) => Value::Bool(match ev(a)? {
            Value::Record(f) if *negated => f.iter().all(|v| !v.is_null()),
            Value::Record(f) => f.iter().all(Value::is_null),
            v => v.is_null() != *negated,
        }),
        Expr::BoolTest(a, t) => {
            let b = truthy(&ev(a)?);
            Value::Bool(match t {
                BoolTest::True => b == Some(true),
                BoolTest::NotTrue => b != Some(true),
                BoolTest::False => b == Some(false),
                BoolTest::NotFalse => b != Some(false),
                BoolTest::Unknown => b.is_none(),
                BoolTest::NotUnknown => b.is_some(),
            })
        }
        Expr::Cast(a, t) => valops::cast(ev(a)?, *t, true, c)?,
        Expr::Case {
            operand,
            whens,
            else_,
        } => {
            let op = operand.as_deref().map(ev).transpose()?;
            for (w, t) in whens {
                let x = ev(w)?;
                let hit = match &op {
                    Some(o) => !o.is_null() && !x.is_null() && valops::compare(o, &x, c).is_eq(),
                    None => truthy(&x) == Some(true),
                };
                if hit {
                    return ev(t);
                }
            }
            match else_ {
                Some(e) => ev(e)?,
                None => Value::Null,
            }
        }
        Expr::Coalesce(v) => {
            for x in v {
                let x = ev(x)?;
                if !x.is_null() {
                    return Ok(x);
                }
            }
            Value::Null
        }
        Expr::MinMax(v, greatest) => {
            let mut best = Value::Null;
            for x in v {
                let x = ev(x)?;
                if x.is_null() {
                    continue;
                }
                let o = valops::compare(&x, &best, c);
                if best.is_null() || (*greatest && o.is_gt()) || (!*greatest && o.is_lt()) {
                    best = x;
                }
            }
            best
        }
        Expr::NullIf(a, b) => {
            let (x, y) = (ev(a)?, ev(b)?);
            if !x.is_null() && !y.is_null() && valops::compare(&x, &y, c).is_eq() {
                Value::Null
            } else {
                x
            }
        }
        Expr::InList { lhs, list, negated } => {
            let x = ev(lhs)?;
            if x.is_null() {
                return Ok(Value::Null);
            }
            let mut unknown = false;
            for e in list {
                let y = ev(e)?;
                if y.is_null() {
                    unknown = true;
                } else if valops::compare(&x, &y, c).is_eq() {
                    return Ok(Value::Bool(!negated));
                }
            }
            if unknown {
                Value::Null
            } else {
                Value::Bool(*negated)
            }
        }
        Expr::Like {
            lhs,
            pattern,
            ci,
            negated,
        } => valops::like_values(&ev(lhs)?, &ev(pattern)?, *ci, *negated)?,
        Expr::Concat(a, b) => match (ev(a)?, ev(b)?) {
            (Value::Bytea(l), Value::Bytea(r)) => {
                Value::Bytea(Arc::from([&l[..], &r[..]].concat()))
            }
            (x, y) => match (valops::to_text(&x, c), valops::to_text(&y, c)) {
                (Some(s), Some(t)) => Value::Text(Arc::from(s + &t)),
                _ => Value::Null,
            },
        },
        Expr::Func(Func::Library(f), args) => {
            let vals = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
            f.call(&vals, c)?
        }
        _ => {
            return Err(DbError::internal(
                "an index expression the binder should have refused",
            ))
        }
    })
}

fn truth(b: Option<bool>) -> Value {
    b.map_or(Value::Null, Value::Bool)
}

/// The keys as a 23505 DETAIL names them (`Key (a, lower(b))=`,
/// `Key ((a + 1))=`): a column by name, an expression as stored.
pub fn key_names(x: &IndexExprs, def: &TableDef) -> Vec<String> {
    x.keys
        .iter()
        .map(|k| match k {
            IndexKey::Column(c) => def
                .columns
                .get(*c)
                .map_or_else(String::new, |c| quote(&c.name)),
            IndexKey::Expr(e) => e.clone(),
        })
        .collect()
}

/// The table columns an index reads: its key columns, and for a computed
/// one those its expressions and predicate read (all of them, to be safe,
/// when it no longer binds).
pub fn columns_read(catalog: &Catalog, table: &Arc<TableDef>, idx: &IndexDef) -> Vec<usize> {
    let Some(x) = &idx.exprs else {
        return idx.columns.clone();
    };
    match bind_stored(catalog, table, x) {
        Ok(b) => {
            let mut cols: Vec<usize> = b
                .keys
                .iter()
                .map(|(e, _)| e)
                .chain(b.predicate.iter())
                .flat_map(Expr::columns)
                .collect();
            cols.sort_unstable();
            cols.dedup();
            cols
        }
        Err(_) => (0..table.columns.len()).collect(),
    }
}

/// A bound computed index as storage's key function.
pub struct KeyFn {
    bound: BoundIndex,
    names: Vec<String>,
    eval: EvalCtx,
}

impl KeyFn {
    pub fn new(bound: BoundIndex, names: Vec<String>) -> KeyFn {
        KeyFn {
            bound,
            names,
            eval: EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0),
        }
    }
}

impl nestor_catalog::IndexKeys for KeyFn {
    fn names(&self) -> &[String] {
        &self.names
    }

    fn keys(&self, row: &[Value]) -> Result<Option<Vec<Value>>, DbError> {
        for p in &self.bound.predicate {
            if truthy(&eval(p, row, &self.eval)?) != Some(true) {
                return Ok(None);
            }
        }
        let mut out = Vec::with_capacity(self.bound.keys.len());
        for (k, _) in &self.bound.keys {
            out.push(eval(k, row, &self.eval)?);
        }
        Ok(Some(out))
    }
}

/// Bind a computed index of `table` and install its key function in its
/// storage index (the catalog's binding hook, and CREATE INDEX).
pub fn install_keys(
    catalog: &Catalog,
    table: &Arc<TableDef>,
    idx: &IndexDef,
) -> Result<(), DbError> {
    let Some(x) = &idx.exprs else {
        return Ok(());
    };
    let bound = bind_stored(catalog, table, x)?;
    let names = key_names(x, table);
    if idx.method == nestor_catalog::AccessMethod::Gin {
        let keys = bound.keys.into_iter().map(|(e, _)| e).collect();
        let gin = super::gin::GinKeyFn::new((keys, bound.predicate), x.gin.clone(), names);
        idx.index.set_keys(Arc::new(gin));
        return Ok(());
    }
    idx.index.set_keys(Arc::new(KeyFn::new(bound, names)));
    Ok(())
}

// ----- implication (predtest.c, the cheap part) -------------------------

/// Whether the conjuncts `conj` (a query's WHERE over the table's row)
/// imply every conjunct of `pred`.
pub fn implied(pred: &[Expr], conj: &[Expr]) -> bool {
    pred.iter().all(|p| conj.iter().any(|c| implies(c, p)))
}

/// Whether `c` being true proves `p` true.
pub fn implies(c: &Expr, p: &Expr) -> bool {
    if c == p {
        return true;
    }
    match (c, p) {
        (Expr::Or(v), _) => return v.iter().all(|x| implies(x, p)),
        (_, Expr::Or(v)) => return v.iter().any(|x| implies(c, x)),
        (Expr::And(v), _) => return v.iter().any(|x| implies(x, p)),
        (_, Expr::And(v)) => return v.iter().all(|x| implies(c, x)),
        _ => {}
    }
    if let Expr::IsNull(x, true) = p {
        return strict_on(c, x);
    }
    match (const_cmp(c), const_cmp(p)) {
        (Some((cx, cop, ck)), Some((px, pop, pk))) if cx == px => range_implies(cop, ck, pop, pk),
        _ => false,
    }
}

/// Whether `c` true means `x` is not NULL: a comparison (every comparison
/// operator is strict) or LIKE with `x` as an operand.
fn strict_on(c: &Expr, x: &Expr) -> bool {
    // A cast of `x` is NULL only when `x` is.
    let is_x = |e: &Expr| {
        let mut e = e;
        while let Expr::Cast(inner, _) = e {
            if inner.as_ref() == x {
                return true;
            }
            e = inner;
        }
        e == x
    };
    match c {
        Expr::Cmp(_, a, b) => is_x(a) || is_x(b),
        Expr::Like { lhs, .. } => is_x(lhs),
        Expr::InList {
            lhs,
            negated: false,
            ..
        } => is_x(lhs),
        Expr::IsNull(a, true) => is_x(a),
        _ => false,
    }
}

/// `x op k` with `k` a non-NULL constant (either side), `x` on the left.
fn const_cmp(e: &Expr) -> Option<(&Expr, Cmp, &Value)> {
    let Expr::Cmp(op, a, b) = e else {
        return None;
    };
    match (a.as_ref(), b.as_ref()) {
        (x, Expr::Const(k)) if !k.is_null() && !matches!(x, Expr::Const(_)) => Some((x, *op, k)),
        (Expr::Const(k), x) if !k.is_null() => Some((x, op.flip(), k)),
        _ => None,
    }
}

/// Whether `x cop ck` implies `x pop pk` (the constants of comparable
/// types: the same kind of value, or integers of any width).
fn range_implies(cop: Cmp, ck: &Value, pop: Cmp, pk: &Value) -> bool {
    let int = |v: &Value| matches!(v, Value::Int2(_) | Value::Int4(_) | Value::Int8(_));
    if std::mem::discriminant(ck) != std::mem::discriminant(pk) && !(int(ck) && int(pk)) {
        return false;
    }
    let ctx = EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0);
    let o = valops::compare(ck, pk, &ctx);
    use std::cmp::Ordering::*;
    match (pop, cop) {
        (Cmp::Gt, Cmp::Gt) | (Cmp::Ge, Cmp::Ge | Cmp::Gt | Cmp::Eq) => o != Less,
        (Cmp::Gt, Cmp::Ge | Cmp::Eq) => o == Greater,
        (Cmp::Lt, Cmp::Lt) | (Cmp::Le, Cmp::Le | Cmp::Lt | Cmp::Eq) => o != Greater,
        (Cmp::Lt, Cmp::Le | Cmp::Eq) => o == Less,
        (Cmp::Eq, Cmp::Eq) => o == Equal,
        (Cmp::Ne, Cmp::Eq) => o != Equal,
        (Cmp::Ne, Cmp::Gt) => o != Less,
        (Cmp::Ne, Cmp::Ge) => o == Greater,
        (Cmp::Ne, Cmp::Lt) => o != Greater,
        (Cmp::Ne, Cmp::Le) => o == Less,
        _ => false,
    }
}

/// The text of a bound key expression for an error or EXPLAIN
/// (`lower(b)`; a column by name).
pub fn show_key(e: &Expr, table: &TableDef) -> String {
    let name = |c: usize| {
        table
            .columns
            .get(c)
            .map_or_else(String::new, |col| col.name.clone())
    };
    render_node(e, &name)
}

/// Parse-tree helper for CREATE INDEX: an index element's expression.
pub fn elem_expr(n: &Node) -> Option<&Node> {
    match bind::node(n).ok()? {
        NodeEnum::IndexElem(ie) => ie.expr.as_deref(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: usize) -> Box<Expr> {
        Box::new(Expr::Col(c))
    }
    fn k(v: i32) -> Box<Expr> {
        Box::new(Expr::Const(Value::Int4(v)))
    }

    #[test]
    fn ranges_imply_wider_ranges() {
        let gt10 = Expr::Cmp(Cmp::Gt, col(0), k(10));
        assert!(implies(&Expr::Cmp(Cmp::Gt, col(0), k(20)), &gt10));
        assert!(implies(&Expr::Cmp(Cmp::Eq, col(0), k(30)), &gt10));
        assert!(implies(&Expr::Cmp(Cmp::Lt, k(10), col(0)), &gt10));
        assert!(!implies(&Expr::Cmp(Cmp::Ge, col(0), k(10)), &gt10));
        assert!(!implies(&Expr::Cmp(Cmp::Gt, col(0), k(5)), &gt10));
        assert!(!implies(&Expr::Cmp(Cmp::Gt, col(1), k(20)), &gt10));
        assert!(!implies(&Expr::Cmp(Cmp::Lt, col(0), k(20)), &gt10));
        let ne5 = Expr::Cmp(Cmp::Ne, col(0), k(5));
        assert!(implies(&Expr::Cmp(Cmp::Gt, col(0), k(5)), &ne5));
        assert!(!implies(&Expr::Cmp(Cmp::Ge, col(0), k(5)), &ne5));
    }

    #[test]
    fn strict_comparisons_imply_not_null() {
        let nn = Expr::IsNull(col(0), true);
        assert!(implies(&Expr::Cmp(Cmp::Eq, col(0), k(1)), &nn));
        assert!(!implies(&Expr::Cmp(Cmp::Eq, col(1), k(1)), &nn));
        let or = Expr::Or(vec![
            Expr::Cmp(Cmp::Eq, col(0), k(1)),
            Expr::Cmp(Cmp::Eq, col(0), k(2)),
        ]);
        assert!(implies(&or, &nn));
    }
}
