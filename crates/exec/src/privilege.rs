//! Privilege checks: who the statement runs as ([`RoleCtx`]) and whether
//! that role may do what the statement needs (PostgreSQL's aclchk.c).
//!
//! A superuser passes every check without looking further (one branch on
//! the hot path: sessions of superusers never reach the ACLs). Anyone else
//! is checked against the object's ACL (`nestor_catalog::acl`): a plan's
//! needs at each execution ([`check_all`]), DDL's ownership rules
//! ([`require_owner`]), and the functions and sequences the executor
//! reaches by OID at run time (nextval and friends).
//!
//! ```text
//!   alice runs SELECT * FROM t     t: owner postgres, acl {postgres=arwdDxt/postgres}
//!     -> ERROR 42501 permission denied for table t
//!   GRANT SELECT ON t TO alice     acl {postgres=arwdDxt/postgres,alice=r/postgres}
//!     -> the same plan now runs
//! ```
//!
//! A need the table's ACL does not meet may be met column by column
//! ([`perm_allowed`], PostgreSQL's ExecCheckRTEPerms): SELECT on each
//! column the statement reads (every column for a whole-row reference;
//! any one column when it reads none, as `count(*)` does), INSERT and
//! UPDATE on each column it writes. Only SELECT, INSERT and UPDATE can be
//! held that way; the error names the table either way, as PostgreSQL 15's
//! does. The check runs once per plan, catalog version and role (see
//! `statement::execute`), and never for superusers.

use nestor_catalog::acl::{ObjAcl, ObjKind, INSERT, REFERENCES, SELECT, UPDATE, USAGE};
use nestor_catalog::Catalog;
use nestor_common::{DbError, RelId, SqlState};
use nestor_plan::perm::Perm;

use crate::context::StatementCtx;

pub use crate::context::RoleCtx;

/// current_user's name: SET ROLE's role, else the session user ("" if
/// neither is set).
pub fn current_role_name(settings: &nestor_settings::Settings) -> &str {
    match settings.get("role") {
        Some(r) if r != "none" && !r.is_empty() => r,
        _ => settings.get("session_authorization").unwrap_or(""),
    }
}

/// The word PostgreSQL's messages use for an object of this kind.
pub fn kind_word(kind: ObjKind) -> &'static str {
    match kind {
        ObjKind::Table => "table",
        ObjKind::Sequence => "sequence",
        ObjKind::Function => "function",
        ObjKind::Schema => "schema",
    }
}

/// 42501 "permission denied for table t".
pub fn denied(kind: ObjKind, name: &str) -> DbError {
    DbError::new(
        SqlState::InsufficientPrivilege,
        format!("permission denied for {} {name}", kind_word(kind)),
    )
}

/// Whether `role` holds all of `privs` on the object.
pub fn allowed(catalog: &Catalog, role: RelId, kind: ObjKind, oid: u32, privs: u16) -> bool {
    if catalog.role_by_oid(role).is_some_and(|r| r.superuser) {
        return true;
    }
    catalog.acl(kind, oid).allows(kind, privs, &|grantee| {
        catalog.has_privs_of_role(role, RelId(grantee))
    })
}

/// Whether `role` holds at least one of `any` on the object (PostgreSQL's
/// ACLMASK_ANY).
pub fn allowed_any(catalog: &Catalog, role: RelId, kind: ObjKind, oid: u32, any: u16) -> bool {
    (0..u16::BITS)
        .map(|bit| 1u16 << bit)
        .filter(|b| any & b != 0)
        .any(|b| allowed(catalog, role, kind, oid, b))
}

/// Check a plan's needs for `ctx.role` (called only for non-superusers).
pub fn check_all(ctx: &StatementCtx, perms: &[Perm], text: &str) -> Result<(), DbError> {
    for p in perms.iter().filter(|p| !p.lock_only) {
        let role = p.check_as.unwrap_or(ctx.role.oid);
        if !perm_allowed(ctx.catalog, role, p) {
            let is_view =
                p.kind == ObjKind::Table && ctx.catalog.views().iter().any(|v| v.oid.0 == p.oid);
            if is_view {
                return Err(DbError::new(
                    SqlState::InsufficientPrivilege,
                    format!("permission denied for view {}", p.name),
                ));
            }
            return Err(nestor_parser::ast::err_at(
                denied(p.kind, &p.name),
                text,
                p.location,
            ));
        }
    }
    Ok(())
}

/// The live columns of a table or view: (attribute number, name).
pub fn relation_columns(catalog: &Catalog, oid: u32) -> Option<Vec<(i16, String)>> {
    if let Some(rel) = nestor_plan::pg_catalog::by_oid(oid) {
        let cols = nestor_plan::pg_catalog::columns(rel)
            .into_iter()
            .enumerate();
        return Some(
            cols.map(|(i, (n, _))| (i as i16 + 1, n.to_string()))
                .collect(),
        );
    }
    if let Some(t) = catalog.table_by_oid(RelId(oid)) {
        let live = t
            .live_columns()
            .map(|(i, c)| (i as i16 + 1, c.name.clone()));
        return Some(live.collect());
    }
    let v = catalog.views().into_iter().find(|v| v.oid.0 == oid)?;
    let cols = v.columns.iter().enumerate();
    Some(cols.map(|(i, (n, _))| (i as i16 + 1, n.clone())).collect())
}

/// Whether `role` may do what a need asks: the privileges through the
/// object's ACL, or for SELECT, INSERT and UPDATE on a relation through
/// the ACLs of the columns the need names (PostgreSQL's
/// ExecCheckRTEPerms).
pub fn perm_allowed(catalog: &Catalog, role: RelId, p: &Perm) -> bool {
    if catalog.role_by_oid(role).is_some_and(|r| r.superuser) {
        return true;
    }
    let a = catalog.acl(p.kind, p.oid);
    let has = |g: u32| catalog.has_privs_of_role(role, RelId(g));
    let held = a
        .effective(p.kind)
        .iter()
        .filter(|i| i.grantee == 0 || has(i.grantee))
        .fold(0u16, |acc, i| acc | i.privs);
    let missing = p.privs & !held;
    if missing == 0 {
        return true;
    }
    let by_column_only = SELECT | INSERT | UPDATE;
    if p.kind != ObjKind::Table || missing & (!by_column_only | p.cols.untracked) != 0 {
        return false;
    }
    let by_column = [
        (SELECT, &p.cols.select),
        (INSERT, &p.cols.insert),
        (UPDATE, &p.cols.update),
    ];
    by_column
        .into_iter()
        .filter(|(bit, _)| missing & bit != 0)
        .all(|(bit, cols)| columns_allow(catalog, &a, p.oid, bit, cols, &has))
}

/// Whether `role` may read columns `attnums` of relation `oid`: SELECT on
/// the relation or on each of them (PostgreSQL's test before it shows a
/// key's values in an error DETAIL).
pub fn may_select_columns(catalog: &Catalog, role: RelId, oid: u32, attnums: &[i16]) -> bool {
    if allowed(catalog, role, ObjKind::Table, oid, SELECT) {
        return true;
    }
    let a = catalog.acl(ObjKind::Table, oid);
    let has = |g: u32| catalog.has_privs_of_role(role, RelId(g));
    !attnums.is_empty()
        && attnums
            .iter()
            .all(|&n| a.column_privs(n, &has) & SELECT != 0)
}

/// Whether the column ACLs give `bit` on each of `cols` (0: every
/// column), or on any column when `cols` is empty.
fn columns_allow(
    catalog: &Catalog,
    a: &ObjAcl,
    oid: u32,
    bit: u16,
    cols: &[i16],
    has: &dyn Fn(u32) -> bool,
) -> bool {
    let on = |attnum: i16| a.column_privs(attnum, has) & bit != 0;
    let live = || relation_columns(catalog, oid).unwrap_or_default();
    if cols.is_empty() {
        return live().iter().any(|(n, _)| on(*n));
    }
    cols.iter().all(|&c| {
        if c == 0 {
            let all = live();
            !all.is_empty() && all.iter().all(|(n, _)| on(*n))
        } else {
            on(c)
        }
    })
}

/// Whether the current role owns the object (or has its owner's
/// privileges; superusers own everything).
pub fn owns(ctx: &StatementCtx, kind: ObjKind, oid: u32) -> bool {
    ctx.role.superuser
        || ctx
            .catalog
            .has_privs_of_role(ctx.role.oid, ctx.catalog.acl(kind, oid).owner)
}

/// 42501 "must be owner of table t" unless the current role owns it.
pub fn require_owner(
    ctx: &StatementCtx,
    kind: ObjKind,
    oid: u32,
    word: &str,
    name: &str,
) -> Result<(), DbError> {
    if owns(ctx, kind, oid) {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::InsufficientPrivilege,
        format!("must be owner of {word} {name}"),
    ))
}

/// 42501 "must be owner of type t" unless the current role has the
/// privileges of `owner`, a type's owner as its definition keeps it
/// (enums, domains, composite types).
pub fn require_type_owner(ctx: &StatementCtx, owner: u32, name: &str) -> Result<(), DbError> {
    require_owner_of(ctx, owner, "type", name)
}

/// 42501 "must be owner of <what> <name>" unless the current role has the
/// privileges of `owner`, the object's owner as its definition keeps it.
pub fn require_owner_of(
    ctx: &StatementCtx,
    owner: u32,
    what: &str,
    name: &str,
) -> Result<(), DbError> {
    if ctx.role.superuser
        || ctx
            .catalog
            .has_privs_of_role(ctx.role.oid, nestor_common::RelId(owner))
    {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::InsufficientPrivilege,
        format!("must be owner of {what} {name}"),
    ))
}

/// A sequence function's check: nextval needs USAGE or UPDATE, currval
/// SELECT or USAGE, setval UPDATE (`any` is the set of which one is enough).
pub fn require_sequence(ctx: &StatementCtx, oid: u32, name: &str, any: u16) -> Result<(), DbError> {
    if ctx.role.superuser {
        return Ok(());
    }
    if allowed_any(ctx.catalog, ctx.role.oid, ObjKind::Sequence, oid, any) {
        Ok(())
    } else {
        Err(denied(ObjKind::Sequence, name))
    }
}

/// Whether `role` holds `bit` on the object, WITH GRANT OPTION when asked
/// (the owner and superusers always may grant).
fn holds(catalog: &Catalog, role: RelId, kind: ObjKind, oid: u32, bit: u16, grant: bool) -> bool {
    if !allowed(catalog, role, kind, oid, bit) {
        return false;
    }
    if !grant {
        return true;
    }
    let a = catalog.acl(kind, oid);
    catalog.role_by_oid(role).is_some_and(|r| r.superuser)
        || catalog.has_privs_of_role(role, a.owner)
        || a.effective(kind).iter().any(|i| {
            i.grant_option & bit != 0
                && i.grantee != 0
                && catalog.has_privs_of_role(role, RelId(i.grantee))
        })
}

/// The privileges a has_*_privilege string names: (bit, with grant
/// option); 0 for the database privileges every role holds (CONNECT,
/// TEMPORARY). 22023 for an unknown word, as PostgreSQL's.
fn privilege_list(text: &str) -> Result<Vec<(u16, bool)>, DbError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let p = part.trim().to_ascii_lowercase();
        let (word, grant) = match p.strip_suffix("with grant option") {
            Some(w) => (w.trim_end().to_string(), true),
            None => (p.clone(), false),
        };
        let bit = match word.as_str() {
            "connect" | "temp" | "temporary" => 0,
            w => nestor_catalog::acl::privilege_bit(w).ok_or_else(|| {
                DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized privilege type: \"{}\"", part.trim()),
                )
            })?,
        };
        out.push((bit, grant));
    }
    Ok(out)
}

/// has_table_privilege(role?, object, privileges) and its siblings: true
/// when the role holds any of the listed privileges.
pub fn has_privilege_fn(
    kind: nestor_plan::functions::PrivFn,
    args: &[nestor_types::Value],
    ev: &mut crate::context::Ev,
) -> Result<nestor_types::Value, DbError> {
    use nestor_plan::functions::PrivFn;
    use nestor_types::Value;
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let catalog = ev.ctx.catalog;
    let base = if kind == PrivFn::Column { 3 } else { 2 };
    if args.len() < base {
        return Err(DbError::internal("has_*_privilege without arguments"));
    }
    let (role, rest) = if args.len() > base {
        let r = match &args[0] {
            Value::Text(name) => catalog.role(name).map(|r| r.oid).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedObject,
                    format!("role \"{name}\" does not exist"),
                )
            })?,
            v => RelId(v.as_i64().unwrap_or(0) as u32),
        };
        (r, &args[1..])
    } else {
        (ev.ctx.role.oid, args)
    };
    let privs = match rest.last() {
        Some(Value::Text(t)) => privilege_list(t)?,
        _ => return Err(DbError::internal("has_*_privilege without privileges")),
    };
    let object = &rest[0];
    let (obj_kind, oid) = match kind {
        PrivFn::Table | PrivFn::Column | PrivFn::AnyColumn | PrivFn::Sequence => {
            let oid = match object {
                Value::Text(name) => nestor_plan::pg_catalog::regclass(catalog, name)?,
                v => v.as_i64().unwrap_or(0) as u32,
            };
            let k = if catalog.sequence_by_oid(RelId(oid)).is_some() {
                ObjKind::Sequence
            } else if catalog.table_by_oid(RelId(oid)).is_some()
                || catalog.views().iter().any(|v| v.oid.0 == oid)
            {
                ObjKind::Table
            } else if nestor_plan::pg_catalog::by_oid(oid).is_some() {
                // The system catalogs: readable by everyone (a column
                // named must exist).
                if kind == PrivFn::Column && column_arg(catalog, oid, object, rest)?.is_none() {
                    return Ok(Value::Null);
                }
                return Ok(Value::Bool(privs.iter().any(|(b, _)| *b == SELECT)));
            } else {
                return Ok(Value::Null);
            };
            if kind == PrivFn::Sequence && k != ObjKind::Sequence {
                let name = object
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| oid.to_string());
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!("\"{name}\" is not a sequence"),
                ));
            }
            (k, oid)
        }
        PrivFn::Function => {
            let oid = match object {
                Value::Text(sig) => {
                    let bare = sig.split('(').next().unwrap_or("").trim();
                    nestor_plan::pg_catalog::reg_lookup(
                        catalog,
                        nestor_types::datatype::RegKind::Proc,
                        bare,
                    )?
                }
                v => v.as_i64().unwrap_or(0) as u32,
            };
            if catalog.function_by_oid(RelId(oid)).is_none() {
                // Built-in functions: everyone may execute them.
                return Ok(Value::Bool(true));
            }
            (ObjKind::Function, oid)
        }
        PrivFn::Schema => {
            let oid = match object {
                Value::Text(name) => nestor_plan::pg_catalog::reg_lookup(
                    catalog,
                    nestor_types::datatype::RegKind::Namespace,
                    name,
                )?,
                v => v.as_i64().unwrap_or(0) as u32,
            };
            if oid != nestor_catalog::PUBLIC_NAMESPACE_OID {
                // pg_catalog and information_schema: USAGE for PUBLIC,
                // CREATE for superusers.
                let superuser = catalog.role_by_oid(role).is_some_and(|r| r.superuser);
                return Ok(Value::Bool(
                    privs.iter().any(|(b, _)| *b == USAGE) || superuser,
                ));
            }
            (ObjKind::Schema, oid)
        }
        PrivFn::Database => {
            // CONNECT and TEMPORARY are PUBLIC's; CREATE the owner's
            // (the bootstrap superuser) and superusers'.
            let superuser = catalog.role_by_oid(role).is_some_and(|r| r.superuser);
            return Ok(Value::Bool(privs.iter().any(|(b, _)| *b == 0) || superuser));
        }
    };
    if matches!(kind, PrivFn::Column | PrivFn::AnyColumn) {
        return column_privilege_fn(catalog, role, (obj_kind, oid), object, rest, &privs);
    }
    Ok(Value::Bool(privs.iter().any(|&(bit, grant)| {
        bit != 0 && holds(catalog, role, obj_kind, oid, bit, grant)
    })))
}

/// has_column_privilege (`rest`: table, column, privileges) and
/// has_any_column_privilege (table, privileges): the table's privilege,
/// or the column's (any column's). A column named that does not exist is
/// 42703; one given by a number that is not a live column gives NULL.
fn column_privilege_fn(
    catalog: &Catalog,
    role: RelId,
    (kind, oid): (ObjKind, u32),
    object: &nestor_types::Value,
    rest: &[nestor_types::Value],
    privs: &[(u16, bool)],
) -> Result<nestor_types::Value, DbError> {
    use nestor_types::Value;
    if let Some(&(_, _)) = privs
        .iter()
        .find(|(b, _)| *b & (SELECT | INSERT | UPDATE | REFERENCES) == 0)
    {
        let word = privs_words(rest.last());
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("unrecognized privilege type: \"{word}\""),
        ));
    }
    let wanted: Vec<i16> = if rest.len() == 3 {
        match column_arg(catalog, oid, object, rest)? {
            Some(attnum) => vec![attnum],
            None => return Ok(Value::Null),
        }
    } else {
        let columns = relation_columns(catalog, oid).unwrap_or_default();
        columns.iter().map(|(a, _)| *a).collect()
    };
    let table = |bit, grant| holds(catalog, role, kind, oid, bit, grant);
    let a = catalog.acl(kind, oid);
    let has = |g: u32| catalog.has_privs_of_role(role, RelId(g));
    let column = |attnum: i16, bit: u16, grant: bool| {
        a.column(attnum).iter().any(|i| {
            let held = if grant { i.grant_option } else { i.privs };
            held & bit != 0 && (i.grantee == 0 || has(i.grantee))
        })
    };
    Ok(Value::Bool(privs.iter().any(|&(bit, grant)| {
        table(bit, grant) || wanted.iter().any(|&c| column(c, bit, grant))
    })))
}

/// has_column_privilege's column (`rest[1]`, by name or number) as an
/// attribute number: None (NULL) for a number that is no live column or a
/// dropped column's name; 42703 for another name that is none.
fn column_arg(
    catalog: &Catalog,
    oid: u32,
    object: &nestor_types::Value,
    rest: &[nestor_types::Value],
) -> Result<Option<i16>, DbError> {
    use nestor_types::Value;
    let columns = relation_columns(catalog, oid).unwrap_or_default();
    let Some(Value::Text(name)) = rest.get(1) else {
        let n = rest.get(1).and_then(Value::as_i64).unwrap_or(0);
        return Ok(columns
            .iter()
            .find(|(a, _)| i64::from(*a) == n)
            .map(|(a, _)| *a));
    };
    if let Some((a, _)) = columns.iter().find(|(_, n)| **n == **name) {
        return Ok(Some(*a));
    }
    let dropped = catalog.table_by_oid(RelId(oid)).is_some_and(|t| {
        (1..=t.columns.len()).any(|n| **name == format!("........pg.dropped.{n}........"))
    });
    if dropped {
        return Ok(None);
    }
    let rel = object
        .as_str()
        .map(str::to_string)
        .or_else(|| catalog.table_by_oid(RelId(oid)).map(|t| t.name.clone()))
        .unwrap_or_else(|| oid.to_string());
    Err(DbError::new(
        SqlState::UndefinedColumn,
        format!("column \"{name}\" of relation \"{rel}\" does not exist"),
    ))
}

/// The privilege string's first word PostgreSQL's column functions
/// refuse, for the message.
fn privs_words(v: Option<&nestor_types::Value>) -> String {
    let text = v.and_then(|v| v.as_str()).unwrap_or_default();
    text.split(',')
        .map(str::trim)
        .find(|p| {
            let p = p.to_ascii_lowercase();
            let w = p.strip_suffix("with grant option").unwrap_or(&p).trim_end();
            !matches!(w, "select" | "insert" | "update" | "references")
        })
        .unwrap_or_default()
        .to_string()
}
