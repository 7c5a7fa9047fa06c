//! GRANT / REVOKE of privileges on objects, ownership (OWNER TO, and the
//! owner a CREATE records) and the privileges DDL needs: PostgreSQL 15's
//! aclchk.c rules on the owner/ACL store (`nestor_catalog::acl`).
//!
//! A grant is made in the owner's name when the granting role owns the
//! object (superusers act as the owner); otherwise the role must hold the
//! privilege WITH GRANT OPTION and becomes the grantor, granting only what
//! it may (WARNING "not all privileges were granted").
//!
//! ```text
//!   GRANT SELECT, INSERT ON t TO alice WITH GRANT OPTION
//!     acl {postgres=arwdDxt/postgres, alice=a*r*/postgres}
//!   SET ROLE alice; GRANT SELECT ON t TO bob
//!     acl {..., bob=r/alice}
//!   RESET ROLE; REVOKE GRANT OPTION FOR SELECT ON t FROM alice
//!     -> 2BP01 dependent privileges exist (bob's); CASCADE takes bob's too
//! ```
//!
//! DDL by a role that is not a superuser ([`check_ddl`]): creating in
//! `public` needs CREATE on it (PostgreSQL 15 grants that to the database
//! owner only), changing or dropping an object needs its ownership,
//! CREATE TRIGGER the TRIGGER privilege, TRUNCATE the TRUNCATE privilege.
//! Column privileges (`GRANT SELECT (a, b) ON t`) edit the columns' ACLs
//! in the table's entry the same way, the grantor chosen over the table's
//! and the column's ACL together; REVOKE on the table takes the same
//! privileges from every column.
//!
//! Left out (0A000): column privileges of sequences, GRANT on databases,
//! languages, types and other object kinds.

use nestor_catalog::acl::{self, AclItem, ObjAcl, ObjKind};
use nestor_catalog::{Change, Relation, BOOTSTRAP_SUPERUSER_OID, PUBLIC_NAMESPACE_OID};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb::{self, ObjectType};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};

use crate::context::StatementCtx;
use crate::privilege::{self, denied, kind_word};
use crate::tag::CommandTag;

/// One object a GRANT names.
struct Target {
    kind: ObjKind,
    oid: u32,
    name: String,
    /// Named with TABLE although it is a sequence.
    seq_as_table: bool,
}

fn warning(ctx: &mut StatementCtx, msg: String) {
    warning_code(ctx, SqlState::Warning, msg);
}

fn warning_code(ctx: &mut StatementCtx, code: SqlState, msg: String) {
    ctx.notices
        .push(DbError::new(code, msg).with_severity(nestor_common::error::Severity::Warning));
}

fn undefined_relation(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}

pub(super) fn schema_oid(ctx: &StatementCtx, name: &str) -> Result<u32, DbError> {
    if name == "public" {
        return Ok(PUBLIC_NAMESPACE_OID);
    }
    match ctx.catalog.schema(name) {
        Some(s) => Ok(s.oid.0),
        None => Err(DbError::new(
            SqlState::InvalidSchemaName,
            format!("schema \"{name}\" does not exist"),
        )),
    }
}

fn targets(ctx: &StatementCtx, st: &pb::GrantStmt) -> Result<Vec<Target>, DbError> {
    let objtype = ObjectType::try_from(st.objtype).unwrap_or(ObjectType::Undefined);
    let targtype =
        pb::GrantTargetType::try_from(st.targtype).unwrap_or(pb::GrantTargetType::AclTargetObject);
    let mut out = Vec::new();
    if targtype == pb::GrantTargetType::AclTargetDefaults {
        return Err(DbError::unsupported("ALTER DEFAULT PRIVILEGES"));
    }
    if targtype == pb::GrantTargetType::AclTargetAllInSchema {
        let mut schemas = Vec::new();
        for s in &st.objects {
            schemas.push(schema_oid(ctx, bind::str_val(s).unwrap_or_default())?);
        }
        match objtype {
            ObjectType::ObjectTable => {
                for t in ctx.catalog.tables() {
                    if t.persistence != nestor_catalog::Persistence::Temporary
                        && schemas.contains(&t.namespace)
                    {
                        out.push(table_target(t.oid.0, &t.name));
                    }
                }
                for v in ctx.catalog.views() {
                    if !v.temporary && schemas.contains(&v.namespace) {
                        out.push(table_target(v.oid.0, &v.name));
                    }
                }
            }
            ObjectType::ObjectSequence => {
                let seqs = ctx.catalog.sequences();
                for s in seqs.iter().filter(|s| schemas.contains(&s.namespace)) {
                    out.push(Target {
                        kind: ObjKind::Sequence,
                        oid: s.oid.0,
                        name: s.name.clone(),
                        seq_as_table: false,
                    });
                }
            }
            ObjectType::ObjectFunction
            | ObjectType::ObjectProcedure
            | ObjectType::ObjectRoutine => {
                // Functions live in public only.
                let public = schemas.contains(&PUBLIC_NAMESPACE_OID);
                for f in ctx.catalog.all_functions().into_iter().filter(|_| public) {
                    let wanted = match objtype {
                        ObjectType::ObjectFunction => !f.procedure,
                        ObjectType::ObjectProcedure => f.procedure,
                        _ => true,
                    };
                    if wanted {
                        out.push(function_target(f.oid.0, &f.name));
                    }
                }
            }
            _ => return Err(DbError::unsupported("GRANT ON ALL of this object type")),
        }
        return Ok(out);
    }
    for o in &st.objects {
        match objtype {
            ObjectType::ObjectTable | ObjectType::ObjectSequence => {
                let NodeEnum::RangeVar(rv) = node(o)? else {
                    return Err(DbError::internal("GRANT without a relation"));
                };
                let name = bind::relname(rv)?;
                let target = match ctx.catalog.relation(&name) {
                    Some(Relation::Table(t)) => table_target(t.oid.0, &t.name),
                    Some(Relation::View(v)) => table_target(v.oid.0, &v.name),
                    Some(Relation::Sequence(s)) => Target {
                        kind: ObjKind::Sequence,
                        oid: s.oid.0,
                        name: s.name.clone(),
                        seq_as_table: objtype == ObjectType::ObjectTable,
                    },
                    _ => return Err(undefined_relation(&name)),
                };
                if objtype == ObjectType::ObjectSequence && target.kind != ObjKind::Sequence {
                    return Err(DbError::new(
                        SqlState::WrongObjectType,
                        format!("\"{name}\" is not a sequence"),
                    ));
                }
                out.push(target);
            }
            ObjectType::ObjectFunction
            | ObjectType::ObjectProcedure
            | ObjectType::ObjectRoutine => {
                let NodeEnum::ObjectWithArgs(owa) = node(o)? else {
                    return Err(DbError::internal("GRANT without a function"));
                };
                let f = super::comment::function_with_args(ctx, owa)?;
                out.push(function_target(f.oid.0, &f.name));
            }
            ObjectType::ObjectSchema => {
                let name = bind::str_val(o).unwrap_or_default().to_string();
                out.push(Target {
                    kind: ObjKind::Schema,
                    oid: schema_oid(ctx, &name)?,
                    name,
                    seq_as_table: false,
                });
            }
            other => {
                return Err(DbError::unsupported(format!(
                    "GRANT on {}",
                    match other {
                        ObjectType::ObjectDatabase => "databases",
                        ObjectType::ObjectLanguage => "languages",
                        ObjectType::ObjectType => "types",
                        ObjectType::ObjectDomain => "domains",
                        ObjectType::ObjectTablespace => "tablespaces",
                        ObjectType::ObjectLargeobject => "large objects",
                        ObjectType::ObjectFdw | ObjectType::ObjectForeignServer => {
                            "foreign-data objects"
                        }
                        _ => "this object type",
                    }
                )))
            }
        }
    }
    Ok(out)
}

fn table_target(oid: u32, name: &str) -> Target {
    Target {
        kind: ObjKind::Table,
        oid,
        name: name.to_string(),
        seq_as_table: false,
    }
}

fn function_target(oid: u32, name: &str) -> Target {
    Target {
        kind: ObjKind::Function,
        oid,
        name: name.to_string(),
        seq_as_table: false,
    }
}

/// One privilege a GRANT lists: its keyword, bit and column list (empty:
/// the privilege on the object itself). `ALL (a, b)` is every column
/// privilege.
pub(super) struct Listed {
    pub word: String,
    pub bit: u16,
    pub cols: Vec<String>,
}

/// The privileges a GRANT lists (ALL: None).
pub(super) fn listed_privileges(st: &pb::GrantStmt) -> Result<Option<Vec<Listed>>, DbError> {
    if st.privileges.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for p in &st.privileges {
        let NodeEnum::AccessPriv(ap) = node(p)? else {
            return Err(DbError::internal("expected a privilege"));
        };
        let cols: Vec<String> = ap
            .cols
            .iter()
            .filter_map(bind::str_val)
            .map(str::to_string)
            .collect();
        if ap.priv_name.is_empty() {
            // ALL PRIVILEGES (col, ...).
            out.push(Listed {
                word: "ALL".into(),
                bit: acl::COLUMN_ALL,
                cols,
            });
            continue;
        }
        let word = ap.priv_name.to_ascii_lowercase();
        let bit = acl::privilege_bit(&word).ok_or_else(|| {
            DbError::new(
                SqlState::SyntaxError,
                format!("unrecognized privilege type \"{word}\""),
            )
        })?;
        out.push(Listed {
            word: word.to_uppercase(),
            bit,
            cols,
        });
    }
    Ok(Some(out))
}

/// The grantee OIDs (PUBLIC is 0).
pub(super) fn grantees(ctx: &StatementCtx, st: &pb::GrantStmt) -> Result<Vec<u32>, DbError> {
    let mut out = Vec::new();
    for g in &st.grantees {
        let NodeEnum::RoleSpec(rs) = node(g)? else {
            return Err(DbError::internal("expected a grantee"));
        };
        let oid = match pb::RoleSpecType::try_from(rs.roletype) {
            Ok(pb::RoleSpecType::RolespecPublic) => 0,
            _ => super::role::resolve(ctx, rs)?.oid.0,
        };
        out.push(oid);
    }
    Ok(out)
}

/// What one GRANT or REVOKE does to each grantee.
struct Edit<'a> {
    grantees: &'a [u32],
    is_grant: bool,
    grant_option: bool,
    cascade: bool,
}

/// GRANT / REVOKE privileges ON objects.
pub fn grant(ctx: &mut StatementCtx, st: &pb::GrantStmt) -> Result<CommandTag, DbError> {
    let objtype = ObjectType::try_from(st.objtype).unwrap_or(ObjectType::Undefined);
    let listed = listed_privileges(st)?;
    // What the statement's kind allows, and what it asks for.
    let stmt_kind = match objtype {
        ObjectType::ObjectSequence => ObjKind::Sequence,
        ObjectType::ObjectFunction | ObjectType::ObjectProcedure | ObjectType::ObjectRoutine => {
            ObjKind::Function
        }
        ObjectType::ObjectSchema => ObjKind::Schema,
        _ => ObjKind::Table,
    };
    let (on_cols, on_object): (Vec<&Listed>, Vec<&Listed>) =
        listed.iter().flatten().partition(|l| !l.cols.is_empty());
    check_column_privileges(stmt_kind, &on_cols)?;
    let targets = targets(ctx, st)?;
    let grantees = grantees(ctx, st)?;
    if st.grantor.is_some() {
        return Err(DbError::unsupported("GRANTED BY"));
    }
    let edit = Edit {
        grantees: &grantees,
        is_grant: st.is_grant,
        grant_option: st.grant_option,
        cascade: st.behavior == pb::DropBehavior::DropCascade as i32,
    };
    for t in targets {
        let mut privs = match &listed {
            None => t.kind.all(),
            Some(_) => {
                let mut bits = 0;
                // GRANT ... ON [TABLE] takes a sequence's privileges too
                // (ExecuteGrantStmt's OBJECT_TABLE); a table refuses them
                // below.
                let stmt_all = match stmt_kind {
                    ObjKind::Table => ObjKind::Table.all() | ObjKind::Sequence.all(),
                    k => k.all(),
                };
                for l in &on_object {
                    if stmt_all & l.bit == 0 {
                        let what = match stmt_kind {
                            ObjKind::Table => "relation",
                            k => kind_word(k),
                        };
                        return Err(DbError::new(
                            SqlState::InvalidGrantOperation,
                            format!("invalid privilege type {} for {what}", l.word),
                        ));
                    }
                    bits |= l.bit;
                    if t.kind == ObjKind::Table && ObjKind::Table.all() & l.bit == 0 {
                        return Err(DbError::new(
                            SqlState::InvalidGrantOperation,
                            format!("invalid privilege type {} for table", l.word),
                        ));
                    }
                }
                bits
            }
        };
        if t.seq_as_table && privs & !ObjKind::Sequence.all() != 0 {
            if listed.is_some() {
                warning(
                    ctx,
                    format!(
                        "sequence \"{}\" only supports USAGE, SELECT, and UPDATE privileges",
                        t.name
                    ),
                );
            }
            privs &= ObjKind::Sequence.all();
        }
        if listed.is_none() || !on_object.is_empty() {
            apply(ctx, &t, privs, &edit)?;
        }
        if !on_cols.is_empty() {
            apply_columns(ctx, &t, &on_cols, &edit)?;
        }
    }
    Ok(CommandTag::Plain(if st.is_grant {
        "GRANT"
    } else {
        "REVOKE"
    }))
}

/// Column lists are for relations, and for the column privileges.
fn check_column_privileges(stmt_kind: ObjKind, on_cols: &[&Listed]) -> Result<(), DbError> {
    if on_cols.is_empty() {
        return Ok(());
    }
    if stmt_kind != ObjKind::Table {
        return Err(DbError::new(
            SqlState::InvalidGrantOperation,
            "column privileges are only valid for relations",
        ));
    }
    match on_cols.iter().find(|l| acl::COLUMN_ALL & l.bit == 0) {
        Some(l) => Err(DbError::new(
            SqlState::InvalidGrantOperation,
            format!("invalid privilege type {} for column", l.word),
        )),
        None => Ok(()),
    }
}

/// Grant or revoke `privs` on one object for the grantees. Revoking a
/// table's privileges revokes them from its columns too (PostgreSQL's
/// ExecGrant_Relation).
fn apply(ctx: &mut StatementCtx, t: &Target, privs: u16, edit: &Edit) -> Result<(), DbError> {
    let mut current = ctx.catalog.acl(t.kind, t.oid);
    let mut items = current.effective(t.kind);
    let Some((grantor, privs)) = grantor_for(ctx, t, &items, privs, edit.is_grant, None)? else {
        return Ok(());
    };
    edit_items(&mut items, privs, grantor, edit)?;
    let col_privs = privs & acl::COLUMN_ALL;
    if !edit.is_grant && col_privs != 0 {
        for (attnum, col) in std::mem::take(&mut current.cols) {
            let mut col = col;
            edit_items(&mut col, col_privs, grantor, edit)?;
            current.set_column(attnum, col);
        }
    }
    set_acl(
        ctx,
        t.kind,
        t.oid,
        ObjAcl {
            owner: current.owner,
            acl: Some(items),
            cols: current.cols,
        },
    )
}

/// Grant or revoke privileges on columns of one relation (PostgreSQL's
/// ExecGrant_Attribute): each column's ACL starts empty; the grantor is
/// chosen over the table's and the column's ACLs together.
fn apply_columns(
    ctx: &mut StatementCtx,
    t: &Target,
    listed: &[&Listed],
    edit: &Edit,
) -> Result<(), DbError> {
    if t.kind != ObjKind::Table {
        return Err(DbError::unsupported("column privileges on sequences"));
    }
    let columns = privilege::relation_columns(ctx.catalog, t.oid).unwrap_or_default();
    // Each column once, with the privileges listed for it.
    let mut wanted: Vec<(i16, String, u16)> = Vec::new();
    for l in listed {
        for name in &l.cols {
            let Some((attnum, _)) = columns.iter().find(|(_, n)| n == name) else {
                return Err(DbError::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{name}\" of relation \"{}\" does not exist",
                        t.name
                    ),
                ));
            };
            match wanted.iter_mut().find(|w| w.0 == *attnum) {
                Some(w) => w.2 |= l.bit,
                None => wanted.push((*attnum, name.clone(), l.bit)),
            }
        }
    }
    let mut current = ctx.catalog.acl(t.kind, t.oid);
    let table_items = current.effective(t.kind);
    for (attnum, name, privs) in wanted {
        let mut items = current.column(attnum).to_vec();
        let merged: Vec<AclItem> = table_items.iter().chain(&items).copied().collect();
        let col = Some(name.as_str());
        let Some((grantor, privs)) = grantor_for(ctx, t, &merged, privs, edit.is_grant, col)?
        else {
            continue;
        };
        edit_items(&mut items, privs, grantor, edit)?;
        current.set_column(attnum, items);
    }
    set_acl(ctx, t.kind, t.oid, current)
}

/// The grantor of `privs` and what it may grant of them: the owner when
/// the role owns the object, else the role (itself, or one whose
/// privileges it has) holding the most of them WITH GRANT OPTION in
/// `items` (PostgreSQL's select_best_grantor). None (after a warning):
/// nothing to do. `col`: the column granted on, for the messages.
fn grantor_for(
    ctx: &mut StatementCtx,
    t: &Target,
    items: &[AclItem],
    mut privs: u16,
    is_grant: bool,
    col: Option<&str>,
) -> Result<Option<(u32, u16)>, DbError> {
    let role = ctx.role.oid;
    if privilege::owns(ctx, t.kind, t.oid) {
        return Ok(Some((ctx.catalog.acl(t.kind, t.oid).owner.0, privs)));
    }
    let what = match col {
        Some(c) => format!("column \"{c}\" of relation \"{}\"", t.name),
        None => format!("\"{}\"", t.name),
    };
    let mine =
        |i: &&AclItem| i.grantee != 0 && ctx.catalog.has_privs_of_role(role, RelId(i.grantee));
    // Anything held at all (PUBLIC's too), else 42501.
    let held: u16 = items
        .iter()
        .filter(|i| i.grantee == 0 || mine(i))
        .fold(0, |a, i| a | i.privs);
    if held == 0 {
        return Err(match col {
            Some(_) => DbError::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied for {what}"),
            ),
            None => denied(t.kind, &t.name),
        });
    }
    let best = items
        .iter()
        .filter(mine)
        .max_by_key(|i| ((i.grant_option & privs).count_ones(), i.grantee == role.0))
        .map(|i| (i.grantee, i.grant_option))
        .unwrap_or((role.0, 0));
    let options = best.1;
    let code = if is_grant {
        SqlState::PrivilegeNotGranted
    } else {
        SqlState::PrivilegeNotRevoked
    };
    if options & privs == 0 {
        let verb = if is_grant {
            "were granted"
        } else {
            "could be revoked"
        };
        warning_code(ctx, code, format!("no privileges {verb} for {what}"));
        return Ok(None);
    }
    if options & privs != privs {
        let word = if is_grant { "granted" } else { "revoked" };
        warning_code(
            ctx,
            code,
            format!("not all privileges were {word} for {what}"),
        );
        privs &= options;
    }
    Ok(Some((best.0, privs)))
}

/// Grant or revoke `privs` from `grantor` for each grantee in one ACL
/// (PostgreSQL's merge_acl_with_grant and recursive_revoke).
fn edit_items(
    items: &mut Vec<AclItem>,
    privs: u16,
    grantor: u32,
    edit: &Edit,
) -> Result<(), DbError> {
    for &g in edit.grantees {
        if edit.is_grant {
            let add = AclItem {
                grantee: g,
                grantor,
                privs,
                grant_option: if edit.grant_option { privs } else { 0 },
            };
            acl::merge_item(items, add);
            continue;
        }
        if let Some(i) = items
            .iter_mut()
            .find(|i| i.grantee == g && i.grantor == grantor)
        {
            if !edit.grant_option {
                i.privs &= !privs;
            }
            i.grant_option &= !privs;
            i.grant_option &= i.privs;
        }
        // Grants the grantee made with the option it no longer has.
        let options_left: u16 = items
            .iter()
            .filter(|i| i.grantee == g)
            .fold(0, |a, i| a | i.grant_option);
        let lost = privs & !options_left;
        if g != 0 && lost != 0 && items.iter().any(|i| i.grantor == g && i.privs & lost != 0) {
            if !edit.cascade {
                return Err(DbError::new(
                    SqlState::DependentObjectsStillExist,
                    "dependent privileges exist",
                )
                .with_hint("Use CASCADE to revoke them too."));
            }
            for i in items.iter_mut().filter(|i| i.grantor == g) {
                i.privs &= !lost;
                i.grant_option &= i.privs;
            }
        }
        items.retain(|i| i.privs != 0);
    }
    Ok(())
}

pub(super) fn set_acl(
    ctx: &mut StatementCtx,
    kind: ObjKind,
    oid: u32,
    a: ObjAcl,
) -> Result<(), DbError> {
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::SetAcl {
            key: (kind.class(), oid),
            acl: Some(a),
        },
    )
}

/// Give an object a new owner: its ACL's entries for the old owner become
/// the new owner's (PostgreSQL's aclnewowner). The caller checked the
/// rules.
pub(crate) fn set_owner(
    ctx: &mut StatementCtx,
    kind: ObjKind,
    oid: u32,
    owner: RelId,
) -> Result<(), DbError> {
    let current = ctx.catalog.acl(kind, oid);
    if current.owner == owner {
        return Ok(());
    }
    let old = current.owner.0;
    let new_owner = |items: Vec<AclItem>| {
        let mut out: Vec<AclItem> = Vec::new();
        for mut i in items {
            if i.grantee == old {
                i.grantee = owner.0;
            }
            if i.grantor == old {
                i.grantor = owner.0;
            }
            acl::merge_item(&mut out, i);
        }
        out
    };
    let cols = current
        .cols
        .into_iter()
        .map(|(attnum, items)| (attnum, new_owner(items)))
        .collect();
    let acl = current.acl.map(new_owner);
    set_acl(ctx, kind, oid, ObjAcl { owner, acl, cols })
}

/// ALTER ... OWNER TO role: the current role must own the object and be a
/// member of the new owner (superusers may do anything).
pub(crate) fn change_owner(
    ctx: &mut StatementCtx,
    kind: ObjKind,
    oid: u32,
    word: &str,
    name: &str,
    spec: &pb::RoleSpec,
) -> Result<(), DbError> {
    let new = super::role::resolve(ctx, spec)?;
    if !ctx.role.superuser {
        privilege::require_owner(ctx, kind, oid, word, name)?;
        if !ctx.catalog.is_member_of(ctx.role.oid, new.oid) {
            return Err(DbError::new(
                SqlState::InsufficientPrivilege,
                format!("must be member of role \"{}\"", new.name),
            ));
        }
    }
    set_owner(ctx, kind, oid, new.oid)
}

/// The objects a CREATE statement's name designates now (a table with
/// its serial sequences, a view, a sequence, the functions of that name).
pub(crate) fn created_objects(ctx: &StatementCtx, n: &NodeEnum) -> Vec<(ObjKind, u32)> {
    let rel = |rv: Option<&pb::RangeVar>| rv.and_then(|r| bind::relname(r).ok());
    let name = match n {
        NodeEnum::CreateStmt(cs) => rel(cs.relation.as_ref()),
        NodeEnum::CreateTableAsStmt(cs) => cs.into.as_ref().and_then(|i| rel(i.rel.as_ref())),
        NodeEnum::ViewStmt(vs) => rel(vs.view.as_ref()),
        NodeEnum::CreateSeqStmt(cs) => rel(cs.sequence.as_ref()),
        NodeEnum::CreateFunctionStmt(_) | NodeEnum::DefineStmt(_) => {
            let names = match n {
                NodeEnum::CreateFunctionStmt(cf) => &cf.funcname,
                NodeEnum::DefineStmt(ds) => &ds.defnames,
                _ => return Vec::new(),
            };
            let name = bind::names(names).pop().unwrap_or_default();
            return ctx
                .catalog
                .functions(&name)
                .iter()
                .map(|f| (ObjKind::Function, f.oid.0))
                .collect();
        }
        _ => None,
    };
    let Some(name) = name else { return Vec::new() };
    match ctx.catalog.relation(&name) {
        Some(Relation::Table(t)) => {
            let mut out = vec![(ObjKind::Table, t.oid.0)];
            for s in &t.owned_sequences {
                if let Some(seq) = ctx.catalog.sequence(&ctx.catalog.qualify(t.namespace, s)) {
                    out.push((ObjKind::Sequence, seq.oid.0));
                }
            }
            out
        }
        Some(Relation::View(v)) => vec![(ObjKind::Table, v.oid.0)],
        Some(Relation::Sequence(s)) => vec![(ObjKind::Sequence, s.oid.0)],
        _ => Vec::new(),
    }
}

/// After a CREATE by a role other than the bootstrap superuser: the role
/// owns what the statement created (`before`: what the name designated
/// before it ran, kept as it was: CREATE OR REPLACE keeps the owner).
pub(crate) fn record_owner(
    ctx: &mut StatementCtx,
    n: &NodeEnum,
    before: &[(ObjKind, u32)],
) -> Result<(), DbError> {
    if ctx.role.oid.0 == BOOTSTRAP_SUPERUSER_OID {
        return Ok(());
    }
    let role = ctx.role.oid;
    for (kind, oid) in created_objects(ctx, n) {
        if !before.contains(&(kind, oid)) {
            set_owner(ctx, kind, oid, role)?;
        }
    }
    Ok(())
}

/// ALTER TABLE/VIEW/SEQUENCE ... OWNER TO: a table's serial sequences
/// follow it; an index's owner is its table's (PostgreSQL warns and does
/// nothing).
pub(crate) fn change_relation_owner(
    ctx: &mut StatementCtx,
    name: &str,
    spec: &pb::RoleSpec,
) -> Result<(), DbError> {
    match ctx.catalog.relation(name) {
        Some(Relation::Table(t)) => {
            change_owner(ctx, ObjKind::Table, t.oid.0, "table", name, spec)?;
            let owner = ctx.catalog.acl(ObjKind::Table, t.oid.0).owner;
            for s in &t.owned_sequences {
                if let Some(seq) = ctx.catalog.sequence(&ctx.catalog.qualify(t.namespace, s)) {
                    set_owner(ctx, ObjKind::Sequence, seq.oid.0, owner)?;
                }
            }
            Ok(())
        }
        Some(Relation::View(v)) => change_owner(ctx, ObjKind::Table, v.oid.0, "view", name, spec),
        Some(Relation::Sequence(s)) => {
            change_owner(ctx, ObjKind::Sequence, s.oid.0, "sequence", name, spec)
        }
        Some(Relation::Index { .. }) => {
            warning(ctx, format!("cannot change owner of index \"{name}\""));
            Ok(())
        }
        None => Ok(()),
    }
}

/// The relation a name designates, as (kind, oid, word for messages).
fn relation_of(ctx: &StatementCtx, name: &str) -> Option<(ObjKind, u32, &'static str)> {
    Some(match ctx.catalog.relation(name)? {
        Relation::Table(t) => (ObjKind::Table, t.oid.0, "table"),
        Relation::View(v) => (ObjKind::Table, v.oid.0, "view"),
        Relation::Sequence(s) => (ObjKind::Sequence, s.oid.0, "sequence"),
        Relation::Index { table, .. } => (ObjKind::Table, table.oid.0, "index"),
    })
}

fn require_relation_owner(ctx: &StatementCtx, name: &str) -> Result<(), DbError> {
    match relation_of(ctx, name) {
        Some((kind, oid, word)) => privilege::require_owner(ctx, kind, oid, word, name),
        // Not there: the statement reports it.
        None => Ok(()),
    }
}

/// The privilege checks of DDL run by a role that is not a superuser.
pub(crate) fn check_ddl(ctx: &StatementCtx, n: &NodeEnum, text: &str) -> Result<(), DbError> {
    let create_in = |rv: Option<&pb::RangeVar>| -> Result<(), DbError> {
        let temp = rv.is_some_and(|r| r.relpersistence == "t");
        let at = rv.map_or(-1, |r| r.location);
        let schema = rv.map_or("", |r| r.schemaname.as_str());
        create_in_schema(ctx, schema, temp).map_err(|e| nestor_parser::ast::err_at(e, text, at))
    };
    check_ddl_in(ctx, n, &create_in)
}

/// CREATE in `public` (a TEMP object needs nothing here).
fn create_in_public(ctx: &StatementCtx, temp: bool) -> Result<(), DbError> {
    create_in_schema(ctx, "public", temp)
}

/// CREATE in the schema a new relation goes to (`schema` as written;
/// empty: the search path's first). A schema that does not exist is
/// left for the statement to report.
fn create_in_schema(ctx: &StatementCtx, schema: &str, temp: bool) -> Result<(), DbError> {
    if temp {
        return Ok(());
    }
    let Ok(oid) = ctx.catalog.creation_namespace(schema) else {
        return Ok(());
    };
    let may = privilege::allowed(ctx.catalog, ctx.role.oid, ObjKind::Schema, oid, acl::CREATE);
    if may {
        return Ok(());
    }
    let name = ctx.catalog.schema_name(oid).unwrap_or_default();
    Err(denied(ObjKind::Schema, &name))
}

fn check_ddl_in(
    ctx: &StatementCtx,
    n: &NodeEnum,
    create_in: &dyn Fn(Option<&pb::RangeVar>) -> Result<(), DbError>,
) -> Result<(), DbError> {
    let rel = |rv: Option<&pb::RangeVar>| rv.and_then(|r| bind::relname(r).ok());
    match n {
        NodeEnum::CreateStmt(cs) => create_in(cs.relation.as_ref()),
        NodeEnum::CreateTableAsStmt(cs) => create_in(cs.into.as_ref().and_then(|i| i.rel.as_ref())),
        NodeEnum::ViewStmt(vs) => create_in(vs.view.as_ref()),
        NodeEnum::CreateSeqStmt(cs) => create_in(cs.sequence.as_ref()),
        NodeEnum::CreateFunctionStmt(_) => create_in_public(ctx, false),
        NodeEnum::IndexStmt(is) => match rel(is.relation.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::ReindexStmt(st) => match rel(st.relation.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::AlterTableStmt(at) => match rel(at.relation.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::RefreshMatViewStmt(st) => match rel(st.relation.as_ref()) {
            Some(name) => match ctx.catalog.table(&name) {
                Some(t) => privilege::require_owner(
                    ctx,
                    ObjKind::Table,
                    t.oid.0,
                    "materialized view",
                    &name,
                ),
                None => Ok(()),
            },
            None => Ok(()),
        },
        NodeEnum::AlterSeqStmt(st) => match rel(st.sequence.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::RuleStmt(r) => match rel(r.relation.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::CreatePolicyStmt(p) => match rel(p.table.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::AlterPolicyStmt(p) => match rel(p.table.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::RenameStmt(rs) => match rel(rs.relation.as_ref()) {
            Some(name) => require_relation_owner(ctx, &name),
            None => Ok(()),
        },
        NodeEnum::CreateTrigStmt(ct) => {
            let Some(name) = rel(ct.relation.as_ref()) else {
                return Ok(());
            };
            match relation_of(ctx, &name) {
                Some((kind, oid, _))
                    if !privilege::allowed(ctx.catalog, ctx.role.oid, kind, oid, acl::TRIGGER) =>
                {
                    Err(denied(kind, &name))
                }
                _ => Ok(()),
            }
        }
        NodeEnum::TruncateStmt(ts) => {
            for r in &ts.relations {
                if let NodeEnum::RangeVar(rv) = node(r)? {
                    let name = bind::relname(rv)?;
                    if let Some((kind, oid, _)) = relation_of(ctx, &name) {
                        if !privilege::allowed(ctx.catalog, ctx.role.oid, kind, oid, acl::TRUNCATE)
                        {
                            return Err(denied(kind, &name));
                        }
                    }
                }
            }
            Ok(())
        }
        NodeEnum::DropStmt(ds) => check_drop(ctx, ds),
        NodeEnum::CreateEnumStmt(_)
        | NodeEnum::CreateDomainStmt(_)
        | NodeEnum::CompositeTypeStmt(_)
        | NodeEnum::DefineStmt(_) => create_in_public(ctx, false),
        _ => Ok(()),
    }
}

fn check_drop(ctx: &StatementCtx, ds: &pb::DropStmt) -> Result<(), DbError> {
    let kind = ObjectType::try_from(ds.remove_type).unwrap_or(ObjectType::Undefined);
    for o in &ds.objects {
        match kind {
            ObjectType::ObjectTable
            | ObjectType::ObjectView
            | ObjectType::ObjectSequence
            | ObjectType::ObjectIndex => {
                let parts = match node(o)? {
                    NodeEnum::List(l) => bind::names(&l.items),
                    _ => continue,
                };
                let name = match parts.as_slice() {
                    [.., s, n] if s != "public" && s != "pg_catalog" => format!("{s}.{n}"),
                    [.., n] => n.clone(),
                    [] => continue,
                };
                require_relation_owner(ctx, &name)?;
            }
            ObjectType::ObjectPolicy => {
                if let NodeEnum::List(l) = node(o)? {
                    let parts = bind::names(&l.items);
                    if let [.., rel, _] = parts.as_slice() {
                        if let Some(t) = ctx.catalog.table(rel) {
                            privilege::require_owner(
                                ctx,
                                ObjKind::Table,
                                t.oid.0,
                                "relation",
                                rel,
                            )?;
                        }
                    }
                }
            }
            ObjectType::ObjectRule => {
                if let NodeEnum::List(l) = node(o)? {
                    let parts = bind::names(&l.items);
                    if let [.., rel, _] = parts.as_slice() {
                        if ctx.catalog.relation(rel).is_some() {
                            require_relation_owner(ctx, rel)?;
                        }
                    }
                }
            }
            ObjectType::ObjectFunction
            | ObjectType::ObjectProcedure
            | ObjectType::ObjectRoutine
            | ObjectType::ObjectAggregate => {
                if let NodeEnum::ObjectWithArgs(owa) = node(o)? {
                    if let Ok(f) = super::comment::function_with_args(ctx, owa) {
                        let word = match (f.procedure, &f.aggregate) {
                            (true, _) => "procedure",
                            (false, Some(_)) => "aggregate",
                            (false, None) => "function",
                        };
                        privilege::require_owner(ctx, ObjKind::Function, f.oid.0, word, &f.name)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Owners the role `oid` has and grants it holds, for DROP ROLE's 2BP01
/// (objects that still exist only).
pub(crate) fn dependents_of_role(ctx: &StatementCtx, oid: RelId) -> Vec<String> {
    let mut out = Vec::new();
    let mut acls = ctx.catalog.acls();
    // PostgreSQL's order: schemas, then relations and functions by OID.
    acls.sort_by_key(|((class, obj), _)| (std::cmp::Reverse(*class), *obj));
    for ((class, obj), a) in acls {
        let Some(what) = object_description(ctx, class, obj) else {
            continue;
        };
        if a.owner == oid {
            // The owner's own entries are part of owning it.
            out.push(format!("owner of {what}"));
            continue;
        }
        let names = |items: &[AclItem]| {
            items
                .iter()
                .any(|i| i.grantee == oid.0 || i.grantor == oid.0)
        };
        if a.acl.as_deref().is_some_and(names) {
            out.push(format!("privileges for {what}"));
        }
        // Its column privileges, by attribute number.
        let columns = privilege::relation_columns(ctx.catalog, obj).unwrap_or_default();
        for (attnum, items) in &a.cols {
            let column = columns.iter().find(|(n, _)| n == attnum);
            if let (Some((_, col)), true) = (column, names(items)) {
                out.push(format!("privileges for column {col} of {what}"));
            }
        }
    }
    // Default privileges after the schemas and before the objects
    // (PostgreSQL lists dependencies in the order they were recorded, and
    // that is the usual order of a setup script): the role's own, and
    // those naming it.
    let mut defaults = ctx.catalog.default_acls();
    defaults.sort_by_key(|((role, schema, letter), _)| {
        let kind = b"rSfTn".iter().position(|l| l == letter);
        (*role, kind, *schema)
    });
    let mut first = Vec::new();
    for (key, items) in defaults {
        let what = super::default_acl::describe(ctx, key);
        if key.0 == oid.0 {
            first.push(format!("owner of {what}"));
        } else if items
            .iter()
            .any(|i| i.grantee == oid.0 || i.grantor == oid.0)
        {
            first.push(format!("privileges for {what}"));
        }
    }
    let schemas = out
        .iter()
        .take_while(|d| d.ends_with("schema public"))
        .count();
    out.splice(schemas..schemas, first);
    // Enum types keep their owner in their definition, not in the ACLs.
    let mut types = ctx.catalog.enum_types();
    types.sort_by_key(|e| e.oid);
    out.extend(
        types
            .iter()
            .filter(|e| e.owner == oid.0)
            .map(|e| format!("owner of type {}", e.name)),
    );
    // So do domains and composite types.
    let mut others: Vec<(u32, String)> = ctx
        .catalog
        .domains()
        .iter()
        .filter(|d| d.owner == oid.0)
        .map(|d| (d.oid, d.name.clone()))
        .chain(
            ctx.catalog
                .composites()
                .iter()
                .filter(|c| c.owner == oid.0)
                .map(|c| (c.oid, c.name.clone())),
        )
        .collect();
    others.sort();
    out.extend(
        others
            .into_iter()
            .map(|(_, n)| format!("owner of type {n}")),
    );
    // Policies whose TO list names it (PostgreSQL's shared dependency of
    // type "policy").
    let mut tables = ctx.catalog.tables();
    tables.sort_by_key(|t| t.oid);
    for t in tables {
        for p in &t.row_security.policies {
            if p.roles.contains(&oid.0) {
                out.push(format!("target of policy {} on table {}", p.name, t.name));
            }
        }
    }
    out
}

fn object_description(ctx: &StatementCtx, class: u32, oid: u32) -> Option<String> {
    match class {
        acl::CLASS_RELATION => {
            if let Some(t) = ctx.catalog.table_by_oid(RelId(oid)) {
                return Some(format!("table {}", t.name));
            }
            if let Some(s) = ctx.catalog.sequence_by_oid(RelId(oid)) {
                return Some(format!("sequence {}", s.name));
            }
            ctx.catalog
                .views()
                .into_iter()
                .find(|v| v.oid.0 == oid)
                .map(|v| format!("view {}", v.name))
        }
        acl::CLASS_PROC => ctx
            .catalog
            .function_by_oid(RelId(oid))
            .map(|f| format!("function {}", f.signature())),
        acl::CLASS_NAMESPACE => (oid == PUBLIC_NAMESPACE_OID).then(|| "schema public".to_string()),
        _ => None,
    }
}
