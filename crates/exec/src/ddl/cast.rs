//! CREATE CAST and DROP CAST.
//!
//! A cast is a catalog object of its own (`nestor_catalog::cast`): CREATE
//! checks what PostgreSQL's CreateCast checks, in its order, and applies
//! a `Change::PutCast`; DROP applies a `Change::DropCast`; both are undone
//! by ROLLBACK and logged at COMMIT. The binder applies a user cast where
//! its context allows (`plan::bind`'s `user_cast`).
//!
//! ```text
//!   CREATE CAST (mood AS int4) WITH FUNCTION mood_rank(mood) AS ASSIGNMENT
//!   CREATE CAST (mood AS int4) ...   42710 cast from type mood to type integer already exists
//!   CREATE CAST (int4 AS int4) ...   42P17 source data type and target data type are the same
//!   CREATE CAST (int4 AS int8) WITHOUT FUNCTION
//!                                    42P17 source and target data types are not physically compatible
//!   DROP CAST (int4 AS int8)         2BP01 ... is required by the database system
//! ```
//!
//! A pair PostgreSQL has a built-in cast for is taken
//! (`nestor_types::cast_catalog`); the string types' I/O conversions are
//! not catalog rows, so a user cast may replace one (`text` to `int4`), as
//! in PostgreSQL. A cast from or to a domain is kept with PostgreSQL's
//! WARNING and never applied (the binder sees base types). The function of
//! WITH FUNCTION is a user function (built-in functions have no pg_proc
//! rows to name: 0A000). Dropping the function or a type (enum, composite,
//! domain) a cast uses is 2BP01; CASCADE of the function or the domain
//! drops the cast too (of an enum or composite type: 0A000, as for their
//! other dependents).

use std::sync::Arc;

use nestor_catalog::cast::{CastDef, CastMethod};
use nestor_catalog::{Change, FunctionDef, Returns};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::cast::Coercion;
use nestor_types::DataType;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// A cast's type: its OID and type (None: no such type).
struct CastType {
    oid: u32,
    ty: DataType,
    /// The domain it names, if it is one.
    domain: bool,
}

fn resolve(tn: &pb::TypeName) -> Result<CastType, DbError> {
    if let Some(d) = nestor_plan::bind::domain::domain_from_name(tn) {
        return Ok(CastType {
            oid: d.oid,
            ty: d.base,
            domain: true,
        });
    }
    let ty = bind::type_from_name(tn)?;
    Ok(CastType {
        oid: ty.oid(),
        ty,
        domain: false,
    })
}

/// A type's name in messages (`format_type`).
fn type_name(oid: u32, ty: DataType) -> String {
    nestor_types::domains::lookup(oid).map_or_else(|| ty.to_string(), |d| d.name.clone())
}

fn object_definition(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidObjectDefinition, msg.to_string())
}

/// Whether a value of `from` passes as `to` unchanged (PostgreSQL's
/// binary coercibility, as far as the types here have it).
fn binary_coercible(from: DataType, to: DataType) -> bool {
    from.oid() == to.oid() || (from.is_string() && to.is_string() && from != DataType::Name)
}

/// CREATE CAST (source AS target) WITH FUNCTION f(args) | WITHOUT
/// FUNCTION | WITH INOUT [AS ASSIGNMENT | AS IMPLICIT].
pub fn create_cast(ctx: &mut StatementCtx, st: &pb::CreateCastStmt) -> Result<CommandTag, DbError> {
    let missing = || DbError::internal("CREATE CAST without a type");
    let source = resolve(st.sourcetype.as_ref().ok_or_else(missing)?)?;
    let target = resolve(st.targettype.as_ref().ok_or_else(missing)?)?;
    let (sname, tname) = (
        type_name(source.oid, source.ty),
        type_name(target.oid, target.ty),
    );
    require_owner(ctx, &source, &target, &sname, &tname)?;
    for (t, which) in [(&source, "source"), (&target, "target")] {
        if t.domain {
            ctx.notices.push(
                DbError::new(
                    SqlState::WrongObjectType,
                    format!("cast will be ignored because the {which} data type is a domain"),
                )
                .with_severity(Severity::Warning),
            );
        }
    }
    let context = match pb::CoercionContext::try_from(st.context) {
        Ok(pb::CoercionContext::CoercionImplicit) => Coercion::Implicit,
        Ok(pb::CoercionContext::CoercionAssignment) => Coercion::Assignment,
        _ => Coercion::Explicit,
    };
    let method = match (&st.func, st.inout) {
        (Some(owa), _) => cast_function(ctx, owa, &source, &target)?,
        (None, true) => CastMethod::InOut,
        (None, false) => {
            binary_compatible(ctx, &source, &target)?;
            CastMethod::Binary
        }
    };
    if source.oid == target.oid && !matches!(method, CastMethod::Function { .. }) {
        return Err(object_definition(
            "source data type and target data type are the same",
        ));
    }
    let taken = ctx.catalog.cast(source.oid, target.oid).is_some()
        || nestor_types::cast_catalog::builtin(source.oid, target.oid).is_some();
    if taken {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!("cast from type {sname} to type {tname} already exists"),
        ));
    }
    let def = CastDef {
        oid: ctx.catalog.alloc_oid().0,
        source: source.oid,
        target: target.oid,
        method,
        context,
    };
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutCast(Arc::new(def)))?;
    Ok(CommandTag::Plain("CREATE CAST"))
}

/// 42501 unless the role is a superuser or owns one of the types.
fn require_owner(
    ctx: &StatementCtx,
    source: &CastType,
    target: &CastType,
    sname: &str,
    tname: &str,
) -> Result<(), DbError> {
    if ctx.role.superuser {
        return Ok(());
    }
    let owns = |t: &CastType| {
        type_owner(ctx, t.oid).is_some_and(|o| {
            ctx.catalog
                .has_privs_of_role(ctx.role.oid, nestor_common::RelId(o))
        })
    };
    if owns(source) || owns(target) {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::InsufficientPrivilege,
        format!("must be owner of type {sname} or type {tname}"),
    ))
}

/// The owner of a user-defined type (None: a built-in type, owned by
/// the bootstrap superuser).
fn type_owner(ctx: &StatementCtx, oid: u32) -> Option<u32> {
    if let Some(d) = nestor_types::domains::lookup(oid) {
        return Some(d.owner);
    }
    if let Some(e) = ctx.catalog.enum_types().into_iter().find(|e| e.oid == oid) {
        return Some(e.owner);
    }
    ctx.catalog
        .composites()
        .into_iter()
        .find(|c| c.oid == oid)
        .map(|c| c.owner)
}

/// WITH FUNCTION f(args): the user function, checked as PostgreSQL does.
fn cast_function(
    ctx: &StatementCtx,
    owa: &pb::ObjectWithArgs,
    source: &CastType,
    target: &CastType,
) -> Result<CastMethod, DbError> {
    let name = bind::names(&owa.objname)
        .last()
        .cloned()
        .unwrap_or_default();
    let mut types = Vec::new();
    for a in &owa.objargs {
        if let NodeEnum::TypeName(tn) = node(a)? {
            types.push(bind::signature_type_from_name(tn)?);
        }
    }
    let found = ctx
        .catalog
        .functions(&name)
        .into_iter()
        .find(|f| !f.procedure && f.same_signature(&name, &types));
    let Some(f) = found else {
        let list: Vec<String> = types.iter().map(|t| t.to_string()).collect();
        if nestor_plan::functions::lookup(&name, &types).is_ok() {
            return Err(DbError::unsupported(format!(
                "CREATE CAST WITH FUNCTION of the built-in function {name}"
            )));
        }
        return Err(DbError::new(
            SqlState::UndefinedFunction,
            format!("function {name}({}) does not exist", list.join(", ")),
        ));
    };
    check_function(&f, &types, source, target)?;
    Ok(CastMethod::Function {
        oid: f.oid.0,
        name: f.name.clone(),
    })
}

/// PostgreSQL's checks of a cast function's signature.
fn check_function(
    f: &FunctionDef,
    args: &[DataType],
    source: &CastType,
    target: &CastType,
) -> Result<(), DbError> {
    if args.is_empty() || args.len() > 3 {
        return Err(object_definition(
            "cast function must take one to three arguments",
        ));
    }
    if !binary_coercible(source.ty, args[0]) {
        return Err(object_definition(
            "argument of cast function must match or be binary-coercible from source data type",
        ));
    }
    if args.len() > 1 && args[1] != DataType::Int4 {
        return Err(object_definition(
            "second argument of cast function must be type integer",
        ));
    }
    if args.len() > 2 && args[2] != DataType::Bool {
        return Err(object_definition(
            "third argument of cast function must be type boolean",
        ));
    }
    let returns = match &f.returns {
        Returns::Scalar(t) => Some(*t),
        _ => None,
    };
    if !returns.is_some_and(|r| binary_coercible(r, target.ty)) {
        return Err(object_definition(
            "return data type of cast function must match or be binary-coercible to target data type",
        ));
    }
    if f.retset {
        return Err(object_definition("cast function must not return a set"));
    }
    if f.aggregate.is_some() {
        return Err(object_definition("cast function must be a normal function"));
    }
    Ok(())
}

/// WITHOUT FUNCTION: the superuser's, between types of one physical form.
fn binary_compatible(
    ctx: &StatementCtx,
    source: &CastType,
    target: &CastType,
) -> Result<(), DbError> {
    if !ctx.role.superuser {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            "must be superuser to create a cast WITHOUT FUNCTION",
        ));
    }
    let (s, t) = (source.ty, target.ty);
    // PostgreSQL compares typlen, typbyval and typalign.
    let same_form = s.typlen() == t.typlen() && physical_class(s) == physical_class(t);
    if !same_form {
        return Err(object_definition(
            "source and target data types are not physically compatible",
        ));
    }
    if matches!(s, DataType::Record(_)) || matches!(t, DataType::Record(_)) {
        return Err(object_definition(
            "composite data types are not binary-compatible",
        ));
    }
    if s.is_array() || t.is_array() {
        return Err(object_definition(
            "array data types are not binary-compatible",
        ));
    }
    if source.domain || target.domain {
        return Err(object_definition(
            "domain data types must not be marked binary-compatible",
        ));
    }
    // Nestor holds an enum value as its label, not as the OID PostgreSQL
    // stores, so the bytes of one are no other type's.
    if matches!(s, DataType::Enum(_)) || matches!(t, DataType::Enum(_)) {
        return Err(DbError::unsupported(
            "CREATE CAST WITHOUT FUNCTION from or to an enum type",
        ));
    }
    Ok(())
}

/// PostgreSQL's (typbyval, typalign) of a type, as one class.
fn physical_class(t: DataType) -> (bool, char) {
    use DataType::*;
    match t {
        Bool => (true, 'c'),
        Int2 => (true, 's'),
        Int4 | Float4 | Date | Oid | Reg(_) | Enum(_) => (true, 'i'),
        Int8 | Float8 | Timestamp(_) | TimestampTz(_) | Time(_) | Money => (true, 'd'),
        Interval(_) | TimeTz(_) | Geo(_) | Record(_) | Array(_) => (false, 'd'),
        Uuid | Name => (false, 'c'),
        _ => (false, 'i'),
    }
}

/// DROP CAST [IF EXISTS] (source AS target) [CASCADE | RESTRICT].
pub fn drop_cast(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    for o in &ds.objects {
        let NodeEnum::List(l) = node(o)? else {
            continue;
        };
        let tns: Vec<&pb::TypeName> = l
            .items
            .iter()
            .filter_map(|n| match n.node.as_ref() {
                Some(NodeEnum::TypeName(tn)) => Some(tn),
                _ => None,
            })
            .collect();
        let [s, t] = tns.as_slice() else {
            return Err(DbError::internal("DROP CAST without two types"));
        };
        let (source, target) = match (resolve(s), resolve(t)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) if ds.missing_ok && e.code == SqlState::UndefinedObject => {
                super::notice(ctx, format!("{}, skipping", e.message));
                continue;
            }
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let (sname, tname) = (
            type_name(source.oid, source.ty),
            type_name(target.oid, target.ty),
        );
        if ctx.catalog.cast(source.oid, target.oid).is_none() {
            if nestor_types::cast_catalog::builtin(source.oid, target.oid).is_some() {
                return Err(DbError::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                        "cannot drop cast from {sname} to {tname} because it is required by the database system"
                    ),
                ));
            }
            let msg = format!("cast from type {sname} to type {tname} does not exist");
            if ds.missing_ok {
                super::notice(ctx, format!("{msg}, skipping"));
                continue;
            }
            return Err(DbError::new(SqlState::UndefinedObject, msg));
        }
        require_owner(ctx, &source, &target, &sname, &tname)?;
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::DropCast((source.oid, target.oid)),
        )?;
    }
    Ok(CommandTag::Plain("DROP CAST"))
}

/// A cast as PostgreSQL's dependency messages name it.
pub(super) fn describe(c: &CastDef) -> String {
    let name =
        |oid: u32| DataType::from_oid(oid).map_or_else(|| oid.to_string(), |t| type_name(oid, t));
    format!("cast from {} to {}", name(c.source), name(c.target))
}

/// The user casts that call function `oid`.
pub(super) fn of_function(ctx: &StatementCtx, oid: u32) -> Vec<Arc<CastDef>> {
    ctx.catalog
        .casts()
        .into_iter()
        .filter(|c| matches!(&c.method, CastMethod::Function { oid: f, .. } if *f == oid))
        .collect()
}

/// The user casts from or to type `oid`.
pub(super) fn of_type(ctx: &StatementCtx, oid: u32) -> Vec<Arc<CastDef>> {
    ctx.catalog
        .casts()
        .into_iter()
        .filter(|c| c.source == oid || c.target == oid)
        .collect()
}

/// Drop casts (a CASCADE's victims).
pub(super) fn drop_all(ctx: &mut StatementCtx, casts: Vec<Arc<CastDef>>) -> Result<(), DbError> {
    for c in casts {
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::DropCast((c.source, c.target)),
        )?;
    }
    Ok(())
}
