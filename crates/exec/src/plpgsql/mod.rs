//! Server-side code: PL/pgSQL (DO blocks, functions, procedures) and SQL
//! functions.
//!
//! A PL/pgSQL body is parsed by PostgreSQL's own grammar (libpg_query),
//! turned into a statement tree with scopes ([`compile`]) once per
//! definition, and interpreted ([`run`]) inside the statement that calls
//! it. docs/plpgsql.md explains how exception blocks map to undo marks.
//!
//! A SQL function (LANGUAGE sql) runs its statements in order; the last
//! one's result is the function's. Its arguments are reachable by name and
//! as `$n`; a column of the same name wins, as in PostgreSQL.
//!
//! A polymorphic function (`anyelement`, ...) is called through an
//! instance with its types resolved (plan's `bind/polymorphic.rs`), so
//! what runs here never sees a polymorphic type; CREATE FUNCTION checks a
//! PL/pgSQL body with integer for the element types and leaves a SQL
//! body's planning to the calls, as PostgreSQL's validators do.

pub(crate) mod commands;
mod compile;
pub(crate) mod run;

use std::sync::Arc;

use nestor_catalog::{FunctionDef, Language, Returns, Volatility};
use nestor_common::{DbError, SqlState};
use nestor_types::datatype::DataType;
use nestor_types::Value;
use serde_json::Value as J;

use crate::context::{Outcome, StatementCtx};

/// A type name as PL/pgSQL declarations write it (`int`, `varchar(10)`,
/// `pg_catalog."numeric"`), resolved by the SQL grammar.
pub(crate) fn type_from_text(t: &str) -> Result<DataType, DbError> {
    nestor_plan::bind::type_from_name(&type_name_of_text(t)?)
}

/// The domain a declared type names (not an array of one), None for any
/// other type or text that is no type name.
pub(crate) fn domain_of_text(t: &str) -> Option<u32> {
    let tn = type_name_of_text(t).ok()?;
    match nestor_plan::bind::domain::domain_or_array(&tn) {
        Some((d, false)) => Some(d.oid),
        _ => None,
    }
}

/// `t` parsed as a type name.
fn type_name_of_text(t: &str) -> Result<nestor_parser::pb::TypeName, DbError> {
    let stmts = nestor_parser::parse_sql(&format!("SELECT NULL::{t}"))?;
    stmts
        .first()
        .and_then(|s| s.stmt.as_ref())
        .and_then(|n| n.node.as_ref())
        .and_then(|n| match n {
            nestor_parser::NodeEnum::SelectStmt(s) => s.target_list.first(),
            _ => None,
        })
        .and_then(|t| match t.node.as_ref() {
            Some(nestor_parser::NodeEnum::ResTarget(rt)) => rt.val.as_deref(),
            _ => None,
        })
        .and_then(|v| match v.node.as_ref() {
            Some(nestor_parser::NodeEnum::TypeCast(tc)) => tc.type_name.as_ref(),
            _ => None,
        })
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("type \"{t}\" does not exist"),
            )
        })
        .cloned()
}

/// The CREATE FUNCTION text libpg_query's PL/pgSQL parser is given for a
/// stored function (the body as written, so line numbers are the body's),
/// and the arguments the body's wrapper block shadows (see
/// [`refcursor_wrapper`]).
fn create_text(def: &FunctionDef, records: &[usize]) -> (String, Vec<usize>) {
    let mut tag = "$nestor$".to_string();
    while def.body.contains(&tag) {
        tag.insert(1, 'x');
    }
    let args: Vec<String> = def
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mode = match a.mode {
                nestor_catalog::ArgMode::In => "IN",
                nestor_catalog::ArgMode::Out => "OUT",
                nestor_catalog::ArgMode::InOut => "INOUT",
                nestor_catalog::ArgMode::Variadic => "VARIADIC",
            };
            let name = if a.name.is_empty() {
                format!("\"$nestor_arg{i}\"")
            } else {
                format!("\"{}\"", a.name.replace('"', "\"\""))
            };
            format!("{mode} {name} {}", a.ty)
        })
        .collect();
    let returns = match (&def.returns, def.procedure) {
        (_, true) => String::new(),
        (Returns::Trigger, _) => " RETURNS trigger".into(),
        (Returns::Scalar(t), _) if def.retset => format!(" RETURNS SETOF {t}"),
        (Returns::Scalar(t), _) => format!(" RETURNS {t}"),
        (Returns::Row(_) | Returns::RowType(_) | Returns::Record, _) if def.retset => {
            " RETURNS SETOF record".into()
        }
        (Returns::Row(_) | Returns::RowType(_) | Returns::Record, _) => " RETURNS record".into(),
    };
    let (body, shadows) = refcursor_wrapper(def, &compile::wrap_bare_returns(&def.body), records);
    let text = format!(
        "CREATE {} f({}){returns} AS {tag}{body}{tag} LANGUAGE plpgsql",
        if def.procedure {
            "PROCEDURE"
        } else {
            "FUNCTION"
        },
        args.join(", "),
    );
    (text, shadows)
}

/// libpg_query's PL/pgSQL parser types a function's arguments as unknown,
/// so OPEN, FETCH, MOVE and CLOSE of a `refcursor` argument (`OPEN $1 FOR
/// ...`, text to Nestor's types) fail its "must be of type cursor or
/// refcursor" check. A body that uses those statements and has text
/// arguments is given to it inside a block declaring a refcursor of each
/// such argument's names (`"rc"`, `"$1"`), on the body's first line so line
/// numbers stay; the compiler takes those declarations for the arguments
/// themselves ([`compile::Signature::shadows`]). Returns the body and the
/// argument each declaration stands for. So are the arguments of a row
/// type in `records` declared there as `record`, for the same parser
/// takes a field assignment (`state.total := 1`) only on a record
/// variable.
fn refcursor_wrapper(def: &FunctionDef, body: &str, records: &[usize]) -> (String, Vec<usize>) {
    let mut texts: Vec<usize> = (0..def.args.len())
        .filter(|&i| def.args[i].ty == DataType::Text)
        .collect();
    if !compile::uses_cursor_statements(body) {
        texts.clear();
    }
    if texts.is_empty() && records.is_empty() {
        return (body.to_string(), Vec::new());
    }
    let mut decls = String::new();
    let mut shadows = Vec::new();
    for &i in records {
        let a = &def.args[i];
        decls.push_str(&format!("\"{}\" record; ", a.name.replace('"', "\"\"")));
        shadows.push(i);
    }
    for i in texts {
        let a = &def.args[i];
        if !a.name.is_empty() {
            decls.push_str(&format!("\"{}\" refcursor; ", a.name.replace('"', "\"\"")));
            shadows.push(i);
        }
        decls.push_str(&format!("\"${}\" refcursor; ", i + 1));
        shadows.push(i);
    }
    // `#option` lines stay first, as the grammar wants them.
    let split = body.len() - compile::after_options(body).len();
    let (options, rest) = body.split_at(split);
    let semi = if compile::ends_with_semicolon(rest) {
        ""
    } else {
        ";"
    };
    (
        format!("{options}DECLARE {decls}BEGIN {rest}{semi} END"),
        shadows,
    )
}

/// A PL/pgSQL syntax error as PostgreSQL reports it at CREATE time: at
/// the offending token, a position in `body` (see [`body_error`]), or,
/// where the token cannot be placed, near its line.
fn syntax_error(e: nestor_parser::PlpgsqlSyntaxError, name: &str, body: &str) -> DbError {
    let err = DbError::new(SqlState::SyntaxError, e.message.clone());
    match e
        .body_line
        .and_then(|l| error_position(body, l, &e.message))
    {
        Some(p) => err.with_position(p),
        None => err.with_context(format!(
            "compilation of PL/pgSQL function \"{name}\"{}",
            e.body_line
                .map(|l| format!(" near line {l}"))
                .unwrap_or_default()
        )),
    }
}

/// Where in `body` (1-based characters) a PL/pgSQL parser error is.
/// libpg_query passes on the message and the line of the last statement
/// the parser began (at or before the error), not PostgreSQL's position,
/// so it is found again from the message: the token it quotes (`at or
/// near "THEN"`, `"x" is not a known variable`) is looked for from that
/// line on; `syntax error at end of input` (an expression cut short) is
/// the end of the statement, its `;`; any other `at end of input` is the
/// end of the body.
fn error_position(body: &str, line: u32, message: &str) -> Option<u32> {
    let line_start: usize = body
        .split_inclusive('\n')
        .take(line.checked_sub(1)? as usize)
        .map(str::len)
        .sum();
    let rest = body.get(line_start..)?;
    let at = if message == "syntax error at end of input" {
        rest.find(';')?
    } else if message.ends_with(" at end of input") {
        return Some(body.chars().count() as u32 + 1);
    } else {
        let token = message.split('"').nth(1).filter(|t| !t.is_empty())?;
        find_token(rest, token)?
    };
    Some((body[..line_start + at].chars().count() + 1) as u32)
}

/// The first occurrence of `token` in `text` (ASCII case-insensitive) not
/// inside a longer word.
fn find_token(text: &str, token: &str) -> Option<usize> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let hay = text.to_ascii_lowercase();
    let needle = token.to_ascii_lowercase();
    let bytes = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = hay.get(from..)?.find(&needle).map(|i| i + from) {
        let end = i + needle.len();
        let starts_word = needle.bytes().next().is_some_and(word);
        let ends_word = needle.bytes().last().is_some_and(word);
        let clean_start = !starts_word || i == 0 || !word(bytes[i - 1]);
        let clean_end = !ends_word || end >= bytes.len() || !word(bytes[end]);
        if clean_start && clean_end {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// An error whose position is in a function body (PL/pgSQL syntax
/// checked at CREATE FUNCTION or DO, a SQL function's statements) placed
/// in the client's statement `text`, where the body is a string literal,
/// as PostgreSQL's function_parse_error_transpose does; `context` names
/// the function instead where the literal cannot be found.
pub(crate) fn body_error(mut e: DbError, text: &str, body: &str, context: String) -> DbError {
    if let Some(p) = e.position.take() {
        if let Some(p) = literal_position(text, body, p) {
            return e.with_position(p);
        }
    }
    if e.context.is_some() {
        return e;
    }
    run::add_context(e, context)
}

/// A compile warning positioned in `body`, positioned in the client's
/// `text` where the body's literal is found (else unpositioned).
pub(crate) fn body_warning(mut w: DbError, text: &str, body: &str) -> DbError {
    w.position = w.position.and_then(|p| literal_position(text, body, p));
    w
}

/// Character `pos` (1-based) of `body` as a position in `text`, where
/// `body` is written as a dollar-quoted or single-quoted literal.
fn literal_position(text: &str, body: &str, pos: u32) -> Option<u32> {
    let chars_before = |byte: usize| text[..byte].chars().count() as u32;
    // $tag$body$tag$: the body verbatim.
    let mut from = 0;
    while let Some(i) = text[from..].find(body).map(|i| i + from) {
        if text[..i].ends_with('$') {
            return Some(chars_before(i) + pos);
        }
        from = i + body.len().max(1);
        if from > text.len() {
            break;
        }
    }
    // 'body' with each quote doubled.
    let quoted = format!("'{}'", body.replace('\'', "''"));
    let i = text.find(&quoted)? + 1;
    let quotes_before = body
        .chars()
        .take(pos.saturating_sub(1) as usize)
        .filter(|&c| c == '\'')
        .count() as u32;
    Some(chars_before(i) + pos + quotes_before)
}

/// A function parsed: its tree, the row variables parsed as `record`
/// ([`parse_one`]) and the wrapper's shadow declarations
/// ([`refcursor_wrapper`]). An argument of a row type whose field is
/// assigned (`"state.total" is not a known variable`) is declared as a
/// record in the wrapper, and the body parsed again.
fn parse_function(def: &FunctionDef) -> Result<(J, RowDecls, Vec<usize>), DbError> {
    let mut records: Vec<usize> = Vec::new();
    loop {
        let (text, shadows) = create_text(def, &records);
        match parse_one(&text, &def.name, &def.body) {
            Ok((json, rows)) => return Ok((json, rows, shadows)),
            Err(e) => {
                let arg = unknown_field_target(&e.message).and_then(|var| {
                    def.args.iter().position(|a| {
                        a.name.eq_ignore_ascii_case(&var)
                            && matches!(a.ty, DataType::Record(rt) if rt.oid != 0)
                    })
                });
                match arg {
                    Some(i) if !records.contains(&i) => records.push(i),
                    _ => return Err(e),
                }
            }
        }
    }
}

/// The parsed function, and the row variables declared with a composite
/// type that the parser was given as `record` (see [`row_declaration`]).
fn parse_one(text: &str, name: &str, body: &str) -> Result<(J, RowDecls), DbError> {
    let mut text = text.to_string();
    let mut rows: RowDecls = Vec::new();
    let json = loop {
        match nestor_parser::parse_plpgsql(&text) {
            Ok(json) => break json,
            Err(e) => {
                let retry = (rows.len() < ROW_DECLARATIONS_MAX)
                    .then(|| unknown_field_target(&e.message))
                    .flatten()
                    .and_then(|var| row_declaration(&text, &var).map(|d| (var, d)));
                let Some((var, (range, ty))) = retry else {
                    return Err(syntax_error(e, name, body));
                };
                text.replace_range(range, "record");
                rows.push((var, ty));
            }
        }
    };
    let v: J = serde_json::from_str(&json)
        .map_err(|e| DbError::internal(format!("PL/pgSQL tree: {e}")))?;
    let func = v
        .as_array()
        .and_then(|a| a.first())
        .cloned()
        .ok_or_else(|| DbError::internal("PL/pgSQL tree: no function"))?;
    Ok((func, rows))
}

/// Row variables declared with a composite type and parsed as `record`:
/// (name as the parser folds it, the declared type's text).
pub(crate) type RowDecls = Vec<(String, String)>;

/// At most this many declarations are re-parsed as `record` per function.
const ROW_DECLARATIONS_MAX: usize = 64;

/// The variable of `"r.total" is not a known variable` (libpg_query's
/// grammar takes a field assignment only on a `record` variable).
fn unknown_field_target(message: &str) -> Option<String> {
    let quoted = message
        .strip_prefix('"')?
        .strip_suffix("\" is not a known variable")?;
    let (var, _) = quoted.split_once('.')?;
    Some(var.to_ascii_lowercase())
}

/// Where the type of `var`'s declaration is in `text`, and its text: a
/// declaration starts after DECLARE or a `;`, and its type runs up to
/// `;`, `:=`, `=`, DEFAULT, NOT NULL or COLLATE. libpg_query's PL/pgSQL
/// grammar knows no catalog, so any type but `record` makes a scalar
/// variable whose fields cannot be assigned: the declaration is given to
/// it as `record`, and the compiler types the variable from the text.
fn row_declaration(text: &str, var: &str) -> Option<(std::ops::Range<usize>, String)> {
    let lower = text.to_ascii_lowercase();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(i) = lower[from..].find(var).map(|i| i + from) {
        from = i + var.len();
        let end = i + var.len();
        if (i > 0 && word(b[i - 1])) || b.get(end).is_none_or(|&c| word(c)) {
            continue;
        }
        let before = lower[..i].trim_end();
        let starts = before.ends_with(';')
            || (before.ends_with("declare")
                && !before[..before.len() - "declare".len()]
                    .bytes()
                    .last()
                    .is_some_and(word));
        if !starts {
            continue;
        }
        let mut t = end + (lower[end..].len() - lower[end..].trim_start().len());
        if lower[t..].starts_with("constant")
            && lower.as_bytes().get(t + 8).is_some_and(|&c| !word(c))
        {
            t += 8;
            t += lower[t..].len() - lower[t..].trim_start().len();
        }
        let stop = [";", ":=", "=", " default", " not ", " collate", "\n"]
            .iter()
            .filter_map(|s| lower[t..].find(s))
            .min()?;
        let ty = text[t..t + stop].trim_end();
        if ty.is_empty() || ty.eq_ignore_ascii_case("record") {
            return None;
        }
        return Some((t..t + ty.len(), ty.to_string()));
    }
    None
}

/// The compiled form of a PL/pgSQL function, made once per definition.
fn compiled(
    def: &FunctionDef,
    catalog: &nestor_catalog::Catalog,
) -> Result<Arc<compile::Func>, DbError> {
    if let Some(c) = def.compiled.get() {
        if let Ok(f) = c.clone().downcast::<compile::Func>() {
            return Ok(f);
        }
    }
    // Checked at CREATE FUNCTION: an error here has no position to give.
    let (json, rows, shadows) = parse_function(def).map_err(|mut e| {
        e.position = None;
        e
    })?;
    let func = Arc::new(compile::compile(
        &json,
        compile::Signature {
            name: def.signature(),
            arg_types: def.args.iter().map(|a| a.ty).collect(),
            catalog,
            body: &def.body,
            shadows: &shadows,
            rows: &rows,
            extra: (0, 0),
        },
    )?);
    let _ = def.compiled.set(func.clone());
    Ok(func)
}

/// Check a PL/pgSQL body at CREATE FUNCTION (PostgreSQL's validator: the
/// grammar and the declarations; the SQL inside is checked when it runs).
pub(crate) fn validate(
    def: &FunctionDef,
    catalog: &nestor_catalog::Catalog,
    extra: (u8, u8),
) -> Result<Vec<DbError>, DbError> {
    // A polymorphic function is checked as PostgreSQL's validator does:
    // with integer for its element types.
    let instance;
    let def = if def.is_polymorphic() {
        let r = nestor_plan::bind::polymorphic::Resolution::for_validation();
        instance = nestor_plan::bind::polymorphic::instantiate(&Arc::new(def.clone()), &r)?;
        &instance
    } else {
        def
    };
    let (json, rows, shadows) = parse_function(def)?;
    let func = compile::compile(
        &json,
        compile::Signature {
            name: def.signature(),
            arg_types: def.args.iter().map(|a| a.ty).collect(),
            catalog,
            body: &def.body,
            shadows: &shadows,
            rows: &rows,
            extra,
        },
    )?;
    check_syntax(&func, &def.body)?;
    Ok(func.warnings)
}

/// Every expression and statement of a function parses (PostgreSQL
/// checks them when it compiles the function), an error positioned in
/// `body`: the expression's text is found from its statement's line on.
fn check_syntax(func: &compile::Func, body: &str) -> Result<(), DbError> {
    compile::for_each_expr(func, &mut |line, e| {
        let (planned, shift) = match &e.kind {
            compile::ExprKind::Statement => (e.text.clone(), 0i64),
            _ => (format!("SELECT {}", e.text), -7),
        };
        let Err(mut err) = nestor_parser::parse_sql(&planned) else {
            return Ok(());
        };
        let written = match &e.kind {
            compile::ExprKind::Assign { written, value_at } => {
                (written.as_str(), shift + *value_at as i64)
            }
            _ => (e.text.as_str(), shift),
        };
        err.position = err.position.and_then(|p| {
            let at = text_position(body, line, written.0)?;
            Some((at as i64 + p as i64 + written.1).max(1) as u32)
        });
        Err(err)
    })
}

/// The 0-based character offset of `text` in `body`, looked for from
/// line `line` on (the whole body when the line is unknown).
fn text_position(body: &str, line: i64, text: &str) -> Option<u32> {
    let line_start: usize = body
        .split_inclusive('\n')
        .take((line - 1).max(0) as usize)
        .map(str::len)
        .sum();
    let at = body.get(line_start..)?.find(text)? + line_start;
    Some(body[..at].chars().count() as u32)
}

/// Call a user-defined function or procedure with its input arguments.
pub(crate) fn call(
    def: &Arc<FunctionDef>,
    args: Vec<Value>,
    ctx: &mut StatementCtx<'_>,
) -> Result<Outcome, DbError> {
    if def.strict && args.iter().any(Value::is_null) {
        return Ok(if def.retset {
            Outcome::Rows(Vec::new())
        } else {
            Outcome::Value(Value::Null)
        });
    }
    // Only a PL/pgSQL procedure (reached by CALL) may end the transaction:
    // a function, or anything a function runs, may not.
    let may_end_txn = ctx.may_end_txn;
    ctx.may_end_txn &= def.procedure && def.language == Language::PlPgSql;
    let r = match def.language {
        Language::PlPgSql => compiled(def, ctx.catalog).and_then(|func| {
            let volatile = def.volatility == Volatility::Volatile;
            run::Run::new(&func, Some(def), volatile).call(ctx, args)
        }),
        Language::Sql => sql_function(def, args, ctx),
    };
    ctx.may_end_txn = may_end_txn;
    r
}

/// Fire a trigger function (PL/pgSQL; a SQL function cannot return
/// trigger).
pub(crate) fn call_trigger(
    def: &Arc<FunctionDef>,
    call: crate::context::TriggerCall<'_>,
    ctx: &mut StatementCtx<'_>,
) -> Result<Option<Vec<Value>>, DbError> {
    let may_end_txn = std::mem::replace(&mut ctx.may_end_txn, false);
    ctx.trigger_depth += 1;
    let r = compiled(def, ctx.catalog).and_then(|func| {
        let volatile = def.volatility == Volatility::Volatile;
        run::Run::new(&func, Some(def), volatile).call_trigger(ctx, call)
    });
    ctx.trigger_depth -= 1;
    ctx.may_end_txn = may_end_txn;
    r
}

/// DO $$ ... $$ [LANGUAGE plpgsql].
pub(crate) fn run_do(ctx: &mut StatementCtx<'_>, text: &str, code: &str) -> Result<(), DbError> {
    let mut tag = "$nestor$".to_string();
    while code.contains(&tag) {
        tag.insert(1, 'x');
    }
    let compiled = || {
        let (json, rows) = parse_one(
            &format!("DO {tag}{}{tag}", compile::wrap_bare_returns(code)),
            "inline_code_block",
            code,
        )?;
        let func = compile::compile(
            &json,
            compile::Signature {
                name: "inline_code_block".into(),
                arg_types: Vec::new(),
                catalog: ctx.catalog,
                body: code,
                shadows: &[],
                rows: &rows,
                extra: (
                    ctx.settings.plpgsql_extra_warnings,
                    ctx.settings.plpgsql_extra_errors,
                ),
            },
        )?;
        check_syntax(&func, code)?;
        Ok(func)
    };
    let func = compiled().map_err(|e| {
        let context = "compilation of PL/pgSQL function \"inline_code_block\"".to_string();
        body_error(e, text, code, context)
    })?;
    for w in &func.warnings {
        ctx.notices.push(body_warning(w.clone(), text, code));
    }
    run::Run::new(&func, None, true)
        .call(ctx, Vec::new())
        .map(|_| ())
}

// ----- SQL functions ----------------------------------------------------------

/// The statements of a SQL function's body.
fn sql_body(def: &FunctionDef) -> Result<Vec<nestor_parser::Statement>, DbError> {
    nestor_parser::parse_sql(&def.body).map_err(|mut e| {
        e.position = None;
        e.with_context(format!("SQL function \"{}\"", def.name))
    })
}

/// Check a SQL function's body at CREATE FUNCTION: it parses, and each
/// statement plans with the arguments as parameters. Errors are
/// positioned in the body (see [`body_error`]).
pub(crate) fn validate_sql(def: &FunctionDef, ctx: &StatementCtx<'_>) -> Result<(), DbError> {
    let stmts = nestor_parser::parse_sql(&def.body)?;
    if stmts.is_empty() && !matches!(def.returns, Returns::Scalar(DataType::Void)) && !def.procedure
    {
        return Err(DbError::new(
            SqlState::InvalidFunctionDefinition,
            "return type mismatch in function declared to return ".to_string()
                + &return_type_name(def),
        )
        .with_detail(
            "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.",
        ));
    }
    if def.is_polymorphic() {
        // As PostgreSQL: the statements are planned when a call has
        // resolved the argument types.
        return Ok(());
    }
    let hints: Vec<u32> = def.input_types().iter().map(|t| t.oid()).collect();
    let vars = nestor_plan::bind::FunctionParams { def };
    for s in &stmts {
        let node = nestor_plan::statement::statement_node(s)?;
        if !nestor_plan::handles(node) || matches!(node, nestor_parser::NodeEnum::CreateStmt(_)) {
            // Utility statements and DDL are checked when they run.
            continue;
        }
        crate::statement::prepare_with(ctx.catalog, ctx.eval, &def.body, s, &hints, &vars)?;
    }
    Ok(())
}

/// A SQL function returning a table's or composite type's rows takes
/// the type modifiers of its fields (`numeric(35,6)` rounds the body's
/// value, as PostgreSQL's coercion of the final statement's targets
/// does). OUT parameters have none: PostgreSQL drops a parameter's
/// modifier. Rows of another width are left to the caller's check.
fn fit_typmods(
    def: &FunctionDef,
    rows: &mut [Vec<Value>],
    ctx: &StatementCtx<'_>,
) -> Result<(), DbError> {
    if matches!(def.returns, Returns::Row(_)) {
        return Ok(());
    }
    let Some(cols) = def.result_columns(ctx.catalog)? else {
        return Ok(());
    };
    if cols.iter().all(|(_, t)| t.typmod() == -1) {
        return Ok(());
    }
    for row in rows.iter_mut().filter(|r| r.len() == cols.len()) {
        for (v, (_, t)) in row.iter_mut().zip(&cols) {
            if t.typmod() != -1 && !v.is_null() {
                let raw = std::mem::replace(v, Value::Null);
                *v = nestor_plan::valops::cast(raw, *t, false, &ctx.eval)?;
            }
        }
    }
    Ok(())
}

fn return_type_name(def: &FunctionDef) -> String {
    match &def.returns {
        Returns::Scalar(t) => t.to_string(),
        Returns::Row(_) | Returns::RowType(_) | Returns::Record => "record".into(),
        Returns::Trigger => "trigger".into(),
    }
}

fn sql_function(
    def: &Arc<FunctionDef>,
    args: Vec<Value>,
    ctx: &mut StatementCtx<'_>,
) -> Result<Outcome, DbError> {
    nestor_common::stack::check()?;
    let stmts = sql_body(def)?;
    let hints: Vec<u32> = def.input_types().iter().map(|t| t.oid()).collect();
    let vars = nestor_plan::bind::FunctionParams { def };
    let volatile = def.volatility == Volatility::Volatile;
    let mut last: Vec<Vec<Value>> = Vec::new();
    let n = stmts.len();
    for (i, s) in stmts.iter().enumerate() {
        let context = || format!("SQL function \"{}\" statement {}", def.name, i + 1);
        let prepared =
            crate::statement::prepare_with(ctx.catalog, ctx.eval, &def.body, s, &hints, &vars)
                .map_err(|e| run::add_context(e, context()))?;
        let saved = (ctx.snapshot, ctx.txn.cid(), ctx.restarts);
        if volatile {
            ctx.snapshot = ctx.txn.start_statement_with(&ctx.wait)?;
        }
        let mut rows: Vec<Vec<Value>> = Vec::new();
        let r = crate::statement::execute_nested(ctx, &prepared, &args, &mut rows);
        if ctx.restarts == saved.2 {
            ctx.snapshot = saved.0;
            ctx.txn.restore_command(saved.1);
        }
        r.map_err(|e| run::add_context(e, context()))?;
        if i + 1 == n {
            last = rows;
        }
    }
    let outs: Vec<DataType> = def
        .args
        .iter()
        .filter(|a| a.mode.is_output())
        .map(|a| a.ty)
        .collect();
    if def.procedure && !outs.is_empty() {
        // A procedure's OUT/INOUT arguments come from its last statement's
        // first row (NULLs without one), as PostgreSQL's CALL returns them.
        let mut row = last.into_iter().next().unwrap_or_default();
        row.resize(outs.len(), Value::Null);
        let row = row
            .into_iter()
            .zip(&outs)
            .map(|(v, t)| {
                if v.is_null() {
                    Ok(v)
                } else {
                    nestor_plan::valops::cast(v, *t, false, &ctx.eval)
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Outcome::Rows(vec![row]));
    }
    if def.procedure || matches!(def.returns, Returns::Scalar(DataType::Void)) {
        return Ok(Outcome::Value(Value::Text(Arc::from(""))));
    }
    match (&def.returns, def.retset) {
        (_, true) | (Returns::Row(_) | Returns::RowType(_), _) => {
            let mut rows = if def.retset {
                last
            } else {
                last.into_iter().take(1).collect()
            };
            fit_typmods(def, &mut rows, ctx)?;
            Ok(Outcome::Rows(rows))
        }
        // A named composite type: the first row as one value (or the
        // row's one column when it already is that record).
        (Returns::Scalar(t @ DataType::Record(rt)), false)
            if rt.oid != 0 && last.first().is_some_and(|r| r.len() != 1) =>
        {
            let row = last.into_iter().next().expect("a first row");
            Ok(Outcome::Value(nestor_plan::valops::cast(
                Value::Record(row.into()),
                *t,
                false,
                &ctx.eval,
            )?))
        }
        (Returns::Scalar(t), false) => {
            let v = last
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null);
            if v.is_null() {
                return Ok(Outcome::Value(v));
            }
            Ok(Outcome::Value(nestor_plan::valops::cast(
                v, *t, false, &ctx.eval,
            )?))
        }
        // One anonymous record: the first row, NULL without one.
        (Returns::Record, false) => Ok(Outcome::Value(
            last.into_iter()
                .next()
                .map_or(Value::Null, |r| Value::Record(r.into())),
        )),
        _ => Ok(Outcome::Value(Value::Null)),
    }
}
