//! A bounded cache of parse results, keyed by the statement text.
//!
//! Why: libpg_query hands its parse tree over as protobuf, and packing it
//! costs three times the grammar itself (`pg_query_nodes_to_protobuf` was
//! 15 % of the server's samples on the seeds' PREPARE/EXECUTE script, the
//! grammar 5 %). Over the simple protocol clients send the same short texts
//! again and again (BEGIN, COMMIT, SAVEPOINT a, RELEASE a, statements
//! without literals); cloning a cached tree is far cheaper than parsing.
//!
//! Parsing is a pure function of the text (Nestor never changes the
//! grammar's settings), so a cached result is always the right one. Only
//! successful parses of texts up to `PARSE_CACHE_TEXT_BYTES_MAX` are kept,
//! and only from their second sighting (a set of hashes remembers the
//! first), so a stream of texts that never repeat (literals interpolated
//! by the client) costs a hash each and never fills the cache. When full,
//! the cache is emptied: no recency bookkeeping on the hot path.
//!
//! ```text
//!   "SAVEPOINT a"  1st: parse, remember hash   2nd: parse, cache   3rd…: clone
//!   "SELECT … 4711"   1st: parse, remember hash  (never again: never cached)
//! ```

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use nestor_common::hash::IdHashSet;
use nestor_common::limits::{PARSE_CACHE_ENTRIES_MAX, PARSE_CACHE_TEXT_BYTES_MAX};
use nestor_common::DbError;
use pg_query::protobuf::RawStmt;

#[derive(Default)]
struct Cache {
    trees: HashMap<Box<str>, Arc<Vec<RawStmt>>>,
    /// Hashes of texts parsed once and not cached yet (already hashed: an
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

/// `crate::parse_sql` through the cache.
pub fn parse_sql_cached(text: &str) -> Result<Vec<RawStmt>, DbError> {
    if text.len() > PARSE_CACHE_TEXT_BYTES_MAX {
        return crate::parse_sql(text);
    }
    let hit = cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .trees
        .get(text)
        .cloned();
    if let Some(tree) = hit {
        return Ok(tree.as_ref().clone());
    }
    let stmts = crate::parse_sql(text)?;
    let h = text_hash(text);
    let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
    if c.seen.remove(&h) {
        if c.trees.len() >= PARSE_CACHE_ENTRIES_MAX {
            c.trees.clear();
        }
        c.trees.insert(text.into(), Arc::new(stmts.clone()));
    } else {
        if c.seen.len() >= PARSE_CACHE_ENTRIES_MAX * 4 {
            c.seen.clear();
        }
        c.seen.insert(h);
    }
    Ok(stmts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_trees_equal_fresh_parses_and_errors_are_not_cached() {
        let text = "SAVEPOINT cache_test_sp";
        let fresh = crate::parse_sql(text).unwrap();
        for _ in 0..4 {
            assert_eq!(parse_sql_cached(text).unwrap(), fresh);
        }
        assert!(cache().lock().unwrap().trees.contains_key(text));
        let bad = "SELEC cache_test_bad";
        for _ in 0..3 {
            let e = parse_sql_cached(bad).unwrap_err();
            assert_eq!(e.code, nestor_common::SqlState::SyntaxError);
        }
        assert!(!cache().lock().unwrap().trees.contains_key(bad));
        let once = "SELECT 'cache_test_once'";
        parse_sql_cached(once).unwrap();
        assert!(!cache().lock().unwrap().trees.contains_key(once));
    }
}
