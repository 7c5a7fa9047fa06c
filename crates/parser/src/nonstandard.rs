//! `standard_conforming_strings = off`: plain `'…'` literals take
//! backslash escapes, as `E'…'` literals always do.
//!
//! The grammar Nestor parses with (libpg_query) is built with the setting
//! on, and it keeps the setting in a C thread-local nothing else can reach.
//! So with the setting off the session hands the text through
//! [`conform`] first: each plain literal that holds a backslash is
//! unescaped here, as PostgreSQL's scanner does in its `xe` state, and
//! written back as the standard literal of the same value, padded with
//! spaces after its closing quote to its old length in characters. Every
//! other token keeps its place, so error cursors computed over the new
//! text point at the same characters of the text the client sent (psql
//! draws the cursor under its own copy).
//!
//! ```text
//!   sent       select 'a\\b\'cd' as f, E'x\ty', 'plain'
//!   parsed     select 'a\b''cd'  as f, E'x\ty', 'plain'
//!                     ^ one space of padding keeps `as` at its column
//! ```
//!
//! The scanner's other duties with the setting off come along: a warning
//! per literal with a backslash when escape_string_warning is on (the
//! first escape decides which: `\'`, `\\` or any other), at the literal's
//! start; and a `U&'…'` literal is an error. `E'…'`, `B'…'`, `X'…'`,
//! `U&"…"`, identifiers, comments and dollar-quoted bodies are passed
//! over untouched (a function body is scanned when it runs, with the
//! setting on).

use crate::ast::err_at;
use crate::lex::{self, is_ident};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};

/// A text made standard, and the warnings its scan raised.
pub struct Conformed {
    pub text: String,
    pub warnings: Vec<DbError>,
}

/// The text with every plain literal in standard form, or None when it
/// has nothing to change and nothing to warn about.
pub fn conform(text: &str, escape_string_warning: bool) -> Result<Option<Conformed>, DbError> {
    if !text.contains('\\') && !text.contains("&'") {
        return Ok(None);
    }
    let b = text.as_bytes();
    let n = b.len();
    let mut out = String::with_capacity(n);
    let mut warnings = Vec::new();
    let mut changed = false;
    // Copied up to here.
    let mut copied = 0;
    let mut i = 0;
    // A literal continued across a newline warns once (its first part's
    // warning covers it), as the scanner's warn_on_first_escape does.
    let mut continued_warned = false;
    while i < n {
        let c = b[i];
        let prev = if i > 0 { b[i - 1] } else { b' ' };
        let next = b.get(i + 1).copied().unwrap_or(0);
        match c {
            b'\'' if prev == b'&' && i >= 2 && matches!(b[i - 2], b'U' | b'u') => {
                return Err(err_at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        "unsafe use of string constant with Unicode escapes",
                    )
                    .with_detail(
                        "String constants with Unicode escapes cannot be used when standard_conforming_strings is off.",
                    ),
                    text,
                    (i - 2) as i32,
                ));
            }
            b'\'' if is_ident(prev) && !lex::e_prefixed(b, i) => {
                // B'', X'', N'' (N'' is a plain literal after NCHAR).
                if matches!(prev, b'N' | b'n') && (i < 2 || !is_ident(b[i - 2])) {
                    let lit = literal(text, i, escape_string_warning && !continued_warned)?;
                    continued_warned = lit.warned && continues(b, lit.end);
                    changed |= lit.replace(&mut out, text, &mut copied);
                    warnings.extend(lit.warning);
                    i = lit.end;
                } else {
                    i = lex::quoted_end(b, i, false).unwrap_or(n);
                }
            }
            b'\'' if lex::e_prefixed(b, i) => i = lex::quoted_end(b, i, true).unwrap_or(n),
            b'\'' => {
                let lit = literal(text, i, escape_string_warning && !continued_warned)?;
                continued_warned = lit.warned && continues(b, lit.end);
                changed |= lit.replace(&mut out, text, &mut copied);
                warnings.extend(lit.warning);
                i = lit.end;
            }
            b'"' => i = lex::quoted_end(b, i, false).unwrap_or(n),
            b'-' if next == b'-' => i = lex::line_comment_end(b, i),
            b'/' if next == b'*' => i = lex::block_comment_end(b, i).unwrap_or(n),
            b'$' if !is_ident(prev) => i = dollar_end(b, i),
            _ => i += 1,
        }
    }
    if !changed && warnings.is_empty() {
        return Ok(None);
    }
    out.push_str(&text[copied..]);
    Ok(Some(Conformed {
        text: out,
        warnings,
    }))
}

/// Past a `$n` parameter or a `$tag$…$tag$` body starting at `i` (one
/// byte on for a lone `$`).
fn dollar_end(b: &[u8], i: usize) -> usize {
    let n = b.len();
    let mut j = i + 1;
    if j < n && b[j].is_ascii_digit() {
        while j < n && b[j].is_ascii_digit() {
            j += 1;
        }
        return j;
    }
    while j < n && is_ident(b[j]) && b[j] != b'$' {
        j += 1;
    }
    if j < n && b[j] == b'$' {
        let tag = &b[i..=j];
        let body = j + 1;
        return b[body..]
            .windows(tag.len())
            .position(|w| w == tag)
            .map_or(n, |p| body + p + tag.len());
    }
    i + 1
}

/// Whether the literal ending at `end` goes on: whitespace holding a
/// newline, then a quote (the scanner's quotecontinue).
fn continues(b: &[u8], end: usize) -> bool {
    let mut j = end;
    let mut newline = false;
    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        newline |= matches!(b[j], b'\n' | b'\r');
        j += 1;
    }
    newline && b.get(j) == Some(&b'\'')
}

/// One plain literal read with backslash escapes.
struct Literal {
    start: usize,
    end: usize,
    /// Its value in standard form, when it had a backslash.
    standard: Option<String>,
    warning: Option<DbError>,
    warned: bool,
}

impl Literal {
    /// Put the standard form in place of the literal (padded to its
    /// length in characters); whether anything changed.
    fn replace(&self, out: &mut String, text: &str, copied: &mut usize) -> bool {
        let Some(std) = &self.standard else {
            return false;
        };
        out.push_str(&text[*copied..self.start]);
        out.push_str(std);
        let old = text[self.start..self.end].chars().count();
        let new = std.chars().count();
        debug_assert!(new <= old, "an escape never grows");
        out.extend(std::iter::repeat_n(' ', old.saturating_sub(new)));
        *copied = self.end;
        true
    }
}

/// The literal whose opening quote is at `open`, unescaped as the `xe`
/// state does (scan.l: xeescape, xeoctesc, xehexesc, xeunicode, the
/// doubled quote).
fn literal(text: &str, open: usize, warn: bool) -> Result<Literal, DbError> {
    let b = text.as_bytes();
    let n = b.len();
    let mut value: Vec<u8> = Vec::new();
    let mut first_escape: Option<u8> = None;
    let mut j = open + 1;
    loop {
        if j >= n {
            // Unterminated: left as it is, for the parser's own error.
            return Ok(Literal {
                start: open,
                end: n,
                standard: None,
                warning: None,
                warned: false,
            });
        }
        match b[j] {
            b'\'' if b.get(j + 1) == Some(&b'\'') => {
                value.push(b'\'');
                j += 2;
            }
            b'\'' => {
                j += 1;
                break;
            }
            b'\\' => {
                let (bytes, len) = escape(text, j)?;
                first_escape.get_or_insert(b.get(j + 1).copied().unwrap_or(0));
                value.extend_from_slice(&bytes);
                j += len;
            }
            c => {
                value.push(c);
                j += 1;
            }
        }
    }
    let Some(kind) = first_escape else {
        return Ok(Literal {
            start: open,
            end: j,
            standard: None,
            warning: None,
            warned: false,
        });
    };
    let value = String::from_utf8(value).map_err(|e| {
        let bytes = e.into_bytes();
        let at = std::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
        DbError::invalid_utf8(&bytes[at..])
    })?;
    if value.contains('\0') {
        return Err(DbError::invalid_utf8(&[0]));
    }
    let warning = warn.then(|| err_at(escape_warning(kind), text, open as i32));
    Ok(Literal {
        start: open,
        end: j,
        standard: Some(format!("'{}'", value.replace('\'', "''"))),
        warning,
        warned: warn,
    })
}

/// check_string_escape_warning / check_escape_warning for the first
/// escape of a literal (`kind`: the byte after its backslash).
fn escape_warning(kind: u8) -> DbError {
    let (msg, hint) = match kind {
        b'\'' => (
            "nonstandard use of \\' in a string literal",
            "Use '' to write quotes in strings, or use the escape string syntax (E'...').",
        ),
        b'\\' => (
            "nonstandard use of \\\\ in a string literal",
            "Use the escape string syntax for backslashes, e.g., E'\\\\'.",
        ),
        _ => (
            "nonstandard use of escape in a string literal",
            "Use the escape string syntax for escapes, e.g., E'\\r\\n'.",
        ),
    };
    DbError::new(SqlState::NonstandardUseOfEscapeCharacter, msg)
        .with_hint(hint)
        .with_severity(Severity::Warning)
}

/// The bytes the escape at `at` (a backslash) stands for, and its length.
fn escape(text: &str, at: usize) -> Result<(Vec<u8>, usize), DbError> {
    let b = text.as_bytes();
    let Some(&c) = b.get(at + 1) else {
        return Ok((Vec::new(), 1));
    };
    let digits = |from: usize, max: usize, ok: fn(&u8) -> bool| {
        b[from..].iter().take(max).take_while(|x| ok(x)).count()
    };
    Ok(match c {
        b'0'..=b'7' => {
            let k = digits(at + 1, 3, |x| (b'0'..=b'7').contains(x));
            let v = u32::from_str_radix(&text[at + 1..at + 1 + k], 8).expect("octal digits");
            (vec![v as u8], 1 + k)
        }
        b'x' if b.get(at + 2).is_some_and(u8::is_ascii_hexdigit) => {
            let k = digits(at + 2, 2, u8::is_ascii_hexdigit);
            let v = u8::from_str_radix(&text[at + 2..at + 2 + k], 16).expect("hex digits");
            (vec![v], 2 + k)
        }
        b'u' | b'U' => unicode_escape(text, at)?,
        b'b' => (vec![0x08], 2),
        b'f' => (vec![0x0c], 2),
        b'n' => (vec![b'\n'], 2),
        b'r' => (vec![b'\r'], 2),
        b't' => (vec![b'\t'], 2),
        _ => {
            // Any other character stands for itself (a whole UTF-8
            // character, not just its first byte).
            let ch = text[at + 1..].chars().next().expect("a character follows");
            (ch.to_string().into_bytes(), 1 + ch.len_utf8())
        }
    })
}

/// `\uXXXX` or `\UXXXXXXXX` (a UTF-16 surrogate pair as two `\u`).
fn unicode_escape(text: &str, at: usize) -> Result<(Vec<u8>, usize), DbError> {
    let b = text.as_bytes();
    let width = if b[at + 1] == b'u' { 4 } else { 8 };
    let hex = |from: usize, w: usize| -> Option<u32> {
        let s = text.get(from..from + w)?;
        s.bytes()
            .all(|x| x.is_ascii_hexdigit())
            .then(|| u32::from_str_radix(s, 16).expect("hex digits"))
    };
    let invalid_escape = |pos: usize| {
        err_at(
            DbError::new(SqlState::InvalidEscapeSequence, "invalid Unicode escape")
                .with_hint("Unicode escapes must be \\uXXXX or \\UXXXXXXXX."),
            text,
            pos as i32,
        )
    };
    let surrogate = |pos: usize| {
        err_at(
            DbError::new(SqlState::SyntaxError, "invalid Unicode surrogate pair"),
            text,
            pos as i32,
        )
    };
    let Some(first) = hex(at + 2, width) else {
        return Err(invalid_escape(at));
    };
    let mut len = 2 + width;
    let code = match first {
        0xD800..=0xDBFF => {
            let second = (b.get(at + len) == Some(&b'\\') && b.get(at + len + 1) == Some(&b'u'))
                .then(|| hex(at + len + 2, 4))
                .flatten()
                .filter(|s| (0xDC00..=0xDFFF).contains(s))
                .ok_or_else(|| surrogate(at + len))?;
            len += 6;
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        }
        0xDC00..=0xDFFF => return Err(surrogate(at)),
        c => c,
    };
    let ch = char::from_u32(code).filter(|&c| c != '\0').ok_or_else(|| {
        err_at(
            DbError::new(SqlState::SyntaxError, "invalid Unicode escape value"),
            text,
            at as i32,
        )
    })?;
    Ok((ch.to_string().into_bytes(), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conformed(t: &str) -> String {
        conform(t, false)
            .unwrap()
            .map_or_else(|| t.to_string(), |c| c.text)
    }

    #[test]
    fn plain_literals_lose_their_escapes_and_keep_their_length() {
        let t = r"select 'a\\bcd' as f1, 'a\\b\'cd' as f2, 'abcd\\'   as f4, '\\\\' as f6;";
        let c = conformed(t);
        assert_eq!(c.chars().count(), t.chars().count());
        assert_eq!(
            c,
            r"select 'a\bcd'  as f1, 'a\b''cd'  as f2, 'abcd\'    as f4, '\\'   as f6;"
        );
        let t = r"select 'x\ty\101\x41\u00e9'";
        let c = conformed(t);
        assert_eq!(c.trim_end(), "select 'x\tyAA\u{e9}'");
        assert_eq!(c.chars().count(), t.chars().count());
    }

    #[test]
    fn other_quoted_text_is_left_alone() {
        for t in [
            r#"select E'a\\b', B'01', X'1f', U&"d\0061" as x"#,
            "select $$a\\b$$, $f$ 'x\\' $f$ -- 'c\\'\n",
            r"select /* 'a\\' */ 1, ident\ $1",
        ] {
            assert!(conform(t, true).unwrap().is_none(), "{t}");
        }
    }

    #[test]
    fn warnings_and_errors_as_the_scanner_raises_them() {
        let c = conform(r"select 'a\\b', 'c\'d', 'e\nf', 'plain'", true)
            .unwrap()
            .unwrap();
        let msgs: Vec<&str> = c.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "nonstandard use of \\\\ in a string literal",
                "nonstandard use of \\' in a string literal",
                "nonstandard use of escape in a string literal",
            ]
        );
        let e = conform(r"select U&'d\0061'", true).err().unwrap();
        assert_eq!(
            e.message,
            "unsafe use of string constant with Unicode escapes"
        );
        assert!(conform(r"select 'a\000'", true).is_err());
        assert!(conform(r"select 'a\xe9'", true).is_err());
    }
}
