//! WITH RECURSIVE before planning: the order of its items and the shape
//! of each recursive one (PostgreSQL's parse_cte.c, on the raw tree).
//!
//! Every item of WITH RECURSIVE sees every other, so the items are
//! planned in an order without forward references: the dependencies
//! between them (references by unqualified name, not captured by an inner
//! WITH) are sorted topologically as PostgreSQL's TopologicalSort does, a
//! cycle being 0A000 "mutual recursion between WITH items is not
//! implemented". An item that names itself is recursive and must be
//! `non-recursive-term UNION [ALL] recursive-term` with no ORDER BY,
//! LIMIT, OFFSET or FOR UPDATE atop, and its one self-reference must sit
//! in the recursive term, outside subqueries (sublinks), the nullable side
//! of outer joins, INTERSECT ALL and EXCEPT — PostgreSQL's
//! checkWellFormedRecursion with its messages, SQLSTATE 42P19 and
//! positions. The walks see the parse tree as JSON (its serde form), so
//! every node kind is walked without a walker per kind; the node kinds
//! that matter are named here.

use std::collections::BTreeSet;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use serde_json::{Map, Value as J};

use crate::bind::err_at;

/// Where a self-reference is being looked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Ok,
    NonRecursiveTerm,
    Sublink,
    OuterJoin,
    Intersect,
    Except,
}

impl Ctx {
    fn message(self, name: &str) -> String {
        let within = match self {
            Ctx::Ok => "",
            Ctx::NonRecursiveTerm => "its non-recursive term",
            Ctx::Sublink => "a subquery",
            Ctx::OuterJoin => "an outer join",
            Ctx::Intersect => "INTERSECT",
            Ctx::Except => "EXCEPT",
        };
        format!("recursive reference to query \"{name}\" must not appear within {within}")
    }
}

/// One WITH item: its name, position and query as JSON.
struct Item {
    name: String,
    location: i32,
    query: J,
    depends_on: BTreeSet<usize>,
    recursive: bool,
}

/// The order to plan the items of `w` (a WITH RECURSIVE) in, after
/// checking each recursive item's shape.
pub(crate) fn order(text: &str, w: &pb::WithClause) -> Result<Vec<usize>, DbError> {
    let mut items = Vec::with_capacity(w.ctes.len());
    for c in &w.ctes {
        let Some(pb::node::Node::CommonTableExpr(cte)) = c.node.as_ref() else {
            return Err(DbError::internal("WITH item is not a CTE"));
        };
        let query = serde_json::to_value(&cte.ctequery)
            .map_err(|e| DbError::internal(format!("WITH item as JSON: {e}")))?;
        items.push(Item {
            name: cte.ctename.clone(),
            location: cte.location,
            query,
            depends_on: BTreeSet::new(),
            recursive: false,
        });
    }
    let names: Vec<String> = items.iter().map(|i| i.name.clone()).collect();
    for (cur, item) in items.iter_mut().enumerate() {
        let mut d = Deps {
            names: &names,
            cur,
            inner: Vec::new(),
            depends_on: BTreeSet::new(),
            recursive: false,
        };
        d.walk(&item.query);
        item.depends_on = d.depends_on;
        item.recursive = d.recursive;
    }
    let sorted = topological_sort(text, &items)?;
    for &i in &sorted {
        if items[i].recursive {
            check_well_formed(text, &items[i])?;
        }
    }
    Ok(sorted)
}

/// PostgreSQL's TopologicalSort: at each position the first remaining
/// item without dependencies left; none is a cycle, reported at the item
/// in that position.
fn topological_sort(text: &str, items: &[Item]) -> Result<Vec<usize>, DbError> {
    let mut seq: Vec<usize> = (0..items.len()).collect();
    let mut deps: Vec<BTreeSet<usize>> = items.iter().map(|i| i.depends_on.clone()).collect();
    for i in 0..seq.len() {
        let Some(j) = (i..seq.len()).find(|&j| deps[seq[j]].is_empty()) else {
            return Err(err_at(
                DbError::new(
                    SqlState::FeatureNotSupported,
                    "mutual recursion between WITH items is not implemented",
                ),
                text,
                items[seq[i]].location,
            ));
        };
        seq.swap(i, j);
        let done = seq[i];
        for &k in &seq[i + 1..] {
            deps[k].remove(&done);
        }
    }
    Ok(seq)
}

/// The fields of a SelectStmt in the order PostgreSQL's walker visits
/// them (which self-reference an error names).
const SELECT_FIELDS: [&str; 15] = [
    "distinct_clause",
    "into_clause",
    "target_list",
    "from_clause",
    "where_clause",
    "group_clause",
    "having_clause",
    "window_clause",
    "values_lists",
    "sort_clause",
    "limit_offset",
    "limit_count",
    "locking_clause",
    "larg",
    "rarg",
];

/// The statements that may carry a WITH clause of their own.
const WITH_OWNERS: [&str; 5] = [
    "SelectStmt",
    "InsertStmt",
    "UpdateStmt",
    "DeleteStmt",
    "MergeStmt",
];

/// A set operation's arm (`larg`/`rarg` of a SelectStmt are SelectStmts,
/// not nodes; a JoinExpr's are nodes).
fn is_select_arm(key: &str, v: &J) -> bool {
    matches!(key, "larg" | "rarg") && v.is_object() && v.get("node").is_none()
}

/// A relation name in the tree: an unqualified RangeVar's name and
/// position.
fn range_var(v: &J) -> Option<(&str, i32)> {
    let schema = v.get("schemaname").and_then(J::as_str).unwrap_or("");
    let name = v.get("relname").and_then(J::as_str)?;
    let at = v.get("location").and_then(J::as_i64).unwrap_or(-1);
    schema.is_empty().then_some((name, at as i32))
}

/// The WITH clause of a statement object, when it has one: (recursive,
/// its items as (name, query)).
fn with_clause(stmt: &Map<String, J>) -> Option<(bool, Vec<(&str, &J)>)> {
    let w = stmt.get("with_clause").filter(|w| !w.is_null())?;
    let recursive = w.get("recursive").and_then(J::as_bool).unwrap_or(false);
    let ctes = w
        .get("ctes")
        .and_then(J::as_array)
        .map(|v| v.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|c| {
            let cte = c.get("node")?.get("CommonTableExpr")?;
            Some((cte.get("ctename")?.as_str()?, cte.get("ctequery")?))
        })
        .collect();
    Some((recursive, ctes))
}

/// makeDependencyGraphWalker: the items an item names, and whether it
/// names itself.
struct Deps<'a> {
    names: &'a [String],
    cur: usize,
    /// The names inner WITH clauses make visible (they hide the items').
    inner: Vec<Vec<String>>,
    depends_on: BTreeSet<usize>,
    recursive: bool,
}

impl Deps<'_> {
    fn walk(&mut self, v: &J) {
        match v {
            J::Object(map) => {
                for (k, child) in map {
                    match k.as_str() {
                        "RangeVar" | "relation" => self.name(child),
                        "with_clause" => {}
                        k if WITH_OWNERS.contains(&k) || is_select_arm(k, child) => {
                            self.statement(child)
                        }
                        _ => self.walk(child),
                    }
                }
            }
            J::Array(items) => items.iter().for_each(|i| self.walk(i)),
            _ => {}
        }
    }

    fn name(&mut self, rv: &J) {
        let Some((name, _)) = range_var(rv) else {
            return;
        };
        if self.inner.iter().flatten().any(|n| n == name) {
            return;
        }
        if let Some(i) = self.names.iter().position(|n| n == name) {
            if i == self.cur {
                self.recursive = true;
            } else {
                self.depends_on.insert(i);
            }
        }
    }

    /// A statement, with its WITH clause's names in scope as PostgreSQL's
    /// WalkInnerWith has them.
    fn statement(&mut self, stmt: &J) {
        let Some(map) = stmt.as_object() else {
            return;
        };
        match with_clause(map) {
            None => self.walk(stmt),
            Some((recursive, ctes)) => {
                if recursive {
                    self.inner
                        .push(ctes.iter().map(|c| c.0.to_string()).collect());
                    ctes.iter().for_each(|c| self.walk(c.1));
                } else {
                    self.inner.push(Vec::new());
                    for (name, query) in &ctes {
                        self.walk(query);
                        if let Some(last) = self.inner.last_mut() {
                            last.push(name.to_string());
                        }
                    }
                }
                self.walk(stmt);
                self.inner.pop();
            }
        }
    }
}

fn invalid_recursion(text: &str, msg: String, at: i32) -> DbError {
    err_at(DbError::new(SqlState::InvalidRecursion, msg), text, at)
}

/// checkWellFormedRecursion for one recursive item.
fn check_well_formed(text: &str, item: &Item) -> Result<(), DbError> {
    let name = &item.name;
    let Some(stmt) = item.query.get("node").and_then(|n| n.get("SelectStmt")) else {
        return Err(invalid_recursion(
            text,
            format!("recursive query \"{name}\" must not contain data-modifying statements"),
            item.location,
        ));
    };
    let op = stmt.get("op").and_then(J::as_i64).unwrap_or(0);
    if op != pb::SetOperation::SetopUnion as i64 {
        return Err(invalid_recursion(
            text,
            format!(
                "recursive query \"{name}\" does not have the form non-recursive-term UNION [ALL] recursive-term"
            ),
            item.location,
        ));
    }
    let mut w = Check {
        text,
        name,
        inner: Vec::new(),
        refs: 0,
        ctx: Ctx::Sublink,
    };
    if let Some(map) = stmt.as_object() {
        if let Some((_, ctes)) = with_clause(map) {
            ctes.iter().try_for_each(|c| w.walk(c.1))?;
        }
    }
    decoration(text, stmt)?;
    for (side, ctx) in [("larg", Ctx::NonRecursiveTerm), ("rarg", Ctx::Ok)] {
        w.refs = 0;
        w.ctx = ctx;
        if let Some(v) = stmt.get(side) {
            w.select(v)?;
        }
    }
    Ok(())
}

/// ORDER BY, OFFSET, LIMIT and FOR UPDATE atop the UNION: 0A000 at the
/// first of them.
fn decoration(text: &str, stmt: &J) -> Result<(), DbError> {
    let present = |k: &str| {
        stmt.get(k)
            .filter(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()))
    };
    let unsupported = |what: &str, at: i32| {
        err_at(
            DbError::new(
                SqlState::FeatureNotSupported,
                format!("{what} in a recursive query is not implemented"),
            ),
            text,
            at,
        )
    };
    if let Some(s) = present("sort_clause") {
        let first = s
            .get(0)
            .and_then(|n| n.get("node"))
            .and_then(|n| n.get("SortBy"));
        let at = first.and_then(|s| s.get("node")).map_or(-1, location);
        return Err(unsupported("ORDER BY", at));
    }
    if let Some(v) = present("limit_offset") {
        return Err(unsupported("OFFSET", location(v)));
    }
    if let Some(v) = present("limit_count") {
        return Err(unsupported("LIMIT", location(v)));
    }
    if present("locking_clause").is_some() {
        return Err(unsupported("FOR UPDATE/SHARE", -1));
    }
    Ok(())
}

/// The position of an expression node (`{"node": {Kind: {..., "location"}}}`).
fn location(v: &J) -> i32 {
    v.get("node")
        .and_then(J::as_object)
        .and_then(|m| m.values().next())
        .and_then(|n| n.get("location"))
        .and_then(J::as_i64)
        .map_or(-1, |l| l as i32)
}

/// checkWellFormedRecursionWalker over one item's terms.
struct Check<'a> {
    text: &'a str,
    name: &'a str,
    inner: Vec<Vec<String>>,
    refs: usize,
    ctx: Ctx,
}

impl Check<'_> {
    fn walk(&mut self, v: &J) -> Result<(), DbError> {
        match v {
            J::Object(map) => {
                for (k, child) in map {
                    match k.as_str() {
                        "RangeVar" | "relation" => self.name(child)?,
                        "with_clause" => {}
                        k if k == "SelectStmt" || is_select_arm(k, child) => self.select(child)?,
                        "JoinExpr" => self.join(child)?,
                        "SubLink" => self.sublink(child)?,
                        _ => self.walk(child)?,
                    }
                }
                Ok(())
            }
            J::Array(items) => items.iter().try_for_each(|i| self.walk(i)),
            _ => Ok(()),
        }
    }

    fn name(&mut self, rv: &J) -> Result<(), DbError> {
        let Some((name, at)) = range_var(rv) else {
            return Ok(());
        };
        if name != self.name || self.inner.iter().flatten().any(|n| n == name) {
            return Ok(());
        }
        if self.ctx != Ctx::Ok {
            return Err(invalid_recursion(
                self.text,
                self.ctx.message(self.name),
                at,
            ));
        }
        self.refs += 1;
        if self.refs > 1 {
            return Err(invalid_recursion(
                self.text,
                format!(
                    "recursive reference to query \"{}\" must not appear more than once",
                    self.name
                ),
                at,
            ));
        }
        Ok(())
    }

    fn select(&mut self, stmt: &J) -> Result<(), DbError> {
        let Some(map) = stmt.as_object() else {
            return Ok(());
        };
        let Some((recursive, ctes)) = with_clause(map) else {
            return self.select_body(map);
        };
        if recursive {
            self.inner
                .push(ctes.iter().map(|c| c.0.to_string()).collect());
            ctes.iter().try_for_each(|c| self.walk(c.1))?;
        } else {
            self.inner.push(Vec::new());
            for (name, query) in &ctes {
                self.walk(query)?;
                if let Some(last) = self.inner.last_mut() {
                    last.push(name.to_string());
                }
            }
        }
        let r = self.select_body(map);
        self.inner.pop();
        r
    }

    /// checkWellFormedSelectStmt: a SELECT without minding its WITH.
    fn select_body(&mut self, map: &Map<String, J>) -> Result<(), DbError> {
        let saved = self.ctx;
        let field = |k: &str| map.get(k).unwrap_or(&J::Null);
        let op = field("op").as_i64().unwrap_or(0);
        let all = field("all").as_bool().unwrap_or(false);
        let intersect = op == pb::SetOperation::SetopIntersect as i64;
        let except = op == pb::SetOperation::SetopExcept as i64;
        if saved != Ctx::Ok || !(intersect || except) {
            return SELECT_FIELDS.iter().try_for_each(|k| self.walk(field(k)));
        }
        if all {
            self.ctx = if intersect {
                Ctx::Intersect
            } else {
                Ctx::Except
            };
        }
        self.walk(field("larg"))?;
        if except {
            self.ctx = Ctx::Except;
        }
        self.walk(field("rarg"))?;
        self.ctx = saved;
        [
            "sort_clause",
            "limit_offset",
            "limit_count",
            "locking_clause",
        ]
        .iter()
        .try_for_each(|k| self.walk(field(k)))
    }

    fn join(&mut self, j: &J) -> Result<(), DbError> {
        let saved = self.ctx;
        let field = |k: &str| j.get(k).unwrap_or(&J::Null);
        let outer = |me: &mut Self| {
            if saved == Ctx::Ok {
                me.ctx = Ctx::OuterJoin;
            }
        };
        match field("jointype").as_i64().unwrap_or(0) {
            t if t == pb::JoinType::JoinLeft as i64 => {
                self.walk(field("larg"))?;
                outer(self);
                self.walk(field("rarg"))?;
            }
            t if t == pb::JoinType::JoinFull as i64 => {
                outer(self);
                self.walk(field("larg"))?;
                self.walk(field("rarg"))?;
            }
            t if t == pb::JoinType::JoinRight as i64 => {
                outer(self);
                self.walk(field("larg"))?;
                self.ctx = saved;
                self.walk(field("rarg"))?;
            }
            _ => {
                self.walk(field("larg"))?;
                self.walk(field("rarg"))?;
            }
        }
        self.ctx = saved;
        self.walk(field("quals"))
    }

    fn sublink(&mut self, s: &J) -> Result<(), DbError> {
        let saved = self.ctx;
        self.ctx = Ctx::Sublink;
        let r = self.walk(s.get("subselect").unwrap_or(&J::Null));
        self.ctx = saved;
        r?;
        self.walk(s.get("testexpr").unwrap_or(&J::Null))
    }
}

/// PostgreSQL's 42803 for a recursive term `r` of query `name` that
/// aggregates at the level reading the working table (parseCheckAggregates),
/// at the first aggregate call.
pub(crate) fn aggregate_in_recursive_term(
    text: &str,
    r: &pb::SelectStmt,
    name: &str,
) -> Result<(), DbError> {
    let from = serde_json::to_value(&r.from_clause).unwrap_or(J::Null);
    if !reads_directly(&from, name) {
        return Ok(());
    }
    for part in [
        serde_json::to_value(&r.target_list),
        serde_json::to_value(&r.having_clause),
    ] {
        if let Some(at) = part.ok().as_ref().and_then(first_aggregate) {
            return Err(err_at(
                DbError::new(
                    SqlState::GroupingError,
                    "aggregate functions are not allowed in a recursive query's recursive term",
                ),
                text,
                at,
            ));
        }
    }
    Ok(())
}

/// Whether a FROM list names `name` itself (through joins, not in
/// subqueries).
fn reads_directly(v: &J, name: &str) -> bool {
    match v {
        J::Object(map) => map.iter().any(|(k, child)| match k.as_str() {
            "RangeVar" => range_var(child).is_some_and(|(n, _)| n == name),
            "RangeSubselect" | "SelectStmt" | "SubLink" => false,
            _ => reads_directly(child, name),
        }),
        J::Array(items) => items.iter().any(|i| reads_directly(i, name)),
        _ => false,
    }
}

/// The position of the first aggregate call outside subqueries (a call of
/// an aggregate's name without OVER).
fn first_aggregate(v: &J) -> Option<i32> {
    match v {
        J::Object(map) => map.iter().find_map(|(k, child)| match k.as_str() {
            "SubLink" => None,
            "FuncCall" => {
                let fname = child
                    .get("funcname")
                    .and_then(J::as_array)
                    .and_then(|n| n.last())
                    .and_then(|n| n.get("node"))
                    .and_then(|n| n.get("String"))
                    .and_then(|s| s.get("sval"))
                    .and_then(J::as_str)
                    .unwrap_or("");
                let window = child.get("over").is_some_and(|o| !o.is_null());
                if crate::bind::is_aggregate(fname) && !window {
                    return child.get("location").and_then(J::as_i64).map(|l| l as i32);
                }
                first_aggregate(child)
            }
            _ => first_aggregate(child),
        }),
        J::Array(items) => items.iter().find_map(first_aggregate),
        _ => None,
    }
}
