//! `CREATE TABLE name AS EXECUTE prepared(args) [WITH [NO] DATA]`: a
//! table made from a prepared statement's query and filled by running it
//! with the arguments, as PostgreSQL's ExecCreateTableAs runs ExecuteQuery.
//!
//! The prepared statements are the session's, and DDL runs below the
//! session with no parameter values (`nestor_exec` plans CREATE TABLE AS
//! from its query text), so the statement is turned into the CREATE TABLE
//! AS it stands for before it runs: the prepared query, deparsed, with
//! each `$n` replaced by its argument as a typed literal (`('42'::integer)`,
//! `(NULL::text)`), the argument evaluated and coerced to the parameter's
//! type as EXECUTE does. The typed literal has the parameter's type, so
//! the new table's columns are typed as PostgreSQL types them.
//!
//! PostgreSQL's order of checks is kept: an existing table (42P07, or
//! IF NOT EXISTS's notice) before the prepared statement is looked at,
//! then an unknown statement (26000), the argument count (42601), and a
//! statement that is not a SELECT (42809).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, node::Node as NodeEnum, Node, RawStmt};
use nestor_types::Value;

use super::Session;
use crate::portal::StmtBody;

/// Whether `node` is a CREATE TABLE AS EXECUTE.
pub(crate) fn applies(node: &NodeEnum) -> bool {
    matches!(node, NodeEnum::CreateTableAsStmt(cta)
        if matches!(cta.query.as_ref().and_then(|q| q.node.as_ref()), Some(NodeEnum::ExecuteStmt(_))))
}

/// The CREATE TABLE AS that `node` stands for when it is one AS EXECUTE
/// (its text and parse), else None.
pub(crate) fn rewrite(
    s: &mut Session,
    text: &str,
    node: &NodeEnum,
) -> Result<Option<(Arc<str>, RawStmt)>, DbError> {
    let NodeEnum::CreateTableAsStmt(cta) = node else {
        return Ok(None);
    };
    let Some(NodeEnum::ExecuteStmt(e)) = cta.query.as_ref().and_then(|q| q.node.as_ref()) else {
        return Ok(None);
    };
    let query = if target_exists(s, cta)? {
        // The CREATE TABLE AS fails (or skips) on the table first.
        parse_query("SELECT")?
    } else {
        inline(s, text, e)?
    };
    let mut new = (**cta).clone();
    new.query = Some(Box::new(query));
    let stmt = Node {
        node: Some(NodeEnum::CreateTableAsStmt(Box::new(new))),
    };
    let text = nestor_parser::deparse_stmt(&stmt)?;
    let raw = nestor_parser::parse_sql(&text)?
        .into_iter()
        .next()
        .ok_or_else(|| DbError::internal("CREATE TABLE AS EXECUTE: empty rewrite"))?;
    Ok(Some((text.into(), raw)))
}

/// Whether the table CREATE TABLE AS would create already exists (or a
/// relation of its name does).
fn target_exists(s: &Session, cta: &pb::CreateTableAsStmt) -> Result<bool, DbError> {
    let Some(rv) = cta.into.as_ref().and_then(|i| i.rel.as_ref()) else {
        return Ok(false);
    };
    let name = nestor_plan::bind::relname(rv)?;
    let temporary = rv.relpersistence == "t";
    Ok(s.catalog.name_taken_in(&name, temporary)
        || (!temporary && s.catalog.composite(&name).is_some()))
}

/// The prepared statement's query with EXECUTE's arguments in place of
/// its parameters.
fn inline(s: &mut Session, text: &str, e: &pb::ExecuteStmt) -> Result<Node, DbError> {
    let stmt = s
        .statements
        .get(&e.name)
        .cloned()
        .ok_or_else(|| super::utility::missing_statement(&e.name))?;
    super::utility::check_param_count(&e.name, e.params.len(), stmt.param_types.len())?;
    let params = super::utility::execute_params(s, text, &e.params, &stmt.param_types)?;
    let query = stmt.raw.stmt.as_deref();
    let is_select = matches!(stmt.body, StmtBody::Query(_))
        && matches!(
            query.and_then(|n| n.node.as_ref()),
            Some(NodeEnum::SelectStmt(_))
        );
    let Some(query) = query.filter(|_| is_select) else {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            "prepared statement is not a SELECT",
        ));
    };
    stmt.count_execution();
    let mut query = query.clone();
    name_bare_params(&mut query);
    let text = nestor_parser::deparse_stmt(&query)?;
    let literals = params
        .iter()
        .zip(&stmt.param_types)
        .map(|(v, &oid)| literal(s, v, oid))
        .collect::<Result<Vec<_>, _>>()?;
    parse_query(&substitute(&text, &literals)?)
}

/// A bare `$n` in the select list is named `?column?`; the literal put
/// in its place would be named by its type (`int4`), so the column keeps
/// its name by an alias. The leftmost SELECT of a set operation names the
/// columns.
fn name_bare_params(query: &mut Node) {
    let Some(NodeEnum::SelectStmt(sel)) = query.node.as_mut() else {
        return;
    };
    if let Some(larg) = sel.larg.as_mut() {
        let mut n = Node {
            node: Some(NodeEnum::SelectStmt(larg.clone())),
        };
        name_bare_params(&mut n);
        if let Some(NodeEnum::SelectStmt(l)) = n.node {
            *larg = l;
        }
        return;
    }
    for t in &mut sel.target_list {
        if let Some(NodeEnum::ResTarget(rt)) = t.node.as_mut() {
            let bare = matches!(
                rt.val.as_deref().and_then(|v| v.node.as_ref()),
                Some(NodeEnum::ParamRef(_))
            );
            if bare && rt.name.is_empty() {
                rt.name = "?column?".into();
            }
        }
    }
}

/// `(NULL::type)` or `('text'::type)`: a value of the parameter's type.
fn literal(s: &Session, v: &Value, oid: u32) -> Result<String, DbError> {
    let ty = nestor_exec::pg_catalog::format_type(oid, None).ok_or_else(|| {
        DbError::unsupported(format!(
            "CREATE TABLE AS EXECUTE with a parameter of type {oid}"
        ))
    })?;
    Ok(match nestor_plan::valops::to_text(v, &s.eval_ctx()) {
        None => format!("(NULL::{ty})"),
        Some(t) => format!("('{}'::{ty})", t.replace('\'', "''")),
    })
}

/// `sql` with each parameter token `$n` replaced by `literals[n - 1]`.
fn substitute(sql: &str, literals: &[String]) -> Result<String, DbError> {
    use nestor_parser::pb::Token;
    let scan = nestor_parser::scan(sql)?;
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0usize;
    for t in &scan.tokens {
        if t.token != Token::Param as i32 {
            continue;
        }
        let (start, end) = (t.start as usize, t.end as usize);
        let n: usize = sql
            .get(start + 1..end)
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
        let lit = n
            .checked_sub(1)
            .and_then(|i| literals.get(i))
            .ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedParameter,
                    format!("there is no parameter ${n}"),
                )
            })?;
        out.push_str(&sql[copied..start]);
        out.push_str(lit);
        copied = end;
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}

fn parse_query(sql: &str) -> Result<Node, DbError> {
    nestor_parser::parse_sql(sql)?
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .map(|b| *b)
        .ok_or_else(|| DbError::internal("CREATE TABLE AS EXECUTE: empty query"))
}
