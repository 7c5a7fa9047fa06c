//! CREATE [OR REPLACE] FUNCTION / PROCEDURE, DO and CALL.
//!
//! A definition is checked before it is stored, as PostgreSQL's validators
//! do: a PL/pgSQL body must parse and its declarations resolve; each
//! statement of a SQL body must plan with the arguments as parameters.
//! The stored definition (catalog `FunctionDef`) is logged as a typed
//! catalog record like a table's. DROP FUNCTION is with the other DROPs
//! (ddl/function.rs).

use std::sync::Arc;

use nestor_catalog::{ArgMode, Change, FuncArg, FunctionDef, Language, Returns, Volatility};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::datatype::{DataType, Poly};

use crate::context::StatementCtx;
use crate::tag::CommandTag;

fn def_elem_str(e: &pb::DefElem) -> Option<String> {
    match e.arg.as_deref().and_then(|n| n.node.as_ref())? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        _ => None,
    }
}

fn def_elem_bool(e: &pb::DefElem) -> bool {
    match e.arg.as_deref().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::Boolean(b)) => b.boolval,
        Some(NodeEnum::Integer(i)) => i.ival != 0,
        None => true,
        _ => false,
    }
}

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidFunctionDefinition, msg)
}

/// A declared type: a scalar type, or one of the pseudo-types a function
/// may take or return.
enum Declared {
    Type(DataType),
    Void,
    Trigger,
    Record,
    /// A table's row type.
    Row(nestor_common::RelId),
    /// `"any"`: what C functions take; a SQL or PL/pgSQL function cannot.
    Any,
}

fn declared(ctx: &StatementCtx, tn: &pb::TypeName) -> Result<Declared, DbError> {
    let names = bind::names(&tn.names);
    let last = names.last().map(String::as_str).unwrap_or("");
    let builtin = names.len() == 1 || names.first().is_some_and(|s| s == "pg_catalog");
    if builtin && Poly::from_name(last).is_some() {
        return bind::signature_type_from_name(tn).map(Declared::Type);
    }
    Ok(match last {
        "void" => Declared::Void,
        "trigger" => Declared::Trigger,
        "record" => Declared::Record,
        "any" if builtin => Declared::Any,
        "anymultirange" | "anycompatiblemultirange" if builtin => {
            return Err(DbError::unsupported(format!(
                "polymorphic type {last} (multirange types)"
            )))
        }
        _ => match bind::type_from_name(tn) {
            Ok(t) => Declared::Type(t),
            Err(e) => match ctx.catalog.table(last) {
                Some(t) if names.len() == 1 && tn.array_bounds.is_empty() => Declared::Row(t.oid),
                _ => return Err(e),
            },
        },
    })
}

/// The type of an argument declared as a table's name: the table's row
/// type (its OID the table's, its fields the table's columns), as a
/// composite type's argument is. The catalog image writes the tables of
/// `public` before its functions and other schemas' after, so only a
/// permanent table of `public` may be named (0A000 otherwise, as for a
/// column of such a row type).
fn table_row_arg(
    ctx: &StatementCtx,
    rel: nestor_common::RelId,
    kind: &str,
) -> Result<DataType, DbError> {
    let def = ctx
        .catalog
        .table_by_oid(rel)
        .ok_or_else(|| DbError::internal(format!("row type of missing table {}", rel.0)))?;
    if def.persistence == nestor_catalog::defs::Persistence::Temporary
        || def.namespace != nestor_catalog::PUBLIC_NAMESPACE_OID
    {
        return Err(DbError::unsupported(format!(
            "{kind} arguments of the row type of table {} outside schema public",
            def.name
        )));
    }
    nestor_types::composites::type_for_oid(rel.0)
        .ok_or_else(|| DbError::internal(format!("table {} has no row type", def.name)))
}

/// An array type, or one of the polymorphic array pseudo-types.
fn is_array_type(t: DataType) -> bool {
    t.is_array() || matches!(t, DataType::Poly(p) if p.is_array())
}

/// A polymorphic result (or OUT argument) needs an input of its family to
/// be resolved from (PostgreSQL's ProcedureCreate check).
fn check_polymorphic_result(args: &[FuncArg], returns: &Returns) -> Result<(), DbError> {
    // A range result needs a range input (its element type alone does
    // not name a range type).
    let is_range = |p: Poly| matches!(p, Poly::AnyRange | Poly::AnyCompatibleRange);
    let has_input = |result: Poly| {
        args.iter().any(|a| {
            a.mode.is_input()
                && matches!(a.ty, DataType::Poly(p)
                    if p.is_compatible() == result.is_compatible() && (!is_range(result) || is_range(p)))
        })
    };
    let result = match returns {
        Returns::Scalar(t) => vec![*t],
        Returns::Row(cols) => cols.iter().map(|c| c.1).collect(),
        _ => Vec::new(),
    };
    let outs = args.iter().filter(|a| a.mode == ArgMode::Out).map(|a| a.ty);
    for t in result.into_iter().chain(outs) {
        let DataType::Poly(p) = t else {
            continue;
        };
        if has_input(p) {
            continue;
        }
        let family = if p == Poly::AnyRange {
            "anyrange or anymultirange"
        } else if p == Poly::AnyCompatibleRange {
            "anycompatiblerange or anycompatiblemultirange"
        } else if p.is_compatible() {
            "anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange"
        } else {
            "anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange"
        };
        return Err(
            invalid("cannot determine result data type").with_detail(format!(
                "A result of type {} requires at least one input of type {family}.",
                p.name()
            )),
        );
    }
    Ok(())
}

/// CREATE [OR REPLACE] FUNCTION / PROCEDURE.
pub fn create_function(
    ctx: &mut StatementCtx,
    text: &str,
    cf: &pb::CreateFunctionStmt,
) -> Result<CommandTag, DbError> {
    let parts = bind::names(&cf.funcname);
    let name = match parts.as_slice() {
        [n] => n.clone(),
        [s, n] if s == "public" => n.clone(),
        [s, _] if ctx.catalog.schema(s).is_some() => {
            return Err(DbError::unsupported(format!(
                "functions in schemas other than public (\"{s}\")"
            )))
        }
        [s, _] => {
            return Err(DbError::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{s}\" does not exist"),
            ))
        }
        _ => return Err(DbError::unsupported("qualified function names")),
    };
    let kind = if cf.is_procedure {
        "procedure"
    } else {
        "function"
    };
    // Arguments.
    let mut args = Vec::new();
    let mut table_cols = false;
    let mut any_arg = false;
    for p in &cf.parameters {
        let NodeEnum::FunctionParameter(fp) = node(p)? else {
            continue;
        };
        let mode = match pb::FunctionParameterMode::try_from(fp.mode)
            .unwrap_or(pb::FunctionParameterMode::FuncParamIn)
        {
            pb::FunctionParameterMode::FuncParamOut => ArgMode::Out,
            pb::FunctionParameterMode::FuncParamInout => ArgMode::InOut,
            pb::FunctionParameterMode::FuncParamVariadic => ArgMode::Variadic,
            pb::FunctionParameterMode::FuncParamTable => {
                table_cols = true;
                ArgMode::Out
            }
            _ => ArgMode::In,
        };
        let tn = fp
            .arg_type
            .as_ref()
            .ok_or_else(|| DbError::internal("parameter without a type"))?;
        let ty = match declared(ctx, tn)? {
            Declared::Type(t) => t,
            Declared::Void => {
                return Err(invalid(format!("{kind}s cannot accept type void")));
            }
            Declared::Any => {
                any_arg = true;
                DataType::Unknown
            }
            Declared::Row(rel) => table_row_arg(ctx, rel, kind)?,
            _ => {
                return Err(DbError::unsupported(format!(
                    "{kind} arguments of pseudo-types or row types"
                )))
            }
        };
        let default = match &fp.defexpr {
            Some(d) => {
                if !mode.is_input() {
                    return Err(invalid("only input parameters can have default values"));
                }
                Some(nestor_parser::deparse_expr(d)?)
            }
            None => {
                if mode.is_input() && args.iter().any(|a: &FuncArg| a.default.is_some()) {
                    return Err(invalid(
                        "input parameters after one with a default value must also have defaults",
                    ));
                }
                None
            }
        };
        if !fp.name.is_empty()
            && args
                .iter()
                .any(|a: &FuncArg| a.name == fp.name && a.mode.is_input() == mode.is_input())
        {
            return Err(invalid(format!(
                "parameter name \"{}\" used more than once",
                fp.name
            )));
        }
        if mode == ArgMode::Variadic && ty != DataType::Unknown && !is_array_type(ty) {
            return Err(invalid("VARIADIC parameter must be an array"));
        }
        if mode.is_input() && args.iter().any(|a: &FuncArg| a.mode == ArgMode::Variadic) {
            return Err(invalid(
                "VARIADIC parameter must be the last input parameter",
            ));
        }
        let domain = nestor_plan::bind::domain::domain_from_name(tn).map(|d| d.oid);
        args.push(FuncArg {
            name: fp.name.clone(),
            ty,
            domain,
            mode,
            default,
        });
    }
    // Options.
    let mut body = None;
    let mut language = None;
    let mut volatility = Volatility::Volatile;
    let mut strict = false;
    for o in &cf.options {
        let NodeEnum::DefElem(e) = node(o)? else {
            continue;
        };
        match e.defname.as_str() {
            "as" => {
                let list = match e.arg.as_deref().and_then(|n| n.node.as_ref()) {
                    Some(NodeEnum::List(l)) => bind::names(&l.items),
                    Some(NodeEnum::String(s)) => vec![s.sval.clone()],
                    _ => Vec::new(),
                };
                if list.len() != 1 {
                    return Err(DbError::unsupported("functions in object files"));
                }
                body = list.into_iter().next();
            }
            "language" => language = def_elem_str(e),
            "volatility" => {
                volatility = match def_elem_str(e).as_deref() {
                    Some("immutable") => Volatility::Immutable,
                    Some("stable") => Volatility::Stable,
                    _ => Volatility::Volatile,
                }
            }
            "strict" => strict = def_elem_bool(e),
            "security" if def_elem_bool(e) => return Err(DbError::unsupported("SECURITY DEFINER")),
            "window" if def_elem_bool(e) => return Err(DbError::unsupported("window functions")),
            "set" => {
                return Err(DbError::unsupported(format!(
                    "SET in CREATE {}",
                    kind.to_uppercase()
                )))
            }
            // Cost, rows, parallel safety, leakproof, support: accepted.
            _ => {}
        }
    }
    // A SQL-standard body (`RETURN expr`, `BEGIN ATOMIC ... END`) is a
    // SQL function whose body is those statements.
    if let Some(sb) = cf.sql_body.as_deref() {
        if body.is_some() {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "duplicate function body specified",
            ));
        }
        match language.as_deref() {
            None | Some("sql") => language = Some("sql".into()),
            Some(_) => {
                return Err(DbError::new(
                    SqlState::InvalidFunctionDefinition,
                    "inline SQL function body only valid for language SQL",
                ))
            }
        }
        body = Some(standard_body(sb)?);
    }
    let language = match language.as_deref() {
        Some("plpgsql") => Language::PlPgSql,
        Some("sql") => Language::Sql,
        None => {
            return Err(DbError::new(
                SqlState::InvalidFunctionDefinition,
                "no language specified",
            ))
        }
        Some(l @ ("c" | "internal" | "plperl" | "plpython3u" | "pltcl" | "plv8")) => {
            return Err(DbError::unsupported(format!("LANGUAGE {l}")))
        }
        Some(l) => {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("language \"{l}\" does not exist"),
            ))
        }
    };
    let body = body.ok_or_else(|| invalid("no function body specified"))?;
    if any_arg {
        return Err(match language {
            Language::Sql => invalid("SQL functions cannot have arguments of type \"any\""),
            Language::PlPgSql => DbError::new(
                SqlState::FeatureNotSupported,
                "PL/pgSQL functions cannot accept type \"any\"",
            ),
        });
    }
    // The result.
    let outs: Vec<(String, DataType)> = args
        .iter()
        .filter(|a| a.mode.is_output())
        .enumerate()
        .map(|(i, a)| {
            let n = if a.name.is_empty() {
                format!("column{}", i + 1)
            } else {
                a.name.clone()
            };
            (n, a.ty)
        })
        .collect();
    let setof = cf.return_type.as_ref().is_some_and(|t| t.setof) || table_cols;
    // A scalar result declared as a domain: calls check its constraints.
    let result_domain = match (&cf.return_type, outs.is_empty(), cf.is_procedure) {
        (Some(t), true, false) if t.array_bounds.is_empty() => {
            nestor_plan::bind::domain::domain_from_name(t).map(|d| d.oid)
        }
        _ => None,
    };
    let returns = if cf.is_procedure {
        match outs.len() {
            0 => Returns::Scalar(DataType::Void),
            _ => Returns::Row(outs.clone()),
        }
    } else {
        let declared_ret = match &cf.return_type {
            Some(t) => Some(declared(ctx, t)?),
            None => None,
        };
        match (outs.len(), declared_ret) {
            (0, None) => return Err(invalid("function result type must be specified")),
            (0, Some(Declared::Type(t))) => Returns::Scalar(t),
            (0, Some(Declared::Void)) => Returns::Scalar(DataType::Void),
            (0, Some(Declared::Trigger)) => {
                if !args.is_empty() {
                    return Err(invalid("trigger functions cannot have declared arguments")
                        .with_hint("The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead."));
                }
                Returns::Trigger
            }
            (0, Some(Declared::Record)) => Returns::Record,
            (0, Some(Declared::Row(rel))) => Returns::RowType(rel),
            (0, Some(Declared::Any)) => {
                return Err(match language {
                    Language::Sql => invalid("SQL functions cannot return type \"any\""),
                    Language::PlPgSql => DbError::new(
                        SqlState::FeatureNotSupported,
                        "PL/pgSQL functions cannot return type \"any\"",
                    ),
                })
            }
            (1, r) => {
                let t = outs[0].1;
                match r {
                    None | Some(Declared::Record) if table_cols => Returns::Row(outs.clone()),
                    None => Returns::Scalar(t),
                    Some(Declared::Type(d)) if d.base() == t.base() => Returns::Scalar(t),
                    Some(Declared::Record) => Returns::Scalar(t),
                    _ => {
                        return Err(invalid(format!(
                            "function result type must be {} because of OUT parameters",
                            t.name()
                        )))
                    }
                }
            }
            (_, None | Some(Declared::Record)) => Returns::Row(outs.clone()),
            (_, Some(_)) => {
                return Err(invalid(
                    "function result type must be record because of OUT parameters",
                ))
            }
        }
    };
    check_polymorphic_result(&args, &returns)?;
    let inputs: Vec<DataType> = args
        .iter()
        .filter(|a| a.mode.is_input())
        .map(|a| a.ty)
        .collect();
    let existing = ctx
        .catalog
        .functions(&name)
        .into_iter()
        .find(|f| f.same_signature(&name, &inputs));
    let oid = match &existing {
        Some(prev) if !cf.replace => {
            return Err(DbError::new(
                SqlState::DuplicateFunction,
                format!("{kind} \"{name}\" already exists with same argument types"),
            ))
        }
        Some(prev) => {
            if prev.aggregate.is_some() {
                return Err(
                    DbError::new(SqlState::WrongObjectType, "cannot change routine kind")
                        .with_detail(format!("\"{name}\" is an aggregate function.")),
                );
            }
            if prev.procedure != cf.is_procedure {
                return Err(
                    DbError::new(SqlState::WrongObjectType, "cannot change routine kind")
                        .with_detail(format!(
                            "\"{name}\" is a {}.",
                            if prev.procedure {
                                "procedure"
                            } else {
                                "function"
                            }
                        )),
                );
            }
            let hint = format!("Use DROP FUNCTION {} first.", prev.signature());
            if prev.returns != returns || prev.retset != setof {
                let e = invalid("cannot change return type of existing function");
                let rows = matches!(
                    (&prev.returns, &returns),
                    (Returns::Row(_), Returns::Row(_))
                );
                return Err(match rows && prev.retset == setof {
                    true => e.with_detail("Row type defined by OUT parameters is different."),
                    false => e,
                }
                .with_hint(hint));
            }
            let names = |a: &[FuncArg]| -> Vec<String> {
                a.iter()
                    .filter(|a| a.mode.is_input())
                    .map(|a| a.name.clone())
                    .collect()
            };
            let renamed = names(&prev.args)
                .into_iter()
                .zip(names(&args))
                .find(|(old, new)| !old.is_empty() && old != new);
            if let Some((old, _)) = renamed {
                return Err(
                    invalid(format!("cannot change name of input parameter \"{old}\""))
                        .with_hint(hint),
                );
            }
            let defaults = |a: &[FuncArg]| a.iter().filter(|a| a.default.is_some()).count();
            if defaults(&args) < defaults(&prev.args) {
                return Err(
                    invalid("cannot remove parameter defaults from existing function")
                        .with_hint(hint),
                );
            }
            prev.oid
        }
        None => ctx.catalog.alloc_oid(),
    };
    let def = FunctionDef {
        oid,
        name: name.clone(),
        procedure: cf.is_procedure,
        args,
        returns,
        retset: setof,
        language,
        body,
        volatility,
        strict,
        compiled: std::sync::OnceLock::new(),
        declared: None,
        aggregate: None,
        result_domain,
    };
    // check_function_bodies = off (what pg_dump's output sets): the body is
    // checked when the function is first called.
    let check = ctx.settings.get("check_function_bodies") != Some("off");
    match language {
        _ if !check => {}
        Language::PlPgSql => {
            let extra = (
                ctx.settings.plpgsql_extra_warnings,
                ctx.settings.plpgsql_extra_errors,
            );
            let warnings = super::validate(&def, ctx.catalog, extra).map_err(|e| {
                let context = format!("compilation of PL/pgSQL function \"{name}\"");
                super::body_error(e, text, &def.body, context)
            })?;
            for w in warnings {
                ctx.notices.push(super::body_warning(w, text, &def.body));
            }
        }
        Language::Sql => super::validate_sql(&def, ctx).map_err(|e| {
            let context = format!("SQL function \"{name}\"");
            super::body_error(e, text, &def.body, context)
        })?,
    }
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutFunction(Arc::new(def)))?;
    Ok(CommandTag::Plain(if cf.is_procedure {
        "CREATE PROCEDURE"
    } else {
        "CREATE FUNCTION"
    }))
}

/// DO [LANGUAGE plpgsql] $$ ... $$.
pub fn run_do(ctx: &mut StatementCtx, text: &str, ds: &pb::DoStmt) -> Result<CommandTag, DbError> {
    let mut code = None;
    let mut language = "plpgsql".to_string();
    for a in &ds.args {
        let NodeEnum::DefElem(e) = node(a)? else {
            continue;
        };
        match e.defname.as_str() {
            "as" => code = def_elem_str(e),
            "language" => language = def_elem_str(e).unwrap_or_default(),
            _ => {}
        }
    }
    if language != "plpgsql" {
        return Err(DbError::unsupported(format!("DO with LANGUAGE {language}")));
    }
    let code =
        code.ok_or_else(|| DbError::new(SqlState::SyntaxError, "no inline code specified"))?;
    super::run_do(ctx, text, &code)?;
    Ok(CommandTag::Plain("DO"))
}

/// The SQL text of a SQL-standard function body: `RETURN expr` is
/// `SELECT expr`; `BEGIN ATOMIC s1; s2; END` its statements (the parser
/// gives a list holding the list of them), deparsed. PostgreSQL parses
/// such a body at CREATE and stores the tree (prosqlbody); here it is
/// stored as text and planned at the call, as a quoted body is.
fn standard_body(sb: &pb::Node) -> Result<String, DbError> {
    match node(sb)? {
        NodeEnum::ReturnStmt(r) => {
            let value = r
                .returnval
                .as_deref()
                .ok_or_else(|| DbError::internal("RETURN without a value"))?;
            Ok(format!("SELECT {}", nestor_parser::deparse_expr(value)?))
        }
        NodeEnum::List(outer) => {
            // `BEGIN ATOMIC END` leaves the inner list empty (no node).
            let stmts = match outer.items.first().and_then(|n| n.node.as_ref()) {
                Some(NodeEnum::List(inner)) => inner.items.clone(),
                _ => Vec::new(),
            };
            let mut texts = Vec::with_capacity(stmts.len());
            for st in &stmts {
                texts.push(nestor_parser::deparse_stmt(st)?);
            }
            Ok(texts.join(";\n"))
        }
        other => Err(DbError::unsupported(format!(
            "function body {}",
            nestor_parser::ast::node_kind(other)
        ))),
    }
}
