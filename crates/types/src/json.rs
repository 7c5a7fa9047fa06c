//! `jsonb` input normalization.
//!
//! Nestor keeps a jsonb value as the text PostgreSQL would print for it,
//! which makes output a copy and equality a string comparison. Parsing
//! builds a small tree and prints it in jsonb's canonical form: object keys
//! sorted by (length, bytes) with later duplicates winning, `", "` and
//! `": "` separators, numbers normalized through `numeric` (`1e2` is
//! `100`, `2.50` stays `2.50`), strings re-escaped. Errors follow
//! PostgreSQL: 22P02 `invalid input syntax for type json` with a DETAIL,
//! and 22P05 for `\u0000`. Nesting is limited to 1000 levels (PostgreSQL
//! fails deeper, at its stack-depth limit, with the same 54001 error), so deep input cannot
//! overflow our stack.

use std::fmt::Write;

use nestor_common::{DbError, SqlState};

use crate::numeric::Numeric;

const MAX_DEPTH: usize = 1000;

/// The recursive parser's result: the error boxed, so each nesting level's
/// frames stay small (1000 levels fit a 2 MiB thread stack in debug builds).
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
}

fn syntax(detail: String) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        "invalid input syntax for type json",
    )
    .with_detail(detail)
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// The token at the cursor, for error details.
    fn token(&self) -> String {
        let rest = &self.s[self.i..];
        let end = rest
            .char_indices()
            .find(|&(k, c)| k > 0 && !(c.is_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(k, _)| k);
        let tok = &rest[..end.max(rest.chars().next().map_or(0, char::len_utf8))];
        tok.to_string()
    }

    fn expected(&self, what: &str) -> DbError {
        if self.i >= self.b.len() {
            syntax("The input string ended unexpectedly.".into())
        } else {
            syntax(format!("Expected {what}, but found \"{}\".", self.token()))
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
            Some(c) if c.is_ascii_alphanumeric() || *c >= 0x80 => Ok(self.literal()?),
            _ => Err(self.expected("JSON value").into()),
        }
    }

    /// `expected` boxed, built in its own frame.
    #[inline(never)]
    fn unexpected(&self, what: &str) -> Box<DbError> {
        Box::new(self.expected(what))
    }

    /// An object key (kept out of the recursive frames).
    #[inline(never)]
    fn key(&mut self) -> Nested<String> {
        Ok(self.string()?)
    }

    fn nested(&mut self, f: fn(&mut Self) -> Nested<Json>) -> Nested<Json> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn literal(&mut self) -> Result<Json, DbError> {
        let tok = self.token();
        let v = match tok.as_str() {
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            "null" => Json::Null,
            _ => return Err(syntax(format!("Token \"{tok}\" is invalid."))),
        };
        self.i += tok.len();
        Ok(v)
    }

    fn number(&mut self) -> Result<Json, DbError> {
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let int_len = i - int_start;
        let mut ok = int_len > 0 && !(int_len > 1 && b[int_start] == b'0');
        if b.get(i) == Some(&b'.') {
            i += 1;
            let f = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            ok &= i > f;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let e = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            ok &= i > e;
        }
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.')
        {
            i += 1;
            ok = false;
        }
        let text = &self.s[start..i];
        if !ok {
            return Err(syntax(format!("Token \"{text}\" is invalid.")));
        }
        self.i = i;
        Ok(Json::Num(Numeric::parse(text)?))
    }

    fn hex4(&mut self) -> Result<u32, DbError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
        let h =
            h.ok_or_else(|| syntax("\"\\u\" must be followed by four hexadecimal digits.".into()))?;
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| syntax("bad \\u escape".into()))
    }

    fn string(&mut self) -> Result<String, DbError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = &self.s[self.i..];
            let Some(c) = rest.chars().next() else {
                return Err(syntax("The input string ended unexpectedly.".into()));
            };
            self.i += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => self.escape(&mut out)?,
                c if (c as u32) < 0x20 => {
                    return Err(syntax(format!(
                        "Character with value 0x{:02x} must be escaped.",
                        c as u32
                    )))
                }
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), DbError> {
        let Some(&e) = self.b.get(self.i) else {
            return Err(syntax("The input string ended unexpectedly.".into()));
        };
        self.i += 1;
        let c = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode(out),
            _ => {
                let tok = self.s[self.i - 1..].chars().next().unwrap_or('?');
                return Err(syntax(format!("Escape sequence \"\\{tok}\" is invalid.")));
            }
        };
        out.push(c);
        Ok(())
    }

    fn unicode(&mut self, out: &mut String) -> Result<(), DbError> {
        let hi = self.hex4()?;
        let cp = if (0xD800..0xDC00).contains(&hi) {
            if self.s.get(self.i..self.i + 2) != Some("\\u") {
                return Err(syntax(
                    "Unicode high surrogate must not follow a high surrogate.".into(),
                ));
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(syntax(
                    "Unicode low surrogate must follow a high surrogate.".into(),
                ));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else if (0xDC00..0xE000).contains(&hi) {
            return Err(syntax(
                "Unicode low surrogate must follow a high surrogate.".into(),
            ));
        } else {
            hi
        };
        if cp == 0 {
            return Err(DbError::new(
                SqlState::UntranslatableCharacter,
                "unsupported Unicode escape sequence",
            )
            .with_detail("\\u0000 cannot be converted to text."));
        }
        out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
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
                return Err(self.unexpected("string"));
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
    let mut p = Parser {
        s: input,
        b: input.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.value().map_err(|e| *e)?;
    p.ws();
    if p.i < p.b.len() {
        return Err(p.expected("end of input"));
    }
    Ok(v)
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
        for bad in ["", "[1,]", "{\"a\" 1}", "01", "1.", "\"abc", "[", "\"\\x\""] {
            assert!(normalize_jsonb(bad).is_err(), "{bad}");
        }
        let deep = "[".repeat(100_000);
        assert!(normalize_jsonb(&deep).is_err());
    }
}
