//! CREATE [OR REPLACE] RULE, DROP RULE, ALTER RULE ... RENAME.
//!
//! A rule is stored in its table's or view's definition
//! (`TableDef::rules`, `ViewDef::rules`, in name order: the order they
//! fire in), so creating one is a PutTable or PutView change, logged and
//! recovered like any other; it goes when its relation goes. Its
//! condition and actions are kept as SQL text (the deparser's form, with
//! `RETURNING *` expanded to the columns it stands for); the planner's
//! rewrite step (`nestor_plan::rewrite`) applies them.
//!
//! The checks are PostgreSQL's: no OLD in an ON INSERT rule, no NEW in an
//! ON DELETE one, RETURNING only in one action of an unconditional
//! INSTEAD rule and matching the relation's columns. Each action is
//! planned once here (NEW and OLD read from the relation itself), so a
//! misspelt column fails CREATE RULE as in PostgreSQL. ON SELECT rules
//! (other than a view's own `_RETURN`) are 0A000.

use nestor_catalog::{Relation, RuleDef, RuleEvent};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_plan::rewrite::{self, RuleRel};

use crate::context::StatementCtx;
use crate::tag::CommandTag;

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidObjectDefinition, msg)
}

fn unsupported(msg: &str) -> DbError {
    DbError::new(SqlState::FeatureNotSupported, msg.to_string())
}

/// CREATE [OR REPLACE] RULE; `text` is the statement's text (its errors
/// point at the reference they are about, as PostgreSQL's do).
pub fn create_rule(
    ctx: &mut StatementCtx,
    text: &str,
    rs: &pb::RuleStmt,
) -> Result<CommandTag, DbError> {
    define_rule(ctx, rs).map_err(|e| locate(e, text, rs))
}

/// An error about a column, with NEW and OLD called so and positioned at
/// the first reference it names.
fn locate(mut e: DbError, text: &str, rs: &pb::RuleStmt) -> DbError {
    e.message = e
        .message
        .replace(rewrite::NEW_REL, "new")
        .replace(rewrite::OLD_REL, "old");
    let wanted = match e.code {
        SqlState::UndefinedColumn => e
            .message
            .strip_prefix("column ")
            .and_then(|m| m.strip_suffix(" does not exist"))
            .map(str::to_string),
        SqlState::AmbiguousColumn => e
            .message
            .strip_prefix("column reference \"")
            .and_then(|m| m.strip_suffix("\" is ambiguous"))
            .map(str::to_string),
        _ => None,
    };
    let Some(wanted) = wanted else {
        return e;
    };
    // The rule's own parts (the walk does not enter a RuleStmt).
    let parts = rs.where_clause.as_deref().into_iter().chain(&rs.actions);
    let loc = parts
        .filter_map(|p| p.node.as_ref())
        .flat_map(|n| n.nodes())
        .find_map(|(r, ..)| match r {
            nestor_parser::NodeRef::ColumnRef(c) => {
                let name = bind::names(&c.fields).join(".");
                (name == wanted).then_some(c.location)
            }
            _ => None,
        })
        // (nor a VALUES list): the reference as written.
        .or_else(|| {
            text.to_lowercase()
                .find(&wanted)
                .and_then(|b| i32::try_from(b).ok())
        });
    match loc {
        Some(l) => nestor_parser::ast::err_at(e, text, l),
        None => e,
    }
}

fn define_rule(ctx: &mut StatementCtx, rs: &pb::RuleStmt) -> Result<CommandTag, DbError> {
    let rv = rs
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE RULE without a relation"))?;
    let event = match pb::CmdType::try_from(rs.event) {
        Ok(pb::CmdType::CmdInsert) => RuleEvent::Insert,
        Ok(pb::CmdType::CmdUpdate) => RuleEvent::Update,
        Ok(pb::CmdType::CmdDelete) => RuleEvent::Delete,
        _ => return Err(DbError::unsupported("CREATE RULE ... ON SELECT")),
    };
    let name = bind::relname(rv)?;
    let rel = match rewrite::rule_rel(ctx.catalog, rv)? {
        Some(r) => r,
        None if ctx.catalog.relation(&name).is_some() => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("relation \"{}\" cannot have rules", rv.relname),
            ))
        }
        None => return Err(super::undefined_table(&name)),
    };
    if let Some(Relation::Table(t)) = ctx.catalog.relation(&name) {
        if t.matview.is_some() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("relation \"{}\" cannot have rules", rv.relname),
            ));
        }
    }
    let qual = match rs.where_clause.as_deref() {
        Some(w) => {
            let text = nestor_parser::deparse_expr(w)?;
            rewrite::check_pseudo_refs(event, &text)?;
            Some(rewrite::qualify_condition(&rel, event, &text)?)
        }
        None => None,
    };
    let mut actions = Vec::with_capacity(rs.actions.len());
    let mut returning = false;
    for a in &rs.actions {
        let text = nestor_parser::deparse_query(a)?;
        rewrite::check_pseudo_refs(event, &text)?;
        rewrite::check_with_refs(&text)?;
        let text = rewrite::expand_returning_stars(ctx.catalog, &text)?;
        let has_returning = check_action(ctx, &rel, event, qual.as_deref(), &text)?;
        if has_returning {
            if returning {
                return Err(unsupported(
                    "cannot have multiple RETURNING lists in a rule",
                ));
            }
            returning = true;
            if qual.is_some() {
                return Err(unsupported(
                    "RETURNING lists are not supported in conditional rules",
                ));
            }
            if !rs.instead {
                return Err(unsupported(
                    "RETURNING lists are not supported in non-INSTEAD rules",
                ));
            }
        }
        actions.push(text);
    }
    let existing = rel.rules.iter().find(|r| r.name == rs.rulename);
    if existing.is_some() && !rs.replace {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "rule \"{}\" for relation \"{}\" already exists",
                rs.rulename, rel.name
            ),
        ));
    }
    let rule = RuleDef {
        oid: existing.map_or_else(|| ctx.catalog.alloc_oid(), |r| r.oid),
        name: rs.rulename.clone(),
        event,
        instead: rs.instead,
        qual,
        actions,
    };
    put_rules(ctx, &name, |rules| {
        rules.retain(|r| r.name != rule.name);
        rules.push(rule);
        rules.sort_by(|a, b| a.name.cmp(&b.name));
    })?;
    Ok(CommandTag::Plain("CREATE RULE"))
}

/// Plan an action once as the rewriter would run it; whether it has a
/// RETURNING list (checked against the relation's columns).
fn check_action(
    ctx: &mut StatementCtx,
    rel: &RuleRel,
    event: RuleEvent,
    qual: Option<&str>,
    action: &str,
) -> Result<bool, DbError> {
    let stmt = rewrite::check_statement(rel, event, qual, action)?;
    let dml = matches!(
        stmt,
        NodeEnum::SelectStmt(_)
            | NodeEnum::InsertStmt(_)
            | NodeEnum::UpdateStmt(_)
            | NodeEnum::DeleteStmt(_)
    );
    if !dml {
        // NOTIFY: nothing to plan.
        return Ok(false);
    }
    let sql = nestor_parser::deparse_query(&nestor_parser::ast::wrap(stmt))?;
    let raw = nestor_parser::parse_sql(&sql)?
        .into_iter()
        .next()
        .ok_or_else(|| DbError::internal("rule action is empty"))?;
    let planned =
        nestor_plan::statement::plan_unrewritten(ctx.catalog, ctx.eval, &sql, &raw, &[], None)
            .map_err(|mut e| {
                e.position = None;
                e
            });
    let has_returning = match nestor_plan::statement::statement_node(&raw)? {
        NodeEnum::InsertStmt(i) => !i.returning_list.is_empty(),
        NodeEnum::UpdateStmt(u) => !u.returning_list.is_empty(),
        NodeEnum::DeleteStmt(d) => !d.returning_list.is_empty(),
        _ => false,
    };
    match planned {
        Ok(p) => {
            if let (true, Some(cols)) = (has_returning, p.columns) {
                check_returning(rel, &cols)?;
            }
        }
        // An action writing to a view that only rules or triggers make
        // writable: PostgreSQL checks it when the rule fires, not here.
        Err(e) if e.code == SqlState::ObjectNotInPrerequisiteState => {}
        Err(e) => return Err(e),
    }
    Ok(has_returning)
}

/// PostgreSQL's checkRuleResultList for a RETURNING list.
fn check_returning(rel: &RuleRel, cols: &[nestor_plan::OutCol]) -> Result<(), DbError> {
    if cols.len() > rel.columns.len() {
        return Err(invalid("RETURNING list has too many entries"));
    }
    for (i, (c, r)) in cols.iter().zip(&rel.columns).enumerate() {
        if c.ty.oid() != r.ty.oid() {
            return Err(invalid(format!(
                "RETURNING list's entry {} has different type from column \"{}\"",
                i + 1,
                r.name
            ))
            .with_detail(format!(
                "RETURNING list entry has type {}, but column has type {}.",
                c.ty, r.ty
            )));
        }
    }
    if cols.len() < rel.columns.len() {
        return Err(invalid("RETURNING list has too few entries"));
    }
    Ok(())
}

/// Change the rules of relation `name` (a table or view) with `f`.
fn put_rules(
    ctx: &mut StatementCtx,
    name: &str,
    f: impl FnOnce(&mut Vec<RuleDef>),
) -> Result<(), DbError> {
    match ctx.catalog.relation(name) {
        Some(Relation::Table(t)) => {
            let mut new = (*t).clone();
            f(&mut new.rules);
            super::put_table(ctx, new)
        }
        Some(Relation::View(v)) => {
            let mut new = (*v).clone();
            f(&mut new.rules);
            super::put_view(ctx, new)
        }
        _ => Err(super::undefined_table(name)),
    }
}

fn rules_of(ctx: &StatementCtx, name: &str) -> Option<Vec<RuleDef>> {
    match ctx.catalog.relation(name)? {
        Relation::Table(t) => Some(t.rules.clone()),
        Relation::View(v) => Some(v.rules.clone()),
        _ => None,
    }
}

fn undefined_rule(rule: &str, rel: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("rule \"{rule}\" for relation \"{rel}\" does not exist"),
    )
}

/// DROP RULE [IF EXISTS] name ON rel [CASCADE | RESTRICT].
pub fn drop_rule(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    for o in &ds.objects {
        let NodeEnum::List(l) = node(o)? else {
            continue;
        };
        let parts = bind::names(&l.items);
        let [qual @ .., rel, rule] = parts.as_slice() else {
            continue;
        };
        let name = match qual.last() {
            Some(s) if s != "pg_catalog" && s != "public" => format!("{s}.{rel}"),
            _ => rel.clone(),
        };
        let Some(rules) = rules_of(ctx, &name) else {
            if ds.missing_ok {
                super::notice(ctx, format!("relation \"{rel}\" does not exist, skipping"));
                continue;
            }
            return Err(super::undefined_table(&name));
        };
        if !rules.iter().any(|r| &r.name == rule) {
            if ds.missing_ok {
                super::notice(
                    ctx,
                    format!("rule \"{rule}\" for relation \"{rel}\" does not exist, skipping"),
                );
                continue;
            }
            return Err(undefined_rule(rule, rel));
        }
        put_rules(ctx, &name, |rules| rules.retain(|r| &r.name != rule))?;
    }
    Ok(CommandTag::Plain("DROP RULE"))
}

/// ALTER RULE name ON rel RENAME TO new.
pub fn rename_rule(ctx: &mut StatementCtx, rs: &pb::RenameStmt) -> Result<CommandTag, DbError> {
    let rv = rs
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER RULE without a relation"))?;
    let name = bind::relname(rv)?;
    let rules = rules_of(ctx, &name).ok_or_else(|| super::undefined_table(&name))?;
    if !rules.iter().any(|r| r.name == rs.subname) {
        return Err(undefined_rule(&rs.subname, &rv.relname));
    }
    if rs.subname == "_RETURN" || rs.newname == "_RETURN" {
        return Err(DbError::unsupported("renaming an ON SELECT rule"));
    }
    if rules.iter().any(|r| r.name == rs.newname) {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "rule \"{}\" for relation \"{}\" already exists",
                rs.newname, rv.relname
            ),
        ));
    }
    put_rules(ctx, &name, |rules| {
        for r in rules.iter_mut() {
            if r.name == rs.subname {
                r.name = rs.newname.clone();
            }
        }
        rules.sort_by(|a, b| a.name.cmp(&b.name));
    })?;
    Ok(CommandTag::Plain("ALTER RULE"))
}
