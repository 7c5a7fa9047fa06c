//! Text search configurations: `simple` and `english`, and what they
//! drive — to_tsvector's document parsing and the to_tsquery family.
//!
//! A configuration maps each token type of the default parser to a
//! dictionary (PostgreSQL's pg_ts_config_map). Two dictionaries exist
//! here: `simple` (lowercase, no stop words) and `english_stem` (lowercase;
//! PostgreSQL's english.stop words are dropped; otherwise the Snowball
//! English stemmer from the rust-stemmers crate). Tags, entities, blanks
//! and protocol heads are mapped to nothing and skipped without taking a
//! position; a stop word takes its position but yields no lexeme, so
//! `to_tsvector('english', 'the cat')` is `'cat':2` (parsetext).
//!
//! Configurations are named by their pg_ts_config OIDs (the `regconfig`
//! values): `simple` is 3748 and `english` 13164 as in the reference
//! server; the session's `default_text_search_config` is carried in
//! [`crate::context::EvalCtx`] as one of these OIDs.

use std::sync::OnceLock;

use nestor_common::{DbError, SqlState};

use super::parser::{self, SPACE};
use super::query::{self, Builder, PushVal, Tok, TsQuery};
use super::vector::{make_pos, Lexeme, TsVector, STR_LEN_MAX, STR_POS_MAX};

pub const SIMPLE_OID: u32 = 3748;
pub const ENGLISH_OID: u32 = 13164;

/// The configurations: OID, name.
pub const CONFIGS: [(u32, &str); 2] = [(SIMPLE_OID, "simple"), (ENGLISH_OID, "english")];

/// parsetext's notice for a word it skips.
pub const WORD_TOO_LONG: &str = "word is too long to be indexed";

/// Longest word a Snowball dictionary stems (dsnowball_lexize).
const STEM_INPUT_MAX: usize = 1000;

/// PostgreSQL's english.stop.
const ENGLISH_STOP: &str = include_str!("english.stop");

/// The name of configuration `oid`, if it is one.
pub fn config_name(oid: u32) -> Option<&'static str> {
    CONFIGS.iter().find(|c| c.0 == oid).map(|c| c.1)
}

/// regconfig input: a configuration name (pg_catalog-qualified or not,
/// an unquoted name folds to lower case) or an OID.
pub fn config_oid(name: &str) -> Result<u32, DbError> {
    let n = name.trim();
    if let Ok(o) = n.parse::<u32>() {
        return Ok(o);
    }
    let fold = |s: &str| -> String {
        match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => s.to_ascii_lowercase(),
        }
    };
    let parts: Vec<String> = n.split('.').map(fold).collect();
    let bare = match parts.as_slice() {
        [one] => Some(one.as_str()),
        [schema, one] if schema == "pg_catalog" => Some(one.as_str()),
        _ => None,
    };
    bare.and_then(|b| CONFIGS.iter().find(|c| c.1 == b).map(|c| c.0))
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("text search configuration \"{n}\" does not exist"),
            )
        })
}

/// The dictionaries (pg_ts_dict): OID, name.
pub const DICTIONARIES: [(u32, &str, Dict); 2] = [
    (3765, "simple", Dict::Simple),
    (13163, "english_stem", Dict::EnglishStem),
];

/// The name of dictionary `oid`, if it is one.
pub fn dictionary_name(oid: u32) -> Option<&'static str> {
    DICTIONARIES.iter().find(|d| d.0 == oid).map(|d| d.1)
}

/// regdictionary input: a dictionary name (pg_catalog-qualified or not)
/// or an OID.
pub fn dictionary_oid(name: &str) -> Result<u32, DbError> {
    let n = name.trim();
    if let Ok(o) = n.parse::<u32>() {
        return Ok(o);
    }
    let lower = n.to_ascii_lowercase();
    let bare = lower.strip_prefix("pg_catalog.").unwrap_or(&lower);
    DICTIONARIES
        .iter()
        .find(|d| d.1 == bare.trim_matches('"'))
        .map(|d| d.0)
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("text search dictionary \"{n}\" does not exist"),
            )
        })
}

/// ts_lexize(dictionary, token): the lexemes (an empty array for a stop
/// word).
pub fn ts_lexize(dict: u32, token: &str) -> Result<Vec<String>, DbError> {
    let d = DICTIONARIES
        .iter()
        .find(|d| d.0 == dict)
        .map(|d| d.2)
        .ok_or_else(|| {
            DbError::new(
                SqlState::InternalError,
                format!("cache lookup failed for text search dictionary {dict}"),
            )
        })?;
    Ok(lexize(d, token).into_iter().collect())
}

/// The dictionary a token type goes to in configuration `cfg` (None:
/// skipped).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dict {
    Simple,
    EnglishStem,
}

impl Dict {
    pub fn name(self) -> &'static str {
        match self {
            Dict::Simple => "simple",
            Dict::EnglishStem => "english_stem",
        }
    }
}

pub fn dictionary(cfg: u32, token_type: u8) -> Option<Dict> {
    // Token types 12 (blank), 13 (tag), 14 (protocol) and 23 (entity)
    // are not mapped.
    if matches!(token_type, 12 | 13 | 14 | 23) || !(1..=23).contains(&token_type) {
        return None;
    }
    // asciiword, word, hword_part, hword_asciipart, asciihword, hword.
    let stemmed = matches!(token_type, 1 | 2 | 10 | 11 | 16 | 17);
    Some(if cfg == ENGLISH_OID && stemmed {
        Dict::EnglishStem
    } else {
        Dict::Simple
    })
}

fn stop_words() -> &'static std::collections::HashSet<&'static str> {
    static S: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| {
        ENGLISH_STOP
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect()
    })
}

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static S: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    S.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

/// A dictionary's answer for a token: Some(lexeme), or None for a stop
/// word.
pub fn lexize(d: Dict, token: &str) -> Option<String> {
    // lowerstr under the C locale Nestor's databases have: ASCII letters
    // only.
    let lower = token.to_ascii_lowercase();
    match d {
        Dict::Simple => Some(lower).filter(|l| !l.is_empty()),
        Dict::EnglishStem => {
            if lower.len() > STEM_INPUT_MAX {
                Some(lower)
            } else if lower.is_empty() || stop_words().contains(lower.as_str()) {
                None
            } else {
                Some(stemmer().stem(&lower).into_owned())
            }
        }
    }
}

/// Whether configuration `cfg` exists (42704 otherwise, as a regconfig
/// OID that names none would give).
pub fn check_config(cfg: u32) -> Result<(), DbError> {
    match config_name(cfg) {
        Some(_) => Ok(()),
        None => Err(DbError::new(
            SqlState::UndefinedObject,
            format!("cache lookup failed for text search configuration {cfg}"),
        )),
    }
}

/// One parsed word (ParsedWord): lexeme and position.
pub struct Word {
    pub lexeme: String,
    pub pos: u32,
}

/// parsetext: the lexemes of `text` under configuration `cfg`, positions
/// counting from `*pos` (advanced).
pub fn parse_text(cfg: u32, text: &str, pos: &mut u32, notices: &mut Vec<String>) -> Vec<Word> {
    let mut out = Vec::new();
    for (ty, tok) in parser::tokens(text) {
        if ty == SPACE {
            continue;
        }
        if tok.len() >= STR_LEN_MAX {
            notices.push(WORD_TOO_LONG.into());
            continue;
        }
        let Some(d) = dictionary(cfg, ty) else {
            continue;
        };
        *pos = pos.saturating_add(1);
        if let Some(lexeme) = lexize(d, &tok) {
            out.push(Word { lexeme, pos: *pos });
        }
    }
    out
}

/// make_tsvector from parsed words.
pub fn make_tsvector(words: Vec<Word>) -> Result<TsVector, DbError> {
    let entries = words
        .into_iter()
        .map(|w| Lexeme {
            word: w.lexeme.into(),
            pos: vec![make_pos(w.pos, 0)],
        })
        .collect();
    let v = TsVector::from_unsorted(entries);
    let size = v.pg_size() - 8 - 4 * v.entries.len();
    if size > STR_POS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("string is too long for tsvector ({size} bytes, max {STR_POS_MAX} bytes)"),
        ));
    }
    Ok(v)
}

/// to_tsvector(cfg, text).
pub fn to_tsvector(cfg: u32, text: &str, notices: &mut Vec<String>) -> Result<TsVector, DbError> {
    check_config(cfg)?;
    let mut pos = 0;
    make_tsvector(parse_text(cfg, text, &mut pos, notices))
}

/// pushval_morph: an operand word parsed with the configuration, its
/// lexemes joined by `op` (`&` or `<->`), gaps of stop words as
/// placeholders.
struct Morph {
    cfg: u32,
    phrase: bool,
    notices: Vec<String>,
}

impl Morph {
    fn op(&self) -> Tok {
        if self.phrase {
            Tok::Phrase(1)
        } else {
            Tok::And
        }
    }
}

impl PushVal for Morph {
    fn push(
        &mut self,
        b: &mut Builder,
        word: &str,
        weight: u8,
        prefix: bool,
    ) -> Result<(), DbError> {
        let mut p = 0;
        let words = parse_text(self.cfg, word, &mut p, &mut self.notices);
        if words.is_empty() {
            b.stop();
            return Ok(());
        }
        let mut pos = 0u32;
        let mut cntpos = 0;
        for w in words {
            if pos > 0 && pos + 1 < w.pos {
                while pos + 1 < w.pos {
                    b.stop();
                    if cntpos > 0 {
                        b.operator(&self.op())?;
                    }
                    cntpos += 1;
                    pos += 1;
                }
            }
            pos = w.pos;
            b.value(&w.lexeme, weight, prefix)?;
            if cntpos > 0 {
                b.operator(&self.op())?;
            }
            cntpos += 1;
        }
        Ok(())
    }
}

/// Which tokenizer a to_tsquery-family function reads its input with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// to_tsquery: the tsquery syntax, words through the configuration.
    Standard,
    /// plainto_tsquery: the whole text one operand, words ANDed.
    Plain,
    /// phraseto_tsquery: the whole text one operand, words in a phrase.
    Phrase,
    /// websearch_to_tsquery.
    Web,
}

/// The query and the notices PostgreSQL raises on the way.
pub fn to_tsquery(
    cfg: u32,
    text: &str,
    kind: QueryKind,
) -> Result<(TsQuery, Vec<String>), DbError> {
    check_config(cfg)?;
    let toks = match kind {
        QueryKind::Standard => query::tokens_standard(text)?,
        QueryKind::Plain | QueryKind::Phrase => {
            if text.is_empty() {
                Vec::new()
            } else {
                vec![Tok::Val(text.to_string(), 0, false)]
            }
        }
        QueryKind::Web => tokens_web(text),
    };
    let mut b = Builder::new(text);
    let mut m = Morph {
        cfg,
        phrase: kind != QueryKind::Plain,
        notices: Vec::new(),
    };
    query::build(&toks, &mut b, &mut m)?;
    let mut notices = m.notices;
    let none_at_all = b.is_empty();
    let (q, stopped) = b.finish()?;
    if none_at_all {
        notices.push(format!(
            "text-search query doesn't contain lexemes: \"{text}\""
        ));
    } else if stopped && q.root.is_none() {
        notices.push(
            "text-search query contains only stop words or doesn't contain lexemes, ignored".into(),
        );
    }
    Ok((q, notices))
}

fn is_operator_char(c: char) -> bool {
    matches!(c, '!' | '&' | '|' | '(' | ')' | '<')
}

/// gettoken_query_websearch over the whole input: `-` is NOT, `"..."` a
/// phrase operand, `or` (not part of a word, with an operand after it)
/// is OR, operands side by side are ANDed, other operator characters
/// are ignored.
fn tokens_web(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut waiting_operand = true;
    // WAITFIRSTOPERAND: nothing but blanks read yet.
    let mut first = true;
    while i < chars.len() {
        let c = chars[i];
        if waiting_operand && super::parser::is_c_space(c) {
            i += 1;
            continue;
        }
        if waiting_operand {
            first = false;
        }
        if waiting_operand {
            if c == '-' {
                out.push(Tok::Not);
                i += 1;
            } else if c == '"' {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j] != '"' {
                    j += 1;
                }
                out.push(Tok::Val(chars[start..j].iter().collect(), 0, false));
                i = (j + 1).min(chars.len());
                waiting_operand = false;
            } else if is_operator_char(c) || super::parser::is_c_space(c) {
                i += 1;
            } else {
                let start = i;
                while i < chars.len()
                    && !super::parser::is_c_space(chars[i])
                    && !is_operator_char(chars[i])
                    && chars[i] != '"'
                    && (chars[i] != ':' || i == start)
                {
                    i += 1;
                }
                out.push(Tok::Val(chars[start..i].iter().collect(), 0, false));
                waiting_operand = false;
            }
        } else if let Some(n) = or_operator(&chars[i..]) {
            out.push(Tok::Or);
            i += n;
            waiting_operand = true;
        } else if is_operator_char(c) || super::parser::is_c_space(c) {
            i += 1;
        } else {
            out.push(Tok::And);
            waiting_operand = true;
        }
    }
    // Input ended where an operand was wanted: a placeholder stands for
    // it (pushStop), so an operator left hanging drops out.
    if waiting_operand && !first {
        out.push(Tok::Stop);
    }
    out
}

/// parse_or_operator: `or` not followed by a word character and with a
/// non-blank character somewhere after it.
fn or_operator(s: &[char]) -> Option<usize> {
    if s.len() < 2 || !s[0].eq_ignore_ascii_case(&'o') || !s[1].eq_ignore_ascii_case(&'r') {
        return None;
    }
    let next = *s.get(2)?;
    if next == '-' || next == '_' || next.is_ascii_alphabetic() || next.is_ascii_digit() {
        return None;
    }
    s[3..]
        .iter()
        .any(|c| !super::parser::is_c_space(*c))
        .then_some(2)
}

/// The text search setting's canonical value for a configuration name
/// (`pg_catalog.english`), or None if there is no such configuration.
pub fn setting_value(name: &str) -> Option<String> {
    let oid = config_oid(name).ok()?;
    config_name(oid).map(|n| format!("pg_catalog.{n}"))
}
