//! Binary string functions: what PostgreSQL's varlena.c and encode.c
//! give `bytea` beyond `||`, `substring`, `length` and `md5`.
//!
//! * `encode(bytea, fmt)` / `decode(text, fmt)` with the formats `hex`,
//!   `base64` and `escape`, byte for byte as encode.c writes and reads
//!   them: base64 lines break after 76 characters (so 57 bytes of input end
//!   in a newline, as PostgreSQL's do), decoding skips whitespace, `escape`
//!   writes NUL and high-bit bytes as `\ooo` and a backslash as `\\`.
//! * `get_byte`, `set_byte`, `get_bit`, `set_bit` (bit `n` is bit `n % 8`
//!   of byte `n / 8`, least significant first), `bit_length`, `bit_count`
//!   (the number of set bits).
//! * `like_escape(bytea, bytea)`, what `b LIKE p ESCAPE e` calls on bytea.
//! * `sha224`, `sha256`, `sha384`, `sha512` of a `bytea` (a text column
//!   needs a cast, as in PostgreSQL: there is no `sha256(text)`).
//! * The `bytea` forms of `btrim`/`ltrim`/`rtrim`, `position` and
//!   `overlay`; the text forms stay in [`crate::functions`] and
//!   [`crate::string_fns`], so [`resolve`] answers only for bytea
//!   arguments of those names.
//! * `convert_to(text, enc)`, `convert_from(bytea, enc)` and
//!   `convert(bytea, src, dst)` between the server encoding (UTF8),
//!   `SQL_ASCII` and `LATIN1`. Any other encoding PostgreSQL knows is
//!   0A000 naming it; a name PostgreSQL does not know is its 22023
//!   `invalid source/destination encoding name`.
//!
//! ```text
//!   encode('\x00ff5c61', 'escape')  =  \000\377\\a
//!   set_bit('\x01', 1, 1)           =  \x03
//! ```

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use sha2::Digest;

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{
    check_result_len, is_int_like as is_int, is_text_arg as is_text, no_function, Imp, Resolved,
};
use crate::value::Value;

/// Every function of this module (some shared with the text library).
pub(crate) const NAMES: &[&str] = &[
    "encode",
    "decode",
    "get_byte",
    "set_byte",
    "get_bit",
    "set_bit",
    "bit_length",
    "bit_count",
    "like_escape",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "btrim",
    "ltrim",
    "rtrim",
    "position",
    "overlay",
    "convert_to",
    "convert_from",
    "convert",
];

/// Names that belong to the text library unless an argument is bytea.
const SHARED: &[&str] = &[
    "btrim",
    "ltrim",
    "rtrim",
    "position",
    "overlay",
    "bit_length",
    "like_escape",
];

fn is_bytea(t: DataType) -> bool {
    matches!(t, DataType::Bytea | DataType::Unknown)
}

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    use DataType as T;
    let has_bytea = args.contains(&T::Bytea);
    if SHARED.contains(&name) && !has_bytea {
        // bit_length of a string: its octets times eight.
        if name == "bit_length" && matches!(args, [t] if is_text(*t)) {
            return Some(Ok(Resolved::listed(
                NAMES,
                name,
                bit_length,
                vec![T::Text],
                T::Int4,
                false,
            )));
        }
        return None;
    }
    let b = T::Bytea;
    let (imp, arg_types, ret): (Imp, Vec<T>, T) = match (name, args) {
        ("encode", [x, f]) if is_bytea(*x) && is_text(*f) => (encode, vec![b, T::Text], T::Text),
        ("decode", [x, f]) if is_text(*x) && is_text(*f) => (decode, vec![T::Text, T::Text], b),
        ("get_byte", [x, n]) if is_bytea(*x) && is_int(*n) => (get_byte, vec![b, T::Int4], T::Int4),
        ("set_byte", [x, n, v]) if is_bytea(*x) && is_int(*n) && is_int(*v) => {
            (set_byte, vec![b, T::Int4, T::Int4], b)
        }
        ("get_bit", [x, n]) if is_bytea(*x) && is_int(*n) => (get_bit, vec![b, T::Int8], T::Int4),
        ("set_bit", [x, n, v]) if is_bytea(*x) && is_int(*n) && is_int(*v) => {
            (set_bit, vec![b, T::Int8, T::Int4], b)
        }
        ("bit_length", [T::Bytea]) => (bit_length, vec![b], T::Int4),
        ("bit_count", [x]) if is_bytea(*x) => (bit_count, vec![b], T::Int8),
        ("like_escape", [p, e]) if is_bytea(*p) && is_bytea(*e) => (like_escape, vec![b, b], b),
        ("sha224" | "sha256" | "sha384" | "sha512", [x]) if is_bytea(*x) => {
            let imp: Imp = match name {
                "sha224" => |a, _| digest::<sha2::Sha224>(a),
                "sha256" => |a, _| digest::<sha2::Sha256>(a),
                "sha384" => |a, _| digest::<sha2::Sha384>(a),
                _ => |a, _| digest::<sha2::Sha512>(a),
            };
            (imp, vec![b], b)
        }
        ("btrim" | "ltrim" | "rtrim", [x, y]) if is_bytea(*x) && is_bytea(*y) => {
            let imp: Imp = match name {
                "btrim" => |a, _| trim(a, true, true),
                "ltrim" => |a, _| trim(a, true, false),
                _ => |a, _| trim(a, false, true),
            };
            (imp, vec![b, b], b)
        }
        ("position", [x, y]) if is_bytea(*x) && is_bytea(*y) => (position, vec![b, b], T::Int4),
        ("overlay", [x, y, f, rest @ ..])
            if rest.len() <= 1
                && is_bytea(*x)
                && is_bytea(*y)
                && is_int(*f)
                && rest.iter().all(|t| is_int(*t)) =>
        {
            (
                overlay,
                vec![b, b, T::Int4, T::Int4][..args.len()].to_vec(),
                b,
            )
        }
        ("convert_to", [x, e]) if is_text(*x) && is_text(*e) => {
            (convert_to, vec![T::Text, T::Text], b)
        }
        ("convert_from", [x, e]) if is_bytea(*x) && is_text(*e) => {
            (convert_from, vec![b, T::Text], T::Text)
        }
        ("convert", [x, s, d]) if is_bytea(*x) && is_text(*s) && is_text(*d) => {
            (convert, vec![b, T::Text, T::Text], b)
        }
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, false,
    )))
}

fn bytes(v: &Value) -> &[u8] {
    match v {
        Value::Bytea(b) => b,
        Value::Text(s) => s.as_bytes(),
        other => unreachable!("bytea argument bound as {other:?}"),
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().expect("text argument")
}

fn int(v: &Value) -> i64 {
    v.as_i64().expect("integer argument")
}

fn bytea(v: Vec<u8>) -> Result<Value, DbError> {
    check_result_len(v.len())?;
    Ok(Value::Bytea(Arc::from(v)))
}

fn null_in(a: &[Value]) -> bool {
    a.iter().any(Value::is_null)
}

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

fn encode(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let data = bytes(&a[0]);
    let out = match str_of(&a[1]).to_ascii_lowercase().as_str() {
        "hex" => hex_encode(data),
        "base64" => base64_encode(data),
        "escape" => escape_encode(data),
        _ => return Err(unknown_format(str_of(&a[1]))),
    };
    check_result_len(out.len())?;
    Ok(Value::Text(Arc::from(out)))
}

fn decode(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let data = str_of(&a[0]).as_bytes();
    let out = match str_of(&a[1]).to_ascii_lowercase().as_str() {
        "hex" => hex_decode(data)?,
        "base64" => base64_decode(data)?,
        "escape" => escape_decode(data)?,
        _ => return Err(unknown_format(str_of(&a[1]))),
    };
    bytea(out)
}

fn unknown_format(f: &str) -> DbError {
    invalid(format!("unrecognized encoding: \"{f}\""))
}

fn hex_encode(data: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(data.len() * 2);
    for &b in data {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// encode.c's hex_decode: whitespace between digit pairs is skipped.
fn hex_decode(data: &[u8]) -> Result<Vec<u8>, DbError> {
    let digit = |i: usize| -> Result<u8, DbError> {
        let c = data[i];
        char::from(c).to_digit(16).map(|d| d as u8).ok_or_else(|| {
            let ch = std::str::from_utf8(&data[i..])
                .ok()
                .and_then(|s| s.chars().next())
                .unwrap_or(char::from(c));
            invalid(format!("invalid hexadecimal digit: \"{ch}\""))
        })
    };
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut i = 0;
    while i < data.len() {
        if is_space(data[i]) {
            i += 1;
            continue;
        }
        let hi = digit(i)?;
        i += 1;
        if i >= data.len() {
            return Err(invalid("invalid hexadecimal data: odd number of digits"));
        }
        out.push(hi << 4 | digit(i)?);
        i += 1;
    }
    Ok(out)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Characters of output per base64 line.
const BASE64_LINE_CHARS: usize = 76;

/// encode.c's pg_base64_encode, including its newline after a full line
/// even when no input follows.
fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len() * 4 / 3 + data.len() / 57 + 4);
    let mut line = 0;
    let sym = |x: u32| char::from(BASE64[(x & 0x3f) as usize]);
    for chunk in data.chunks(3) {
        let buf = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        out.push(sym(buf >> 18));
        out.push(sym(buf >> 12));
        if chunk.len() == 3 {
            out.push(sym(buf >> 6));
            out.push(sym(buf));
            line += 4;
            if line >= BASE64_LINE_CHARS {
                out.push('\n');
                line = 0;
            }
        } else {
            out.push(if chunk.len() == 2 { sym(buf >> 6) } else { '=' });
            out.push('=');
        }
    }
    out
}

/// encode.c's pg_base64_decode: whitespace is skipped, `=` may only end a
/// group of four after two or three symbols.
fn base64_decode(data: &[u8]) -> Result<Vec<u8>, DbError> {
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let (mut buf, mut pos, mut end) = (0u32, 0, 0);
    for (i, &c) in data.iter().enumerate() {
        if is_space(c) {
            continue;
        }
        let b = if c == b'=' {
            if end == 0 {
                end = match pos {
                    2 => 1,
                    3 => 2,
                    _ => return Err(invalid("unexpected \"=\" while decoding base64 sequence")),
                };
            }
            0
        } else {
            match BASE64.iter().position(|&x| x == c) {
                Some(b) => b as u32,
                None => {
                    let ch = std::str::from_utf8(&data[i..])
                        .ok()
                        .and_then(|s| s.chars().next())
                        .unwrap_or(char::from(c));
                    return Err(invalid(format!(
                        "invalid symbol \"{ch}\" found while decoding base64 sequence"
                    )));
                }
            }
        };
        buf = (buf << 6) + b;
        pos += 1;
        if pos == 4 {
            out.push((buf >> 16) as u8);
            if end == 0 || end > 1 {
                out.push((buf >> 8) as u8);
            }
            if end == 0 || end > 2 {
                out.push(buf as u8);
            }
            buf = 0;
            pos = 0;
        }
    }
    if pos != 0 {
        return Err(invalid("invalid base64 end sequence")
            .with_hint("Input data is missing padding, is truncated, or is otherwise corrupted."));
    }
    Ok(out)
}

fn escape_encode(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len());
    for &c in data {
        if c == 0 || c >= 0x80 {
            s.push('\\');
            for shift in [6, 3, 0] {
                s.push(char::from(b'0' + ((c >> shift) & 7)));
            }
        } else if c == b'\\' {
            s.push_str("\\\\");
        } else {
            s.push(char::from(c));
        }
    }
    s
}

fn escape_decode(data: &[u8]) -> Result<Vec<u8>, DbError> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    let octal = |c: u8, max: u8| (b'0'..=max).contains(&c);
    while i < data.len() {
        if data[i] != b'\\' {
            out.push(data[i]);
            i += 1;
        } else if i + 3 < data.len()
            && octal(data[i + 1], b'3')
            && octal(data[i + 2], b'7')
            && octal(data[i + 3], b'7')
        {
            out.push((data[i + 1] - b'0') << 6 | (data[i + 2] - b'0') << 3 | (data[i + 3] - b'0'));
            i += 4;
        } else if i + 1 < data.len() && data[i + 1] == b'\\' {
            out.push(b'\\');
            i += 2;
        } else {
            return Err(DbError::new(
                SqlState::InvalidTextRepresentation,
                "invalid input syntax for type bytea",
            ));
        }
    }
    Ok(out)
}

fn out_of_range(n: i64, len: usize, per_byte: i64) -> DbError {
    DbError::new(
        SqlState::ArraySubscriptError,
        format!(
            "index {n} out of valid range, 0..{}",
            len as i64 * per_byte - 1
        ),
    )
}

/// The byte index `n` addresses in `data` (`per_byte` 1 for bytes, 8 for bits).
fn checked_index(data: &[u8], n: i64, per_byte: i64) -> Result<usize, DbError> {
    if n < 0 || n >= data.len() as i64 * per_byte {
        return Err(out_of_range(n, data.len(), per_byte));
    }
    Ok((n / per_byte) as usize)
}

fn get_byte(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let data = bytes(&a[0]);
    let i = checked_index(data, int(&a[1]), 1)?;
    Ok(Value::Int4(i32::from(data[i])))
}

fn set_byte(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let mut data = bytes(&a[0]).to_vec();
    let i = checked_index(&data, int(&a[1]), 1)?;
    // PostgreSQL stores the low byte of the new value.
    data[i] = int(&a[2]) as u8;
    bytea(data)
}

fn get_bit(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let data = bytes(&a[0]);
    let n = int(&a[1]);
    let i = checked_index(data, n, 8)?;
    Ok(Value::Int4(i32::from(data[i] >> (n % 8) & 1)))
}

fn set_bit(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let mut data = bytes(&a[0]).to_vec();
    let n = int(&a[1]);
    let i = checked_index(&data, n, 8)?;
    let mask = 1u8 << (n % 8);
    match int(&a[2]) {
        0 => data[i] &= !mask,
        1 => data[i] |= mask,
        _ => return Err(invalid("new bit must be 0 or 1")),
    }
    bytea(data)
}

fn bit_count(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let ones: u64 = bytes(&a[0]).iter().map(|b| u64::from(b.count_ones())).sum();
    Ok(Value::Int8(ones as i64))
}

/// The pattern rewritten to use backslash as its escape (the text form's
/// rule, [`crate::string_fns::like_escape_chars`], over bytes read as
/// Latin-1 characters).
fn like_escape(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let escape = crate::string_fns::escape_char(&latin1(bytes(&a[1])))?;
    let out = crate::string_fns::like_escape_chars(&latin1(bytes(&a[0])), escape);
    bytea(out.chars().map(|c| c as u32 as u8).collect())
}

/// Each byte as the Latin-1 character of its value: LIKE's matchers and
/// rewrites, written over characters, then see one character per byte.
pub fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

fn bit_length(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let bits = bytes(&a[0]).len() as i64 * 8;
    i32::try_from(bits)
        .map(Value::Int4)
        .map_err(|_| DbError::new(SqlState::NumericValueOutOfRange, "integer out of range"))
}

fn digest<D: Digest>(a: &[Value]) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    bytea(D::digest(bytes(&a[0])).to_vec())
}

/// byteatrim / byteaLtrim / byteaRtrim: drop bytes of the set from the ends.
fn trim(a: &[Value], left: bool, right: bool) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let (data, set) = (bytes(&a[0]), bytes(&a[1]));
    let mut s = data;
    if left {
        while let Some((first, rest)) = s.split_first() {
            if !set.contains(first) {
                break;
            }
            s = rest;
        }
    }
    if right {
        while let Some((last, rest)) = s.split_last() {
            if !set.contains(last) {
                break;
            }
            s = rest;
        }
    }
    bytea(s.to_vec())
}

/// byteapos: 1-based offset of the first occurrence, 0 if none; an empty
/// pattern is found at 1.
fn position(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let (hay, needle) = (bytes(&a[0]), bytes(&a[1]));
    let found = if needle.is_empty() {
        Some(0)
    } else {
        hay.windows(needle.len()).position(|w| w == needle)
    };
    Ok(Value::Int4(found.map_or(0, |i| i as i32 + 1)))
}

/// byteaoverlay: `substring(s, 1, from - 1) || p || substring(s, from + len)`,
/// with bytea_substring's errors.
fn overlay(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let (s, p) = (bytes(&a[0]), bytes(&a[1]));
    let from = int(&a[2]);
    let len = a.get(3).map_or(p.len() as i64, int);
    let negative = || {
        DbError::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        )
    };
    if from - 1 < 0 || len < 0 {
        return Err(negative());
    }
    let head = &s[..((from - 1) as usize).min(s.len())];
    let tail_start = i32::try_from(from + len)
        .map_err(|_| DbError::new(SqlState::NumericValueOutOfRange, "integer out of range"))?;
    let tail = &s[((tail_start - 1).max(0) as usize).min(s.len())..];
    bytea([head, p, tail].concat())
}

/// An encoding `convert_*` can read or write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    SqlAscii,
    Latin1,
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF8",
            Encoding::SqlAscii => "SQL_ASCII",
            Encoding::Latin1 => "LATIN1",
        }
    }
}

/// PostgreSQL's encoding names and aliases (pg_char_to_encoding's table,
/// compared without case, `-` and `_`), those Nestor converts first.
const OTHER_ENCODINGS: &[&str] = &[
    "big5",
    "eucjis2004",
    "eucjp",
    "euckr",
    "euccn",
    "euctw",
    "gb18030",
    "gbk",
    "iso885910",
    "iso885913",
    "iso885914",
    "iso885915",
    "iso885916",
    "iso88592",
    "iso88593",
    "iso88594",
    "iso88595",
    "iso88596",
    "iso88597",
    "iso88598",
    "iso88599",
    "johab",
    "koi8",
    "koi8r",
    "koi8u",
    "latin10",
    "latin2",
    "latin3",
    "latin4",
    "latin5",
    "latin6",
    "latin7",
    "latin8",
    "latin9",
    "mskanji",
    "muleinternal",
    "shiftjis",
    "shiftjis2004",
    "sjis",
    "tcvn",
    "tcvn5712",
    "uhc",
    "vscii",
    "win",
    "win1250",
    "win1251",
    "win1252",
    "win1253",
    "win1254",
    "win1255",
    "win1256",
    "win1257",
    "win1258",
    "win866",
    "win874",
    "win932",
    "win936",
    "win949",
    "win950",
    "windows1250",
    "windows1251",
    "windows1252",
    "windows1253",
    "windows1254",
    "windows1255",
    "windows1256",
    "windows1257",
    "windows1258",
    "windows866",
    "windows874",
    "windows932",
    "windows936",
    "windows949",
    "windows950",
    "abc",
    "alt",
    "eucjp",
    "isoir144",
    "isoir100",
];

/// The encoding named `name`; `role` is "source" or "destination".
fn encoding(name: &str, role: &str) -> Result<Encoding, DbError> {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match key.as_str() {
        "utf8" | "unicode" => Ok(Encoding::Utf8),
        "sqlascii" => Ok(Encoding::SqlAscii),
        "latin1" | "iso88591" => Ok(Encoding::Latin1),
        k if OTHER_ENCODINGS.contains(&k) => Err(DbError::unsupported(format!(
            "conversion to or from encoding \"{name}\""
        ))),
        _ => Err(invalid(format!("invalid {role} encoding name \"{name}\""))),
    }
}

/// The text `data` in `enc` says, checked as pg_verify_mbstr checks it.
fn read_in(data: &[u8], enc: Encoding) -> Result<String, DbError> {
    match enc {
        Encoding::Latin1 => Ok(data.iter().map(|&b| char::from(b)).collect()),
        Encoding::Utf8 | Encoding::SqlAscii => {
            let bad = match std::str::from_utf8(data) {
                Ok(s) => match s.find('\0') {
                    None => return Ok(s.to_owned()),
                    Some(i) => i,
                },
                Err(e) => e.valid_up_to(),
            };
            // SQL_ASCII text is read as the server encoding.
            Err(DbError::invalid_utf8(&data[bad..]))
        }
    }
}

/// The bytes of `s` in `enc`.
fn write_out(s: &str, enc: Encoding) -> Result<Vec<u8>, DbError> {
    match enc {
        Encoding::Utf8 | Encoding::SqlAscii => Ok(s.as_bytes().to_vec()),
        Encoding::Latin1 => s
            .chars()
            .map(|c| {
                u8::try_from(u32::from(c)).map_err(|_| {
                    let mut buf = [0u8; 4];
                    let seq: Vec<String> = c
                        .encode_utf8(&mut buf)
                        .bytes()
                        .map(|b| format!("0x{b:02x}"))
                        .collect();
                    DbError::new(
                        SqlState::UntranslatableCharacter,
                        format!(
                            "character with byte sequence {} in encoding \"UTF8\" has no equivalent in encoding \"{}\"",
                            seq.join(" "),
                            enc.name()
                        ),
                    )
                })
            })
            .collect(),
    }
}

fn convert_to(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let enc = encoding(str_of(&a[1]), "destination")?;
    bytea(write_out(str_of(&a[0]), enc)?)
}

fn convert_from(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let enc = encoding(str_of(&a[1]), "source")?;
    let s = read_in(bytes(&a[0]), enc)?;
    Ok(Value::Text(Arc::from(s)))
}

fn convert(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if null_in(a) {
        return Ok(Value::Null);
    }
    let src = encoding(str_of(&a[1]), "source")?;
    let dst = encoding(str_of(&a[2]), "destination")?;
    let text = read_in(bytes(&a[0]), src)?;
    bytea(write_out(&text, dst)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_breaks_lines_as_postgresql() {
        for n in [0usize, 1, 2, 3, 56, 57, 58, 200] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            let enc = base64_encode(&data);
            assert_eq!(base64_decode(enc.as_bytes()).unwrap(), data, "n={n}");
            assert!(enc.lines().all(|l| l.len() <= BASE64_LINE_CHARS));
        }
        assert!(base64_encode(&[b'a'; 57]).ends_with('\n'));
        assert_eq!(base64_encode(b"ab"), "YWI=");
        assert!(base64_decode(b"YQ").is_err());
        assert!(base64_decode(b"Y=Q=").is_err());
    }

    #[test]
    fn hex_and_escape() {
        assert_eq!(hex_decode(b"01 ff\n0A").unwrap(), vec![1, 255, 10]);
        assert!(hex_decode(b"abc").is_err());
        assert!(hex_decode(b"zz").is_err());
        assert_eq!(escape_encode(&[0, 255, b'\\', b'a']), "\\000\\377\\\\a");
        assert_eq!(
            escape_decode(b"\\000\\377\\\\a").unwrap(),
            vec![0, 255, b'\\', b'a']
        );
        assert!(escape_decode(b"\\q").is_err());
    }

    #[test]
    fn encodings() {
        assert_eq!(write_out("é", Encoding::Latin1).unwrap(), vec![0xe9]);
        assert!(write_out("€", Encoding::Latin1).is_err());
        assert_eq!(read_in(&[0xe9], Encoding::Latin1).unwrap(), "é");
        assert!(read_in(&[0xff], Encoding::Utf8).is_err());
        assert!(read_in(&[0x61, 0], Encoding::Utf8).is_err());
        assert!(encoding("foo", "source").is_err());
        assert!(encoding("utf-8", "source").is_ok());
    }
}
