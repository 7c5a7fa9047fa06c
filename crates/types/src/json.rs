//! `jsonb` input normalization.
//!
//! Nestor keeps a jsonb value as the text PostgreSQL would print for it,
//! which makes output a copy and equality a string comparison. Parsing
//! builds a small tree and prints it in jsonb's canonical form: object keys
//! sorted by (length, bytes) with later duplicates winning, `", "` and
//! `": "` separators, numbers normalized through `numeric` (`1e2` is
//! `100`, `2.50` stays `2.50`), strings re-escaped. Errors follow
//! PostgreSQL: 22P02 `invalid input syntax for type json` with a DETAIL,
//! and 22P05 for `\u0000`, each with PostgreSQL's CONTEXT line (`JSON
//! data, line 1: ...`) ending where its lexer's token ends: the lexer's
//! own errors (a bad token, a bad escape) win over the grammar's
//! "expected" ones, as PostgreSQL lexes a token before its grammar looks
//! at it. `json` input checks the syntax only (`validate_json`): a lone
//! surrogate or `\u0000` fails where a value is de-escaped, as in
//! PostgreSQL. Each nesting level makes the session's stack check
//! (54001, PostgreSQL's error past its stack-depth limit), and
//! JSON_NESTING_MAX caps it, so deep input cannot overflow our stack.

use std::fmt::Write;

use nestor_common::{DbError, SqlState};

use nestor_common::limits::JSON_NESTING_MAX;

use crate::numeric::Numeric;

/// The recursive parser's result: the error boxed, so each nesting level's
/// frames stay small.
type Nested<T> = Result<T, Box<DbError>>;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Num(Numeric),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Its kind as jsonb_typeof and jsonpath's `.type()` name it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Num(_) => "number",
            Json::Str(_) => "string",
            Json::Arr(_) => "array",
            Json::Obj(_) => "object",
        }
    }
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    /// Check what de-escaping needs (surrogate pairs, `\u0000`): jsonb
    /// input and the functions that read values do; `json` input only
    /// validates the syntax, as PostgreSQL's json_in does (its lexer has
    /// no `strval` then).
    escapes: bool,
}

fn syntax(detail: String) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        "invalid input syntax for type json",
    )
    .with_detail(detail)
}

/// PostgreSQL's JSON_ALPHANUMERIC_CHAR: what a bad token's word runs over.
fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The CONTEXT line of a JSON input error (PostgreSQL's
/// report_json_context): the error's line up to where its token ends
/// (`term`), cut to under 50 bytes from its start with `...`, and `...`
/// after it unless the input or the line ends there (or the error is
/// the input's end).
fn context(input: &str, term: usize, at_end: bool) -> String {
    let b = input.as_bytes();
    let line_start = b[..term]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |k| k + 1);
    let line = 1 + b[..term].iter().filter(|&&c| c == b'\n').count();
    let mut start = line_start;
    while term - start >= 50 {
        start += input[start..].chars().next().map_or(1, char::len_utf8);
    }
    if start - line_start <= 3 {
        start = line_start;
    }
    let prefix = if start > line_start { "..." } else { "" };
    let suffix = if !at_end && term < b.len() && !matches!(b[term], b'\n' | b'\r') {
        "..."
    } else {
        ""
    };
    format!(
        "JSON data, line {line}: {prefix}{}{suffix}",
        &input[start..term]
    )
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// An error whose token ends at `term`, with its CONTEXT.
    fn fail(&self, e: DbError, term: usize) -> DbError {
        e.with_context(context(self.s, term, false))
    }

    /// `Token "..." is invalid.` for the bytes `start..term`.
    fn invalid(&self, start: usize, term: usize) -> DbError {
        let tok = &self.s[start..term];
        self.fail(syntax(format!("Token \"{tok}\" is invalid.")), term)
    }

    /// Where the token at `at` ends, as PostgreSQL's lexer reads it:
    /// punctuation is one byte, strings and numbers are lexed whole (their
    /// errors are the lexer's), anything else runs over alphanumerics and
    /// must be true, false or null.
    fn token_end(&self, at: usize) -> Result<usize, DbError> {
        match self.b[at] {
            b'{' | b'}' | b'[' | b']' | b',' | b':' => Ok(at + 1),
            b'"' => {
                let mut p = self.clone_at(at);
                p.string()?;
                Ok(p.i)
            }
            b'-' | b'0'..=b'9' => self.number_end(at),
            _ => {
                let end = at + self.b[at..].iter().take_while(|&&c| alnum(c)).count();
                match &self.s[at..end] {
                    "true" | "false" | "null" => Ok(end),
                    _ => Err(self.invalid(at, end.max(at + 1))),
                }
            }
        }
    }

    fn clone_at(&self, at: usize) -> Parser<'a> {
        Parser {
            s: self.s,
            b: self.b,
            i: at,
            depth: self.depth,
            escapes: self.escapes,
        }
    }

    /// PostgreSQL's "expected ..." parse errors: the input ended, or the
    /// token found (whose own lexing errors come first, as the lexer runs
    /// before the grammar looks).
    fn expected(&mut self, what: &str) -> DbError {
        self.ws();
        if self.i >= self.b.len() {
            return syntax("The input string ended unexpectedly.".into()).with_context(context(
                self.s,
                self.b.len(),
                true,
            ));
        }
        match self.token_end(self.i) {
            Err(e) => e,
            Ok(end) => {
                let tok = &self.s[self.i..end];
                self.fail(
                    syntax(format!("Expected {what}, but found \"{tok}\".")),
                    end,
                )
            }
        }
    }

    fn value(&mut self) -> Nested<Json> {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => self.nested(Parser::object),
            Some(b'[') => self.nested(Parser::array),
            _ => self.scalar(),
        }
    }

    /// A string, number or literal (kept out of the recursive frames).
    #[inline(never)]
    fn scalar(&mut self) -> Nested<Json> {
        match self.b.get(self.i) {
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => Ok(self.number()?),
            Some(&c) if alnum(c) => Ok(self.literal()?),
            _ => Err(self.expected("JSON value").into()),
        }
    }

    /// `expected` boxed, built in its own frame.
    #[inline(never)]
    fn unexpected(&mut self, what: &str) -> Box<DbError> {
        Box::new(self.expected(what))
    }

    /// An object key (kept out of the recursive frames).
    #[inline(never)]
    fn key(&mut self) -> Nested<String> {
        Ok(self.string()?)
    }

    fn nested(&mut self, f: fn(&mut Self) -> Nested<Json>) -> Nested<Json> {
        self.depth += 1;
        if self.depth > JSON_NESTING_MAX {
            return Err(too_deep());
        }
        nestor_common::stack::check()?;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn literal(&mut self) -> Result<Json, DbError> {
        let end = self.token_end(self.i)?;
        let v = match &self.s[self.i..end] {
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            _ => Json::Null,
        };
        self.i = end;
        Ok(v)
    }

    /// Where the number token at `at` ends (PostgreSQL's json_lex_number:
    /// `-`, then `0` or digits not starting with 0, an optional fraction
    /// and exponent with digits each; alphanumerics run on make it
    /// invalid as a whole).
    fn number_end(&self, at: usize) -> Result<usize, DbError> {
        let b = self.b;
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = at + usize::from(b[at] == b'-');
        let mut ok = true;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i),
            _ => ok = false,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            ok &= b.get(i).is_some_and(u8::is_ascii_digit);
            i = digits(i);
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            ok &= b.get(i).is_some_and(u8::is_ascii_digit);
            i = digits(i);
        }
        while b.get(i).is_some_and(|&c| alnum(c)) {
            i += 1;
            ok = false;
        }
        if ok {
            Ok(i)
        } else {
            Err(self.invalid(at, i))
        }
    }

    fn number(&mut self) -> Result<Json, DbError> {
        let end = self.number_end(self.i)?;
        let text = &self.s[self.i..end];
        self.i = end;
        Ok(Json::Num(Numeric::parse(text)?))
    }

    /// A string token from its opening quote, de-escaped; the errors are
    /// PostgreSQL's json_lex_string's, ending where its do.
    fn string(&mut self) -> Result<String, DbError> {
        let start = self.i;
        self.i += 1;
        let mut out = String::new();
        let mut high: Option<u32> = None;
        loop {
            let Some(c) = self.s[self.i..].chars().next() else {
                return Err(self.invalid(start, self.b.len()));
            };
            let at = self.i;
            self.i += c.len_utf8();
            match c {
                '"' => {
                    if high.is_some() {
                        return Err(self.low_surrogate(self.i));
                    }
                    return Ok(out);
                }
                '\\' => self.escape(start, &mut high, &mut out)?,
                c if (c as u32) < 0x20 => {
                    let e = syntax(format!(
                        "Character with value 0x{:02x} must be escaped.",
                        c as u32
                    ));
                    return Err(self.fail(e, at));
                }
                c => {
                    if high.is_some() {
                        return Err(self.low_surrogate(self.i));
                    }
                    out.push(c);
                }
            }
        }
    }

    fn low_surrogate(&self, term: usize) -> DbError {
        let e = syntax("Unicode low surrogate must follow a high surrogate.".into());
        self.fail(e, term)
    }

    /// The escape after a backslash; `high` is a pending high surrogate.
    fn escape(
        &mut self,
        start: usize,
        high: &mut Option<u32>,
        out: &mut String,
    ) -> Result<(), DbError> {
        let Some(e) = self.s[self.i..].chars().next() else {
            return Err(self.invalid(start, self.b.len()));
        };
        let at = self.i;
        self.i += e.len_utf8();
        if e != 'u' && high.is_some() {
            return Err(self.low_surrogate(self.i));
        }
        let c = match e {
            'u' => return self.unicode(start, high, out),
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            _ => {
                let e = syntax(format!(
                    "Escape sequence \"\\{}\" is invalid.",
                    &self.s[at..self.i]
                ));
                return Err(self.fail(e, self.i));
            }
        };
        out.push(c);
        Ok(())
    }

    /// `\u` and its four hex digits (the cursor after the `u`).
    fn unicode(
        &mut self,
        start: usize,
        high: &mut Option<u32>,
        out: &mut String,
    ) -> Result<(), DbError> {
        let mut ch = 0u32;
        for _ in 0..4 {
            let Some(c) = self.s[self.i..].chars().next() else {
                return Err(self.invalid(start, self.b.len()));
            };
            self.i += c.len_utf8();
            let Some(d) = c.to_digit(16) else {
                let e = syntax("\"\\u\" must be followed by four hexadecimal digits.".into());
                return Err(self.fail(e, self.i));
            };
            ch = ch * 16 + d;
        }
        if !self.escapes {
            // Validated only; the value is never used (json input).
            return Ok(());
        }
        let cp = if (0xD800..0xDC00).contains(&ch) {
            if high.is_some() {
                let e = syntax("Unicode high surrogate must not follow a high surrogate.".into());
                return Err(self.fail(e, self.i));
            }
            *high = Some(ch);
            return Ok(());
        } else if (0xDC00..0xE000).contains(&ch) {
            let Some(hi) = high.take() else {
                return Err(self.low_surrogate(self.i));
            };
            0x10000 + ((hi - 0xD800) << 10) + (ch - 0xDC00)
        } else if high.is_some() {
            return Err(self.low_surrogate(self.i));
        } else {
            ch
        };
        if cp == 0 {
            let e = DbError::new(
                SqlState::UntranslatableCharacter,
                "unsupported Unicode escape sequence",
            )
            .with_detail("\\u0000 cannot be converted to text.");
            return Err(self.fail(e, self.i));
        }
        out.push(char::from_u32(cp).expect("a scalar value: surrogates are paired above"));
        Ok(())
    }

    fn array(&mut self) -> Nested<Json> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return Err(self.unexpected("\",\" or \"]\"")),
            }
        }
    }

    fn object(&mut self) -> Nested<Json> {
        self.i += 1;
        let mut fields: Vec<(String, Json)> = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Json::Obj(fields));
        }
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                let what = if fields.is_empty() {
                    "string or \"}\""
                } else {
                    "string"
                };
                return Err(self.unexpected(what));
            }
            let key = self.key()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return Err(self.unexpected("\":\""));
            }
            self.i += 1;
            let v = self.value()?;
            fields.push((key, v));
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(normalize_object(fields)));
                }
                _ => return Err(self.unexpected("\",\" or \"}\"")),
            }
        }
    }
}

/// jsonb key order: shorter keys first, then bytewise; last duplicate wins.
pub(crate) fn normalize_object(fields: Vec<(String, Json)>) -> Vec<(String, Json)> {
    let mut indexed: Vec<(usize, (String, Json))> = fields.into_iter().enumerate().collect();
    indexed.sort_by(|(ia, (a, _)), (ib, (b, _))| {
        (a.len(), a.as_bytes(), std::cmp::Reverse(*ia)).cmp(&(
            b.len(),
            b.as_bytes(),
            std::cmp::Reverse(*ib),
        ))
    });
    let mut out: Vec<(String, Json)> = Vec::with_capacity(indexed.len());
    for (_, (k, v)) in indexed {
        if out.last().is_some_and(|(lk, _)| *lk == k) {
            continue;
        }
        out.push((k, v));
    }
    out
}

/// Appends a JSON string literal with PostgreSQL's escaping.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(crate) fn write_json(out: &mut String, v: &Json) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => out.push_str(&n.to_string()),
        Json::Str(s) => write_json_string(out, s),
        Json::Arr(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Json::Obj(fields) => {
            out.push('{');
            for (k, (key, item)) in fields.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_json_string(out, key);
                out.push_str(": ");
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

#[inline(never)]
fn too_deep() -> Box<DbError> {
    Box::new(DbError::new(
        SqlState::StatementTooComplex,
        "stack depth limit exceeded",
    ))
}

/// Parses JSON text into its tree (jsonb's canonical object order).
pub(crate) fn parse(input: &str) -> Result<Json, DbError> {
    parse_checking(input, true)
}

fn parse_checking(input: &str, escapes: bool) -> Result<Json, DbError> {
    let mut p = Parser {
        s: input,
        b: input.as_bytes(),
        i: 0,
        depth: 0,
        escapes,
    };
    let v = p.value().map_err(|e| *e)?;
    p.ws();
    if p.i < p.b.len() {
        return Err(p.expected("end of input"));
    }
    Ok(v)
}

/// Checks `json` input (the syntax only: like PostgreSQL's json_in, a
/// lone surrogate or `\u0000` in a string is kept, to fail only where a
/// value is de-escaped).
pub fn validate_json(input: &str) -> Result<(), DbError> {
    parse_checking(input, false).map(|_| ())
}

/// Parses JSON text and returns jsonb's canonical text.
pub fn normalize_jsonb(input: &str) -> Result<String, DbError> {
    let v = parse(input)?;
    let mut out = String::with_capacity(input.len());
    write_json(&mut out, &v);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_like_postgres() {
        let n = |s| normalize_jsonb(s).unwrap();
        assert_eq!(
            n(r#"{"b":1, "a":[1,2.50,1e2,-0], "aa":null, "a":"x\u00e9\n"}"#),
            r#"{"a": "xé\n", "b": 1, "aa": null}"#
        );
        assert_eq!(n(" [ ] "), "[]");
        assert_eq!(n("{}"), "{}");
        assert_eq!(
            n(r#"[1,2.50,1e2,-0,"\ud83d\ude00"]"#),
            "[1, 2.50, 100, 0, \"😀\"]"
        );
        assert_eq!(n("true"), "true");
    }

    #[test]
    fn errors_like_postgres() {
        let e = normalize_jsonb(r#"{"a":}"#).unwrap_err();
        assert_eq!(e.message, "invalid input syntax for type json");
        assert_eq!(
            e.detail.as_deref(),
            Some("Expected JSON value, but found \"}\".")
        );
        let e = normalize_jsonb("1 2").unwrap_err();
        assert_eq!(
            e.detail.as_deref(),
            Some("Expected end of input, but found \"2\".")
        );
        let e = normalize_jsonb(r#""\u0000""#).unwrap_err();
        assert_eq!(e.code, SqlState::UntranslatableCharacter);
        let e = normalize_jsonb("foo").unwrap_err();
        assert_eq!(e.detail.as_deref(), Some("Token \"foo\" is invalid."));
        assert_eq!(e.context.as_deref(), Some("JSON data, line 1: foo"));
        let e = normalize_jsonb("{\"a\": 1,\n \"b\": [1, 'x', 2]}").unwrap_err();
        assert_eq!(e.detail.as_deref(), Some("Token \"'\" is invalid."));
        assert_eq!(
            e.context.as_deref(),
            Some("JSON data, line 2:  \"b\": [1, '...")
        );
        let long = format!("[{}x]", "1, ".repeat(30));
        let e = normalize_jsonb(&long).unwrap_err();
        assert_eq!(
            e.context.as_deref(),
            Some("JSON data, line 1: ...1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, x...")
        );
        // json keeps what only de-escaping rejects; jsonb does not.
        assert!(validate_json(r#""\ud83d \u0000""#).is_ok());
        let e = normalize_jsonb(r#""\ud83dx""#).unwrap_err();
        assert_eq!(
            e.detail.as_deref(),
            Some("Unicode low surrogate must follow a high surrogate.")
        );
        for bad in ["", "[1,]", "{\"a\" 1}", "01", "1.", "\"abc", "[", "\"\\x\""] {
            assert!(normalize_jsonb(bad).is_err(), "{bad}");
        }
        // As deep as PostgreSQL's regression tests go, and past our cap,
        // on a session's stack.
        let deep = std::thread::Builder::new()
            .stack_size(nestor_common::limits::SESSION_STACK_BYTES)
            .spawn(|| {
                nestor_common::stack::set_base();
                let e = normalize_jsonb(&"[".repeat(10_000)).unwrap_err();
                assert_eq!(
                    e.detail.as_deref(),
                    Some("The input string ended unexpectedly.")
                );
                let e = normalize_jsonb(&"[".repeat(JSON_NESTING_MAX + 1)).unwrap_err();
                assert_eq!(e.code, SqlState::StatementTooComplex);
            })
            .unwrap();
        deep.join().unwrap();
    }
}
