//! Planning of MERGE (PostgreSQL 15's).
//!
//! MERGE is planned on the general paths: the target table and the
//! source (any FROM item: a table, a subquery, VALUES, a join) become one
//! FROM tree joined on the ON condition, the target first, so the input
//! row is laid out as an UPDATE's (the target's columns and system
//! columns at 0, the source's after them). With a WHEN NOT MATCHED clause
//! the join is a RIGHT join (every source row comes out, a NULL row id
//! marking the unmatched ones), else an inner join. Each WHEN clause
//! becomes a [`MergeAction`] bound over that row: its condition, and the
//! UPDATE's SET values (bound as UPDATE's), the INSERT's values (bound as
//! INSERT ... VALUES', with the table's defaults for the columns not
//! named) or nothing (DELETE, DO NOTHING). NOT MATCHED clauses see the
//! source only: the target's columns are below the scope's floor, so a
//! reference to them is PostgreSQL's "invalid reference to FROM-clause
//! entry". The ON condition is kept for the EvalPlanQual re-check of a
//! target row changed concurrently (`nestor_exec::merge`).
//!
//! A partitioned target or an inheritance parent is read as SELECT reads
//! it (`select::inherit::add_family`: every member's rows in the named
//! table's layout, then `tableoid`), and [`Members`] says how a row is
//! written back in the member it came from; new rows are routed from a
//! partitioned table (its `Routing`), written into an inheritance parent.
//!
//! Left out (0A000, naming the case): subscripted or field INSERT target
//! columns.
//! Refused as PostgreSQL 15 refuses them: views (42809), RETURNING and
//! WHEN NOT MATCHED BY SOURCE/TARGET (syntax errors there: the grammar we
//! parse with is PostgreSQL 17's, which has them), a source named as the
//! target (42712), a clause after an unconditional one of its kind
//! (42601).

use std::sync::Arc;

use nestor_catalog::acl::{self, ObjKind};
use nestor_catalog::TableDef;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;

use crate::bind::{self, node, AggCtx, Binder, Scope};
use crate::ir::{Expr, JoinKind, Plan, SYS_COLS};
use crate::modify::{self, BoundCheck, Members, WriteTarget};
use crate::select::{self, partition::PartCheck};

/// What one WHEN clause does.
#[derive(Clone)]
pub enum MergeKind {
    /// (column, new value over the input row).
    Update(Vec<(usize, Expr)>),
    Delete,
    Insert {
        /// Table positions the values go to.
        targets: Vec<usize>,
        /// One value per target, over the input row.
        values: Vec<Expr>,
        /// DEFAULT expressions of the columns not named.
        defaults: Vec<(usize, Expr)>,
    },
    Nothing,
}

/// One WHEN clause.
#[derive(Clone)]
pub struct MergeAction {
    /// `AND condition`, over the input row.
    pub cond: Option<Expr>,
    pub kind: MergeKind,
}

pub struct MergePlan {
    pub table: Arc<TableDef>,
    /// The target joined with the source: the target's columns and
    /// system columns first (its row id NULL for a source row no target
    /// row matched), then the source's.
    pub input: Plan,
    /// The ON condition over the input row, for EvalPlanQual.
    pub recheck: Expr,
    /// WHEN MATCHED clauses, in order; the first whose condition holds acts.
    pub matched: Vec<MergeAction>,
    /// WHEN NOT MATCHED clauses, in order.
    pub not_matched: Vec<MergeAction>,
    pub checks: Vec<BoundCheck>,
    /// A partition: the constraint its new rows must meet.
    pub part_check: Option<PartCheck>,
    /// Row-level security, when the target's policies apply.
    pub rls: Option<Arc<MergeRls>>,
    /// A partitioned target or an inheritance parent: the target side is
    /// its tree read whole (`tableoid` after the system columns), each
    /// matched row written in the member it comes from, new rows routed
    /// to their leaves (a partitioned table) or written into the parent.
    pub members: Option<Arc<Members>>,
}

/// Row-level security of MERGE (PostgreSQL's WCO_RLS_MERGE_UPDATE_CHECK,
/// WCO_RLS_MERGE_DELETE_CHECK and the checks of the rows it writes); the
/// target is read through the SELECT policies when the statement reads it.
#[derive(Clone, Debug)]
pub struct MergeRls {
    /// The UPDATE policies' USING, on a target row an UPDATE action is
    /// about to change.
    pub update_target: Vec<BoundCheck>,
    /// The DELETE policies' USING, on a target row a DELETE action is
    /// about to delete.
    pub delete_target: Vec<BoundCheck>,
    /// What updated rows pass: the table's checks, the UPDATE policies'
    /// WITH CHECK (else USING), the SELECT policies' USING when it reads.
    pub update_checks: Vec<BoundCheck>,
    /// What inserted rows pass: the table's checks, the INSERT policies'
    /// WITH CHECK.
    pub insert_checks: Vec<BoundCheck>,
}

impl MergePlan {
    /// Whether any clause does `f` (a statement trigger fires for each
    /// kind of action the statement has, PostgreSQL's
    /// mt_merge_subcommands).
    pub fn has(&self, f: impl Fn(&MergeKind) -> bool) -> bool {
        self.matched
            .iter()
            .chain(&self.not_matched)
            .any(|a| f(&a.kind))
    }

    /// The columns any UPDATE clause sets (what UPDATE OF triggers see).
    pub fn set_columns(&self) -> Vec<usize> {
        let mut cols = Vec::new();
        for a in &self.matched {
            if let MergeKind::Update(sets) = &a.kind {
                for (c, _) in sets {
                    if !cols.contains(c) {
                        cols.push(*c);
                    }
                }
            }
        }
        cols
    }
}

fn syntax_error_at(b: &Binder, token: &str, loc: usize) -> DbError {
    bind::err_at(
        DbError::new(
            SqlState::SyntaxError,
            format!("syntax error at or near \"{token}\""),
        ),
        b.text,
        loc as i32,
    )
}

/// The byte offset of the first `word` (a keyword, matched whole and
/// case-insensitively) at or after `from` that `pred` accepts (given the
/// offset just past it), skipping quoted text; None if there is none.
fn find_keyword(
    text: &str,
    from: usize,
    word: &str,
    pred: impl Fn(usize) -> bool,
) -> Option<usize> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                i += 1;
            }
            c if ident(c) => {
                let start = i;
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                if text[start..i].eq_ignore_ascii_case(word) && pred(i) {
                    return Some(start);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The word after offset `end` in `text` (whitespace skipped) when it
/// is `word` (case-insensitively): its offset.
fn next_word_is(text: &str, end: usize, word: &str) -> Option<usize> {
    let rest = text.get(end..)?;
    let at = end + (rest.len() - rest.trim_start().len());
    let next = text.get(at..at + word.len())?;
    let after = text.as_bytes().get(at + word.len());
    let whole = !after.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    (next.eq_ignore_ascii_case(word) && whole).then_some(at)
}

/// PostgreSQL 17 syntax PostgreSQL 15 does not have: `WHEN NOT MATCHED
/// BY SOURCE | TARGET` (a syntax error at BY) and RETURNING.
fn reject_newer_syntax(b: &Binder, m: &pb::MergeStmt, start: usize) -> Result<(), DbError> {
    let text = b.text;
    let by_source = m.merge_when_clauses.iter().any(|c| {
        matches!(c.node.as_ref(), Some(NodeEnum::MergeWhenClause(w))
            if w.match_kind == pb::MergeMatchKind::MergeWhenNotMatchedBySource as i32)
    });
    // `MATCHED BY`, then SOURCE (the tree says it is there) or TARGET
    // (which leaves no trace in the tree).
    let by = |second: &'static str| {
        let found = find_keyword(text, start, "matched", |end| {
            next_word_is(text, end, "by")
                .is_some_and(|at| next_word_is(text, at + 2, second).is_some())
        })?;
        next_word_is(text, found + "matched".len(), "by")
    };
    let at = (if by_source { by("source") } else { None }).or_else(|| by("target"));
    if let Some(at) = at {
        return Err(syntax_error_at(b, &text[at..at + 2], at));
    }
    if by_source {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "syntax error at or near \"BY\"",
        ));
    }
    if !m.returning_list.is_empty() {
        let at = find_keyword(text, start, "returning", |_| true).unwrap_or(start);
        let word = text.get(at..at + "returning".len()).unwrap_or("RETURNING");
        return Err(syntax_error_at(b, word, at));
    }
    Ok(())
}

/// The name a FROM item is known by (its alias, a table's name).
fn item_name(n: &Node) -> Option<String> {
    match n.node.as_ref()? {
        NodeEnum::RangeVar(rv) => Some(
            rv.alias
                .as_ref()
                .map_or_else(|| rv.relname.clone(), |a| a.aliasname.clone()),
        ),
        NodeEnum::RangeSubselect(rs) => rs.alias.as_ref().map(|a| a.aliasname.clone()),
        NodeEnum::RangeFunction(rf) => rf.alias.as_ref().map(|a| a.aliasname.clone()),
        _ => None,
    }
}

pub(crate) fn plan_merge(b: &mut Binder, m: &pb::MergeStmt) -> Result<MergePlan, DbError> {
    let rv = m
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("MERGE without a target"))?;
    reject_newer_syntax(b, m, rv.location.max(0) as usize)?;
    let table = match modify::table_for_write(b, rv)? {
        WriteTarget::Table(t) => t,
        WriteTarget::View(v) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("cannot execute MERGE on relation \"{}\"", v.name),
            )
            .with_detail("This operation is not supported for views."))
        }
    };
    if !table.rules.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("cannot execute MERGE on relation \"{}\"", table.name),
        )
        .with_detail("MERGE is not supported for relations with rules."));
    }
    let family = tree_of(b, &table, rv.inh);
    let alias = bind::alias_or(rv, &table.name);
    let source = bind::req(&m.source_relation)?;
    if item_name(source).as_deref() == Some(alias.as_str()) {
        return Err(DbError::new(
            SqlState::DuplicateAlias,
            format!("name \"{alias}\" specified more than once"),
        )
        .with_detail("The name is used both as MERGE target table and data source."));
    }
    check_reachable(&m.merge_when_clauses)?;
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = plan_merge_body(b, m, &table, family.as_deref(), &alias, source);
    b.scopes.pop();
    b.outer_refs.pop();
    let mut plan = r?;
    plan.part_check = PartCheck::of(b.catalog, b.eval, &table, None)?;
    Ok(plan)
}

/// The members of the target's tree when it is read whole: an
/// inheritance parent's (without ONLY) when it has children, a
/// partitioned table's always (without partitions its new rows still
/// find none: PostgreSQL's "no partition" error).
fn tree_of(b: &Binder, table: &Arc<TableDef>, inh: bool) -> Option<Vec<Arc<TableDef>>> {
    match table.partition_key {
        Some(_) => Some(b.catalog.descendants(table)),
        None => select::inherit::family(b, table, inh),
    }
}

/// A WHEN clause after an unconditional one of the same kind can never
/// act: PostgreSQL's 42601.
fn check_reachable(clauses: &[Node]) -> Result<(), DbError> {
    let mut done = [false, false];
    for c in clauses {
        let NodeEnum::MergeWhenClause(w) = node(c)? else {
            continue;
        };
        let k = usize::from(w.match_kind != pb::MergeMatchKind::MergeWhenMatched as i32);
        if done[k] {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "unreachable WHEN clause specified after unconditional WHEN clause",
            ));
        }
        done[k] = w.condition.is_none();
    }
    Ok(())
}

fn plan_merge_body(
    b: &mut Binder,
    m: &pb::MergeStmt,
    table: &Arc<TableDef>,
    family: Option<&[Arc<TableDef>]>,
    alias: &str,
    source: &Node,
) -> Result<MergePlan, DbError> {
    let mut scope = Scope::default();
    let mut off = 0;
    let target = match family {
        Some(members) => {
            select::inherit::add_family(table, members, alias, &[], &mut off, &mut scope)
        }
        None => select::add_table(table.clone(), alias, &[], &mut off, &mut scope),
    };
    // The target's columns are marked where read, its written ones by
    // each action (crate::perm).
    let perm = b.need_by_columns(ObjKind::Table, table.oid.0, &table.name, 0);
    Binder::tag_cols(&mut scope, 0, perm);
    let target_width = off;
    let item = select::plan_from_item(b, source, &mut off, &mut scope)?;
    let top = b.level();
    b.scopes[top] = scope;
    b.agg = AggCtx::NotAllowed("JOIN conditions");
    let on = b.without_windows("window functions are not allowed in JOIN conditions", |b| {
        b.bind_bool(bind::req(&m.join_condition)?, "JOIN/ON")
    })?;
    let mut matched = Vec::new();
    let mut not_matched = Vec::new();
    let mut privs = 0;
    let width = table.columns.len();
    let mut reads = on.columns().iter().any(|&c| c < width);
    for c in &m.merge_when_clauses {
        let NodeEnum::MergeWhenClause(w) = node(c)? else {
            return Err(DbError::internal("MERGE WHEN clause expected"));
        };
        let is_matched = w.match_kind == pb::MergeMatchKind::MergeWhenMatched as i32;
        // NOT MATCHED clauses see the source's columns only.
        b.scopes[top].floor = if is_matched { 0 } else { target_width };
        let action = plan_action(b, table, w)?;
        reads |= action
            .cond
            .as_ref()
            .is_some_and(|e| e.columns().iter().any(|&c| c < width));
        let attnums = |cols: &mut dyn Iterator<Item = usize>| -> Vec<i16> {
            cols.map(|c| c as i16 + 1).collect()
        };
        privs |= match &action.kind {
            MergeKind::Update(sets) => {
                reads |= sets.iter().any(|(_, e)| modify::reads_row(e, width));
                b.mark_written(perm, &attnums(&mut sets.iter().map(|(c, _)| *c)), false);
                acl::UPDATE
            }
            MergeKind::Delete => acl::DELETE,
            MergeKind::Insert { targets, .. } => {
                b.mark_written(perm, &attnums(&mut targets.iter().copied()), true);
                acl::INSERT
            }
            MergeKind::Nothing => 0,
        };
        if is_matched {
            matched.push(action);
        } else {
            not_matched.push(action);
        }
    }
    b.scopes[top].floor = 0;
    if reads {
        privs |= acl::SELECT;
    }
    b.need_by_columns(ObjKind::Table, table.oid.0, &table.name, privs);
    let checks = modify::bind_checks(b.catalog, b.eval, table)?;
    let mut target = target;
    let mut recheck = on.clone();
    let role = select::rls::applies(b, table)?;
    let members = match family {
        Some(family) => {
            let members = Members::build(b, table, family, privs, &mut |b, t| {
                member_update_checks(b, table, t, role, reads)
            })?;
            Some(Arc::new(members))
        }
        None => None,
    };
    let rls = match role {
        Some(role) => {
            let (rls, quals) = merge_rls(b, table, role, reads, &checks)?;
            if !quals.is_empty() {
                recheck = Expr::And(quals.iter().cloned().chain([on.clone()]).collect());
                target.set_security(quals);
            }
            Some(Arc::new(rls))
        }
        None => None,
    };
    let (lo, _) = target.range();
    let (_, hi) = item.range();
    let kind = if not_matched.is_empty() {
        JoinKind::Inner
    } else {
        JoinKind::Right
    };
    let tree = select::From::Join {
        kind,
        left: Box::new(target),
        right: Box::new(item),
        on: select::conjuncts(on.clone()),
        merged: Vec::new(),
        offset: lo,
        width: hi - lo,
    };
    let (plan, rest) = select::build(b, tree, Vec::new(), None)?;
    let input = select::with_filter(plan, rest);
    let tableoid = usize::from(members.is_some());
    debug_assert_eq!(target_width, width + SYS_COLS + tableoid);
    Ok(MergePlan {
        members,
        checks,
        table: table.clone(),
        input,
        recheck,
        matched,
        not_matched,
        part_check: None,
        rls,
    })
}

/// What a row an UPDATE action changes in `member` of `table`'s tree
/// passes, over the member's row: its checks, and with row-level
/// security (`role`) the named table's UPDATE policies' WITH CHECK (and
/// SELECT policies' USING when the statement reads the target), as
/// `merge_rls` binds them over the named table's row.
fn member_update_checks(
    b: &mut Binder,
    table: &Arc<TableDef>,
    member: &Arc<TableDef>,
    role: Option<nestor_common::RelId>,
    reads: bool,
) -> Result<Vec<BoundCheck>, DbError> {
    use nestor_catalog::defs::PolicyCmd;
    let mut checks = modify::bind_checks(b.catalog, b.eval, member)?;
    if let Some(role) = role {
        let new_rows = &select::rls::NewRows {
            role,
            kind: crate::ir::CheckKind::NewRow,
        };
        checks.extend(new_rows.checks(b, table, member, PolicyCmd::Update, false)?);
        if reads {
            checks.extend(new_rows.checks(b, table, member, PolicyCmd::Select, true)?);
        }
    }
    Ok(checks)
}

/// MERGE's row-level security for `role` (PostgreSQL's rowsecurity.c for
/// CMD_MERGE), and the security quals of the target (its SELECT
/// policies', when the statement reads the target).
fn merge_rls(
    b: &mut Binder,
    table: &Arc<TableDef>,
    role: nestor_common::RelId,
    reads: bool,
    checks: &[BoundCheck],
) -> Result<(MergeRls, Vec<Expr>), DbError> {
    use crate::ir::CheckKind;
    use nestor_catalog::defs::PolicyCmd;
    let quals = if reads {
        select::rls::security_quals(b, table, table, PolicyCmd::Select, role)?
    } else {
        Vec::new()
    };
    let target = &select::rls::NewRows {
        role,
        kind: CheckKind::MergeTarget,
    };
    let new_rows = &select::rls::NewRows {
        role,
        kind: CheckKind::NewRow,
    };
    let mut update_checks = checks.to_vec();
    update_checks.extend(new_rows.checks(b, table, table, PolicyCmd::Update, false)?);
    if reads {
        update_checks.extend(new_rows.checks(b, table, table, PolicyCmd::Select, true)?);
    }
    let mut insert_checks = checks.to_vec();
    insert_checks.extend(new_rows.checks(b, table, table, PolicyCmd::Insert, false)?);
    let rls = MergeRls {
        update_target: target.checks(b, table, table, PolicyCmd::Update, true)?,
        delete_target: target.checks(b, table, table, PolicyCmd::Delete, true)?,
        update_checks,
        insert_checks,
    };
    Ok((rls, quals))
}

fn plan_action(
    b: &mut Binder,
    table: &Arc<TableDef>,
    w: &pb::MergeWhenClause,
) -> Result<MergeAction, DbError> {
    let cond = match w.condition.as_deref() {
        Some(c) => {
            b.agg = AggCtx::NotAllowed("MERGE WHEN conditions");
            let msg = "window functions are not allowed in MERGE WHEN conditions";
            Some(b.without_windows(msg, |b| b.bind_bool(c, "WHEN"))?)
        }
        None => None,
    };
    let cmd = pb::CmdType::try_from(w.command_type).unwrap_or(pb::CmdType::Undefined);
    let kind = match cmd {
        pb::CmdType::CmdUpdate => {
            let sets = modify::bind_sets(b, &**table, &w.target_list, &|n| {
                modify::column_of(table, n)
            })?;
            MergeKind::Update(sets)
        }
        pb::CmdType::CmdDelete => MergeKind::Delete,
        pb::CmdType::CmdInsert => plan_insert_action(b, table, w)?,
        _ => MergeKind::Nothing,
    };
    Ok(MergeAction { cond, kind })
}

fn plan_insert_action(
    b: &mut Binder,
    table: &Arc<TableDef>,
    w: &pb::MergeWhenClause,
) -> Result<MergeKind, DbError> {
    let overriding =
        pb::OverridingKind::try_from(w.r#override).unwrap_or(pb::OverridingKind::Undefined);
    if overriding == pb::OverridingKind::OverridingUserValue {
        return Err(DbError::unsupported("OVERRIDING USER VALUE"));
    }
    let ins = pb::InsertStmt {
        cols: w.target_list.clone(),
        ..Default::default()
    };
    let (mut targets, col_locs) =
        modify::insert_target_list(b, &ins, &table.name, |n| table.column_index(n))?;
    if w.target_list.iter().any(
        |c| matches!(c.node.as_ref(), Some(NodeEnum::ResTarget(rt)) if !rt.indirection.is_empty()),
    ) {
        return Err(DbError::unsupported(
            "subscripted or field target columns in MERGE ... INSERT",
        ));
    }
    if w.values.is_empty() {
        // INSERT DEFAULT VALUES.
        let defaults = modify::insert_defaults(b, table, &[])?;
        return Ok(MergeKind::Insert {
            targets: Vec::new(),
            values: Vec::new(),
            defaults,
        });
    }
    if w.target_list.is_empty() {
        targets = table.live_columns().map(|(i, _)| i).collect();
    }
    let list = nestor_parser::ast::wrap(NodeEnum::List(pb::List {
        items: w.values.clone(),
    }));
    b.agg = AggCtx::NotAllowed("VALUES");
    b.identity_check = (overriding != pb::OverridingKind::OverridingSystemValue).then_some(());
    let rows = modify::plan_insert_values(b, &**table, &mut targets, &col_locs, &[], &[list]);
    b.identity_check = None;
    let values = match rows? {
        Plan::Values { mut rows } if rows.len() == 1 => rows.pop().unwrap_or_default(),
        _ => return Err(DbError::internal("MERGE INSERT values are not one row")),
    };
    let defaults = modify::insert_defaults(b, table, &targets)?;
    Ok(MergeKind::Insert {
        targets,
        values,
        defaults,
    })
}
