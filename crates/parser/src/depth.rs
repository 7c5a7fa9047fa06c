//! A lexical upper bound on how deeply a statement nests, computed before
//! it is handed to libpg_query, whose tree output recurses once per level
//! in C (a 100,000-term `1+1+…` overflowed the thread's stack and aborted
//! the server). Statements whose bound passes EXPRESSION_DEPTH_MAX are
//! refused with 54001, as PostgreSQL refuses them when it transforms them.
//!
//! The bound follows how PostgreSQL's grammar builds trees:
//!
//! ```text
//!   1 + 1 + 1 + 1          left-deep A_Expr chain: one level per operator
//!   f(g(h(x)))  ((x))      one level per parenthesis / bracket group
//!   CASE … CASE … END END  one level per CASE
//!   a JOIN b JOIN c        left-deep JoinExpr chain; UNION/INTERSECT/EXCEPT too
//!   a AND b AND c          flat (the grammar flattens AND and OR chains
//!                          into one BoolExpr: two levels, then each operand)
//!   VALUES (…), (…), …     flat: a comma starts a new element at its level
//! ```
//!
//! Each operator *character* counts as a level (`<=` counts two), each
//! keyword operator one, so the bound is never below the real depth; a
//! comma resets the count of its level (list elements are siblings).
//! Literals, quoted identifiers and comments are skipped. The bound costs
//! one pass over the text and is only computed for texts long enough to
//! exceed the limit at all (two bytes per level at least).

use crate::lex;
use nestor_common::limits::{EXPRESSION_DEPTH_MAX, NESTING_TOKENS_MAX};

/// Whether `text` might nest deeper than EXPRESSION_DEPTH_MAX: its
/// structured bound says so, or, as a backstop for shapes the structure
/// misjudges, it holds more than NESTING_TOKENS_MAX tokens that can nest at
/// all (no tree is deeper than the count of such tokens, and session
/// stacks hold that many levels).
pub fn may_be_too_deep(text: &str) -> bool {
    if text.len() / 2 <= EXPRESSION_DEPTH_MAX {
        return false;
    }
    let b = scan(text);
    b.depth > EXPRESSION_DEPTH_MAX || b.tokens > NESTING_TOKENS_MAX
}

#[derive(Default, Clone, Copy)]
struct Level {
    /// Operators in the current list element.
    ops: usize,
    /// Deepest group (parentheses, CASE) in the current element.
    child: usize,
    /// Deepest element of this level so far.
    best: usize,
    /// Opened by CASE (closed by END) rather than a bracket.
    case: bool,
    /// An AND or OR was met: the elements it separates hang below a
    /// BoolExpr (two levels with its list).
    boolean: bool,
    /// JOINs and UNION/INTERSECT/EXCEPT at this level: their chains nest
    /// across commas and AND/OR, so they are never reset.
    chain: usize,
}

impl Level {
    fn element(&self) -> usize {
        self.ops + self.child
    }
    fn depth(&self) -> usize {
        self.best.max(self.element()) + 2 * usize::from(self.boolean) + self.chain
    }
    /// End the current list element (at a comma, AND or OR).
    fn next_element(&mut self) {
        self.best = self.best.max(self.element());
        self.ops = 0;
        self.child = 0;
    }
}

/// Keywords that nest (operators the grammar does not flatten, and the
/// left-deep join and set-operation chains).
const NESTING_KEYWORDS: &[&str] = &[
    "not", "is", "isnull", "notnull", "like", "ilike", "similar", "between", "in", "overlaps",
    "at", "collate", "escape", "operator",
];

/// Keywords whose chains nest across commas and AND/OR.
const CHAIN_KEYWORDS: &[&str] = &["join", "union", "intersect", "except"];

/// The structured bound and the count of tokens that can nest.
struct Bound {
    depth: usize,
    tokens: usize,
}

/// An upper bound on the depth of the parse tree of `text`.
pub fn nesting_bound(text: &str) -> usize {
    scan(text).depth
}

fn scan(text: &str) -> Bound {
    let mut tokens = 0;
    let b = text.as_bytes();
    let mut levels = vec![Level::default()];
    let mut worst = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            // (Unterminated: the rest of the text, which libpg_query rejects.)
            b'\'' => i = lex::quoted_end(b, i, lex::e_prefixed(b, i)).unwrap_or(b.len()),
            b'"' => i = lex::quoted_end(b, i, false).unwrap_or(b.len()),
            b'-' if b.get(i + 1) == Some(&b'-') => i = lex::line_comment_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = lex::block_comment_end(b, i).unwrap_or(b.len())
            }
            b'$' => i = skip_dollar(b, i),
            b'(' | b'[' => {
                tokens += 1;
                levels.push(Level::default());
                i += 1;
            }
            b')' | b']' => {
                close(&mut levels, false);
                i += 1;
            }
            b',' => {
                levels
                    .last_mut()
                    .expect("the outermost level stays")
                    .next_element();
                i += 1;
            }
            b';' if levels.len() == 1 => {
                worst = worst.max(levels[0].depth());
                levels[0] = Level::default();
                i += 1;
            }
            b'+' | b'-' | b'*' | b'/' | b'<' | b'>' | b'=' | b'~' | b'!' | b'@' | b'#' | b'%'
            | b'^' | b'&' | b'|' | b'`' | b'?' | b':' => {
                tokens += 1;
                levels.last_mut().expect("outermost").ops += 1;
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && lex::is_ident(b[i]) {
                    i += 1;
                }
                let word = &text[start..i];
                if word.eq_ignore_ascii_case("case") {
                    tokens += 1;
                    levels.push(Level {
                        case: true,
                        ..Level::default()
                    });
                } else if word.eq_ignore_ascii_case("end") {
                    close(&mut levels, true);
                } else if word.eq_ignore_ascii_case("and") || word.eq_ignore_ascii_case("or") {
                    let top = levels.last_mut().expect("outermost");
                    top.next_element();
                    top.boolean = true;
                } else if NESTING_KEYWORDS
                    .iter()
                    .any(|k| word.eq_ignore_ascii_case(k))
                {
                    tokens += 1;
                    levels.last_mut().expect("outermost").ops += 1;
                } else if CHAIN_KEYWORDS.iter().any(|k| word.eq_ignore_ascii_case(k)) {
                    tokens += 1;
                    levels.last_mut().expect("outermost").chain += 1;
                }
            }
            _ => i += 1,
        }
    }
    while levels.len() > 1 {
        close(&mut levels, false);
    }
    Bound {
        depth: worst.max(levels[0].depth()),
        tokens,
    }
}

/// Close the innermost group (a bracket, or a CASE at END) into its parent.
/// Unbalanced input (the parser will reject it) closes nothing.
fn close(levels: &mut Vec<Level>, at_end: bool) {
    if levels.len() < 2 || (at_end && !levels.last().expect("non-empty").case) {
        return;
    }
    let inner = levels.pop().expect("len >= 2");
    let top = levels.last_mut().expect("len >= 1");
    top.child = top.child.max(1 + inner.depth());
}

/// Past a dollar-quoted string `$tag$…$tag$` starting at `i`, or past a `$`
/// that starts none (a parameter `$1`).
fn skip_dollar(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_' || b[j] >= 0x80) {
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] >= 0x80) {
            j += 1;
        }
    }
    if b.get(j) != Some(&b'$') {
        return i + 1;
    }
    let tag = &b[i..=j];
    let body = j + 1;
    b[body..]
        .windows(tag.len())
        .position(|w| w == tag)
        .map_or(b.len(), |p| body + p + tag.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(op: &str, n: usize) -> String {
        format!("SELECT {}", vec!["1"; n].join(op))
    }

    #[test]
    fn deep_shapes_are_bounded_from_above() {
        assert!(nesting_bound(&chain("+", 1000)) >= 999);
        assert!(nesting_bound(&chain(" || ", 1000)) >= 999);
        let parens = format!("SELECT {}1{}", "(".repeat(500), ")".repeat(500));
        assert!(nesting_bound(&parens) >= 500);
        let calls = format!("SELECT {}x{}", "abs(".repeat(300), ")".repeat(300));
        assert!(nesting_bound(&calls) >= 300);
        let cases = format!(
            "SELECT {}1{}",
            "CASE WHEN true THEN ".repeat(200),
            " END".repeat(200)
        );
        assert!(nesting_bound(&cases) >= 200);
        let nots = format!("SELECT {}true", "NOT ".repeat(400));
        assert!(nesting_bound(&nots) >= 400);
        let joins = format!("SELECT 1 FROM t{}", " JOIN t ON true".repeat(300));
        assert!(nesting_bound(&joins) >= 300);
        let unions = vec!["SELECT 1"; 300].join(" UNION ");
        assert!(nesting_bound(&unions) >= 299);
    }

    #[test]
    fn wide_statements_stay_shallow() {
        let values: Vec<String> = (0..20_000).map(|i| format!("({i}, 'a+b', -{i})")).collect();
        let insert = format!("INSERT INTO t VALUES {}", values.join(", "));
        assert!(nesting_bound(&insert) < 10, "{}", nesting_bound(&insert));
        let in_list: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
        let sel = format!(
            "SELECT * FROM t WHERE a IN ({}) AND b = 1",
            in_list.join(",")
        );
        assert!(nesting_bound(&sel) < 10);
        let ors: Vec<String> = (0..5_000).map(|i| format!("a = {i}")).collect();
        assert!(nesting_bound(&format!("SELECT 1 WHERE {}", ors.join(" OR "))) < 10);
        let whens: Vec<String> = (0..5_000).map(|i| format!("WHEN {i} THEN {i}")).collect();
        let bulk = format!("UPDATE t SET v = CASE id {} END", whens.join(" "));
        assert!(nesting_bound(&bulk) < 10, "{}", nesting_bound(&bulk));
    }

    #[test]
    fn literals_and_comments_do_not_count() {
        let ops = "+".repeat(50_000);
        for text in [
            format!("SELECT '{ops}'"),
            format!("SELECT E'\\'{ops}'"),
            format!("SELECT $q${ops}$q$"),
            format!("SELECT $${ops}$$"),
            format!("SELECT \"{ops}\" FROM t"),
            format!("SELECT 1 -- {ops}\n"),
            format!("SELECT 1 /* /* {ops} */ {ops} */"),
        ] {
            assert!(nesting_bound(&text) < 5, "{}", &text[..20]);
        }
        // A parameter is not a dollar quote.
        assert!(nesting_bound(&format!("SELECT $1{}", "+$1".repeat(100))) >= 100);
    }

    #[test]
    fn shapes_that_once_slipped_through_are_bounded() {
        let n = 20_000;
        let sum = vec!["1"; n].join("+");
        for text in [
            format!("SELECT --\r{sum}"),
            format!("SELECT a$e'\\' +{sum}, 'x'"),
            format!("SELECT 1{}", " OPERATOR(+) 1".repeat(n)),
            vec!["SELECT 1, 2"; n].join(" UNION "),
            format!("SELECT 1 FROM t{}", " JOIN t ON a AND b".repeat(n)),
        ] {
            assert!(may_be_too_deep(&text), "{}", &text[..40]);
        }
        // The backstop: more nesting tokens than a stack may hold levels.
        let flat: Vec<String> = (0..40_000).map(|i| format!("(-{i})")).collect();
        assert!(may_be_too_deep(&format!(
            "SELECT * FROM (VALUES {}) v",
            flat.join(",")
        )));
    }

    #[test]
    fn statements_are_bounded_one_by_one() {
        let text = format!("{}; SELECT 1", chain("+", 100));
        assert!(nesting_bound(&text) >= 99);
        assert!(
            !may_be_too_deep(&chain("+", 1000)),
            "short texts are not scanned"
        );
        assert!(may_be_too_deep(&chain("+", 100_000)));
    }
}
