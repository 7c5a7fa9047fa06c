//! Bit strings: `bit(n)` and `bit varying(n)` (PostgreSQL's varbit.c).
//!
//! A [`BitString`] is its length in bits and its bytes, most significant
//! bit first, the unused bits of the last byte zero (so equal strings have
//! equal bytes). Both SQL types share it (`Value::Bits`); the static type
//! says which one an expression is, and only typmods tell them apart:
//! `bit(n)` must be exactly `n` bits long, `bit varying(n)` at most `n`.
//!
//! * Input (`bit_in`/`varbit_in`): `B'0101'` / `'0101'` binary digits,
//!   `X'1F'` / `'x1f'` hex digits (4 bits each); anything else is 22P02
//!   `"c" is not a valid binary digit`. The parser's `B'..'`/`X'..'`
//!   constants arrive as `b0101` / `x1F`, the same input.
//! * Fitting to a typmod ([`fit`]): an explicit cast pads `bit(n)` with
//!   zeros or truncates it, truncates `bit varying(n)`; otherwise a wrong
//!   length is 22026 `bit string length 2 does not match type bit(4)` and
//!   a long varbit 22001 `bit string too long for type bit varying(3)`.
//! * Order (`bit_cmp`): the common bytes, then the length; `&`, `|`, `#`
//!   need equal lengths (22026 `cannot AND bit strings of different
//!   sizes`), `<<`/`>>` keep the length and fill with zeros (a negative
//!   count shifts the other way).
//! * Functions ([`resolve`], answering only when an argument is a bit
//!   string): length, bit_length, octet_length, position, substring,
//!   overlay, get_bit, set_bit, bit_count, and the operators' functions
//!   bitcat, bitand, bitor, bitxor, bitnot, bitshiftleft, bitshiftright.
//! * Integers (`bitfromint4`, `bittoint4`, ...): `int::bit(n)` keeps the
//!   low `n` bits (sign-extending past the integer's width); `bit::int4`
//!   reads the string as an unsigned number, 22003 past the width.
//!
//! ```text
//!   B'1010' & B'0110' = 0010      B'1010' << 1 = 0100
//!   X'1F'              = 00011111  '101'::bit(4) = 1010
//! ```

use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{is_int_like as is_int, no_function, Imp, Resolved};
use crate::value::Value;

/// Longest bit string a type modifier may ask for, in bits (PostgreSQL's
/// `MaxAttrSize * BITS_PER_BYTE`); also the longest value built.
pub const BIT_STRING_LEN_MAX_BITS: usize = 83_886_080;

/// A string of bits, most significant first; padding bits are zero.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitString {
    len: usize,
    bytes: Box<[u8]>,
}

impl BitString {
    /// `len` zero bits.
    pub fn zeros(len: usize) -> BitString {
        BitString {
            len,
            bytes: vec![0; len.div_ceil(8)].into_boxed_slice(),
        }
    }

    /// From bytes holding `len` bits (extra bits are cleared).
    pub fn from_bytes(len: usize, bytes: &[u8]) -> BitString {
        let mut b = BitString::zeros(len);
        let n = b.bytes.len();
        b.bytes.copy_from_slice(&bytes[..n]);
        b.clear_padding();
        b
    }

    fn clear_padding(&mut self) {
        let rem = self.len % 8;
        if rem != 0 {
            if let Some(last) = self.bytes.last_mut() {
                *last &= 0xFFu8 << (8 - rem);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn get(&self, i: usize) -> bool {
        self.bytes[i / 8] & (0x80 >> (i % 8)) != 0
    }

    fn set(&mut self, i: usize, on: bool) {
        let m = 0x80 >> (i % 8);
        if on {
            self.bytes[i / 8] |= m;
        } else {
            self.bytes[i / 8] &= !m;
        }
    }

    fn from_bits(bits: impl ExactSizeIterator<Item = bool>) -> BitString {
        let mut b = BitString::zeros(bits.len());
        for (i, on) in bits.enumerate() {
            if on {
                b.set(i, true);
            }
        }
        b
    }

    fn bits(&self) -> impl ExactSizeIterator<Item = bool> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// The value of this bit string.
    pub fn value(self) -> Value {
        Value::Bits(Arc::new(self))
    }

    /// Its text: one `0`/`1` per bit.
    pub fn to_text(&self) -> String {
        self.bits().map(|b| if b { '1' } else { '0' }).collect()
    }
}

/// bit_cmp: the common bytes, then the length.
impl Ord for BitString {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.bytes.len().min(other.bytes.len());
        self.bytes[..n]
            .cmp(&other.bytes[..n])
            .then(self.len.cmp(&other.len))
    }
}

impl PartialOrd for BitString {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn invalid_param(msg: String) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

/// The length a type modifier gives `bit(n)` / `varbit(n)` (`what` names
/// the type in the message); None without one.
pub(crate) fn type_length(what: &str, typmods: &[i64]) -> Result<Option<u32>, DbError> {
    match typmods {
        [] => Ok(None),
        [n] if *n < 1 => Err(invalid_param(format!(
            "length for type {what} must be at least 1"
        ))),
        [n] if *n as u64 > BIT_STRING_LEN_MAX_BITS as u64 => Err(invalid_param(format!(
            "length for type {what} cannot exceed {BIT_STRING_LEN_MAX_BITS}"
        ))),
        [n] => Ok(Some(*n as u32)),
        _ => Err(invalid_param("invalid type modifier".into())),
    }
}

fn too_long_input() -> DbError {
    DbError::new(
        SqlState::ProgramLimitExceeded,
        format!("bit string length exceeds the maximum allowed ({BIT_STRING_LEN_MAX_BITS})"),
    )
}

/// bit_in / varbit_in without a modifier: binary digits, or hex digits
/// after a leading `x`/`X` (a leading `b`/`B` is skipped).
pub fn parse(input: &str) -> Result<BitString, DbError> {
    let (hex, digits) = match input.as_bytes().first() {
        Some(b'x' | b'X') => (true, &input[1..]),
        Some(b'b' | b'B') => (false, &input[1..]),
        _ => (false, input),
    };
    let per = if hex { 4 } else { 1 };
    let len = digits.len() * per;
    if len > BIT_STRING_LEN_MAX_BITS {
        return Err(too_long_input());
    }
    let mut b = BitString::zeros(len);
    for (i, c) in digits.chars().enumerate() {
        let (v, kind) = if hex {
            (c.to_digit(16), "hexadecimal")
        } else {
            (c.to_digit(2), "binary")
        };
        let Some(v) = v else {
            return Err(DbError::new(
                SqlState::InvalidTextRepresentation,
                format!("\"{c}\" is not a valid {kind} digit"),
            ));
        };
        for k in 0..per {
            if v & (1 << (per - 1 - k)) != 0 {
                b.set(i * per + k, true);
            }
        }
    }
    Ok(b)
}

/// The input function of a bit string type: [`parse`], then the length
/// checked against the type's modifier as bit_in / varbit_in check it.
pub(crate) fn parse_typed(ty: DataType, input: &str) -> Result<Value, DbError> {
    let b = parse(input)?;
    fit(b, ty, false).map(BitString::value)
}

fn length_mismatch(len: usize, n: u32) -> DbError {
    DbError::new(
        SqlState::StringDataLengthMismatch,
        format!("bit string length {len} does not match type bit({n})"),
    )
}

/// A bit string fitted to `ty`'s length (the `bit(b, n, explicit)` and
/// `varbit(b, n, explicit)` length coercions; see the module header).
pub fn fit(b: BitString, ty: DataType, explicit: bool) -> Result<BitString, DbError> {
    match ty {
        DataType::Bit(Some(n)) if b.len != n as usize => {
            if !explicit {
                return Err(length_mismatch(b.len, n));
            }
            Ok(resized(&b, n as usize))
        }
        DataType::VarBit(Some(n)) if b.len > n as usize => {
            if !explicit {
                return Err(DbError::new(
                    SqlState::StringDataRightTruncation,
                    format!("bit string too long for type bit varying({n})"),
                ));
            }
            Ok(resized(&b, n as usize))
        }
        _ => Ok(b),
    }
}

/// The first `n` bits, zero-padded.
fn resized(b: &BitString, n: usize) -> BitString {
    let mut out = BitString::zeros(n);
    let k = out.bytes.len().min(b.bytes.len());
    out.bytes[..k].copy_from_slice(&b.bytes[..k]);
    out.clear_padding();
    out
}

/// `int::bit(n)` (bitfromint4 / bitfromint8): the integer's low `n`
/// bits, sign-extended past its `width` bits.
pub fn from_int(i: i64, width: usize, n: usize) -> BitString {
    BitString::from_bits((0..n).map(|k| {
        let pos = n - 1 - k; // bit position, 0 = least significant
        if pos >= width {
            i < 0
        } else {
            (i >> pos) & 1 == 1
        }
    }))
}

/// `bit::int4` / `bit::int8` (bittoint4 / bittoint8): the bits as an
/// unsigned number of `width` bits at most (22003 past it).
pub fn to_int(b: &BitString, to: DataType) -> Result<Value, DbError> {
    let (width, name) = match to {
        DataType::Int8 => (64, "bigint"),
        _ => (32, "integer"),
    };
    if b.len > width {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("{name} out of range"),
        ));
    }
    let v = b.bits().fold(0u64, |acc, on| (acc << 1) | on as u64);
    Ok(match to {
        DataType::Int8 => Value::Int8(v as i64),
        _ => Value::Int4(v as u32 as i32),
    })
}

fn differing_sizes(what: &str) -> DbError {
    DbError::new(
        SqlState::StringDataLengthMismatch,
        format!("cannot {what} bit strings of different sizes"),
    )
}

/// `a & b`, `a | b`, `a # b` (`op` is the operator's first byte).
pub fn bitwise(op: u8, a: &BitString, b: &BitString) -> Result<BitString, DbError> {
    let (what, f): (&str, fn(u8, u8) -> u8) = match op {
        b'&' => ("AND", |x, y| x & y),
        b'|' => ("OR", |x, y| x | y),
        _ => ("XOR", |x, y| x ^ y),
    };
    if a.len != b.len {
        return Err(differing_sizes(what));
    }
    let bytes: Vec<u8> = a
        .bytes
        .iter()
        .zip(b.bytes.iter())
        .map(|(x, y)| f(*x, *y))
        .collect();
    Ok(BitString::from_bytes(a.len, &bytes))
}

/// `~a`.
pub fn not(a: &BitString) -> BitString {
    let bytes: Vec<u8> = a.bytes.iter().map(|x| !x).collect();
    BitString::from_bytes(a.len, &bytes)
}

/// `a << n` (left: true) or `a >> n`, the length kept, zeros shifted in.
pub fn shift(a: &BitString, n: i32, left: bool) -> BitString {
    let n = i64::from(n);
    let by = if left { n } else { -n }; // positive: towards the front
    let len = a.len as i64;
    BitString::from_bits((0..a.len).map(|i| {
        let src = i as i64 + by;
        (0..len).contains(&src) && a.get(src as usize)
    }))
}

/// `a || b`.
pub fn concat(a: &BitString, b: &BitString) -> Result<BitString, DbError> {
    if a.len + b.len > BIT_STRING_LEN_MAX_BITS {
        return Err(too_long_input());
    }
    Ok(BitString::from_bits(
        a.bits().chain(b.bits()).collect::<Vec<_>>().into_iter(),
    ))
}

/// `substring(b from s [for l])` (bitsubstring): 1-based, clipped to the
/// string; a negative length is 22011.
pub fn substring(b: &BitString, start: i32, count: Option<i32>) -> Result<BitString, DbError> {
    let s = i64::from(start);
    let e = match count {
        Some(l) if l < 0 => {
            return Err(DbError::new(
                SqlState::SubstringError,
                "negative substring length not allowed",
            ))
        }
        Some(l) => s + i64::from(l),
        None => i64::MAX,
    };
    let from = s.max(1);
    let to = e.min(b.len as i64 + 1);
    if to <= from {
        return Ok(BitString::zeros(0));
    }
    let (from, to) = (from as usize - 1, to as usize - 1);
    Ok(BitString::from_bits((from..to).map(|i| b.get(i))))
}

/// `overlay(b placing p from s [for l])` (bitoverlay): the first `s - 1`
/// bits, `p`, then the bits from `s + l` (l defaults to p's length).
pub fn overlay(
    b: &BitString,
    p: &BitString,
    start: i32,
    count: Option<i32>,
) -> Result<BitString, DbError> {
    let count = count.unwrap_or(p.len as i32);
    let end = start
        .checked_add(count)
        .ok_or_else(|| DbError::new(SqlState::NumericValueOutOfRange, "integer out of range"))?;
    if start < 1 {
        return Err(DbError::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        ));
    }
    let head = substring(b, 1, Some(start - 1))?;
    let tail = substring(b, end, None)?;
    concat(&concat(&head, p)?, &tail)
}

/// `position(p in b)` (bitposition): the 1-based start of the first
/// match, 0 for none (and for an empty `b`).
pub fn position(b: &BitString, p: &BitString) -> i32 {
    if b.len == 0 || p.len > b.len {
        return 0;
    }
    if p.len == 0 {
        return 1;
    }
    (0..=b.len - p.len)
        .find(|&s| (0..p.len).all(|k| b.get(s + k) == p.get(k)))
        .map_or(0, |s| s as i32 + 1)
}

fn bit_index_error(n: i64, b: &BitString) -> DbError {
    DbError::new(
        SqlState::ArraySubscriptError,
        format!("bit index {n} out of valid range (0..{})", b.len as i64 - 1),
    )
}

/// `get_bit(b, n)`: bit `n` from the front, 0-based.
pub fn get_bit(b: &BitString, n: i32) -> Result<i32, DbError> {
    if n < 0 || n as usize >= b.len {
        return Err(bit_index_error(i64::from(n), b));
    }
    Ok(b.get(n as usize) as i32)
}

/// `set_bit(b, n, v)`: `v` must be 0 or 1 (22023).
pub fn set_bit(b: &BitString, n: i32, v: i32) -> Result<BitString, DbError> {
    if n < 0 || n as usize >= b.len {
        return Err(bit_index_error(i64::from(n), b));
    }
    if v != 0 && v != 1 {
        return Err(invalid_param("new bit must be 0 or 1".into()));
    }
    let mut out = b.clone();
    out.set(n as usize, v == 1);
    Ok(out)
}

/// Every function [`resolve`] answers for (when an argument is a bit
/// string; the names are shared with the text and bytea libraries).
pub(crate) const NAMES: &[&str] = &[
    "length",
    "bit_length",
    "octet_length",
    "position",
    "substring",
    "overlay",
    "get_bit",
    "set_bit",
    "bit_count",
    "bitcat",
    "bitand",
    "bitor",
    "bitxor",
    "bitnot",
    "bitshiftleft",
    "bitshiftright",
];

/// A bit string type (of any length).
pub fn is_bits(t: DataType) -> bool {
    matches!(t, DataType::Bit(_) | DataType::VarBit(_))
}

/// An argument that passes as a bit string: one, or an unknown literal.
fn is_bits_arg(t: DataType) -> bool {
    is_bits(t) || t == DataType::Unknown
}

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) || !args.iter().any(|t| is_bits(*t)) {
        return None;
    }
    use DataType as T;
    // PostgreSQL declares them all over `bit` (a varbit argument casts to
    // it implicitly) but bitcat, which is `bit varying`.
    let (vb, b) = (T::VarBit(None), T::Bit(None));
    let i4 = T::Int4;
    let (imp, arg_types, ret): (Imp, Vec<T>, T) = match (name, args) {
        ("length" | "bit_length", [_]) => (|a, _| len_of(a, |b| b.len()), vec![b], i4),
        ("octet_length", [x]) if is_bits(*x) => {
            (|a, _| len_of(a, |b| b.bytes().len()), vec![b], i4)
        }
        ("bit_count", [x]) if is_bits(*x) => (bit_count, vec![b], T::Int8),
        ("position", [x, y]) if is_bits_arg(*x) && is_bits_arg(*y) => (position_fn, vec![b, b], i4),
        ("substring", [x, s]) if is_bits(*x) && is_int(*s) => (substring_fn, vec![b, i4], b),
        ("substring", [x, s, l]) if is_bits(*x) && is_int(*s) && is_int(*l) => {
            (substring_fn, vec![b, i4, i4], b)
        }
        ("overlay", [x, p, s, rest @ ..])
            if rest.len() <= 1
                && is_bits_arg(*x)
                && is_bits_arg(*p)
                && is_int(*s)
                && rest.iter().all(|t| is_int(*t)) =>
        {
            (overlay_fn, vec![b, b, i4, i4][..args.len()].to_vec(), b)
        }
        ("get_bit", [x, n]) if is_bits(*x) && is_int(*n) => (get_bit_fn, vec![b, i4], i4),
        ("set_bit", [x, n, v]) if is_bits(*x) && is_int(*n) && is_int(*v) => {
            (set_bit_fn, vec![b, i4, i4], b)
        }
        ("bitcat", [x, y]) if is_bits_arg(*x) && is_bits_arg(*y) => (concat_fn, vec![vb, vb], vb),
        ("bitand" | "bitor" | "bitxor", [x, y]) if is_bits_arg(*x) && is_bits_arg(*y) => {
            let imp: Imp = match name {
                "bitand" => |a, _| bitwise_fn(b'&', a),
                "bitor" => |a, _| bitwise_fn(b'|', a),
                _ => |a, _| bitwise_fn(b'#', a),
            };
            (imp, vec![b, b], b)
        }
        ("bitnot", [_]) => (not_fn, vec![b], b),
        // The count is int4 (an int8 has no implicit cast to it).
        ("bitshiftleft" | "bitshiftright", [_, n]) if is_int(*n) && *n != T::Int8 => {
            let imp: Imp = if name == "bitshiftleft" {
                |a, _| shift_fn(a, true)
            } else {
                |a, _| shift_fn(a, false)
            };
            (imp, vec![b, i4], b)
        }
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, false,
    )))
}

fn arg(v: &Value) -> Option<&BitString> {
    match v {
        Value::Bits(b) => Some(b),
        _ => None,
    }
}

fn int_arg(v: &Value) -> Option<i32> {
    match v {
        Value::Int4(i) => Some(*i),
        Value::Int2(i) => Some(i32::from(*i)),
        _ => None,
    }
}

fn len_of(a: &[Value], f: fn(&BitString) -> usize) -> Result<Value, DbError> {
    Ok(arg(&a[0]).map_or(Value::Null, |b| Value::Int4(f(b) as i32)))
}

fn bit_count(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(arg(&a[0]).map_or(Value::Null, |b| {
        Value::Int8(b.bytes().iter().map(|x| i64::from(x.count_ones())).sum())
    }))
}

fn position_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), arg(&a[1])) {
        (Some(b), Some(p)) => Value::Int4(position(b, p)),
        _ => Value::Null,
    })
}

fn substring_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(b), Some(s)) = (arg(&a[0]), int_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    let count = match a.get(2) {
        None => None,
        Some(v) => match int_arg(v) {
            Some(l) => Some(l),
            None => return Ok(Value::Null),
        },
    };
    Ok(substring(b, s, count)?.value())
}

fn overlay_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(b), Some(p), Some(s)) = (arg(&a[0]), arg(&a[1]), int_arg(&a[2])) else {
        return Ok(Value::Null);
    };
    let count = match a.get(3) {
        None => None,
        Some(v) => match int_arg(v) {
            Some(l) => Some(l),
            None => return Ok(Value::Null),
        },
    };
    Ok(overlay(b, p, s, count)?.value())
}

fn get_bit_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), int_arg(&a[1])) {
        (Some(b), Some(n)) => Value::Int4(get_bit(b, n)?),
        _ => Value::Null,
    })
}

fn set_bit_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), int_arg(&a[1]), int_arg(&a[2])) {
        (Some(b), Some(n), Some(v)) => set_bit(b, n, v)?.value(),
        _ => Value::Null,
    })
}

fn concat_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), arg(&a[1])) {
        (Some(x), Some(y)) => concat(x, y)?.value(),
        _ => Value::Null,
    })
}

fn bitwise_fn(op: u8, a: &[Value]) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), arg(&a[1])) {
        (Some(x), Some(y)) => bitwise(op, x, y)?.value(),
        _ => Value::Null,
    })
}

fn not_fn(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(arg(&a[0]).map_or(Value::Null, |b| not(b).value()))
}

fn shift_fn(a: &[Value], left: bool) -> Result<Value, DbError> {
    Ok(match (arg(&a[0]), int_arg(&a[1])) {
        (Some(b), Some(n)) => shift(b, n, left).value(),
        _ => Value::Null,
    })
}

/// The binary (send) form: the length in bits (int4) and the bytes.
pub fn to_binary(b: &BitString) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + b.bytes.len());
    out.extend_from_slice(&(b.len as i32).to_be_bytes());
    out.extend_from_slice(&b.bytes);
    out
}

/// The binary (receive) form of `ty`: 22P03 when the length does not
/// agree with the bytes; the typmod checked as text input checks it.
pub fn parse_binary(ty: DataType, buf: &[u8]) -> Result<Value, DbError> {
    let bad = |m: &str| DbError::new(SqlState::InvalidBinaryRepresentation, m.to_string());
    let Some((head, rest)) = buf.split_first_chunk::<4>() else {
        return Err(bad("insufficient data left in message"));
    };
    let len = i32::from_be_bytes(*head);
    if len < 0 || len as usize > BIT_STRING_LEN_MAX_BITS {
        return Err(bad("invalid length in external bit string"));
    }
    let len = len as usize;
    if rest.len() != len.div_ceil(8) {
        return Err(bad("invalid length in external bit string"));
    }
    fit(BitString::from_bytes(len, rest), ty, false).map(BitString::value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> BitString {
        parse(s).unwrap()
    }

    #[test]
    fn input_output_and_order() {
        assert_eq!(b("x1F").to_text(), "00011111");
        assert_eq!(b("b0101").to_text(), "0101");
        assert_eq!(b("").to_text(), "");
        assert_eq!(
            parse("102").unwrap_err().message,
            "\"2\" is not a valid binary digit"
        );
        assert_eq!(
            parse("x1g").unwrap_err().message,
            "\"g\" is not a valid hexadecimal digit"
        );
        assert!(b("10") < b("100"));
        assert!(b("01") < b("1"));
        assert_eq!(b("101").cmp(&b("101")), Ordering::Equal);
    }

    #[test]
    fn fitting_and_casts() {
        let bit4 = DataType::Bit(Some(4));
        assert_eq!(fit(b("10"), bit4, true).unwrap().to_text(), "1000");
        assert_eq!(fit(b("10101"), bit4, true).unwrap().to_text(), "1010");
        assert_eq!(
            fit(b("10"), bit4, false).unwrap_err().message,
            "bit string length 2 does not match type bit(4)"
        );
        assert_eq!(
            fit(b("1011"), DataType::VarBit(Some(3)), false)
                .unwrap_err()
                .message,
            "bit string too long for type bit varying(3)"
        );
        assert_eq!(from_int(5, 32, 8).to_text(), "00000101");
        assert_eq!(from_int(-1, 32, 4).to_text(), "1111");
        assert_eq!(from_int(-1, 32, 34).to_text(), "1".repeat(34));
        assert_eq!(to_int(&b("xFF"), DataType::Int8).unwrap(), Value::Int8(255));
    }

    #[test]
    fn operators_and_functions() {
        assert_eq!(
            bitwise(b'#', &b("1100"), &b("1010")).unwrap().to_text(),
            "0110"
        );
        assert_eq!(
            bitwise(b'&', &b("101"), &b("10")).unwrap_err().message,
            "cannot AND bit strings of different sizes"
        );
        assert_eq!(not(&b("1010")).to_text(), "0101");
        assert_eq!(shift(&b("1101"), 1, true).to_text(), "1010");
        assert_eq!(shift(&b("1101"), 1, false).to_text(), "0110");
        assert_eq!(shift(&b("1101"), -1, true).to_text(), "0110");
        assert_eq!(
            substring(&b("01010101"), -10, Some(i32::MAX))
                .unwrap()
                .to_text(),
            "01010101"
        );
        assert_eq!(substring(&b("0101"), 2, None).unwrap().to_text(), "101");
        assert_eq!(position(&b("00001010"), &b("1010")), 5);
        assert_eq!(position(&b(""), &b("")), 0);
        assert_eq!(
            overlay(&b("0101011100"), &b("001"), 2, Some(3))
                .unwrap()
                .to_text(),
            "0001011100"
        );
        assert_eq!(set_bit(&b("0101"), 0, 1).unwrap().to_text(), "1101");
        assert_eq!(
            set_bit(&b("0101"), 4, 1).unwrap_err().message,
            "bit index 4 out of valid range (0..3)"
        );
    }
}
