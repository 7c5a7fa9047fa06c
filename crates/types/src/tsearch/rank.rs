//! ts_rank and ts_rank_cd, as tsrank.c computes them.
//!
//! ts_rank weighs each query word's occurrences (`calc_rank_or`) or, for a
//! query whose top operator is `&` or a phrase, the proximity of every
//! pair of query words (`calc_rank_and`). ts_rank_cd ("cover density")
//! finds the minimal extents of the document that satisfy the query
//! (`Cover`) and sums their densities. Both then apply the normalization
//! bits. The arithmetic keeps PostgreSQL's mix of single and double
//! precision step for step, so results print the same as float4.

use std::collections::HashMap;

use nestor_common::{DbError, SqlState};

use super::ops::{exec, PhraseData, Tern};
use super::query::{Node, Operand, TsQuery};
use super::vector::{pos_of, weight_of, Lexeme, TsVector, POS_MAX};

/// Default weights of D, C, B, A.
pub const WEIGHTS: [f32; 4] = [0.1, 0.2, 0.4, 1.0];

const NORM_LOGLENGTH: i32 = 0x01;
const NORM_LENGTH: i32 = 0x02;
const NORM_EXTDIST: i32 = 0x04;
const NORM_UNIQ: i32 = 0x08;
const NORM_LOGUNIQ: i32 = 0x10;
const NORM_RDIVRPLUS1: i32 = 0x20;

fn word_distance(w: i32) -> f32 {
    if w > 100 {
        return 1e-30;
    }
    (1.0 / (1.005 + 0.05 * ((w as f32) as f64 / 1.5 - 2.0).exp())) as f32
}

fn cnt_length(t: &TsVector) -> i32 {
    t.entries.iter().map(|e| e.pos.len().max(1) as i32).sum()
}

/// The weights array argument (getWeights): at least four, no NULLs,
/// negative ones default, none above 1.
pub fn weights(arr: &[Option<f32>]) -> Result<[f32; 4], DbError> {
    if arr.len() < 4 {
        return Err(DbError::new(
            SqlState::ArraySubscriptError,
            "array of weight is too short",
        ));
    }
    let mut w = WEIGHTS;
    for i in 0..4 {
        let x = arr[i].ok_or_else(|| {
            DbError::new(
                SqlState::NullValueNotAllowed,
                "array of weight must not contain nulls",
            )
        })?;
        w[i] = if x >= 0.0 { x } else { WEIGHTS[i] };
        if w[i] > 1.0 {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "weight out of range",
            ));
        }
    }
    Ok(w)
}

/// The query's operands sorted by word, one per word (SortAndUniqItems).
fn sorted_operands(q: &TsQuery) -> Vec<&Operand> {
    let mut ops = Vec::new();
    if let Some(r) = &q.root {
        r.operands_pg_order(&mut ops);
    }
    if ops.len() < 2 {
        return ops;
    }
    nestor_common::sort::pg_qsort(&mut ops, |a: &&Operand, b: &&Operand| {
        super::vector::cmp_lexeme(&a.word, &b.word)
    });
    // Equal words: the first stays (its prefix flag decides).
    ops.dedup_by(|later, first| later.word == first.word);
    ops
}

/// The entries an operand finds (find_wordentry).
fn entries_of<'a>(t: &'a TsVector, o: &'a Operand) -> Vec<&'a Lexeme> {
    if o.prefix {
        t.with_prefix(&o.word).collect()
    } else {
        t.find(&o.word).into_iter().collect()
    }
}

fn calc_rank_and(w: &[f32; 4], t: &TsVector, q: &TsQuery) -> f32 {
    let items = sorted_operands(q);
    if items.len() < 2 {
        return calc_rank_or(w, t, q);
    }
    let wpos = |p: u16| w[weight_of(p) as usize];
    let posnull: Vec<u16> = vec![POS_MAX];
    // Per item: the positions of its (last) entry, and whether it is the
    // stand-in for an entry without positions.
    let mut pos: Vec<Option<(&[u16], bool)>> = vec![None; items.len()];
    let mut res: f32 = -1.0;
    for i in 0..items.len() {
        for e in entries_of(t, items[i]) {
            pos[i] = Some(if e.pos.is_empty() {
                (&posnull[..], true)
            } else {
                (&e.pos[..], false)
            });
            let (post, inull) = pos[i].expect("just set");
            for (ct, knull) in pos[..i].iter().flatten().copied() {
                for l in post {
                    for p in ct {
                        let mut dist = (pos_of(*l) as i32 - pos_of(*p) as i32).abs();
                        if dist != 0 || inull || knull {
                            if dist == 0 {
                                dist = POS_MAX as i32 + 1;
                            }
                            let prod: f32 = wpos(*l) * wpos(*p) * word_distance(dist);
                            let curw = (prod as f64).sqrt() as f32;
                            res = if res < 0.0 {
                                curw
                            } else {
                                (1.0 - (1.0 - res as f64) * (1.0 - curw as f64)) as f32
                            };
                        }
                    }
                }
            }
        }
    }
    res
}

fn calc_rank_or(w: &[f32; 4], t: &TsVector, q: &TsQuery) -> f32 {
    let items = sorted_operands(q);
    let wpos = |p: u16| w[weight_of(p) as usize];
    let mut res: f32 = 0.0;
    for o in &items {
        for e in entries_of(t, o) {
            let post: Vec<u16> = if e.pos.is_empty() {
                vec![0]
            } else {
                e.pos.clone()
            };
            let mut resj: f32 = 0.0;
            let mut wjm: f32 = -1.0;
            let mut jm: i32 = 0;
            for (j, p) in post.iter().enumerate() {
                let j = j as i32;
                resj += wpos(*p) / ((j + 1) * (j + 1)) as f32;
                if wpos(*p) > wjm {
                    wjm = wpos(*p);
                    jm = j;
                }
            }
            let inner: f32 = wjm + resj - wjm / ((jm + 1) * (jm + 1)) as f32;
            res = (res as f64 + inner as f64 / 1.644_934_066_85) as f32;
        }
    }
    if !items.is_empty() {
        res /= items.len() as f32;
    }
    res
}

/// ts_rank(weights, vector, query, normalization).
pub fn rank(w: &[f32; 4], t: &TsVector, q: &TsQuery, method: i32) -> f32 {
    let Some(root) = &q.root else {
        return 0.0;
    };
    if t.entries.is_empty() {
        return 0.0;
    }
    let mut res = if matches!(root, Node::And(..) | Node::Phrase(..)) {
        calc_rank_and(w, t, q)
    } else {
        calc_rank_or(w, t, q)
    };
    if res < 0.0 {
        res = 1e-20;
    }
    let size = t.entries.len();
    if method & NORM_LOGLENGTH != 0 {
        res = (res as f64 / ((cnt_length(t) as f64 + 1.0).ln() / 2f64.ln())) as f32;
    }
    if method & NORM_LENGTH != 0 {
        let len = cnt_length(t);
        if len > 0 {
            res /= len as f32;
        }
    }
    if method & NORM_UNIQ != 0 {
        res /= size as f32;
    }
    if method & NORM_LOGUNIQ != 0 {
        res = (res as f64 / ((size as f64 + 1.0).ln() / 2f64.ln())) as f32;
    }
    if method & NORM_RDIVRPLUS1 != 0 {
        res /= res + 1.0;
    }
    res
}

/// One document position of a query word (DocRepresentation): the
/// position and the operands found there.
struct DocRep {
    pos: u16,
    items: Vec<*const Operand>,
}

/// get_docrep: the positions of the query's words in the document,
/// ordered, operands of the same lexeme at a position merged.
fn docrep(t: &TsVector, q: &TsQuery) -> Vec<DocRep> {
    // (pos, entry index, operand)
    let mut raw: Vec<(u16, usize, *const Operand)> = Vec::new();
    for o in q.operands() {
        for e in entries_of(t, o) {
            let idx = t
                .entries
                .iter()
                .position(|x| std::ptr::eq(x, e))
                .unwrap_or(0);
            for p in &e.pos {
                if o.weight == 0 || o.weight & (1 << weight_of(*p)) != 0 {
                    raw.push((*p, idx, o as *const Operand));
                }
            }
        }
    }
    raw.sort_by(|a, b| {
        pos_of(a.0)
            .cmp(&pos_of(b.0))
            .then(weight_of(a.0).cmp(&weight_of(b.0)))
            .then(a.1.cmp(&b.1))
    });
    let mut out: Vec<DocRep> = Vec::new();
    let mut prev: Option<(u16, usize)> = None;
    for (p, e, o) in raw {
        match (prev, out.last_mut()) {
            (Some((pp, pe)), Some(last)) if pp == p && pe == e => last.items.push(o),
            _ => out.push(DocRep {
                pos: p,
                items: vec![o],
            }),
        }
        prev = Some((p, e));
    }
    out
}

/// The positions found so far for each operand (QueryRepresentation).
#[derive(Default)]
struct OpData {
    exists: bool,
    pos: Vec<u32>,
}

fn fill(qr: &mut HashMap<*const Operand, OpData>, d: &DocRep, reverse: bool) {
    for o in &d.items {
        let od = qr.entry(*o).or_default();
        od.exists = true;
        let p = pos_of(d.pos) as u32;
        if reverse {
            if od.pos.first() != Some(&p) {
                od.pos.insert(0, p);
            }
        } else if od.pos.last() != Some(&p) {
            od.pos.push(p);
        }
    }
}

fn satisfied(root: &Node, qr: &HashMap<*const Operand, OpData>) -> bool {
    let check = |o: &Operand, data: Option<&mut PhraseData>| -> Tern {
        match qr.get(&(o as *const Operand)) {
            Some(od) if od.exists => {
                if let Some(d) = data {
                    d.pos = od.pos.clone();
                }
                Tern::Yes
            }
            _ => Tern::No,
        }
    };
    exec(root, &check, 0).is_ok_and(|t| t != Tern::No)
}

struct Ext {
    pos: usize,
    p: i32,
    q: i32,
    begin: usize,
    end: usize,
}

/// Cover: the next extent from `ext.pos` satisfying the query.
fn cover(doc: &[DocRep], root: &Node, ext: &mut Ext) -> bool {
    // PostgreSQL recurses on failure; this loops instead.
    loop {
        let mut qr = HashMap::new();
        let mut lastpos = ext.pos;
        let mut found = false;
        ext.p = i32::MAX;
        ext.q = 0;
        let mut i = ext.pos;
        while i < doc.len() {
            fill(&mut qr, &doc[i], false);
            if satisfied(root, &qr) {
                if pos_of(doc[i].pos) as i32 > ext.q {
                    ext.q = pos_of(doc[i].pos) as i32;
                    ext.end = i;
                    lastpos = i;
                    found = true;
                }
                break;
            }
            i += 1;
        }
        if !found {
            return false;
        }
        let mut qr = HashMap::new();
        let mut j = lastpos as isize;
        while j >= ext.pos as isize {
            fill(&mut qr, &doc[j as usize], true);
            if satisfied(root, &qr) {
                if (pos_of(doc[j as usize].pos) as i32) < ext.p {
                    ext.begin = j as usize;
                    ext.p = pos_of(doc[j as usize].pos) as i32;
                }
                break;
            }
            j -= 1;
        }
        if ext.p <= ext.q {
            ext.pos = (j + 1) as usize;
            return true;
        }
        ext.pos += 1;
    }
}

/// ts_rank_cd(weights, vector, query, normalization).
pub fn rank_cd(w: &[f32; 4], t: &TsVector, q: &TsQuery, method: i32) -> f32 {
    let Some(root) = &q.root else {
        return 0.0;
    };
    let invws: Vec<f64> = w.iter().map(|x| 1.0 / *x as f64).collect();
    let doc = docrep(t, q);
    if doc.is_empty() {
        return 0.0;
    }
    let mut ext = Ext {
        pos: 0,
        p: 0,
        q: 0,
        begin: 0,
        end: 0,
    };
    let (mut wdoc, mut sumdist, mut prev) = (0.0f64, 0.0f64, 0.0f64);
    let mut nextent = 0;
    while cover(&doc, root, &mut ext) {
        let inv: f64 = doc[ext.begin..=ext.end]
            .iter()
            .map(|d| invws[weight_of(d.pos) as usize])
            .sum();
        let n = (ext.end - ext.begin) as i32;
        let cpos = (n + 1) as f64 / inv;
        let mut noise = (ext.q - ext.p) - n;
        if noise < 0 {
            noise = n / 2;
        }
        wdoc += cpos / (1 + noise) as f64;
        let cur = (ext.q + ext.p) as f64 / 2.0;
        if nextent > 0 && cur > prev {
            sumdist += 1.0 / (cur - prev);
        }
        prev = cur;
        nextent += 1;
    }
    let size = t.entries.len();
    if method & NORM_LOGLENGTH != 0 && size > 0 {
        wdoc /= (cnt_length(t) as f64 + 1.0).ln();
    }
    if method & NORM_LENGTH != 0 {
        let len = cnt_length(t);
        if len > 0 {
            wdoc /= len as f64;
        }
    }
    if method & NORM_EXTDIST != 0 && nextent > 0 && sumdist > 0.0 {
        wdoc /= nextent as f64 / sumdist;
    }
    if method & NORM_UNIQ != 0 && size > 0 {
        wdoc /= size as f64;
    }
    if method & NORM_LOGUNIQ != 0 && size > 0 {
        wdoc /= (size as f64 + 1.0).ln() / 2f64.ln();
    }
    if method & NORM_RDIVRPLUS1 != 0 {
        wdoc /= wdoc + 1.0;
    }
    wdoc as f32
}
