//! # Full text search: tsvector, tsquery, regconfig
//!
//! PostgreSQL's text search, with its formats, results and messages:
//!
//! * [`vector`] — the `tsvector` type (sorted lexemes with positions and
//!   weights), its text and binary forms and btree order.
//! * [`query`] — the `tsquery` type (a tree of operands under `!`, `&`,
//!   `|`, `<N>`), its parser (shared by to_tsquery and friends), output,
//!   order and stop-word cleanup.
//! * [`parser`] — the default parser's token classification, a port of
//!   wparser_def.c's state tables.
//! * [`config`] — the `simple` and `english` configurations (lowercasing,
//!   english.stop, the Snowball English stemmer), to_tsvector and the
//!   to_tsquery family.
//! * [`ops`] — `@@` (TS_execute, phrase positions included), tsvector
//!   editing and tsquery composition.
//! * [`rank`] — ts_rank and ts_rank_cd.
//! * [`headline`] — ts_headline; [`json_docs`] — the values of JSON
//!   documents it and to_tsvector read.
//! * [`catalog`] — the SQL surface: functions, operators, casts.
//!
//! Values are `Value::TsVector` / `Value::TsQuery` (shared `Arc`s);
//! a `regconfig` is an OID (`Value::Int8`), [`config::config_name`] names
//! it. A GIN index can key a tsvector by [`vector::TsVector::lexemes`] and
//! ask [`ops::required_lexemes`] which lexemes a query needs.
//!
//! Not here: custom configurations and dictionaries (CREATE TEXT SEARCH
//! ... is 0A000), thesaurus and ispell dictionaries, ts_rewrite, ts_stat.

pub mod catalog;
pub mod config;
pub mod headline;
pub mod json_docs;
pub mod ops;
pub mod parser;
pub mod query;
pub mod rank;
pub mod rewrite;
pub mod vector;

use std::cell::RefCell;

use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};

pub use query::TsQuery;
pub use vector::TsVector;

thread_local! {
    /// Notices raised while evaluating a text search function (the
    /// library's functions have no statement to send them to): the
    /// executor takes them after each call ([`take_notices`]).
    static NOTICES: RefCell<Vec<DbError>> = const { RefCell::new(Vec::new()) };
}

/// Most notices kept between two [`take_notices`] (a query over many rows
/// would otherwise pile them up).
const NOTICES_MAX: usize = 100;

pub(crate) fn notice(msg: String) {
    // parsetext's notice for an overlong word carries a detail.
    let detail =
        (msg == config::WORD_TOO_LONG).then_some("Words longer than 2047 characters are ignored.");
    let mut e = DbError::new(SqlState::SuccessfulCompletion, msg).with_severity(Severity::Notice);
    if let Some(d) = detail {
        e = e.with_detail(d);
    }
    NOTICES.with(|n| {
        let mut n = n.borrow_mut();
        if n.len() < NOTICES_MAX {
            n.push(e);
        }
    });
}

/// The notices raised since the last call.
pub fn take_notices() -> Vec<DbError> {
    NOTICES.with(|n| std::mem::take(&mut *n.borrow_mut()))
}

/// Put notices back (the binder gives a literal's its position).
pub fn requeue(notices: Vec<DbError>) {
    NOTICES.with(|n| n.borrow_mut().extend(notices));
}

/// Whether notices are waiting (cheap, for the executor's hot path).
pub fn has_notices() -> bool {
    NOTICES.with(|n| !n.borrow().is_empty())
}

/// A bounds-checked reader of binary input.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

fn bad_binary() -> DbError {
    DbError::new(
        SqlState::InvalidBinaryRepresentation,
        "insufficient data left in message",
    )
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DbError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.buf.len())
            .ok_or_else(bad_binary)?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub fn u8(&mut self) -> Result<u8, DbError> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, DbError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, DbError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn cstring(&mut self) -> Result<String, DbError> {
        let rest = &self.buf[self.at..];
        let n = rest.iter().position(|b| *b == 0).ok_or_else(bad_binary)?;
        let s = std::str::from_utf8(&rest[..n]).map_err(|_| {
            DbError::new(
                SqlState::CharacterNotInRepertoire,
                "invalid byte sequence for encoding \"UTF8\"",
            )
        })?;
        self.at += n + 1;
        Ok(s.to_string())
    }

    pub fn end(&self) -> Result<(), DbError> {
        if self.at == self.buf.len() {
            Ok(())
        } else {
            Err(DbError::new(
                SqlState::InvalidBinaryRepresentation,
                "incorrect binary data format",
            ))
        }
    }
}

/// tsqueryin as the type's input function: the empty query raises
/// PostgreSQL's notice.
pub fn parse_query(input: &str) -> Result<TsQuery, DbError> {
    let (q, empty) = query::parse(input)?;
    if empty {
        notice(format!(
            "text-search query doesn't contain lexemes: \"{input}\""
        ));
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::config::{self, QueryKind, ENGLISH_OID, SIMPLE_OID};
    use super::*;

    fn tsv(s: &str) -> String {
        vector::parse(s).unwrap().to_text()
    }

    fn tsq(s: &str) -> String {
        query::parse(s).unwrap().0.to_text()
    }

    #[test]
    fn tsvector_text_form() {
        assert_eq!(tsv("b a c a"), "'a' 'b' 'c'");
        assert_eq!(tsv("a:3,1,2 b:2A c:1b,1a"), "'a':1,2,3 'b':2A 'c':1A");
        assert_eq!(tsv("asd:1dc"), "'asd':1C");
        assert_eq!(tsv("'it''s' \\'x"), "'''x' 'it''s'");
        assert_eq!(tsv("a:20000"), "'a':16383");
        assert!(vector::parse("a:0").is_err());
        assert!(vector::parse("a:1AA").is_err());
        assert!(vector::parse("'a").is_err());
    }

    #[test]
    fn tsquery_text_form() {
        assert_eq!(tsq("a & b | c"), "'a' & 'b' | 'c'");
        assert_eq!(tsq("a | b & c"), "'a' | 'b' & 'c'");
        assert_eq!(tsq("a <-> (b <-> c)"), "'a' <-> ( 'b' <-> 'c' )");
        assert_eq!(tsq("!(a | b)"), "!( 'a' | 'b' )");
        assert_eq!(tsq("a:*AB <2> b"), "'a':*AB <2> 'b'");
        assert!(query::parse("a b").is_err());
        assert!(query::parse("a &").is_err());
        assert!(query::parse("a <16385> b").is_err());
        assert!(query::parse("").unwrap().1);
    }

    #[test]
    fn binary_round_trip() {
        let v = vector::parse("a:1A,2 b c:3").unwrap();
        assert_eq!(TsVector::from_binary(&v.to_binary()).unwrap(), v);
        let q = query::parse("!a <2> (b | c:*B)").unwrap().0;
        assert_eq!(
            TsQuery::from_binary(&q.to_binary()).unwrap().to_text(),
            q.to_text()
        );
        assert!(TsQuery::from_binary(&[0, 0, 0, 5, 9]).is_err());
    }

    #[test]
    fn parser_token_types() {
        let types: Vec<(u8, String)> = parser::tokens("foo-bar 1.5e3 http://x.org/y a.b")
            .into_iter()
            .filter(|t| t.0 != parser::SPACE)
            .collect();
        let names: Vec<(&str, &str)> = types
            .iter()
            .map(|(t, s)| (parser::TOKEN_TYPES[*t as usize - 1].0, s.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("asciihword", "foo-bar"),
                ("hword_asciipart", "foo"),
                ("hword_asciipart", "bar"),
                ("sfloat", "1.5e3"),
                ("protocol", "http://"),
                ("url", "x.org/y"),
                ("host", "x.org"),
                ("url_path", "/y"),
                ("file", "a.b"),
            ]
        );
    }

    #[test]
    fn configurations() {
        let mut n = Vec::new();
        let v = config::to_tsvector(ENGLISH_OID, "The Fat Rats ate", &mut n).unwrap();
        assert_eq!(v.to_text(), "'ate':4 'fat':2 'rat':3");
        let v = config::to_tsvector(SIMPLE_OID, "The Fat", &mut n).unwrap();
        assert_eq!(v.to_text(), "'fat':2 'the':1");
        let (q, _) =
            config::to_tsquery(ENGLISH_OID, "fat <-> the <-> rats", QueryKind::Standard).unwrap();
        assert_eq!(q.to_text(), "'fat' <2> 'rat'");
        let (q, _) =
            config::to_tsquery(ENGLISH_OID, "\"fat rat\" or cat -dog", QueryKind::Web).unwrap();
        assert_eq!(q.to_text(), "'fat' <-> 'rat' | 'cat' & !'dog'");
        assert!(config::config_oid("nonesuch").is_err());
        assert_eq!(
            config::config_oid("pg_catalog.English").unwrap(),
            ENGLISH_OID
        );
    }

    #[test]
    fn matching() {
        let v = vector::parse("a:1 b:2 c:3").unwrap();
        let m = |q: &str| ops::matches(&v, &query::parse(q).unwrap().0).unwrap();
        assert!(m("a <-> b"));
        assert!(!m("b <-> a"));
        assert!(m("a <2> c"));
        assert!(m("a <-> !c"));
        assert!(!m("a <-> !b"));
        assert!(m("(a | c) <-> b"));
        assert!(m("ab:* | b:*"));
        assert!(!m("b:A"));
        let stripped = vector::parse("a b").unwrap();
        assert!(!ops::matches(&stripped, &query::parse("a <-> b").unwrap().0).unwrap());
        assert!(ops::matches(&stripped, &query::parse("a:A").unwrap().0).unwrap());
    }

    #[test]
    fn gin_keys() {
        let q = query::parse("a & !b | c:*").unwrap().0;
        let (ops, full_scan) = ops::required_lexemes(&q).unwrap();
        assert_eq!(ops, [("a", false), ("b", false), ("c", true)]);
        assert!(!full_scan);
        let q = query::parse("!a").unwrap().0;
        assert!(ops::required_lexemes(&q).unwrap().1);
        let v = vector::parse("b a:1").unwrap();
        assert_eq!(v.lexemes().collect::<Vec<_>>(), ["a", "b"]);
    }
}
