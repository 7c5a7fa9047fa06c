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
pub(crate) mod pgsort;
pub mod query;
pub mod rank;
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
