//! The few lexical rules of PostgreSQL's scanner that Nestor's own text
//! scans (the parse cache's literal scan, the nesting bound) must follow
//! exactly, so that they skip the same quoted text and comments the real
//! scanner does.

/// An identifier character (after the first): letters, digits, `_`, `$`
/// and every byte of a non-ASCII character.
pub(crate) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// Whether the quote at `open` starts an `E'…'` string (backslash escapes
/// apply): an E or e that is not the end of a longer identifier.
pub(crate) fn e_prefixed(b: &[u8], open: usize) -> bool {
    open > 0 && matches!(b[open - 1], b'E' | b'e') && (open < 2 || !is_ident(b[open - 2]))
}

/// The index just past the closing quote of the quoted literal or
/// identifier whose opening quote is at `open` (a doubled quote is part of
/// it; with `backslash`, a backslash escapes the next byte). None if it is
/// not closed.
pub(crate) fn quoted_end(b: &[u8], open: usize, backslash: bool) -> Option<usize> {
    let quote = b[open];
    let mut j = open + 1;
    while j < b.len() {
        if backslash && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == quote {
            if b.get(j + 1) == Some(&quote) {
                j += 2;
                continue;
            }
            return Some(j + 1);
        }
        j += 1;
    }
    None
}

/// The index past a `--` comment starting at `i`: PostgreSQL ends it at a
/// newline or a carriage return.
pub(crate) fn line_comment_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&x| x == b'\n' || x == b'\r')
        .map_or(b.len(), |p| i + p + 1)
}

/// The index past a (nested) block comment whose `/*` is at `i`; None if
/// it is not closed.
pub(crate) fn block_comment_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i + 1 < b.len() {
        if b[i] == b'/' && b[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scanner_rules_follow_postgres() {
        let e = |t: &str| e_prefixed(t.as_bytes(), t.find('\'').unwrap());
        assert!(e("E'x'") && e("(e'x'") && e(" E'x'"));
        assert!(!e("abcE'x'") && !e("a$e'x'") && !e("éE'x'") && !e("'x'"));
        // A comment ends at a carriage return too.
        assert_eq!(line_comment_end(b"-- c\r1", 0), 5);
        assert_eq!(line_comment_end(b"-- c", 0), 4);
        assert_eq!(quoted_end(b"'a''b' x", 0, false), Some(6));
        assert_eq!(quoted_end(b"'a\\'b' x", 0, true), Some(6));
        assert_eq!(quoted_end(b"'open", 0, false), None);
        assert_eq!(block_comment_end(b"/* /* */ */x", 0), Some(11));
        assert_eq!(block_comment_end(b"/* /* */", 0), None);
        // The literal scan sees a literal after a CR-ended comment.
        let lits = crate::literals::scan("SELECT 1 -- c\r, 2").unwrap();
        assert_eq!(lits.len(), 2);
    }
}
