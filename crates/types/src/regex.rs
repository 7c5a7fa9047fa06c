//! POSIX regular expressions: the `~ ~* !~ !~*` operators (PostgreSQL's
//! textregexeq and friends), `regexp_replace`, `regexp_match` and
//! `regexp_split_to_array`; PostgreSQL 15's `regexp_count`,
//! `regexp_instr`, `regexp_like`, `regexp_substr` and regexp_replace's
//! start/n form are in [`positional`], which also walks the matches of
//! every regexp_replace.
//!
//! Patterns are PostgreSQL's Advanced Regular Expressions, run by the
//! `regex` crate after a small translation: ARE's word-boundary escapes
//! `\m`, `\M`, `\y` become `\b` and `\Y` becomes `\B`; bracket classes
//! (`[[:alpha:]]`), `\d \s \w`, quantifiers `{m,n}`, non-greedy `*?` and
//! `(?:...)` mean the same in both. Matching is in linear time, so no
//! pattern can make a statement run away — except a pattern with back
//! references (`\1`) or lookaround (`(?=...)`, `(?!...)`, `(?<=...)`,
//! `(?<!...)`), which no automaton can run: it runs on a backtracking
//! engine with a step limit ([`engine`]).
//!
//! Compiled patterns are kept per thread, up to [`REGEX_CACHE_ENTRIES_MAX`]
//! (PostgreSQL keeps 32 per backend); a statement that uses one constant
//! pattern compiles it once.

use std::cell::RefCell;

use nestor_common::{DbError, SqlState};

use engine::{Groups, Re};

use crate::array::Array;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved};
use crate::value::Value;

mod engine;
mod positional;

pub use engine::REGEX_BACKTRACK_STEPS_MAX;

/// Compiled patterns cached per thread.
pub const REGEX_CACHE_ENTRIES_MAX: usize = 64;
/// Memory one compiled pattern may use (the crate's own limit, named).
pub const REGEX_COMPILED_BYTES_MAX: usize = 10 << 20;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "textregexeq",
    "textregexne",
    "texticregexeq",
    "texticregexne",
    "regexp_replace",
    "regexp_match",
    "regexp_split_to_array",
    "regexp_count",
    "regexp_instr",
    "regexp_like",
    "regexp_substr",
];

thread_local! {
    static CACHE: RefCell<Vec<(String, ReOpts, Re)>> = const { RefCell::new(Vec::new()) };
}

/// Translate an ARE to the engines' syntax; also whether it needs the
/// backtracking engine (back references, lookaround).
fn translate(pattern: &str) -> Result<(String, bool), DbError> {
    let mut out = String::with_capacity(pattern.len());
    let mut backtracking = false;
    let mut chars = pattern.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    return Err(invalid("invalid escape \\ sequence"));
                };
                match n {
                    'm' | 'M' | 'y' if !in_bracket => out.push_str("\\b"),
                    // ARE's \b is a backspace, not a word boundary.
                    'b' => out.push_str("\\x08"),
                    'Y' if !in_bracket => out.push_str("\\B"),
                    '1'..='9' if !in_bracket => {
                        backtracking = true;
                        out.push('\\');
                        out.push(n);
                    }
                    n => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_bracket => {
                in_bracket = true;
                out.push('[');
                // A ']' first in a bracket is a literal, in both dialects.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            '[' if in_bracket && chars.peek() == Some(&':') => {
                // [:class:] inside a bracket: copy through its ':]'.
                out.push('[');
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            }
            '[' => out.push_str("\\["),
            ']' if in_bracket => {
                in_bracket = false;
                out.push(']');
            }
            '(' if !in_bracket && chars.peek() == Some(&'?') => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with("?=")
                    || rest.starts_with("?!")
                    || rest.starts_with("?<=")
                    || rest.starts_with("?<!")
                {
                    backtracking = true;
                }
                out.push('(');
            }
            c => out.push(c),
        }
    }
    Ok((out, backtracking))
}

fn invalid(why: &str) -> DbError {
    DbError::new(
        SqlState::InvalidRegularExpression,
        format!("invalid regular expression: {why}"),
    )
}

/// How a pattern is read: the flags of the regexp_* functions other than
/// `g` (PostgreSQL's parse_re_flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReOpts {
    /// `i` (and `c` back off).
    ci: bool,
    /// `.` and negated brackets do not match a newline (`n`, `m`, `p`).
    dot_stops_at_newline: bool,
    /// `^` and `$` match at line boundaries too (`n`, `m`, `w`).
    line_anchors: bool,
    /// `x`: whitespace and `#` comments outside brackets are ignored.
    expanded: bool,
    /// `q`: the pattern is a literal string.
    quoted: bool,
}

impl From<bool> for ReOpts {
    fn from(ci: bool) -> ReOpts {
        ReOpts {
            ci,
            ..ReOpts::default()
        }
    }
}

/// An expanded-syntax (`x`) pattern without its whitespace and `#`
/// comments; inside brackets and after a backslash they stay.
fn strip_expanded(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '[' if !in_bracket => {
                in_bracket = true;
                out.push(c);
                // A `]` first in the bracket is literal.
                if let Some(n) = chars.next() {
                    out.push(n);
                    if n == '^' {
                        if let Some(m) = chars.next() {
                            out.push(m);
                        }
                    }
                }
            }
            ']' if in_bracket => {
                in_bracket = false;
                out.push(c);
            }
            c if !in_bracket && c.is_whitespace() => {}
            '#' if !in_bracket => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The compiled form of `pattern` read as `opts` says (a bool: only
/// case-insensitivity).
fn compiled(pattern: &str, opts: impl Into<ReOpts>) -> Result<Re, DbError> {
    let opts = opts.into();
    if let Some(r) = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, o, _)| *o == opts && p == pattern)
            .map(|e| e.2.clone())
    }) {
        return Ok(r);
    }
    let (source, backtracking) = if opts.quoted {
        (regex::escape(pattern), false)
    } else if opts.expanded {
        translate(&strip_expanded(pattern))?
    } else {
        translate(pattern)?
    };
    if opts.dot_stops_at_newline && !opts.quoted && source.contains("[^") {
        // PostgreSQL's negated brackets do not match a newline in this
        // mode; the regex crate's do.
        return Err(DbError::unsupported(
            "negated bracket expressions in newline-sensitive regular expressions",
        ));
    }
    let flags = (opts.ci, !opts.dot_stops_at_newline, opts.line_anchors);
    let re =
        engine::build(&source, backtracking, flags, REGEX_COMPILED_BYTES_MAX).map_err(|e| {
            let why = e
                .lines()
                .last()
                .unwrap_or("syntax error")
                .replace("error: ", "");
            // PostgreSQL's words for the common mistakes.
            let pg = [
                ("unclosed group", "parentheses () not balanced"),
                ("unopened group", "parentheses () not balanced"),
                ("unclosed character class", "brackets [] not balanced"),
                ("unclosed counted repetition", "braces {} not balanced"),
                (
                    "invalid repetition count range",
                    "invalid repetition count(s)",
                ),
                (
                    "repetition quantifier expects a valid decimal",
                    "invalid repetition count(s)",
                ),
                (
                    "repetition operator missing expression",
                    "quantifier operand invalid",
                ),
            ];
            match pg.iter().find(|(crate_words, _)| why.contains(crate_words)) {
                Some((_, words)) => invalid(words),
                None => invalid(&why),
            }
        })?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= REGEX_CACHE_ENTRIES_MAX {
            c.remove(0);
        }
        c.push((pattern.to_string(), opts, re.clone()));
    });
    Ok(re)
}

/// `s ~ pattern` (`~*` when `ci`).
pub fn matches(s: &str, pattern: &str, ci: bool) -> Result<bool, DbError> {
    compiled(pattern, ci)?.is_match(s)
}

/// `name(args)` if it is one of this module's functions.
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    if positional::NAMES.contains(&name)
        || (name == "regexp_replace"
            && (args.len() > 4 || args.get(3).is_some_and(|t| t.is_integer())))
    {
        return positional::resolve(name, args);
    }
    let n = args.len();
    let texts = args.iter().all(|t| t.is_string());
    let (imp, ret): (Imp, DataType) = match (name, n) {
        (_, _) if !texts => return Some(Err(crate::functions::no_function(name, args))),
        ("textregexeq", 2) => (|a, _| op(a, false, false), DataType::Bool),
        ("textregexne", 2) => (|a, _| op(a, false, true), DataType::Bool),
        ("texticregexeq", 2) => (|a, _| op(a, true, false), DataType::Bool),
        ("texticregexne", 2) => (|a, _| op(a, true, true), DataType::Bool),
        ("regexp_replace", 3 | 4) => (regexp_replace, DataType::Text),
        ("regexp_match", 2 | 3) => (regexp_match, text_array()),
        ("regexp_split_to_array", 2 | 3) => (regexp_split_to_array, text_array()),
        _ => return Some(Err(crate::functions::no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES,
        name,
        imp,
        vec![DataType::Text; n],
        ret,
        false,
    )))
}

/// `substring(s FROM pattern)` (a POSIX regular expression) and
/// `substring(s SIMILAR pattern ESCAPE e)` (text arguments only: the
/// integer forms are the core's): the part of `s` the first
/// parenthesised group matched, else the whole match; NULL without one.
pub(crate) fn substring(args: &[DataType]) -> Option<Resolved> {
    let stringish = |t: &DataType| t.is_string() || *t == DataType::Unknown;
    let imp: Imp = match args {
        [s, p] if stringish(s) && stringish(p) => regex_substring,
        [s, p, e] if stringish(s) && stringish(p) && stringish(e) => similar_substring,
        _ => return None,
    };
    Some(Resolved::listed(
        &["substring"],
        "substring",
        imp,
        vec![DataType::Text; args.len()],
        DataType::Text,
        false,
    ))
}

fn regex_substring(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(s) = strs(a) else {
        return Ok(Value::Null);
    };
    substring_of(s[0], s[1])
}

fn similar_substring(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let pattern = crate::string_fns::similar_to_escape(&a[1..], ctx)?;
    match (a[0].as_str(), pattern.as_str()) {
        (Some(s), Some(p)) => substring_of(s, p),
        _ => Ok(Value::Null),
    }
}

fn substring_of(s: &str, pattern: &str) -> Result<Value, DbError> {
    let re = compiled(pattern, false)?;
    let Some(caps) = re.captures_at(s, 0)? else {
        return Ok(Value::Null);
    };
    let m = if caps.len() > 1 {
        caps.get(1)
    } else {
        caps.get(0)
    };
    Ok(m.map_or(Value::Null, Value::text))
}

fn text_array() -> DataType {
    DataType::Text.array_of().expect("text[]")
}

fn strs(a: &[Value]) -> Option<Vec<&str>> {
    a.iter().map(Value::as_str).collect()
}

fn op(a: &[Value], ci: bool, negated: bool) -> Result<Value, DbError> {
    let Some(s) = strs(a) else {
        return Ok(Value::Null);
    };
    Ok(Value::Bool(matches(s[0], s[1], ci)? != negated))
}

/// Flags of the regexp_* functions (PostgreSQL's parse_re_flags): `g`
/// (every match, where allowed), `i`/`c` (case), `n`/`m`, `p`, `w`, `s`
/// (newline sensitivity), `x` (expanded), `q` (literal), `t`/`e` (the
/// defaults); `b` (basic syntax) is 0A000, others 22023.
fn flags(f: Option<&str>, allow_g: bool, func: &str) -> Result<(bool, ReOpts), DbError> {
    let mut global = false;
    let mut o = ReOpts::default();
    for c in f.unwrap_or("").chars() {
        match c {
            'g' if allow_g => global = true,
            'g' => {
                let e = DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("{func}() does not support the \"global\" option"),
                );
                return Err(if func == "regexp_match" {
                    e.with_hint("Use the regexp_matches function instead.")
                } else {
                    e
                });
            }
            'i' => o.ci = true,
            'c' => o.ci = false,
            'n' | 'm' => (o.dot_stops_at_newline, o.line_anchors) = (true, true),
            'p' => (o.dot_stops_at_newline, o.line_anchors) = (true, false),
            'w' => (o.dot_stops_at_newline, o.line_anchors) = (false, true),
            's' => (o.dot_stops_at_newline, o.line_anchors) = (false, false),
            'x' => o.expanded = true,
            't' => o.expanded = false,
            'q' => o.quoted = true,
            'e' => {}
            'b' => {
                return Err(DbError::unsupported(
                    "basic regular expressions (flag \"b\")",
                ))
            }
            c => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("invalid regular expression option: \"{c}\""),
                ))
            }
        }
    }
    Ok((global, o))
}

fn regexp_replace(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(s) = strs(a) else {
        return Ok(Value::Null);
    };
    // A fourth argument written as a number meant the start/n form.
    if let Some(d) = s
        .get(3)
        .and_then(|f| f.chars().next())
        .filter(char::is_ascii_digit)
    {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid regular expression option: \"{d}\""),
        )
        .with_hint("If you meant to use regexp_replace() with a start parameter, cast the fourth argument to integer explicitly."));
    }
    let (global, ci) = flags(s.get(3).copied(), true, "regexp_replace")?;
    let re = compiled(s[1], ci)?;
    positional::replace(s[0], &re, s[2], Some(0), if global { 0 } else { 1 })
}

/// Append PostgreSQL's expansion of a regexp_replace replacement for one
/// match: \1..\9 a group, \& the match, \\ a backslash (the crate's `$`
/// syntax must not apply).
fn expand_replacement(replacement: &str, caps: &Groups, out: &mut String) {
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(d @ '1'..='9') => {
                let g = d as usize - '0' as usize;
                out.push_str(caps.get(g).unwrap_or(""));
            }
            Some('&') => out.push_str(caps.get(0).unwrap_or("")),
            Some(other) => {
                if other != '\\' {
                    out.push('\\');
                }
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
}

fn regexp_match(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(s) = strs(a) else {
        return Ok(Value::Null);
    };
    let (_, ci) = flags(s.get(2).copied(), false, "regexp_match")?;
    let re = compiled(s[1], ci)?;
    let Some(caps) = re.captures_at(s[0], 0)? else {
        return Ok(Value::Null);
    };
    Ok(captures_array(&caps))
}

/// One match as regexp_match(es) return it: the groups' texts as a
/// text[] (NULL for a group that took no part), or the whole match when
/// the pattern has no groups.
fn captures_array(caps: &Groups) -> Value {
    let items: Vec<Value> = if caps.len() == 1 {
        vec![Value::text(caps.get(0).unwrap_or(""))]
    } else {
        (1..caps.len())
            .map(|i| caps.get(i).map_or(Value::Null, Value::text))
            .collect()
    };
    Array::from_items(DataType::Text, items).value()
}

/// regexp_matches(s, pattern [, flags]): each match's captures as a
/// text[] (the whole match when the pattern has no groups); every match
/// with `g`, else the first.
pub fn regexp_matches(s: &str, pattern: &str, f: Option<&str>) -> Result<Vec<Value>, DbError> {
    let (global, ci) = flags(f, true, "regexp_matches")?;
    let re = compiled(pattern, ci)?;
    let mut out = Vec::new();
    positional::walk(s, &re, 0, |caps| {
        out.push(captures_array(caps));
        global
    })?;
    Ok(out)
}

fn regexp_split_to_array(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(s) = strs(a) else {
        return Ok(Value::Null);
    };
    let items = split(s[0], s[1], s.get(2).copied(), "regexp_split_to_array")?;
    Ok(Array::from_items(DataType::Text, items).value())
}

/// The pieces of `s` between matches of `pattern` (regexp_split_to_array
/// and regexp_split_to_table).
pub fn split(s: &str, pattern: &str, f: Option<&str>, func: &str) -> Result<Vec<Value>, DbError> {
    let s = [s, pattern];
    let (_, ci) = flags(f, false, func)?;
    let re = compiled(s[1], ci)?;
    // PostgreSQL's walk with degenerate matches ignored: a match counts
    // when it starts before the end and ends past the previous match
    // (so no empty piece at either end or between adjacent matches).
    let mut items = Vec::new();
    let mut start = 0;
    positional::walk(s[0], &re, 0, |caps| {
        let (a, b) = caps.whole();
        if a < s[0].len() && b > start {
            items.push(Value::text(&s[0][start..a]));
            start = b;
        }
        true
    })?;
    items.push(Value::text(&s[0][start..]));
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_translation() {
        assert!(matches("pg_toast", "^pg_", false).unwrap());
        assert!(!matches("public", "^pg_", false).unwrap());
        assert!(matches("t", "^(t)$", false).unwrap());
        assert!(matches("ABC", "b", true).unwrap());
        assert!(matches("a word", "\\mword\\M", false).unwrap());
        assert!(matches("x]", "[]]", false).unwrap());
        assert!(matches("b", "[[:alpha:]]", false).unwrap());
        // Back references and lookaround, on the backtracking engine.
        assert!(matches("xaa", "(a)\\1", false).unwrap());
        assert!(!matches("xab", "(a)\\1", false).unwrap());
        assert!(matches("AA", "(a)\\1", true).unwrap());
        assert!(matches("foobar", "foo(?=bar)", false).unwrap());
        assert!(!matches("foobaz", "foo(?=bar)", false).unwrap());
        assert!(matches("foobaz", "foo(?!bar)", false).unwrap());
        assert!(matches("xbar", "(?<=x)bar", false).unwrap());
        // A pattern that backtracks past the step limit fails, it does
        // not run away.
        let s = "x".repeat(30);
        assert_eq!(
            matches(&s, "^(x+x+)+\\1y$", false).unwrap_err().code,
            SqlState::InvalidRegularExpression
        );
        assert_eq!(
            matches("a", "(", false).unwrap_err().code,
            SqlState::InvalidRegularExpression
        );
    }

    #[test]
    fn functions_match_postgresql() {
        let ctx = EvalCtx::new(crate::datetime::TimeZone::UTC, 0);
        let t = Value::text;
        let txt = |v: Value| v.to_text(&ctx);
        assert_eq!(
            txt(regexp_replace(&[t("foobarbaz"), t("b(..)"), t("X\\1Y")], &ctx).unwrap()),
            "fooXarYbaz"
        );
        assert_eq!(
            txt(regexp_replace(&[t("aaa"), t("a"), t("b"), t("g")], &ctx).unwrap()),
            "bbb"
        );
        assert_eq!(
            txt(regexp_match(&[t("foobarbequebaz"), t("(bar)(beque)")], &ctx).unwrap()),
            "{bar,beque}"
        );
        assert!(regexp_match(&[t("abc"), t("x")], &ctx).unwrap().is_null());
        assert_eq!(
            txt(regexp_split_to_array(&[t("hello world"), t("\\s+")], &ctx).unwrap()),
            "{hello,world}"
        );
        assert_eq!(
            txt(regexp_split_to_array(&[t("abc"), t("")], &ctx).unwrap()),
            "{a,b,c}"
        );
    }
}
