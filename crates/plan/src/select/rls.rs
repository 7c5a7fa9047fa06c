//! Row-level security in the plan (PostgreSQL's rewrite/rowsecurity.c):
//! a table with ENABLE ROW LEVEL SECURITY, read or written by a role it
//! applies to, gets its policies' expressions bound into the plan.
//!
//! Whom it applies to: not a superuser or BYPASSRLS role, not the table's
//! owner (or a member of it) unless FORCE ROW LEVEL SECURITY; a view's
//! relations are planned for the view's owner. The session tells the
//! catalog handle its role and `row_security` setting
//! (`Catalog::rls_user`); a change of either re-plans (the catalog
//! version moves), so a cached plan is the current role's. With
//! `row_security` off a statement policies would affect fails (42501).
//!
//! ```text
//!   SELECT * FROM t WHERE f(x)         (alice; policies p1, p2 permissive, r restrictive)
//!     Filter f(x)                      <- the statement's own conditions, above
//!       SeqScan t  filter: r AND (p1 OR p2)   <- security quals, evaluated first
//!   UPDATE t SET ...   scan: UPDATE and SELECT USING as above;
//!                      new rows: UPDATE WITH CHECK (else USING), SELECT USING
//!   INSERT             new rows: INSERT WITH CHECK, SELECT USING (RETURNING)
//!   ... FOR UPDATE     scan: UPDATE USING before SELECT USING
//!   ON CONFLICT UPDATE existing row: UPDATE and SELECT USING (`Conflict`);
//!                      updated row: UPDATE WITH CHECK, SELECT USING
//!   MERGE              target: SELECT USING; its rows: UPDATE / DELETE
//!                      USING (`MergeTarget`); new rows: WITH CHECK
//! ```
//!
//! Planning a query only to describe it (CREATE VIEW) and foreign key
//! actions apply no policies ([`unapplied`]), as in PostgreSQL.
//!
//! Permissive policies combine with OR, restrictive ones with AND, and
//! with no permissive policy nothing is visible or may be written. The
//! security quals sit in the table's scan, the statement's conditions
//! above it, so a function in WHERE never sees a row the policies hide
//! (PostgreSQL's security barrier); conditions that can neither fail nor
//! show a value ([`leakproof`]: `col = $1`) join the scan after them, so
//! an index still serves a lookup. New rows are checked after BEFORE triggers
//! and before the table's constraints, with PostgreSQL's 42501 messages.
//!
//! A table without ENABLE ROW LEVEL SECURITY costs one flag test.

use super::*;
use crate::ir::{CheckKind, RlsCheck};
use nestor_catalog::acl;
use nestor_catalog::defs::{PolicyCmd, PolicyDef};
use nestor_common::RelId;

/// How a table's policies apply to the statement being planned: the role
/// they are chosen for. None: they do not apply.
pub(crate) fn applies(b: &Binder, t: &TableDef) -> Result<Option<RelId>, DbError> {
    if !t.row_security.enabled || UNAPPLIED.with(std::cell::Cell::get) {
        return Ok(None);
    }
    let user = b.catalog.rls_user();
    let role = match b.perm_as {
        Some(owner) => match b.catalog.role_by_oid(owner) {
            Some(r) if r.superuser || r.bypassrls => return Ok(None),
            Some(r) => r.oid,
            None => owner,
        },
        None if user.role == 0 => return Ok(None),
        None => RelId(user.role),
    };
    let owner = b.catalog.acl(acl::ObjKind::Table, t.oid.0).owner;
    let is_owner = b.catalog.has_privs_of_role(role, owner);
    if is_owner && !t.row_security.forced {
        return Ok(None);
    }
    if !user.row_security {
        let e = DbError::new(
            SqlState::InsufficientPrivilege,
            format!(
                "query would be affected by row-level security policy for table \"{}\"",
                t.name
            ),
        );
        return Err(if is_owner {
            e.with_hint(
                "To disable the policy for the table's owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.",
            )
        } else {
            e
        });
    }
    Ok(Some(role))
}

thread_local! {
    /// Set while a query is planned to be described, not run ([`unapplied`]).
    static UNAPPLIED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` (planning a query only to learn its result columns, as CREATE
/// VIEW does) without applying policies: PostgreSQL applies them when a
/// query is rewritten to run, so describing one neither needs them nor
/// fails on them (infinite recursion between two tables' policies).
pub fn unapplied<R>(f: impl FnOnce() -> R) -> R {
    let saved = UNAPPLIED.with(|u| u.replace(true));
    let r = f();
    UNAPPLIED.with(|u| u.set(saved));
    r
}

/// The policies of `t` for command `cmd` that apply to `role`:
/// (permissive, restrictive), each in name order.
fn policies_for(
    b: &Binder,
    t: &TableDef,
    cmd: PolicyCmd,
    role: RelId,
) -> (Vec<PolicyDef>, Vec<PolicyDef>) {
    let applies = |p: &&PolicyDef| {
        p.cmd.applies_to(cmd)
            && p.roles
                .iter()
                .any(|&r| r == 0 || b.catalog.has_privs_of_role(role, RelId(r)))
    };
    let (permissive, mut restrictive): (Vec<_>, Vec<_>) = t
        .row_security
        .policies
        .iter()
        .filter(applies)
        .cloned()
        .partition(|p| p.permissive);
    // PostgreSQL applies (and reports) restrictive policies by name.
    restrictive.sort_by(|a, b| a.name.cmp(&b.name));
    (permissive, restrictive)
}

/// The security quals of reading `t` for `cmd` (PostgreSQL's
/// add_security_quals): the restrictive policies' USING each, then the
/// permissive ones' ORed; `false` when no permissive policy has one.
/// Bound over the row of `row` (the table itself, or a descendant
/// planned with its ancestor's policies).
pub(crate) fn security_quals(
    b: &mut Binder,
    t: &TableDef,
    row: &Arc<TableDef>,
    cmd: PolicyCmd,
    role: RelId,
) -> Result<Vec<Expr>, DbError> {
    let (permissive, restrictive) = policies_for(b, t, cmd, role);
    let mut ors = Vec::new();
    for p in &permissive {
        if let Some(q) = &p.qual {
            ors.push(bind_policy(b, t, row, q)?);
        }
    }
    if ors.is_empty() {
        return Ok(vec![Expr::Const(Value::Bool(false))]);
    }
    let mut out = Vec::new();
    for p in &restrictive {
        if let Some(q) = &p.qual {
            out.push(bind_policy(b, t, row, q)?);
        }
    }
    out.push(or_all(ors));
    Ok(out)
}

/// Whether a condition of the statement may be evaluated before the
/// policies' (in the scan, where it may choose an index): a comparison
/// or NULL test of columns, constants and parameters, which can neither
/// fail nor show a value (PostgreSQL's leakproof operators). Anything
/// else, functions included, is evaluated on the rows the policies let
/// through.
pub(crate) fn leakproof(e: &Expr) -> bool {
    let plain = |e: &Expr| matches!(e, Expr::Col(_) | Expr::Const(_) | Expr::Param(_));
    match e {
        Expr::Cmp(_, a, b) => plain(a) && plain(b),
        Expr::IsNull(a, _) => plain(a),
        _ => false,
    }
}

/// SELECT ... FOR UPDATE / SHARE: a locked table's UPDATE policies'
/// quals go before its SELECT ones (PostgreSQL adds them when the range
/// table entry requires UPDATE).
pub(crate) fn lock_quals(
    b: &mut Binder,
    f: &mut From,
    locked: &[crate::ir::LockTarget],
) -> Result<(), DbError> {
    match f {
        From::Table {
            table,
            offset,
            security,
            ..
        } if !security.is_empty() && locked.iter().any(|l| l.offset == *offset) => {
            if let Some(role) = applies(b, table)? {
                let t = table.clone();
                let mut quals = security_quals(b, &t, &t, PolicyCmd::Update, role)?;
                quals.append(security);
                *security = quals;
            }
            Ok(())
        }
        From::Join { left, right, .. } => {
            lock_quals(b, left, locked)?;
            lock_quals(b, right, locked)
        }
        _ => Ok(()),
    }
}

/// The checks new rows of `t` must pass for `cmd` (PostgreSQL's
/// add_with_check_options): the permissive policies' WITH CHECK (else
/// USING; USING alone with `force_using`) ORed as one check without a
/// policy name, then each restrictive policy's as a check named after it;
/// a `false` check when no permissive policy has an expression.
pub(crate) struct NewRows {
    /// The role the policies are chosen for ([`applies`]).
    pub role: RelId,
    pub kind: CheckKind,
}

impl NewRows {
    /// The checks of `t`'s policies for `cmd`, bound over `row`'s row.
    pub(crate) fn checks(
        &self,
        b: &mut Binder,
        t: &TableDef,
        row: &Arc<TableDef>,
        cmd: PolicyCmd,
        force_using: bool,
    ) -> Result<Vec<crate::ir::BoundCheck>, DbError> {
        new_row_checks(b, (t, row), cmd, self.role, force_using, self.kind)
    }
}

fn new_row_checks(
    b: &mut Binder,
    (t, row): (&TableDef, &Arc<TableDef>),
    cmd: PolicyCmd,
    role: RelId,
    force_using: bool,
    kind: CheckKind,
) -> Result<Vec<crate::ir::BoundCheck>, DbError> {
    let (permissive, restrictive) = policies_for(b, t, cmd, role);
    let clause = |p: &PolicyDef| -> Option<String> {
        match (&p.check, force_using) {
            (Some(c), false) => Some(c.clone()),
            _ => p.qual.clone(),
        }
    };
    let mut ors = Vec::new();
    for p in &permissive {
        if let Some(c) = clause(p) {
            ors.push(bind_policy(b, t, row, &c)?);
        }
    }
    let check = |name: Option<&str>, expr: Expr| crate::ir::BoundCheck {
        name: name.unwrap_or_default().to_string(),
        expr,
        domain: None,
        generated: None,
        rls: Some(RlsCheck {
            kind,
            policy: name.map(str::to_string),
            table: (t.oid != row.oid).then(|| t.name.clone()),
        }),
    };
    if ors.is_empty() {
        return Ok(vec![check(None, Expr::Const(Value::Bool(false)))]);
    }
    let mut out = vec![check(None, or_all(ors))];
    for p in &restrictive {
        if let Some(c) = clause(p) {
            let e = bind_policy(b, t, row, &c)?;
            out.push(check(Some(&p.name), e));
        }
    }
    Ok(out)
}

fn or_all(mut ors: Vec<Expr>) -> Expr {
    if ors.len() == 1 {
        ors.pop().unwrap_or(Expr::Const(Value::Bool(false)))
    } else {
        Expr::Or(ors)
    }
}

/// Bind one policy expression (SQL text over `t`'s row) over `row`'s
/// row, at a query level of its own in `b` (its subqueries get ids of
/// this statement; a correlated one reads the row it is evaluated on).
/// A policy reached again while its own expression is bound is
/// PostgreSQL's 42P17.
fn bind_policy(
    b: &mut Binder,
    t: &TableDef,
    row: &Arc<TableDef>,
    sql: &str,
) -> Result<Expr, DbError> {
    if b.rls_tables.contains(&t.oid) {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            format!(
                "infinite recursion detected in policy for relation \"{}\"",
                t.name
            ),
        ));
    }
    let node = nestor_parser::parse_expr(sql)?;
    b.rls_tables.push(t.oid);
    b.scopes.push(table_scope(row, &t.name));
    b.outer_refs.push(None);
    let saved_text = std::mem::take(&mut b.text);
    let saved_agg = std::mem::replace(&mut b.agg, AggCtx::NotAllowed("policy expressions"));
    let r = b.bind_bool(&node, "POLICY");
    b.agg = saved_agg;
    b.text = saved_text;
    b.outer_refs.pop();
    b.scopes.pop();
    b.rls_tables.pop();
    // Positions in the policy's text mean nothing in the statement's.
    r.map_err(|mut e| {
        e.position = None;
        e.unpositioned = true;
        e
    })
}
