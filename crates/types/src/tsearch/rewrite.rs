//! ts_rewrite(query, target, substitute), as tsquery_rewrite.c does it.
//!
//! The query and the target become n-ary trees (QTNode): chains of the
//! same `&` or `|` flattened into one node (QTNTernary), children sorted
//! by PostgreSQL's node order (QTNSort, pg_qsort over QTNodeCompare), and
//! each node carries a signature (one bit per operand CRC) that rules
//! out most comparisons. Every subtree equal to the target — or, for an
//! `&`/`|` node, holding all of the target's children — is replaced by
//! the substitute (or dropped when it is empty), and the tree is folded
//! back into binary operators (QTNBinary). The result keeps the sorted
//! order, as PostgreSQL's does.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use super::query::{Node, Operand, TsQuery};

/// Deepest tree walked (recursion guard).
const DEPTH_MAX: usize = 10_000;

#[derive(Clone)]
struct Qtn {
    /// An operator (PostgreSQL's code and a phrase's distance), or None
    /// for an operand.
    op: Option<(u8, u16)>,
    val: Option<Operand>,
    kids: Vec<Qtn>,
    sign: u32,
    nochange: bool,
}

fn too_deep() -> DbError {
    DbError::new(SqlState::StatementTooComplex, "stack depth limit exceeded")
}

/// QT2QTN: children right operand first.
fn from_node(n: &Node, depth: usize) -> Result<Option<Qtn>, DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    let op = |code: u8, d: u16, kids: Vec<Qtn>| Qtn {
        op: Some((code, d)),
        val: None,
        sign: kids.iter().fold(0, |s, k| s | k.sign),
        kids,
        nochange: false,
    };
    Ok(Some(match n {
        Node::Val(o) => Qtn {
            op: None,
            val: Some(o.clone()),
            kids: Vec::new(),
            sign: 1u32 << (o.crc % 32),
            nochange: false,
        },
        Node::Stop => return Ok(None),
        Node::Not(a) => op(1, 0, from_node(a, depth + 1)?.into_iter().collect()),
        Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
            let (code, d) = match n {
                Node::And(..) => (2, 0),
                Node::Or(..) => (3, 0),
                Node::Phrase(_, _, d) => (4, *d),
                _ => (0, 0),
            };
            let mut kids: Vec<Qtn> = from_node(b, depth + 1)?.into_iter().collect();
            kids.extend(from_node(a, depth + 1)?);
            op(code, d, kids)
        }
    }))
}

/// QTNodeCompare over n-ary trees.
fn cmp(a: &Qtn, b: &Qtn) -> Ordering {
    match (&a.val, &b.val) {
        (Some(x), Some(y)) => y
            .crc
            .cast_signed()
            .cmp(&x.crc.cast_signed())
            .then_with(|| super::vector::cmp_lexeme(&x.word, &y.word)),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => {
            let (ca, da) = a.op.unwrap_or((0, 0));
            let (cb, db) = b.op.unwrap_or((0, 0));
            cb.cmp(&ca)
                .then(b.kids.len().cmp(&a.kids.len()))
                .then_with(|| {
                    a.kids
                        .iter()
                        .zip(&b.kids)
                        .map(|(x, y)| cmp(x, y))
                        .find(|o| *o != Ordering::Equal)
                        .unwrap_or(Ordering::Equal)
                })
                .then_with(|| {
                    if ca == 4 {
                        db.cmp(&da)
                    } else {
                        Ordering::Equal
                    }
                })
        }
    }
}

fn eq(a: &Qtn, b: &Qtn) -> bool {
    let s = a.sign & b.sign;
    s == a.sign && s == b.sign && cmp(a, b) == Ordering::Equal
}

/// QTNTernary: `a & (b & c)` is one `&` of three.
fn ternary(q: &mut Qtn) {
    for k in &mut q.kids {
        ternary(k);
    }
    let Some((code, _)) = q.op else {
        return;
    };
    if code != 2 && code != 3 {
        return;
    }
    let mut out = Vec::with_capacity(q.kids.len());
    for k in std::mem::take(&mut q.kids) {
        if k.op.map(|o| o.0) == Some(code) {
            out.extend(k.kids);
        } else {
            out.push(k);
        }
    }
    q.kids = out;
}

/// QTNSort.
fn sort(q: &mut Qtn) {
    for k in &mut q.kids {
        sort(k);
    }
    if q.kids.len() > 1 && q.op.map(|o| o.0) != Some(4) {
        nestor_common::sort::pg_qsort(&mut q.kids, cmp);
    }
}

/// QTNBinary: more than two children become nested pairs.
fn binary(q: &mut Qtn) {
    for k in &mut q.kids {
        binary(k);
    }
    while q.kids.len() > 2 {
        let a = q.kids.remove(0);
        let b = q.kids.remove(0);
        let nn = Qtn {
            op: q.op.map(|(c, _)| (c, 0)),
            val: None,
            sign: a.sign | b.sign,
            kids: vec![a, b],
            nochange: false,
        };
        let last = q.kids.pop().expect("more than two children");
        // PostgreSQL puts the pair first and the last child second; the
        // children between keep their places for the next round.
        let mut kids = vec![nn, last];
        kids.append(&mut q.kids);
        q.kids = kids;
    }
}

fn replacement(subs: Option<&Qtn>) -> Option<Qtn> {
    subs.map(|s| {
        let mut s = s.clone();
        s.nochange = true;
        s
    })
}

/// findeq.
fn findeq(node: Qtn, ex: &Qtn, subs: Option<&Qtn>) -> Option<Qtn> {
    if (node.sign & ex.sign) != ex.sign || node.val.is_some() != ex.val.is_some() || node.nochange {
        return Some(node);
    }
    if node.op.is_some() {
        let (nc, _) = node.op.unwrap_or((0, 0));
        let (ec, _) = ex.op.unwrap_or((0, 0));
        if nc != ec {
            return Some(node);
        }
        if node.kids.len() == ex.kids.len() {
            if eq(&node, ex) {
                return replacement(subs);
            }
        } else if node.kids.len() > ex.kids.len() && !ex.kids.is_empty() {
            let mut matched = vec![false; node.kids.len()];
            let (mut i, mut j, mut n) = (0, 0, 0);
            while i < node.kids.len() && j < ex.kids.len() {
                match cmp(&node.kids[i], &ex.kids[j]) {
                    Ordering::Equal => {
                        matched[i] = true;
                        n += 1;
                        i += 1;
                        j += 1;
                    }
                    Ordering::Less => i += 1,
                    Ordering::Greater => break,
                }
            }
            if n == ex.kids.len() {
                let mut node = node;
                let mut kept: Vec<Qtn> = node
                    .kids
                    .into_iter()
                    .zip(matched)
                    .filter(|(_, m)| !m)
                    .map(|(k, _)| k)
                    .collect();
                kept.extend(replacement(subs));
                node.kids = kept;
                sort(&mut node);
                return Some(node);
            }
        }
        Some(node)
    } else {
        let (a, b) = (node.val.as_ref(), ex.val.as_ref());
        if a.map(|o| o.crc) != b.map(|o| o.crc) {
            return Some(node);
        }
        if eq(&node, ex) {
            return replacement(subs);
        }
        Some(node)
    }
}

/// dofindsubquery.
fn find(root: Qtn, ex: &Qtn, subs: Option<&Qtn>, depth: usize) -> Result<Option<Qtn>, DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    let Some(mut root) = findeq(root, ex, subs) else {
        return Ok(None);
    };
    if !root.nochange && root.op.is_some() {
        let mut kids = Vec::with_capacity(root.kids.len());
        for k in std::mem::take(&mut root.kids) {
            if let Some(k) = find(k, ex, subs, depth + 1)? {
                kids.push(k);
            }
        }
        root.kids = kids;
        if root.kids.is_empty() {
            return Ok(None);
        }
        if root.kids.len() == 1 && root.op.map(|o| o.0) != Some(1) {
            return Ok(root.kids.pop());
        }
    }
    Ok(Some(root))
}

/// QTN2QT for a binary tree (children right first).
fn to_node(q: Qtn) -> Node {
    match (q.val, q.op) {
        (Some(o), _) => Node::Val(o),
        (None, Some((code, d))) => {
            let mut kids = q.kids.into_iter().map(to_node);
            let right = kids.next().map(Box::new);
            let left = kids.next().map(Box::new);
            match (code, left, right) {
                (1, None, Some(a)) => Node::Not(a),
                (2, Some(l), Some(r)) => Node::And(l, r),
                (3, Some(l), Some(r)) => Node::Or(l, r),
                (4, Some(l), Some(r)) => Node::Phrase(l, r, d),
                (_, None, Some(a)) => *a,
                _ => Node::Stop,
            }
        }
        (None, None) => Node::Stop,
    }
}

/// ts_rewrite(query, target, substitute).
pub fn rewrite(query: &TsQuery, ex: &TsQuery, subst: &TsQuery) -> Result<TsQuery, DbError> {
    let (Some(qr), Some(er)) = (&query.root, &ex.root) else {
        return Ok(query.clone());
    };
    let Some(mut tree) = from_node(qr, 0)? else {
        return Ok(query.clone());
    };
    ternary(&mut tree);
    sort(&mut tree);
    let Some(mut qex) = from_node(er, 0)? else {
        return Ok(query.clone());
    };
    ternary(&mut qex);
    sort(&mut qex);
    let subs = match &subst.root {
        Some(s) => from_node(s, 0)?,
        None => None,
    };
    Ok(match find(tree, &qex, subs.as_ref(), 0)? {
        None => TsQuery { root: None },
        Some(mut t) => {
            binary(&mut t);
            TsQuery {
                root: Some(to_node(t)),
            }
        }
    })
}
