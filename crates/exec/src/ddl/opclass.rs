//! CREATE / DROP OPERATOR CLASS and OPERATOR FAMILY.
//!
//! Classes and families are catalog objects of their own
//! (`nestor_catalog::opclass`). CREATE OPERATOR CLASS checks what
//! PostgreSQL's DefineOpClass checks, in its order (the access method,
//! the type, the family, then each item: its number, its operator or
//! function, the function's signature as assignProcTypes wants it,
//! duplicates; then the name and DEFAULT), creates the family of the
//! class's name when no FAMILY is given and none exists, and applies a
//! `Change::PutOpClass`:
//!
//! ```text
//!   CREATE OPERATOR CLASS c FOR TYPE int4 USING hash AS
//!     OPERATOR 1 =, FUNCTION 2 h(int4, int8);     ok: family c made too
//!   ... FUNCTION 2 h2(int4, int8) returning int4  42P17 hash function 2 must return bigint
//!   ... OPERATOR 2 =                              42P17 invalid operator number 2, must be between 1 and 1
//!   DROP OPERATOR CLASS c USING hash              2BP01 while a partition key uses it
//! ```
//!
//! Operators are PostgreSQL's built-in comparison operators
//! (`operator_oids`); functions are user functions (built-in functions
//! have no pg_proc rows to name: 0A000). Only btree and hash exist.
//! A hash class's support function 2 hashes hash partition keys
//! (`partition.rs`, `nestor_plan::select::partition`); a btree class is
//! accepted and shown in pg_opclass but refused where it would be used
//! (a partition key or an index: 0A000), as Nestor compares each type one
//! way. Left out (0A000): ALTER OPERATOR FAMILY, FOR ORDER BY operators,
//! classes in schemas other than public, btree support functions other
//! than 1.

use std::sync::Arc;

use nestor_catalog::opclass::{AccessMethod, OpClassDef, OpFamilyDef, OpMember, ProcMember};
use nestor_catalog::{Change, FunctionDef, Returns, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::DataType;

use super::operator_oids;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

fn definition(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidObjectDefinition, msg.into())
}

/// A type OID as format_type prints it.
fn type_name(oid: u32) -> String {
    DataType::from_oid(oid).map_or_else(|| oid.to_string(), |t| t.to_string())
}

/// The access method USING names (42704 for an unknown one).
fn access_method(name: &str) -> Result<AccessMethod, DbError> {
    // GIN's classes are built in (`nestor_catalog::gin`): user-defined
    // ones need support functions Nestor does not call.
    if let Some(am) = AccessMethod::from_name(name).filter(|a| *a != AccessMethod::Gin) {
        return Ok(am);
    }
    if matches!(name, "gist" | "gin" | "spgist" | "brin") {
        return Err(DbError::unsupported(format!(
            "operator classes for access method \"{name}\""
        )));
    }
    Err(DbError::new(
        SqlState::UndefinedObject,
        format!("access method \"{name}\" does not exist"),
    ))
}

/// A class or family name: `name` or `public.name` (another schema:
/// 0A000).
fn object_name(names: &[pb::Node], what: &str) -> Result<String, DbError> {
    let parts = bind::names(names);
    match parts.as_slice() {
        [n] => Ok(n.clone()),
        [s, n] if s == "public" => Ok(n.clone()),
        _ => Err(DbError::unsupported(format!(
            "{what} in schemas other than public"
        ))),
    }
}

fn require_superuser(ctx: &StatementCtx, what: &str) -> Result<(), DbError> {
    if ctx.role.superuser {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::InsufficientPrivilege,
        format!("must be superuser to create an {what}"),
    ))
}

fn family_missing(name: &str, am: AccessMethod) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!(
            "operator family \"{name}\" does not exist for access method \"{}\"",
            am.name()
        ),
    )
}

fn class_missing(name: &str, am: AccessMethod) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!(
            "operator class \"{name}\" does not exist for access method \"{}\"",
            am.name()
        ),
    )
}

/// CREATE OPERATOR FAMILY name USING am.
pub fn create_opfamily(
    ctx: &mut StatementCtx,
    st: &pb::CreateOpFamilyStmt,
) -> Result<CommandTag, DbError> {
    let am = access_method(&st.amname)?;
    require_superuser(ctx, "operator family")?;
    let name = object_name(&st.opfamilyname, "operator families")?;
    if ctx.catalog.opfamily(am, &name).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "operator family \"{name}\" for access method \"{}\" already exists",
                am.name()
            ),
        ));
    }
    put_family(ctx, &name, am)?;
    Ok(CommandTag::Plain("CREATE OPERATOR FAMILY"))
}

fn put_family(ctx: &mut StatementCtx, name: &str, am: AccessMethod) -> Result<u32, DbError> {
    let def = OpFamilyDef {
        oid: ctx.catalog.alloc_oid().0,
        name: name.to_string(),
        am,
        owner: ctx.role.oid.0,
    };
    let oid = def.oid;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutOpFamily(Arc::new(def)))?;
    Ok(oid)
}

/// An operator or function item before OIDs are given to members.
struct Item {
    number: i16,
    /// The operator's or function's OID.
    object: u32,
    /// The function's name (functions only).
    name: Option<String>,
    left: u32,
    right: u32,
}

/// CREATE OPERATOR CLASS name [DEFAULT] FOR TYPE t USING am [FAMILY f]
/// AS item, ...
pub fn create_opclass(
    ctx: &mut StatementCtx,
    st: &pb::CreateOpClassStmt,
) -> Result<CommandTag, DbError> {
    let name = object_name(&st.opclassname, "operator classes")?;
    let am = access_method(&st.amname)?;
    require_superuser(ctx, "operator class")?;
    let tn = st
        .datatype
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE OPERATOR CLASS without a type"))?;
    let ty = bind::type_from_name(tn)?;
    let intype = ty.oid();
    let family = if st.opfamilyname.is_empty() {
        ctx.catalog.opfamily(am, &name).map(|f| f.oid)
    } else {
        let fam = object_name(&st.opfamilyname, "operator families")?;
        let f = ctx
            .catalog
            .opfamily(am, &fam)
            .ok_or_else(|| family_missing(&fam, am))?;
        Some(f.oid)
    };
    let mut operators: Vec<Item> = Vec::new();
    let mut procs: Vec<Item> = Vec::new();
    let mut storage: Option<u32> = None;
    for it in &st.items {
        let NodeEnum::CreateOpClassItem(item) = node(it)? else {
            return Err(DbError::internal("operator class item"));
        };
        match item.itemtype {
            1 => {
                let m = operator_item(item, am, intype)?;
                add_member(&mut operators, m, "operator")?;
            }
            2 => {
                let m = function_item(ctx, item, am, intype)?;
                add_member(&mut procs, m, "function")?;
            }
            _ => {
                if storage.is_some() {
                    return Err(definition("storage type specified more than once"));
                }
                let stn = item
                    .storedtype
                    .as_ref()
                    .ok_or_else(|| DbError::internal("STORAGE without a type"))?;
                storage = Some(bind::type_from_name(stn)?.oid());
            }
        }
    }
    if storage.is_some_and(|s| s != intype) {
        return Err(definition(format!(
            "storage type cannot be different from data type for access method \"{}\"",
            am.name()
        )));
    }
    if ctx.catalog.opclass(am, &name).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "operator class \"{name}\" for access method \"{}\" already exists",
                am.name()
            ),
        ));
    }
    if st.is_default {
        check_default(ctx, am, ty, tn, &name)?;
    }
    let family = match family {
        Some(f) => f,
        None => put_family(ctx, &name, am)?,
    };
    let oid = ctx.catalog.alloc_oid().0;
    let operators = operators
        .into_iter()
        .map(|m| OpMember {
            oid: ctx.catalog.alloc_oid().0,
            number: m.number,
            opr: m.object,
            left: m.left,
            right: m.right,
        })
        .collect();
    let procs = procs
        .into_iter()
        .map(|m| ProcMember {
            oid: ctx.catalog.alloc_oid().0,
            number: m.number,
            func: m.object,
            name: m.name.unwrap_or_default(),
            left: m.left,
            right: m.right,
        })
        .collect();
    let def = OpClassDef {
        oid,
        name,
        am,
        family,
        intype,
        default: st.is_default,
        owner: ctx.role.oid.0,
        operators,
        procs,
    };
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutOpClass(Arc::new(def)))?;
    Ok(CommandTag::Plain("CREATE OPERATOR CLASS"))
}

/// 42P17 when an item of the same number and types came before
/// (addFamilyMember).
fn add_member(list: &mut Vec<Item>, m: Item, what: &str) -> Result<(), DbError> {
    if list
        .iter()
        .any(|o| o.number == m.number && o.left == m.left && o.right == m.right)
    {
        return Err(definition(format!(
            "{what} number {} for ({},{}) appears more than once",
            m.number,
            type_name(m.left),
            type_name(m.right)
        )));
    }
    list.push(m);
    Ok(())
}

/// The types of an item's `(type, type)` list.
fn type_list(nodes: &[pb::Node]) -> Result<Vec<DataType>, DbError> {
    let mut out = Vec::new();
    for a in nodes {
        if let NodeEnum::TypeName(tn) = node(a)? {
            out.push(bind::signature_type_from_name(tn)?);
        }
    }
    Ok(out)
}

fn number_of(item: &pb::CreateOpClassItem, max: i32, what: &str) -> Result<i16, DbError> {
    if item.number <= 0 || item.number > max {
        return Err(definition(format!(
            "invalid {what} number {}, must be between 1 and {max}",
            item.number
        )));
    }
    Ok(item.number as i16)
}

/// OPERATOR n op [(left, right)].
fn operator_item(
    item: &pb::CreateOpClassItem,
    am: AccessMethod,
    intype: u32,
) -> Result<Item, DbError> {
    let number = number_of(item, am.strategies_max(), "operator")?;
    let owa = item
        .name
        .as_ref()
        .ok_or_else(|| DbError::internal("OPERATOR item without a name"))?;
    let op = bind::names(&owa.objname).pop().unwrap_or_default();
    let (left, right) = if owa.objargs.is_empty() {
        (intype, intype)
    } else {
        match type_list(&owa.objargs)?.as_slice() {
            [l, r] => (l.oid(), r.oid()),
            _ => return Err(definition("index operators must be binary")),
        }
    };
    let opr = operator_oids::lookup(&op, left, right).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedFunction,
            format!(
                "operator does not exist: {} {op} {}",
                type_name(left),
                type_name(right)
            ),
        )
    })?;
    if !item.order_family.is_empty() {
        return Err(DbError::unsupported("FOR ORDER BY in an operator class"));
    }
    Ok(Item {
        number,
        object: opr,
        name: None,
        left,
        right,
    })
}

/// FUNCTION n [(left, right)] f(args): a user function, its signature
/// checked as assignProcTypes does.
fn function_item(
    ctx: &StatementCtx,
    item: &pb::CreateOpClassItem,
    am: AccessMethod,
    intype: u32,
) -> Result<Item, DbError> {
    let number = number_of(item, am.procs_max(), "function")?;
    let owa = item
        .name
        .as_ref()
        .ok_or_else(|| DbError::internal("FUNCTION item without a name"))?;
    let fname = bind::names(&owa.objname).pop().unwrap_or_default();
    let args = type_list(&owa.objargs)?;
    let f = ctx
        .catalog
        .functions(&fname)
        .into_iter()
        .find(|f| !f.procedure && f.same_signature(&fname, &args));
    let Some(f) = f else {
        if nestor_plan::functions::lookup(&fname, &args).is_ok() {
            return Err(DbError::unsupported(format!(
                "the built-in function {fname} as an operator class support function"
            )));
        }
        let list: Vec<String> = args.iter().map(|t| t.to_string()).collect();
        return Err(DbError::new(
            SqlState::UndefinedFunction,
            format!("function {fname}({}) does not exist", list.join(", ")),
        ));
    };
    if i32::from(number) == am.options_proc() {
        return Err(
            definition("invalid operator class options parsing function").with_hint(
                "Valid signature of operator class options parsing function is (internal) RETURNS void.",
            ),
        );
    }
    let (mut left, mut right) = match type_list(&item.class_args)?.as_slice() {
        [] => (0, 0),
        [t] => (t.oid(), t.oid()),
        [l, r, ..] => (l.oid(), r.oid()),
    };
    let arg_oid = |i: usize| args.get(i).map_or(0, |t| t.oid());
    match am {
        // Refused by access_method before this.
        AccessMethod::Gin => {}
        AccessMethod::Btree => {
            if number != 1 {
                return Err(DbError::unsupported(format!(
                    "btree support function {number} in an operator class"
                )));
            }
            check_signature(
                &f,
                2,
                DataType::Int4,
                "btree comparison functions",
                "two arguments",
                "integer",
            )?;
            if left == 0 {
                left = arg_oid(0);
            }
            if right == 0 {
                right = arg_oid(1);
            }
        }
        AccessMethod::Hash => {
            match number {
                1 => check_signature(
                    &f,
                    1,
                    DataType::Int4,
                    "hash function 1",
                    "one argument",
                    "integer",
                )?,
                2 => check_signature(
                    &f,
                    2,
                    DataType::Int8,
                    "hash function 2",
                    "two arguments",
                    "bigint",
                )?,
                _ => {}
            }
            if left == 0 {
                left = arg_oid(0);
            }
            if right == 0 {
                right = arg_oid(0);
            }
        }
    }
    if left == 0 {
        left = intype;
    }
    if right == 0 {
        right = intype;
    }
    Ok(Item {
        number,
        object: f.oid.0,
        name: Some(f.name.clone()),
        left,
        right,
    })
}

/// `what must have <nargs_text>` / `what must return <ret_text>`.
fn check_signature(
    f: &FunctionDef,
    nargs: usize,
    ret: DataType,
    what: &str,
    nargs_text: &str,
    ret_text: &str,
) -> Result<(), DbError> {
    if f.input_types().len() != nargs {
        return Err(definition(format!("{what} must have {nargs_text}")));
    }
    let returns = match &f.returns {
        Returns::Scalar(t) if !f.retset => Some(t.oid()),
        _ => None,
    };
    if returns != Some(ret.oid()) {
        return Err(definition(format!("{what} must return {ret_text}")));
    }
    Ok(())
}

/// DEFAULT: 42710 when the type already has a default class for `am`
/// (a built-in one or a user's).
fn check_default(
    ctx: &StatementCtx,
    am: AccessMethod,
    ty: DataType,
    tn: &pb::TypeName,
    name: &str,
) -> Result<(), DbError> {
    let builtin = super::partition::default_opclass(ty).map(str::to_string);
    let user = || {
        ctx.catalog
            .opclasses()
            .into_iter()
            .find(|c| c.am == am && c.default && c.intype == ty.oid())
            .map(|c| c.name.clone())
    };
    let Some(existing) = builtin.or_else(user) else {
        return Ok(());
    };
    let written = bind::names(&tn.names)
        .into_iter()
        .filter(|p| p != "pg_catalog")
        .collect::<Vec<_>>()
        .join(".");
    Err(DbError::new(
        SqlState::DuplicateObject,
        format!("could not make operator class \"{name}\" be default for type {written}"),
    )
    .with_detail(format!(
        "Operator class \"{existing}\" already is the default."
    )))
}

/// ALTER OPERATOR FAMILY: not there yet.
pub fn alter_opfamily(_st: &pb::AlterOpFamilyStmt) -> Result<CommandTag, DbError> {
    Err(DbError::unsupported("ALTER OPERATOR FAMILY"))
}

/// An index key naming a user class of the index's method: 0A000
/// (Nestor's indexes order and compare each type one way; the built-in
/// class names are taken as before).
pub(super) fn refuse_in_index(
    ctx: &StatementCtx,
    am: AccessMethod,
    names: &[pb::Node],
) -> Result<(), DbError> {
    if names.is_empty() {
        return Ok(());
    }
    let Ok(name) = object_name(names, "operator classes") else {
        return Ok(());
    };
    match ctx.catalog.opclass(am, &name) {
        Some(c) => Err(DbError::unsupported(format!(
            "user-defined operator class \"{}\" in an index",
            c.name
        ))),
        None => Ok(()),
    }
}

/// The partitioned tables whose key names one of `classes`.
fn dependent_tables(ctx: &StatementCtx, classes: &[u32]) -> Vec<Arc<TableDef>> {
    ctx.catalog
        .tables()
        .into_iter()
        .filter(|t| {
            t.partition_key.as_ref().is_some_and(|k| {
                k.opclasses
                    .iter()
                    .any(|o| o.is_some_and(|o| classes.contains(&o)))
            })
        })
        .collect()
}

/// 2BP01 for `what` with dependents, or with CASCADE the tables dropped
/// (with their partitions) after PostgreSQL's NOTICE.
fn drop_dependents(
    ctx: &mut StatementCtx,
    what: &str,
    deps: Vec<(Arc<TableDef>, String)>,
    cascade: bool,
) -> Result<(), DbError> {
    if deps.is_empty() {
        return Ok(());
    }
    if !cascade {
        return Err(super::dependents_remain(
            what,
            deps.iter()
                .map(|(t, class)| format!("table {} depends on {class}", t.name)),
        ));
    }
    super::foreign_key::cascade_notice(
        ctx,
        deps.iter()
            .map(|(t, _)| (t.oid.0, format!("table {}", t.name)))
            .collect(),
    );
    let mut names: Vec<String> = deps
        .iter()
        .map(|(t, _)| ctx.catalog.qualify(t.namespace, &t.name))
        .collect();
    names.dedup();
    super::inherit::drop_children(ctx, &mut names, true)?;
    for n in names {
        if ctx.catalog.table(&n).is_some() {
            super::drop_table(ctx, &n)?;
        }
    }
    Ok(())
}

/// The classes that cannot be without function `oid` (PostgreSQL's
/// hard dependencies: a btree class's support functions and a hash
/// class's function 1 for its own type; a hash class's function 2 is a
/// soft one, its pg_amproc row going with the function).
pub(super) fn of_function(ctx: &StatementCtx, oid: u32) -> Vec<Arc<OpClassDef>> {
    ctx.catalog
        .opclasses()
        .into_iter()
        .filter(|c| {
            c.procs.iter().any(|p| {
                p.func == oid
                    && (c.am == AccessMethod::Btree
                        || (p.number == 1 && p.left == c.intype && p.right == c.intype))
            })
        })
        .collect()
}

/// Drop classes (a CASCADE's victims) with the tables that use them.
pub(super) fn drop_classes(
    ctx: &mut StatementCtx,
    classes: Vec<Arc<OpClassDef>>,
) -> Result<(), DbError> {
    for c in classes {
        let deps = dependent_tables(ctx, &[c.oid])
            .into_iter()
            .map(|t| (t, class_label(&c)))
            .collect();
        drop_dependents(ctx, &class_label(&c), deps, true)?;
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropOpClass(c.oid))?;
    }
    Ok(())
}

pub(super) fn class_label(c: &OpClassDef) -> String {
    format!(
        "operator class {} for access method {}",
        c.name,
        c.am.name()
    )
}

/// One `USING am` object of DROP OPERATOR CLASS / FAMILY: (am, name).
fn drop_target(o: &pb::Node) -> Result<Option<(String, Vec<pb::Node>)>, DbError> {
    let NodeEnum::List(l) = node(o)? else {
        return Ok(None);
    };
    let Some((first, rest)) = l.items.split_first() else {
        return Ok(None);
    };
    let am = bind::names(std::slice::from_ref(first))
        .pop()
        .unwrap_or_default();
    Ok(Some((am, rest.to_vec())))
}

/// DROP OPERATOR CLASS [IF EXISTS] name USING am [CASCADE | RESTRICT].
pub fn drop_opclass(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    for o in &ds.objects {
        let Some((am, names)) = drop_target(o)? else {
            continue;
        };
        let am = access_method(&am)?;
        let shown = bind::names(&names).join(".");
        let class = object_name(&names, "operator classes")
            .ok()
            .and_then(|n| ctx.catalog.opclass(am, &n));
        let Some(class) = class else {
            let e = class_missing(&shown, am);
            if ds.missing_ok {
                super::notice(ctx, format!("{}, skipping", e.message));
                continue;
            }
            return Err(e);
        };
        crate::privilege::require_owner_of(ctx, class.owner, "operator class", &class.name)?;
        let deps = dependent_tables(ctx, &[class.oid])
            .into_iter()
            .map(|t| (t, class_label(&class)))
            .collect();
        drop_dependents(ctx, &class_label(&class), deps, cascade)?;
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropOpClass(class.oid))?;
    }
    Ok(CommandTag::Plain("DROP OPERATOR CLASS"))
}

/// DROP OPERATOR FAMILY [IF EXISTS] name USING am [CASCADE | RESTRICT]:
/// its classes go with it.
pub fn drop_opfamily(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    for o in &ds.objects {
        let Some((am, names)) = drop_target(o)? else {
            continue;
        };
        let am = access_method(&am)?;
        let shown = bind::names(&names).join(".");
        let family = object_name(&names, "operator families")
            .ok()
            .and_then(|n| ctx.catalog.opfamily(am, &n));
        let Some(family) = family else {
            let e = family_missing(&shown, am);
            if ds.missing_ok {
                super::notice(ctx, format!("{}, skipping", e.message));
                continue;
            }
            return Err(e);
        };
        crate::privilege::require_owner_of(ctx, family.owner, "operator family", &family.name)?;
        let classes: Vec<Arc<OpClassDef>> = ctx
            .catalog
            .opclasses()
            .into_iter()
            .filter(|c| c.family == family.oid)
            .collect();
        let mut deps = Vec::new();
        for c in &classes {
            for t in dependent_tables(ctx, &[c.oid]) {
                deps.push((t, class_label(c)));
            }
        }
        let what = format!(
            "operator family {} for access method {}",
            family.name,
            am.name()
        );
        drop_dependents(ctx, &what, deps, cascade)?;
        for c in classes {
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropOpClass(c.oid))?;
        }
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropOpFamily(family.oid))?;
    }
    Ok(CommandTag::Plain("DROP OPERATOR FAMILY"))
}
