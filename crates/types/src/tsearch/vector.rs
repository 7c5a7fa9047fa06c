//! The `tsvector` value: a sorted, duplicate-free list of lexemes, each
//! with its positions (and a weight per position).
//!
//! The representation keeps what PostgreSQL's on-disk `TSVector` holds,
//! in owned form: lexemes in PostgreSQL's order (bytewise, a prefix before
//! its extensions, `tsCompareString`), positions ascending and unique,
//! each a `WordEntryPos` (weight in the top two bits, 3 = A ... 0 = D,
//! position 1..=16383 in the low fourteen). Keeping PostgreSQL's encoding
//! makes binary send/recv, storage and the comparison order (which looks
//! at the varlena size PostgreSQL would have) straightforward, and gives
//! a GIN index the lexemes as they are ([`TsVector::lexemes`]).

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

/// Largest position (PostgreSQL's MAXENTRYPOS - 1): larger ones clamp to it.
pub const POS_MAX: u16 = (1 << 14) - 1;
/// Most positions one lexeme keeps (MAXNUMPOS).
pub const NUM_POS_MAX: usize = 256;
/// Longest lexeme in bytes plus one (MAXSTRLEN).
pub const STR_LEN_MAX: usize = (1 << 11) - 1;
/// Most bytes of lexemes and positions (MAXSTRPOS).
pub const STR_POS_MAX: usize = (1 << 20) - 1;

/// A lexeme and its positions (`WordEntryPos` values, possibly none).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lexeme {
    pub word: Box<str>,
    pub pos: Vec<u16>,
}

/// A tsvector: lexemes sorted by [`cmp_lexeme`], no two equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TsVector {
    pub entries: Vec<Lexeme>,
}

/// The position part of a `WordEntryPos`.
pub fn pos_of(p: u16) -> u16 {
    p & 0x3fff
}

/// The weight part of a `WordEntryPos` (3 = A, 2 = B, 1 = C, 0 = D).
pub fn weight_of(p: u16) -> u8 {
    (p >> 14) as u8
}

/// A `WordEntryPos` of position `pos` (clamped) and weight `w`.
pub fn make_pos(pos: u32, w: u8) -> u16 {
    (pos.min(POS_MAX as u32) as u16) | ((w as u16 & 3) << 14)
}

/// PostgreSQL's lexeme order (tsCompareString without prefix matching):
/// bytewise over the common length, then the shorter first.
pub fn cmp_lexeme(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

/// Sort and deduplicate positions as uniquePos does: equal positions keep
/// the highest weight; at most [`NUM_POS_MAX`] stay, and nothing after
/// [`POS_MAX`].
pub fn unique_pos(mut p: Vec<u16>) -> Vec<u16> {
    if p.len() <= 1 {
        return p;
    }
    p.sort_by_key(|x| pos_of(*x));
    let mut out: Vec<u16> = Vec::with_capacity(p.len());
    for x in p {
        match out.last_mut() {
            Some(last) if pos_of(*last) == pos_of(x) => {
                if weight_of(x) > weight_of(*last) {
                    *last = make_pos(pos_of(*last) as u32, weight_of(x));
                }
            }
            _ => {
                out.push(x);
                if out.len() >= NUM_POS_MAX || pos_of(x) == POS_MAX {
                    break;
                }
            }
        }
    }
    out
}

impl TsVector {
    /// A tsvector of `entries` in any order, with duplicates (their
    /// positions merged, as tsvectorin's uniqueentry does).
    pub fn from_unsorted(mut entries: Vec<Lexeme>) -> TsVector {
        entries.sort_by(|a, b| cmp_lexeme(&a.word, &b.word));
        let mut out: Vec<Lexeme> = Vec::with_capacity(entries.len());
        for e in entries {
            match out.last_mut() {
                Some(last) if last.word == e.word => last.pos.extend(e.pos),
                _ => out.push(e),
            }
        }
        for e in &mut out {
            e.pos = unique_pos(std::mem::take(&mut e.pos));
        }
        TsVector { entries: out }
    }

    /// The lexemes, in order (what a GIN index keys a tsvector by).
    pub fn lexemes(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| &*e.word)
    }

    /// The entry of `word`, by binary search.
    pub fn find(&self, word: &str) -> Option<&Lexeme> {
        self.entries
            .binary_search_by(|e| cmp_lexeme(&e.word, word))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The entries whose lexeme starts with `prefix` (a contiguous run).
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a Lexeme> + 'a {
        let start = self
            .entries
            .partition_point(|e| cmp_lexeme(&e.word, prefix) == Ordering::Less);
        self.entries[start..]
            .iter()
            .take_while(move |e| e.word.as_bytes().starts_with(prefix.as_bytes()))
    }

    /// The varlena size PostgreSQL's TSVector of this value has (its
    /// comparison order looks at it first).
    pub fn pg_size(&self) -> usize {
        let mut off = 0usize;
        for e in &self.entries {
            off += e.word.len();
            if !e.pos.is_empty() {
                off = (off + 1) & !1;
                off += 2 + 2 * e.pos.len();
            }
        }
        8 + 4 * self.entries.len() + off
    }

    /// The text form: `'a':1A,3 'b'`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            quote_into(&mut out, &e.word);
            for (j, p) in e.pos.iter().enumerate() {
                out.push(if j == 0 { ':' } else { ',' });
                out.push_str(&pos_of(*p).to_string());
                match weight_of(*p) {
                    3 => out.push('A'),
                    2 => out.push('B'),
                    1 => out.push('C'),
                    _ => {}
                }
            }
        }
        out
    }

    /// tsvectorsend's format: count, then per lexeme its text,
    /// NUL-terminated, a u16 position count and the positions.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = (self.entries.len() as u32).to_be_bytes().to_vec();
        for e in &self.entries {
            out.extend_from_slice(e.word.as_bytes());
            out.push(0);
            out.extend_from_slice(&(e.pos.len() as u16).to_be_bytes());
            for p in &e.pos {
                out.extend_from_slice(&p.to_be_bytes());
            }
        }
        out
    }

    /// tsvectorrecv.
    pub fn from_binary(buf: &[u8]) -> Result<TsVector, DbError> {
        let mut r = super::Reader::new(buf);
        let n = r.u32()? as usize;
        let mut entries = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            let word = r.cstring()?;
            if word.len() >= STR_LEN_MAX {
                return Err(DbError::new(
                    SqlState::InternalError,
                    "invalid tsvector: lexeme too long",
                ));
            }
            let npos = r.u16()? as usize;
            if npos > NUM_POS_MAX {
                return Err(DbError::new(
                    SqlState::InternalError,
                    "unexpected number of tsvector positions",
                ));
            }
            let mut pos = Vec::with_capacity(npos);
            for _ in 0..npos {
                pos.push(r.u16()?);
            }
            entries.push(Lexeme {
                word: word.into(),
                pos,
            });
        }
        r.end()?;
        Ok(TsVector::from_unsorted(entries))
    }
}

/// Append `w` quoted as tsvector and tsquery output quote it.
pub fn quote_into(out: &mut String, w: &str) {
    out.push('\'');
    for c in w.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
}

/// PostgreSQL's btree order of tsvectors (silly_cmp_tsvector): size,
/// lexeme count, then entry by entry.
pub fn compare(a: &TsVector, b: &TsVector) -> Ordering {
    a.pg_size()
        .cmp(&b.pg_size())
        .then(a.entries.len().cmp(&b.entries.len()))
        .then_with(|| {
            for (x, y) in a.entries.iter().zip(&b.entries) {
                let (hx, hy) = (!x.pos.is_empty(), !y.pos.is_empty());
                if hx != hy {
                    return if hx {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                }
                let c = cmp_lexeme(&x.word, &y.word);
                if c != Ordering::Equal {
                    return c;
                }
                if x.pos.len() != y.pos.len() {
                    return y.pos.len().cmp(&x.pos.len());
                }
                for (p, q) in x.pos.iter().zip(&y.pos) {
                    let c = pos_of(*q)
                        .cmp(&pos_of(*p))
                        .then(weight_of(*q).cmp(&weight_of(*p)));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
            }
            Ordering::Equal
        })
}

fn syntax_error(input: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("syntax error in tsvector: \"{input}\""),
    )
}

/// One token of the tsvector grammar (gettoken_tsvector): a word and, in
/// a tsvector, its positions.
pub(crate) struct Token {
    pub word: String,
    pub pos: Vec<u16>,
}

/// The shared word scanner of tsvector and tsquery input
/// (gettoken_tsvector). In a tsquery (`query` true) operator characters
/// end a word and `:` ends it with the rest left to the caller; `web`
/// turns quotes and backslashes into ordinary characters. Returns the
/// token and the rest of the input, or None at the end.
pub(crate) fn gettoken<'a>(
    input: &'a str,
    whole: &str,
    query: bool,
    web: bool,
) -> Result<Option<(Token, &'a str)>, DbError> {
    let is_op = |c: char| query && matches!(c, '!' | '&' | '|' | '(' | ')' | '<');
    let err = || {
        if query {
            DbError::new(
                SqlState::SyntaxError,
                format!("syntax error in tsquery: \"{whole}\""),
            )
        } else {
            syntax_error(whole)
        }
    };
    let no_escaped = || {
        DbError::new(
            SqlState::SyntaxError,
            format!("there is no escaped character: \"{whole}\""),
        )
    };
    let mut chars = input.char_indices().peekable();
    let mut word = String::new();
    // Skip blanks; find how the word starts.
    let quoted = loop {
        match chars.peek().copied() {
            None => return Ok(None),
            Some((_, c)) if super::parser::is_c_space(c) => {
                chars.next();
            }
            Some((_, '\'')) if !web => {
                chars.next();
                break true;
            }
            Some((_, c)) if is_op(c) || (web && c == '"') => return Err(err()),
            Some(_) => break false,
        }
    };
    let rest_at = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        chars.peek().map_or(input.len(), |(i, _)| *i)
    };
    if quoted {
        loop {
            match chars.next() {
                None => return Err(err()),
                Some((_, '\\')) if !web => match chars.next() {
                    None => return Err(no_escaped()),
                    Some((_, c)) => word.push(c),
                },
                Some((_, '\'')) => {
                    if let Some((_, '\'')) = chars.peek() {
                        chars.next();
                        word.push('\'');
                    } else {
                        break;
                    }
                }
                Some((_, c)) => word.push(c),
            }
        }
        if word.is_empty() {
            return Err(err());
        }
        let after_word = rest_at(&mut chars);
        if query {
            return Ok(Some((
                Token {
                    word,
                    pos: Vec::new(),
                },
                &input[after_word..],
            )));
        }
        if !matches!(chars.peek(), Some((_, ':'))) {
            return Ok(Some((
                Token {
                    word,
                    pos: Vec::new(),
                },
                &input[after_word..],
            )));
        }
        chars.next();
    } else {
        loop {
            match chars.peek().copied() {
                Some((_, '\\')) if !web => {
                    chars.next();
                    match chars.next() {
                        None => return Err(no_escaped()),
                        Some((_, c)) => word.push(c),
                    }
                }
                None => break,
                Some((_, c)) if super::parser::is_c_space(c) || is_op(c) || (web && c == '"') => {
                    break
                }
                // The word's first character is taken whatever it is
                // (WAITWORD); a colon after it starts the positions.
                Some((_, ':')) if word.is_empty() => {
                    word.push(':');
                    chars.next();
                }
                Some((_, ':')) => {
                    if query {
                        break;
                    }
                    chars.next();
                    return positions(word, &mut chars, input, whole);
                }
                Some((_, c)) => {
                    word.push(c);
                    chars.next();
                }
            }
        }
        if word.is_empty() {
            return Err(err());
        }
        let after_word = rest_at(&mut chars);
        return Ok(Some((
            Token {
                word,
                pos: Vec::new(),
            },
            &input[after_word..],
        )));
    }
    positions(word, &mut chars, input, whole)
}

/// The `1A,2,3B` list after a word's colon (INPOSINFO / WAITPOSDELIM).
fn positions<'a>(
    word: String,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'a>>,
    input: &'a str,
    whole: &str,
) -> Result<Option<(Token, &'a str)>, DbError> {
    let mut pos: Vec<u16> = Vec::new();
    loop {
        // INPOSINFO: a number must come.
        let mut n: u64 = 0;
        let mut digits = 0;
        while let Some((_, c)) = chars.peek().copied() {
            if let Some(d) = c.to_digit(10) {
                n = (n * 10 + d as u64).min(1 << 40);
                digits += 1;
                chars.next();
            } else {
                break;
            }
        }
        if digits == 0 {
            return Err(syntax_error(whole));
        }
        // atoi wraps past i32; PostgreSQL then clamps (a negative is 0).
        let n = if n > i32::MAX as u64 { 0 } else { n as u32 };
        if n == 0 {
            return Err(DbError::new(
                SqlState::SyntaxError,
                format!("wrong position info in tsvector: \"{whole}\""),
            ));
        }
        let mut p = make_pos(n, 0);
        // WAITPOSDELIM.
        loop {
            match chars.peek().copied() {
                Some((_, ',')) => {
                    chars.next();
                    break;
                }
                Some((_, c)) if "aAbBcCdD*".contains(c) => {
                    // Only a weight already set (not D) is an error: `1dc`
                    // is C.
                    if weight_of(p) != 0 {
                        return Err(syntax_error(whole));
                    }
                    let w = match c.to_ascii_lowercase() {
                        'a' | '*' => 3,
                        'b' => 2,
                        'c' => 1,
                        _ => 0,
                    };
                    p = make_pos(pos_of(p) as u32, w);
                    chars.next();
                }
                None => {
                    pos.push(p);
                    return Ok(Some((Token { word, pos }, "")));
                }
                Some((i, c)) if super::parser::is_c_space(c) => {
                    pos.push(p);
                    return Ok(Some((Token { word, pos }, &input[i..])));
                }
                Some((_, c)) if c.is_ascii_digit() => {
                    chars.next();
                }
                Some(_) => return Err(syntax_error(whole)),
            }
        }
        pos.push(p);
    }
}

/// tsvectorin.
pub fn parse(input: &str) -> Result<TsVector, DbError> {
    let mut rest = input;
    let mut entries = Vec::new();
    let mut total = 0usize;
    while let Some((t, r)) = gettoken(rest, input, false, false)? {
        if t.word.len() >= STR_LEN_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "word is too long ({} bytes, max {} bytes)",
                    t.word.len(),
                    STR_LEN_MAX - 1
                ),
            ));
        }
        if total > STR_POS_MAX {
            return Err(too_long(total));
        }
        total += t.word.len();
        entries.push(Lexeme {
            word: t.word.into(),
            pos: t.pos,
        });
        rest = r;
    }
    let v = TsVector::from_unsorted(entries);
    let size = v.pg_size() - 8 - 4 * v.entries.len();
    if size > STR_POS_MAX {
        return Err(too_long(size));
    }
    Ok(v)
}

fn too_long(n: usize) -> DbError {
    DbError::new(
        SqlState::ProgramLimitExceeded,
        format!("string is too long for tsvector ({n} bytes, max {STR_POS_MAX} bytes)"),
    )
}
