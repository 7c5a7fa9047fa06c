//! Row-level security DDL: CREATE / ALTER / DROP POLICY, ALTER POLICY
//! ... RENAME, and ALTER TABLE ... ENABLE / DISABLE / [NO] FORCE ROW
//! LEVEL SECURITY (PostgreSQL's commands/policy.c).
//!
//! A policy is kept with its table (`TableDef::row_security`), so it is
//! logged, checkpointed, renamed and dropped with the table; its USING
//! and WITH CHECK expressions are SQL text (the deparser's form), bound
//! here once to refuse what PostgreSQL refuses, and bound again by the
//! planner where a statement reads or writes the table
//! (`nestor_plan::select::rls`).
//!
//! ```text
//!   CREATE POLICY p ON t FOR UPDATE TO alice USING (owner = current_user)
//!     -> t.row_security.policies += PolicyDef { p, 'w', permissive,
//!                                    roles [alice], qual "(owner = CURRENT_USER)" }
//! ```

use std::sync::Arc;

use nestor_catalog::defs::{PolicyCmd, PolicyDef, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::ast::node;
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, AggCtx};

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// CREATE POLICY.
pub fn create_policy(
    ctx: &mut StatementCtx,
    st: &pb::CreatePolicyStmt,
) -> Result<CommandTag, DbError> {
    let cmd = match st.cmd_name.as_str() {
        "all" => PolicyCmd::All,
        "select" => PolicyCmd::Select,
        "insert" => PolicyCmd::Insert,
        "update" => PolicyCmd::Update,
        "delete" => PolicyCmd::Delete,
        other => {
            return Err(DbError::internal(format!(
                "unrecognized policy command \"{other}\""
            )))
        }
    };
    check_clauses(cmd, st.qual.is_some(), st.with_check.is_some())?;
    let roles = policy_roles(ctx, &st.roles)?;
    let def = policy_table(ctx, st.table.as_ref())?;
    let qual = bind_clause(ctx, &def, st.qual.as_deref())?;
    let check = bind_clause(ctx, &def, st.with_check.as_deref())?;
    if def
        .row_security
        .policies
        .iter()
        .any(|p| p.name == st.policy_name)
    {
        return Err(duplicate(&st.policy_name, &def.name));
    }
    let mut new = (*def).clone();
    new.row_security.policies.push(PolicyDef {
        oid: ctx.catalog.alloc_oid(),
        name: st.policy_name.clone(),
        cmd,
        permissive: st.permissive,
        roles,
        qual,
        check,
    });
    super::put_table(ctx, new)?;
    Ok(CommandTag::Plain("CREATE POLICY"))
}

/// ALTER POLICY name ON table [TO roles] [USING (...)] [WITH CHECK (...)]:
/// what it names is replaced, the rest kept.
pub fn alter_policy(
    ctx: &mut StatementCtx,
    st: &pb::AlterPolicyStmt,
) -> Result<CommandTag, DbError> {
    let roles = if st.roles.is_empty() {
        None
    } else {
        Some(policy_roles(ctx, &st.roles)?)
    };
    let def = policy_table(ctx, st.table.as_ref())?;
    let Some(pos) = def
        .row_security
        .policies
        .iter()
        .position(|p| p.name == st.policy_name)
    else {
        return Err(undefined(&st.policy_name, &def.name));
    };
    let cmd = def.row_security.policies[pos].cmd;
    if matches!(cmd, PolicyCmd::Select | PolicyCmd::Delete) && st.with_check.is_some() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "only USING expression allowed for SELECT, DELETE",
        ));
    }
    if cmd == PolicyCmd::Insert && st.qual.is_some() {
        return Err(insert_using());
    }
    let qual = bind_clause(ctx, &def, st.qual.as_deref())?;
    let check = bind_clause(ctx, &def, st.with_check.as_deref())?;
    let mut new = (*def).clone();
    let p = move_last(&mut new, pos);
    if let Some(r) = roles {
        p.roles = r;
    }
    if qual.is_some() {
        p.qual = qual;
    }
    if check.is_some() {
        p.check = check;
    }
    super::put_table(ctx, new)?;
    Ok(CommandTag::Plain("ALTER POLICY"))
}

/// ALTER POLICY name ON table RENAME TO new.
pub fn rename_policy(ctx: &mut StatementCtx, rs: &pb::RenameStmt) -> Result<CommandTag, DbError> {
    let def = policy_table(ctx, rs.relation.as_ref())?;
    let policies = &def.row_security.policies;
    if policies.iter().any(|p| p.name == rs.newname) {
        return Err(duplicate(&rs.newname, &def.name));
    }
    let Some(pos) = policies.iter().position(|p| p.name == rs.subname) else {
        return Err(undefined(&rs.subname, &def.name));
    };
    let mut new = (*def).clone();
    move_last(&mut new, pos).name = rs.newname.clone();
    super::put_table(ctx, new)?;
    Ok(CommandTag::Plain("ALTER POLICY"))
}

/// DROP POLICY [IF EXISTS] name ON table [CASCADE | RESTRICT] (nothing
/// depends on a policy: both drop it alone).
pub fn drop_policy(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    for o in &ds.objects {
        let NodeEnum::List(l) = node(o)? else {
            continue;
        };
        let parts = bind::names(&l.items);
        let Some((name, rel)) = parts.split_last() else {
            continue;
        };
        let table = match rel {
            [.., s, t] if s != "public" => format!("{s}.{t}"),
            [.., t] => t.clone(),
            [] => continue,
        };
        let Some(def) = ctx.catalog.table(&table) else {
            if ds.missing_ok {
                super::notice(
                    ctx,
                    format!("relation \"{table}\" does not exist, skipping"),
                );
                continue;
            }
            return Err(super::undefined_table(&table));
        };
        if !def.row_security.policies.iter().any(|p| &p.name == name) {
            if ds.missing_ok {
                super::notice(
                    ctx,
                    format!(
                        "policy \"{name}\" for relation \"{}\" does not exist, skipping",
                        def.name
                    ),
                );
                continue;
            }
            return Err(undefined(name, &def.name));
        }
        let mut new = (*def).clone();
        new.row_security.policies.retain(|p| &p.name != name);
        super::put_table(ctx, new)?;
    }
    Ok(CommandTag::Plain("DROP POLICY"))
}

/// The policies of `def` whose USING or WITH CHECK reads column `pos`
/// (PostgreSQL's pg_depend entries of a policy on its table's columns).
pub(super) fn reading_column(
    ctx: &StatementCtx,
    def: &Arc<TableDef>,
    pos: usize,
) -> Result<Vec<String>, DbError> {
    let mut out = Vec::new();
    for p in &def.row_security.policies {
        for sql in [&p.qual, &p.check].into_iter().flatten() {
            let node = nestor_parser::parse_expr(sql)?;
            let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, "", def);
            let reads = b.bind(&node).is_ok_and(|(e, _)| e.columns().contains(&pos));
            if reads && !out.contains(&p.name) {
                out.push(p.name.clone());
            }
        }
    }
    Ok(out)
}

/// DROP COLUMN of a column `policies` read: 2BP01 naming them, or with
/// CASCADE they go first (PostgreSQL's messages).
pub(super) fn drop_for_column(
    ctx: &mut StatementCtx,
    def: &TableDef,
    pos: usize,
    policies: &[String],
    cascade: bool,
) -> Result<(), DbError> {
    let (t, col) = (&def.name, &def.columns[pos].name);
    if !cascade {
        return Err(super::dependents_remain(
            format_args!("column {col} of table {t}"),
            policies
                .iter()
                .map(|p| format!("policy {p} on table {t} depends on column {col} of table {t}")),
        ));
    }
    let each: Vec<String> = policies
        .iter()
        .map(|p| format!("drop cascades to policy {p} on table {t}"))
        .collect();
    let notice = match each.as_slice() {
        [one] => DbError::new(SqlState::SuccessfulCompletion, one.clone()),
        _ => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", each.len()),
        )
        .with_detail(each.join("\n")),
    };
    ctx.notices
        .push(notice.with_severity(nestor_common::error::Severity::Notice));
    let mut new = def.clone();
    new.row_security
        .policies
        .retain(|p| !policies.contains(&p.name));
    super::put_table(ctx, new)
}

/// The flag an ALTER TABLE subcommand sets: (FORCE rather than ENABLE,
/// on); None for other subcommands.
pub(super) fn row_security_command(cmd: &pb::AlterTableCmd) -> Option<(bool, bool)> {
    use pb::AlterTableType as A;
    Some(match A::try_from(cmd.subtype).ok()? {
        A::AtEnableRowSecurity => (false, true),
        A::AtDisableRowSecurity => (false, false),
        A::AtForceRowSecurity => (true, true),
        A::AtNoForceRowSecurity => (true, false),
        _ => return None,
    })
}

/// ALTER TABLE ... ENABLE / DISABLE / FORCE / NO FORCE ROW LEVEL
/// SECURITY: the table's own flag (PostgreSQL does not recurse to
/// inheritance children or partitions).
pub(super) fn set_row_security(
    ctx: &mut StatementCtx,
    def: &TableDef,
    (force, on): (bool, bool),
) -> Result<(), DbError> {
    let flag = if force {
        def.row_security.forced
    } else {
        def.row_security.enabled
    };
    if flag == on {
        return Ok(());
    }
    let mut new = def.clone();
    if force {
        new.row_security.forced = on;
    } else {
        new.row_security.enabled = on;
    }
    super::put_table(ctx, new)
}

/// The table a policy statement names: a table (not a view or another
/// relation: 42809 as in PostgreSQL's RangeVarCallbackForPolicy).
fn policy_table(ctx: &StatementCtx, rv: Option<&pb::RangeVar>) -> Result<Arc<TableDef>, DbError> {
    let rv = rv.ok_or_else(|| DbError::internal("policy statement without a table"))?;
    let name = bind::relname(rv)?;
    match ctx.catalog.table(&name) {
        Some(t) if t.matview.is_none() => Ok(t),
        Some(_) => Err(not_a_table(&rv.relname)),
        None if ctx.catalog.relation(&name).is_some() || ctx.catalog.view(&name).is_some() => {
            Err(not_a_table(&rv.relname))
        }
        None => Err(super::undefined_table(&name)),
    }
}

fn not_a_table(name: &str) -> DbError {
    DbError::new(
        SqlState::WrongObjectType,
        format!("\"{name}\" is not a table"),
    )
}

/// PostgreSQL's checks of which clauses a command's policy may have.
fn check_clauses(cmd: PolicyCmd, using: bool, check: bool) -> Result<(), DbError> {
    if matches!(cmd, PolicyCmd::Select | PolicyCmd::Delete) && check {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "WITH CHECK cannot be applied to SELECT or DELETE",
        ));
    }
    if cmd == PolicyCmd::Insert && using {
        return Err(insert_using());
    }
    Ok(())
}

fn insert_using() -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        "only WITH CHECK expression allowed for INSERT",
    )
}

/// The OIDs of a TO list (none: PUBLIC, 0). PUBLIC with other roles is
/// PUBLIC alone, with PostgreSQL's warning.
fn policy_roles(ctx: &mut StatementCtx, roles: &[Node]) -> Result<Vec<u32>, DbError> {
    let mut out = Vec::new();
    for r in roles {
        let NodeEnum::RoleSpec(spec) = node(r)? else {
            return Err(DbError::internal("expected a role name"));
        };
        if spec.roletype == pb::RoleSpecType::RolespecPublic as i32 {
            if roles.len() != 1 {
                ctx.notices.push(
                    DbError::new(
                        SqlState::InvalidParameterValue,
                        "ignoring specified roles other than PUBLIC",
                    )
                    .with_hint("All roles are members of the PUBLIC role.")
                    .with_severity(nestor_common::error::Severity::Warning),
                );
            }
            return Ok(vec![0]);
        }
        out.push(super::role::resolve(ctx, spec)?.oid.0);
    }
    if out.is_empty() {
        out.push(0);
    }
    Ok(out)
}

/// A USING or WITH CHECK clause bound over the table's row (refusing
/// aggregates, window functions and set-returning functions as
/// PostgreSQL's EXPR_KIND_POLICY does), as SQL text.
fn bind_clause(
    ctx: &StatementCtx,
    def: &Arc<TableDef>,
    clause: Option<&Node>,
) -> Result<Option<String>, DbError> {
    let Some(clause) = clause else {
        return Ok(None);
    };
    // PostgreSQL parses the clause without the statement's text: its
    // errors carry no position.
    let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, "", def);
    b.agg = AggCtx::NotAllowed("policy expressions");
    b.bind_bool(clause, "POLICY").map_err(|mut e| {
        e.position = None;
        e.unpositioned = true;
        e
    })?;
    pinned_text(ctx, clause).map(Some)
}

/// A clause as the catalog keeps it: deparsed, the relations its
/// subqueries name outside `public` qualified by their schema (as a
/// view's query is, `view::stored_query`), so it reads the same
/// relations wherever it is bound (a view's query plans with `public`
/// alone on its path; PostgreSQL keeps their OIDs).
fn pinned_text(ctx: &StatementCtx, clause: &Node) -> Result<String, DbError> {
    let text = nestor_parser::deparse_expr(clause)?;
    let select = format!("SELECT {text}");
    let stmt = nestor_parser::parse_sql(&select)?
        .into_iter()
        .next()
        .and_then(|s| s.stmt);
    let Some(stmt) = stmt else {
        return Ok(text);
    };
    let stored = super::view::stored_query(ctx, &stmt)?;
    Ok(match stored.strip_prefix("SELECT ") {
        Some(pinned) if stored != select => pinned.to_string(),
        _ => text,
    })
}

/// Move the policy at `pos` to the end of the table's list and return
/// it: the list is in the order pg_policy's heap would return its rows
/// (creation, and a changed row after the others, as PostgreSQL's
/// update writes a new tuple), which catalog scans such as psql's `\dp`
/// show.
fn move_last(def: &mut TableDef, pos: usize) -> &mut PolicyDef {
    let list = &mut def.row_security.policies;
    let p = list.remove(pos);
    list.push(p);
    let last = list.len() - 1;
    &mut list[last]
}

fn duplicate(name: &str, table: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateObject,
        format!("policy \"{name}\" for table \"{table}\" already exists"),
    )
}

fn undefined(name: &str, table: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("policy \"{name}\" for table \"{table}\" does not exist"),
    )
}
