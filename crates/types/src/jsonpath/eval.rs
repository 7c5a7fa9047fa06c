//! Evaluating a [`JsonPath`] against a jsonb document (jsonpath_exec.c's
//! semantics).
//!
//! Items are borrowed from the document (or the `vars` object) where they
//! can be and owned where computed ([`Item`]). An accessor chain is applied
//! step by step to the whole sequence (each step maps every item, in order,
//! to its results), so a long chain is a loop, not recursion; the
//! recursion that remains follows the expression tree, whose depth the
//! parser bounds (`JSONPATH_DEPTH_MAX`), and `.**` walks the document with
//! an explicit stack.
//!
//! Errors are `Err(DbError)`. Structural errors (a missing key, a
//! subscript out of range, an accessor applied to the wrong kind of item)
//! are raised in strict mode only; lax mode skips the item. Inside a
//! predicate every error of an operand makes the predicate *unknown*, so a
//! filter never raises; at the top, `silent => true` turns an error into
//! "no (more) results".

use std::borrow::Cow;
use std::cell::Cell;

use nestor_common::limits::JSONPATH_ITEMS_MAX;
use nestor_common::{DbError, SqlState};

use super::parse::{BinOp, Expr, JsonPath, Method, Primary, Step};
use crate::json::Json;
use crate::numeric::Numeric;

/// One SQL/JSON item.
pub(crate) type Item<'a> = Cow<'a, Json>;

/// SQL/JSON three-valued logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

impl From<bool> for Tri {
    fn from(b: bool) -> Tri {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
}

struct Cx<'a> {
    root: &'a Json,
    vars: Option<&'a Json>,
    lax: bool,
    /// Set for the steps after a `.**`, where PostgreSQL ignores
    /// structural errors even in strict mode.
    ignore: Cell<bool>,
    /// Items visited so far, and how many may be (`JSONPATH_ITEMS_MAX`).
    work: Cell<u64>,
    work_max: u64,
}

/// The innermost `@` and array size for `last`.
#[derive(Clone, Copy)]
struct Scope<'s, 'a> {
    current: Option<&'s Item<'a>>,
    last: Option<usize>,
}

fn err(code: SqlState, msg: impl Into<String>) -> DbError {
    DbError::new(code, msg)
}

/// Borrows a child of an item: from the document when the item is
/// borrowed, cloned when the item itself was computed.
fn child<'a>(parent: &Item<'a>, pick: impl Fn(&Json) -> Option<&Json>) -> Option<Item<'a>> {
    match parent {
        Cow::Borrowed(p) => pick(p).map(Cow::Borrowed),
        Cow::Owned(p) => pick(p).map(|c| Cow::Owned(c.clone())),
    }
}

fn children<'a>(parent: &Item<'a>) -> Vec<Item<'a>> {
    match parent {
        Cow::Borrowed(Json::Arr(items)) => items.iter().map(Cow::Borrowed).collect(),
        Cow::Borrowed(Json::Obj(fields)) => fields.iter().map(|(_, v)| Cow::Borrowed(v)).collect(),
        Cow::Owned(Json::Arr(items)) => items.iter().cloned().map(Cow::Owned).collect(),
        Cow::Owned(Json::Obj(fields)) => {
            fields.iter().map(|(_, v)| Cow::Owned(v.clone())).collect()
        }
        _ => Vec::new(),
    }
}

/// Checks a like_regex pattern and flags when the path is parsed.
pub(crate) fn check_regex(pattern: &str, flags: &str) -> Result<(), DbError> {
    regex_match("", pattern, flags).map(|_| ())
}

/// `s like_regex pattern flag flags`, with XQuery's defaults as PostgreSQL
/// maps them: `.` does not match a newline unless `s`, `^`/`$` match at
/// newlines with `m`, `i` ignores case, `q` quotes the pattern (`x` is
/// refused when the path is parsed, and ignored with `q`, as there).
fn regex_match(s: &str, pattern: &str, flags: &str) -> Result<bool, DbError> {
    let mut p = String::new();
    // XQuery's defaults as PostgreSQL maps them: `.` stops at newlines
    // unless `s`; `^`/`$` match at newlines with `m`.
    let mut opts = String::new();
    if flags.contains('s') {
        opts.push('s');
    }
    if flags.contains('m') {
        opts.push('m');
    }
    if !opts.is_empty() {
        p.push_str("(?");
        p.push_str(&opts);
        p.push(')');
    }
    if flags.contains('q') {
        for c in pattern.chars() {
            if !c.is_alphanumeric() && c != '_' && !c.is_whitespace() {
                p.push('\\');
            }
            p.push(c);
        }
    } else {
        p.push_str(pattern);
    }
    crate::regex::matches(s, &p, flags.contains('i'))
}

impl<'a> Cx<'a> {
    /// Counts `n` visited items against `JSONPATH_ITEMS_MAX`.
    fn charge(&self, n: usize) -> Result<(), DbError> {
        let w = self.work.get() + n as u64;
        self.work.set(w);
        if w > self.work_max {
            return Err(err(
                SqlState::ProgramLimitExceeded,
                format!(
                    "jsonpath evaluation visits more than {} items (JSONPATH_ITEMS_MAX)",
                    self.work_max
                ),
            ));
        }
        Ok(())
    }

    /// Are structural errors skipped here (lax mode, or after `.**`)?
    fn skip_structural(&self) -> bool {
        self.lax || self.ignore.get()
    }

    fn structural(&self, code: SqlState, msg: String) -> Result<(), DbError> {
        if self.skip_structural() {
            Ok(())
        } else {
            Err(err(code, msg))
        }
    }

    /// Evaluates `e` and appends its items to `out`.
    fn eval<'s>(
        &self,
        e: &Expr,
        sc: Scope<'s, 'a>,
        out: &mut Vec<Item<'a>>,
    ) -> Result<(), DbError> {
        nestor_common::stack::check()?;
        match e {
            Expr::Path(p, steps) => {
                let mut items: Vec<Item<'a>> = Vec::new();
                match p {
                    Primary::Root => items.push(Cow::Borrowed(self.root)),
                    Primary::Current => {
                        let c = sc
                            .current
                            .ok_or_else(|| DbError::internal("jsonpath @ outside a filter"))?;
                        items.push(c.clone());
                    }
                    Primary::Last => {
                        let n = sc.last.ok_or_else(|| {
                            err(
                                SqlState::SyntaxError,
                                "evaluating jsonpath LAST outside of array subscript",
                            )
                        })?;
                        items.push(Cow::Owned(Json::Num(Numeric::from_i64(n as i64 - 1))));
                    }
                    Primary::Var(name) => {
                        let v = self.vars.and_then(|vars| match vars {
                            Json::Obj(fields) => {
                                fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
                            }
                            _ => None,
                        });
                        let v = v.ok_or_else(|| {
                            err(
                                SqlState::UndefinedObject,
                                format!("could not find jsonpath variable \"{name}\""),
                            )
                        })?;
                        items.push(Cow::Borrowed(v));
                    }
                    Primary::Literal(j) => items.push(Cow::Owned(j.clone())),
                    Primary::Paren(inner) => self.eval(inner, sc, &mut items)?,
                }
                // The items found before an error are kept (silent mode
                // returns them, as PostgreSQL does).
                let r = self.steps(steps, &mut items, sc, false);
                out.extend(items);
                r
            }
            Expr::Binary(op, l, r) if op.is_arith() => {
                let lv = self.singleton_num(l, sc, *op, "left")?;
                let rv = self.singleton_num(r, sc, *op, "right")?;
                let n = match op {
                    BinOp::Add => lv.add(&rv)?,
                    BinOp::Sub => lv.sub(&rv)?,
                    BinOp::Mul => lv.mul(&rv)?,
                    BinOp::Div => lv.div(&rv)?,
                    _ => lv.rem(&rv)?,
                };
                out.push(Cow::Owned(Json::Num(n)));
                Ok(())
            }
            Expr::Unary(minus, a) => {
                let mut vals = Vec::new();
                self.eval_unwrapped(a, sc, &mut vals)?;
                for v in vals {
                    match &*v {
                        Json::Num(n) => out.push(Cow::Owned(Json::Num(if *minus {
                            n.neg()
                        } else {
                            n.clone()
                        }))),
                        _ => {
                            return Err(err(
                                SqlState::SqlJsonNumberNotFound,
                                format!(
                                    "operand of unary jsonpath operator {} is not a numeric value",
                                    if *minus { "-" } else { "+" }
                                ),
                            ))
                        }
                    }
                }
                Ok(())
            }
            // A predicate as a value: true, false or null (unknown).
            _ => {
                let t = self.pred(e, sc)?;
                out.push(Cow::Owned(match t {
                    Tri::True => Json::Bool(true),
                    Tri::False => Json::Bool(false),
                    Tri::Unknown => Json::Null,
                }));
                Ok(())
            }
        }
    }

    /// Applies an accessor chain to `items` depth first, as PostgreSQL
    /// does (each item runs through the whole chain before the next
    /// one, so results and errors come in its order), with an explicit
    /// stack; with `first_only` it stops at the first result.
    fn steps<'s>(
        &self,
        steps: &[Step],
        items: &mut Vec<Item<'a>>,
        sc: Scope<'s, 'a>,
        first_only: bool,
    ) -> Result<(), DbError> {
        let mut stack: Vec<(usize, Item<'a>)> = items.drain(..).rev().map(|it| (0, it)).collect();
        let any_at = steps.iter().position(|st| matches!(st, Step::Any { .. }));
        let saved = self.ignore.get();
        while let Some((k, it)) = stack.pop() {
            if k == steps.len() {
                items.push(it);
                if first_only {
                    break;
                }
                continue;
            }
            // After a `.**`, structural errors are skipped.
            self.ignore.set(saved || any_at.is_some_and(|a| a < k));
            let mut next = Vec::new();
            let r = self.step(&steps[k], &it, true, sc, &mut next);
            self.ignore.set(saved);
            r?;
            self.charge(next.len())?;
            stack.extend(next.into_iter().rev().map(|n| (k + 1, n)));
        }
        Ok(())
    }

    /// Evaluates `e`; in lax mode arrays in its result are unwrapped (one
    /// level).
    fn eval_unwrapped<'s>(
        &self,
        e: &Expr,
        sc: Scope<'s, 'a>,
        out: &mut Vec<Item<'a>>,
    ) -> Result<(), DbError> {
        let mut vals = Vec::new();
        self.eval(e, sc, &mut vals)?;
        for v in vals {
            if self.lax && matches!(*v, Json::Arr(_)) {
                out.extend(children(&v));
            } else {
                out.push(v);
            }
        }
        Ok(())
    }

    fn singleton_num<'s>(
        &self,
        e: &Expr,
        sc: Scope<'s, 'a>,
        op: BinOp,
        side: &str,
    ) -> Result<Numeric, DbError> {
        let mut vals = Vec::new();
        self.eval_unwrapped(e, sc, &mut vals)?;
        if let [v] = vals.as_slice() {
            if let Json::Num(n) = &**v {
                return Ok(n.clone());
            }
        }
        Err(err(
            SqlState::SingletonSqlJsonItemRequired,
            format!(
                "{side} operand of jsonpath operator {} is not a single numeric value",
                op.name()
            ),
        ))
    }

    /// Applies one accessor to one item; `unwrap` is false for the
    /// elements of an array lax mode already unwrapped.
    fn step<'s>(
        &self,
        st: &Step,
        it: &Item<'a>,
        unwrap: bool,
        sc: Scope<'s, 'a>,
        out: &mut Vec<Item<'a>>,
    ) -> Result<(), DbError> {
        let unwrap_array = |out: &mut Vec<Item<'a>>| -> Result<(), DbError> {
            for c in children(it) {
                self.step(st, &c, false, sc, out)?;
            }
            Ok(())
        };
        let is_arr = matches!(**it, Json::Arr(_));
        match st {
            Step::Key(k) => match &**it {
                Json::Obj(_) => {
                    let v = child(it, |j| match j {
                        Json::Obj(f) => f.iter().find(|(kk, _)| kk == k).map(|(_, v)| v),
                        _ => None,
                    });
                    match v {
                        Some(v) => out.push(v),
                        None => self.structural(
                            SqlState::SqlJsonMemberNotFound,
                            format!("JSON object does not contain key \"{k}\""),
                        )?,
                    }
                    Ok(())
                }
                Json::Arr(_) if self.lax && unwrap => unwrap_array(out),
                _ => self.structural(
                    SqlState::SqlJsonMemberNotFound,
                    "jsonpath member accessor can only be applied to an object".into(),
                ),
            },
            Step::AnyKey => match &**it {
                Json::Obj(_) => {
                    out.extend(children(it));
                    Ok(())
                }
                Json::Arr(_) if self.lax && unwrap => unwrap_array(out),
                _ => self.structural(
                    SqlState::SqlJsonObjectNotFound,
                    "jsonpath wildcard member accessor can only be applied to an object".into(),
                ),
            },
            Step::AnyArray => {
                if is_arr {
                    out.extend(children(it));
                    Ok(())
                } else if self.lax {
                    out.push(it.clone());
                    Ok(())
                } else {
                    self.structural(
                        SqlState::SqlJsonArrayNotFound,
                        "jsonpath wildcard array accessor can only be applied to an array".into(),
                    )
                }
            }
            Step::Index(subs) => {
                if !is_arr && !self.lax {
                    return self.structural(
                        SqlState::SqlJsonArrayNotFound,
                        "jsonpath array accessor can only be applied to an array".into(),
                    );
                }
                let elems = if is_arr {
                    children(it)
                } else {
                    vec![it.clone()]
                };
                let size = elems.len();
                let isc = Scope {
                    current: sc.current,
                    last: Some(size),
                };
                for (from, to) in subs {
                    let f = self.subscript(from, isc)?;
                    let t = match to {
                        Some(to) => self.subscript(to, isc)?,
                        None => f,
                    };
                    if !self.skip_structural() && (f < 0 || f > t || t >= size as i64) {
                        return Err(err(
                            SqlState::InvalidSqlJsonSubscript,
                            "jsonpath array subscript is out of bounds",
                        ));
                    }
                    let f = f.max(0);
                    let t = t.min(size as i64 - 1);
                    let mut i = f;
                    while i <= t {
                        out.push(elems[i as usize].clone());
                        i += 1;
                    }
                }
                Ok(())
            }
            Step::Any { first, last } => {
                // Pre-order walk with an explicit stack: (item, level).
                // `{last}` alone asks for the leaves (executeAnyItem).
                let leaves = *first == u32::MAX && *last == u32::MAX;
                let mut stack: Vec<(Item<'a>, u32)> = vec![(it.clone(), 0)];
                while let Some((v, level)) = stack.pop() {
                    self.charge(1)?;
                    let container = matches!(*v, Json::Arr(_) | Json::Obj(_));
                    let wanted = if level == 0 {
                        *first == 0
                    } else {
                        level >= *first || (leaves && !container)
                    };
                    if wanted {
                        out.push(v.clone());
                    }
                    if level < *last && container {
                        let kids = children(&v);
                        for k in kids.into_iter().rev() {
                            stack.push((k, level + 1));
                        }
                    }
                }
                Ok(())
            }
            Step::Filter(pred) => {
                if is_arr && self.lax && unwrap {
                    return unwrap_array(out);
                }
                let fsc = Scope {
                    current: Some(it),
                    last: sc.last,
                };
                if self.pred(pred, fsc)? == Tri::True {
                    out.push(it.clone());
                }
                Ok(())
            }
            Step::Method(m) => self.method(*m, it, unwrap, out, &unwrap_array),
        }
    }

    fn method(
        &self,
        m: Method,
        it: &Item<'a>,
        unwrap: bool,
        out: &mut Vec<Item<'a>>,
        unwrap_array: &dyn Fn(&mut Vec<Item<'a>>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        let num = |n: Numeric| Cow::Owned(Json::Num(n));
        let is_arr = matches!(**it, Json::Arr(_));
        let unwraps = !matches!(m, Method::Type | Method::Size);
        if unwraps && is_arr && self.lax && unwrap {
            return unwrap_array(out);
        }
        match m {
            Method::Type => out.push(Cow::Owned(Json::Str(it.type_name().into()))),
            Method::Size => match &**it {
                Json::Arr(a) => out.push(num(Numeric::from_i64(a.len() as i64))),
                _ if self.lax => out.push(num(Numeric::from_i64(1))),
                _ => {
                    return Err(err(
                        SqlState::SqlJsonArrayNotFound,
                        "jsonpath item method .size() can only be applied to an array",
                    ))
                }
            },
            Method::Abs | Method::Floor | Method::Ceiling => {
                let Json::Num(n) = &**it else {
                    return Err(err(
                        SqlState::NonNumericSqlJsonItem,
                        format!(
                            "jsonpath item method .{}() can only be applied to a numeric value",
                            m.name()
                        ),
                    ));
                };
                out.push(num(match m {
                    Method::Abs => n.abs(),
                    Method::Floor => n.floor()?,
                    _ => n.ceil()?,
                }));
            }
            Method::Double => {
                let out_of_range = || {
                    err(
                        SqlState::NonNumericSqlJsonItem,
                        "numeric argument of jsonpath item method .double() is out of range for type double precision",
                    )
                };
                let f = match &**it {
                    Json::Num(n) => {
                        let f = n.to_f64();
                        if !f.is_finite() {
                            return Err(out_of_range());
                        }
                        f
                    }
                    Json::Str(s) => {
                        let f = crate::float::parse_f64(s).map_err(|_| {
                            err(
                                SqlState::NonNumericSqlJsonItem,
                                "string argument of jsonpath item method .double() is not a valid representation of a double precision number",
                            )
                        })?;
                        if !f.is_finite() {
                            return Err(err(
                                SqlState::NonNumericSqlJsonItem,
                                "string argument of jsonpath item method .double() is not a valid representation of a double precision number",
                            ));
                        }
                        f
                    }
                    _ => {
                        return Err(err(
                            SqlState::NonNumericSqlJsonItem,
                            "jsonpath item method .double() can only be applied to a string or numeric value",
                        ))
                    }
                };
                out.push(num(Numeric::from_f64(f, 15)));
            }
            Method::KeyValue => {
                let Json::Obj(fields) = &**it else {
                    return Err(err(
                        SqlState::SqlJsonObjectNotFound,
                        "jsonpath item method .keyvalue() can only be applied to an object",
                    ));
                };
                let id = self.object_id(it);
                for (k, v) in fields {
                    out.push(Cow::Owned(Json::Obj(vec![
                        ("id".into(), Json::Num(Numeric::from_i64(id))),
                        ("key".into(), Json::Str(k.clone())),
                        ("value".into(), v.clone()),
                    ])));
                }
            }
            Method::Datetime => {
                return Err(DbError::unsupported("jsonpath item method .datetime()"));
            }
        }
        Ok(())
    }

    /// keyvalue()'s `id`: PostgreSQL's byte offset of the object in the
    /// binary jsonb document. The document's own top-level object is 0,
    /// as there; a nested object's offset depends on jsonb's binary layout,
    /// which Nestor does not store, so it is computed from that layout
    /// (see [`super::layout`]).
    fn object_id(&self, it: &Item<'a>) -> i64 {
        match it {
            Cow::Borrowed(obj) => super::layout::offset_of(self.root, obj)
                .map(|o| o as i64)
                .or_else(|| {
                    self.vars
                        .and_then(|v| super::layout::offset_of(v, obj))
                        .map(|o| o as i64 + 10_000_000_000)
                })
                .unwrap_or(0),
            Cow::Owned(_) => 0,
        }
    }

    /// A subscript's value: a single number, truncated to an integer.
    fn subscript<'s>(&self, e: &Expr, sc: Scope<'s, 'a>) -> Result<i64, DbError> {
        let mut vals = Vec::new();
        self.eval(e, sc, &mut vals)?;
        let bad = || {
            err(
                SqlState::InvalidSqlJsonSubscript,
                "jsonpath array subscript is not a single numeric value",
            )
        };
        let [v] = vals.as_slice() else {
            return Err(bad());
        };
        let Json::Num(n) = &**v else {
            return Err(bad());
        };
        n.trunc(0)?
            .to_i64_rounded()
            .filter(|v| i32::try_from(*v).is_ok())
            .ok_or_else(|| {
                err(
                    SqlState::InvalidSqlJsonSubscript,
                    "jsonpath array subscript is out of integer range",
                )
            })
    }

    /// A predicate's truth value. Errors of its operands make it unknown.
    fn pred<'s>(&self, e: &Expr, sc: Scope<'s, 'a>) -> Result<Tri, DbError> {
        nestor_common::stack::check()?;
        Ok(match e {
            Expr::Binary(BinOp::And, l, r) => {
                let lt = self.pred(l, sc)?;
                if lt == Tri::False {
                    return Ok(Tri::False);
                }
                let rt = self.pred(r, sc)?;
                if rt == Tri::True {
                    lt
                } else {
                    rt
                }
            }
            Expr::Binary(BinOp::Or, l, r) => {
                let lt = self.pred(l, sc)?;
                if lt == Tri::True {
                    return Ok(Tri::True);
                }
                let rt = self.pred(r, sc)?;
                if rt == Tri::False {
                    lt
                } else {
                    rt
                }
            }
            Expr::Not(a) => match self.pred(a, sc)? {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            Expr::IsUnknown(a) => (self.pred(a, sc)? == Tri::Unknown).into(),
            Expr::Exists(a) => {
                let r = if self.lax {
                    self.probe(a, sc)
                } else {
                    let mut vals = Vec::new();
                    self.eval(a, sc, &mut vals).map(|()| !vals.is_empty())
                };
                match r {
                    Ok(found) => found.into(),
                    Err(e) if is_hard(&e) => return Err(e),
                    Err(_) => Tri::Unknown,
                }
            }
            Expr::Binary(op, l, r) => {
                let (mut lv, mut rv) = (Vec::new(), Vec::new());
                match self.eval_unwrapped(l, sc, &mut lv) {
                    Err(e) if is_hard(&e) => return Err(e),
                    Err(_) => return Ok(Tri::Unknown),
                    Ok(()) => {}
                }
                let right = if *op == BinOp::StartsWith {
                    self.eval(r, sc, &mut rv)
                } else {
                    self.eval_unwrapped(r, sc, &mut rv)
                };
                match right {
                    Err(e) if is_hard(&e) => return Err(e),
                    Err(_) => return Ok(Tri::Unknown),
                    Ok(()) => {}
                }
                self.any_pair(&lv, &rv, |a, b| {
                    Ok(if *op == BinOp::StartsWith {
                        match (a, b) {
                            (Json::Str(a), Json::Str(b)) => a.starts_with(b.as_str()).into(),
                            _ => Tri::Unknown,
                        }
                    } else {
                        compare(*op, a, b)
                    })
                })?
            }
            Expr::LikeRegex {
                expr,
                pattern,
                flags,
            } => {
                let mut lv = Vec::new();
                match self.eval_unwrapped(expr, sc, &mut lv) {
                    Err(e) if is_hard(&e) => return Err(e),
                    Err(_) => return Ok(Tri::Unknown),
                    Ok(()) => {}
                }
                let one = [Cow::Owned(Json::Null)];
                self.any_pair(&lv, &one, |a, _| {
                    Ok(match a {
                        Json::Str(s) => match regex_match(s, pattern, flags) {
                            Ok(m) => m.into(),
                            Err(_) => Tri::Unknown,
                        },
                        _ => Tri::Unknown,
                    })
                })?
            }
            // Not a predicate: the grammar does not allow it here.
            Expr::Path(..) | Expr::Unary(..) => {
                return Err(DbError::internal("jsonpath expression used as a predicate"))
            }
        })
    }

    /// Does `e` yield anything? PostgreSQL's evaluation without a result
    /// list (lax `exists`, `@?`, jsonb_path_exists): a path stops at its
    /// first item, and a unary minus or plus skips non-numeric items
    /// instead of failing on them.
    fn probe<'s>(&self, e: &Expr, sc: Scope<'s, 'a>) -> Result<bool, DbError> {
        match e {
            Expr::Path(p, steps) if !steps.is_empty() => {
                let mut items = Vec::new();
                self.eval(&Expr::Path(p.clone(), Vec::new()), sc, &mut items)?;
                self.steps(steps, &mut items, sc, true)?;
                Ok(!items.is_empty())
            }
            Expr::Unary(_, a) => {
                let mut vals = Vec::new();
                self.eval_unwrapped(a, sc, &mut vals)?;
                Ok(vals.iter().any(|v| matches!(**v, Json::Num(_))))
            }
            e => {
                let mut vals = Vec::new();
                self.eval(e, sc, &mut vals)?;
                Ok(!vals.is_empty())
            }
        }
    }

    /// PostgreSQL's executePredicate: true if some pair is true (lax: the
    /// first one decides; strict: any unknown pair makes it unknown).
    fn any_pair(
        &self,
        lv: &[Item<'a>],
        rv: &[Item<'a>],
        f: impl Fn(&Json, &Json) -> Result<Tri, DbError>,
    ) -> Result<Tri, DbError> {
        let (mut found, mut error) = (false, false);
        for a in lv {
            for b in rv {
                match f(a, b)? {
                    Tri::Unknown => {
                        if !self.lax {
                            return Ok(Tri::Unknown);
                        }
                        error = true;
                    }
                    Tri::True => {
                        if self.lax {
                            return Ok(Tri::True);
                        }
                        found = true;
                    }
                    Tri::False => {}
                }
            }
        }
        Ok(if found {
            Tri::True
        } else if error {
            Tri::Unknown
        } else {
            Tri::False
        })
    }
}

/// compareItems: values of different types are not comparable (unknown),
/// except that null equals only null; arrays and objects are unknown.
fn compare(op: BinOp, a: &Json, b: &Json) -> Tri {
    use std::cmp::Ordering;
    let ord = match (a, b) {
        (Json::Null, Json::Null) => Ordering::Equal,
        (Json::Null, _) | (_, Json::Null) => return (op == BinOp::Ne).into(),
        (Json::Bool(x), Json::Bool(y)) => x.cmp(y),
        (Json::Num(x), Json::Num(y)) => x.cmp(y),
        (Json::Str(x), Json::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => return Tri::Unknown,
    };
    match op {
        BinOp::Eq => ord == Ordering::Equal,
        BinOp::Ne => ord != Ordering::Equal,
        BinOp::Lt => ord == Ordering::Less,
        BinOp::Le => ord != Ordering::Greater,
        BinOp::Gt => ord == Ordering::Greater,
        _ => ord != Ordering::Less,
    }
    .into()
}

/// Errors PostgreSQL raises directly (not through its suppressible
/// error path): a missing variable, an unsupported feature, the depth
/// limits. Neither a predicate nor `silent` hides them.
pub(crate) fn is_hard(e: &DbError) -> bool {
    matches!(
        e.code,
        SqlState::UndefinedObject
            | SqlState::FeatureNotSupported
            | SqlState::StatementTooComplex
            | SqlState::ProgramLimitExceeded
    )
}

/// jsonb_path_exists / `@?`: does `path` yield an item? In lax mode it
/// stops at the first one (an error after it is never reached, as in
/// PostgreSQL); in strict mode the whole path is evaluated, so any error
/// counts.
pub(crate) fn exists(path: &JsonPath, doc: &Json, vars: Option<&Json>) -> Result<bool, DbError> {
    let cx = Cx {
        root: doc,
        vars,
        lax: !path.strict,
        ignore: Cell::new(false),
        work: Cell::new(0),
        work_max: JSONPATH_ITEMS_MAX,
    };
    let sc = Scope {
        current: None,
        last: None,
    };
    if cx.lax {
        cx.probe(&path.expr, sc)
    } else {
        let mut out = Vec::new();
        cx.eval(&path.expr, sc, &mut out)?;
        Ok(!out.is_empty())
    }
}

/// Runs `path` over `doc`: the items found, and the error that stopped it
/// (the items before it are kept, as PostgreSQL keeps them when silent).
pub(crate) fn execute(
    path: &JsonPath,
    doc: &Json,
    vars: Option<&Json>,
) -> (Vec<Json>, Option<DbError>) {
    execute_limited(path, doc, vars, JSONPATH_ITEMS_MAX)
}

/// [`execute`] visiting at most `work_max` items.
pub(crate) fn execute_limited(
    path: &JsonPath,
    doc: &Json,
    vars: Option<&Json>,
    work_max: u64,
) -> (Vec<Json>, Option<DbError>) {
    let cx = Cx {
        root: doc,
        vars,
        lax: !path.strict,
        ignore: Cell::new(false),
        work: Cell::new(0),
        work_max,
    };
    let mut out = Vec::new();
    let sc = Scope {
        current: None,
        last: None,
    };
    let r = cx.eval(&path.expr, sc, &mut out);
    let items = out.into_iter().map(Cow::into_owned).collect();
    (items, r.err())
}
