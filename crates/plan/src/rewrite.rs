//! The rule rewriter: PostgreSQL's rewriteHandler.c (RewriteQuery,
//! fireRules, rewriteRuleAction) over parse trees.
//!
//! A rule (CREATE RULE ... ON INSERT|UPDATE|DELETE TO rel) is kept with
//! its relation as SQL text: the condition and the actions over NEW and
//! OLD. Before a statement is planned, [`rewrite`] turns it into the list
//! of statements to run, each a parse tree the planner handles as if a
//! client had sent it:
//!
//! ```text
//!   UPDATE v SET a = a + 1 WHERE b = 2            rule: ON UPDATE TO v DO
//!                                                   INSTEAD UPDATE t SET a = new.a
//!                                                   WHERE t.id = old.id
//!   ->  UPDATE t SET a = CAST(("*OLD*".a + 1) AS integer)
//!         FROM v AS "*OLD*" WHERE t.id = "*OLD*".id AND "*OLD*".b = 2
//! ```
//!
//! NEW and OLD become FROM items named `"*NEW*"` and `"*OLD*"` (the names
//! PostgreSQL gives them), whose columns the binder lets only qualified
//! references reach (`select::from`), so an action's own unqualified
//! columns mean its own tables, as in PostgreSQL. For UPDATE and DELETE,
//! OLD is the statement's target relation, joined with the statement's
//! other FROM items and restricted by its WHERE; NEW.col is the column's
//! SET expression (in OLD's terms) or OLD.col. For INSERT, NEW is a
//! subquery giving the inserted rows with every column (defaults filled
//! in). The original statement's own references are put in these terms
//! at the text level (`nestor_parser::map_column_refs`).
//!
//! As in PostgreSQL: rules fire in name order; an unconditional INSTEAD
//! rule drops the statement, a conditional one keeps it with `(cond) IS
//! NOT TRUE` added; ALSO actions run after an INSERT and before an
//! UPDATE or DELETE; the products are rewritten again (recursion through
//! the same relation and event is 42P17); an INSTEAD rule's RETURNING
//! gives the statement's RETURNING rows (the statement's RETURNING list
//! with the relation's columns replaced by the rule's entries); the
//! command tag comes from the original statement if it runs, else from
//! the last INSTEAD action of the same command. Data-modifying WITH
//! items must rewrite into exactly one statement (PostgreSQL's errors
//! otherwise). Each product runs as its own statement, after the
//! previous one's changes (a new command id), as PostgreSQL's portal runs
//! the rewritten queries.
//!
//! Left out (0A000 unless said): rules' actions are checked with the
//! privileges of the user running the statement (PostgreSQL checks them
//! as the rule owner's); NOTIFY actions when they fire; a write through
//! an automatically updatable view into a relation with rules for the
//! event (the view is expanded in planning, after this step:
//! `view_write::refuse_rules`); UPDATE ... SET (a, b) = ... and writes
//! to subscripts or fields of a relation with rules; DEFAULT in a
//! multi-row VALUES list inserting into one.

use nestor_catalog::{Catalog, Relation, RuleDef, RuleEvent};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::ast::wrap;
use nestor_parser::{deparse_expr, map_column_refs, parse_expr, parse_sql, pb, NodeEnum};
use nestor_types::datatype::DataType;
use nestor_types::EvalCtx;

pub use crate::bind::{is_pseudo_rel, NEW_REL, OLD_REL};

/// Rules nest at most this deep (a chain of relations whose rules write
/// to one another, each a different relation and event).
const RULE_DEPTH_MAX: usize = 64;

/// One column of a relation with rules.
#[derive(Clone, Debug)]
pub struct RelCol {
    pub name: String,
    pub ty: DataType,
    /// DEFAULT expression (SQL text); a view's columns have none.
    pub default: Option<String>,
    /// A stored generated column: `default` is its generation expression,
    /// which NEW.col computes from NEW's other columns.
    pub generated: bool,
}

/// A table or view as rules see it.
#[derive(Clone, Debug)]
pub struct RuleRel {
    pub oid: RelId,
    pub name: String,
    /// The name a statement uses for it (schema-qualified or not).
    pub qualified: String,
    pub view: bool,
    pub columns: Vec<RelCol>,
    pub rules: Vec<RuleDef>,
    /// A view's INSTEAD OF trigger events (TRIGGER_INSERT | ...).
    pub instead_triggers: u8,
}

/// The relation `rv` names, if it is a table or view.
pub fn rule_rel(catalog: &Catalog, rv: &pb::RangeVar) -> Result<Option<RuleRel>, DbError> {
    let qualified = crate::bind::relname(rv)?;
    Ok(match catalog.relation(&qualified) {
        Some(Relation::Table(t)) => Some(RuleRel {
            oid: t.oid,
            name: t.name.clone(),
            qualified,
            view: false,
            columns: t
                .live_columns()
                .map(|(_, c)| RelCol {
                    name: c.name.clone(),
                    ty: c.ty,
                    default: c.default.clone(),
                    generated: c.generated,
                })
                .collect(),
            rules: t.rules.clone(),
            instead_triggers: 0,
        }),
        Some(Relation::View(v)) => Some(RuleRel {
            oid: v.oid,
            name: v.name.clone(),
            qualified,
            view: true,
            columns: v
                .columns
                .iter()
                .map(|(n, ty)| RelCol {
                    name: n.clone(),
                    ty: *ty,
                    default: None,
                    generated: false,
                })
                .collect(),
            rules: v.rules.clone(),
            instead_triggers: v
                .triggers
                .iter()
                .filter(|t| t.timing == nestor_catalog::TriggerTiming::Instead)
                .fold(0, |acc, t| acc | t.events),
        }),
        _ => None,
    })
}

/// One statement a rewritten statement runs.
#[derive(Clone, Debug)]
pub struct Product {
    pub stmt: NodeEnum,
    /// Its row count is the statement's command tag's.
    pub sets_tag: bool,
    /// Its rows are the statement's result rows.
    pub returns_rows: bool,
    /// An INSERT ... SELECT action (as written in the rule).
    pub insert_select: bool,
}

/// A statement rewritten by rules.
#[derive(Debug)]
pub struct Rewritten {
    pub products: Vec<Product>,
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidObjectDefinition, msg)
}

/// The event of a statement and its target.
fn target_of(n: &NodeEnum) -> Option<(RuleEvent, &pb::RangeVar)> {
    match n {
        NodeEnum::InsertStmt(i) => Some((RuleEvent::Insert, i.relation.as_ref()?)),
        NodeEnum::UpdateStmt(u) => Some((RuleEvent::Update, u.relation.as_ref()?)),
        NodeEnum::DeleteStmt(d) => Some((RuleEvent::Delete, d.relation.as_ref()?)),
        _ => None,
    }
}

fn with_clause_mut(n: &mut NodeEnum) -> Option<&mut Option<pb::WithClause>> {
    match n {
        NodeEnum::InsertStmt(i) => Some(&mut i.with_clause),
        NodeEnum::UpdateStmt(u) => Some(&mut u.with_clause),
        NodeEnum::DeleteStmt(d) => Some(&mut d.with_clause),
        NodeEnum::SelectStmt(s) => Some(&mut s.with_clause),
        _ => None,
    }
}

/// Whether a rule may apply to `n`: its target has rules, or it has a
/// data-modifying WITH item (which [`rewrite`] looks at in full). The
/// common statement (no rules anywhere near it) is answered here without
/// copying its tree.
fn may_rewrite(catalog: &Catalog, n: &NodeEnum) -> bool {
    let with = match n {
        NodeEnum::InsertStmt(i) => i.with_clause.as_ref(),
        NodeEnum::UpdateStmt(u) => u.with_clause.as_ref(),
        NodeEnum::DeleteStmt(d) => d.with_clause.as_ref(),
        NodeEnum::SelectStmt(s) => s.with_clause.as_ref(),
        _ => None,
    };
    let dml_item = with.is_some_and(|w| {
        w.ctes.iter().any(|c| match c.node.as_ref() {
            Some(NodeEnum::CommonTableExpr(c)) => c
                .ctequery
                .as_ref()
                .and_then(|q| q.node.as_ref())
                .is_some_and(is_dml),
            _ => false,
        })
    });
    if dml_item {
        return true;
    }
    let Some((_, rv)) = target_of(n) else {
        return false;
    };
    let Ok(qualified) = crate::bind::relname(rv) else {
        // The full path reports it.
        return true;
    };
    match catalog.relation(&qualified) {
        Some(Relation::Table(t)) => !t.rules.is_empty(),
        Some(Relation::View(v)) => !v.rules.is_empty(),
        _ => false,
    }
}

fn is_dml(n: &NodeEnum) -> bool {
    matches!(
        n,
        NodeEnum::InsertStmt(_) | NodeEnum::UpdateStmt(_) | NodeEnum::DeleteStmt(_)
    )
}

fn returns_rows(n: &NodeEnum) -> bool {
    match n {
        NodeEnum::SelectStmt(_) => true,
        NodeEnum::InsertStmt(i) => !i.returning_list.is_empty(),
        NodeEnum::UpdateStmt(u) => !u.returning_list.is_empty(),
        NodeEnum::DeleteStmt(d) => !d.returning_list.is_empty(),
        _ => false,
    }
}

fn returning_of(n: &NodeEnum) -> &[pb::Node] {
    match n {
        NodeEnum::InsertStmt(i) => &i.returning_list,
        NodeEnum::UpdateStmt(u) => &u.returning_list,
        NodeEnum::DeleteStmt(d) => &d.returning_list,
        _ => &[],
    }
}

fn returning_mut(n: &mut NodeEnum) -> Option<&mut Vec<pb::Node>> {
    match n {
        NodeEnum::InsertStmt(i) => Some(&mut i.returning_list),
        NodeEnum::UpdateStmt(u) => Some(&mut u.returning_list),
        NodeEnum::DeleteStmt(d) => Some(&mut d.returning_list),
        _ => None,
    }
}

/// Rewrite a statement by the rules of the relations it writes; None
/// when no rule applies (the statement is planned as it is).
pub fn rewrite(
    catalog: &Catalog,
    eval: EvalCtx,
    n: &NodeEnum,
) -> Result<Option<Rewritten>, DbError> {
    if !may_rewrite(catalog, n) {
        return Ok(None);
    }
    let mut stmt = n.clone();
    let mut changed = false;
    // Data-modifying WITH items: exactly one statement each.
    let mut with = with_clause_mut(&mut stmt).and_then(|w| w.take());
    if let Some(w) = &mut with {
        for cte in &mut w.ctes {
            let Some(NodeEnum::CommonTableExpr(c)) = cte.node.as_mut() else {
                continue;
            };
            let Some(q) = c.ctequery.as_mut().and_then(|q| q.node.as_mut()) else {
                continue;
            };
            if !is_dml(q) {
                continue;
            }
            let cx = Cx {
                catalog,
                eval,
                with: None,
            };
            if let Some(products) = rewrite_stmt(&cx, q, &mut Vec::new())? {
                if products.len() > 1 {
                    if let Some((event, rv)) = target_of(q) {
                        if let Some(rel) = rule_rel(catalog, rv)? {
                            if let Some(e) = cte_rule_error(&rel, event) {
                                return Err(e);
                            }
                        }
                    }
                }
                *q = single_cte_product(products)?;
                changed = true;
            }
        }
    }
    let main = if is_dml(&stmt) {
        let cx = Cx {
            catalog,
            eval,
            with: with.as_ref(),
        };
        rewrite_stmt(&cx, &stmt, &mut Vec::new())?
    } else {
        None
    };
    let Some(mut products) = main else {
        if !changed {
            return Ok(None);
        }
        if let Some(slot) = with_clause_mut(&mut stmt) {
            *slot = with;
        }
        let returns_rows = returns_rows(&stmt);
        return Ok(Some(Rewritten {
            products: vec![Product {
                stmt,
                sets_tag: true,
                returns_rows,
                insert_select: false,
            }],
        }));
    };
    if let Some(w) = with {
        let dml_count = products.iter().filter(|p| !utility(&p.stmt)).count();
        if dml_count > 1 {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "WITH cannot be used in a query that is rewritten by rules into multiple queries",
            ));
        }
        for p in products.iter_mut().filter(|p| !utility(&p.stmt)) {
            attach_with(&mut p.stmt, &w, p.insert_select)?;
        }
    }
    Ok(Some(Rewritten { products }))
}

fn utility(n: &NodeEnum) -> bool {
    !matches!(
        n,
        NodeEnum::SelectStmt(_)
            | NodeEnum::InsertStmt(_)
            | NodeEnum::UpdateStmt(_)
            | NodeEnum::DeleteStmt(_)
    )
}

/// The one statement a data-modifying WITH item rewrites into.
fn single_cte_product(products: Vec<Product>) -> Result<NodeEnum, DbError> {
    let unsupported = |m: &str| DbError::new(SqlState::FeatureNotSupported, m.to_string());
    match products.len() {
        0 => Err(unsupported(
            "DO INSTEAD NOTHING rules are not supported for data-modifying statements in WITH",
        )),
        1 => {
            let p = products.into_iter().next().map(|p| p.stmt);
            match p {
                Some(s) if !utility(&s) => Ok(s),
                _ => Err(unsupported(
                    "DO INSTEAD NOTIFY rules are not supported for data-modifying statements in WITH",
                )),
            }
        }
        _ => Err(unsupported(
            "multi-statement DO INSTEAD rules are not supported for data-modifying statements in WITH",
        )),
    }
}

/// Errors for a WITH item whose rules give several statements: PostgreSQL
/// names a conditional or ALSO rule when there is one.
fn cte_rule_error(rel: &RuleRel, event: RuleEvent) -> Option<DbError> {
    let rules = rel.rules.iter().filter(|r| r.event == event);
    let unsupported = |m: &str| DbError::new(SqlState::FeatureNotSupported, m.to_string());
    for r in rules {
        if r.instead && r.qual.is_some() {
            return Some(unsupported(
                "conditional DO INSTEAD rules are not supported for data-modifying statements in WITH",
            ));
        }
        if !r.instead {
            return Some(unsupported(
                "DO ALSO rules are not supported for data-modifying statements in WITH",
            ));
        }
    }
    None
}

/// Put the statement's WITH clause on a product.
fn attach_with(
    stmt: &mut NodeEnum,
    w: &pb::WithClause,
    insert_select: bool,
) -> Result<(), DbError> {
    let modifying = w.ctes.iter().any(|c| match c.node.as_ref() {
        Some(NodeEnum::CommonTableExpr(c)) => c
            .ctequery
            .as_ref()
            .and_then(|q| q.node.as_ref())
            .is_some_and(is_dml),
        _ => false,
    });
    if let NodeEnum::InsertStmt(_) = stmt {
        if modifying && insert_select {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "INSERT...SELECT rule actions are not supported for queries having data-modifying statements in WITH",
            ));
        }
    }
    let Some(slot) = with_clause_mut(stmt) else {
        return Ok(());
    };
    match slot {
        None => *slot = Some(w.clone()),
        Some(own) => {
            for c in &w.ctes {
                if let Some(NodeEnum::CommonTableExpr(c)) = c.node.as_ref() {
                    let dup = own.ctes.iter().any(|o| {
                        matches!(o.node.as_ref(), Some(NodeEnum::CommonTableExpr(o)) if o.ctename == c.ctename)
                    });
                    if dup {
                        return Err(DbError::new(
                            SqlState::FeatureNotSupported,
                            format!(
                                "WITH query name \"{}\" appears in both a rule action and the query being rewritten",
                                c.ctename
                            ),
                        ));
                    }
                }
            }
            own.ctes.extend(w.ctes.iter().cloned());
            own.recursive |= w.recursive;
        }
    }
    Ok(())
}

/// Whether a FROM item is the NEW source this module adds to an INSERT
/// rule's action (its INSERT ... VALUES became INSERT ... SELECT).
fn is_new_source(n: &pb::Node) -> bool {
    match n.node.as_ref() {
        Some(NodeEnum::RangeSubselect(rs)) => {
            rs.alias.as_ref().is_some_and(|a| a.aliasname == NEW_REL)
        }
        _ => false,
    }
}

/// Rewrite one INSERT/UPDATE/DELETE (without a WITH clause of its own
/// to process) by its target's rules, recursively; None when none apply.
/// What rewriting a statement needs besides the statement.
struct Cx<'c> {
    catalog: &'c Catalog,
    eval: EvalCtx,
    /// The WITH clause of the statement being rewritten (its items are
    /// in scope of an INSERT's SELECT).
    with: Option<&'c pb::WithClause>,
}

impl Cx<'_> {
    /// How many columns an INSERT's SELECT gives.
    fn select_width(&self, q: &NodeEnum) -> Result<usize, DbError> {
        let mut q = q.clone();
        if let (Some(w), Some(slot)) = (self.with, with_clause_mut(&mut q)) {
            if slot.is_none() {
                *slot = Some(w.clone());
            }
        }
        let sql = nestor_parser::deparse_query(&wrap(q))?;
        let NodeEnum::SelectStmt(sel) = parse_one(&sql)? else {
            return Err(DbError::internal("INSERT source is not a query"));
        };
        let mut b = crate::bind::Binder::new(
            self.catalog,
            self.eval,
            &sql,
            &[],
            crate::select::plan_query,
        );
        // Data-modifying WITH items planned as the statement's own are.
        let sel = match crate::with_modify::top_with(&NodeEnum::SelectStmt(sel.clone())) {
            Some(w) => {
                crate::with_modify::plan_with_clause(&mut b, w)?;
                match crate::with_modify::without_with(&NodeEnum::SelectStmt(sel)) {
                    NodeEnum::SelectStmt(s) => s,
                    _ => return Err(DbError::internal("INSERT source is not a query")),
                }
            }
            None => sel,
        };
        let (_, cols) = crate::select::plan_query(&mut b, &sel)?;
        Ok(cols.len())
    }
}

fn rewrite_stmt(
    cx: &Cx<'_>,
    stmt: &NodeEnum,
    stack: &mut Vec<(RelId, RuleEvent)>,
) -> Result<Option<Vec<Product>>, DbError> {
    let Some((event, rv)) = target_of(stmt) else {
        return Ok(None);
    };
    let Some(rel) = rule_rel(cx.catalog, rv)? else {
        return Ok(None);
    };
    if !rel.rules.iter().any(|r| r.event == event) {
        return Ok(None);
    }
    if stack.contains(&(rel.oid, event)) || stack.len() >= RULE_DEPTH_MAX {
        return Err(invalid(format!(
            "infinite recursion detected in rules for relation \"{}\"",
            rel.name
        )));
    }
    let ev = Event::of(cx, &rel, event, stmt)?;
    let orig_returning = returning_of(stmt).to_vec();
    let mut instead = false;
    let mut qual_product: Option<NodeEnum> = None;
    let mut returning_done = false;
    // (statement, from an INSTEAD rule, INSERT ... SELECT as written)
    let mut actions: Vec<(NodeEnum, bool, bool)> = Vec::new();
    for rule in rel.rules.iter().filter(|r| r.event == event) {
        if rule.instead {
            match &rule.qual {
                None => instead = true,
                Some(q) => {
                    let base = qual_product.take().unwrap_or_else(|| stmt.clone());
                    qual_product = Some(ev.add_inverted_qual(base, q)?);
                }
            }
        }
        for text in &rule.actions {
            let (mut action, insert_select) = ev.action(text, rule.qual.as_deref())?;
            if let Some(ret) = returning_mut(&mut action) {
                if orig_returning.is_empty() || ret.is_empty() {
                    ret.clear();
                } else {
                    if returning_done {
                        return Err(DbError::new(
                            SqlState::FeatureNotSupported,
                            "cannot have RETURNING lists in multiple rules",
                        ));
                    }
                    returning_done = true;
                    *ret = ev.returning(&orig_returning, ret)?;
                }
            }
            actions.push((action, rule.instead, insert_select));
        }
    }
    if (instead || qual_product.is_some()) && !orig_returning.is_empty() && !returning_done {
        let (verb, on) = match event {
            RuleEvent::Insert => ("INSERT", "INSERT"),
            RuleEvent::Update => ("UPDATE", "UPDATE"),
            RuleEvent::Delete => ("DELETE", "DELETE"),
        };
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "cannot perform {verb} RETURNING on relation \"{}\"",
                rel.name
            ),
        )
        .with_hint(format!(
            "You need an unconditional ON {on} DO INSTEAD rule with a RETURNING clause."
        )));
    }
    if let NodeEnum::InsertStmt(i) = stmt {
        if i.on_conflict_clause.is_some() {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules",
            ));
        }
    }
    // A conditional INSTEAD rule keeps the statement for the rows it does
    // not take: a view's INSTEAD OF trigger can do those.
    let trigger_bit = match event {
        RuleEvent::Insert => nestor_catalog::TRIGGER_INSERT,
        RuleEvent::Update => nestor_catalog::TRIGGER_UPDATE,
        RuleEvent::Delete => nestor_catalog::TRIGGER_DELETE,
    };
    if !instead && rel.view && qual_product.is_some() && rel.instead_triggers & trigger_bit == 0 {
        return Err(view_conditional_error(&rel.name, event));
    }
    stack.push((rel.oid, event));
    let mut products = Vec::new();
    let tag_from_instead = instead;
    let result = (|| {
        for (a, from_instead, insert_select) in actions {
            let inner = Cx {
                catalog: cx.catalog,
                eval: cx.eval,
                with: None,
            };
            match rewrite_stmt(&inner, &a, stack)? {
                Some(sub) => {
                    for mut p in sub {
                        p.sets_tag = false;
                        p.returns_rows = p.returns_rows && from_instead;
                        products.push((p, from_instead));
                    }
                }
                None => {
                    let returns_rows = from_instead && returns_rows(&a);
                    products.push((
                        Product {
                            stmt: a,
                            sets_tag: false,
                            returns_rows,
                            insert_select,
                        },
                        from_instead,
                    ));
                }
            }
        }
        Ok::<(), DbError>(())
    })();
    stack.pop();
    result?;
    if tag_from_instead {
        // The last INSTEAD action of the original's command sets the tag.
        if let Some((p, _)) = products
            .iter_mut()
            .rev()
            .find(|(p, instead)| *instead && target_of(&p.stmt).is_some_and(|(e, _)| e == event))
        {
            p.sets_tag = true;
        }
    }
    let mut out: Vec<Product> = products.into_iter().map(|(p, _)| p).collect();
    if !tag_from_instead {
        let original = qual_product.unwrap_or_else(|| stmt.clone());
        let returns_rows = returns_rows(&original);
        if returns_rows {
            for p in &mut out {
                p.returns_rows = false;
            }
        }
        let p = Product {
            stmt: original,
            sets_tag: true,
            returns_rows,
            insert_select: false,
        };
        if event == RuleEvent::Insert {
            out.insert(0, p);
        } else {
            out.push(p);
        }
    }
    // SELECT actions return rows only when nothing else does; the first
    // one then.
    let mut seen = false;
    for p in &mut out {
        if p.returns_rows {
            if seen {
                p.returns_rows = false;
            }
            seen = true;
        }
    }
    Ok(Some(out))
}

fn view_conditional_error(view: &str, event: RuleEvent) -> DbError {
    let (msg, verb, ev) = match event {
        RuleEvent::Insert => (
            format!("cannot insert into view \"{view}\""),
            "inserting into",
            "INSERT",
        ),
        RuleEvent::Update => (
            format!("cannot update view \"{view}\""),
            "updating",
            "UPDATE",
        ),
        RuleEvent::Delete => (
            format!("cannot delete from view \"{view}\""),
            "deleting from",
            "DELETE",
        ),
    };
    DbError::new(SqlState::ObjectNotInPrerequisiteState, msg)
        .with_detail("Views with conditional DO INSTEAD rules are not automatically updatable.")
        .with_hint(format!(
            "To enable {verb} the view, provide an INSTEAD OF {ev} trigger or an unconditional ON {ev} DO INSTEAD rule."
        ))
}

/// A statement as a rule's actions see it: where NEW and OLD come from.
struct Event<'a> {
    rel: &'a RuleRel,
    kind: RuleEvent,
    /// The name the statement calls its target by (alias or name).
    refname: String,
    /// UPDATE: (column, SET expression over "*OLD*", as written).
    set: Vec<(String, String, String)>,
    /// UPDATE FROM / DELETE USING items.
    from: Vec<pb::Node>,
    /// The statement's WHERE over "*OLD*".
    where_old: Option<String>,
    /// INSERT: the query giving NEW's rows (every column).
    new_src: Option<String>,
    /// INSERT: the inserted rows come from a query or several VALUES
    /// rows, so every action runs once per row (joined with the source).
    src_always: bool,
}

impl<'a> Event<'a> {
    fn of(
        cx: &Cx<'_>,
        rel: &'a RuleRel,
        kind: RuleEvent,
        stmt: &NodeEnum,
    ) -> Result<Event<'a>, DbError> {
        let mut ev = Event {
            rel,
            kind,
            refname: rel.name.clone(),
            set: Vec::new(),
            from: Vec::new(),
            where_old: None,
            new_src: None,
            src_always: false,
        };
        let alias = |rv: &Option<pb::RangeVar>| {
            rv.as_ref()
                .and_then(|r| r.alias.as_ref())
                .map(|a| a.aliasname.clone())
        };
        match stmt {
            NodeEnum::InsertStmt(i) => {
                if let Some(a) = alias(&i.relation) {
                    ev.refname = a;
                }
                ev.insert_source(cx, i)?;
            }
            NodeEnum::UpdateStmt(u) => {
                if let Some(a) = alias(&u.relation) {
                    ev.refname = a;
                }
                for t in &u.target_list {
                    let Some(NodeEnum::ResTarget(rt)) = t.node.as_ref() else {
                        continue;
                    };
                    if !rt.indirection.is_empty() {
                        return Err(DbError::unsupported(
                            "UPDATE of a subscript or field of a column of a relation with rules",
                        ));
                    }
                    let val = rt
                        .val
                        .as_deref()
                        .ok_or_else(|| DbError::internal("SET without a value"))?;
                    let text = match val.node.as_ref() {
                        Some(NodeEnum::SetToDefault(_)) => ev.default_of(&rt.name)?,
                        Some(NodeEnum::MultiAssignRef(_)) => {
                            return Err(DbError::unsupported(
                                "UPDATE ... SET (columns) = ... of a relation with rules",
                            ))
                        }
                        _ => deparse_expr(val)?,
                    };
                    let over_old = ev.over_old(&text)?;
                    ev.set.push((rt.name.clone(), over_old, text));
                }
                ev.from = u.from_clause.clone();
                if let Some(w) = u.where_clause.as_deref() {
                    ev.where_old = Some(ev.over_old(&deparse_expr(w)?)?);
                }
            }
            NodeEnum::DeleteStmt(d) => {
                if let Some(a) = alias(&d.relation) {
                    ev.refname = a;
                }
                ev.from = d.using_clause.clone();
                if let Some(w) = d.where_clause.as_deref() {
                    ev.where_old = Some(ev.over_old(&deparse_expr(w)?)?);
                }
            }
            _ => return Err(DbError::internal("rule event of a non-DML statement")),
        }
        Ok(ev)
    }

    fn col(&self, name: &str) -> Option<&RelCol> {
        self.rel.columns.iter().find(|c| c.name == name)
    }

    fn default_of(&self, name: &str) -> Result<String, DbError> {
        let c = self
            .col(name)
            .ok_or_else(|| no_column(name, &self.rel.name))?;
        Ok(match &c.default {
            Some(d) if !c.generated => format!("CAST(({d}) AS {})", c.ty),
            _ => format!("CAST(NULL AS {})", c.ty),
        })
    }

    /// A generated column's value over the values `value_of` gives the
    /// columns its expression reads.
    fn generated_value(
        &self,
        c: &RelCol,
        value_of: &dyn Fn(&str) -> String,
    ) -> Result<Option<String>, DbError> {
        let (true, Some(expr)) = (c.generated, c.default.as_deref()) else {
            return Ok(None);
        };
        let over = map_column_refs(expr, &mut |r| {
            (r.rel.is_none() && self.col(r.col).is_some()).then(|| format!("({})", value_of(r.col)))
        })?;
        Ok(Some(format!("CAST(({over}) AS {})", c.ty)))
    }

    /// The statement's own text (SET, WHERE, RETURNING) with references
    /// to its target put on "*OLD*".
    fn over_old(&self, sql: &str) -> Result<String, DbError> {
        map_column_refs(sql, &mut |r| match r.rel {
            Some(rel) if rel == self.refname => {
                Some(format!("{}.{}", quote(OLD_REL), star_or(r.col)))
            }
            None if self.col(r.col).is_some() => {
                Some(format!("{}.{}", quote(OLD_REL), quote(r.col)))
            }
            _ => None,
        })
    }

    /// INSERT: the query giving every column of the inserted rows.
    fn insert_source(&mut self, cx: &Cx<'_>, i: &pb::InsertStmt) -> Result<(), DbError> {
        let select = i.select_stmt.as_deref().and_then(|s| s.node.as_ref());
        let cols: Vec<String> = if i.cols.is_empty() {
            // As many leading columns as the source gives.
            let width = match select {
                None => 0,
                Some(NodeEnum::SelectStmt(s)) if !s.values_lists.is_empty() => {
                    match s.values_lists[0].node.as_ref() {
                        Some(NodeEnum::List(l)) => l.items.len(),
                        _ => 0,
                    }
                }
                Some(q) => cx.select_width(q)?,
            };
            if width > self.rel.columns.len() {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    "INSERT has more expressions than target columns",
                ));
            }
            self.rel.columns[..width]
                .iter()
                .map(|c| c.name.clone())
                .collect()
        } else {
            let mut v = Vec::new();
            for c in &i.cols {
                let Some(NodeEnum::ResTarget(rt)) = c.node.as_ref() else {
                    continue;
                };
                if !rt.indirection.is_empty() {
                    return Err(DbError::unsupported(
                        "INSERT into a subscript or field of a column of a relation with rules",
                    ));
                }
                if self.col(&rt.name).is_none() {
                    return Err(no_column(&rt.name, &self.rel.name));
                }
                v.push(rt.name.clone());
            }
            v
        };
        let single_values = match select {
            Some(NodeEnum::SelectStmt(s)) if s.values_lists.len() == 1 => {
                match s.values_lists[0].node.as_ref() {
                    Some(NodeEnum::List(l)) => Some(l.items.clone()),
                    _ => None,
                }
            }
            _ => None,
        };
        let mut items = Vec::with_capacity(self.rel.columns.len());
        match (select, single_values) {
            (None, _) => {
                for c in &self.rel.columns {
                    items.push(format!(
                        "{} AS {}",
                        self.default_of(&c.name)?,
                        quote(&c.name)
                    ));
                }
            }
            (Some(_), Some(values)) => {
                if values.len() > cols.len() {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "INSERT has more expressions than target columns",
                    ));
                }
                if values.len() < cols.len() {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "INSERT has more target columns than expressions",
                    ));
                }
                for c in &self.rel.columns {
                    let expr = match cols.iter().position(|n| *n == c.name) {
                        Some(p) => match values[p].node.as_ref() {
                            Some(NodeEnum::SetToDefault(_)) => self.default_of(&c.name)?,
                            _ => format!("CAST(({}) AS {})", deparse_expr(&values[p])?, c.ty),
                        },
                        None => self.default_of(&c.name)?,
                    };
                    items.push(format!("{expr} AS {}", quote(&c.name)));
                }
            }
            (Some(q), None) => {
                if let NodeEnum::SelectStmt(s) = q {
                    let has_default = s.values_lists.iter().any(|row| {
                        matches!(row.node.as_ref(), Some(NodeEnum::List(l))
                            if l.items.iter().any(|v| matches!(v.node.as_ref(), Some(NodeEnum::SetToDefault(_)))))
                    });
                    if has_default {
                        return Err(DbError::unsupported(
                            "DEFAULT in a multi-row VALUES list inserting into a relation with rules",
                        ));
                    }
                }
                let query = nestor_parser::deparse_query(&wrap(q.clone()))?;
                let aliases: Vec<String> = (0..cols.len()).map(|k| format!("c{}", k + 1)).collect();
                for c in &self.rel.columns {
                    let expr = match cols.iter().position(|n| *n == c.name) {
                        Some(p) => format!("CAST(\"*SRC*\".{} AS {})", aliases[p], c.ty),
                        None => self.default_of(&c.name)?,
                    };
                    items.push(format!("{expr} AS {}", quote(&c.name)));
                }
                self.new_src = Some(format!(
                    "SELECT {} FROM ({query}) AS \"*SRC*\"({})",
                    items.join(", "),
                    aliases.join(", ")
                ));
                self.src_always = true;
                return self.compute_generated_in_source();
            }
        }
        self.new_src = Some(format!("SELECT {}", items.join(", ")));
        self.compute_generated_in_source()
    }

    /// INSERT: NEW's generated columns computed from its other columns,
    /// over the query giving them.
    fn compute_generated_in_source(&mut self) -> Result<(), DbError> {
        let Some(src) = self.new_src.clone() else {
            return Ok(());
        };
        if !self.rel.columns.iter().any(|c| c.generated) {
            return Ok(());
        }
        let of_src = |n: &str| format!("\"*GEN*\".{}", quote(n));
        let mut items = Vec::with_capacity(self.rel.columns.len());
        for c in &self.rel.columns {
            let v = match self.generated_value(c, &of_src)? {
                Some(v) => v,
                None => of_src(&c.name),
            };
            items.push(format!("{v} AS {}", quote(&c.name)));
        }
        self.new_src = Some(format!(
            "SELECT {} FROM ({src}) AS \"*GEN*\"",
            items.join(", ")
        ));
        Ok(())
    }

    /// A rule's text (an action or its condition) in the statement's
    /// terms, and whether it names NEW or OLD.
    fn in_action(&self, sql: &str) -> Result<(String, bool), DbError> {
        let mut used = false;
        let text = map_column_refs(sql, &mut |r| {
            let rel = r.rel?;
            if rel != "new" && rel != "old" {
                return None;
            }
            used = true;
            Some(self.pseudo_ref(rel == "new", r.col))
        })?;
        Ok((text, used))
    }

    fn pseudo_ref(&self, new: bool, col: &str) -> String {
        let old_col = |c: &str| format!("{}.{}", quote(OLD_REL), star_or(c));
        match (self.kind, new) {
            (RuleEvent::Insert, true) => format!("{}.{}", quote(NEW_REL), star_or(col)),
            (RuleEvent::Update, true) if col == "*" => self
                .rel
                .columns
                .iter()
                .map(|c| self.new_value(&c.name))
                .collect::<Vec<_>>()
                .join(", "),
            (RuleEvent::Update, true) => self.new_value(col),
            // A reference CREATE RULE refused (NEW in DELETE, OLD in
            // INSERT) cannot reach here; a missing column errs there.
            _ => old_col(col),
        }
    }

    /// UPDATE: NEW.col.
    fn new_value(&self, col: &str) -> String {
        if let Some(c) = self.col(col).filter(|c| c.generated) {
            let plain = |n: &str| self.new_value(n);
            if let Ok(Some(v)) = self.generated_value(c, &plain) {
                return v;
            }
        }
        match (self.set.iter().rev().find(|s| s.0 == col), self.col(col)) {
            (Some((_, e, _)), Some(c)) => format!("CAST(({e}) AS {})", c.ty),
            _ => format!("{}.{}", quote(OLD_REL), quote(col)),
        }
    }

    /// The FROM items an action gets and its extra condition.
    fn sources(&self, uses: bool) -> Result<(Vec<pb::Node>, Vec<String>), DbError> {
        let mut items = Vec::new();
        let mut conds = Vec::new();
        match self.kind {
            RuleEvent::Insert => {
                if uses || self.src_always {
                    let src = self.new_src.as_deref().unwrap_or("SELECT");
                    items.extend(from_items(&format!("({src}) AS {}", quote(NEW_REL)))?);
                }
            }
            RuleEvent::Update | RuleEvent::Delete => {
                if uses || self.where_old.is_some() {
                    items.extend(from_items(&format!(
                        "{} AS {}",
                        qualified_name(&self.rel.qualified),
                        quote(OLD_REL)
                    ))?);
                }
                items.extend(self.from.iter().cloned());
                conds.extend(self.where_old.clone());
            }
        }
        Ok((items, conds))
    }

    /// One action of a rule, as the statement to run.
    fn action(&self, text: &str, qual: Option<&str>) -> Result<(NodeEnum, bool), DbError> {
        let (sql, mut uses) = self.in_action(text)?;
        let qual = match qual {
            Some(q) => {
                let (q, u) = self.in_action(q)?;
                uses |= u;
                Some(q)
            }
            None => None,
        };
        let stmt = parse_one(&sql)?;
        let insert_select = match &stmt {
            NodeEnum::InsertStmt(i) => matches!(
                i.select_stmt.as_deref().and_then(|s| s.node.as_ref()),
                Some(NodeEnum::SelectStmt(s)) if s.values_lists.is_empty()
            ),
            _ => false,
        };
        let (items, mut conds) = self.sources(uses)?;
        conds.extend(qual.map(|q| format!("({q})")));
        Ok((attach(stmt, items, conds)?, insert_select))
    }

    /// The statement, kept by a conditional INSTEAD rule, with the rule's
    /// condition inverted.
    fn add_inverted_qual(&self, stmt: NodeEnum, qual: &str) -> Result<NodeEnum, DbError> {
        match stmt {
            NodeEnum::InsertStmt(mut i) => {
                // INSERT ... SELECT the source's columns WHERE NOT qual.
                let (q, _) = self.in_action(qual)?;
                let cols: Vec<String> = if i.cols.is_empty() {
                    self.rel.columns.iter().map(|c| c.name.clone()).collect()
                } else {
                    i.cols
                        .iter()
                        .filter_map(|c| match c.node.as_ref() {
                            Some(NodeEnum::ResTarget(rt)) => Some(rt.name.clone()),
                            _ => None,
                        })
                        .collect()
                };
                let already = i
                    .select_stmt
                    .as_deref()
                    .and_then(|s| s.node.as_ref())
                    .is_some_and(|s| matches!(s, NodeEnum::SelectStmt(s) if s.from_clause.iter().any(is_new_source)));
                if already {
                    // A second conditional rule: add its condition.
                    if let Some(NodeEnum::SelectStmt(s)) =
                        i.select_stmt.as_deref_mut().and_then(|s| s.node.as_mut())
                    {
                        s.where_clause = Some(Box::new(and(
                            s.where_clause.take().map(|b| *b),
                            &format!("({q}) IS NOT TRUE"),
                        )?));
                    }
                    return Ok(NodeEnum::InsertStmt(i));
                }
                let src = self.new_src.as_deref().unwrap_or("SELECT");
                let select = format!(
                    "SELECT {} FROM ({src}) AS {} WHERE ({q}) IS NOT TRUE",
                    cols.iter()
                        .map(|c| format!("{}.{}", quote(NEW_REL), quote(c)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    quote(NEW_REL)
                );
                i.select_stmt = Some(Box::new(wrap(parse_one(&select)?)));
                Ok(NodeEnum::InsertStmt(i))
            }
            NodeEnum::UpdateStmt(mut u) => {
                self.and_not_true(&mut u.where_clause, qual)?;
                Ok(NodeEnum::UpdateStmt(u))
            }
            NodeEnum::DeleteStmt(mut d) => {
                self.and_not_true(&mut d.where_clause, qual)?;
                Ok(NodeEnum::DeleteStmt(d))
            }
            other => Ok(other),
        }
    }

    /// `WHERE ... AND (cond) IS NOT TRUE`, the rule condition in the
    /// terms of the UPDATE or DELETE itself.
    fn and_not_true(
        &self,
        where_clause: &mut Option<Box<pb::Node>>,
        qual: &str,
    ) -> Result<(), DbError> {
        let q = self.in_statement(qual)?;
        *where_clause = Some(Box::new(and(
            where_clause.take().map(|b| *b),
            &format!("({q}) IS NOT TRUE"),
        )?));
        Ok(())
    }

    /// A rule condition in the terms of the UPDATE or DELETE itself.
    fn in_statement(&self, qual: &str) -> Result<String, DbError> {
        let target = quote(&self.refname);
        map_column_refs(qual, &mut |r| match r.rel {
            Some("old") => Some(format!("{target}.{}", star_or(r.col))),
            Some("new") => Some(self.new_in_statement(r.col, &target)),
            _ => None,
        })
    }

    /// NEW.col in the terms of the UPDATE itself (`target`: its name for
    /// the relation): the SET value, a generated column computed.
    fn new_in_statement(&self, col: &str, target: &str) -> String {
        if let Some(c) = self.col(col).filter(|c| c.generated) {
            let plain = |n: &str| self.new_in_statement(n, target);
            if let Ok(Some(v)) = self.generated_value(c, &plain) {
                return v;
            }
        }
        match (self.set.iter().rev().find(|s| s.0 == col), self.col(col)) {
            (Some((_, _, e)), Some(c)) => format!("CAST(({e}) AS {})", c.ty),
            _ => format!("{target}.{}", star_or(col)),
        }
    }

    /// The statement's RETURNING list in terms of a rule's RETURNING
    /// entries (one per column of the relation, in order).
    fn returning(&self, orig: &[pb::Node], rule: &[pb::Node]) -> Result<Vec<pb::Node>, DbError> {
        let mut entries = Vec::with_capacity(rule.len());
        for r in rule {
            let Some(NodeEnum::ResTarget(rt)) = r.node.as_ref() else {
                return Err(DbError::internal("RETURNING entry is not a target"));
            };
            let val = rt
                .val
                .as_deref()
                .ok_or_else(|| DbError::internal("RETURNING entry without a value"))?;
            entries.push(deparse_expr(val)?);
        }
        let entry = |col: &str| -> Option<String> {
            let i = self.rel.columns.iter().position(|c| c.name == col)?;
            entries.get(i).map(|e| format!("({e})"))
        };
        let mut out = Vec::new();
        for o in orig {
            let Some(NodeEnum::ResTarget(rt)) = o.node.as_ref() else {
                continue;
            };
            let Some(val) = rt.val.as_deref() else {
                continue;
            };
            if let Some(NodeEnum::ColumnRef(c)) = val.node.as_ref() {
                let star = matches!(
                    c.fields.last().and_then(|f| f.node.as_ref()),
                    Some(NodeEnum::AStar(_))
                );
                let rel = match c.fields.len() {
                    2 => nestor_parser::ast::str_val(&c.fields[0]),
                    _ => None,
                };
                if star && (c.fields.len() == 1 || rel == Some(self.refname.as_str())) {
                    for col in &self.rel.columns {
                        let e = entry(&col.name)
                            .ok_or_else(|| invalid("RETURNING list has too few entries"))?;
                        out.push(target_node(parse_expr(&e)?, &col.name));
                    }
                    continue;
                }
            }
            let name = if rt.name.is_empty() {
                crate::select::derive_name(val)
            } else {
                rt.name.clone()
            };
            let text = map_column_refs(&deparse_expr(val)?, &mut |r| match r.rel {
                None => entry(r.col),
                Some(rel) if rel == self.refname && r.col != "*" => entry(r.col),
                _ => None,
            })?;
            out.push(target_node(parse_expr(&text)?, &name));
        }
        Ok(out)
    }
}

fn star_or(col: &str) -> String {
    if col == "*" {
        "*".to_string()
    } else {
        quote(col)
    }
}

fn qualified_name(q: &str) -> String {
    match q.split_once('.') {
        Some((s, n)) => format!("{}.{}", quote(s), quote(n)),
        None => quote(q),
    }
}

fn no_column(col: &str, rel: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedColumn,
        format!("column \"{col}\" of relation \"{rel}\" does not exist"),
    )
}

fn target_node(val: pb::Node, name: &str) -> pb::Node {
    wrap(NodeEnum::ResTarget(Box::new(pb::ResTarget {
        name: name.to_string(),
        indirection: Vec::new(),
        val: Some(Box::new(val)),
        location: -1,
    })))
}

/// Parse one statement.
pub fn parse_one(sql: &str) -> Result<NodeEnum, DbError> {
    parse_sql(sql)?
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|n| n.node)
        .ok_or_else(|| DbError::internal("empty rule action"))
}

/// The FROM items of `SELECT FROM items`.
fn from_items(items: &str) -> Result<Vec<pb::Node>, DbError> {
    match parse_one(&format!("SELECT FROM {items}"))? {
        NodeEnum::SelectStmt(s) => Ok(s.from_clause),
        _ => Err(DbError::internal("FROM items did not parse as a SELECT")),
    }
}

/// `a AND (b)`.
fn and(a: Option<pb::Node>, b: &str) -> Result<pb::Node, DbError> {
    match a {
        None => parse_expr(b),
        Some(a) => parse_expr(&format!("({}) AND {b}", deparse_expr(&a)?)),
    }
}

/// An action with the statement's FROM items and conditions added.
fn attach(stmt: NodeEnum, items: Vec<pb::Node>, conds: Vec<String>) -> Result<NodeEnum, DbError> {
    if items.is_empty() && conds.is_empty() {
        return Ok(stmt);
    }
    let cond = if conds.is_empty() {
        None
    } else {
        Some(conds.join(" AND "))
    };
    let add_where = |w: &mut Option<Box<pb::Node>>| -> Result<(), DbError> {
        if let Some(c) = &cond {
            *w = Some(Box::new(and(w.take().map(|b| *b), &format!("({c})"))?));
        }
        Ok(())
    };
    Ok(match stmt {
        NodeEnum::SelectStmt(mut s) => {
            attach_select(&mut s, &items, &add_where)?;
            NodeEnum::SelectStmt(s)
        }
        NodeEnum::InsertStmt(mut i) => {
            let select = i.select_stmt.as_deref_mut().and_then(|s| s.node.as_mut());
            match select {
                Some(NodeEnum::SelectStmt(s)) if !s.values_lists.is_empty() => {
                    let rows = std::mem::take(&mut s.values_lists);
                    let mut arms = Vec::with_capacity(rows.len());
                    for row in rows {
                        let Some(NodeEnum::List(l)) = row.node else {
                            continue;
                        };
                        let mut targets = Vec::with_capacity(l.items.len());
                        for v in l.items {
                            if matches!(v.node.as_ref(), Some(NodeEnum::SetToDefault(_))) {
                                return Err(DbError::unsupported(
                                    "DEFAULT in the VALUES of a rule action",
                                ));
                            }
                            targets.push(wrap(NodeEnum::ResTarget(Box::new(pb::ResTarget {
                                val: Some(Box::new(v)),
                                location: -1,
                                ..Default::default()
                            }))));
                        }
                        let mut arm = Box::new(pb::SelectStmt {
                            target_list: targets,
                            limit_option: pb::LimitOption::Default as i32,
                            op: pb::SetOperation::SetopNone as i32,
                            ..Default::default()
                        });
                        attach_select(&mut arm, &items, &add_where)?;
                        arms.push(arm);
                    }
                    let mut it = arms.into_iter();
                    let first = it
                        .next()
                        .ok_or_else(|| DbError::internal("VALUES without rows"))?;
                    let union = it.fold(first, |l, r| {
                        Box::new(pb::SelectStmt {
                            op: pb::SetOperation::SetopUnion as i32,
                            all: true,
                            larg: Some(l),
                            rarg: Some(r),
                            limit_option: pb::LimitOption::Default as i32,
                            ..Default::default()
                        })
                    });
                    *s = union;
                }
                Some(NodeEnum::SelectStmt(s)) => attach_select(s, &items, &add_where)?,
                _ => {
                    // DEFAULT VALUES once per row of the sources: a
                    // SELECT of no columns (every column its default).
                    let mut sel = Box::new(pb::SelectStmt {
                        limit_option: pb::LimitOption::Default as i32,
                        op: pb::SetOperation::SetopNone as i32,
                        ..Default::default()
                    });
                    attach_select(&mut sel, &items, &add_where)?;
                    i.select_stmt = Some(Box::new(wrap(NodeEnum::SelectStmt(sel))));
                }
            }
            NodeEnum::InsertStmt(i)
        }
        NodeEnum::UpdateStmt(mut u) => {
            let mut from = items;
            from.append(&mut u.from_clause);
            u.from_clause = from;
            add_where(&mut u.where_clause)?;
            NodeEnum::UpdateStmt(u)
        }
        NodeEnum::DeleteStmt(mut d) => {
            let mut from = items;
            from.append(&mut d.using_clause);
            d.using_clause = from;
            add_where(&mut d.where_clause)?;
            NodeEnum::DeleteStmt(d)
        }
        other => other,
    })
}

/// Adds the statement's conditions to a WHERE clause.
type AddWhere<'a> = dyn Fn(&mut Option<Box<pb::Node>>) -> Result<(), DbError> + 'a;

fn attach_select(
    s: &mut pb::SelectStmt,
    items: &[pb::Node],
    add_where: &AddWhere<'_>,
) -> Result<(), DbError> {
    if s.op != pb::SetOperation::SetopNone as i32 {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "conditional UNION/INTERSECT/EXCEPT statements are not implemented",
        ));
    }
    let mut from = items.to_vec();
    from.append(&mut s.from_clause);
    s.from_clause = from;
    add_where(&mut s.where_clause)
}

/// An action's `RETURNING *` and `RETURNING t.*` as the list of the
/// columns they stand for (PostgreSQL stores the expanded list), so the
/// entries correspond to the rule relation's columns one by one.
pub fn expand_returning_stars(catalog: &Catalog, action: &str) -> Result<String, DbError> {
    let mut stmt = parse_one(action)?;
    let (target, from): (Option<pb::RangeVar>, Vec<pb::Node>) = match &stmt {
        NodeEnum::InsertStmt(i) => (i.relation.clone(), Vec::new()),
        NodeEnum::UpdateStmt(u) => (u.relation.clone(), u.from_clause.clone()),
        NodeEnum::DeleteStmt(d) => (d.relation.clone(), d.using_clause.clone()),
        _ => return Ok(action.to_string()),
    };
    let Some(target) = target else {
        return Ok(action.to_string());
    };
    let refname = |rv: &pb::RangeVar| {
        rv.alias
            .as_ref()
            .map_or_else(|| rv.relname.clone(), |a| a.aliasname.clone())
    };
    let mut rels = vec![target.clone()];
    for f in &from {
        if let Some(NodeEnum::RangeVar(rv)) = f.node.as_ref() {
            rels.push(rv.clone());
        }
    }
    let Some(list) = returning_mut(&mut stmt) else {
        return Ok(action.to_string());
    };
    if list.is_empty() {
        return Ok(action.to_string());
    }
    let mut out = Vec::with_capacity(list.len());
    let mut changed = false;
    for t in list.drain(..) {
        let star_of = match t.node.as_ref() {
            Some(NodeEnum::ResTarget(rt)) => {
                match rt.val.as_deref().and_then(|v| v.node.as_ref()) {
                    Some(NodeEnum::ColumnRef(c))
                        if matches!(
                            c.fields.last().and_then(|f| f.node.as_ref()),
                            Some(NodeEnum::AStar(_))
                        ) =>
                    {
                        match c.fields.len() {
                            1 if from.is_empty() => Some(target.clone()),
                            2 => {
                                let q =
                                    nestor_parser::ast::str_val(&c.fields[0]).unwrap_or_default();
                                rels.iter().find(|r| refname(r) == q).cloned()
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(rv) = star_of else {
            out.push(t);
            continue;
        };
        let Some(rel) = rule_rel(catalog, &rv)? else {
            out.push(t);
            continue;
        };
        changed = true;
        let q = refname(&rv);
        for c in &rel.columns {
            let e = parse_expr(&format!("{}.{}", quote(&q), quote(&c.name)))?;
            out.push(target_node(e, &c.name));
        }
    }
    *list = out;
    if !changed {
        return Ok(action.to_string());
    }
    nestor_parser::deparse_query(&wrap(stmt))
}

/// CREATE RULE's check that an action's WITH items do not name NEW or
/// OLD (outer references PostgreSQL does not allow there).
pub fn check_with_refs(action: &str) -> Result<(), DbError> {
    let mut stmt = parse_one(action)?;
    let Some(Some(w)) = with_clause_mut(&mut stmt).map(|w| w.take()) else {
        return Ok(());
    };
    for c in &w.ctes {
        let Some(NodeEnum::CommonTableExpr(c)) = c.node.as_ref() else {
            continue;
        };
        let Some(q) = c.ctequery.as_deref() else {
            continue;
        };
        let text = nestor_parser::deparse_query(q)?;
        for (rec, name) in [("old", "OLD"), ("new", "NEW")] {
            let mut found = false;
            map_column_refs(&text, &mut |r| {
                found |= r.rel == Some(rec);
                None
            })?;
            if found {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot refer to {name} within WITH query"),
                ));
            }
        }
    }
    Ok(())
}

/// CREATE RULE's checks of one action (or the condition, `action` None)
/// against the relation: NEW in an ON DELETE rule and OLD in an ON INSERT
/// one are errors (42P17).
pub fn check_pseudo_refs(event: RuleEvent, sql: &str) -> Result<(), DbError> {
    let mut bad = None;
    map_column_refs(sql, &mut |r| {
        match (event, r.rel) {
            (RuleEvent::Insert, Some("old")) => bad = Some("ON INSERT rule cannot use OLD"),
            (RuleEvent::Delete, Some("new")) => bad = Some("ON DELETE rule cannot use NEW"),
            _ => {}
        }
        None
    })?;
    match bad {
        Some(m) => Err(invalid(m)),
        None => Ok(()),
    }
}

/// A statement that plans an action the way [`rewrite`] would run it,
/// with NEW and OLD both read from the relation: CREATE RULE plans it to
/// check the action (its names, types, RETURNING list) once, up front.
pub fn check_statement(
    rel: &RuleRel,
    event: RuleEvent,
    qual: Option<&str>,
    action: &str,
) -> Result<NodeEnum, DbError> {
    let mut uses = false;
    let mut swap = |sql: &str| {
        map_column_refs(sql, &mut |r| match r.rel {
            Some("new") => {
                uses = true;
                Some(format!("{}.{}", quote(NEW_REL), star_or(r.col)))
            }
            Some("old") => {
                uses = true;
                Some(format!("{}.{}", quote(OLD_REL), star_or(r.col)))
            }
            _ => None,
        })
    };
    let stmt = parse_one(&swap(action)?)?;
    let conds = match qual {
        Some(q) => vec![format!("({})", swap(q)?)],
        None => Vec::new(),
    };
    if !uses {
        return attach(stmt, Vec::new(), conds);
    }
    let name = qualified_name(&rel.qualified);
    let mut items = Vec::new();
    if event != RuleEvent::Delete {
        items.extend(from_items(&format!("{name} AS {}", quote(NEW_REL)))?);
    }
    if event != RuleEvent::Insert {
        items.extend(from_items(&format!("{name} AS {}", quote(OLD_REL)))?);
    }
    attach(stmt, items, conds)
}

/// A rule condition with its unqualified references to the relation's
/// columns made NEW's (ON INSERT) or OLD's (ON DELETE) as PostgreSQL
/// resolves them; in an ON UPDATE rule such a reference is ambiguous.
pub fn qualify_condition(rel: &RuleRel, event: RuleEvent, sql: &str) -> Result<String, DbError> {
    let mut ambiguous = None;
    let out = map_column_refs(sql, &mut |r| {
        if r.rel.is_some() || !rel.columns.iter().any(|c| c.name == r.col) {
            return None;
        }
        match event {
            RuleEvent::Insert => Some(format!("new.{}", quote(r.col))),
            RuleEvent::Delete => Some(format!("old.{}", quote(r.col))),
            RuleEvent::Update => {
                ambiguous.get_or_insert_with(|| r.col.to_string());
                None
            }
        }
    })?;
    if let Some(c) = ambiguous {
        return Err(DbError::new(
            SqlState::AmbiguousColumn,
            format!("column reference \"{c}\" is ambiguous"),
        ));
    }
    Ok(out)
}
