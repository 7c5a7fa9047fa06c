//! # nestor-parser: PostgreSQL's own grammar, through libpg_query
//!
//! The only crate with `unsafe` code (the FFI call into libpg_query). Every
//! other crate reaches the parse tree types through this one: [`pb`] is the
//! protobuf AST, [`NodeEnum`] its node enum, and [`ast`] has the small
//! helpers the binder and the session share (names, locations, error
//! cursors).
//!
//! The `pg_query` crate's `parse()` drops the syntax error's cursor position
//! and builds a summary of every statement (tables, aliases, functions) that
//! nothing here needs. We call the library's C entry point
//! `pg_query_parse_protobuf` directly (the static library is linked by the
//! `pg_query` crate) and decode its protobuf with the crate's generated
//! types. Errors become 42601 with PostgreSQL's message and the 1-based
//! character position of the cursor, so clients print `LINE 1: ... ^`.

// The FFI call into libpg_query is the only unsafe code in Nestor's SQL
// layer; everything else in this crate is safe.
#![deny(unsafe_code)]

use std::ffi::{c_char, c_int, CStr, CString};

use nestor_common::{DbError, SqlState};
use pg_query::protobuf::{ParseResult, RawStmt};

pub use pg_query::protobuf as pb;
pub use pg_query::protobuf::RawStmt as Statement;
pub use pg_query::{NodeEnum, NodeRef};
use prost::Message;

pub mod ast;
mod cache;
pub mod depth;
pub use nestor_common::keywords::is_reserved_keyword;
mod lex;
mod literals;
pub mod nonstandard;

pub use cache::{parse_sql_cached, parse_sql_shaped, Origin, Parsed};

#[repr(C)]
struct PgQueryError {
    message: *mut c_char,
    funcname: *mut c_char,
    filename: *mut c_char,
    lineno: c_int,
    cursorpos: c_int,
    context: *mut c_char,
}

#[repr(C)]
struct PgQueryProtobuf {
    len: usize,
    data: *mut c_char,
}

#[repr(C)]
struct PgQueryProtobufParseResult {
    parse_tree: PgQueryProtobuf,
    stderr_buffer: *mut c_char,
    error: *mut PgQueryError,
}

#[repr(C)]
struct PgQueryPlpgsqlParseResult {
    plpgsql_funcs: *mut c_char,
    error: *mut PgQueryError,
}

#[allow(unsafe_code)]
extern "C" {
    fn pg_query_parse_protobuf(input: *const c_char) -> PgQueryProtobufParseResult;
    fn pg_query_free_protobuf_parse_result(result: PgQueryProtobufParseResult);
    fn pg_query_parse_plpgsql(input: *const c_char) -> PgQueryPlpgsqlParseResult;
    fn pg_query_free_plpgsql_parse_result(result: PgQueryPlpgsqlParseResult);
}

/// A PL/pgSQL syntax error: PostgreSQL's message and, when known, the line
/// of the function body it was found on.
#[derive(Clone, Debug)]
pub struct PlpgsqlSyntaxError {
    pub message: String,
    /// 1-based character position in the text given to [`parse_plpgsql`].
    pub cursorpos: Option<u32>,
    /// The line of the function body the parser had reached (PostgreSQL's
    /// `compilation of PL/pgSQL function "f" near line N`): libpg_query
    /// does not pass on the position inside the body.
    pub body_line: Option<u32>,
}

/// PostgreSQL's PL/pgSQL parser (through libpg_query) on a `CREATE
/// FUNCTION ... LANGUAGE plpgsql` or `DO` statement: the compiled function
/// tree as JSON text (one object per function in the text).
#[allow(unsafe_code)]
pub fn parse_plpgsql(text: &str) -> Result<String, PlpgsqlSyntaxError> {
    let input = CString::new(text).map_err(|_| PlpgsqlSyntaxError {
        message: "invalid byte sequence for encoding \"UTF8\": 0x00".into(),
        cursorpos: None,
        body_line: None,
    })?;
    // SAFETY: `input` is a valid NUL-terminated string; the result is read
    // according to pg_query.h and freed exactly once below.
    let result = unsafe { pg_query_parse_plpgsql(input.as_ptr()) };
    let out = unsafe {
        if !result.error.is_null() {
            let err = &*result.error;
            let message = if err.message.is_null() {
                "syntax error".to_string()
            } else {
                CStr::from_ptr(err.message).to_string_lossy().into_owned()
            };
            let context = if err.context.is_null() {
                String::new()
            } else {
                CStr::from_ptr(err.context).to_string_lossy().into_owned()
            };
            let body_line = context
                .rsplit_once("near line ")
                .and_then(|(_, n)| n.trim().parse().ok());
            Err(PlpgsqlSyntaxError {
                message,
                cursorpos: (err.cursorpos > 0).then_some(err.cursorpos as u32),
                body_line,
            })
        } else if result.plpgsql_funcs.is_null() {
            Ok("[]".to_string())
        } else {
            Ok(CStr::from_ptr(result.plpgsql_funcs)
                .to_string_lossy()
                .into_owned())
        }
    };
    // SAFETY: the result came from pg_query_parse_plpgsql.
    unsafe { pg_query_free_plpgsql_parse_result(result) };
    out
}

/// Parse `text` into its statements.
#[allow(unsafe_code)]
pub fn parse_sql(text: &str) -> Result<Vec<RawStmt>, DbError> {
    if depth::may_be_too_deep(text) {
        return Err(nestor_common::stack::too_deep());
    }
    let input = CString::new(text).map_err(|_| {
        DbError::new(
            SqlState::CharacterNotInRepertoire,
            "invalid byte sequence for encoding \"UTF8\": 0x00",
        )
    })?;
    // SAFETY: `input` is a valid NUL-terminated string; the result is read
    // according to pg_query.h and freed exactly once below.
    let result = unsafe { pg_query_parse_protobuf(input.as_ptr()) };
    let out = unsafe { decode_result(&result) }.map_err(|e| unicode_escape_error(e, text));
    // SAFETY: the result came from pg_query_parse_protobuf.
    unsafe { pg_query_free_protobuf_parse_result(result) };
    out
}

/// "invalid Unicode escape" with the scanner's SQLSTATE and hint, which
/// libpg_query does not pass on: an `E'...'` string's (22025) or a
/// `U&'...'` string's (42601), told apart by the literal the cursor is in.
fn unicode_escape_error(mut e: DbError, text: &str) -> DbError {
    if e.message != "invalid Unicode escape" {
        return e;
    }
    let upto: String = match e.position {
        Some(p) => text.chars().take(p as usize).collect(),
        None => text.to_string(),
    };
    let lower = upto.to_ascii_lowercase();
    let e_string = lower.rfind("e'");
    let u_string = lower.rfind("u&'");
    if e_string > u_string {
        e.code = SqlState::InvalidEscapeSequence;
        e.with_hint("Unicode escapes must be \\uXXXX or \\UXXXXXXXX.")
    } else {
        e.with_hint("Unicode escapes must be \\XXXX or \\+XXXXXX.")
    }
}

/// # Safety
/// `result` must come from `pg_query_parse_protobuf` and not be freed yet.
#[allow(unsafe_code)]
unsafe fn decode_result(result: &PgQueryProtobufParseResult) -> Result<Vec<RawStmt>, DbError> {
    if !result.error.is_null() {
        let err = &*result.error;
        let message = if err.message.is_null() {
            "syntax error".to_string()
        } else {
            CStr::from_ptr(err.message).to_string_lossy().into_owned()
        };
        let mut e = DbError::new(SqlState::SyntaxError, message);
        // PostgreSQL's cursor position is already in characters.
        if err.cursorpos > 0 {
            e = e.with_position(err.cursorpos as u32);
        }
        return Err(e);
    }
    let data = if result.parse_tree.data.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(result.parse_tree.data as *const u8, result.parse_tree.len)
    };
    let parsed = ParseResult::decode(data)
        .map_err(|e| DbError::internal(format!("could not decode parse tree: {e}")))?;
    Ok(parsed.stmts)
}

/// SQL text of one statement node (PostgreSQL's deparser, through
/// libpg_query): how a SQL-standard function body (BEGIN ATOMIC ...
/// END) is kept as the text the SQL-function runner plans.
pub fn deparse_stmt(stmt: &pg_query::protobuf::Node) -> Result<String, DbError> {
    let n = stmt
        .node
        .as_ref()
        .ok_or_else(|| DbError::internal("an empty statement node"))?;
    n.deparse()
        .map_err(|e| DbError::internal(format!("could not deparse a statement: {e}")))
}

/// SQL text of one expression node (PostgreSQL's deparser, through
/// libpg_query): how DEFAULT and CHECK expressions are stored.
pub fn deparse_expr(expr: &pg_query::protobuf::Node) -> Result<String, DbError> {
    use pg_query::protobuf::{node::Node as N, Node, ResTarget, SelectStmt};
    let target = Node {
        node: Some(N::ResTarget(Box::new(ResTarget {
            val: Some(Box::new(expr.clone())),
            location: -1,
            ..Default::default()
        }))),
    };
    let select = SelectStmt {
        target_list: vec![target],
        limit_option: pg_query::protobuf::LimitOption::Default as i32,
        op: pg_query::protobuf::SetOperation::SetopNone as i32,
        ..Default::default()
    };
    let sql = N::SelectStmt(Box::new(select))
        .deparse()
        .map_err(|e| DbError::internal(format!("could not deparse an expression: {e}")))?;
    sql.strip_prefix("SELECT ")
        .map(str::to_string)
        .ok_or_else(|| DbError::internal(format!("unexpected deparser output: {sql}")))
}

/// A stored expression with every reference to identifier `old` (a
/// column: bare, or qualified as `NEW.old`, `t.old`) renamed to `new`,
/// in the deparser's form. Identifiers followed by `(` are function
/// names and are left alone. Stored expressions are SQL text, so this is
/// what ALTER TABLE ... RENAME COLUMN does to CHECK constraints and
/// trigger conditions (PostgreSQL stores trees that refer to columns by
/// number).
pub fn rename_identifier(sql: &str, old: &str, new: &str) -> Result<String, DbError> {
    deparse_expr(&parse_expr(&replace_identifier(sql, old, new)?)?)
}

/// [`rename_identifier`] for a stored query (a view's definition).
pub fn rename_identifier_in_query(sql: &str, old: &str, new: &str) -> Result<String, DbError> {
    let replaced = replace_identifier(sql, old, new)?;
    let stmts = parse_sql(&replaced)?;
    let stmt = stmts
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .ok_or_else(|| DbError::internal("stored query is empty"))?;
    deparse_query(&stmt)
}

/// `sql` with each identifier token `old` replaced by `new` (quoted if
/// need be), the rest of the text as it was (an index's stored
/// expressions keep their form).
pub fn replace_identifier(sql: &str, old: &str, new: &str) -> Result<String, DbError> {
    use pg_query::protobuf::{KeywordKind, Token};
    let scan = pg_query::scan(sql)
        .map_err(|e| DbError::internal(format!("could not scan a stored expression: {e}")))?;
    let quoted_new = format!("\"{}\"", new.replace('"', "\"\""));
    let mut out = String::with_capacity(sql.len() + new.len());
    let mut copied = 0usize;
    let tokens = &scan.tokens;
    for (i, t) in tokens.iter().enumerate() {
        let (start, end) = (t.start as usize, t.end as usize);
        let word = sql.get(start..end).unwrap_or("");
        let ident =
            t.token == Token::Ident as i32 || t.keyword_kind != KeywordKind::NoKeyword as i32;
        if !ident {
            continue;
        }
        let value = match word.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => word.to_lowercase(),
        };
        let call = tokens
            .get(i + 1)
            .is_some_and(|n| n.token == Token::Ascii40 as i32);
        if value == old && !call {
            out.push_str(&sql[copied..start]);
            out.push_str(&quoted_new);
            copied = end;
        }
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}

/// The tokens of `sql` (PostgreSQL's scanner, through libpg_query).
pub fn scan(sql: &str) -> Result<pg_query::protobuf::ScanResult, DbError> {
    pg_query::scan(sql).map_err(|e| DbError::internal(format!("could not scan SQL: {e}")))
}

/// SQL text of one query (a view's definition): PostgreSQL's deparser.
pub fn deparse_query(query: &pg_query::protobuf::Node) -> Result<String, DbError> {
    query
        .node
        .as_ref()
        .ok_or_else(|| DbError::internal("empty query node"))?
        .deparse()
        .map_err(|e| DbError::internal(format!("could not deparse a query: {e}")))
}

/// Parse one stored expression (the text [`deparse_expr`] produced).
pub fn parse_expr(sql: &str) -> Result<pg_query::protobuf::Node, DbError> {
    use pg_query::protobuf::node::Node as N;
    let stmts = parse_sql(&format!("SELECT {sql}"))?;
    let stmt = stmts.into_iter().next().and_then(|s| s.stmt);
    let expr = match stmt.and_then(|n| n.node) {
        Some(N::SelectStmt(sel)) if sel.target_list.len() == 1 => {
            match sel.target_list.into_iter().next().and_then(|t| t.node) {
                Some(N::ResTarget(rt)) => rt.val,
                _ => None,
            }
        }
        _ => None,
    };
    expr.map(|e| *e)
        .ok_or_else(|| DbError::internal(format!("stored expression is not one expression: {sql}")))
}

/// The 1-based character position of 1-based byte position `byte_pos`.
fn char_position(text: &str, byte_pos: usize) -> u32 {
    let b = byte_pos.saturating_sub(1).min(text.len());
    let mut end = b;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].chars().count() as u32 + 1
}

/// The 1-based character position of byte `location` (a node location) in
/// `text`, for error cursors; None for unknown locations (-1).
pub fn location_to_position(text: &str, location: i32) -> Option<u32> {
    if location < 0 {
        return None;
    }
    Some(char_position(text, location as usize + 1))
}

/// `text` with its literal constants replaced by class markers (the parse
/// cache's key, [`cache`]): texts with one shape differ only in constants,
/// so they share a fingerprint. None if the text cannot be scanned so
/// (then only the text itself stands for it).
pub fn shape_of(text: &str) -> Option<String> {
    literals::scan(text).map(|lits| literals::shape(text, &lits))
}

/// pg_stat_statements' identity of one statement's text: libpg_query's
/// fingerprint (the parse tree with constants, aliases and locations left
/// out, hashed; the same for texts that differ only in constants) and
/// the text normalised as PostgreSQL's pg_stat_statements shows it
/// (constants replaced by `$n`, numbered after the text's own
/// parameters). None if libpg_query cannot parse the text.
///
/// The fingerprint drops runs of digits from relation names (to group
/// partitions: `orders_2023` and `orders_2024` are one fingerprint) and
/// ignores temporary tables' names; PostgreSQL's queryid tells relations
/// apart by OID. So the relation names the text reads or writes are
/// hashed into the result too: one statement on two tables is two
/// identities, as in PostgreSQL.
pub fn fingerprint_normalize(text: &str) -> Option<(u64, String)> {
    use std::hash::{Hash, Hasher};
    let fingerprint = pg_query::fingerprint(text).ok()?;
    let normalized = pg_query::normalize(text).ok()?;
    let mut tables = pg_query::parse(text).ok()?.tables();
    if tables.is_empty() {
        return Some((fingerprint.value, normalized));
    }
    tables.sort();
    tables.dedup();
    // DefaultHasher::new() has fixed keys: the same ids in every run.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    fingerprint.value.hash(&mut h);
    tables.hash(&mut h);
    Some((h.finish(), normalized))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_cursor() {
        let stmts = parse_sql("select 1; select 2").unwrap();
        assert_eq!(stmts.len(), 2);
        let e = parse_sql("select a b c").unwrap_err();
        assert_eq!(e.code, SqlState::SyntaxError);
        assert_eq!(e.message, "syntax error at or near \"c\"");
        assert_eq!(e.position, Some(12));
        let e = parse_sql("select 'é' a b").unwrap_err();
        assert_eq!(e.position, Some(14));
    }

    #[test]
    fn stored_expressions_round_trip() {
        for sql in [
            "nextval('t_id_seq'::regclass)",
            "a > 0 AND b IS NOT NULL",
            "'x'",
        ] {
            let text = deparse_expr(&parse_expr(sql).unwrap()).unwrap();
            assert_eq!(deparse_expr(&parse_expr(&text).unwrap()).unwrap(), text);
            let renamed = rename_identifier(&text, "zz_no_such", "x").unwrap();
            assert_eq!(renamed, text);
            assert_eq!(text, sql);
        }
    }

    #[test]
    fn renaming_a_column_in_stored_expressions() {
        let cases = [
            (
                "a > 0 AND b IS NOT NULL",
                "a",
                "c",
                "c > 0 AND b IS NOT NULL",
            ),
            (
                "new.a IS DISTINCT FROM old.a",
                "a",
                "Big",
                "new.\"Big\" IS DISTINCT FROM old.\"Big\"",
            ),
            ("length(a) > \"a\"", "a", "x", "length(x) > x"),
            ("a(1) = 2", "a", "x", "a(1) = 2"),
            ("value > 1", "value", "v", "v > 1"),
            ("'a' = a", "a", "select", "'a' = \"select\""),
        ];
        for (sql, old, new, want) in cases {
            assert_eq!(rename_identifier(sql, old, new).unwrap(), want, "{sql}");
        }
    }

    #[test]
    fn identifiers_are_truncated_to_the_limit() {
        use nestor_common::limits::IDENTIFIER_BYTES_MAX;
        let long = "a".repeat(IDENTIFIER_BYTES_MAX + 7);
        for sql in [long.clone(), format!("\"{long}\"")] {
            let text = deparse_expr(&parse_expr(&sql).unwrap()).unwrap();
            assert_eq!(text, "a".repeat(IDENTIFIER_BYTES_MAX), "{sql}");
        }
    }
}

/// A column reference found in SQL text by [`map_column_refs`]: `rel.col`
/// (`col` "*" for `rel.*`) or a bare `col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnRefText<'a> {
    pub rel: Option<&'a str>,
    pub col: &'a str,
}

/// `sql` with column references replaced where `f` gives a replacement
/// (the rest of the text as it was). A reference is an identifier not
/// preceded by `.`, `AS` or `::` and not followed by `(` (a function
/// name), optionally followed by `.name` or `.*`. Identifiers are
/// case-folded as PostgreSQL folds them. How a rule's NEW and OLD are
/// put in terms of the statement it rewrites (`nestor_plan::rewrite`).
pub fn map_column_refs(
    sql: &str,
    f: &mut dyn FnMut(ColumnRefText<'_>) -> Option<String>,
) -> Result<String, DbError> {
    use pg_query::protobuf::{KeywordKind, Token};
    let scan = pg_query::scan(sql)
        .map_err(|e| DbError::internal(format!("could not scan a rule's SQL: {e}")))?;
    let tokens = &scan.tokens;
    let word = |i: usize| -> Option<String> {
        let t = tokens.get(i)?;
        let ident = t.token == Token::Ident as i32
            || (t.keyword_kind != KeywordKind::NoKeyword as i32
                && t.keyword_kind != KeywordKind::ReservedKeyword as i32);
        if !ident {
            return None;
        }
        let w = sql.get(t.start as usize..t.end as usize)?;
        Some(
            match w.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
                Some(q) => q.replace("\"\"", "\""),
                None => w.to_lowercase(),
            },
        )
    };
    let is = |i: usize, tok: Token| tokens.get(i).is_some_and(|t| t.token == tok as i32);
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0usize;
    let mut i = 0usize;
    while i < tokens.len() {
        let Some(first) = word(i) else {
            i += 1;
            continue;
        };
        let after_dot = i > 0 && is(i - 1, Token::Ascii46);
        let after_as = i > 0 && (is(i - 1, Token::As) || is(i - 1, Token::Typecast));
        if after_dot || after_as || is(i + 1, Token::Ascii40) {
            i += 1;
            continue;
        }
        let (second, last) = if is(i + 1, Token::Ascii46) {
            if is(i + 2, Token::Ascii42) {
                (Some("*".to_string()), i + 2)
            } else if let Some(w) = word(i + 2) {
                if is(i + 3, Token::Ascii46) || is(i + 3, Token::Ascii40) {
                    // schema.table.col or schema.function(): not ours.
                    i += 3;
                    continue;
                }
                (Some(w), i + 2)
            } else {
                i += 1;
                continue;
            }
        } else {
            (None, i)
        };
        let r = match &second {
            Some(c) => ColumnRefText {
                rel: Some(&first),
                col: c,
            },
            None => ColumnRefText {
                rel: None,
                col: &first,
            },
        };
        if let Some(rep) = f(r) {
            let start = tokens[i].start as usize;
            out.push_str(&sql[copied..start]);
            out.push_str(&rep);
            copied = tokens[last].end as usize;
        }
        i = last + 1;
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}
