//! PostgreSQL 15's positional regular-expression functions:
//! `regexp_count`, `regexp_instr`, `regexp_like`, `regexp_substr`, and
//! `regexp_replace(s, pattern, replacement, start [, n [, flags]])`.
//!
//! They share PostgreSQL's match walk (regexp.c's setup_regexp_matches and
//! replace_text_regexp): matching starts at character `start` of the
//! whole string (so `^` still means the string's start), each next search
//! starts where the previous match ended, one character further after an
//! empty match. That differs from the regex crate's own iterators, which
//! skip an empty match right after a non-empty one. Positions are
//! 1-based character positions. Arguments are checked in PostgreSQL's
//! order with its messages (22023 `invalid value for parameter "start":
//! 0`), and the `g` flag is refused where PostgreSQL refuses it.

use std::sync::Arc;

use super::engine::{Groups, Re};
use nestor_common::{DbError, SqlState};

use super::{compiled, expand_replacement, flags};
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{check_result_len, no_function, Imp, Resolved};
use crate::value::Value;

/// Every function of this module (regexp_replace's start/n form is
/// resolved by the parent module).
pub(super) const NAMES: &[&str] = &[
    "regexp_count",
    "regexp_instr",
    "regexp_like",
    "regexp_substr",
];

/// What each argument position takes: text or integer.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Int,
}

/// The parameters of each function, in order, and how many are required.
fn signature(name: &str) -> (&'static [Kind], usize) {
    use Kind::{Int as I, Text as T};
    match name {
        "regexp_count" => (&[T, T, I, T], 2),
        "regexp_instr" => (&[T, T, I, I, I, T, I], 2),
        "regexp_like" => (&[T, T, T], 2),
        "regexp_substr" => (&[T, T, I, I, T, I], 2),
        // regexp_replace(s, pattern, replacement, start [, n [, flags]])
        _ => (&[T, T, T, I, I, T], 4),
    }
}

/// Resolve one of this module's functions, or regexp_replace's start/n
/// form (`name` "regexp_replace" with an integer fourth argument).
pub(super) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    let (params, required) = signature(name);
    let fits = |t: &DataType, k: &Kind| match k {
        Kind::Text => t.is_string() || *t == DataType::Unknown,
        Kind::Int => t.is_integer() || *t == DataType::Unknown,
    };
    if args.len() < required
        || args.len() > params.len()
        || !args.iter().zip(params).all(|(t, k)| fits(t, k))
    {
        return Some(Err(no_function(name, args)));
    }
    let arg_types = params[..args.len()]
        .iter()
        .map(|k| match k {
            Kind::Text => DataType::Text,
            Kind::Int => DataType::Int4,
        })
        .collect();
    let (imp, ret, names): (Imp, DataType, &[&'static str]) = match name {
        "regexp_count" => (regexp_count, DataType::Int4, NAMES),
        "regexp_instr" => (regexp_instr, DataType::Int4, NAMES),
        "regexp_like" => (regexp_like, DataType::Bool, NAMES),
        "regexp_substr" => (regexp_substr, DataType::Text, NAMES),
        _ => (regexp_replace_at, DataType::Text, &["regexp_replace"]),
    };
    Some(Ok(Resolved::listed(
        names, name, imp, arg_types, ret, false,
    )))
}

fn bad_param(name: &str, v: i64) -> DbError {
    DbError::new(
        SqlState::InvalidParameterValue,
        format!("invalid value for parameter \"{name}\": {v}"),
    )
}

/// Optional integer argument `i` (default `default`), refused by `ok`.
fn int_param(
    a: &[Value],
    i: usize,
    name: &str,
    default: i64,
    ok: fn(i64) -> bool,
) -> Result<i64, DbError> {
    let v = a.get(i).and_then(Value::as_i64).unwrap_or(default);
    if ok(v) {
        Ok(v)
    } else {
        Err(bad_param(name, v))
    }
}

/// Flags at `i`, refusing `g` for `func` (the walk finds every match
/// anyway); the pattern compiled with them.
fn pattern(a: &[Value], i: usize, func: &str) -> Result<Re, DbError> {
    let (_, ci) = flags(a.get(i).and_then(Value::as_str), false, func)?;
    compiled(a[1].as_str().unwrap_or(""), ci)
}

/// The byte offset of 1-based character position `start`, None past the
/// string's end.
fn byte_at(s: &str, start: i64) -> Option<usize> {
    let skip = usize::try_from(start - 1).ok()?;
    if skip == 0 {
        return Some(0);
    }
    match s.char_indices().nth(skip) {
        Some((b, _)) => Some(b),
        None if s.chars().count() == skip => Some(s.len()),
        None => None,
    }
}

/// PostgreSQL's match walk from byte `from`: `f` gets each match until it
/// returns false.
pub(super) fn walk(
    s: &str,
    re: &Re,
    from: usize,
    mut f: impl FnMut(&Groups) -> bool,
) -> Result<(), DbError> {
    let mut pos = from;
    while pos <= s.len() {
        let Some(caps) = re.captures_at(s, pos)? else {
            break;
        };
        let (start, end) = caps.whole();
        if !f(&caps) {
            break;
        }
        pos = end;
        if start == end {
            pos += s[pos..].chars().next().map_or(1, char::len_utf8);
        }
    }
    Ok(())
}

/// The 1-based character position of byte offset `b`.
fn char_pos(s: &str, b: usize) -> i32 {
    s[..b].chars().count() as i32 + 1
}

/// Null if any argument is; else the string and the walk's start byte
/// (None past the end: no matches).
fn subject(a: &[Value]) -> Result<Option<(&str, Option<usize>)>, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(None);
    }
    let start = int_param(a, 2, "start", 1, |v| v > 0)?;
    let s = a[0].as_str().unwrap_or("");
    Ok(Some((s, byte_at(s, start))))
}

fn regexp_count(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some((s, from)) = subject(a)? else {
        return Ok(Value::Null);
    };
    let re = pattern(a, 3, "regexp_count")?;
    let mut n = 0;
    if let Some(from) = from {
        walk(s, &re, from, |_| {
            n += 1;
            true
        })?;
    }
    Ok(Value::Int4(n))
}

fn regexp_like(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let re = pattern(a, 2, "regexp_like")?;
    Ok(Value::Bool(re.is_match(a[0].as_str().unwrap_or(""))?))
}

/// The `n`th match's span of group `subexpr` (0: the whole match) as
/// regexp_instr and regexp_substr pick it: None when there are fewer
/// matches or groups, or the group took no part. A pattern without groups
/// answers group 1 with the whole match, as PostgreSQL's does.
fn nth_span(
    s: &str,
    re: &Re,
    from: Option<usize>,
    n: i64,
    subexpr: i64,
) -> Result<Option<(usize, usize)>, DbError> {
    let groups = re.captures_len() - 1;
    let group = if subexpr > 0 && groups > 0 {
        subexpr as usize
    } else {
        0
    };
    let Some(from) = from else {
        return Ok(None);
    };
    if subexpr > groups.max(1) as i64 {
        return Ok(None);
    }
    let mut seen = 0;
    let mut span = None;
    walk(s, re, from, |caps| {
        seen += 1;
        if seen == n {
            span = caps.span(group);
            return false;
        }
        true
    })?;
    Ok(span)
}

fn regexp_instr(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some((s, from)) = subject(a)? else {
        return Ok(Value::Null);
    };
    let n = int_param(a, 3, "n", 1, |v| v > 0)?;
    let end = int_param(a, 4, "endoption", 0, |v| v == 0 || v == 1)?;
    let subexpr = int_param(a, 6, "subexpr", 0, |v| v >= 0)?;
    let re = pattern(a, 5, "regexp_instr")?;
    Ok(Value::Int4(match nth_span(s, &re, from, n, subexpr)? {
        Some((b, e)) => char_pos(s, if end == 1 { e } else { b }),
        None => 0,
    }))
}

fn regexp_substr(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some((s, from)) = subject(a)? else {
        return Ok(Value::Null);
    };
    let n = int_param(a, 3, "n", 1, |v| v > 0)?;
    let subexpr = int_param(a, 5, "subexpr", 0, |v| v >= 0)?;
    let re = pattern(a, 4, "regexp_substr")?;
    Ok(match nth_span(s, &re, from, n, subexpr)? {
        Some((b, e)) => Value::text(&s[b..e]),
        None => Value::Null,
    })
}

/// regexp_replace(s, pattern, replacement, start [, n [, flags]]): `n` 0
/// replaces every match from `start`, else only the `n`th.
fn regexp_replace_at(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let start = int_param(a, 3, "start", 1, |v| v > 0)?;
    let s = a[0].as_str().unwrap_or("");
    let from = byte_at(s, start);
    let n = int_param(a, 4, "n", 1, |v| v >= 0)?;
    let (_, ci) = flags(a.get(5).and_then(Value::as_str), true, "regexp_replace")?;
    let re = compiled(a[1].as_str().unwrap_or(""), ci)?;
    let replacement = a[2].as_str().unwrap_or("");
    replace(s, &re, replacement, from, n)
}

/// Replace the `n`th match (every match for 0) found by the walk from
/// byte `from` (None: nothing to replace).
pub(super) fn replace(
    s: &str,
    re: &Re,
    replacement: &str,
    from: Option<usize>,
    n: i64,
) -> Result<Value, DbError> {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut seen = 0;
    let mut result = Ok(());
    if let Some(from) = from {
        walk(s, re, from, |caps| {
            seen += 1;
            if n > 0 && seen != n {
                return true;
            }
            let (start, end) = caps.whole();
            out.push_str(&s[last..start]);
            expand_replacement(replacement, caps, &mut out);
            last = end;
            result = check_result_len(out.len());
            result.is_ok() && n == 0
        })?;
    }
    result?;
    out.push_str(&s[last..]);
    Ok(Value::Text(Arc::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: Imp, args: &[Value]) -> Value {
        f(args, &EvalCtx::new(crate::datetime::TimeZone::UTC, 0)).unwrap()
    }

    #[test]
    fn positional_functions() {
        let t = Value::text;
        let i = Value::Int4;
        assert_eq!(call(regexp_count, &[t("123123123"), t("2")]), i(3));
        assert_eq!(call(regexp_count, &[t("123123123"), t("2"), i(5)]), i(2));
        assert_eq!(
            call(regexp_instr, &[t("abcabcabc"), t("a.c"), i(1), i(2), i(1)]),
            i(7)
        );
        assert_eq!(
            call(
                regexp_substr,
                &[
                    t("1234567890"),
                    t("(123)(4(56)(78))"),
                    i(1),
                    i(1),
                    t(""),
                    i(3)
                ]
            ),
            t("56")
        );
        assert_eq!(
            call(regexp_like, &[t("Steven"), t("^Ste(v|ph)en$")]),
            Value::Bool(true)
        );
        let re = compiled("a*", false).unwrap();
        assert_eq!(replace("baaac", &re, "-", Some(0), 0).unwrap(), t("-b--c-"));
    }
}
