//! CREATE [OR REPLACE] AGGREGATE (DROP AGGREGATE is function.rs's).
//!
//! An aggregate is a function definition with an `AggregateSpec` (the
//! state type, the transition and final functions by name, INITCOND), so
//! it is logged, recovered, owned and dropped as a function is, and pg_proc shows it with prokind 'a'. CREATE resolves the steps
//! for the declared argument type once (plan::bind::user_agg), which
//! checks that the functions exist and gives the result type; each call
//! resolves them again.
//!
//! Supported: any number of arguments, `name(*)` for none, in the new
//! `name(type, ...) (...)` and the old `name (BASETYPE = type | 'ANY',
//! ...)` syntax; SFUNC, STYPE, FINALFUNC,
//! FINALFUNC_EXTRA, INITCOND, COMBINEFUNC (kept, not used: there is no
//! parallel aggregation). Polymorphic arguments and state types
//! (`anyelement`, `anycompatiblearray`, ...) resolve at each call as a
//! polymorphic function's do (`plan/src/bind/polymorphic.rs`); CREATE
//! checks the steps with the element types taken as integer and as text,
//! and a result type that follows them is polymorphic. The
//! moving-aggregate options (MSFUNC, MINVFUNC, MSTYPE, MFINALFUNC, ...)
//! are checked and not kept: PostgreSQL requires them to give the plain
//! steps' results, and Nestor always runs the plain steps (pg_aggregate
//! shows no moving implementation). Options that could change results
//! when ignored (ordered-set and hypothetical forms,
//! SERIALFUNC/DESERIALFUNC, FINALFUNC_MODIFY), VARIADIC aggregates and the
//! `"any"` type are 0A000 naming them; PARALLEL, SSPACE and SORTOP, which
//! only guide the planner, are accepted.

use std::sync::Arc;

use nestor_catalog::{
    AggregateSpec, ArgMode, Change, FuncArg, FunctionDef, Language, Returns, Volatility,
};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::DataType;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// Arguments an aggregate may take (PostgreSQL's FUNC_MAX_ARGS).
const AGGREGATE_ARGS_MAX: usize = 100;

/// CREATE [OR REPLACE] AGGREGATE.
pub fn create_aggregate(
    ctx: &mut StatementCtx,
    ds: &pb::DefineStmt,
) -> Result<CommandTag, DbError> {
    let parts = bind::names(&ds.defnames);
    let name = match parts.as_slice() {
        [n] => n.clone(),
        [s, n] if s == "public" => n.clone(),
        _ => {
            return Err(DbError::unsupported(
                "aggregates in schemas other than public",
            ))
        }
    };
    let mut args = if ds.oldstyle {
        None
    } else {
        Some(new_style_arguments(ds)?)
    };
    let mut spec = AggregateSpec {
        sfunc: String::new(),
        stype: DataType::Unknown,
        finalfunc: None,
        initcond: None,
        combinefunc: None,
        finalfunc_extra: false,
    };
    let mut stype = None;
    let mut moving = Moving::default();
    for d in &ds.definition {
        let NodeEnum::DefElem(e) = node(d)? else {
            continue;
        };
        let value = e.arg.as_deref().and_then(|n| n.node.as_ref());
        match e.defname.as_str() {
            "sfunc" | "sfunc1" => spec.sfunc = text(value)?,
            "stype" | "stype1" => stype = Some(type_of(value)?),
            "finalfunc" | "finalfunc1" => spec.finalfunc = Some(text(value)?),
            "initcond" | "initcond1" => spec.initcond = Some(text(value)?),
            "combinefunc" => spec.combinefunc = Some(text(value)?),
            "finalfunc_extra" => spec.finalfunc_extra = flag(value),
            // BASETYPE = 'ANY' is the old spelling of `name(*)`.
            "basetype" if ds.oldstyle => {
                args = Some(match value {
                    Some(NodeEnum::String(s)) if s.sval.eq_ignore_ascii_case("any") => Vec::new(),
                    Some(NodeEnum::TypeName(tn))
                        if bind::names(&tn.names)
                            .last()
                            .is_some_and(|n| n.eq_ignore_ascii_case("any")) =>
                    {
                        Vec::new()
                    }
                    _ => vec![type_of(value)?],
                })
            }
            "parallel" => {
                let v = text(value)?.to_ascii_lowercase();
                if !matches!(v.as_str(), "safe" | "restricted" | "unsafe") {
                    return Err(DbError::new(
                        SqlState::InvalidParameterValue,
                        "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE",
                    ));
                }
            }
            "sspace" | "sortop" => {}
            // The moving-aggregate implementation: PostgreSQL may use it
            // for a window frame whose start moves, and requires it to
            // give the plain implementation's results; Nestor always runs
            // the plain one. Checked to exist, not kept.
            "msfunc" => moving.sfunc = Some(text(value)?),
            "minvfunc" => moving.invfunc = Some(text(value)?),
            "mfinalfunc" => moving.finalfunc = Some(text(value)?),
            "mstype" => moving.stype = Some(type_of(value)?),
            "minitcond" => moving.initcond = Some(text(value)?),
            "msspace" | "mfinalfunc_extra" | "mfinalfunc_modify" => {}
            "serialfunc" | "deserialfunc" | "finalfunc_modify" | "hypothetical" | "basetype" => {
                return Err(DbError::unsupported(format!(
                    "CREATE AGGREGATE option {}",
                    e.defname.to_uppercase()
                )))
            }
            // PostgreSQL warns of an attribute it does not know (names
            // are case-sensitive: "Sfunc1" is not sfunc1) and goes on.
            other => ctx.notices.push(
                DbError::new(
                    SqlState::SyntaxError,
                    format!("aggregate attribute \"{other}\" not recognized"),
                )
                .with_severity(nestor_common::error::Severity::Warning),
            ),
        }
    }
    // PostgreSQL's order: the state type, then the transition function.
    let Some(stype) = stype else {
        return Err(invalid("aggregate stype must be specified"));
    };
    if spec.sfunc.is_empty() {
        return Err(invalid("aggregate sfunc must be specified"));
    }
    let Some(args) = args else {
        return Err(invalid("aggregate input type must be specified"));
    };
    if args.len() > AGGREGATE_ARGS_MAX {
        return Err(DbError::new(
            SqlState::TooManyArguments,
            format!("functions cannot have more than {AGGREGATE_ARGS_MAX} arguments"),
        ));
    }
    spec.stype = stype;
    let poly = |t: &DataType| matches!(t, DataType::Poly(_));
    if let (DataType::Poly(p), false) = (stype, args.iter().any(poly)) {
        return Err(DbError::new(
            SqlState::InvalidFunctionDefinition,
            "cannot determine transition data type",
        )
        .with_detail(polymorphic_result_detail(p)));
    }
    let result = aggregate_result(ctx, &spec, &args)?;
    check_moving(ctx, &moving, &spec, &args)?;
    let existing = ctx
        .catalog
        .functions(&name)
        .into_iter()
        .find(|f| f.same_signature(&name, &args));
    let oid = match &existing {
        Some(_) if !ds.replace => {
            return Err(DbError::new(
                SqlState::DuplicateFunction,
                format!("function \"{name}\" already exists with same argument types"),
            ))
        }
        Some(prev) if prev.aggregate.is_none() => {
            return Err(
                DbError::new(SqlState::WrongObjectType, "cannot change routine kind")
                    .with_detail(format!("\"{name}\" is a function.")),
            )
        }
        Some(prev) if prev.returns != Returns::Scalar(result) => {
            return Err(DbError::new(
                SqlState::InvalidFunctionDefinition,
                "cannot change return type of existing function",
            )
            .with_hint(format!("Use DROP AGGREGATE {} first.", prev.signature())))
        }
        Some(prev) => prev.oid,
        None => ctx.catalog.alloc_oid(),
    };
    let def = FunctionDef {
        oid,
        name,
        procedure: false,
        args: args
            .iter()
            .map(|&ty| FuncArg {
                name: String::new(),
                ty,
                domain: None,
                mode: ArgMode::In,
                default: None,
            })
            .collect(),
        returns: Returns::Scalar(result),
        retset: false,
        language: Language::Sql,
        body: String::new(),
        volatility: Volatility::Immutable,
        strict: false,
        compiled: std::sync::OnceLock::new(),
        declared: None,
        result_domain: None,
        aggregate: Some(Arc::new(spec)),
    };
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutFunction(Arc::new(def)))?;
    Ok(CommandTag::Plain("CREATE AGGREGATE"))
}

/// PostgreSQL's DETAIL for a polymorphic type no argument determines
/// (check_valid_polymorphic_signature).
fn polymorphic_result_detail(p: nestor_types::datatype::Poly) -> String {
    use nestor_types::datatype::Poly;
    let needs = match p {
        Poly::AnyCompatible
        | Poly::AnyCompatibleArray
        | Poly::AnyCompatibleNonArray
        | Poly::AnyCompatibleRange => {
            "anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange"
        }
        Poly::AnyRange => "anyrange or anymultirange",
        _ => "anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange",
    };
    format!(
        "A result of type {} requires at least one input of type {needs}.",
        p.name()
    )
}

/// The moving-aggregate options (MSFUNC, MINVFUNC, MSTYPE, MFINALFUNC,
/// MINITCOND).
#[derive(Default)]
struct Moving {
    sfunc: Option<String>,
    invfunc: Option<String>,
    stype: Option<DataType>,
    finalfunc: Option<String>,
    initcond: Option<String>,
}

/// The moving-aggregate functions must exist for the moving state type
/// (with polymorphic arguments taken as integer), as PostgreSQL's
/// AggregateCreate checks.
fn check_moving(
    ctx: &StatementCtx,
    m: &Moving,
    spec: &AggregateSpec,
    args: &[DataType],
) -> Result<(), DbError> {
    // PostgreSQL's DefineAggregate checks, in its order.
    let Some(stype) = m.stype else {
        for (given, what) in [
            (&m.sfunc, "msfunc"),
            (&m.invfunc, "minvfunc"),
            (&m.finalfunc, "mfinalfunc"),
        ] {
            if given.is_some() {
                return Err(invalid(&format!(
                    "aggregate {what} must not be specified without mstype"
                )));
            }
        }
        return Ok(());
    };
    let Some(sfunc) = &m.sfunc else {
        return Err(invalid(
            "aggregate msfunc must be specified when mstype is specified",
        ));
    };
    let Some(invfunc) = &m.invfunc else {
        return Err(invalid(
            "aggregate minvfunc must be specified when mstype is specified",
        ));
    };
    let r = nestor_plan::bind::polymorphic::Resolution::with_element(DataType::Int4);
    let args = args
        .iter()
        .map(|&t| r.concrete(t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut strict = Vec::with_capacity(2);
    for (step, finalfunc) in [(sfunc, &m.finalfunc), (invfunc, &None)] {
        // The moving state starts from MINITCOND, as the plain one from
        // INITCOND (a strict step without it must take the first input).
        let moving = AggregateSpec {
            sfunc: step.clone(),
            stype: r.concrete(stype)?,
            finalfunc: finalfunc.clone(),
            initcond: m.initcond.clone(),
            ..spec.clone()
        };
        let steps = checked_steps(ctx, &moving, &args).map_err(|mut e| {
            if step == invfunc {
                e.message = e
                    .message
                    .replace("of transition function", "of inverse transition function");
            }
            e
        })?;
        strict.push(steps.sfunc_strict);
    }
    if strict[0] != strict[1] {
        return Err(invalid(
            "strictness of aggregate's forward and inverse transition functions must match",
        ));
    }
    Ok(())
}

/// The steps bound for arguments of types `args` (checking that the
/// functions exist and fit), with PostgreSQL's message for a missing one.
fn checked_steps(
    ctx: &StatementCtx,
    spec: &AggregateSpec,
    args: &[DataType],
) -> Result<nestor_plan::ir::UserAggSteps, DbError> {
    let planner = nestor_plan::select::plan_query;
    nestor_plan::bind::user_agg::steps((ctx.catalog, ctx.eval, planner), spec, args).map_err(
        |mut e| {
            // PostgreSQL's lookup of the steps names the call only.
            if e.code == SqlState::UndefinedFunction {
                e.hint = None;
            }
            e
        },
    )
}

/// The aggregate's result type, checking its steps. A polymorphic one is
/// checked with its element types resolved to integer, then to text: a
/// result type that changes with them is polymorphic too (the state's
/// type when there is no final function, else the family the element
/// types belong to).
fn aggregate_result(
    ctx: &StatementCtx,
    spec: &AggregateSpec,
    args: &[DataType],
) -> Result<DataType, DbError> {
    use nestor_plan::bind::polymorphic::Resolution;
    use nestor_types::datatype::Poly;
    let poly = |t: &DataType| matches!(t, DataType::Poly(_));
    if !args.iter().any(poly) {
        return Ok(checked_steps(ctx, spec, args)?.result);
    }
    let mut results = [DataType::Unknown; 2];
    for (slot, elem) in results.iter_mut().zip([DataType::Int4, DataType::Text]) {
        let r = Resolution::with_element(elem);
        let args = args
            .iter()
            .map(|&t| r.concrete(t))
            .collect::<Result<Vec<_>, _>>()?;
        let spec = AggregateSpec {
            stype: r.concrete(spec.stype)?,
            ..spec.clone()
        };
        *slot = checked_steps(ctx, &spec, &args)?.result;
    }
    let [a, b] = results;
    if a == b {
        return Ok(a);
    }
    if spec.finalfunc.is_none() {
        return Ok(spec.stype);
    }
    let compatible = args.iter().any(|t| {
        matches!(
            t,
            DataType::Poly(
                Poly::AnyCompatible | Poly::AnyCompatibleArray | Poly::AnyCompatibleNonArray
            )
        )
    });
    Ok(DataType::Poly(match (compatible, a.is_array()) {
        (false, false) => Poly::AnyElement,
        (false, true) => Poly::AnyArray,
        (true, false) => Poly::AnyCompatible,
        (true, true) => Poly::AnyCompatibleArray,
    }))
}

/// The arguments of `name(type, ...)` (none for `name(*)`); 0A000 for
/// the VARIADIC and ordered-set forms.
fn new_style_arguments(ds: &pb::DefineStmt) -> Result<Vec<DataType>, DbError> {
    let (params, direct) = match ds.args.as_slice() {
        [list, count] => (list, count),
        _ => {
            return Err(DbError::unsupported(
                "CREATE AGGREGATE without an argument list",
            ))
        }
    };
    if let Some(NodeEnum::Integer(i)) = &direct.node {
        if i.ival >= 0 {
            return Err(DbError::unsupported(
                "ordered-set aggregates in CREATE AGGREGATE",
            ));
        }
    }
    // `name(*)`: libpg_query leaves the list empty (no node at all).
    let items = match &params.node {
        Some(NodeEnum::List(l)) => l.items.clone(),
        _ => Vec::new(),
    };
    let mut types = Vec::with_capacity(items.len());
    for p in &items {
        let NodeEnum::FunctionParameter(fp) = node(p)? else {
            return Err(DbError::internal("aggregate argument is not a parameter"));
        };
        if pb::FunctionParameterMode::try_from(fp.mode)
            == Ok(pb::FunctionParameterMode::FuncParamVariadic)
        {
            return Err(DbError::unsupported("VARIADIC aggregates"));
        }
        let tn = fp
            .arg_type
            .as_ref()
            .ok_or_else(|| DbError::internal("aggregate argument without a type"))?;
        types.push(type_name(tn)?);
    }
    Ok(types)
}

/// A type named in the definition: also a polymorphic pseudo-type
/// (`anyelement`, `anycompatiblearray`, ...); `"any"` is 0A000.
fn type_name(tn: &pb::TypeName) -> Result<DataType, DbError> {
    let names = bind::names(&tn.names);
    let last = names.last().map(String::as_str).unwrap_or("");
    if last == "any" {
        return Err(DbError::unsupported("aggregates over the type \"any\""));
    }
    bind::signature_type_from_name(tn)
}

fn type_of(value: Option<&NodeEnum>) -> Result<DataType, DbError> {
    match value {
        Some(NodeEnum::TypeName(tn)) => type_name(tn),
        Some(NodeEnum::String(s)) => type_name(&pb::TypeName {
            names: vec![pb::Node {
                node: Some(NodeEnum::String(s.clone())),
            }],
            typemod: -1,
            ..Default::default()
        }),
        _ => Err(invalid("aggregate type must be a type name")),
    }
}

/// A function name, a string or a number given to an option.
fn text(value: Option<&NodeEnum>) -> Result<String, DbError> {
    Ok(match value {
        Some(NodeEnum::TypeName(tn)) => bind::names(&tn.names).join("."),
        Some(NodeEnum::String(s)) => s.sval.clone(),
        Some(NodeEnum::Integer(i)) => i.ival.to_string(),
        Some(NodeEnum::Float(f)) => f.fval.clone(),
        Some(NodeEnum::List(l)) => bind::names(&l.items).join("."),
        _ => return Err(invalid("aggregate option requires a value")),
    })
}

fn flag(value: Option<&NodeEnum>) -> bool {
    match value {
        None => true,
        Some(NodeEnum::Boolean(b)) => b.boolval,
        Some(NodeEnum::Integer(i)) => i.ival != 0,
        Some(NodeEnum::String(s)) => matches!(s.sval.as_str(), "true" | "on" | "1"),
        _ => false,
    }
}

fn invalid(m: &str) -> DbError {
    DbError::new(SqlState::InvalidFunctionDefinition, m.to_string())
}
