//! The `tsquery` value: a tree of lexeme operands under `!`, `&`, `|` and
//! the phrase operator `<N>`, or nothing (the empty query).
//!
//! PostgreSQL keeps a query as an array in prefix order; a tree says the
//! same and is what evaluation walks. The operand's `crc` is PostgreSQL's
//! legacy CRC-32 of the word, kept because the btree order of tsqueries
//! compares it before the words. Parsing follows tsquery.c: a tokenizer
//! (standard, plain or websearch; the latter two come from
//! [`super::config`]) feeds an operator-precedence builder that emits
//! postfix order, `!` binding tightest, then `<->`, `&`, `|`, and operands
//! that a dictionary dropped (stop words) become [`Node::Stop`]
//! placeholders that [`clean_stopwords`] removes afterwards, adjusting
//! phrase distances as clean_stopword_intree does.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use super::vector::{cmp_lexeme, gettoken, quote_into, STR_LEN_MAX};

/// Largest phrase distance (MAXENTRYPOS).
pub const DISTANCE_MAX: i64 = 1 << 14;
/// Deepest operator nesting a query may have (parentheses and operators
/// stacked while parsing; PostgreSQL's STACKDEPTH is per level).
const OPERATOR_STACK_MAX: usize = 32;
/// Deepest parenthesis nesting accepted (a guard against stack overflow).
const NESTING_MAX: usize = 1000;

/// An operand: a lexeme with its weight mask (A = 8, B = 4, C = 2, D = 1;
/// 0 is any) and whether it matches as a prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    pub word: Box<str>,
    pub weight: u8,
    pub prefix: bool,
    pub crc: u32,
}

/// A query node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Val(Operand),
    /// A placeholder for a word a dictionary dropped (only while parsing).
    Stop,
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Phrase(Box<Node>, Box<Node>, u16),
}

/// A tsquery: None is the empty query.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TsQuery {
    pub root: Option<Node>,
}

/// PostgreSQL's legacy CRC-32 of an operand's word (pg_crc.h's
/// COMP_LEGACY_CRC32: the table of the reflected polynomial, consumed
/// most significant byte first — "bogus", as its comment says, but it is
/// what the btree order of tsqueries and ts_rewrite's signatures see).
pub fn legacy_crc32(s: &str) -> u32 {
    let table = |i: u32| {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        c
    };
    let mut crc: u32 = 0xFFFF_FFFF;
    for b in s.bytes() {
        let idx = ((crc >> 24) ^ b as u32) & 0xFF;
        crc = table(idx) ^ (crc << 8);
    }
    crc ^ 0xFFFF_FFFF
}

impl Operand {
    pub fn new(word: &str, weight: u8, prefix: bool) -> Operand {
        Operand {
            word: word.into(),
            weight,
            prefix,
            crc: legacy_crc32(word),
        }
    }
}

/// Operator codes and priorities as PostgreSQL numbers them.
fn op_code(n: &Node) -> u8 {
    match n {
        Node::Not(_) => 1,
        Node::And(..) => 2,
        Node::Or(..) => 3,
        Node::Phrase(..) => 4,
        _ => 0,
    }
}

fn priority(n: &Node) -> u8 {
    match n {
        Node::Not(_) => 4,
        Node::Phrase(..) => 3,
        Node::And(..) => 2,
        _ => 1,
    }
}

impl Node {
    /// Items in PostgreSQL's array (operators and operands).
    pub fn size(&self) -> usize {
        match self {
            Node::Val(_) | Node::Stop => 1,
            Node::Not(a) => 1 + a.size(),
            Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => 1 + a.size() + b.size(),
        }
    }

    /// The operands, left to right.
    pub fn operands<'a>(&'a self, out: &mut Vec<&'a Operand>) {
        match self {
            Node::Val(o) => out.push(o),
            Node::Stop => {}
            Node::Not(a) => a.operands(out),
            Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
                a.operands(out);
                b.operands(out);
            }
        }
    }

    /// Infix text as tsqueryout prints it.
    fn infix(&self, out: &mut String, parent: u8, right_phrase: bool) {
        match self {
            Node::Val(o) => {
                quote_into(out, &o.word);
                if o.weight != 0 || o.prefix {
                    out.push(':');
                    if o.prefix {
                        out.push('*');
                    }
                    for (bit, c) in [(8, 'A'), (4, 'B'), (2, 'C'), (1, 'D')] {
                        if o.weight & bit != 0 {
                            out.push(c);
                        }
                    }
                }
            }
            Node::Stop => {}
            Node::Not(a) => {
                let p = priority(self);
                if p < parent {
                    out.push_str("( ");
                }
                out.push('!');
                a.infix(out, p, false);
                if p < parent {
                    out.push_str(" )");
                }
            }
            Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
                let p = priority(self);
                let phrase = matches!(self, Node::Phrase(..));
                let paren = p < parent || (phrase && right_phrase);
                if paren {
                    out.push_str("( ");
                }
                a.infix(out, p, false);
                match self {
                    Node::And(..) => out.push_str(" & "),
                    Node::Or(..) => out.push_str(" | "),
                    Node::Phrase(_, _, 1) => out.push_str(" <-> "),
                    Node::Phrase(_, _, d) => out.push_str(&format!(" <{d}> ")),
                    _ => {}
                }
                b.infix(out, p, phrase);
                if paren {
                    out.push_str(" )");
                }
            }
        }
    }

    /// The operands in PostgreSQL's array order (an operator, then its
    /// right operand's items, then its left's).
    pub fn operands_pg_order<'a>(&'a self, out: &mut Vec<&'a Operand>) {
        match self {
            Node::Val(o) => out.push(o),
            Node::Stop => {}
            Node::Not(a) => a.operands_pg_order(out),
            Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
                b.operands_pg_order(out);
                a.operands_pg_order(out);
            }
        }
    }

    /// Prefix-order items for tsquerysend.
    fn send(&self, out: &mut Vec<u8>) {
        match self {
            Node::Val(o) => {
                out.extend_from_slice(&[1, o.weight, o.prefix as u8]);
                out.extend_from_slice(o.word.as_bytes());
                out.push(0);
            }
            Node::Stop => {}
            Node::Not(a) => {
                out.extend_from_slice(&[2, 1]);
                a.send(out);
            }
            Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
                out.extend_from_slice(&[2, op_code(self)]);
                if let Node::Phrase(_, _, d) = self {
                    out.extend_from_slice(&d.to_be_bytes());
                }
                // PostgreSQL's array has the right operand first.
                b.send(out);
                a.send(out);
            }
        }
    }
}

impl TsQuery {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let Some(r) = &self.root {
            r.infix(&mut out, 0, false);
        }
        out
    }

    /// Items in the query (numnode).
    pub fn size(&self) -> usize {
        self.root.as_ref().map_or(0, Node::size)
    }

    /// The operands' words (what a GIN index would search for; which of
    /// them a match requires is [`super::ops::required_lexemes`]).
    pub fn operands(&self) -> Vec<&Operand> {
        let mut v = Vec::new();
        if let Some(r) = &self.root {
            r.operands(&mut v);
        }
        v
    }

    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = (self.size() as u32).to_be_bytes().to_vec();
        if let Some(r) = &self.root {
            r.send(&mut out);
        }
        out
    }

    /// tsqueryrecv.
    pub fn from_binary(buf: &[u8]) -> Result<TsQuery, DbError> {
        let mut r = super::Reader::new(buf);
        let n = r.u32()? as usize;
        if n > buf.len() {
            return Err(internal("invalid size of tsquery"));
        }
        let root = if n == 0 {
            None
        } else {
            let mut left = n;
            Some(recv_node(&mut r, &mut left, 0)?)
        };
        r.end()?;
        Ok(TsQuery { root })
    }
}

fn internal(m: &str) -> DbError {
    DbError::new(SqlState::InternalError, m.to_string())
}

fn recv_node(r: &mut super::Reader, left: &mut usize, depth: usize) -> Result<Node, DbError> {
    if *left == 0 || depth > NESTING_MAX {
        return Err(internal("malformed tsquery: operand not found"));
    }
    *left -= 1;
    match r.u8()? {
        1 => {
            let weight = r.u8()?;
            let prefix = r.u8()? != 0;
            if weight > 0xF {
                return Err(internal("invalid tsquery: invalid weight bitmap"));
            }
            let w = r.cstring()?;
            if w.len() >= STR_LEN_MAX {
                return Err(internal("invalid tsquery: operand too long"));
            }
            Ok(Node::Val(Operand::new(&w, weight, prefix)))
        }
        2 => {
            let op = r.u8()?;
            match op {
                1 => Ok(Node::Not(Box::new(recv_node(r, left, depth + 1)?))),
                2..=4 => {
                    let d = if op == 4 { r.u16()? } else { 0 };
                    let right = recv_node(r, left, depth + 1)?;
                    let lft = recv_node(r, left, depth + 1)?;
                    let (a, b) = (Box::new(lft), Box::new(right));
                    Ok(match op {
                        2 => Node::And(a, b),
                        3 => Node::Or(a, b),
                        _ => Node::Phrase(a, b, d),
                    })
                }
                o => Err(internal(&format!(
                    "invalid tsquery: unrecognized operator type {o}"
                ))),
            }
        }
        t => Err(internal(&format!("unrecognized tsquery node type: {t}"))),
    }
}

/// PostgreSQL's btree order of tsqueries (CompareTSQ).
pub fn compare(a: &TsQuery, b: &TsQuery) -> Ordering {
    let len = |q: &TsQuery| q.operands().iter().map(|o| o.word.len() + 1).sum::<usize>();
    a.size()
        .cmp(&b.size())
        .then_with(|| len(a).cmp(&len(b)))
        .then_with(|| match (&a.root, &b.root) {
            (Some(x), Some(y)) => node_cmp(x, y),
            _ => Ordering::Equal,
        })
}

/// QTNodeCompare (operands before operators, children right first).
fn node_cmp(a: &Node, b: &Node) -> Ordering {
    match (a, b) {
        (Node::Val(x), Node::Val(y)) => {
            // PostgreSQL's valcrc is signed; larger first.
            (y.crc as i32)
                .cmp(&(x.crc as i32))
                .then_with(|| cmp_lexeme(&x.word, &y.word))
        }
        (Node::Val(_), _) => Ordering::Greater,
        (_, Node::Val(_)) => Ordering::Less,
        _ => {
            let (ca, cb) = (op_code(a), op_code(b));
            if ca != cb {
                return cb.cmp(&ca);
            }
            let pairs: Vec<(&Node, &Node)> = match (a, b) {
                (Node::Not(x), Node::Not(y)) => vec![(x, y)],
                (Node::And(l1, r1), Node::And(l2, r2))
                | (Node::Or(l1, r1), Node::Or(l2, r2))
                | (Node::Phrase(l1, r1, _), Node::Phrase(l2, r2, _)) => {
                    vec![(r1, r2), (l1, l2)]
                }
                _ => vec![],
            };
            for (x, y) in pairs {
                let c = node_cmp(x, y);
                if c != Ordering::Equal {
                    return c;
                }
            }
            match (a, b) {
                (Node::Phrase(_, _, d1), Node::Phrase(_, _, d2)) => d2.cmp(d1),
                _ => Ordering::Equal,
            }
        }
    }
}

/// A token of a query's text.
pub(crate) enum Tok {
    Val(String, u8, bool),
    Not,
    And,
    Or,
    Phrase(u16),
    Open,
    Close,
    /// A placeholder operand (websearch's missing last operand).
    Stop,
}

/// How a parse turns each operand word into nodes (pushval): as is for
/// the tsquery type, through a text search configuration for to_tsquery.
pub(crate) trait PushVal {
    fn push(
        &mut self,
        b: &mut Builder,
        word: &str,
        weight: u8,
        prefix: bool,
    ) -> Result<(), DbError>;
}

/// Postfix construction of the query tree (PostgreSQL's polstr).
pub(crate) struct Builder {
    stack: Vec<Node>,
    pub whole: String,
}

impl Builder {
    pub fn new(whole: &str) -> Builder {
        Builder {
            stack: Vec::new(),
            whole: whole.to_string(),
        }
    }

    pub fn value(&mut self, word: &str, weight: u8, prefix: bool) -> Result<(), DbError> {
        if word.len() >= STR_LEN_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("word is too long in tsquery: \"{}\"", self.whole),
            ));
        }
        self.stack
            .push(Node::Val(Operand::new(word, weight, prefix)));
        Ok(())
    }

    /// Nothing pushed at all (PostgreSQL's empty polstr).
    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    pub fn stop(&mut self) {
        self.stack.push(Node::Stop);
    }

    pub fn operator(&mut self, op: &Tok) -> Result<(), DbError> {
        let malformed = || internal("malformed tsquery: operand not found");
        let node = match op {
            Tok::Not => Node::Not(Box::new(self.stack.pop().ok_or_else(malformed)?)),
            _ => {
                let r = Box::new(self.stack.pop().ok_or_else(malformed)?);
                let l = Box::new(self.stack.pop().ok_or_else(malformed)?);
                match op {
                    Tok::And => Node::And(l, r),
                    Tok::Or => Node::Or(l, r),
                    Tok::Phrase(d) => Node::Phrase(l, r, *d),
                    _ => return Err(malformed()),
                }
            }
        };
        self.stack.push(node);
        Ok(())
    }

    /// The parsed query: stop-word placeholders removed (with
    /// PostgreSQL's notices left to the caller: `stopped` says whether
    /// any were there).
    pub fn finish(mut self) -> Result<(TsQuery, bool), DbError> {
        let root = match self.stack.len() {
            0 => return Ok((TsQuery { root: None }, false)),
            1 => self.stack.pop(),
            _ => return Err(internal("malformed tsquery: operand not found")),
        };
        let root = root.expect("one node");
        let mut has_stop = false;
        fn scan(n: &Node, s: &mut bool) {
            match n {
                Node::Stop => *s = true,
                Node::Val(_) => {}
                Node::Not(a) => scan(a, s),
                Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
                    scan(a, s);
                    scan(b, s);
                }
            }
        }
        scan(&root, &mut has_stop);
        if !has_stop {
            return Ok((TsQuery { root: Some(root) }, false));
        }
        let (mut l, mut r) = (0, 0);
        Ok((
            TsQuery {
                root: clean_stopwords(root, &mut l, &mut r),
            },
            true,
        ))
    }
}

/// clean_stopword_intree: drop placeholders, folding their width into
/// the surrounding phrase distances.
pub(crate) fn clean_stopwords(node: Node, ladd: &mut i32, radd: &mut i32) -> Option<Node> {
    *ladd = 0;
    *radd = 0;
    match node {
        Node::Val(_) => Some(node),
        Node::Stop => None,
        Node::Not(a) => clean_stopwords(*a, ladd, radd).map(|a| Node::Not(Box::new(a))),
        other => {
            let (a, b, dist, kind) = match other {
                Node::And(a, b) => (a, b, 0, 0),
                Node::Or(a, b) => (a, b, 0, 1),
                Node::Phrase(a, b, d) => (a, b, d as i32, 2),
                _ => return None,
            };
            let phrase = kind == 2;
            let (mut lladd, mut lradd, mut rladd, mut rradd) = (0, 0, 0, 0);
            let l = clean_stopwords(*a, &mut lladd, &mut lradd);
            let r = clean_stopwords(*b, &mut rladd, &mut rradd);
            match (l, r) {
                (None, None) => {
                    let v = if phrase {
                        lladd + dist + rladd
                    } else {
                        lladd.max(rladd)
                    };
                    *ladd = v;
                    *radd = v;
                    None
                }
                (None, Some(r)) => {
                    if phrase {
                        *ladd = lladd + dist + rladd;
                    } else {
                        *ladd = rladd;
                    }
                    *radd = rradd;
                    Some(r)
                }
                (Some(l), None) => {
                    *ladd = lladd;
                    *radd = if phrase { lradd + dist + rradd } else { lradd };
                    Some(l)
                }
                (Some(l), Some(r)) => {
                    let (l, r) = (Box::new(l), Box::new(r));
                    Some(match kind {
                        0 => Node::And(l, r),
                        1 => Node::Or(l, r),
                        _ => {
                            *ladd = lladd;
                            *radd = rradd;
                            let d = (dist + lradd + rladd).clamp(0, DISTANCE_MAX as i32);
                            Node::Phrase(l, r, d as u16)
                        }
                    })
                }
            }
        }
    }
}

fn syntax(whole: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("syntax error in tsquery: \"{whole}\""),
    )
}

/// `:AB*` after an operand (get_modifiers): weight mask, prefix, rest.
fn modifiers(s: &str) -> (u8, bool, &str) {
    let Some(mut rest) = s.strip_prefix(':') else {
        return (0, false, s);
    };
    let (mut w, mut p) = (0u8, false);
    while let Some(c) = rest.chars().next() {
        match c.to_ascii_lowercase() {
            'a' => w |= 8,
            'b' => w |= 4,
            'c' => w |= 2,
            'd' => w |= 1,
            '*' => p = true,
            _ => break,
        }
        rest = &rest[1..];
    }
    (w, p, rest)
}

/// `<N>` or `<->` at the start of `s` (parse_phrase_operator): the
/// distance and the rest.
fn phrase_operator(s: &str) -> Result<Option<(u16, &str)>, DbError> {
    let Some(r) = s.strip_prefix('<') else {
        return Ok(None);
    };
    // parse_phrase_operator only finishes on a character after the `>`:
    // an operator at the very end of the input is not one (a syntax
    // error follows).
    if let Some(r) = r.strip_prefix("->") {
        return Ok((!r.is_empty()).then_some((1, r)));
    }
    let digits = r.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Ok(None);
    }
    let range = || {
        DbError::new(
            SqlState::InvalidParameterValue,
            format!(
                "distance in phrase operator must be an integer value between zero and {DISTANCE_MAX} inclusive"
            ),
        )
    };
    let n: i64 = r[..digits].parse().map_err(|_| range())?;
    if n > DISTANCE_MAX {
        return Err(range());
    }
    match r[digits..].strip_prefix('>') {
        // strtol's result fits an int16 only up to 16384 (checked above).
        Some(rest) if !rest.is_empty() => Ok(Some((n as u16, rest))),
        _ => Ok(None),
    }
}

/// The standard tokenizer (gettoken_query_standard) over the whole input,
/// collecting tokens (a bounded count, as the input is bounded).
pub(crate) fn tokens_standard(whole: &str) -> Result<Vec<Tok>, DbError> {
    let mut out = Vec::new();
    let mut s = whole;
    let mut waiting_operand = true;
    let mut first = true;
    let mut depth: i64 = 0;
    loop {
        if waiting_operand {
            let t = s.trim_start_matches(super::parser::is_c_space);
            if let Some(r) = t.strip_prefix('!') {
                out.push(Tok::Not);
                s = r;
                first = false;
            } else if let Some(r) = t.strip_prefix('(') {
                out.push(Tok::Open);
                depth += 1;
                s = r;
                first = false;
            } else if t.starts_with(':') {
                return Err(syntax(whole));
            } else {
                match gettoken(t, whole, true, false)? {
                    Some((tok, rest)) => {
                        let (w, p, rest) = modifiers(rest);
                        out.push(Tok::Val(tok.word, w, p));
                        s = rest;
                        waiting_operand = false;
                        first = false;
                    }
                    None if first => return Ok(out),
                    None => {
                        return Err(DbError::new(
                            SqlState::SyntaxError,
                            format!("no operand in tsquery: \"{whole}\""),
                        ))
                    }
                }
            }
        } else {
            let t = s.trim_start_matches(super::parser::is_c_space);
            if let Some(r) = t.strip_prefix('&') {
                out.push(Tok::And);
                s = r;
                waiting_operand = true;
            } else if let Some(r) = t.strip_prefix('|') {
                out.push(Tok::Or);
                s = r;
                waiting_operand = true;
            } else if let Some((d, r)) = phrase_operator(t)? {
                out.push(Tok::Phrase(d));
                s = r;
                waiting_operand = true;
            } else if let Some(r) = t.strip_prefix(')') {
                depth -= 1;
                if depth < 0 {
                    return Err(syntax(whole));
                }
                out.push(Tok::Close);
                s = r;
            } else if t.is_empty() {
                if depth != 0 {
                    return Err(syntax(whole));
                }
                return Ok(out);
            } else {
                return Err(syntax(whole));
            }
        }
    }
}

/// makepol over a token list: operator precedence into `b`, each operand
/// through `push`.
pub(crate) fn build(toks: &[Tok], b: &mut Builder, push: &mut dyn PushVal) -> Result<(), DbError> {
    let mut i = 0;
    build_level(toks, &mut i, b, push, 0)
}

fn tok_priority(t: &Tok) -> u8 {
    match t {
        Tok::Not => 4,
        Tok::Phrase(_) => 3,
        Tok::And => 2,
        _ => 1,
    }
}

fn build_level(
    toks: &[Tok],
    i: &mut usize,
    b: &mut Builder,
    push: &mut dyn PushVal,
    depth: usize,
) -> Result<(), DbError> {
    if depth > NESTING_MAX {
        return Err(DbError::new(
            SqlState::StatementTooComplex,
            "stack depth limit exceeded",
        )
        .with_hint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate."));
    }
    let mut ops: Vec<&Tok> = Vec::new();
    let clean = |ops: &mut Vec<&Tok>, b: &mut Builder, op: Option<&Tok>| -> Result<(), DbError> {
        let p = op.map_or(1, tok_priority);
        let is_not = matches!(op, Some(Tok::Not));
        while let Some(top) = ops.last() {
            let tp = tok_priority(top);
            if (!is_not && p > tp) || (is_not && p >= tp) {
                break;
            }
            let top = ops.pop().expect("non-empty");
            b.operator(top)?;
        }
        Ok(())
    };
    while *i < toks.len() {
        let t = &toks[*i];
        *i += 1;
        match t {
            Tok::Val(w, weight, prefix) => push.push(b, w, *weight, *prefix)?,
            Tok::Open => build_level(toks, i, b, push, depth + 1)?,
            Tok::Stop => b.stop(),
            Tok::Close => return clean(&mut ops, b, None),
            op => {
                clean(&mut ops, b, Some(op))?;
                if ops.len() == OPERATOR_STACK_MAX {
                    return Err(internal("tsquery stack too small"));
                }
                ops.push(op);
            }
        }
    }
    clean(&mut ops, b, None)
}

/// Operands taken as they are (the tsquery type's input).
struct AsIs;

impl PushVal for AsIs {
    fn push(
        &mut self,
        b: &mut Builder,
        word: &str,
        weight: u8,
        prefix: bool,
    ) -> Result<(), DbError> {
        b.value(word, weight, prefix)
    }
}

/// tsqueryin. The empty query's notice is the caller's (`true`).
pub fn parse(input: &str) -> Result<(TsQuery, bool), DbError> {
    let toks = tokens_standard(input)?;
    let mut b = Builder::new(input);
    build(&toks, &mut b, &mut AsIs)?;
    let (q, _) = b.finish()?;
    let empty = q.root.is_none();
    Ok((q, empty))
}
