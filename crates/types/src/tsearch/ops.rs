//! Evaluating a tsquery against a tsvector (`@@`) and the operations on
//! the two types: tsvector editing (setweight, strip, ts_delete,
//! ts_filter, `||`), query composition (`&&`, `||`, `!!`, `<->`),
//! containment, and what a GIN index needs ([`required_lexemes`]).
//!
//! Matching is PostgreSQL's TS_execute: plain `&`/`|`/`!` evaluate to
//! yes, no or maybe (maybe: a stripped tsvector cannot say where its
//! lexemes are); a phrase operator evaluates its subtree with positions
//! (TS_phrase_execute): each operand yields the positions it occurs at
//! (filtered by the operand's weights), a `!` turns a position list into
//! "everywhere but these", and `<N>` keeps the right side's positions
//! that have a left-side match exactly N (plus the right side's width)
//! before them.

use nestor_common::{DbError, SqlState};

use super::query::{Node, Operand, TsQuery};
use super::vector::{cmp_lexeme, make_pos, pos_of, weight_of, Lexeme, TsVector};

/// Deepest query evaluated (recursion guard; PostgreSQL's stack check).
const DEPTH_MAX: usize = 10_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tern {
    No,
    Yes,
    Maybe,
}

/// Positions a phrase subtree matches at (ExecPhraseData).
#[derive(Default, Debug)]
pub(crate) struct PhraseData {
    pub pos: Vec<u32>,
    pub negate: bool,
    pub width: i32,
}

/// How an operand is looked up (TSExecuteCallback): yes/no/maybe, and
/// its positions when `data` asks for them.
pub(crate) type Check<'a> = &'a dyn Fn(&Operand, Option<&mut PhraseData>) -> Tern;

fn depth_error() -> DbError {
    DbError::new(SqlState::StatementTooComplex, "stack depth limit exceeded")
}

/// checkclass_str for one entry.
fn check_entry(e: &Lexeme, val: &Operand, data: Option<&mut PhraseData>) -> Tern {
    if e.pos.is_empty() {
        return if data.is_some() {
            Tern::Maybe
        } else {
            Tern::Yes
        };
    }
    let weight_ok = |p: &u16| val.weight == 0 || val.weight & (1 << weight_of(*p)) != 0;
    match data {
        Some(d) => {
            d.pos = e
                .pos
                .iter()
                .filter(|p| weight_ok(p))
                .map(|p| pos_of(*p) as u32)
                .collect();
            if d.pos.is_empty() {
                Tern::No
            } else {
                Tern::Yes
            }
        }
        None => {
            if e.pos.iter().any(weight_ok) {
                Tern::Yes
            } else {
                Tern::No
            }
        }
    }
}

/// checkcondition_str: the operand against the vector.
fn check_operand(v: &TsVector, val: &Operand, mut data: Option<&mut PhraseData>) -> Tern {
    let mut res = Tern::No;
    if let Some(e) = v.find(&val.word) {
        res = check_entry(e, val, data.as_deref_mut());
    }
    if val.prefix && (res != Tern::Yes || data.is_some()) {
        res = Tern::No;
        let mut all: Vec<u32> = Vec::new();
        for e in v.with_prefix(&val.word) {
            if res == Tern::Yes && data.is_none() {
                break;
            }
            let mut d = PhraseData::default();
            let sub = check_entry(e, val, data.as_ref().map(|_| &mut d));
            if sub == Tern::No {
                continue;
            }
            if data.is_some() {
                if sub == Tern::Maybe {
                    res = Tern::Maybe;
                    all.clear();
                    break;
                }
                all.extend(d.pos);
            }
            res = Tern::Yes;
        }
        if let Some(d) = data {
            all.sort_unstable();
            all.dedup();
            d.pos = all;
            if res == Tern::Yes && d.pos.is_empty() {
                res = Tern::No;
            }
        }
    }
    res
}

const L_ONLY: u8 = 1;
const R_ONLY: u8 = 2;
const BOTH: u8 = 4;

/// TS_phrase_output: merge two position lists.
fn phrase_output(
    data: Option<&mut PhraseData>,
    l: &PhraseData,
    r: &PhraseData,
    emit: u8,
    loff: i32,
    roff: i32,
) -> Tern {
    let (mut li, mut ri) = (0, 0);
    let mut out: Vec<u32> = Vec::new();
    let want = data.is_some();
    while li < l.pos.len() || ri < r.pos.len() {
        let lp = if li < l.pos.len() {
            l.pos[li] as i64 + loff as i64
        } else {
            if emit & R_ONLY == 0 {
                break;
            }
            i64::MAX
        };
        let rp = if ri < r.pos.len() {
            r.pos[ri] as i64 + roff as i64
        } else {
            if emit & L_ONLY == 0 {
                break;
            }
            i64::MAX
        };
        let mut o = 0i64;
        if lp < rp {
            if emit & L_ONLY != 0 {
                o = lp;
            }
            li += 1;
        } else if lp == rp {
            if emit & BOTH != 0 {
                o = rp;
            }
            li += 1;
            ri += 1;
        } else {
            if emit & R_ONLY != 0 {
                o = rp;
            }
            ri += 1;
        }
        if o > 0 {
            if !want {
                return Tern::Yes;
            }
            out.push(o.min(u32::MAX as i64) as u32);
        }
    }
    match data {
        Some(d) => {
            let yes = !out.is_empty();
            d.pos = out;
            if yes {
                Tern::Yes
            } else {
                Tern::No
            }
        }
        None => Tern::No,
    }
}

/// TS_phrase_execute.
fn phrase_exec(
    n: &Node,
    v: Check,
    mut data: Option<&mut PhraseData>,
    depth: usize,
) -> Result<Tern, DbError> {
    if depth > DEPTH_MAX {
        return Err(depth_error());
    }
    match n {
        Node::Val(o) => Ok(v(o, data)),
        Node::Stop => Ok(Tern::No),
        Node::Not(a) => {
            let mut tmp = PhraseData::default();
            let d = match data.as_deref_mut() {
                Some(d) => d,
                None => &mut tmp,
            };
            match phrase_exec(a, v, Some(d), depth + 1)? {
                Tern::No => {
                    d.negate = true;
                    Ok(Tern::Yes)
                }
                Tern::Yes => {
                    if !d.pos.is_empty() {
                        d.negate = !d.negate;
                        Ok(Tern::Yes)
                    } else if d.negate {
                        d.negate = false;
                        Ok(Tern::No)
                    } else {
                        Ok(Tern::No)
                    }
                }
                Tern::Maybe => Ok(Tern::Maybe),
            }
        }
        Node::Phrase(a, b, _) | Node::And(a, b) => {
            let mut ld = PhraseData::default();
            let mut rd = PhraseData::default();
            let lm = phrase_exec(a, v, Some(&mut ld), depth + 1)?;
            if lm == Tern::No {
                return Ok(Tern::No);
            }
            let rm = phrase_exec(b, v, Some(&mut rd), depth + 1)?;
            if rm == Tern::No {
                return Ok(Tern::No);
            }
            if lm == Tern::Maybe || rm == Tern::Maybe {
                return Ok(Tern::Maybe);
            }
            let (loff, roff) = if let Node::Phrase(_, _, dist) = n {
                if let Some(d) = data.as_deref_mut() {
                    d.width = *dist as i32 + ld.width + rd.width;
                }
                (*dist as i32 + rd.width, 0)
            } else {
                let m = ld.width.max(rd.width);
                if let Some(d) = data.as_deref_mut() {
                    d.width = m;
                }
                (m - ld.width, m - rd.width)
            };
            Ok(if ld.negate && rd.negate {
                phrase_output(
                    data.as_deref_mut(),
                    &ld,
                    &rd,
                    BOTH | L_ONLY | R_ONLY,
                    loff,
                    roff,
                );
                if let Some(d) = data {
                    d.negate = true;
                }
                Tern::Yes
            } else if ld.negate {
                phrase_output(data, &ld, &rd, R_ONLY, loff, roff)
            } else if rd.negate {
                phrase_output(data, &ld, &rd, L_ONLY, loff, roff)
            } else {
                phrase_output(data, &ld, &rd, BOTH, loff, roff)
            })
        }
        Node::Or(a, b) => {
            let mut ld = PhraseData::default();
            let mut rd = PhraseData::default();
            let lm = phrase_exec(a, v, Some(&mut ld), depth + 1)?;
            let rm = phrase_exec(b, v, Some(&mut rd), depth + 1)?;
            if lm == Tern::No && rm == Tern::No {
                return Ok(Tern::No);
            }
            if lm == Tern::Maybe || rm == Tern::Maybe {
                return Ok(Tern::Maybe);
            }
            if lm == Tern::No {
                ld.width = 0;
            }
            if rm == Tern::No {
                rd.width = 0;
            }
            let m = ld.width.max(rd.width);
            let (loff, roff) = (m - ld.width, m - rd.width);
            let mut tmp = PhraseData::default();
            let d = match data {
                Some(d) => d,
                None => &mut tmp,
            };
            d.width = m;
            Ok(if ld.negate && rd.negate {
                phrase_output(Some(d), &ld, &rd, BOTH, loff, roff);
                d.negate = true;
                Tern::Yes
            } else if ld.negate {
                phrase_output(Some(d), &ld, &rd, L_ONLY, loff, roff);
                d.negate = true;
                Tern::Yes
            } else if rd.negate {
                phrase_output(Some(d), &ld, &rd, R_ONLY, loff, roff);
                d.negate = true;
                Tern::Yes
            } else {
                phrase_output(Some(d), &ld, &rd, BOTH | L_ONLY | R_ONLY, loff, roff)
            })
        }
    }
}

/// TS_execute_recurse.
pub(crate) fn exec(n: &Node, v: Check, depth: usize) -> Result<Tern, DbError> {
    if depth > DEPTH_MAX {
        return Err(depth_error());
    }
    Ok(match n {
        Node::Val(o) => v(o, None),
        Node::Stop => Tern::No,
        Node::Not(a) => match exec(a, v, depth + 1)? {
            Tern::No => Tern::Yes,
            Tern::Yes => Tern::No,
            Tern::Maybe => Tern::Maybe,
        },
        Node::And(a, b) => {
            let l = exec(a, v, depth + 1)?;
            if l == Tern::No {
                return Ok(Tern::No);
            }
            match exec(b, v, depth + 1)? {
                Tern::No => Tern::No,
                Tern::Yes => l,
                Tern::Maybe => Tern::Maybe,
            }
        }
        Node::Or(a, b) => {
            let l = exec(a, v, depth + 1)?;
            if l == Tern::Yes {
                return Ok(Tern::Yes);
            }
            match exec(b, v, depth + 1)? {
                Tern::No => l,
                Tern::Yes => Tern::Yes,
                Tern::Maybe => Tern::Maybe,
            }
        }
        Node::Phrase(..) => match phrase_exec(n, v, None, depth + 1)? {
            Tern::Yes => Tern::Yes,
            _ => Tern::No,
        },
    })
}

/// `tsvector @@ tsquery` (ts_match_vq): the empty query matches nothing.
pub fn matches(v: &TsVector, q: &TsQuery) -> Result<bool, DbError> {
    match &q.root {
        None => Ok(false),
        Some(r) => Ok(exec(r, &|o, d| check_operand(v, o, d), 0)? != Tern::No),
    }
}

/// Whether a match of `n` needs some operand present
/// (tsquery_requires_match): false when only NOTs could make it true.
pub fn requires_match(n: &Node) -> bool {
    match n {
        Node::Val(_) => true,
        Node::Stop | Node::Not(_) => false,
        Node::And(a, b) | Node::Phrase(a, b, _) => requires_match(a) || requires_match(b),
        Node::Or(a, b) => requires_match(a) && requires_match(b),
    }
}

/// For a GIN index: the query's operands (lexeme, prefix) and whether
/// any row can match without containing one of them (then a full scan is
/// needed). None for the empty query, which matches nothing.
pub fn required_lexemes(q: &TsQuery) -> Option<(Vec<(&str, bool)>, bool)> {
    let root = q.root.as_ref()?;
    let ops = q
        .operands()
        .into_iter()
        .map(|o| (&*o.word, o.prefix))
        .collect();
    Some((ops, !requires_match(root)))
}

/// A weight letter (`A`..`D`, any case) as PostgreSQL's 0..=3 code.
pub fn weight_code(c: &str) -> Result<u8, DbError> {
    let ch = c.chars().next().unwrap_or(' ');
    match ch.to_ascii_lowercase() {
        'a' => Ok(3),
        'b' => Ok(2),
        'c' => Ok(1),
        'd' => Ok(0),
        // PostgreSQL reports it with elog (XX000).
        _ => Err(DbError::new(
            SqlState::InternalError,
            format!("unrecognized weight: {}", ch as u32),
        )),
    }
}

/// setweight(v, w [, lexemes]).
pub fn setweight(v: &TsVector, w: u8, only: Option<&[String]>) -> TsVector {
    let mut out = v.clone();
    for e in &mut out.entries {
        if only.is_some_and(|l| !l.iter().any(|x| **x == *e.word)) {
            continue;
        }
        for p in &mut e.pos {
            *p = make_pos(pos_of(*p) as u32, w);
        }
    }
    out
}

/// strip(v): positions dropped.
pub fn strip(v: &TsVector) -> TsVector {
    TsVector {
        entries: v
            .entries
            .iter()
            .map(|e| Lexeme {
                word: e.word.clone(),
                pos: Vec::new(),
            })
            .collect(),
    }
}

/// ts_delete(v, lexemes).
pub fn delete(v: &TsVector, words: &[String]) -> TsVector {
    TsVector {
        entries: v
            .entries
            .iter()
            .filter(|e| !words.iter().any(|w| **w == *e.word))
            .cloned()
            .collect(),
    }
}

/// ts_filter(v, weights): positions of those weights; lexemes left with
/// none go (a lexeme without positions has none to keep).
pub fn filter(v: &TsVector, weights: &[u8]) -> TsVector {
    let mask: u8 = weights.iter().fold(0, |m, w| m | (1 << w));
    TsVector {
        entries: v
            .entries
            .iter()
            .filter_map(|e| {
                let pos: Vec<u16> = e
                    .pos
                    .iter()
                    .copied()
                    .filter(|p| mask & (1 << weight_of(*p)) != 0)
                    .collect();
                (!pos.is_empty()).then(|| Lexeme {
                    word: e.word.clone(),
                    pos,
                })
            })
            .collect(),
    }
}

/// `tsvector || tsvector` (tsvector_concat): the right side's positions
/// shift past the left side's largest position.
pub fn concat(a: &TsVector, b: &TsVector) -> TsVector {
    let maxpos = a
        .entries
        .iter()
        .flat_map(|e| e.pos.iter().map(|p| pos_of(*p) as u32))
        .max()
        .unwrap_or(0);
    let mut entries = a.entries.clone();
    for e in &b.entries {
        let shifted: Vec<u16> = e
            .pos
            .iter()
            .map(|p| make_pos(pos_of(*p) as u32 + maxpos, weight_of(*p)))
            .collect();
        match entries.binary_search_by(|x| cmp_lexeme(&x.word, &e.word)) {
            Ok(i) => {
                // Both sides have the lexeme: positions of both (a side
                // without positions adds none).
                let mut p = entries[i].pos.clone();
                p.extend(shifted);
                entries[i].pos = super::vector::unique_pos(p);
            }
            Err(i) => entries.insert(
                i,
                Lexeme {
                    word: e.word.clone(),
                    pos: shifted,
                },
            ),
        }
    }
    TsVector { entries }
}

/// `a && b`, `a || b`: an empty side gives the other.
pub fn query_and_or(a: &TsQuery, b: &TsQuery, or: bool) -> TsQuery {
    match (&a.root, &b.root) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(x), Some(y)) => {
            let (l, r) = (Box::new(x.clone()), Box::new(y.clone()));
            TsQuery {
                root: Some(if or { Node::Or(l, r) } else { Node::And(l, r) }),
            }
        }
    }
}

/// `!! q`.
pub fn query_not(a: &TsQuery) -> TsQuery {
    TsQuery {
        root: a.root.clone().map(|n| Node::Not(Box::new(n))),
    }
}

/// tsquery_phrase(a, b [, distance]).
pub fn query_phrase(a: &TsQuery, b: &TsQuery, distance: i32) -> Result<TsQuery, DbError> {
    if !(0..=super::query::DISTANCE_MAX as i32).contains(&distance) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!(
                "distance in phrase operator must be an integer value between zero and {} inclusive",
                super::query::DISTANCE_MAX
            ),
        ));
    }
    Ok(match (&a.root, &b.root) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(x), Some(y)) => TsQuery {
            root: Some(Node::Phrase(
                Box::new(x.clone()),
                Box::new(y.clone()),
                distance as u16,
            )),
        },
    })
}

/// `a @> b` (tsq_mcontains): every operand word of b is one of a's.
pub fn query_contains(a: &TsQuery, b: &TsQuery) -> bool {
    let aw: Vec<&str> = a.operands().iter().map(|o| &*o.word).collect();
    b.operands().iter().all(|o| aw.contains(&&*o.word))
}

/// querytree(q): the part an index can use, NOT branches removed ('T'
/// when nothing is left).
pub fn querytree(q: &TsQuery) -> String {
    fn clean(n: &Node) -> Option<Node> {
        match n {
            Node::Val(_) => Some(n.clone()),
            Node::Stop | Node::Not(_) => None,
            Node::And(a, b) => match (clean(a), clean(b)) {
                (Some(x), Some(y)) => Some(Node::And(Box::new(x), Box::new(y))),
                (x, y) => x.or(y),
            },
            Node::Phrase(a, b, d) => match (clean(a), clean(b)) {
                (Some(x), Some(y)) => Some(Node::Phrase(Box::new(x), Box::new(y), *d)),
                (x, y) => x.or(y),
            },
            Node::Or(a, b) => match (clean(a), clean(b)) {
                (Some(x), Some(y)) => Some(Node::Or(Box::new(x), Box::new(y))),
                _ => None,
            },
        }
    }
    match q.root.as_ref().map(clean) {
        None => String::new(),
        Some(None) => "T".into(),
        Some(Some(n)) => TsQuery { root: Some(n) }.to_text(),
    }
}
