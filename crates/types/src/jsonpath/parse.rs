//! jsonpath text → [`JsonPath`] tree, and the tree → PostgreSQL's
//! normalised text.
//!
//! A hand-written lexer and a recursive-descent parser for PostgreSQL 15's
//! grammar (jsonpath_gram.y). The grammar separates *expressions* (paths,
//! literals, arithmetic) from *predicates* (comparisons, `&&`, `||`, `!`,
//! `exists`, `like_regex`, `starts with`, `is unknown`); the parser reads
//! both with one precedence ladder and checks the kind where the grammar
//! wants one (a filter holds a predicate, `+` takes expressions...),
//! reporting PostgreSQL's `syntax error at or near "tok" of jsonpath
//! input`. Nesting is counted and bounded by
//! [`nestor_common::limits::JSONPATH_DEPTH_MAX`].

use std::fmt::Write;

use nestor_common::limits::JSONPATH_DEPTH_MAX;
use nestor_common::{DbError, SqlState};

use crate::json::{write_json_string, Json};
use crate::numeric::Numeric;

/// A parsed jsonpath: its mode and its expression.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    pub strict: bool,
    pub expr: Expr,
}

/// Binary operators, in PostgreSQL's priority classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    StartsWith,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::StartsWith => "starts with",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }

    fn priority(self) -> u8 {
        match self {
            BinOp::Or => 0,
            BinOp::And => 1,
            BinOp::Eq
            | BinOp::Ne
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::StartsWith => 2,
            BinOp::Add | BinOp::Sub => 3,
            BinOp::Mul | BinOp::Div | BinOp::Mod => 4,
        }
    }

    pub fn is_arith(self) -> bool {
        self.priority() >= 3
    }
}

/// Item methods (`.type()` ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Type,
    Size,
    Double,
    Abs,
    Floor,
    Ceiling,
    KeyValue,
    Datetime,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Type => "type",
            Method::Size => "size",
            Method::Double => "double",
            Method::Abs => "abs",
            Method::Floor => "floor",
            Method::Ceiling => "ceiling",
            Method::KeyValue => "keyvalue",
            Method::Datetime => "datetime",
        }
    }
}

/// Where a path starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Primary {
    Root,
    Current,
    Last,
    Var(String),
    Literal(Json),
    /// `( expr )` followed by accessors.
    Paren(Box<Expr>),
}

/// One accessor of a path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    AnyKey,
    AnyArray,
    /// `[a, b to c]`.
    Index(Vec<(Expr, Option<Expr>)>),
    /// `.**{first to last}`; `u32::MAX` is `last`.
    Any {
        first: u32,
        last: u32,
    },
    Filter(Box<Expr>),
    Method(Method),
}

/// An expression or predicate.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Path(Primary, Vec<Step>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Unary minus (true) or plus.
    Unary(bool, Box<Expr>),
    Not(Box<Expr>),
    IsUnknown(Box<Expr>),
    Exists(Box<Expr>),
    LikeRegex {
        expr: Box<Expr>,
        pattern: String,
        flags: String,
    },
}

impl Expr {
    /// Is this a predicate (boolean-valued, three-valued logic)?
    pub fn is_predicate(&self) -> bool {
        match self {
            Expr::Binary(op, ..) => !op.is_arith(),
            Expr::Not(_) | Expr::IsUnknown(_) | Expr::Exists(_) | Expr::LikeRegex { .. } => true,
            Expr::Path(..) | Expr::Unary(..) => false,
        }
    }
}

// ----- lexer -------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Root,
    Var(String),
    Current,
    Str(String),
    Num(Numeric),
    /// An unquoted word (keywords included).
    Word(String),
    /// Punctuation and operators.
    P(&'static str),
    End,
}

struct Lexer<'a> {
    s: &'a str,
    i: usize,
}

fn syntax_error(near: Option<&str>) -> DbError {
    match near {
        Some(t) => DbError::new(
            SqlState::SyntaxError,
            format!("syntax error at or near \"{t}\" of jsonpath input"),
        ),
        None => DbError::new(
            SqlState::SyntaxError,
            "syntax error at end of jsonpath input",
        ),
    }
}

fn is_special(c: char) -> bool {
    matches!(
        c,
        '?' | '%'
            | '$'
            | '.'
            | '['
            | ']'
            | '{'
            | '}'
            | '('
            | ')'
            | '|'
            | '&'
            | '!'
            | '='
            | '<'
            | '>'
            | '@'
            | '#'
            | ','
            | '*'
            | ':'
            | '-'
            | '+'
            | '/'
            | '\\'
            | '"'
            | ' '
            | '\t'
            | '\n'
            | '\r'
            | '\u{c}'
    )
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }

    fn skip_ws(&mut self) {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t', '\n', '\r', '\u{c}']);
        self.i += r.len() - t.len();
    }

    /// The next token and its text (for error messages).
    fn next(&mut self) -> Result<(Tok, String), DbError> {
        self.skip_ws();
        let r = self.rest();
        let Some(c) = r.chars().next() else {
            return Ok((Tok::End, String::new()));
        };
        let start = self.i;
        let tok = match c {
            '$' => {
                let after = &r[1..];
                if after.starts_with('"') {
                    self.i += 1;
                    let name = self.string()?;
                    Tok::Var(name)
                } else {
                    self.i += 1;
                    let name = self.word()?;
                    if name.is_empty() {
                        Tok::Root
                    } else {
                        Tok::Var(name)
                    }
                }
            }
            '@' => {
                self.i += 1;
                Tok::Current
            }
            '"' => Tok::Str(self.string()?),
            '0'..='9' => self.number()?,
            '.' if r[1..].starts_with(|c: char| c.is_ascii_digit()) => self.number()?,
            _ => {
                const OPS: [&str; 27] = [
                    "**", "==", "!=", "<>", "<=", ">=", "&&", "||", "<", ">", "!", "=", "+", "-",
                    "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ".", "?", ":",
                ];
                if let Some(op) = OPS.iter().find(|op| r.starts_with(**op)) {
                    self.i += op.len();
                    Tok::P(op)
                } else if is_special(c) && c != '\\' {
                    self.i += c.len_utf8();
                    return Err(syntax_error(Some(&c.to_string())));
                } else {
                    Tok::Word(self.word()?)
                }
            }
        };
        Ok((tok, self.s[start..self.i].to_string()))
    }

    /// A double-quoted string at the cursor, unescaped.
    fn string(&mut self) -> Result<String, DbError> {
        self.i += 1;
        self.text(true)
    }

    /// An unquoted word at the cursor (escapes allowed), unescaped.
    fn word(&mut self) -> Result<String, DbError> {
        self.text(false)
    }

    /// Text up to the closing quote (consumed) or, unquoted, up to a
    /// special character; with JSON's escapes plus `\xHH`, `\u{H...}` and
    /// `\v`, as PostgreSQL's scanner reads them.
    fn text(&mut self, quoted: bool) -> Result<String, DbError> {
        let s = self.s;
        let mut out = String::new();
        let mut i = self.i;
        let near = |what: &str, from: usize, to: usize| {
            let to = (to.min(s.len())..=s.len())
                .find(|&e| s.is_char_boundary(e))
                .unwrap_or(s.len());
            DbError::new(
                SqlState::SyntaxError,
                format!("{what} at or near \"{}\" of jsonpath input", &s[from..to]),
            )
        };
        let hex_run = |from: usize, max: usize| {
            let n = s[from..]
                .bytes()
                .take(max)
                .take_while(u8::is_ascii_hexdigit)
                .count();
            (n, u32::from_str_radix(&s[from..from + n], 16).unwrap_or(0))
        };
        loop {
            let Some(c) = s[i..].chars().next() else {
                if quoted {
                    self.i = s.len();
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "unterminated quoted string at end of jsonpath input",
                    ));
                }
                break;
            };
            if quoted && c == '"' {
                i += 1;
                break;
            }
            if !quoted && c != '\\' && is_special(c) {
                break;
            }
            if c != '\\' {
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            let Some(e) = s[i + 1..].chars().next() else {
                return Err(syntax_error(None));
            };
            let esc = i;
            i += 1 + e.len_utf8();
            let cp = match e {
                'n' => '\n' as u32,
                't' => '\t' as u32,
                'b' => 8,
                'f' => 12,
                'r' => '\r' as u32,
                'v' => 11,
                'x' => {
                    let (n, v) = hex_run(i, 2);
                    if n != 2 {
                        return Err(near("invalid hex character sequence", esc, i + n));
                    }
                    i += 2;
                    v
                }
                'u' if s[i..].starts_with('{') => {
                    let (n, v) = hex_run(i + 1, 6);
                    if n == 0 || !s[i + 1 + n..].starts_with('}') {
                        return Err(near("invalid Unicode escape sequence", esc, i + 1 + n + 1));
                    }
                    i += n + 2;
                    v
                }
                'u' => {
                    let (n, mut v) = hex_run(i, 4);
                    if n != 4 {
                        return Err(near("invalid Unicode escape sequence", esc, i + n));
                    }
                    i += 4;
                    if (0xd800..0xdc00).contains(&v) {
                        let low = s[i..]
                            .strip_prefix("\\u")
                            .map(|_| hex_run(i + 2, 4))
                            .filter(|(n, l)| *n == 4 && (0xdc00..0xe000).contains(l));
                        let Some((_, low)) = low else {
                            return Err(DbError::new(
                                SqlState::SyntaxError,
                                "invalid Unicode surrogate pair of jsonpath input",
                            ));
                        };
                        i += 6;
                        v = 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00);
                    }
                    v
                }
                other => other as u32,
            };
            match char::from_u32(cp) {
                Some('\0') => {
                    return Err(DbError::new(
                        SqlState::UntranslatableCharacter,
                        "unsupported Unicode escape sequence",
                    )
                    .with_detail("\\u0000 cannot be converted to text."))
                }
                Some(ch) => out.push(ch),
                None => return Err(near("invalid Unicode escape sequence", esc, i)),
            }
        }
        self.i = i;
        Ok(out)
    }

    /// A numeric literal: digits, an optional fraction, an optional
    /// exponent; a letter right after it is PostgreSQL's trailing junk.
    fn number(&mut self) -> Result<Tok, DbError> {
        // PostgreSQL 15's scanner: an integer (`0` or no leading zero),
        // an optional `.digits*` (or `.digits+` alone), an optional
        // exponent; one more non-special character is trailing junk.
        let b = self.s.as_bytes();
        let start = self.i;
        let mut i = self.i;
        let digits = |mut i: usize| {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        if b[i] == b'0' {
            i += 1;
        } else if b[i] != b'.' {
            i = digits(i);
        }
        if i < b.len()
            && b[i] == b'.'
            && (i > start || b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = digits(i + 1);
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
                if !b.get(j).is_some_and(u8::is_ascii_digit) {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        format!(
                            "invalid numeric literal at or near \"{}\" of jsonpath input",
                            &self.s[start..j]
                        ),
                    ));
                }
            }
            if b.get(j).is_some_and(u8::is_ascii_digit) {
                i = digits(j);
            }
        }
        if let Some(c) = self.s[i..].chars().next().filter(|c| !is_special(*c)) {
            return Err(DbError::new(
                SqlState::SyntaxError,
                format!(
                    "trailing junk after numeric literal at or near \"{}\" of jsonpath input",
                    &self.s[start..i + c.len_utf8()]
                ),
            ));
        }
        self.i = i;
        let text = &self.s[start..i];
        let text = if text.starts_with('.') {
            format!("0{text}")
        } else {
            text.to_string()
        };
        let n = Numeric::parse(&text).map_err(|_| syntax_error(Some(&text)))?;
        Ok(Tok::Num(n))
    }
}

// ----- parser --------------------------------------------------------------------

/// Parser results: the error boxed, so the recursive frames stay small.
type PResult<T> = Result<T, Box<DbError>>;

struct Parser<'a> {
    lex: Lexer<'a>,
    tok: Tok,
    text: String,
    depth: usize,
}

fn kw(t: &Tok, word: &str) -> bool {
    matches!(t, Tok::Word(w) if w.eq_ignore_ascii_case(word))
}

fn method(word: &str) -> Option<Method> {
    Some(match word.to_ascii_lowercase().as_str() {
        "type" => Method::Type,
        "size" => Method::Size,
        "double" => Method::Double,
        "abs" => Method::Abs,
        "floor" => Method::Floor,
        "ceiling" => Method::Ceiling,
        "keyvalue" => Method::KeyValue,
        "datetime" => Method::Datetime,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn advance(&mut self) -> PResult<()> {
        let (t, s) = self.lex.next()?;
        self.tok = t;
        self.text = s;
        Ok(())
    }

    #[inline(never)]
    fn error(&self) -> Box<DbError> {
        Box::new(if self.tok == Tok::End {
            syntax_error(None)
        } else {
            syntax_error(Some(&self.text))
        })
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if matches!(self.tok, Tok::P(q) if q == p) {
            self.advance()
        } else {
            Err(self.error())
        }
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.tok, Tok::P(q) if q == p)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > JSONPATH_DEPTH_MAX {
            return Err(too_deep());
        }
        nestor_common::stack::check()?;
        Ok(())
    }

    fn want_pred(&self, e: Expr) -> PResult<Expr> {
        if e.is_predicate() {
            Ok(e)
        } else {
            Err(self.error())
        }
    }

    fn want_expr(&self, e: Expr) -> PResult<Expr> {
        if e.is_predicate() {
            Err(self.error())
        } else {
            Ok(e)
        }
    }

    /// `||` (lowest).
    fn or(&mut self) -> PResult<Expr> {
        self.enter()?;
        let mut l = self.and()?;
        while self.is("||") {
            let l2 = self.want_pred(l)?;
            self.advance()?;
            let r = self.and()?;
            let r = self.want_pred(r)?;
            l = Expr::Binary(BinOp::Or, Box::new(l2), Box::new(r));
        }
        self.depth -= 1;
        Ok(l)
    }

    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.not()?;
        while self.is("&&") {
            let l2 = self.want_pred(l)?;
            self.advance()?;
            let r = self.not()?;
            let r = self.want_pred(r)?;
            l = Expr::Binary(BinOp::And, Box::new(l2), Box::new(r));
        }
        Ok(l)
    }

    /// `! (predicate)` / `! exists (...)`, or a comparison.
    fn not(&mut self) -> PResult<Expr> {
        if self.is("!") {
            self.advance()?;
            self.enter()?;
            let e = if kw(&self.tok, "exists") {
                self.exists()?
            } else if self.is("(") {
                self.advance()?;
                let e = self.or()?;
                let e = self.want_pred(e)?;
                self.expect(")")?;
                e
            } else {
                return Err(self.error());
            };
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(e)));
        }
        self.comparison()
    }

    fn exists(&mut self) -> PResult<Expr> {
        self.advance()?;
        self.expect("(")?;
        let e = self.or()?;
        let e = self.want_expr(e)?;
        self.expect(")")?;
        Ok(Expr::Exists(Box::new(e)))
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let l = self.additive()?;
        let op = match &self.tok {
            Tok::P("==") => BinOp::Eq,
            Tok::P("!=") | Tok::P("<>") => BinOp::Ne,
            Tok::P("<") => BinOp::Lt,
            Tok::P("<=") => BinOp::Le,
            Tok::P(">") => BinOp::Gt,
            Tok::P(">=") => BinOp::Ge,
            t if kw(t, "starts") => {
                let l = self.want_expr(l)?;
                self.advance()?;
                if !kw(&self.tok, "with") {
                    return Err(self.error());
                }
                self.advance()?;
                let r = match &self.tok {
                    Tok::Str(s) => Expr::Path(Primary::Literal(Json::Str(s.clone())), vec![]),
                    Tok::Var(v) => Expr::Path(Primary::Var(v.clone()), vec![]),
                    _ => return Err(self.error()),
                };
                self.advance()?;
                return Ok(Expr::Binary(BinOp::StartsWith, Box::new(l), Box::new(r)));
            }
            t if kw(t, "like_regex") => {
                let l = self.want_expr(l)?;
                self.advance()?;
                let Tok::Str(pattern) = &self.tok else {
                    return Err(self.error());
                };
                let pattern = pattern.clone();
                self.advance()?;
                let mut flags = String::new();
                if kw(&self.tok, "flag") {
                    self.advance()?;
                    let Tok::Str(f) = &self.tok else {
                        return Err(self.error());
                    };
                    flags = f.clone();
                    self.advance()?;
                }
                let flags = regex_flags(&flags)?;
                super::eval::check_regex(&pattern, &flags)?;
                return Ok(Expr::LikeRegex {
                    expr: Box::new(l),
                    pattern,
                    flags,
                });
            }
            _ => return Ok(l),
        };
        let l = self.want_expr(l)?;
        self.advance()?;
        let r = self.additive()?;
        let r = self.want_expr(r)?;
        Ok(Expr::Binary(op, Box::new(l), Box::new(r)))
    }

    fn additive(&mut self) -> PResult<Expr> {
        let mut l = self.multiplicative()?;
        loop {
            let op = match self.tok {
                Tok::P("+") => BinOp::Add,
                Tok::P("-") => BinOp::Sub,
                _ => return Ok(l),
            };
            let l2 = self.want_expr(l)?;
            self.advance()?;
            let r = self.multiplicative()?;
            let r = self.want_expr(r)?;
            l = Expr::Binary(op, Box::new(l2), Box::new(r));
        }
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.tok {
                Tok::P("*") => BinOp::Mul,
                Tok::P("/") => BinOp::Div,
                Tok::P("%") => BinOp::Mod,
                _ => return Ok(l),
            };
            let l2 = self.want_expr(l)?;
            self.advance()?;
            let r = self.unary()?;
            let r = self.want_expr(r)?;
            l = Expr::Binary(op, Box::new(l2), Box::new(r));
        }
    }

    /// Signs before an operand, read in a loop (not one frame each).
    fn unary(&mut self) -> PResult<Expr> {
        let mut signs = Vec::new();
        loop {
            match self.tok {
                Tok::P("-") => signs.push(true),
                Tok::P("+") => signs.push(false),
                _ => break,
            }
            self.enter()?;
            self.advance()?;
        }
        if signs.is_empty() {
            return self.accessor();
        }
        let mut e = self.accessor()?;
        e = self.want_expr(e)?;
        for minus in signs.into_iter().rev() {
            self.depth -= 1;
            // PostgreSQL folds a sign into a numeric literal (makeItemUnary).
            e = match e {
                Expr::Path(Primary::Literal(Json::Num(n)), steps) if steps.is_empty() => {
                    let n = if minus { n.neg() } else { n };
                    Expr::Path(Primary::Literal(Json::Num(n)), vec![])
                }
                e => Expr::Unary(minus, Box::new(e)),
            };
        }
        Ok(e)
    }

    /// A primary and its accessors.
    fn accessor(&mut self) -> PResult<Expr> {
        let primary = match &self.tok {
            Tok::Root => Primary::Root,
            Tok::Current => Primary::Current,
            Tok::Var(v) => Primary::Var(v.clone()),
            Tok::Str(s) => Primary::Literal(Json::Str(s.clone())),
            Tok::Num(n) => Primary::Literal(Json::Num(n.clone())),
            t if kw(t, "true") => Primary::Literal(Json::Bool(true)),
            t if kw(t, "false") => Primary::Literal(Json::Bool(false)),
            t if kw(t, "null") => Primary::Literal(Json::Null),
            t if kw(t, "last") => Primary::Last,
            t if kw(t, "exists") => return self.exists(),
            Tok::P("(") => {
                self.advance()?;
                self.enter()?;
                let inner = self.or()?;
                self.expect(")")?;
                self.depth -= 1;
                let inner = if kw(&self.tok, "is") {
                    let inner = self.want_pred(inner)?;
                    self.advance()?;
                    if !kw(&self.tok, "unknown") {
                        return Err(self.error());
                    }
                    self.advance()?;
                    return Ok(Expr::IsUnknown(Box::new(inner)));
                } else {
                    inner
                };
                if !(self.is(".") || self.is("[") || self.is("?")) {
                    return Ok(inner);
                }
                match inner {
                    // `($.a).b` is `$.a.b`: the accessors continue the path.
                    Expr::Path(p, steps) => {
                        let mut steps = steps;
                        self.accessors(&mut steps)?;
                        return Ok(Expr::Path(p, steps));
                    }
                    inner => Primary::Paren(Box::new(inner)),
                }
            }
            _ => return Err(self.error()),
        };
        if !matches!(primary, Primary::Paren(_)) {
            self.advance()?;
        }
        let mut steps = Vec::new();
        self.accessors(&mut steps)?;
        Ok(Expr::Path(primary, steps))
    }

    /// Accessors after a primary, appended to `steps`.
    fn accessors(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        loop {
            match self.tok {
                Tok::P(".") => {
                    self.advance()?;
                    steps.push(self.dot_step()?);
                }
                Tok::P("[") => {
                    self.advance()?;
                    steps.push(self.subscripts()?);
                }
                Tok::P("?") => {
                    self.advance()?;
                    self.expect("(")?;
                    self.enter()?;
                    let e = self.or()?;
                    let e = self.want_pred(e)?;
                    self.depth -= 1;
                    self.expect(")")?;
                    steps.push(Step::Filter(Box::new(e)));
                }
                _ => return Ok(()),
            }
        }
    }

    /// After a `.`: a key, `*`, `**{...}` or a method.
    fn dot_step(&mut self) -> PResult<Step> {
        let step = match &self.tok {
            Tok::P("*") => Step::AnyKey,
            Tok::P("**") => {
                self.advance()?;
                if !self.is("{") {
                    return Ok(Step::Any {
                        first: 0,
                        last: u32::MAX,
                    });
                }
                self.advance()?;
                let first = self.level()?;
                let last = if kw(&self.tok, "to") {
                    self.advance()?;
                    self.level()?
                } else {
                    first
                };
                if !self.is("}") {
                    return Err(self.error());
                }
                Step::Any { first, last }
            }
            Tok::Str(s) => Step::Key(s.clone()),
            Tok::Var(_) | Tok::Root => {
                return Err(self.error());
            }
            Tok::Word(w) => {
                let w = w.clone();
                self.advance()?;
                if self.is("(") {
                    let Some(m) = method(&w) else {
                        return Err(self.error());
                    };
                    self.advance()?;
                    if m == Method::Datetime && !self.is(")") {
                        return Err(Box::new(DbError::unsupported(
                            "jsonpath item method .datetime() with a template",
                        )));
                    }
                    self.expect(")")?;
                    return Ok(Step::Method(m));
                }
                return Ok(Step::Key(w));
            }
            _ => return Err(self.error()),
        };
        self.advance()?;
        Ok(step)
    }

    /// A `.**` level: an integer or `last`.
    fn level(&mut self) -> PResult<u32> {
        let v = match &self.tok {
            t if kw(t, "last") => u32::MAX,
            Tok::Num(n) if n.scale() == 0 && n.signum() >= 0 => n
                .to_i64_rounded()
                .and_then(|v| u32::try_from(v).ok())
                .filter(|v| *v < u32::MAX)
                .ok_or_else(|| self.error())?,
            _ => return Err(self.error()),
        };
        self.advance()?;
        Ok(v)
    }

    /// After a `[`: `*]` or subscripts.
    fn subscripts(&mut self) -> PResult<Step> {
        if self.is("*") {
            self.advance()?;
            self.expect("]")?;
            return Ok(Step::AnyArray);
        }
        self.enter()?;
        let mut subs = Vec::new();
        loop {
            let from = self.or()?;
            let from = self.want_expr(from)?;
            let to = if kw(&self.tok, "to") {
                self.advance()?;
                let to = self.or()?;
                Some(self.want_expr(to)?)
            } else {
                None
            };
            subs.push((from, to));
            if self.is(",") {
                self.advance()?;
                continue;
            }
            self.expect("]")?;
            break;
        }
        self.depth -= 1;
        Ok(Step::Index(subs))
    }
}

#[cold]
#[inline(never)]
fn too_deep() -> Box<DbError> {
    Box::new(DbError::new(
        SqlState::StatementTooComplex,
        format!(
            "jsonpath expression is nested too deeply (JSONPATH_DEPTH_MAX is {JSONPATH_DEPTH_MAX})"
        ),
    ))
}

/// Checks the `flag "..."` string of like_regex and returns it in
/// PostgreSQL's printed order (`i s m x q`, each once).
fn regex_flags(f: &str) -> Result<String, DbError> {
    let mut out = String::new();
    for c in f.chars() {
        if !"ismxq".contains(c) {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "invalid input syntax for type jsonpath",
            )
            .with_detail(format!(
                "Unrecognized flag character \"{c}\" in LIKE_REGEX predicate."
            )));
        }
    }
    if f.contains('x') && !f.contains('q') {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "XQuery \"x\" flag (expanded regular expressions) is not implemented",
        ));
    }
    for c in "ismxq".chars() {
        if f.contains(c) {
            out.push(c);
        }
    }
    Ok(out)
}

/// Where `@` and `last` may appear: PostgreSQL's checks after parsing.
fn check_context(e: &Expr, in_filter: bool, in_subscript: bool) -> Result<(), DbError> {
    let mut stack: Vec<(&Expr, bool, bool)> = vec![(e, in_filter, in_subscript)];
    while let Some((e, f, s)) = stack.pop() {
        match e {
            Expr::Path(p, steps) => {
                match p {
                    Primary::Current if !f => {
                        return Err(DbError::new(
                            SqlState::SyntaxError,
                            "@ is not allowed in root expressions",
                        ))
                    }
                    Primary::Last if !s => {
                        return Err(DbError::new(
                            SqlState::SyntaxError,
                            "LAST is allowed only in array subscripts",
                        ))
                    }
                    Primary::Paren(inner) => stack.push((inner, f, s)),
                    _ => {}
                }
                for st in steps {
                    match st {
                        Step::Filter(e) => stack.push((e, true, s)),
                        Step::Index(subs) => {
                            for (a, b) in subs {
                                stack.push((a, f, true));
                                if let Some(b) = b {
                                    stack.push((b, f, true));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Expr::Binary(_, a, b) => {
                stack.push((a, f, s));
                stack.push((b, f, s));
            }
            Expr::Unary(_, a) | Expr::Not(a) | Expr::IsUnknown(a) | Expr::Exists(a) => {
                stack.push((a, f, s))
            }
            Expr::LikeRegex { expr, .. } => stack.push((expr, f, s)),
        }
    }
    Ok(())
}

/// Parses jsonpath text.
pub fn parse(input: &str) -> Result<JsonPath, DbError> {
    let mut p = Parser {
        lex: Lexer { s: input, i: 0 },
        tok: Tok::End,
        text: String::new(),
        depth: 0,
    };
    p.advance().map_err(|e| *e)?;
    if p.tok == Tok::End {
        return Err(DbError::new(
            SqlState::InvalidTextRepresentation,
            format!("invalid input syntax for type jsonpath: \"{input}\""),
        ));
    }
    let mut strict = false;
    if kw(&p.tok, "strict") || kw(&p.tok, "lax") {
        strict = kw(&p.tok, "strict");
        p.advance().map_err(|e| *e)?;
    }
    let expr = p.or().map_err(|e| *e)?;
    if p.tok != Tok::End {
        return Err(*p.error());
    }
    check_context(&expr, false, false)?;
    Ok(JsonPath { strict, expr })
}

// ----- printing --------------------------------------------------------------------

fn priority(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, ..) => op.priority(),
        Expr::Unary(..) => 5,
        _ => 6,
    }
}

impl JsonPath {
    /// PostgreSQL's normalised text (jsonpath_out).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.strict {
            out.push_str("strict ");
        }
        print(&mut out, &self.expr, true);
        out
    }
}

fn print(out: &mut String, e: &Expr, brackets: bool) {
    match e {
        Expr::Path(p, steps) => {
            match p {
                Primary::Root => out.push('$'),
                Primary::Current => out.push('@'),
                Primary::Last => out.push_str("last"),
                Primary::Var(v) => {
                    out.push('$');
                    write_json_string(out, v);
                }
                Primary::Literal(Json::Str(s)) => write_json_string(out, s),
                // A number followed by accessors is parenthesised.
                Primary::Literal(Json::Num(n)) if !steps.is_empty() => {
                    let _ = write!(out, "({n})");
                }
                Primary::Literal(Json::Num(n)) => {
                    let _ = write!(out, "{n}");
                }
                Primary::Literal(Json::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
                Primary::Literal(_) => out.push_str("null"),
                // A parenthesised operator followed by accessors keeps its
                // parentheses (an operator printed with brackets).
                Primary::Paren(inner) => print(out, inner, true),
            }
            for st in steps {
                print_step(out, st);
            }
        }
        Expr::Binary(op, l, r) => {
            if brackets {
                out.push('(');
            }
            print(out, l, priority(l) <= op.priority());
            out.push(' ');
            out.push_str(op.name());
            out.push(' ');
            print(out, r, priority(r) <= op.priority());
            if brackets {
                out.push(')');
            }
        }
        Expr::Unary(minus, a) => {
            if brackets {
                out.push('(');
            }
            out.push(if *minus { '-' } else { '+' });
            print(out, a, priority(a) <= 5);
            if brackets {
                out.push(')');
            }
        }
        Expr::Not(a) => {
            out.push_str("!(");
            print(out, a, false);
            out.push(')');
        }
        Expr::IsUnknown(a) => {
            out.push('(');
            print(out, a, false);
            out.push_str(") is unknown");
        }
        Expr::Exists(a) => {
            out.push_str("exists (");
            print(out, a, false);
            out.push(')');
        }
        Expr::LikeRegex {
            expr,
            pattern,
            flags,
        } => {
            if brackets {
                out.push('(');
            }
            print(out, expr, priority(expr) <= 6);
            out.push_str(" like_regex ");
            write_json_string(out, pattern);
            if !flags.is_empty() {
                out.push_str(" flag \"");
                out.push_str(flags);
                out.push('"');
            }
            if brackets {
                out.push(')');
            }
        }
    }
}

fn print_step(out: &mut String, st: &Step) {
    match st {
        Step::Key(k) => {
            out.push('.');
            write_json_string(out, k);
        }
        Step::AnyKey => out.push_str(".*"),
        Step::AnyArray => out.push_str("[*]"),
        Step::Index(subs) => {
            out.push('[');
            for (k, (a, b)) in subs.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                print(out, a, false);
                if let Some(b) = b {
                    out.push_str(" to ");
                    print(out, b, false);
                }
            }
            out.push(']');
        }
        Step::Any { first, last } => {
            out.push_str(".**");
            let lv = |v: u32| {
                if v == u32::MAX {
                    "last".to_string()
                } else {
                    v.to_string()
                }
            };
            if first == last {
                let _ = write!(out, "{{{}}}", lv(*first));
            } else if !(*first == 0 && *last == u32::MAX) {
                let _ = write!(out, "{{{} to {}}}", lv(*first), lv(*last));
            }
        }
        Step::Filter(e) => {
            out.push_str("?(");
            print(out, e, false);
            out.push(')');
        }
        Step::Method(m) => {
            out.push('.');
            out.push_str(m.name());
            out.push_str("()");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        parse(s)
            .map(|p| p.to_text())
            .unwrap_or_else(|e| e.into_message())
    }

    #[test]
    fn normalised_text_like_postgres() {
        assert_eq!(n("$.a[*] ? (@ > 1)"), "$.\"a\"[*]?(@ > 1)");
        assert_eq!(
            n("strict $.a.b[1 to 2, last].**{2 to last}.c ? (exists(@.x) && !(@ == \"s\" || @ like_regex \"^a\" flag \"i\") && @.y starts with \"z\")"),
            "strict $.\"a\".\"b\"[1 to 2,last].**{2 to last}.\"c\"?((exists (@.\"x\") && !(@ == \"s\" || @ like_regex \"^a\" flag \"i\")) && @.\"y\" starts with \"z\")"
        );
        assert_eq!(
            n("$.a.type().size().double().abs().floor().ceiling().keyvalue()"),
            "$.\"a\".type().size().double().abs().floor().ceiling().keyvalue()"
        );
        assert_eq!(
            n("$ ? (@ == null || @ == true || @ == 1.50 || @ == 1e3 || (@ > 2) is unknown)"),
            "$?((((@ == null || @ == true) || @ == 1.50) || @ == 1000) || (@ > 2) is unknown)"
        );
        assert_eq!(n("$.\"a b\".*[*]"), "$.\"a b\".*[*]");
        assert_eq!(n("-$.a"), "(-$.\"a\")");
        assert_eq!(n("+$"), "(+$)");
        assert_eq!(n("1 + 2 * 3"), "(1 + 2 * 3)");
        assert_eq!(n("(1+2)*3"), "((1 + 2) * 3)");
        assert_eq!(n("-1"), "-1");
        assert_eq!(n("- -1"), "1");
        assert_eq!(n("-(1+2)"), "(-(1 + 2))");
        assert_eq!(n("$a"), "$\"a\"");
        assert_eq!(n("$.**{1}"), "$.**{1}");
        assert_eq!(n("$.**{last}"), "$.**{last}");
        assert_eq!(n("$.a.**"), "$.\"a\".**");
        assert_eq!(n("0.0010e+2"), "0.10");
        assert_eq!(n(".1"), "0.1");
        assert_eq!(n("($.a + 1).type()"), "($.\"a\" + 1).type()");
        assert_eq!(n("$ ? (@ > 1).a"), "$?(@ > 1).\"a\"");
        assert_eq!(n("Strict $"), "strict $");
        assert_eq!(n("$.true"), "$.\"true\"");
    }

    #[test]
    fn errors_like_postgres() {
        assert_eq!(n("$.a +"), "syntax error at end of jsonpath input");
        assert_eq!(n("@"), "@ is not allowed in root expressions");
        assert_eq!(n("last"), "LAST is allowed only in array subscripts");
        assert_eq!(
            n("$.a.b()"),
            "syntax error at or near \"(\" of jsonpath input"
        );
        assert_eq!(
            n("$.a $.b"),
            "syntax error at or near \"$\" of jsonpath input"
        );
        assert_eq!(
            n("$ ? (@ +)"),
            "syntax error at or near \")\" of jsonpath input"
        );
        assert_eq!(
            n("1.a"),
            "trailing junk after numeric literal at or near \"1.a\" of jsonpath input"
        );
        assert_eq!(n(""), "invalid input syntax for type jsonpath: \"\"");
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(n(&deep).contains("JSONPATH_DEPTH_MAX"));
        let deep = format!("$ ? ({}1 == 1{})", "!(".repeat(50_000), ")".repeat(50_000));
        assert!(n(&deep).contains("JSONPATH_DEPTH_MAX"));
        let deep = "-".repeat(100_000) + "$";
        assert!(n(&deep).contains("JSONPATH_DEPTH_MAX"));
        let long = "$".to_string() + &".a".repeat(100_000);
        assert!(parse(&long).is_ok());
    }

    /// Arbitrary input never panics: every prefix and suffix of a mix of
    /// the language's pieces, escapes and multi-byte characters.
    #[test]
    fn arbitrary_input_does_not_panic() {
        let pieces = [
            "$",
            "@",
            ".",
            "a",
            "é",
            "\\",
            "\\u{",
            "\\x4",
            "\\ud83d",
            "\"",
            "1",
            "0",
            ".5",
            "e",
            "+",
            "-",
            "(",
            ")",
            "[",
            "]",
            "?",
            "*",
            "**",
            "{",
            "}",
            "last",
            "to",
            ",",
            "==",
            "!",
            "&&",
            "like_regex",
            "flag",
            "exists",
            "is unknown",
            "starts with",
            " ",
            "😀",
        ];
        let doc =
            crate::json::parse(r#"{"a": [1, "x", {"a": null}], "é": {"b": [[2.5]]}}"#).unwrap();
        let mut seed = 12345u64;
        let mut parsed = 0;
        for _ in 0..3000 {
            let mut s = String::new();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for _ in 0..((seed >> 40) % 12) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            for (k, _) in s.char_indices() {
                let _ = parse(&s[k..]);
                let _ = parse(&s[..k]);
            }
            if let Ok(p) = parse(&s) {
                // It runs without panicking ...
                parsed += 1;
                let _ = super::super::eval::execute(&p, &doc, Some(&doc));
                // ... and its text reads back to the same text.
                let text = p.to_text();
                assert_eq!(
                    parse(&text).map(|q| q.to_text()).ok(),
                    Some(text.clone()),
                    "{s}"
                );
            }
        }
        assert!(parsed > 20, "only {parsed} inputs parsed");
        // Valid paths from accessor pieces, run in both modes.
        let steps = [
            ".a",
            "[*]",
            "[0 to last]",
            ".**",
            "?(@ > 1)",
            ".size()",
            ".type()",
            ".keyvalue()",
            ".double()",
            "[last]",
            ".*",
            "?(exists(@.a))",
            ".\"é\"",
            ".**{1 to 2}",
            ".abs()",
            "?(@ starts with \"x\" || @ like_regex \"^[0-9]\")",
            "[$.a.size() - 1]",
        ];
        for _ in 0..3000 {
            let mut s = String::from(if seed.is_multiple_of(2) {
                "$"
            } else {
                "strict $"
            });
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for _ in 0..((seed >> 40) % 6) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push_str(steps[(seed >> 33) as usize % steps.len()]);
            }
            let p = parse(&s).unwrap_or_else(|e| panic!("{s}: {}", e.message));
            let _ = super::super::eval::execute(&p, &doc, Some(&doc));
            assert_eq!(parse(&p.to_text()).unwrap().to_text(), p.to_text(), "{s}");
        }
    }
}
