//! PostgreSQL's default text search parser (wparser_def.c), ported as it
//! is: a table-driven state machine whose states and per-state action
//! lists ([`ACTIONS`], generated from the C tables and kept in their
//! order) decide, character by character, which of the 23 token types
//! the text starting at the current position is.
//!
//! An action tests the current character (a class, a specific character,
//! end of input, or a sub-parse: "is a host name here", "is a URL path
//! here"), then may push the parser's position (to come back to it if the
//! longer reading fails), pop it (the reading failed: resume at the next
//! action of the pushed state), clear pushed positions (the longer
//! reading is committed), or emit ("bingo") the token read so far.
//! Keeping the tables verbatim is what makes the token boundaries and
//! types PostgreSQL's, quirks included (`foo.txt` is a host, `a.b` a
//! file, `2nd-hand` a numhword followed by its parts).
//!
//! Characters are classified as PostgreSQL does in a UTF-8 database
//! whose LC_CTYPE is C, as Nestor's are: ASCII by the C library's
//! classes, any other character a letter (alpha and alnum, nothing else),
//! zero-width marks also "special" (not a word break).
//! Work is bounded: the parser advances or emits at each step, and the
//! sub-parses of a host or URL path start at the current position and
//! never recurse more than one level deep.

/// Token type ids and aliases (ts_token_type('default')).
pub const TOKEN_TYPES: [(&str, &str); 23] = [
    ("asciiword", "Word, all ASCII"),
    ("word", "Word, all letters"),
    ("numword", "Word, letters and digits"),
    ("email", "Email address"),
    ("url", "URL"),
    ("host", "Host"),
    ("sfloat", "Scientific notation"),
    ("version", "Version number"),
    ("hword_numpart", "Hyphenated word part, letters and digits"),
    ("hword_part", "Hyphenated word part, all letters"),
    ("hword_asciipart", "Hyphenated word part, all ASCII"),
    ("blank", "Space symbols"),
    ("tag", "XML tag"),
    ("protocol", "Protocol head"),
    ("numhword", "Hyphenated word, letters and digits"),
    ("asciihword", "Hyphenated word, all ASCII"),
    ("hword", "Hyphenated word, all letters"),
    ("url_path", "URL path"),
    ("file", "File or path name"),
    ("float", "Decimal notation"),
    ("int", "Signed integer"),
    ("uint", "Unsigned integer"),
    ("entity", "XML entity"),
];

pub const HOST: u8 = 6;
pub const URLPATH: u8 = 18;
pub const SPACE: u8 = 12;

/// A character test of an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum T {
    /// The list's last action: always taken.
    Any,
    Eof,
    Eq,
    Alnum,
    NotAlnum,
    Alpha,
    AscLet,
    Digit,
    Space,
    XDigit,
    Special,
    UrlChar,
    Ignore,
    StopHost,
    Host,
    UrlPath,
}

/// An action's special handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum S {
    None,
    Tags,
    Furl,
    Hyphen,
    VerVersion,
}

const A_BINGO: u16 = 0x1;
const A_POP: u16 = 0x2;
const A_PUSH: u16 = 0x4;
const A_RERUN: u16 = 0x8;
const A_CLEAR: u16 = 0x10;
const A_MERGE: u16 = 0x20;
const A_CLRALL: u16 = 0x40;

pub(super) struct Item {
    test: T,
    c: u8,
    flags: u16,
    to: St,
    ty: u8,
    special: S,
}

const fn it(test: T, c: u8, flags: u16, to: St, ty: u8, special: S) -> Item {
    Item {
        test,
        c,
        flags,
        to,
        ty,
        special,
    }
}

/// One saved parser position (TParserPosition).
#[derive(Clone, Copy, Debug)]
struct Pos {
    /// Index of the current character.
    pos: usize,
    /// 1, or 0 at the end of input.
    charlen: usize,
    /// Characters in the token so far.
    lentoken: usize,
    state: St,
    /// The action of this state a push was made at (resume after it).
    pushed_at: Option<usize>,
}

/// The parser over a text (TParser).
pub struct Parser<'a> {
    chars: &'a [char],
    stack: Vec<Pos>,
    ignore: bool,
    wanthost: bool,
    c: u8,
    /// The last token: start, length (characters) and type.
    pub token_start: usize,
    pub token_len: usize,
    pub token_type: u8,
}

fn is_special(c: char) -> bool {
    let u = c as u32;
    matches!(u, 0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A
        | 0x064B..=0x065F | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957
        | 0x0962..=0x0963 | 0x0981..=0x0983 | 0x09BC..=0x09D7 | 0x0A01..=0x0A03
        | 0x0A3C..=0x0A51 | 0x0A81..=0x0A83 | 0x0ABC..=0x0ACD | 0x0B01..=0x0B03
        | 0x0B3C..=0x0B57 | 0x0BBE..=0x0BD7 | 0x0C00..=0x0C04 | 0x0C3E..=0x0C56
        | 0x0C81..=0x0C83 | 0x0CBC..=0x0CD6 | 0x0D00..=0x0D03 | 0x0D3E..=0x0D57
        | 0x0D82..=0x0D83 | 0x0DCF..=0x0DF3 | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x0F3E..=0x0F3F | 0x0F71..=0x0F84 | 0x102B..=0x103E | 0x1056..=0x1059
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200B..=0x200F | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F)
}

/// isspace() in the C locale.
pub(crate) fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

fn is_url_char(c: char) -> bool {
    let u = c as u32;
    u > 0x20 && u < 0x7F && !matches!(c, '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}')
}

impl<'a> Parser<'a> {
    pub fn new(chars: &'a [char]) -> Parser<'a> {
        Parser::at(chars, St::Base)
    }

    fn at(chars: &'a [char], state: St) -> Parser<'a> {
        Parser {
            chars,
            stack: vec![Pos {
                pos: 0,
                charlen: 0,
                lentoken: 0,
                state,
                pushed_at: None,
            }],
            ignore: false,
            wanthost: false,
            c: 0,
            token_start: 0,
            token_len: 0,
            token_type: 0,
        }
    }

    fn top(&mut self) -> &mut Pos {
        self.stack
            .last_mut()
            .expect("the parser always has a position")
    }

    fn cur(&self) -> Option<char> {
        let p = self.stack.last().expect("a position");
        if p.charlen == 0 {
            None
        } else {
            self.chars.get(p.pos).copied()
        }
    }

    fn test(&mut self, t: T) -> bool {
        let ch = self.cur();
        match t {
            T::Any => true,
            T::Eof => ch.is_none(),
            T::Eq => ch == Some(self.c as char),
            T::Alnum => ch.is_some_and(|c| !c.is_ascii() || c.is_ascii_alphanumeric()),
            T::NotAlnum => !ch.is_some_and(|c| !c.is_ascii() || c.is_ascii_alphanumeric()),
            T::Alpha => ch.is_some_and(|c| !c.is_ascii() || c.is_ascii_alphabetic()),
            T::AscLet => ch.is_some_and(|c| c.is_ascii_alphabetic()),
            T::Digit => ch.is_some_and(|c| c.is_ascii_digit()),
            T::Space => ch.is_some_and(is_c_space),
            T::XDigit => ch.is_some_and(|c| c.is_ascii_hexdigit()),
            T::Special => ch.is_some_and(is_special),
            T::UrlChar => ch.is_some_and(is_url_char),
            T::Ignore => self.ignore,
            T::StopHost => {
                if self.wanthost {
                    self.wanthost = false;
                    true
                } else {
                    false
                }
            }
            T::Host => self.sub_parse(St::Base, true, HOST),
            T::UrlPath => self.sub_parse(St::InURLPathFirst, false, URLPATH),
        }
    }

    /// p_ishost / p_isURLPath: a parser from the current position reads
    /// a token of type `want`; if so it joins the current token.
    fn sub_parse(&mut self, state: St, wanthost: bool, want: u8) -> bool {
        let start = self.stack.last().expect("a position").pos;
        let rest = &self.chars[start.min(self.chars.len())..];
        let mut sub = Parser::at(rest, St::Base);
        if state != St::Base {
            let mut p = sub.stack[0];
            p.state = state;
            sub.stack.push(p);
        }
        sub.wanthost = wanthost;
        if sub.next_token() && sub.token_type == want {
            let (len, charlen) = (sub.token_len, sub.stack.last().expect("a position").charlen);
            let p = self.top();
            p.pos += len;
            p.lentoken += len;
            p.charlen = charlen;
            true
        } else {
            false
        }
    }

    fn special(&mut self, s: S) {
        match s {
            S::None => {}
            S::Tags => {
                let p = *self.stack.last().expect("a position");
                let end = (self.token_start + p.lentoken).min(self.chars.len());
                let tok: String = self.chars[self.token_start.min(end)..end]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                match p.lentoken {
                    8 if tok == "</script" => self.ignore = false,
                    7 if tok == "</style" => self.ignore = false,
                    7 if tok == "<script" => self.ignore = true,
                    6 if tok == "<style" => self.ignore = true,
                    _ => {}
                }
            }
            // These step back over the token read so far (to re-read it
            // as its parts); the position never precedes the token.
            S::Furl => {
                self.wanthost = true;
                let p = self.top();
                p.pos = p.pos.saturating_sub(p.lentoken);
            }
            S::Hyphen => {
                let p = self.top();
                p.pos = p.pos.saturating_sub(p.lentoken);
            }
            S::VerVersion => {
                let p = self.top();
                p.pos = p.pos.saturating_sub(p.lentoken);
                p.lentoken = 0;
            }
        }
    }

    /// TParserGet: the next token (false at the end of the text).
    pub fn next_token(&mut self) -> bool {
        let len = self.chars.len();
        if self.top().pos >= len {
            return false;
        }
        self.token_start = self.top().pos;
        self.top().pushed_at = None;
        let mut bingo = false;
        // Each step moves forward, emits or pops a pushed position; the
        // bound only guards the loop against a broken table.
        let mut steps = 0usize;
        let limit = 64 * (len + 16) * (len + 16);
        while self.top().pos <= len {
            steps += 1;
            if steps > limit {
                return false;
            }
            let p = self.top();
            p.charlen = usize::from(p.pos < len);
            let state = p.state;
            let start = match p.pushed_at.take() {
                Some(i) => i + 1,
                None => 0,
            };
            let items = ACTIONS[state as usize];
            let mut idx = start;
            while idx < items.len() - 1 {
                self.c = items[idx].c;
                if self.test(items[idx].test) {
                    break;
                }
                idx += 1;
            }
            let item = &items[idx.min(items.len() - 1)];
            let idx = idx.min(items.len() - 1);
            self.special(item.special);
            bingo = item.flags & A_BINGO != 0;
            if bingo {
                let len = self.top().lentoken;
                self.token_len = len;
                self.top().lentoken = 0;
                self.token_type = item.ty;
            }
            if item.flags & A_POP != 0 {
                self.stack.pop();
                if self.stack.is_empty() {
                    return false;
                }
            } else if item.flags & A_PUSH != 0 {
                self.top().pushed_at = Some(idx);
                let mut p = *self.top();
                p.pushed_at = None;
                self.stack.push(p);
            } else if item.flags & A_CLEAR != 0 {
                let n = self.stack.len();
                if n >= 2 {
                    self.stack.remove(n - 2);
                }
            } else if item.flags & A_CLRALL != 0 {
                let top = *self.top();
                self.stack.clear();
                self.stack.push(top);
            } else if item.flags & A_MERGE != 0 && self.stack.len() >= 2 {
                let cur = self.stack.pop().expect("two positions");
                let p = self.top();
                p.pos = cur.pos;
                p.charlen = cur.charlen;
                p.lentoken = cur.lentoken;
            }
            if item.to != St::Null {
                self.top().state = item.to;
            }
            if bingo || (self.top().pos >= len && item.flags & A_RERUN == 0) {
                break;
            }
            if item.flags & (A_RERUN | A_POP) != 0 {
                continue;
            }
            let p = self.top();
            if p.charlen > 0 {
                p.pos += 1;
                p.lentoken += 1;
            }
        }
        bingo
    }
}

/// The tokens of `text`: (type, token text), blanks included.
pub fn tokens(text: &str) -> Vec<(u8, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser::new(&chars);
    let mut out = Vec::new();
    while p.next_token() {
        let end = (p.token_start + p.token_len).min(chars.len());
        let t: String = chars[p.token_start.min(end)..end].iter().collect();
        out.push((p.token_type, t));
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum St {
    Base,
    InNumWord,
    InAsciiWord,
    InWord,
    InUnsignedInt,
    InSignedIntFirst,
    InSignedInt,
    InSpace,
    InUDecimalFirst,
    InUDecimal,
    InDecimalFirst,
    InDecimal,
    InVerVersion,
    InSVerVersion,
    InVersionFirst,
    InVersion,
    InMantissaFirst,
    InMantissaSign,
    InMantissa,
    InXMLEntityFirst,
    InXMLEntity,
    InXMLEntityNumFirst,
    InXMLEntityNum,
    InXMLEntityHexNumFirst,
    InXMLEntityHexNum,
    InXMLEntityEnd,
    InTagFirst,
    InXMLBegin,
    InTagCloseFirst,
    InTagName,
    InTagBeginEnd,
    InTag,
    InTagEscapeK,
    InTagEscapeKK,
    InTagBackSleshed,
    InTagEnd,
    InCommentFirst,
    InCommentLast,
    InComment,
    InCloseCommentFirst,
    InCloseCommentLast,
    InCommentEnd,
    InHostFirstDomain,
    InHostDomainSecond,
    InHostDomain,
    InPortFirst,
    InPort,
    InHostFirstAN,
    InHost,
    InEmail,
    InFileFirst,
    InFileTwiddle,
    InPathFirst,
    InPathFirstFirst,
    InPathSecond,
    InFile,
    InFileNext,
    InURLPathFirst,
    InURLPathStart,
    InURLPath,
    InFURL,
    InProtocolFirst,
    InProtocolSecond,
    InProtocolEnd,
    InHyphenAsciiWordFirst,
    InHyphenAsciiWord,
    InHyphenWordFirst,
    InHyphenWord,
    InHyphenNumWordFirst,
    InHyphenNumWord,
    InHyphenDigitLookahead,
    InParseHyphen,
    InParseHyphenHyphen,
    InHyphenWordPart,
    InHyphenAsciiWordPart,
    InHyphenNumWordPart,
    InHyphenUnsignedInt,
    Null,
}

/// The action table of each state, in [`St`] order.
pub(super) static ACTIONS: [&[Item]; 77] = [
    // TPS_Base
    &[
        it(T::Eof, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'<', 4, St::InTagFirst, 0, S::None),
        it(T::Ignore, 0, 0, St::InSpace, 0, S::None),
        it(T::AscLet, 0, 0, St::InAsciiWord, 0, S::None),
        it(T::Alpha, 0, 0, St::InWord, 0, S::None),
        it(T::Digit, 0, 0, St::InUnsignedInt, 0, S::None),
        it(T::Eq, b'-', 4, St::InSignedIntFirst, 0, S::None),
        it(T::Eq, b'+', 4, St::InSignedIntFirst, 0, S::None),
        it(T::Eq, b'&', 4, St::InXMLEntityFirst, 0, S::None),
        it(T::Eq, b'~', 4, St::InFileTwiddle, 0, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Eq, b'.', 4, St::InPathFirstFirst, 0, S::None),
        it(T::Any, 0, 0, St::InSpace, 0, S::None),
    ],
    // TPS_InNumWord
    &[
        it(T::Eof, 0, 1, St::Base, 3, S::None),
        it(T::Alnum, 0, 0, St::InNumWord, 0, S::None),
        it(T::Special, 0, 0, St::InNumWord, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Eq, b'.', 4, St::InFileNext, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenNumWordFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 3, S::None),
    ],
    // TPS_InAsciiWord
    &[
        it(T::Eof, 0, 1, St::Base, 1, S::None),
        it(T::AscLet, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'.', 4, St::InHostFirstDomain, 0, S::None),
        it(T::Eq, b'.', 4, St::InFileNext, 0, S::None),
        it(T::Eq, b'-', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenAsciiWordFirst, 0, S::None),
        it(T::Eq, b'_', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::Eq, b':', 4, St::InProtocolFirst, 0, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Digit, 0, 4, St::InHost, 0, S::None),
        it(T::Digit, 0, 0, St::InNumWord, 0, S::None),
        it(T::Alpha, 0, 0, St::InWord, 0, S::None),
        it(T::Special, 0, 0, St::InWord, 0, S::None),
        it(T::Any, 0, 1, St::Base, 1, S::None),
    ],
    // TPS_InWord
    &[
        it(T::Eof, 0, 1, St::Base, 2, S::None),
        it(T::Alpha, 0, 0, St::Null, 0, S::None),
        it(T::Special, 0, 0, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InNumWord, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenWordFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 2, S::None),
    ],
    // TPS_InUnsignedInt
    &[
        it(T::Eof, 0, 1, St::Base, 22, S::None),
        it(T::Digit, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'.', 4, St::InHostFirstDomain, 0, S::None),
        it(T::Eq, b'.', 4, St::InUDecimalFirst, 0, S::None),
        it(T::Eq, b'e', 4, St::InMantissaFirst, 0, S::None),
        it(T::Eq, b'E', 4, St::InMantissaFirst, 0, S::None),
        it(T::Eq, b'-', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'_', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::AscLet, 0, 4, St::InHost, 0, S::None),
        it(T::Alpha, 0, 0, St::InNumWord, 0, S::None),
        it(T::Special, 0, 0, St::InNumWord, 0, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 22, S::None),
    ],
    // TPS_InSignedIntFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InSignedInt, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InSignedInt
    &[
        it(T::Eof, 0, 1, St::Base, 21, S::None),
        it(T::Digit, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'.', 4, St::InDecimalFirst, 0, S::None),
        it(T::Eq, b'e', 4, St::InMantissaFirst, 0, S::None),
        it(T::Eq, b'E', 4, St::InMantissaFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 21, S::None),
    ],
    // TPS_InSpace
    &[
        it(T::Eof, 0, 1, St::Base, 12, S::None),
        it(T::Eq, b'<', 1, St::Base, 12, S::None),
        it(T::Ignore, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'-', 1, St::Base, 12, S::None),
        it(T::Eq, b'+', 1, St::Base, 12, S::None),
        it(T::Eq, b'&', 1, St::Base, 12, S::None),
        it(T::Eq, b'/', 1, St::Base, 12, S::None),
        it(T::NotAlnum, 0, 0, St::InSpace, 0, S::None),
        it(T::Any, 0, 1, St::Base, 12, S::None),
    ],
    // TPS_InUDecimalFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InUDecimal, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InUDecimal
    &[
        it(T::Eof, 0, 1, St::Base, 20, S::None),
        it(T::Digit, 0, 0, St::InUDecimal, 0, S::None),
        it(T::Eq, b'.', 4, St::InVersionFirst, 0, S::None),
        it(T::Eq, b'e', 4, St::InMantissaFirst, 0, S::None),
        it(T::Eq, b'E', 4, St::InMantissaFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 20, S::None),
    ],
    // TPS_InDecimalFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InDecimal, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InDecimal
    &[
        it(T::Eof, 0, 1, St::Base, 20, S::None),
        it(T::Digit, 0, 0, St::InDecimal, 0, S::None),
        it(T::Eq, b'.', 4, St::InVerVersion, 0, S::None),
        it(T::Eq, b'e', 4, St::InMantissaFirst, 0, S::None),
        it(T::Eq, b'E', 4, St::InMantissaFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 20, S::None),
    ],
    // TPS_InVerVersion
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 8, St::InSVerVersion, 0, S::VerVersion),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InSVerVersion
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 65, St::InUnsignedInt, 12, S::None),
        it(T::Any, 0, 0, St::Null, 0, S::None),
    ],
    // TPS_InVersionFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InVersion, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InVersion
    &[
        it(T::Eof, 0, 1, St::Base, 8, S::None),
        it(T::Digit, 0, 0, St::InVersion, 0, S::None),
        it(T::Eq, b'.', 4, St::InVersionFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 8, S::None),
    ],
    // TPS_InMantissaFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InMantissa, 0, S::None),
        it(T::Eq, b'+', 0, St::InMantissaSign, 0, S::None),
        it(T::Eq, b'-', 0, St::InMantissaSign, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InMantissaSign
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 16, St::InMantissa, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InMantissa
    &[
        it(T::Eof, 0, 1, St::Base, 7, S::None),
        it(T::Digit, 0, 0, St::InMantissa, 0, S::None),
        it(T::Any, 0, 1, St::Base, 7, S::None),
    ],
    // TPS_InXMLEntityFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'#', 0, St::InXMLEntityNumFirst, 0, S::None),
        it(T::AscLet, 0, 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b':', 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b'_', 0, St::InXMLEntity, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntity
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Alnum, 0, 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b':', 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b'_', 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b'.', 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b'-', 0, St::InXMLEntity, 0, S::None),
        it(T::Eq, b';', 0, St::InXMLEntityEnd, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntityNumFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'x', 0, St::InXMLEntityHexNumFirst, 0, S::None),
        it(T::Eq, b'X', 0, St::InXMLEntityHexNumFirst, 0, S::None),
        it(T::Digit, 0, 0, St::InXMLEntityNum, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntityNum
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InXMLEntityNum, 0, S::None),
        it(T::Eq, b';', 0, St::InXMLEntityEnd, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntityHexNumFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::XDigit, 0, 0, St::InXMLEntityHexNum, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntityHexNum
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::XDigit, 0, 0, St::InXMLEntityHexNum, 0, S::None),
        it(T::Eq, b';', 0, St::InXMLEntityEnd, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLEntityEnd
    &[it(T::Any, 0, 17, St::Base, 23, S::None)],
    // TPS_InTagFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'/', 4, St::InTagCloseFirst, 0, S::None),
        it(T::Eq, b'!', 4, St::InCommentFirst, 0, S::None),
        it(T::Eq, b'?', 4, St::InXMLBegin, 0, S::None),
        it(T::AscLet, 0, 4, St::InTagName, 0, S::None),
        it(T::Eq, b':', 4, St::InTagName, 0, S::None),
        it(T::Eq, b'_', 4, St::InTagName, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InXMLBegin
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'x', 0, St::InTag, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InTagCloseFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InTagName, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InTagName
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'/', 0, St::InTagBeginEnd, 0, S::None),
        it(T::Eq, b'>', 0, St::InTagEnd, 0, S::Tags),
        it(T::Space, 0, 0, St::InTag, 0, S::Tags),
        it(T::Alnum, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b':', 0, St::Null, 0, S::None),
        it(T::Eq, b'_', 0, St::Null, 0, S::None),
        it(T::Eq, b'.', 0, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::Null, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InTagBeginEnd
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'>', 0, St::InTagEnd, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InTag
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'>', 0, St::InTagEnd, 0, S::Tags),
        it(T::Eq, b'\'', 0, St::InTagEscapeK, 0, S::None),
        it(T::Eq, b'"', 0, St::InTagEscapeKK, 0, S::None),
        it(T::AscLet, 0, 0, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::Null, 0, S::None),
        it(T::Eq, b'=', 0, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::Null, 0, S::None),
        it(T::Eq, b'_', 0, St::Null, 0, S::None),
        it(T::Eq, b'#', 0, St::Null, 0, S::None),
        it(T::Eq, b'/', 0, St::Null, 0, S::None),
        it(T::Eq, b':', 0, St::Null, 0, S::None),
        it(T::Eq, b'.', 0, St::Null, 0, S::None),
        it(T::Eq, b'&', 0, St::Null, 0, S::None),
        it(T::Eq, b'?', 0, St::Null, 0, S::None),
        it(T::Eq, b'%', 0, St::Null, 0, S::None),
        it(T::Eq, b'~', 0, St::Null, 0, S::None),
        it(T::Space, 0, 0, St::Null, 0, S::Tags),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InTagEscapeK
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'\\', 4, St::InTagBackSleshed, 0, S::None),
        it(T::Eq, b'\'', 0, St::InTag, 0, S::None),
        it(T::Any, 0, 0, St::InTagEscapeK, 0, S::None),
    ],
    // TPS_InTagEscapeKK
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'\\', 4, St::InTagBackSleshed, 0, S::None),
        it(T::Eq, b'"', 0, St::InTag, 0, S::None),
        it(T::Any, 0, 0, St::InTagEscapeKK, 0, S::None),
    ],
    // TPS_InTagBackSleshed
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Any, 0, 32, St::Null, 0, S::None),
    ],
    // TPS_InTagEnd
    &[it(T::Any, 0, 65, St::Base, 13, S::None)],
    // TPS_InCommentFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::InCommentLast, 0, S::None),
        it(T::Eq, b'D', 0, St::InTag, 0, S::None),
        it(T::Eq, b'd', 0, St::InTag, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InCommentLast
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::InComment, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InComment
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::InCloseCommentFirst, 0, S::None),
        it(T::Any, 0, 0, St::Null, 0, S::None),
    ],
    // TPS_InCloseCommentFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::InCloseCommentLast, 0, S::None),
        it(T::Any, 0, 0, St::InComment, 0, S::None),
    ],
    // TPS_InCloseCommentLast
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'-', 0, St::Null, 0, S::None),
        it(T::Eq, b'>', 0, St::InCommentEnd, 0, S::None),
        it(T::Any, 0, 0, St::InComment, 0, S::None),
    ],
    // TPS_InCommentEnd
    &[it(T::Any, 0, 65, St::Base, 13, S::None)],
    // TPS_InHostFirstDomain
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InHostDomainSecond, 0, S::None),
        it(T::Digit, 0, 0, St::InHost, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHostDomainSecond
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InHostDomain, 0, S::None),
        it(T::Digit, 0, 4, St::InHost, 0, S::None),
        it(T::Eq, b'-', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'_', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'.', 4, St::InHostFirstDomain, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHostDomain
    &[
        it(T::Eof, 0, 65, St::Base, 6, S::None),
        it(T::AscLet, 0, 0, St::InHostDomain, 0, S::None),
        it(T::Digit, 0, 4, St::InHost, 0, S::None),
        it(T::Eq, b':', 4, St::InPortFirst, 0, S::None),
        it(T::Eq, b'-', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'_', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'.', 4, St::InHostFirstDomain, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::Digit, 0, 2, St::Null, 0, S::None),
        it(T::StopHost, 0, 65, St::InURLPathStart, 6, S::None),
        it(T::Eq, b'/', 4, St::InFURL, 0, S::None),
        it(T::Any, 0, 65, St::Base, 6, S::None),
    ],
    // TPS_InPortFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InPort, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InPort
    &[
        it(T::Eof, 0, 65, St::Base, 6, S::None),
        it(T::Digit, 0, 0, St::InPort, 0, S::None),
        it(T::StopHost, 0, 65, St::InURLPathStart, 6, S::None),
        it(T::Eq, b'/', 4, St::InFURL, 0, S::None),
        it(T::Any, 0, 65, St::Base, 6, S::None),
    ],
    // TPS_InHostFirstAN
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InHost, 0, S::None),
        it(T::AscLet, 0, 0, St::InHost, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHost
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InHost, 0, S::None),
        it(T::AscLet, 0, 0, St::InHost, 0, S::None),
        it(T::Eq, b'@', 4, St::InEmail, 0, S::None),
        it(T::Eq, b'.', 4, St::InHostFirstDomain, 0, S::None),
        it(T::Eq, b'-', 4, St::InHostFirstAN, 0, S::None),
        it(T::Eq, b'_', 4, St::InHostFirstAN, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InEmail
    &[
        it(T::StopHost, 0, 2, St::Null, 0, S::None),
        it(T::Host, 0, 65, St::Base, 4, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InFileFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InFile, 0, S::None),
        it(T::Digit, 0, 0, St::InFile, 0, S::None),
        it(T::Eq, b'.', 0, St::InPathFirst, 0, S::None),
        it(T::Eq, b'_', 0, St::InFile, 0, S::None),
        it(T::Eq, b'~', 4, St::InFileTwiddle, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InFileTwiddle
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InFile, 0, S::None),
        it(T::Digit, 0, 0, St::InFile, 0, S::None),
        it(T::Eq, b'_', 0, St::InFile, 0, S::None),
        it(T::Eq, b'/', 0, St::InFileFirst, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InPathFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InFile, 0, S::None),
        it(T::Digit, 0, 0, St::InFile, 0, S::None),
        it(T::Eq, b'_', 0, St::InFile, 0, S::None),
        it(T::Eq, b'.', 0, St::InPathSecond, 0, S::None),
        it(T::Eq, b'/', 0, St::InFileFirst, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InPathFirstFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'.', 0, St::InPathSecond, 0, S::None),
        it(T::Eq, b'/', 0, St::InFileFirst, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InPathSecond
    &[
        it(T::Eof, 0, 17, St::Base, 19, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Eq, b'/', 17, St::Base, 19, S::None),
        it(T::Space, 0, 17, St::Base, 19, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InFile
    &[
        it(T::Eof, 0, 1, St::Base, 19, S::None),
        it(T::AscLet, 0, 0, St::InFile, 0, S::None),
        it(T::Digit, 0, 0, St::InFile, 0, S::None),
        it(T::Eq, b'.', 4, St::InFileNext, 0, S::None),
        it(T::Eq, b'_', 0, St::InFile, 0, S::None),
        it(T::Eq, b'-', 0, St::InFile, 0, S::None),
        it(T::Eq, b'/', 4, St::InFileFirst, 0, S::None),
        it(T::Any, 0, 1, St::Base, 19, S::None),
    ],
    // TPS_InFileNext
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 16, St::InFile, 0, S::None),
        it(T::Digit, 0, 16, St::InFile, 0, S::None),
        it(T::Eq, b'_', 16, St::InFile, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InURLPathFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::UrlChar, 0, 0, St::InURLPath, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InURLPathStart
    &[it(T::Any, 0, 0, St::InURLPath, 0, S::None)],
    // TPS_InURLPath
    &[
        it(T::Eof, 0, 1, St::Base, 18, S::None),
        it(T::UrlChar, 0, 0, St::InURLPath, 0, S::None),
        it(T::Any, 0, 1, St::Base, 18, S::None),
    ],
    // TPS_InFURL
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::UrlPath, 0, 65, St::Base, 5, S::Furl),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InProtocolFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'/', 0, St::InProtocolSecond, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InProtocolSecond
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Eq, b'/', 0, St::InProtocolEnd, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InProtocolEnd
    &[it(T::Any, 0, 65, St::Base, 14, S::None)],
    // TPS_InHyphenAsciiWordFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::AscLet, 0, 0, St::InHyphenAsciiWord, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenDigitLookahead, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHyphenAsciiWord
    &[
        it(T::Eof, 0, 65, St::InParseHyphen, 16, S::Hyphen),
        it(T::AscLet, 0, 0, St::InHyphenAsciiWord, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenAsciiWordFirst, 0, S::None),
        it(T::Any, 0, 65, St::InParseHyphen, 16, S::Hyphen),
    ],
    // TPS_InHyphenWordFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenDigitLookahead, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHyphenWord
    &[
        it(T::Eof, 0, 65, St::InParseHyphen, 17, S::Hyphen),
        it(T::Alpha, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenWord, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenWordFirst, 0, S::None),
        it(T::Any, 0, 65, St::InParseHyphen, 17, S::Hyphen),
    ],
    // TPS_InHyphenNumWordFirst
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenDigitLookahead, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHyphenNumWord
    &[
        it(T::Eof, 0, 65, St::InParseHyphen, 15, S::Hyphen),
        it(T::Alnum, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Eq, b'-', 4, St::InHyphenNumWordFirst, 0, S::None),
        it(T::Any, 0, 65, St::InParseHyphen, 15, S::Hyphen),
    ],
    // TPS_InHyphenDigitLookahead
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenDigitLookahead, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenNumWord, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InParseHyphen
    &[
        it(T::Eof, 0, 8, St::Base, 0, S::None),
        it(T::AscLet, 0, 0, St::InHyphenAsciiWordPart, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWordPart, 0, S::None),
        it(T::Digit, 0, 4, St::InHyphenUnsignedInt, 0, S::None),
        it(T::Eq, b'-', 4, St::InParseHyphenHyphen, 0, S::None),
        it(T::Any, 0, 8, St::Base, 0, S::None),
    ],
    // TPS_InParseHyphenHyphen
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Alnum, 0, 17, St::InParseHyphen, 12, S::None),
        it(T::Special, 0, 17, St::InParseHyphen, 12, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
    // TPS_InHyphenWordPart
    &[
        it(T::Eof, 0, 1, St::Base, 10, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWordPart, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenWordPart, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenNumWordPart, 0, S::None),
        it(T::Any, 0, 1, St::InParseHyphen, 10, S::None),
    ],
    // TPS_InHyphenAsciiWordPart
    &[
        it(T::Eof, 0, 1, St::Base, 11, S::None),
        it(T::AscLet, 0, 0, St::InHyphenAsciiWordPart, 0, S::None),
        it(T::Alpha, 0, 0, St::InHyphenWordPart, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenWordPart, 0, S::None),
        it(T::Digit, 0, 0, St::InHyphenNumWordPart, 0, S::None),
        it(T::Any, 0, 1, St::InParseHyphen, 11, S::None),
    ],
    // TPS_InHyphenNumWordPart
    &[
        it(T::Eof, 0, 1, St::Base, 9, S::None),
        it(T::Alnum, 0, 0, St::InHyphenNumWordPart, 0, S::None),
        it(T::Special, 0, 0, St::InHyphenNumWordPart, 0, S::None),
        it(T::Any, 0, 1, St::InParseHyphen, 9, S::None),
    ],
    // TPS_InHyphenUnsignedInt
    &[
        it(T::Eof, 0, 2, St::Null, 0, S::None),
        it(T::Digit, 0, 0, St::Null, 0, S::None),
        it(T::Alpha, 0, 16, St::InHyphenNumWordPart, 0, S::None),
        it(T::Special, 0, 16, St::InHyphenNumWordPart, 0, S::None),
        it(T::Any, 0, 2, St::Null, 0, S::None),
    ],
];
