//! A bounded cache of parse results, keyed by the statement text's shape:
//! the text with its literal constants replaced by class markers
//! ([`crate::literals`]).
//!
//! Why: libpg_query hands its parse tree over as protobuf, and packing it
//! costs three times the grammar itself (`pg_query_nodes_to_protobuf` was
//! 15 % of the server's samples on the seeds' PREPARE/EXECUTE script, the
//! grammar 5 %). Over the simple protocol clients send the same statements
//! again and again, often with other constants each time (pgbench's
//! `EXECUTE sel(10 * 573 + 2)`, `-S`'s `… WHERE aid = 4711`); cloning a
//! cached tree and putting the new constants in is far cheaper than
//! parsing.
//!
//! ```text
//!   "SAVEPOINT a"                 1st: parse, remember shape  2nd: parse, cache  3rd…: clone
//!   "SELECT … WHERE aid = 4711"   1st: parse, remember shape "SELECT … WHERE aid = \x01I"
//!   "SELECT … WHERE aid = 17"     2nd: parse, cache (template "… = 17")
//!   "SELECT … WHERE aid = 99"     3rd…: clone the template, its A_Const at 17's
//!                                 location becomes 99
//! ```
//!
//! Correctness rests on three rules. (1) Parsing is a pure function of the
//! text (Nestor never changes the grammar's settings). (2) A literal is a
//! *parameter* of a template only if the template's tree has, at the
//! literal's location, constants equal to exactly what that literal's class
//! makes of it, and the tree walk ([`crate::literals::constants`]) knows
//! every node of the tree: so the replaced constants are all the constants
//! the literal made, and texts of one shape differ only in those values.
//! Any other literal is *fixed*: a hit needs the same literal text. (3)
//! Node locations stay the template's: a tree served from a template comes
//! with an [`Origin`], the template text to bind it against, and
//! [`Origin::map_error`] moves an error's cursor into the client's text.
//!
//! Only successful parses of texts up to `PARSE_CACHE_TEXT_BYTES_MAX` are
//! kept, and only from their shape's second sighting (a set of hashes
//! remembers the first), so texts that never repeat cost a scan and a hash
//! each and never fill the cache. When full, the cache is emptied: no
//! recency bookkeeping on the hot path. `parse_sql_cached` (the extended
//! protocol's Parse) serves exact texts only.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use nestor_common::hash::IdHashSet;
use nestor_common::limits::{PARSE_CACHE_ENTRIES_MAX, PARSE_CACHE_TEXT_BYTES_MAX};
use nestor_common::DbError;
use pg_query::protobuf::{a_const, RawStmt};

use crate::literals::{self, Lit};

/// A cached parse: the tree of `text`, and its literals, each a parameter
/// (true: its constants are replaced on a hit) or fixed.
struct Entry {
    stmts: Vec<RawStmt>,
    text: Arc<str>,
    lits: Vec<(Lit, bool)>,
}

#[derive(Default)]
struct Cache {
    trees: HashMap<Box<str>, Arc<Entry>>,
    /// Hashes of shapes parsed once and not cached yet (already hashed: an
    /// id set, no second SipHash).
    seen: IdHashSet<u64>,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

fn text_hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// A parse result, and where its node locations point.
#[derive(Debug)]
pub struct Parsed {
    pub stmts: Vec<RawStmt>,
    /// Set when the tree was made from another text with other constants:
    /// its locations refer to that text.
    pub origin: Option<Origin>,
}

/// The text a tree's locations refer to, and how its literals line up with
/// the client's text.
#[derive(Debug)]
pub struct Origin {
    text: Arc<str>,
    /// (template byte range, client byte range) of each literal, in order.
    spans: Vec<((usize, usize), (usize, usize))>,
}

impl Origin {
    /// The text to bind the tree against (error cursors come out in it).
    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// `e` with its cursor moved from the template text into `client`:
    /// outside literals by the length differences of the literals before
    /// it, inside one to that literal's start.
    pub fn map_error(&self, client: &str, mut e: DbError) -> DbError {
        let Some(p) = e.position else { return e };
        let at = self
            .text
            .char_indices()
            .nth(p.saturating_sub(1) as usize)
            .map_or(self.text.len(), |(b, _)| b);
        let mapped = match self.spans.iter().rev().find(|(t, _)| t.0 <= at) {
            None => at,
            Some(((_, t_end), (c_start, _))) if at < *t_end => *c_start,
            Some(((_, t_end), (_, c_end))) => c_end + (at - t_end),
        };
        let mapped = mapped.min(client.len());
        if client.is_char_boundary(mapped) {
            e.position = Some(client[..mapped].chars().count() as u32 + 1);
        }
        e
    }
}

/// `crate::parse_sql` through the cache, for texts whose tree is used with
/// the text itself (served only when the text is the same).
pub fn parse_sql_cached(text: &str) -> Result<Vec<RawStmt>, DbError> {
    lookup(text, false).map(|p| p.stmts)
}

/// `crate::parse_sql` through the cache, serving trees of texts that
/// differ only in literal constants (see the module header).
pub fn parse_sql_shaped(text: &str) -> Result<Parsed, DbError> {
    lookup(text, true)
}

fn exact(stmts: Vec<RawStmt>) -> Parsed {
    Parsed {
        stmts,
        origin: None,
    }
}

fn lookup(text: &str, substitute: bool) -> Result<Parsed, DbError> {
    if text.len() > PARSE_CACHE_TEXT_BYTES_MAX {
        return crate::parse_sql(text).map(exact);
    }
    let Some(lits) = literals::scan(text) else {
        return crate::parse_sql(text).map(exact);
    };
    let key = literals::shape(text, &lits);
    let hit = cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .trees
        .get(key.as_str())
        .cloned();
    if let Some(entry) = hit {
        if let Some(parsed) = serve(&entry, text, &lits, substitute) {
            return Ok(parsed);
        }
        return crate::parse_sql(text).map(exact);
    }
    let stmts = crate::parse_sql(text)?;
    let h = text_hash(&key);
    let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
    if c.seen.remove(&h) {
        if c.trees.len() >= PARSE_CACHE_ENTRIES_MAX {
            c.trees.clear();
        }
        let entry = template(text, &lits, &stmts);
        c.trees.insert(key.into_boxed_str(), Arc::new(entry));
    } else {
        if c.seen.len() >= PARSE_CACHE_ENTRIES_MAX * 4 {
            c.seen.clear();
        }
        c.seen.insert(h);
    }
    Ok(exact(stmts))
}

/// The cache entry for `text`: which literals are parameters (rule 2).
fn template(text: &str, lits: &[Lit], stmts: &[RawStmt]) -> Entry {
    let mut found: HashMap<i32, Vec<a_const::Val>> = HashMap::new();
    let mut probe = stmts.to_vec();
    let walked = literals::constants(&mut probe, &mut |c| {
        if let Some(v) = &c.val {
            found.entry(c.location).or_default().push(v.clone());
        }
    });
    let lits = lits
        .iter()
        .map(|l| {
            let param = walked
                && i32::try_from(l.start)
                    .ok()
                    .and_then(|at| found.get(&at))
                    .is_some_and(|vals| {
                        let want = literals::value(text, l);
                        vals.iter().all(|v| *v == want)
                    });
            (*l, param)
        })
        .collect();
    Entry {
        stmts: stmts.to_vec(),
        text: Arc::from(text),
        lits,
    }
}

/// The entry's tree for `text` (same shape), or None if a fixed literal
/// differs (or a parameter does and `substitute` is off).
fn serve(entry: &Entry, text: &str, lits: &[Lit], substitute: bool) -> Option<Parsed> {
    assert_eq!(entry.lits.len(), lits.len(), "one shape, one literal count");
    let mut replace: HashMap<i32, a_const::Val> = HashMap::new();
    for ((t, param), l) in entry.lits.iter().zip(lits) {
        if entry.text[t.start..t.end] == text[l.start..l.end] {
            continue;
        }
        if !param || !substitute {
            return None;
        }
        replace.insert(t.start as i32, literals::value(text, l));
    }
    let mut stmts = entry.stmts.clone();
    if replace.is_empty() {
        return Some(exact(stmts));
    }
    let walked = literals::constants(&mut stmts, &mut |c| {
        if let Some(v) = replace.get(&c.location) {
            c.val = Some(v.clone());
        }
    });
    assert!(walked, "a template's tree walks completely");
    let spans = entry
        .lits
        .iter()
        .zip(lits)
        .map(|((t, _), l)| ((t.start, t.end), (l.start, l.end)))
        .collect();
    Some(Parsed {
        stmts,
        origin: Some(Origin {
            text: entry.text.clone(),
            spans,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree's Debug form without node locations.
    fn unlocated(stmts: &[RawStmt]) -> String {
        let s = format!("{stmts:?}");
        let mut out = String::with_capacity(s.len());
        let mut rest = s.as_str();
        while let Some(i) = rest.find("location: ") {
            out.push_str(&rest[..i]);
            rest = &rest[i + "location: ".len()..];
            rest = rest.trim_start_matches(|c: char| c == '-' || c.is_ascii_digit());
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn cached_trees_equal_fresh_parses_and_errors_are_not_cached() {
        let text = "SAVEPOINT cache_test_sp";
        let fresh = crate::parse_sql(text).unwrap();
        for _ in 0..4 {
            assert_eq!(parse_sql_cached(text).unwrap(), fresh);
        }
        let key = literals::shape(text, &literals::scan(text).unwrap());
        assert!(cache().lock().unwrap().trees.contains_key(key.as_str()));
        let bad = "SELEC cache_test_bad";
        for _ in 0..3 {
            let e = parse_sql_cached(bad).unwrap_err();
            assert_eq!(e.code, nestor_common::SqlState::SyntaxError);
        }
        assert!(!cache().lock().unwrap().trees.contains_key(bad));
    }

    #[test]
    fn texts_of_one_shape_get_their_own_constants() {
        // Each family: texts differing only in literals. After the first
        // two (which make the template), every text's tree must equal its
        // own fresh parse, locations aside.
        let families: Vec<Vec<String>> = vec![
            (0..6).map(|i| format!("EXECUTE cache_t1(10 * {} + {i} + 1)", 500 + i)).collect(),
            (0..6)
                .map(|i| format!("SELECT abalance FROM cache_t2 WHERE aid = {}", i * 7919))
                .collect(),
            (0..6)
                .map(|i| format!("UPDATE cache_t3 SET v = 'it''s {i}', w = {i}.5 WHERE id IN ({i}, 99999999999)"))
                .collect(),
            (0..6)
                .map(|i| format!("INSERT INTO cache_t4 VALUES ({i}, 'x{i}', {i}e3, NULL, true) RETURNING *"))
                .collect(),
            (0..6)
                .map(|i| format!("SELECT * FROM cache_t5 WHERE a BETWEEN SYMMETRIC {i} AND 7 ORDER BY b LIMIT {}", i + 1))
                .collect(),
            (0..6)
                .map(|i| format!("SELECT x::varchar({}) FROM cache_t6 WHERE y = -{i} AND z = '{i}'", i + 1))
                .collect(),
        ];
        for (f, family) in families.iter().enumerate() {
            for (i, text) in family.iter().enumerate() {
                let parsed = parse_sql_shaped(text).unwrap();
                let fresh = crate::parse_sql(text).unwrap();
                assert_eq!(unlocated(&parsed.stmts), unlocated(&fresh), "{text}");
                // The first five families' later texts come from their
                // template (the last has a fixed literal that varies).
                if f < 5 && i >= 2 {
                    assert!(parsed.origin.is_some(), "{text} served from the template");
                }
            }
        }
    }

    #[test]
    fn unknown_statements_and_fixed_literals_need_the_same_text() {
        // DDL is not walked: its literals are fixed, so another length
        // gives a fresh parse (whose varchar(n) is its own).
        for n in [10, 10, 10, 20, 30] {
            let text = format!("CREATE TABLE cache_t7 (a varchar({n}))");
            let parsed = parse_sql_shaped(&text).unwrap();
            assert!(parsed.origin.is_none());
            assert_eq!(parsed.stmts, crate::parse_sql(&text).unwrap());
        }
        // A negative number's constant sits at the minus sign: fixed.
        for v in [1, 1, 2, 3] {
            let text = format!("SELECT -{v} FROM cache_t8");
            let parsed = parse_sql_shaped(&text).unwrap();
            assert_eq!(
                unlocated(&parsed.stmts),
                unlocated(&crate::parse_sql(&text).unwrap())
            );
        }
        // The extended protocol's entry point never substitutes.
        for v in [5, 6, 7] {
            let text = format!("SELECT {v} FROM cache_t9");
            assert_eq!(
                parse_sql_cached(&text).unwrap(),
                crate::parse_sql(&text).unwrap()
            );
        }
    }

    #[test]
    fn error_cursors_move_into_the_client_text() {
        let texts = [
            "SELECT 1 + 1, nope FROM cache_t10",
            "SELECT 1 + 1, nope FROM cache_t10",
            "SELECT 123456 + 7, nope FROM cache_t10",
        ];
        let mut last = None;
        for t in texts {
            last = Some(parse_sql_shaped(t).unwrap());
        }
        let parsed = last.unwrap();
        let origin = parsed.origin.expect("served from the template");
        assert_eq!(&**origin.text(), texts[0]);
        // "nope" is at character 15 of the template, 20 of the client text.
        let e = DbError::new(nestor_common::SqlState::UndefinedColumn, "x").with_position(15);
        assert_eq!(origin.map_error(texts[2], e).position, Some(20));
        // Inside a literal: that literal's start (7 at 17).
        let e = DbError::new(nestor_common::SqlState::UndefinedColumn, "x").with_position(12);
        assert_eq!(origin.map_error(texts[2], e).position, Some(17));
        // Before any literal: unchanged.
        let e = DbError::new(nestor_common::SqlState::UndefinedColumn, "x").with_position(3);
        assert_eq!(origin.map_error(texts[2], e).position, Some(3));
    }
}
