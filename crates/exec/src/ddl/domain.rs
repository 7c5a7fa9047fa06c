//! CREATE DOMAIN, ALTER DOMAIN and DROP DOMAIN.
//!
//! A domain is a base type with a default and constraints (NOT NULL,
//! CHECKs over `VALUE`). Each statement builds the domain's new
//! [`DomainDef`] and applies it as a `Change::PutDomain` (a drop as
//! `Change::DropDomain`), so it is undone by ROLLBACK and logged at COMMIT
//! like any schema change; the catalog keeps the type-name registry in
//! step (`nestor_catalog::domain`). Where the constraints are enforced is
//! the binder's business (`nestor_plan::bind::domain`): casts to the
//! domain and writes of columns declared with it. Checks and messages
//! follow PostgreSQL's typecmds.c:
//!
//! ```text
//!   CREATE DOMAIN posint AS int CHECK (VALUE > 0)   array 16390, type 16391,
//!                                                   check posint_check 16392
//!   CREATE TABLE t (p posint); INSERT INTO t VALUES (5);
//!   ALTER DOMAIN posint ADD CHECK (VALUE < 5)
//!     23514 column "p" of table "t" contains values that violate the new constraint
//!   ALTER DOMAIN posint ADD CHECK (VALUE < 5) NOT VALID    (stored, not checked)
//!   DROP DOMAIN posint    2BP01 column p of table t depends on type posint
//!   DROP DOMAIN posint CASCADE    NOTICE drop cascades to column p of table t
//! ```
//!
//! The stored CHECK text is PostgreSQL's deparse of the expression as
//! written with `VALUE` spelled in capitals (PostgreSQL deparses its
//! analyzed tree, so implicit casts it adds are not shown here). Existing
//! rows are checked (ADD CONSTRAINT, VALIDATE CONSTRAINT, SET NOT NULL)
//! in the statement's snapshot.
//!
//! Left out: COLLATE other than the base type's default (accepted, not
//! kept), DROP ... CASCADE of a domain a function uses when something
//! calls that function (0A000), ALTER DOMAIN ... SET SCHEMA,
//! and the tables' locks while their rows are checked (PostgreSQL takes
//! SHARE locks on them).

use std::sync::Arc;

use nestor_catalog::Change;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, domain as bdomain, node, AggCtx, Binder};
use nestor_plan::ir::Expr;
use nestor_types::domains::{DomainCheck, DomainDef};

use super::enum_type::{name_is_type, type_exists, type_name, undefined_type};
use super::notice;
use crate::context::{Ev, StatementCtx};
use crate::executor::eval::{truthy, Eval};
use crate::tag::CommandTag;

/// The domain `name` (42704 if none; 42809 for another kind of type).
fn existing(ctx: &StatementCtx, name: &str) -> Result<Arc<DomainDef>, DbError> {
    if let Some(d) = ctx.catalog.domain(name) {
        return Ok(d);
    }
    if name_is_type(ctx, name) {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("\"{name}\" is not a domain"),
        ));
    }
    Err(undefined_type(name))
}

/// 42501 unless the current role owns the type.
fn require_owner(ctx: &StatementCtx, def: &DomainDef) -> Result<(), DbError> {
    crate::privilege::require_type_owner(ctx, def.owner, &def.name)
}

/// The domain `name` for a change by its owner.
fn owned(ctx: &StatementCtx, parts: &[pb::Node]) -> Result<DomainDef, DbError> {
    let def = existing(ctx, &type_name(ctx.catalog, parts)?)?;
    require_owner(ctx, &def)?;
    Ok((*def).clone())
}

fn put(ctx: &mut StatementCtx, def: DomainDef) -> Result<(), DbError> {
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutDomain(Arc::new(def)))
}

/// DROP FUNCTION ... CASCADE of a function domain `oid`'s constraint
/// `name` calls: the constraint goes.
pub(super) fn drop_check_cascaded(
    ctx: &mut StatementCtx,
    oid: u32,
    name: &str,
) -> Result<(), DbError> {
    let Some(cur) = ctx.catalog.domains().into_iter().find(|d| d.oid == oid) else {
        return Ok(());
    };
    let mut def = (*cur).clone();
    def.checks.retain(|c| c.name != name);
    put(ctx, def)
}

fn binder<'a>(ctx: &'a StatementCtx, text: &'a str) -> Binder<'a> {
    Binder::new(
        ctx.catalog,
        ctx.eval,
        text,
        &[],
        nestor_plan::select::plan_query,
    )
}

fn contains_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Sub(_)));
    found
}

/// The SQL text of a CHECK over `VALUE`, checked to bind to a boolean
/// over a value of the base type.
fn check_text(
    ctx: &StatementCtx,
    base: nestor_types::DataType,
    expr: &Node,
) -> Result<String, DbError> {
    let text = value_upper(&nestor_parser::deparse_expr(expr)?);
    let mut b = binder(ctx, &text);
    b.scopes.push(bdomain::value_scope(base, 1, 0));
    b.outer_refs.push(None);
    b.agg = AggCtx::NotAllowed("check constraints");
    let e = b.bind_bool(expr, "CHECK")?;
    if contains_subquery(&e) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot use subquery in check constraint",
        ));
    }
    Ok(text)
}

/// `value` spelled `VALUE` outside string literals and quoted names, as
/// PostgreSQL prints a domain's CHECK.
fn value_upper(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            i = (i + 1).min(b.len());
            out.push_str(&s[start..i]);
            continue;
        }
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        if ident(c) {
            let start = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            let w = &s[start..i];
            out.push_str(if w == "value" { "VALUE" } else { w });
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

/// The DEFAULT's SQL text, checked to bind and convert to the base type.
fn default_text(
    ctx: &StatementCtx,
    base: nestor_types::DataType,
    expr: &Node,
) -> Result<String, DbError> {
    let text = nestor_parser::deparse_expr(expr)?;
    let mut b = binder(ctx, &text);
    // (Unpositioned: the tree's locations are in the statement, not in
    // `text`.)
    super::refuse_columns_and_subqueries(
        "",
        expr,
        (super::DEFAULT_EXPRESSION, super::DEFAULT_EXPRESSION),
    )?;
    b.agg = AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = b.bind(expr)?;
    b.coerce_assign(e, t, base)?;
    Ok(text)
}

/// A name for a new CHECK of `def`: `<domain>_check`, then `_check1`, ...
/// (PostgreSQL's ChooseConstraintName).
fn check_name(def: &DomainDef) -> String {
    let base = format!("{}_check", def.name);
    if def.check(&base).is_none() {
        return base;
    }
    (1..)
        .map(|i| format!("{base}{i}"))
        .find(|n| def.check(n).is_none())
        .expect("a free name")
}

fn constraint_exists(name: &str, domain: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateObject,
        format!("constraint \"{name}\" for domain \"{domain}\" already exists"),
    )
}

/// Add the CHECK `con` to `def` (its OID allocated), returning its name.
fn add_check(
    ctx: &mut StatementCtx,
    def: &mut DomainDef,
    con: &pb::Constraint,
) -> Result<String, DbError> {
    let expr = con
        .raw_expr
        .as_deref()
        .ok_or_else(|| DbError::internal("CHECK without expression"))?;
    let text = check_text(ctx, def.base, expr)?;
    let name = if con.conname.is_empty() {
        check_name(def)
    } else {
        if def.check(&con.conname).is_some() {
            return Err(constraint_exists(&con.conname, &def.name));
        }
        con.conname.clone()
    };
    def.checks.push(DomainCheck {
        oid: ctx.catalog.alloc_oid().0,
        name: name.clone(),
        expr: text,
        validated: !con.skip_validation,
    });
    Ok(name)
}

/// CREATE DOMAIN name [AS] type [COLLATE c] [DEFAULT e] [constraints].
pub fn create_domain(
    ctx: &mut StatementCtx,
    st: &pb::CreateDomainStmt,
) -> Result<CommandTag, DbError> {
    let name = type_name(ctx.catalog, &st.domainname)?;
    if name_is_type(ctx, &name) {
        return Err(type_exists(&name));
    }
    let tn = st
        .type_name
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE DOMAIN without type"))?;
    // Over another domain: its base type, its constraints kept by it.
    let parent = bdomain::domain_from_name(tn).map(|p| p.oid);
    let base = bind::type_from_name(tn)?;
    if matches!(
        base,
        nestor_types::DataType::Unknown | nestor_types::DataType::Void
    ) {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!("\"{}\" is not a valid base type for a domain", base.name()),
        ));
    }
    // PostgreSQL: the array type's OID first, then the domain's.
    let array_oid = ctx.catalog.alloc_oid().0;
    let oid = ctx.catalog.alloc_oid().0;
    let mut def = DomainDef {
        oid,
        array_oid,
        name: name.clone(),
        owner: ctx.role.oid.0,
        base,
        parent,
        default: None,
        not_null: false,
        checks: Vec::new(),
    };
    let (mut saw_null, mut saw_not_null) = (false, false);
    for c in &st.constraints {
        let NodeEnum::Constraint(con) = node(c)? else {
            continue;
        };
        match pb::ConstrType::try_from(con.contype).unwrap_or(pb::ConstrType::Undefined) {
            pb::ConstrType::ConstrNotnull | pb::ConstrType::ConstrNull => {
                let not_null = con.contype == pb::ConstrType::ConstrNotnull as i32;
                if (not_null && saw_null) || (!not_null && saw_not_null) {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "conflicting NULL/NOT NULL constraints",
                    ));
                }
                saw_null |= !not_null;
                saw_not_null |= not_null;
                def.not_null = not_null;
            }
            pb::ConstrType::ConstrDefault => {
                if def.default.is_some() {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "multiple default expressions",
                    ));
                }
                let expr = con
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| DbError::internal("DEFAULT without expression"))?;
                def.default = Some(default_text(ctx, base, expr)?);
            }
            pb::ConstrType::ConstrCheck => {
                if con.skip_validation {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "check constraints for domains cannot be marked NOT VALID",
                    ));
                }
                add_check(ctx, &mut def, con)?;
            }
            pb::ConstrType::ConstrUnique => return Err(not_possible("unique constraints")),
            pb::ConstrType::ConstrPrimary => return Err(not_possible("primary key constraints")),
            pb::ConstrType::ConstrExclusion => return Err(not_possible("exclusion constraints")),
            pb::ConstrType::ConstrForeign => return Err(not_possible("foreign key constraints")),
            _ => {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    "specifying constraint deferrability not supported for domains",
                ))
            }
        }
    }
    put(ctx, def)?;
    Ok(CommandTag::Plain("CREATE DOMAIN"))
}

fn not_possible(what: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("{what} not possible for domains"),
    )
}

/// The live columns declared with the domain of pg_type OID `oid` (or
/// with its array type, `array_oid`, unless 0): (table, column position).
fn columns_of(
    ctx: &StatementCtx,
    oid: u32,
    array_oid: u32,
) -> Vec<(Arc<nestor_catalog::TableDef>, usize)> {
    let mut out = Vec::new();
    for t in ctx.catalog.tables() {
        for (i, c) in t.live_columns() {
            if c.domain == Some(oid) || (array_oid != 0 && c.domain == Some(array_oid)) {
                out.push((t.clone(), i));
            }
        }
    }
    out
}

/// How deep [`type_uses`] follows arrays, composites and domains within
/// each other (they cannot contain themselves; this only bounds work).
const USES_DEPTH: usize = 32;

/// The first live column whose values hold values of a domain of
/// `family` inside them: elements of an array, attributes of a composite
/// (at any depth, through domains over them), not the column's own.
fn column_using_inside(
    ctx: &StatementCtx,
    family: &[u32],
) -> Option<(Arc<nestor_catalog::TableDef>, usize)> {
    for t in ctx.catalog.tables() {
        for (i, c) in t.live_columns() {
            let inside = match c.domain {
                Some(d) if family.contains(&d) => false,
                Some(d) => domain_uses(d, family, 0),
                None => type_uses(c.ty, family, 0),
            };
            if inside {
                return Some((t.clone(), i));
            }
        }
    }
    None
}

/// Whether values of the domain (or array of a domain) of pg_type OID
/// `oid` hold values of a domain of `family`.
fn domain_uses(oid: u32, family: &[u32], depth: usize) -> bool {
    let def =
        nestor_types::domains::lookup(oid).or_else(|| nestor_types::domains::lookup_array(oid));
    def.is_some_and(|d| family.contains(&d.oid) || type_uses(d.base, family, depth + 1))
}

/// Whether values of type `ty` hold values of a domain of `family`.
fn type_uses(ty: nestor_types::DataType, family: &[u32], depth: usize) -> bool {
    use nestor_types::DataType;
    if depth > USES_DEPTH {
        return false;
    }
    match ty {
        DataType::Array(e) => type_uses(*e, family, depth + 1),
        DataType::Record(rt) if rt.oid != 0 => nestor_types::composites::lookup(rt.oid)
            .is_some_and(|c| {
                c.attrs
                    .iter()
                    .enumerate()
                    .any(|(i, (_, aty))| match c.attr_domain(i) {
                        Some(d) => domain_uses(d, family, depth + 1),
                        None => type_uses(*aty, family, depth + 1),
                    })
            }),
        _ => false,
    }
}

/// Every stored value of the domain's columns must pass `def`'s NOT NULL
/// (when `not_null`) and the CHECKs named `checks`.
fn verify_columns(
    ctx: &mut StatementCtx,
    def: &DomainDef,
    not_null: bool,
    checks: &[&str],
) -> Result<(), DbError> {
    let snap = ctx.snapshot;
    // As PostgreSQL: columns of the domain and of domains over it, not of
    // arrays of it.
    let family: Vec<u32> = ctx
        .catalog
        .domains()
        .iter()
        .filter(|d| {
            nestor_types::domains::lineage(d)
                .iter()
                .any(|l| l.oid == def.oid)
        })
        .map(|d| d.oid)
        .chain(std::iter::once(def.oid))
        .collect();
    // PostgreSQL cannot check values of the domain inside stored arrays
    // or composites (typecmds.c, find_composite_type_dependencies).
    if let Some((t, col)) = column_using_inside(ctx, &family) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "cannot alter type \"{}\" because column \"{}.{}\" uses it",
                def.name, t.name, t.columns[col].name
            ),
        ));
    }
    let columns = family
        .iter()
        .flat_map(|&o| columns_of(ctx, o, 0))
        .collect::<Vec<_>>();
    for (t, col) in columns {
        let mut only = def.clone();
        only.parent = None;
        only.not_null = false;
        only.checks.retain(|c| checks.contains(&c.name.as_str()));
        let bound = bdomain::bind_domain_checks(
            ctx.catalog,
            ctx.eval,
            nestor_plan::select::plan_query,
            &only,
            t.columns.len(),
            col,
        )?;
        let rows: Vec<nestor_storage::Tuple> = t.storage.scan(&snap).collect();
        let mut ev = Ev::new(ctx, &[]);
        let cname = &t.columns[col].name;
        for tup in rows {
            let row = crate::executor::scan_row(tup, &t);
            if not_null && row[col].is_null() {
                return Err(DbError::new(
                    SqlState::NotNullViolation,
                    format!(
                        "column \"{cname}\" of table \"{}\" contains null values",
                        t.name
                    ),
                ));
            }
            for (_, c) in &bound.checks {
                if truthy(&c.eval(&row, &mut ev)?) == Some(false) {
                    return Err(DbError::new(
                        SqlState::CheckViolation,
                        format!(
                            "column \"{cname}\" of table \"{}\" contains values that violate the new constraint",
                            t.name
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// ALTER DOMAIN name { SET DEFAULT e | DROP DEFAULT | SET NOT NULL | DROP
/// NOT NULL | ADD constraint [NOT VALID] | DROP CONSTRAINT [IF EXISTS] c
/// [RESTRICT | CASCADE] | VALIDATE CONSTRAINT c }.
pub fn alter_domain(
    ctx: &mut StatementCtx,
    st: &pb::AlterDomainStmt,
) -> Result<CommandTag, DbError> {
    let mut def = owned(ctx, &st.type_name)?;
    match st.subtype.as_str() {
        // SET DEFAULT (def: the expression) / DROP DEFAULT (none).
        "T" => {
            def.default = match st.def.as_deref() {
                Some(e) => Some(default_text(ctx, def.base, e)?),
                None => None,
            };
        }
        "N" => def.not_null = false,
        "O" => {
            if !def.not_null {
                verify_columns(ctx, &def, true, &[])?;
                def.not_null = true;
            }
        }
        "C" => {
            let Some(NodeEnum::Constraint(con)) = st.def.as_deref().map(node).transpose()? else {
                return Err(DbError::internal("ADD CONSTRAINT without constraint"));
            };
            match pb::ConstrType::try_from(con.contype).unwrap_or(pb::ConstrType::Undefined) {
                pb::ConstrType::ConstrCheck => {}
                pb::ConstrType::ConstrNotnull => {
                    if !def.not_null {
                        verify_columns(ctx, &def, true, &[])?;
                        def.not_null = true;
                    }
                    put(ctx, def)?;
                    return Ok(CommandTag::Plain("ALTER DOMAIN"));
                }
                pb::ConstrType::ConstrUnique => return Err(not_possible("unique constraints")),
                pb::ConstrType::ConstrPrimary => {
                    return Err(not_possible("primary key constraints"))
                }
                pb::ConstrType::ConstrExclusion => {
                    return Err(not_possible("exclusion constraints"))
                }
                pb::ConstrType::ConstrForeign => {
                    return Err(not_possible("foreign key constraints"))
                }
                _ => {
                    return Err(DbError::new(
                        SqlState::FeatureNotSupported,
                        "specifying constraint deferrability not supported for domains",
                    ))
                }
            }
            let name = add_check(ctx, &mut def, con)?;
            if !con.skip_validation {
                verify_columns(ctx, &def, false, &[name.as_str()])?;
            }
        }
        "X" => {
            let Some(k) = def.checks.iter().position(|c| c.name == st.name) else {
                let msg = format!(
                    "constraint \"{}\" of domain \"{}\" does not exist",
                    st.name, def.name
                );
                if st.missing_ok {
                    notice(ctx, format!("{msg}, skipping"));
                    return Ok(CommandTag::Plain("ALTER DOMAIN"));
                }
                return Err(DbError::new(SqlState::UndefinedObject, msg));
            };
            def.checks.remove(k);
        }
        "V" => {
            let Some(k) = def.checks.iter().position(|c| c.name == st.name) else {
                return Err(DbError::new(
                    SqlState::UndefinedObject,
                    format!(
                        "constraint \"{}\" of domain \"{}\" does not exist",
                        st.name, def.name
                    ),
                ));
            };
            if def.checks[k].validated {
                return Ok(CommandTag::Plain("ALTER DOMAIN"));
            }
            let name = st.name.clone();
            verify_columns(ctx, &def, false, &[name.as_str()])?;
            def.checks[k].validated = true;
        }
        other => {
            return Err(DbError::unsupported(format!(
                "ALTER DOMAIN subcommand {other:?}"
            )))
        }
    }
    put(ctx, def)?;
    Ok(CommandTag::Plain("ALTER DOMAIN"))
}

/// ALTER DOMAIN name RENAME TO new.
pub fn rename_domain(ctx: &mut StatementCtx, parts: &[pb::Node], to: &str) -> Result<(), DbError> {
    let mut def = owned(ctx, parts)?;
    if name_is_type(ctx, to) {
        return Err(type_exists(to));
    }
    def.name = to.to_string();
    put(ctx, def)
}

/// ALTER DOMAIN name RENAME CONSTRAINT a TO b.
pub fn rename_domain_constraint(
    ctx: &mut StatementCtx,
    parts: &[pb::Node],
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    let mut def = owned(ctx, parts)?;
    if def.check(to).is_some() {
        return Err(constraint_exists(to, &def.name));
    }
    let domain = def.name.clone();
    let c = def
        .checks
        .iter_mut()
        .find(|c| c.name == from)
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("constraint \"{from}\" for domain \"{domain}\" does not exist"),
            )
        })?;
    c.name = to.to_string();
    put(ctx, def)
}

/// ALTER DOMAIN name OWNER TO role (the new owner must exist; a
/// non-superuser must own the domain and be a member of the new owner).
pub fn alter_domain_owner(
    ctx: &mut StatementCtx,
    parts: &[pb::Node],
    spec: &pb::RoleSpec,
) -> Result<(), DbError> {
    let mut def = owned(ctx, parts)?;
    let new = super::role::resolve(ctx, spec)?;
    if !ctx.role.superuser && !ctx.catalog.is_member_of(ctx.role.oid, new.oid) {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            format!("must be member of role \"{}\"", new.name),
        ));
    }
    def.owner = new.oid.0;
    put(ctx, def)
}

/// What depends on a dropped domain (PostgreSQL's pg_depend entries).
pub(super) enum Dependent {
    /// (table, column): a column of the domain or of its array.
    Column(String, String),
    /// A domain over it.
    Domain(String),
    /// (composite type, attribute): an attribute of the domain or of its
    /// array.
    Attribute(String, String),
    /// A function with an argument or result of it (and its signature).
    Function(Arc<nestor_catalog::FunctionDef>, String),
    /// A cast from or to it (CREATE CAST; never used, but kept).
    Cast(Arc<nestor_catalog::cast::CastDef>),
    /// A view casting to it or reading a dropped column, or a view over
    /// such a view, with PostgreSQL's reason (`view v depends on column c
    /// of table t`).
    View(Arc<nestor_catalog::ViewDef>, String),
}

impl Dependent {
    fn describe(&self) -> String {
        match self {
            Dependent::Column(t, c) => format!("column {c} of table {t}"),
            Dependent::Domain(d) => format!("type {d}"),
            Dependent::Attribute(t, a) => format!("column {a} of composite type {t}"),
            Dependent::Function(_, f) => format!("function {f}"),
            Dependent::Cast(c) => super::cast::describe(c),
            Dependent::View(v, _) => format!("view {}", v.name),
        }
    }

    /// Its DETAIL line when the DROP lacks CASCADE: what it depends on.
    fn reason(&self, on: &str) -> String {
        match self {
            Dependent::View(_, why) => why.clone(),
            d => format!("{} depends on type {on}", d.describe()),
        }
    }
}

/// The objects depending on `def` directly: (the object, the type name it
/// depends on).
fn dependents_of(ctx: &StatementCtx, def: &DomainDef) -> Result<Vec<(Dependent, String)>, DbError> {
    let mut out = Vec::new();
    for (t, col) in columns_of(ctx, def.oid, def.array_oid) {
        let ty = if t.columns[col].domain == Some(def.array_oid) {
            format!("{}[]", def.name)
        } else {
            def.name.clone()
        };
        out.push((
            Dependent::Column(t.name.clone(), t.columns[col].name.clone()),
            ty,
        ));
    }
    let mut composites = ctx.catalog.composites();
    composites.sort_by_key(|c| c.oid);
    for c in composites {
        for (i, (a, _)) in c.attrs.iter().enumerate() {
            let ty = match c.attr_domain(i) {
                Some(d) if d == def.oid => def.name.clone(),
                Some(d) if d == def.array_oid => format!("{}[]", def.name),
                _ => continue,
            };
            out.push((Dependent::Attribute(c.name.clone(), a.clone()), ty));
        }
    }
    for d in ctx.catalog.domains() {
        if d.parent == Some(def.oid) {
            out.push((Dependent::Domain(d.name.clone()), def.name.clone()));
        }
    }
    let mut functions = ctx.catalog.all_functions();
    functions.sort_by_key(|f| f.oid);
    for f in functions {
        if f.args.iter().any(|a| a.domain == Some(def.oid)) || f.result_domain == Some(def.oid) {
            let args: Vec<String> = f
                .args
                .iter()
                .map(|a| match a.domain.and_then(nestor_types::domains::lookup) {
                    Some(d) => d.name.clone(),
                    None => a.ty.to_string(),
                })
                .collect();
            let signature = format!("{}({})", f.name, args.join(","));
            out.push((Dependent::Function(f, signature), def.name.clone()));
        }
    }
    for c in super::cast::of_type(ctx, def.oid) {
        out.push((Dependent::Cast(c), def.name.clone()));
    }
    // Views casting to it, and the views over them.
    let mut seen = Vec::new();
    for v in super::view::views_naming_type(ctx, &def.name)? {
        if seen.contains(&v.oid) {
            continue;
        }
        let why = format!("view {} depends on type {}", v.name, def.name);
        for (w, line) in super::view::view_and_dependents(ctx, v, why, &mut seen) {
            out.push((Dependent::View(w, line), String::new()));
        }
    }
    Ok(out)
}

/// DROP DOMAIN [IF EXISTS] names [CASCADE | RESTRICT]: a domain a column,
/// another domain, a composite type's attribute, a function or a view
/// uses is 2BP01 unless CASCADE, which drops those columns (and the views
/// reading them), domains, functions (0A000 when something calls one),
/// views and attributes.
pub fn drop_domains(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let mut drops: Vec<Arc<DomainDef>> = Vec::new();
    for o in &ds.objects {
        let parts = match node(o)? {
            NodeEnum::TypeName(tn) => tn.names.clone(),
            NodeEnum::List(l) => l.items.clone(),
            _ => continue,
        };
        let name = type_name(ctx.catalog, &parts)?;
        match existing(ctx, &name) {
            Ok(def) => drops.push(def),
            Err(e) if e.code == SqlState::UndefinedObject && ds.missing_ok => {
                notice(ctx, format!("type \"{name}\" does not exist, skipping"));
            }
            Err(e) => return Err(e),
        }
    }
    for def in &drops {
        require_owner(ctx, def)?;
    }
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    drop_domain_defs(ctx, drops, Vec::new(), cascade)?;
    Ok(CommandTag::Plain("DROP DOMAIN"))
}

/// Drop domains `drops` and (CASCADE) what depends on them: domains over
/// them, columns of their types (and the views reading those), functions,
/// views casting to them, casts. `deps` starts with what the
/// caller drops them for (DROP TYPE of a composite type lists the
/// domains over it), so the NOTICE names them first.
pub(super) fn drop_domain_defs(
    ctx: &mut StatementCtx,
    mut drops: Vec<Arc<DomainDef>>,
    mut deps: Vec<(Dependent, String)>,
    cascade: bool,
) -> Result<(), DbError> {
    // The named domains' dependents, and (CASCADE) theirs in turn.
    let mut k = 0;
    while k < drops.len() {
        for (d, on) in dependents_of(ctx, &drops[k])? {
            if let Dependent::Domain(name) = &d {
                if drops.iter().any(|x| &x.name == name) {
                    continue;
                }
                if let Some(child) = ctx.catalog.domain(name) {
                    drops.push(child);
                }
            }
            let column = match &d {
                Dependent::Column(t, c) => ctx.catalog.table(t).zip(Some(c.clone())),
                _ => None,
            };
            let listed = |deps: &[(Dependent, String)], oid| {
                deps.iter()
                    .any(|(x, _)| matches!(x, Dependent::View(w, _) if w.oid == oid))
            };
            if let Dependent::View(v, _) = &d {
                if listed(&deps, v.oid) {
                    continue;
                }
            }
            deps.push((d, on));
            // The views reading the column go with it (and those over them).
            if let Some((t, c)) = column {
                let pos = super::alter::existing_column(&t, &c)?;
                for (v, why) in super::view::views_dropped_with_column(ctx, &t, pos)? {
                    if !listed(&deps, v.oid) {
                        deps.push((Dependent::View(v, why), String::new()));
                    }
                }
            }
        }
        k += 1;
    }
    if !cascade && !deps.is_empty() {
        return Err(super::dependents_remain(
            format_args!("type {}", drops[0].name),
            deps.iter().map(|(d, on)| d.reason(on)),
        ));
    }
    // A function goes with the domain unless something calls it (a view,
    // a default...): those are not followed here.
    for (d, _) in &deps {
        if let Dependent::Function(f, _) = d {
            if !super::function_deps::dependents(ctx, f).is_empty() {
                return Err(DbError::unsupported(format!(
                    "DROP DOMAIN ... CASCADE of a domain {} uses, which other objects call,",
                    d.describe()
                )));
            }
        }
    }
    match deps.as_slice() {
        [] => {}
        [(d, _)] => notice(ctx, format!("drop cascades to {}", d.describe())),
        _ => {
            let detail = deps
                .iter()
                .map(|(d, _)| format!("drop cascades to {}", d.describe()))
                .collect::<Vec<_>>()
                .join("\n");
            ctx.notices.push(
                DbError::new(
                    SqlState::SuccessfulCompletion,
                    format!("drop cascades to {} other objects", deps.len()),
                )
                .with_detail(detail)
                .with_severity(nestor_common::error::Severity::Notice),
            );
        }
    }
    // Views first: nothing is left reading a dropped column.
    let views: Vec<_> = deps
        .iter()
        .filter_map(|(d, _)| match d {
            Dependent::View(v, why) => Some((v.clone(), why.clone())),
            _ => None,
        })
        .collect();
    super::view::drop_views_cascaded(ctx, &views)?;
    for (d, _) in &deps {
        if let Dependent::Function(f, _) = d {
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropFunction(f.clone()))?;
        }
        if let Dependent::Cast(c) = d {
            super::cast::drop_all(ctx, vec![c.clone()])?;
        }
        if let Dependent::Attribute(ty, attr) = d {
            super::composite::drop_attribute_cascaded(ctx, ty, attr)?;
        }
        if let Dependent::Column(table, column) = d {
            let def = ctx
                .catalog
                .table(table)
                .ok_or_else(|| super::undefined_table(table))?;
            let pos = super::alter::existing_column(&def, column)?;
            super::alter::drop_column_at(ctx, &def, pos)?;
        }
    }
    // Domains over others first.
    for def in drops.iter().rev() {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropDomain(def.name.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::value_upper;

    #[test]
    fn value_is_capitalised_outside_quotes() {
        assert_eq!(value_upper("value > 0"), "VALUE > 0");
        assert_eq!(
            value_upper("value <> 'value' AND \"value\" > values"),
            "VALUE <> 'value' AND \"value\" > values"
        );
        assert_eq!(value_upper("length(value) >= 2"), "length(VALUE) >= 2");
    }
}
