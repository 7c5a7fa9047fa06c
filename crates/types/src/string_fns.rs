//! String functions beyond the core set of [`crate::functions`]:
//! `format`, `initcap`, `translate`, `starts_with`, `ascii`, `chr`,
//! `to_hex`, `overlay`, `like_escape` (what `LIKE p ESCAPE e` calls) and
//! `quote_literal`-style quoting for `format`.
//!
//! `format(fmt, args...)` follows PostgreSQL's `text_format`: conversions
//! `%s` (the argument's text output, NULL as the empty string), `%I`
//! (quoted as an identifier; NULL is 22004), `%L` (quoted as a literal,
//! NULL as the word NULL) and `%%`; an argument position `%n$`, a width
//! `%10s` / `%-10s` or taken from an argument (`%*s`, `%*n$s`), padding by
//! characters. Arguments after the format may have any type: each is
//! printed by its output function with the session's settings, so the
//! binder passes them through uncast (their types are "any").
//!
//! Like the rest of the library the functions count characters, not bytes;
//! `chr` and `ascii` are Unicode code points (the server encoding is
//! UTF8).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{
    check_result_len, is_int_like as is_int, is_text_arg as is_text, no_function, Imp, Resolved,
};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "format",
    "initcap",
    "translate",
    "starts_with",
    "ascii",
    "chr",
    "to_hex",
    "overlay",
    "like_escape",
    "similar_to_escape",
    "unistr",
];

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    use DataType as T;
    let text = T::Text;
    let (imp, arg_types, ret, volatile): (Imp, Vec<T>, T, bool) = match (name, args) {
        ("format", [f, rest @ ..]) if is_text(*f) => {
            let mut at = vec![text];
            // "any": printed by each value's output function.
            at.extend(rest.iter().map(|t| t.resolve_unknown()));
            // Output of timestamptz and floats reads the session.
            let volatile = rest
                .iter()
                .any(|t| matches!(t, T::TimestampTz(_) | T::Float4 | T::Float8) || t.is_array());
            (format, at, text, volatile)
        }
        ("initcap", [t]) if is_text(*t) => (
            |a, _| strict_text(a, |s| Ok(initcap(s))),
            vec![text],
            text,
            false,
        ),
        ("translate", [a, b, c]) if is_text(*a) && is_text(*b) && is_text(*c) => {
            (translate, vec![text; 3], text, false)
        }
        ("starts_with", [a, b]) if is_text(*a) && is_text(*b) => (
            |a, _| match (a[0].as_str(), a[1].as_str()) {
                (Some(s), Some(p)) => Ok(Value::Bool(s.starts_with(p))),
                _ => Ok(Value::Null),
            },
            vec![text, text],
            T::Bool,
            false,
        ),
        ("ascii", [t]) if is_text(*t) => (
            |a, _| {
                Ok(match a[0].as_str() {
                    Some(s) => Value::Int4(s.chars().next().map_or(0, |c| c as i32)),
                    None => Value::Null,
                })
            },
            vec![text],
            T::Int4,
            false,
        ),
        ("chr", [t]) if is_int(*t) => (chr, vec![T::Int4], text, false),
        ("unistr", [t]) if is_text(*t) => (|a, _| strict_text(a, unistr), vec![text], text, false),
        ("to_hex", [T::Unknown]) => return Some(Err(crate::datetime_fns::not_unique(name, args))),
        ("to_hex", [t]) if is_int(*t) => {
            let at = if *t == T::Int8 { T::Int8 } else { T::Int4 };
            (to_hex, vec![at], text, false)
        }
        ("overlay", [s, p, f, rest @ ..])
            if rest.len() <= 1
                && is_text(*s)
                && is_text(*p)
                && is_int(*f)
                && rest.iter().all(|t| is_int(*t)) =>
        {
            (
                overlay,
                vec![text, text, T::Int4, T::Int4][..args.len()].to_vec(),
                text,
                false,
            )
        }
        ("like_escape", [p, e]) if is_text(*p) && is_text(*e) => {
            (like_escape, vec![text, text], text, false)
        }
        ("similar_to_escape", [_, rest @ ..])
            if rest.len() <= 1 && args.iter().all(|t| is_text(*t)) =>
        {
            (similar_to_escape, vec![text; args.len()], text, false)
        }
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, volatile,
    )))
}

fn text(s: String) -> Value {
    Value::Text(Arc::from(s))
}

fn strict_text(a: &[Value], f: fn(&str) -> Result<String, DbError>) -> Result<Value, DbError> {
    match a[0].as_str() {
        Some(s) => f(s).map(text),
        None => Ok(Value::Null),
    }
}

/// unistr: PostgreSQL's Unicode escapes decoded: `\\` is a backslash,
/// `\XXXX` and `\uXXXX` (4 hex digits), `\+XXXXXX` (6) and `\UXXXXXXXX`
/// (8) a code point; UTF-16 surrogate pairs combine.
pub(crate) fn unistr(s: &str) -> Result<String, DbError> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut pair_first: Option<u32> = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            if pair_first.is_some() {
                return Err(invalid_pair());
            }
            let c = s[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        if b.get(i + 1) == Some(&b'\\') {
            if pair_first.is_some() {
                return Err(invalid_pair());
            }
            out.push('\\');
            i += 2;
            continue;
        }
        let (skip, digits) = match b.get(i + 1) {
            Some(b'u') => (2, 4),
            Some(b'+') => (2, 6),
            Some(b'U') => (2, 8),
            _ => (1, 4),
        };
        let hex = b
            .get(i + skip..i + skip + digits)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
        let Some(hex) = hex else {
            return Err(
                DbError::new(SqlState::SyntaxError, "invalid Unicode escape").with_hint(
                    "Unicode escapes must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX.",
                ),
            );
        };
        let cp = hex.iter().fold(0u32, |n, &d| {
            (n << 4) | (d as char).to_digit(16).unwrap_or(0)
        });
        push_code_point(&mut out, &mut pair_first, cp, digits)?;
        i += skip + digits;
    }
    if pair_first.is_some() {
        return Err(invalid_pair());
    }
    Ok(out)
}

fn invalid_pair() -> DbError {
    DbError::new(SqlState::SyntaxError, "invalid Unicode surrogate pair")
}

/// One escaped code point of unistr (`digits` as written, for the
/// error's format), a UTF-16 surrogate waiting in `pair_first` for its
/// second half.
fn push_code_point(
    out: &mut String,
    pair_first: &mut Option<u32>,
    cp: u32,
    digits: usize,
) -> Result<(), DbError> {
    if cp == 0 || cp > 0x10FFFF {
        // PostgreSQL prints 4 digits for \XXXX and \uXXXX, 6 for the others.
        let width = digits.min(6);
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid Unicode code point: {cp:0width$X}"),
        ));
    }
    let second = (0xDC00..=0xDFFF).contains(&cp);
    let cp = match pair_first.take() {
        Some(first) if second => 0x10000 + ((first & 0x3FF) << 10) + (cp & 0x3FF),
        Some(_) => return Err(invalid_pair()),
        None if second => return Err(invalid_pair()),
        None if (0xD800..=0xDBFF).contains(&cp) => {
            *pair_first = Some(cp);
            return Ok(());
        }
        None => cp,
    };
    out.push(char::from_u32(cp).ok_or_else(invalid_pair)?);
    Ok(())
}

/// initcap: the first letter of each run of letters and digits upper-case,
/// the rest lower-case.
pub(crate) fn initcap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_word = false;
    for c in s.chars() {
        if in_word {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        in_word = c.is_alphanumeric();
    }
    out
}

fn translate(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(s), Some(from), Some(to)) = (a[0].as_str(), a[1].as_str(), a[2].as_str()) else {
        return Ok(Value::Null);
    };
    let from: Vec<char> = from.chars().collect();
    let to: Vec<char> = to.chars().collect();
    let out: String = s
        .chars()
        .filter_map(|c| match from.iter().position(|f| *f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect();
    Ok(text(out))
}

/// like_escape(pattern, escape): the pattern rewritten to use backslash
/// as its escape character, which is what LIKE reads (PostgreSQL's
/// like_escape). An empty escape makes every backslash literal.
fn like_escape(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(p), Some(e)) = (a[0].as_str(), a[1].as_str()) else {
        return Ok(Value::Null);
    };
    Ok(text(like_escape_chars(p, escape_char(e)?)))
}

/// A LIKE pattern with escape character `escape` (None: none) rewritten to
/// use backslash, the escape LIKE reads.
pub(crate) fn like_escape_chars(p: &str, escape: Option<char>) -> String {
    match escape {
        None => p.replace('\\', "\\\\"),
        Some('\\') => p.to_string(),
        Some(e) => {
            let mut out = String::with_capacity(p.len() + 4);
            let mut after_escape = false;
            for c in p.chars() {
                if c == e && !after_escape {
                    out.push('\\');
                    after_escape = true;
                } else if c == '\\' {
                    out.push('\\');
                    if !after_escape {
                        out.push('\\');
                    }
                    after_escape = false;
                } else {
                    out.push(c);
                    after_escape = false;
                }
            }
            out
        }
    }
}

/// The escape character of LIKE ... ESCAPE and SIMILAR TO ... ESCAPE:
/// none for an empty string, 22025 for more than one character.
pub(crate) fn escape_char(e: &str) -> Result<Option<char>, DbError> {
    let mut chars = e.chars();
    match (chars.next(), chars.next()) {
        (c, None) => Ok(c),
        _ => Err(
            DbError::new(SqlState::InvalidEscapeSequence, "invalid escape string")
                .with_hint("Escape string must be empty or one character."),
        ),
    }
}

/// similar_to_escape(pattern [, escape]): SIMILAR TO's pattern as the
/// regular expression `~` matches (PostgreSQL's similar_escape_internal):
/// anchored `^(?: ... )$`, `%` and `_` as `.*` and `.`, groups made
/// non-capturing, `.`, `^`, `$` and backslashes literal, and the escape
/// character (backslash unless given; none when empty) escaping the next
/// one, `escape"` marking the part `substring` returns. Bracket
/// expressions are parsed as far as finding their end: nested `[:alpha:]`
/// style brackets, and a `]` right after `[` or `[^` is a member.
pub(crate) fn similar_to_escape(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(p) = a[0].as_str() else {
        return Ok(Value::Null);
    };
    let escape = match a.get(1) {
        None => Some('\\'),
        Some(v) => {
            let Some(e) = v.as_str() else {
                return Ok(Value::Null);
            };
            escape_char(e)?
        }
    };
    let mut out = String::with_capacity(p.len() + 8);
    out.push_str("^(?:");
    let (mut after_escape, mut quotes) = (false, 0);
    // Bracket nesting depth, and where we are in the class: 1 right after
    // `[`, 2 after a leading `^`, 3 or more further in (`]` ends it).
    let (mut depth, mut class_pos) = (0u32, 0u32);
    for c in p.chars() {
        if after_escape {
            if c == '"' && depth == 0 {
                match quotes {
                    0 => out.push_str("){1,1}?("),
                    1 => out.push_str("){1,1}(?:"),
                    _ => {
                        return Err(DbError::new(
                            SqlState::InvalidUseOfEscapeCharacter,
                            "SQL regular expression may not contain more than two escape-double-quote separators",
                        ))
                    }
                }
                quotes += 1;
            } else {
                out.push('\\');
                out.push(c);
                class_pos = 3;
            }
            after_escape = false;
        } else if Some(c) == escape {
            after_escape = true;
        } else if depth > 0 {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
            match c {
                ']' if class_pos > 2 => depth -= 1,
                '[' => {
                    depth += 1;
                    class_pos = 3;
                }
                '^' => class_pos += 1,
                _ => class_pos = 3,
            }
        } else {
            match c {
                '[' => {
                    out.push(c);
                    depth = 1;
                    class_pos = 1;
                }
                '%' => out.push_str(".*"),
                '_' => out.push('.'),
                '(' => out.push_str("(?:"),
                '\\' | '.' | '^' | '$' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
    out.push_str(")$");
    Ok(text(out))
}

fn chr(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(n) = a[0].as_i64() else {
        return Ok(Value::Null);
    };
    if n < 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "character number must be positive",
        ));
    }
    if n == 0 {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "null character not permitted",
        ));
    }
    match u32::try_from(n).ok().and_then(char::from_u32) {
        Some(c) => Ok(text(c.to_string())),
        None if n > 0x10FFFF => Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("requested character too large for encoding: {n}"),
        )),
        None => Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("requested character not valid for encoding: {n}"),
        )),
    }
}

fn to_hex(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match &a[0] {
        Value::Int8(v) => text(format!("{:x}", *v as u64)),
        v => match v.as_i64() {
            Some(i) => text(format!("{:x}", i as i32 as u32)),
            None => Value::Null,
        },
    })
}

/// overlay(s placing p from f [for n]): substr(s, 1, f-1) || p ||
/// substr(s, f+n), n defaulting to p's length.
fn overlay(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let (Some(s), Some(p), Some(from)) = (a[0].as_str(), a[1].as_str(), a[2].as_i64()) else {
        return Ok(Value::Null);
    };
    let count = match a.get(3) {
        Some(v) => v.as_i64().unwrap_or(0),
        None => p.chars().count() as i64,
    };
    let neg = || {
        DbError::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        )
    };
    // substr(s, 1, from - 1): a negative length is an error there.
    if from < 1 {
        return Err(neg());
    }
    let chars: Vec<char> = s.chars().collect();
    let head: String = chars.iter().take((from - 1) as usize).collect();
    // from + count in int4, as PostgreSQL adds them.
    let tail_start = i32::try_from(from + count)
        .map(i64::from)
        .map_err(|_| DbError::new(SqlState::NumericValueOutOfRange, "integer out of range"))?;
    let tail: String = chars
        .iter()
        .skip((tail_start.max(1) - 1) as usize)
        .collect();
    let out = head + p + &tail;
    check_result_len(out.len())?;
    Ok(text(out))
}

pub(crate) use nestor_common::keywords::quote_identifier as quote_ident;

/// quote_literal: single quotes, doubled inside; a backslash makes it the
/// E'' form with backslashes doubled.
pub(crate) fn quote_literal(s: &str) -> String {
    let body = s.replace('\'', "''");
    if s.contains('\\') {
        format!("E'{}'", body.replace('\\', "\\\\"))
    } else {
        format!("'{body}'")
    }
}

fn format_err(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

fn with_pct_hint(e: DbError) -> DbError {
    e.with_hint("For a single \"%\" use \"%%\".")
}

/// Digits at `i` as a number (None if there are none); moves `i`.
fn parse_num(f: &[char], i: &mut usize) -> Result<Option<i64>, DbError> {
    let start = *i;
    let mut n: i64 = 0;
    while *i < f.len() && f[*i].is_ascii_digit() {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(f[*i] as i64 - '0' as i64))
            .filter(|n| *n <= i32::MAX as i64)
            .ok_or_else(|| format_err("number is out of range"))?;
        *i += 1;
    }
    Ok((*i > start).then_some(n))
}

fn format(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let Some(fmt) = a[0].as_str() else {
        return Ok(Value::Null);
    };
    let args = &a[1..];
    let f: Vec<char> = fmt.chars().collect();
    let unterminated = || with_pct_hint(format_err("unterminated format() type specifier"));
    let too_few = || format_err("too few arguments for format()");
    let mut out = String::with_capacity(fmt.len());
    let mut next_arg = 0usize;
    let mut i = 0;
    while i < f.len() {
        if f[i] != '%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        i += 1;
        if i >= f.len() {
            return Err(unterminated());
        }
        if f[i] == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        // [argpos$][flags][width]type, width possibly *[argpos$].
        let mut argpos: Option<i64> = None;
        let mut left = false;
        let mut width: Option<i64> = None;
        let mut width_arg: Option<Option<i64>> = None;
        let save = i;
        if let Some(n) = parse_num(&f, &mut i)? {
            if i < f.len() && f[i] == '$' {
                if n == 0 {
                    return Err(format_err(
                        "format specifies argument 0, but arguments are numbered from 1",
                    ));
                }
                argpos = Some(n);
                i += 1;
            } else {
                i = save;
            }
        }
        while i < f.len() && f[i] == '-' {
            left = true;
            i += 1;
        }
        if i < f.len() && f[i] == '*' {
            i += 1;
            let save = i;
            let mut pos = None;
            if let Some(n) = parse_num(&f, &mut i)? {
                if i < f.len() && f[i] == '$' {
                    if n == 0 {
                        return Err(format_err(
                            "format specifies argument 0, but arguments are numbered from 1",
                        ));
                    }
                    pos = Some(n);
                    i += 1;
                } else {
                    i = save;
                }
            }
            width_arg = Some(pos);
        } else if let Some(n) = parse_num(&f, &mut i)? {
            width = Some(n);
        }
        if i >= f.len() {
            return Err(unterminated());
        }
        let conv = f[i];
        i += 1;
        if !matches!(conv, 's' | 'I' | 'L') {
            return Err(with_pct_hint(format_err(format!(
                "unrecognized format() type specifier \"{conv}\""
            ))));
        }
        if let Some(pos) = width_arg {
            let idx = match pos {
                Some(p) => (p - 1) as usize,
                None => next_arg,
            };
            let v = args.get(idx).ok_or_else(too_few)?;
            next_arg = idx + 1;
            let w = match v {
                Value::Null => 0,
                v => v
                    .as_i64()
                    .ok_or_else(|| format_err("width argument must be an integer"))?,
            };
            if w < 0 {
                left = true;
            }
            width = Some(w.abs());
        }
        let idx = match argpos {
            Some(p) => (p - 1) as usize,
            None => next_arg,
        };
        let v = args.get(idx).ok_or_else(too_few)?;
        next_arg = idx + 1;
        let s = match (conv, v) {
            ('s', Value::Null) => String::new(),
            ('s', v) => v.to_text(ctx),
            ('I', Value::Null) => {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "null values cannot be formatted as an SQL identifier",
                ))
            }
            ('I', v) => quote_ident(&v.to_text(ctx)),
            (_, Value::Null) => "NULL".to_string(),
            (_, v) => quote_literal(&v.to_text(ctx)),
        };
        let len = s.chars().count() as i64;
        let pad = width.map_or(0, |w| (w - len).max(0)) as usize;
        check_result_len(out.len() + s.len() + pad)?;
        if left {
            out.push_str(&s);
            out.extend(std::iter::repeat_n(' ', pad));
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&s);
        }
    }
    Ok(text(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::TimeZone;

    fn call(name: &str, args: &[Value]) -> Result<String, (SqlState, String)> {
        let ctx = EvalCtx::new(TimeZone::UTC, 0);
        let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
        let r = resolve(name, &types)
            .expect("a function here")
            .map_err(|e| (e.code, e.message.clone()))?;
        r.func
            .call(args, &ctx)
            .map(|v| v.to_text(&ctx))
            .map_err(|e| (e.code, e.message.clone()))
    }

    fn t(s: &str) -> Value {
        Value::text(s)
    }

    #[test]
    fn format_like_postgres() {
        assert_eq!(
            call(
                "format",
                &[
                    t("%s|%I|%L|%%|%1$s|%-4s|%4s|"),
                    t("a"),
                    t("B c"),
                    t("it's"),
                    t("x"),
                    t("y")
                ]
            )
            .unwrap(),
            "a|\"B c\"|'it''s'|%|a|B c |it's|"
        );
        assert_eq!(
            call(
                "format",
                &[
                    t("%*s|%-*s|"),
                    Value::Int4(3),
                    t("x"),
                    Value::Int4(3),
                    t("y")
                ]
            )
            .unwrap(),
            "  x|y  |"
        );
        assert_eq!(
            call("format", &[t("%I"), t("select")]).unwrap(),
            "\"select\""
        );
        assert_eq!(call("format", &[t("%L"), Value::Null]).unwrap(), "NULL");
        assert_eq!(
            call("format", &[t("%s %s"), t("a")]).unwrap_err().1,
            "too few arguments for format()"
        );
        assert_eq!(
            call("format", &[t("%x"), t("a")]).unwrap_err().1,
            "unrecognized format() type specifier \"x\""
        );
        assert_eq!(
            call("format", &[t("%")]).unwrap_err().1,
            "unterminated format() type specifier"
        );
        assert_eq!(
            call("format", &[t("%I"), Value::Null]).unwrap_err().0,
            SqlState::NullValueNotAllowed
        );
    }

    #[test]
    fn others() {
        assert_eq!(
            call("initcap", &[t("hello wORLD-foo_bar 3x éa")]).unwrap(),
            "Hello World-Foo_Bar 3x Éa"
        );
        assert_eq!(
            call("translate", &[t("12345"), t("143"), t("ax")]).unwrap(),
            "a2x5"
        );
        assert_eq!(call("to_hex", &[Value::Int4(-1)]).unwrap(), "ffffffff");
        assert_eq!(
            call("to_hex", &[Value::Int8(-1)]).unwrap(),
            "ffffffffffffffff"
        );
        assert_eq!(call("chr", &[Value::Int4(233)]).unwrap(), "é");
        assert_eq!(
            call(
                "overlay",
                &[t("Txxxxas"), t("hom"), Value::Int4(2), Value::Int4(4)]
            )
            .unwrap(),
            "Thomas"
        );
        assert_eq!(
            call(
                "overlay",
                &[t("abc"), t("X"), Value::Int4(2), Value::Int4(-1)]
            )
            .unwrap(),
            "aXabc"
        );
        assert_eq!(call("ascii", &[t("")]).unwrap(), "0");
    }
}
