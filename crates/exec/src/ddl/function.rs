//! DROP FUNCTION / PROCEDURE / ROUTINE and ALTER ... RENAME TO of them
//! (creating and running them is server-side code's: plpgsql/commands.rs).
//!
//! A rename is two catalog changes, the definition dropped under its old
//! name and put under the new one with the same OID, so its owner, ACL,
//! comment and the triggers that call it (all keyed by OID) stay with it,
//! ROLLBACK undoes both, and recovery replays both records.

use std::sync::Arc;

use nestor_catalog::{Change, FunctionDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// DROP FUNCTION / PROCEDURE / ROUTINE.
pub fn drop_functions(
    ctx: &mut StatementCtx,
    ds: &pb::DropStmt,
    kind: pb::ObjectType,
) -> Result<CommandTag, DbError> {
    let (what, tag) = match kind {
        pb::ObjectType::ObjectProcedure => ("procedure", "DROP PROCEDURE"),
        pb::ObjectType::ObjectRoutine => ("routine", "DROP ROUTINE"),
        pb::ObjectType::ObjectAggregate => ("aggregate", "DROP AGGREGATE"),
        _ => ("function", "DROP FUNCTION"),
    };
    let mut victims: Vec<Arc<FunctionDef>> = Vec::new();
    for o in &ds.objects {
        let NodeEnum::ObjectWithArgs(owa) = node(o)? else {
            continue;
        };
        let name = bind::names(&owa.objname)
            .last()
            .cloned()
            .unwrap_or_default();
        let all: Vec<Arc<FunctionDef>> = ctx
            .catalog
            .functions(&name)
            .into_iter()
            .filter(|f| match kind {
                pb::ObjectType::ObjectProcedure => f.procedure,
                pb::ObjectType::ObjectRoutine => true,
                pb::ObjectType::ObjectAggregate => f.aggregate.is_some(),
                _ => !f.procedure,
            })
            .collect();
        let found = if owa.args_unspecified {
            match all.len() {
                0 => None,
                1 => all.into_iter().next(),
                _ => {
                    return Err(DbError::new(
                        SqlState::AmbiguousFunction,
                        format!("{what} name \"{name}\" is not unique"),
                    )
                    .with_hint(format!(
                        "Specify the argument list to select the {what} unambiguously."
                    )))
                }
            }
        } else {
            let mut types = Vec::new();
            // As the grammar gave them (`int` is pg_catalog.int4), for
            // the IF EXISTS notice, as PostgreSQL's TypeNameToString.
            let mut written = Vec::new();
            for a in &owa.objfuncargs {
                let NodeEnum::FunctionParameter(fp) = node(a)? else {
                    continue;
                };
                let out = matches!(
                    pb::FunctionParameterMode::try_from(fp.mode),
                    Ok(pb::FunctionParameterMode::FuncParamOut
                        | pb::FunctionParameterMode::FuncParamTable)
                );
                if out {
                    continue;
                }
                if let Some(tn) = &fp.arg_type {
                    types.push(signature_type(ctx, tn)?);
                    written.push(type_name_as_written(tn));
                }
            }
            if owa.objfuncargs.is_empty() {
                for a in &owa.objargs {
                    if let NodeEnum::TypeName(tn) = node(a)? {
                        types.push(signature_type(ctx, tn)?);
                        written.push(type_name_as_written(tn));
                    }
                }
            }
            all.into_iter()
                .find(|f| f.same_signature(&name, &types))
                .or(None)
                .map_or_else(
                    || {
                        let sig = format!(
                            "{name}({})",
                            types
                                .iter()
                                .map(|t| t.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                        if ds.missing_ok {
                            let sig = format!("{name}({})", written.join(","));
                            super::notice(ctx, format!("{what} {sig} does not exist, skipping"));
                            Ok(None)
                        } else {
                            Err(DbError::new(
                                SqlState::UndefinedFunction,
                                format!("{what} {sig} does not exist"),
                            ))
                        }
                    },
                    |f| Ok(Some(f)),
                )?
        };
        match found {
            Some(f) if f.aggregate.is_some() && kind == pb::ObjectType::ObjectFunction => {
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!("\"{}\" is an aggregate function", f.name),
                )
                .with_hint("Use DROP AGGREGATE to drop aggregate functions."));
            }
            Some(f) => victims.push(f),
            None if owa.args_unspecified => {
                if ds.missing_ok {
                    super::notice(ctx, format!("{what} {name}() does not exist, skipping"));
                } else {
                    return Err(DbError::new(
                        SqlState::UndefinedFunction,
                        format!("could not find a {what} named \"{name}\""),
                    ));
                }
            }
            None => {}
        }
    }
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    for f in victims {
        drop_dependent_triggers(ctx, &f, cascade)?;
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropFunction(f))?;
    }
    Ok(CommandTag::Plain(tag))
}

/// A function that triggers execute, casts call, or whose SQL other
/// objects call (`function_deps.rs`) cannot be dropped (2BP01) unless
/// CASCADE drops them too (with PostgreSQL's notice).
fn drop_dependent_triggers(
    ctx: &mut StatementCtx,
    f: &nestor_catalog::FunctionDef,
    cascade: bool,
) -> Result<(), DbError> {
    let users: Vec<_> = ctx
        .catalog
        .tables()
        .into_iter()
        .filter(|t| t.triggers.iter().any(|g| g.function == f.oid))
        .collect();
    let sig = format!(
        "{}({})",
        f.name,
        f.input_types()
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            // format_procedure's form: no space after the commas.
            .join(",")
    );
    let views: Vec<_> = ctx
        .catalog
        .views()
        .into_iter()
        .filter(|v| v.triggers.iter().any(|g| g.function == f.oid))
        .collect();
    let mut lines = Vec::new();
    for t in &users {
        for g in t.triggers.iter().filter(|g| g.function == f.oid) {
            lines.push(format!("trigger {} on table {}", g.name, t.name));
        }
    }
    for v in &views {
        for g in v.triggers.iter().filter(|g| g.function == f.oid) {
            lines.push(format!("trigger {} on view {}", g.name, v.name));
        }
    }
    let exprs = super::function_deps::dependents(ctx, f);
    lines.extend(exprs.iter().map(super::function_deps::Dep::describe));
    let casts = super::cast::of_function(ctx, f.oid.0);
    lines.extend(casts.iter().map(|c| super::cast::describe(c)));
    let classes = super::opclass::of_function(ctx, f.oid.0);
    lines.extend(classes.iter().map(|c| super::opclass::class_label(c)));
    if lines.is_empty() {
        return Ok(());
    }
    if !cascade {
        return Err(super::dependents_remain(
            format_args!("function {sig}"),
            lines
                .iter()
                .map(|l| format!("{l} depends on function {sig}")),
        ));
    }
    super::foreign_key::cascade_notice(ctx, lines.into_iter().map(|l| (0, l)).collect());
    super::function_deps::drop_all(ctx, exprs)?;
    super::cast::drop_all(ctx, casts)?;
    super::opclass::drop_classes(ctx, classes)?;
    for t in users {
        let mut def = (*t).clone();
        def.triggers.retain(|g| g.function != f.oid);
        super::put_table(ctx, def)?;
    }
    for v in views {
        let mut def = (*v).clone();
        def.triggers.retain(|g| g.function != f.oid);
        super::put_view(ctx, def)?;
    }
    Ok(())
}

/// A type name as written: its qualified name and `[]` per array level.
fn type_name_as_written(tn: &pb::TypeName) -> String {
    let mut out = tn
        .names
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(NodeEnum::String(s)) => Some(s.sval.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(".");
    if tn.pct_type {
        out.push_str("%TYPE");
    }
    for _ in &tn.array_bounds {
        out.push_str("[]");
    }
    out
}

/// ALTER FUNCTION / PROCEDURE / ROUTINE name[(args)] RENAME TO new.
pub fn rename_function(
    ctx: &mut StatementCtx,
    owa: &pb::ObjectWithArgs,
    kind: pb::ObjectType,
    new_name: &str,
) -> Result<(), DbError> {
    let f = owned(ctx, owa, kind)?;
    let inputs = f.input_types();
    if ctx
        .catalog
        .functions(new_name)
        .iter()
        .any(|g| g.same_signature(new_name, &inputs))
    {
        return Err(DbError::new(
            SqlState::DuplicateFunction,
            format!(
                "function {new_name}({}) already exists in schema \"public\"",
                type_list(&inputs)
            ),
        ));
    }
    let mut renamed = (*f).clone();
    renamed.name = new_name.to_string();
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropFunction(f))?;
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutFunction(Arc::new(renamed)),
    )
}

fn type_list(types: &[nestor_types::DataType]) -> String {
    types
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The function or procedure `owa` names, for an ALTER by its owner.
fn owned(
    ctx: &StatementCtx,
    owa: &pb::ObjectWithArgs,
    kind: pb::ObjectType,
) -> Result<Arc<FunctionDef>, DbError> {
    let f = lookup(ctx, owa, kind)?;
    if !ctx.role.superuser {
        let word = if f.procedure { "procedure" } else { "function" };
        crate::privilege::require_owner(
            ctx,
            nestor_catalog::acl::ObjKind::Function,
            f.oid.0,
            word,
            &f.name,
        )?;
    }
    Ok(f)
}

/// The function or procedure `owa` names, as PostgreSQL's
/// LookupFuncWithArgs for an ALTER of `kind` (FUNCTION, PROCEDURE or
/// ROUTINE): without an argument list the name must be unique among that
/// kind; with one, a match of the other kind is 42809.
fn lookup(
    ctx: &StatementCtx,
    owa: &pb::ObjectWithArgs,
    kind: pb::ObjectType,
) -> Result<Arc<FunctionDef>, DbError> {
    let name = bind::names(&owa.objname)
        .last()
        .cloned()
        .ok_or_else(|| DbError::internal("function without a name"))?;
    let (missing_word, kind_word) = match kind {
        pb::ObjectType::ObjectProcedure => ("procedure", "procedure"),
        pb::ObjectType::ObjectRoutine => ("function", "routine"),
        _ => ("function", "function"),
    };
    let all = ctx.catalog.functions(&name);
    if owa.args_unspecified {
        let of_kind: Vec<Arc<FunctionDef>> = all
            .into_iter()
            .filter(|f| match kind {
                pb::ObjectType::ObjectProcedure => f.procedure,
                pb::ObjectType::ObjectRoutine => true,
                _ => !f.procedure,
            })
            .collect();
        return match of_kind.len() {
            0 => Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("could not find a {missing_word} named \"{name}\""),
            )),
            1 => Ok(of_kind[0].clone()),
            _ => Err(DbError::new(
                SqlState::AmbiguousFunction,
                format!("{kind_word} name \"{name}\" is not unique"),
            )
            .with_hint(format!(
                "Specify the argument list to select the {kind_word} unambiguously."
            ))),
        };
    }
    let mut types = Vec::new();
    for a in &owa.objfuncargs {
        let NodeEnum::FunctionParameter(fp) = node(a)? else {
            continue;
        };
        let out = matches!(
            pb::FunctionParameterMode::try_from(fp.mode),
            Ok(pb::FunctionParameterMode::FuncParamOut | pb::FunctionParameterMode::FuncParamTable)
        );
        if let (false, Some(tn)) = (out, &fp.arg_type) {
            types.push(signature_type(ctx, tn)?);
        }
    }
    if owa.objfuncargs.is_empty() {
        for a in &owa.objargs {
            if let NodeEnum::TypeName(tn) = node(a)? {
                types.push(signature_type(ctx, tn)?);
            }
        }
    }
    let sig = format!("{name}({})", type_list(&types));
    let f = all
        .into_iter()
        .find(|f| f.same_signature(&name, &types))
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedFunction,
                format!("{missing_word} {sig} does not exist"),
            )
        })?;
    match kind {
        pb::ObjectType::ObjectProcedure if !f.procedure => Err(DbError::new(
            SqlState::WrongObjectType,
            format!("{sig} is not a procedure"),
        )),
        pb::ObjectType::ObjectFunction if f.procedure => Err(DbError::new(
            SqlState::WrongObjectType,
            format!("{sig} is not a function"),
        )),
        _ => Ok(f),
    }
}

/// A function as PostgreSQL's dependency messages name it
/// (getObjectDescription's format_procedure): `function f(integer,text)`,
/// its input argument types without spaces.
pub(crate) fn described(f: &nestor_catalog::FunctionDef) -> String {
    format!("function {}({})", f.name, f.input_type_names().join(","))
}

/// ALTER FUNCTION / PROCEDURE / ROUTINE name[(args)] action ...: the
/// attributes CREATE FUNCTION takes. Volatility and STRICT / CALLED ON
/// NULL INPUT change the definition (a new version of it, compiled
/// afresh); COST, ROWS, LEAKPROOF, PARALLEL and SUPPORT are checked and
/// accepted as CREATE FUNCTION accepts them (Nestor's planner has no
/// use for them); SECURITY DEFINER and SET are 0A000, as in CREATE.
pub fn alter_function(
    ctx: &mut StatementCtx,
    text: &str,
    st: &pb::AlterFunctionStmt,
) -> Result<CommandTag, DbError> {
    let kind = pb::ObjectType::try_from(st.objtype).unwrap_or(pb::ObjectType::ObjectFunction);
    let owa = st
        .func
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER FUNCTION without a function"))?;
    let f = owned(ctx, owa, kind)?;
    let mut new = (*f).clone();
    let mut seen: Vec<&str> = Vec::new();
    for a in &st.actions {
        let NodeEnum::DefElem(e) = node(a)? else {
            continue;
        };
        let name = e.defname.as_str();
        if name != "set" && seen.contains(&name) {
            return Err(nestor_parser::ast::err_at(
                DbError::new(SqlState::SyntaxError, "conflicting or redundant options"),
                text,
                e.location,
            ));
        }
        seen.push(name);
        let arg = e.arg.as_deref().and_then(|n| n.node.as_ref());
        let number = || match arg {
            Some(NodeEnum::Integer(i)) => f64::from(i.ival),
            Some(NodeEnum::Float(x)) => x.fval.parse().unwrap_or(0.0),
            _ => 0.0,
        };
        let truth = || match arg {
            Some(NodeEnum::Boolean(b)) => b.boolval,
            Some(NodeEnum::Integer(i)) => i.ival != 0,
            _ => true,
        };
        let invalid = |msg: &str| DbError::new(SqlState::InvalidParameterValue, msg.to_string());
        match name {
            "volatility" => {
                new.volatility = match arg {
                    Some(NodeEnum::String(s)) if s.sval == "immutable" => {
                        nestor_catalog::Volatility::Immutable
                    }
                    Some(NodeEnum::String(s)) if s.sval == "stable" => {
                        nestor_catalog::Volatility::Stable
                    }
                    _ => nestor_catalog::Volatility::Volatile,
                }
            }
            "strict" => new.strict = truth(),
            "security" if truth() => return Err(DbError::unsupported("SECURITY DEFINER")),
            "security" => {}
            "leakproof" if truth() && !ctx.role.superuser => {
                return Err(DbError::new(
                    SqlState::InsufficientPrivilege,
                    "only superuser can define a leakproof function",
                ))
            }
            "cost" if number() <= 0.0 => return Err(invalid("COST must be positive")),
            "rows" if !f.retset => {
                return Err(invalid(
                    "ROWS is not applicable when function does not return a set",
                ))
            }
            "rows" if number() <= 0.0 => return Err(invalid("ROWS must be positive")),
            "set" => {
                return Err(DbError::unsupported(format!(
                    "SET in ALTER {}",
                    if f.procedure { "PROCEDURE" } else { "FUNCTION" }
                )))
            }
            // Leakproof, cost, rows, parallel safety, support: accepted.
            _ => {}
        }
    }
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutFunction(Arc::new(new)))?;
    Ok(CommandTag::Plain(match kind {
        pb::ObjectType::ObjectProcedure => "ALTER PROCEDURE",
        pb::ObjectType::ObjectRoutine => "ALTER ROUTINE",
        _ => "ALTER FUNCTION",
    }))
}

/// A type in a function signature (`DROP FUNCTION f(people)`): a type,
/// a polymorphic pseudo-type, or a table's name for its row type.
pub(crate) fn signature_type(
    ctx: &StatementCtx,
    tn: &pb::TypeName,
) -> Result<nestor_types::DataType, DbError> {
    bind::signature_type_from_name(tn).or_else(|e| {
        let names = bind::names(&tn.names);
        let table = match names.as_slice() {
            [n] if e.code == SqlState::UndefinedObject && tn.array_bounds.is_empty() => {
                ctx.catalog.table(n)
            }
            _ => None,
        };
        table
            .and_then(|t| nestor_types::composites::type_for_oid(t.oid.0))
            .ok_or(e)
    })
}

/// The functions whose arguments or result `uses` (a type test):
/// dependents of a DROP TYPE, by OID.
pub(crate) fn using_type(
    ctx: &StatementCtx,
    uses: &dyn Fn(nestor_types::DataType) -> bool,
) -> Vec<Arc<FunctionDef>> {
    let mut out: Vec<Arc<FunctionDef>> = ctx
        .catalog
        .all_functions()
        .into_iter()
        .filter(|f| {
            f.args.iter().any(|a| uses(a.ty))
                || matches!(f.returns, nestor_catalog::Returns::Scalar(t) if uses(t))
        })
        .collect();
    out.sort_by_key(|f| f.oid);
    out
}

/// DROP ... CASCADE reaching functions: they go, with PostgreSQL's NOTICE
/// naming them.
pub(crate) fn drop_cascaded(
    ctx: &mut StatementCtx,
    functions: Vec<Arc<FunctionDef>>,
) -> Result<(), DbError> {
    let lines: Vec<String> = functions
        .iter()
        .map(|f| format!("drop cascades to {}", described(f)))
        .collect();
    let e = match lines.as_slice() {
        [] => return Ok(()),
        [one] => DbError::new(SqlState::SuccessfulCompletion, one.clone()),
        many => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", many.len()),
        )
        .with_detail(many.join("\n")),
    };
    ctx.notices
        .push(e.with_severity(nestor_common::error::Severity::Notice));
    for f in functions {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropFunction(f))?;
    }
    Ok(())
}
