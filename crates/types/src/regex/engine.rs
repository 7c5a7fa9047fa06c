//! The two engines a pattern runs on, behind one small interface.
//!
//! Most patterns compile to the regex crate's automata: linear time in
//! the subject, so no pattern can make a statement run away. Back
//! references and lookaround cannot be run by a finite automaton; a
//! pattern with one (and only such a pattern) compiles to fancy-regex,
//! a backtracking engine that delegates the parts without them to the
//! same regex crate. Backtracking can take exponential time, so each
//! match is cut off after [`REGEX_BACKTRACK_STEPS_MAX`] steps with an
//! error (PostgreSQL's own engine has a similar guard, failing with
//! "regular expression is too complex").
//!
//! ```text
//!   'a+b'        -> Linear       (regex crate)
//!   '(.)\1'      -> Backtracking (fancy-regex; `\1` needs the text of group 1)
//!   'foo(?=bar)' -> Backtracking
//! ```
//!
//! Callers see a match as byte spans of its groups ([`Groups`]), found
//! from a start position with the whole subject as context (`^` and `\b`
//! still see what precedes `pos`), which is what PostgreSQL's match walk
//! needs (`positional::walk`).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

/// Backtracking steps one match of a pattern with back references or
/// lookaround may take before it fails.
pub const REGEX_BACKTRACK_STEPS_MAX: usize = 1_000_000;

/// A compiled pattern.
#[derive(Clone)]
pub(crate) enum Re {
    Linear(regex::Regex),
    Backtracking(Arc<fancy_regex::Regex>),
}

/// One match: the byte span of each group (0: the whole match), None
/// for a group that took no part.
pub(crate) struct Groups<'s> {
    s: &'s str,
    spans: Vec<Option<(usize, usize)>>,
}

impl<'s> Groups<'s> {
    /// The number of groups, the whole match included.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(crate) fn span(&self, i: usize) -> Option<(usize, usize)> {
        self.spans.get(i).copied().flatten()
    }

    /// Group `i`'s text.
    pub(crate) fn get(&self, i: usize) -> Option<&'s str> {
        self.span(i).map(|(a, b)| &self.s[a..b])
    }

    /// The whole match's span.
    pub(crate) fn whole(&self) -> (usize, usize) {
        self.span(0).expect("a match has group 0")
    }
}

fn too_complex(e: fancy_regex::Error) -> DbError {
    let why = match e {
        fancy_regex::Error::RuntimeError(_) => format!(
            "regular expression is too complex (more than {REGEX_BACKTRACK_STEPS_MAX} backtracking steps)"
        ),
        e => e.to_string(),
    };
    DbError::new(
        SqlState::InvalidRegularExpression,
        format!("invalid regular expression: {why}"),
    )
}

impl Re {
    /// Whether the pattern matches anywhere in `s`.
    pub(crate) fn is_match(&self, s: &str) -> Result<bool, DbError> {
        match self {
            Re::Linear(r) => Ok(r.is_match(s)),
            Re::Backtracking(r) => r.is_match(s).map_err(too_complex),
        }
    }

    /// The leftmost match starting at byte `pos` or later.
    pub(crate) fn captures_at<'s>(
        &self,
        s: &'s str,
        pos: usize,
    ) -> Result<Option<Groups<'s>>, DbError> {
        let spans = match self {
            Re::Linear(r) => r
                .captures_at(s, pos)
                .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
            Re::Backtracking(r) => r.captures_from_pos(s, pos).map_err(too_complex)?.map(|c| {
                (0..c.len())
                    .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                    .collect()
            }),
        };
        Ok(spans.map(|spans| Groups { s, spans }))
    }

    /// The number of groups, the whole match included.
    pub(crate) fn captures_len(&self) -> usize {
        match self {
            Re::Linear(r) => r.captures_len(),
            Re::Backtracking(r) => r.captures_len(),
        }
    }
}

/// Compile `source` (already in the engines' syntax) on the engine it
/// needs.
pub(crate) fn build(
    source: &str,
    backtracking: bool,
    (ci, dot_nl, multi_line): (bool, bool, bool),
    size_limit: usize,
) -> Result<Re, String> {
    if backtracking {
        return fancy_regex::RegexBuilder::new(source)
            .case_insensitive(ci)
            .dot_matches_new_line(dot_nl)
            .multi_line(multi_line)
            .backtrack_limit(REGEX_BACKTRACK_STEPS_MAX)
            .delegate_size_limit(size_limit)
            .build()
            .map(|r| Re::Backtracking(Arc::new(r)))
            .map_err(|e| e.to_string());
    }
    regex::RegexBuilder::new(source)
        .case_insensitive(ci)
        .dot_matches_new_line(dot_nl)
        .multi_line(multi_line)
        .size_limit(size_limit)
        .build()
        .map(Re::Linear)
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => "regular expression is too complex".to_string(),
            e => e.to_string(),
        })
}
