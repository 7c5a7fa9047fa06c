//! ts_headline: the document with the query's words marked, cut down to
//! the best passage (or several fragments), as the default parser's
//! headline function (prsd_headline) and generateHeadline make it.
//!
//! The text is split into the parser's tokens (blanks and tags included,
//! so the output keeps the original spelling); each token a configuration
//! maps takes the next position and, when its lexeme is a query operand,
//! points at that operand (hlparsetext / hlfinditem: a lexeme several
//! operands match gets a "repeated" copy per extra operand). A cover is
//! the shortest run of tokens whose operands satisfy the query (hlCover,
//! with the query evaluated over just that run). mark_hl_words picks the
//! cover-based headline with the most query words and a good end point
//! within MinWords..MaxWords; mark_hl_fragments (MaxFragments > 0) picks
//! up to that many non-overlapping covers and stretches each. Options are
//! parsed as deserialize_deflist does; every loop is bounded by the token
//! count (covers at most MaxWords * 10 tokens long, PostgreSQL's
//! max_cover).

use nestor_common::{DbError, SqlState};

use super::config;
use super::ops::{exec, PhraseData, Tern};
use super::parser;
use super::query::{Node, Operand, TsQuery};
use super::vector::{POS_MAX, STR_LEN_MAX};

const SPACE: u8 = 12;
const TAG: u8 = 13;
const URL: u8 = 5;
const NUMHWORD: u8 = 15;
const ASCIIHWORD: u8 = 16;
const HWORD: u8 = 17;

/// One token of the document (HeadlineWordEntry).
#[derive(Clone)]
struct Word {
    text: String,
    ty: u8,
    pos: u32,
    /// The operand this token's lexeme matches (its address, an identity).
    item: Option<usize>,
    repeated: bool,
    selected: bool,
    in_: bool,
    replace: bool,
    skip: bool,
}

fn non_word(t: u8) -> bool {
    t == SPACE || t == TAG || matches!(t, URL | NUMHWORD | ASCIIHWORD | HWORD)
}

fn no_end(t: u8) -> bool {
    // SCIENTIFIC, VERSIONNUMBER, DECIMAL_T, SIGNEDINT, UNSIGNEDINT and the
    // ignored types (tag, protocol, blank, entity).
    non_word(t) || matches!(t, 7 | 8 | 20 | 21 | 22 | 13 | 14 | 12 | 23)
}

/// The headline options (prsd_headline's).
struct Options {
    min_words: i32,
    max_words: i32,
    shortword: i32,
    max_fragments: i32,
    highlight_all: bool,
    start_sel: String,
    stop_sel: String,
    frag_delim: String,
}

/// deserialize_deflist: `key = value` pairs separated by commas or blanks;
/// a value may be quoted with `'` (E'' too) or `"`. An unquoted integer is
/// taken as the number it is (`05` is `5`).
fn parse_options(text: &str) -> Result<Vec<(String, String)>, DbError> {
    let bad = || {
        DbError::new(
            SqlState::SyntaxError,
            format!("invalid parameter list format: \"{text}\""),
        )
    };
    let b: Vec<char> = text.chars().collect();
    let sp = |c: char| parser::is_c_space(c);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // CS_WAITKEY
        if sp(b[i]) || b[i] == ',' {
            i += 1;
            continue;
        }
        let mut key = String::new();
        if b[i] == '"' {
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err(bad()),
                    Some('"') if b.get(i + 1) == Some(&'"') => {
                        key.push('"');
                        i += 2;
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some(c) => {
                        key.push(*c);
                        i += 1;
                    }
                }
            }
        } else {
            while i < b.len() && !sp(b[i]) && b[i] != '=' {
                key.push(b[i]);
                i += 1;
            }
        }
        // CS_WAITEQ
        while i < b.len() && sp(b[i]) {
            i += 1;
        }
        if b.get(i) != Some(&'=') {
            return Err(bad());
        }
        i += 1;
        // CS_WAITVALUE
        while i < b.len() && sp(b[i]) {
            i += 1;
        }
        let mut val = String::new();
        match b.get(i) {
            None => return Err(bad()),
            Some('\'') | Some('E') if b[i] == '\'' || b.get(i + 1) == Some(&'\'') => {
                i += if b[i] == 'E' { 2 } else { 1 };
                loop {
                    match b.get(i) {
                        None => return Err(bad()),
                        Some('\'') if b.get(i + 1) == Some(&'\'') => {
                            val.push('\'');
                            i += 2;
                        }
                        Some('\'') => {
                            i += 1;
                            break;
                        }
                        Some('\\') if b.get(i + 1) == Some(&'\\') => {
                            val.push('\\');
                            i += 2;
                        }
                        Some(c) => {
                            val.push(*c);
                            i += 1;
                        }
                    }
                }
            }
            Some('"') => {
                i += 1;
                loop {
                    match b.get(i) {
                        None => return Err(bad()),
                        Some('"') if b.get(i + 1) == Some(&'"') => {
                            val.push('"');
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(c) => {
                            val.push(*c);
                            i += 1;
                        }
                    }
                }
            }
            Some(_) => {
                while i < b.len() && b[i] != ',' && !sp(b[i]) {
                    val.push(b[i]);
                    i += 1;
                }
                if let Ok(n) = val.parse::<i64>() {
                    if i32::try_from(n).is_ok() {
                        val = n.to_string();
                    }
                }
            }
        }
        out.push((key, val));
    }
    Ok(out)
}

fn int_option(v: &str) -> Result<i32, DbError> {
    v.trim().parse::<i32>().map_err(|_| {
        DbError::new(
            SqlState::InvalidTextRepresentation,
            format!("invalid input syntax for type integer: \"{v}\""),
        )
    })
}

fn options(text: Option<&str>) -> Result<Options, DbError> {
    let mut o = Options {
        min_words: 15,
        max_words: 35,
        shortword: 3,
        max_fragments: 0,
        highlight_all: false,
        start_sel: "<b>".into(),
        stop_sel: "</b>".into(),
        frag_delim: " ... ".into(),
    };
    for (k, v) in parse_options(text.unwrap_or(""))? {
        match k.to_ascii_lowercase().as_str() {
            "maxwords" => o.max_words = int_option(&v)?,
            "minwords" => o.min_words = int_option(&v)?,
            "shortword" => o.shortword = int_option(&v)?,
            "maxfragments" => o.max_fragments = int_option(&v)?,
            "startsel" => o.start_sel = v,
            "stopsel" => o.stop_sel = v,
            "fragmentdelimiter" => o.frag_delim = v,
            "highlightall" => {
                o.highlight_all = matches!(
                    v.to_ascii_lowercase().as_str(),
                    "1" | "on" | "true" | "t" | "y" | "yes"
                )
            }
            _ => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized headline parameter: \"{k}\""),
                ))
            }
        }
    }
    let bad = |m: &str| Err(DbError::new(SqlState::InvalidParameterValue, m.to_string()));
    if !o.highlight_all {
        if o.min_words >= o.max_words {
            return bad("MinWords should be less than MaxWords");
        }
        if o.min_words <= 0 {
            return bad("MinWords should be positive");
        }
        if o.shortword < 0 {
            return bad("ShortWord should be >= 0");
        }
        if o.max_fragments < 0 {
            return bad("MaxFragments should be >= 0");
        }
    }
    for (name, v) in [
        ("StartSel", &o.start_sel),
        ("StopSel", &o.stop_sel),
        ("FragmentDelimiter", &o.frag_delim),
    ] {
        if v.len() > i16::MAX as usize {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("value for \"{name}\" is too long"),
            ));
        }
    }
    Ok(o)
}

/// The parsed document (HeadlineParsedText).
struct Doc {
    words: Vec<Word>,
    vectorpos: u32,
}

/// hlparsetext: tokens, positions and the operands they match.
fn parse_doc(doc: &mut Doc, cfg: u32, text: &str, ops: &[&Operand]) -> Result<(), DbError> {
    for (ty, tok) in parser::tokens(text) {
        if tok.len() >= STR_LEN_MAX {
            return Err(
                DbError::new(SqlState::ProgramLimitExceeded, config::WORD_TOO_LONG)
                    .with_detail("Words longer than 2047 characters are ignored."),
            );
        }
        doc.words.push(Word {
            text: tok.clone(),
            ty,
            pos: 0,
            item: None,
            repeated: false,
            selected: false,
            in_: false,
            replace: false,
            skip: false,
        });
        let Some(d) = config::dictionary(cfg, ty) else {
            continue;
        };
        doc.vectorpos += 1;
        let Some(lex) = config::lexize(d, &tok) else {
            continue;
        };
        let at = doc.words.len() - 1;
        doc.words[at].pos = doc.vectorpos.min(POS_MAX as u32);
        for o in ops {
            let hit = if o.prefix {
                lex.as_bytes().starts_with(o.word.as_bytes())
            } else {
                *lex == *o.word
            };
            if !hit {
                continue;
            }
            let id = *o as *const Operand as usize;
            if doc.words[at].item.is_some() {
                let mut copy = doc.words[at].clone();
                copy.item = Some(id);
                copy.repeated = true;
                doc.words.push(copy);
            } else {
                doc.words[at].item = Some(id);
            }
        }
    }
    Ok(())
}

fn first_index(words: &[Word], from: usize) -> Option<usize> {
    (from..words.len()).find(|i| words[*i].item.is_some())
}

/// hlCover: the earliest shortest run from `*p` satisfying the query.
fn cover(words: &[Word], root: &Node, max_cover: i64, p: &mut usize, q: &mut usize) -> bool {
    let mut pmin = first_index(words, *p);
    while let Some(lo) = pmin {
        let mut next_min = None;
        let mut pmax = Some(lo);
        while let Some(hi) = pmax {
            if hi as i64 - lo as i64 >= max_cover {
                break;
            }
            let run = &words[lo..=hi];
            let check = |o: &Operand, data: Option<&mut PhraseData>| -> Tern {
                let id = o as *const Operand as usize;
                match data {
                    None => {
                        if run.iter().any(|w| w.item == Some(id)) {
                            Tern::Yes
                        } else {
                            Tern::No
                        }
                    }
                    Some(d) => {
                        for w in run.iter().filter(|w| w.item == Some(id)) {
                            if d.pos.last().is_none_or(|l| *l < w.pos) {
                                d.pos.push(w.pos);
                            }
                        }
                        if d.pos.is_empty() {
                            Tern::No
                        } else {
                            Tern::Yes
                        }
                    }
                }
            };
            if exec(root, &check, 0).is_ok_and(|t| t != Tern::No) {
                *p = lo;
                *q = hi;
                return true;
            }
            let nxt = first_index(words, hi + 1);
            if hi == lo {
                next_min = nxt;
            }
            pmax = nxt;
        }
        pmin = next_min;
    }
    false
}

fn interesting(w: &Word) -> bool {
    w.item.is_some() && !w.repeated
}

fn bad_end(w: &Word, shortword: i32) -> bool {
    (no_end(w.ty) || w.text.len() as i64 <= shortword as i64) && !interesting(w)
}

fn mark_fragment(words: &mut [Word], highlight_all: bool, start: i64, end: i64) {
    if start < 0 {
        return;
    }
    for w in words
        .iter_mut()
        .take((end + 1).max(0) as usize)
        .skip(start as usize)
    {
        if w.item.is_some() {
            w.selected = true;
        }
        if !highlight_all {
            if w.ty == TAG {
                w.replace = true;
            } else if matches!(w.ty, URL | NUMHWORD | ASCIIHWORD | HWORD) {
                w.skip = true;
            }
        } else if matches!(w.ty, URL | NUMHWORD | ASCIIHWORD | HWORD) {
            w.skip = true;
        }
        w.in_ = !w.repeated;
    }
}

fn count(w: &Word) -> i32 {
    i32::from(!non_word(w.ty))
}

/// mark_hl_words.
fn mark_words(words: &mut [Word], root: Option<&Node>, o: &Options, max_cover: i64) {
    let n = words.len() as i64;
    let (mut bestb, mut beste): (i64, i64) = (-1, -1);
    if o.highlight_all {
        mark_fragment(words, true, 0, n - 1);
        return;
    }
    let mut bestlen: i64 = -1;
    let mut bestcover = false;
    let (mut p, mut q) = (0usize, 0usize);
    let sw = o.shortword;
    let w = |i: i64, words: &[Word]| words[i as usize].clone();
    while let Some(root) = root.filter(|r| cover(words, r, max_cover, &mut p, &mut q)) {
        let _ = root;
        let (pi, qi) = (p as i64, q as i64);
        let mut curlen = 0;
        let mut poslen = 0i64;
        let mut posb = pi;
        let mut pose = pi;
        let mut i = pi;
        while i <= qi && curlen < o.max_words {
            curlen += count(&words[i as usize]);
            if interesting(&words[i as usize]) {
                poslen += 1;
            }
            pose = i;
            i += 1;
        }
        if curlen < o.max_words {
            i -= 1;
            while i < n && curlen < o.max_words {
                if i > qi {
                    curlen += count(&words[i as usize]);
                    if interesting(&words[i as usize]) {
                        poslen += 1;
                    }
                }
                pose = i;
                if bad_end(&words[i as usize], sw) {
                    i += 1;
                    continue;
                }
                if curlen >= o.min_words {
                    break;
                }
                i += 1;
            }
            if curlen < o.min_words {
                i = pi - 1;
                while i >= 0 {
                    curlen += count(&words[i as usize]);
                    if interesting(&words[i as usize]) {
                        poslen += 1;
                    }
                    if curlen >= o.max_words {
                        break;
                    }
                    if bad_end(&words[i as usize], sw) {
                        i -= 1;
                        continue;
                    }
                    if curlen >= o.min_words {
                        break;
                    }
                    i -= 1;
                }
                posb = i.max(0);
            }
        } else {
            if i > qi {
                i = qi;
            }
            // (PostgreSQL stops at the cover's first word, which is a
            // query word; the bound keeps a cover of repeated copies in
            // range.)
            while curlen > o.min_words && i >= 0 {
                if !bad_end(&words[i as usize], sw) {
                    break;
                }
                curlen -= count(&words[i as usize]);
                if interesting(&words[i as usize]) {
                    poslen -= 1;
                }
                pose = i - 1;
                i -= 1;
            }
        }
        let poscover = posb <= pi && pose >= qi;
        let pose_bad = pose >= 0 && bad_end(&w(pose, words), sw);
        let beste_bad = beste < 0 || bad_end(&w(beste, words), sw);
        if (poscover && !bestcover)
            || (poscover == bestcover && poslen > bestlen)
            || (poscover == bestcover && poslen == bestlen && !pose_bad && beste_bad)
        {
            bestb = posb;
            beste = pose;
            bestlen = poslen;
            bestcover = poscover;
        }
        p += 1;
    }
    if bestlen < 0 {
        let mut curlen = 0;
        let mut pose = -1;
        let mut i = 0;
        while i < n && curlen < o.min_words {
            curlen += count(&words[i as usize]);
            pose = i;
            i += 1;
        }
        bestb = 0;
        beste = pose;
    }
    mark_fragment(words, false, bestb, beste);
}

#[derive(Clone)]
struct CoverPos {
    start: i64,
    end: i64,
    curlen: i32,
    poslen: i32,
    chosen: bool,
    excluded: bool,
}

/// get_next_fragment.
fn next_fragment(words: &[Word], start: &mut i64, end: &mut i64, max_words: i32) -> (i32, i32) {
    let mut i = *start;
    while i <= *end {
        *start = i;
        if interesting(&words[i as usize]) {
            break;
        }
        i += 1;
    }
    let (mut curlen, mut poslen) = (0, 0);
    i = *start;
    while i <= *end && curlen < max_words {
        curlen += count(&words[i as usize]);
        if interesting(&words[i as usize]) {
            poslen += 1;
        }
        i += 1;
    }
    if *end > i {
        *end = i;
        let mut j = *end;
        while j >= *start {
            *end = j;
            if interesting(&words[j as usize]) {
                break;
            }
            curlen -= count(&words[j as usize]);
            j -= 1;
        }
    }
    (curlen, poslen)
}

/// mark_hl_fragments.
fn mark_fragments(words: &mut [Word], root: Option<&Node>, o: &Options, max_cover: i64) {
    let n = words.len() as i64;
    let sw = o.shortword;
    let mut covers: Vec<CoverPos> = Vec::new();
    let (mut p, mut q) = (0usize, 0usize);
    while let Some(_r) = root.filter(|r| cover(words, r, max_cover, &mut p, &mut q)) {
        let mut start = p as i64;
        let mut end = q as i64;
        while start <= end {
            let (curlen, poslen) = next_fragment(words, &mut start, &mut end, o.max_words);
            covers.push(CoverPos {
                start,
                end,
                curlen,
                poslen,
                chosen: false,
                excluded: false,
            });
            start = end + 1;
            end = q as i64;
        }
        p += 1;
    }
    let mut num_f = 0;
    for _ in 0..o.max_fragments {
        let mut maxitems = 0;
        let mut minwords = i32::MAX;
        let mut min_i: Option<usize> = None;
        for (i, c) in covers.iter().enumerate() {
            if !c.chosen
                && !c.excluded
                && (maxitems < c.poslen || (maxitems == c.poslen && minwords > c.curlen))
            {
                maxitems = c.poslen;
                minwords = c.curlen;
                min_i = Some(i);
            }
        }
        let Some(mi) = min_i else {
            break;
        };
        covers[mi].chosen = true;
        let mut start = covers[mi].start;
        let mut end = covers[mi].end;
        let mut curlen = covers[mi].curlen;
        if curlen < o.max_words {
            let maxstretch = (o.max_words - curlen) / 2;
            let mut stretch = 0;
            let mut posmarker = start;
            let mut i = start - 1;
            while i >= 0 && stretch < maxstretch && !words[i as usize].in_ {
                if !non_word(words[i as usize].ty) {
                    curlen += 1;
                    stretch += 1;
                }
                posmarker = i;
                i -= 1;
            }
            i = posmarker;
            while i < start && bad_end(&words[i as usize], sw) {
                curlen -= count(&words[i as usize]);
                i += 1;
            }
            start = i;
            posmarker = end;
            i = end + 1;
            while i < n && curlen < o.max_words && !words[i as usize].in_ {
                curlen += count(&words[i as usize]);
                posmarker = i;
                i += 1;
            }
            i = posmarker;
            while i > end && bad_end(&words[i as usize], sw) {
                curlen -= count(&words[i as usize]);
                i -= 1;
            }
            end = i;
        }
        covers[mi].start = start;
        covers[mi].end = end;
        covers[mi].curlen = curlen;
        mark_fragment(words, o.highlight_all, start, end);
        num_f += 1;
        for (i, c) in covers.iter_mut().enumerate() {
            if i != mi
                && ((c.start >= start && c.start <= end)
                    || (c.end >= start && c.end <= end)
                    || (c.start < start && c.end > end))
            {
                c.excluded = true;
            }
        }
    }
    if num_f == 0 {
        let (mut curlen, mut endpos) = (0, -1);
        let mut i = 0;
        while i < n && curlen < o.min_words {
            curlen += count(&words[i as usize]);
            endpos = i;
            i += 1;
        }
        mark_fragment(words, o.highlight_all, 0, endpos);
    }
}

/// generateHeadline.
fn generate(words: &[Word], o: &Options) -> String {
    let mut out = String::new();
    let mut infrag = false;
    let mut nfrag = 0;
    for w in words {
        if w.in_ && !w.repeated {
            if !infrag {
                infrag = true;
                nfrag += 1;
                if nfrag > 1 {
                    out.push_str(&o.frag_delim);
                }
            }
            if w.replace {
                out.push(' ');
            } else if !w.skip {
                if w.selected {
                    out.push_str(&o.start_sel);
                }
                out.push_str(&w.text);
                if w.selected {
                    out.push_str(&o.stop_sel);
                }
            }
        } else if !w.repeated {
            infrag = false;
        }
    }
    out
}

/// A headline maker for one query and option set (JSON documents make
/// one per string value, with positions running on across them).
pub struct Headliner<'q> {
    cfg: u32,
    query: &'q TsQuery,
    ops: Vec<&'q Operand>,
    opts: Options,
    vectorpos: u32,
}

impl<'q> Headliner<'q> {
    pub fn new(cfg: u32, query: &'q TsQuery, opts: Option<&str>) -> Result<Headliner<'q>, DbError> {
        config::check_config(cfg)?;
        let mut ops = Vec::new();
        if let Some(r) = &query.root {
            r.operands_pg_order(&mut ops);
        }
        Ok(Headliner {
            cfg,
            query,
            ops,
            opts: options(opts)?,
            vectorpos: 0,
        })
    }

    /// The headline of one text.
    pub fn headline(&mut self, text: &str) -> Result<String, DbError> {
        let mut doc = Doc {
            words: Vec::new(),
            vectorpos: self.vectorpos,
        };
        parse_doc(&mut doc, self.cfg, text, &self.ops)?;
        self.vectorpos = doc.vectorpos;
        let o = &self.opts;
        let mut max_cover = (o.max_words as i64 * 10).max(100);
        if o.max_fragments > 0 {
            max_cover *= o.max_fragments as i64;
        }
        let root = self.query.root.as_ref();
        if o.max_fragments == 0 {
            mark_words(&mut doc.words, root, o, max_cover);
        } else {
            mark_fragments(&mut doc.words, root, o, max_cover);
        }
        Ok(generate(&doc.words, o))
    }
}
