//! # PostgreSQL's built-in range types
//!
//! `int4range`, `int8range`, `numrange`, `daterange`, `tsrange` and
//! `tstzrange`, ported from PostgreSQL 15's `rangetypes.c` with its
//! semantics kept: a range is empty or has a lower and an upper bound,
//! each either infinite or a value of the subtype that is inclusive or
//! exclusive. [`make_range`] is `range_serialize` plus the canonical
//! function: a lower bound above the upper is 22000, equal bounds not
//! both inclusive make the range empty, and the discrete types (int4,
//! int8, date) are canonicalized to `[)` — `(1,3]` is stored and printed
//! as `[2,4)` — so equal ranges have equal representations, and the
//! value order ([`Range::cmp`], `range_cmp`: empty first, then by lower
//! bound, then by upper bound) and hash agree with equality.
//!
//! ```text
//!   '(1,3]'::int4range   ->  [2,4)          numrange(1.7, 1.7, '[]') -> [1.7,1.7]
//!   '[3,3)'::int4range   ->  empty          '(,5)'::int4range       -> (,5)
//!   ' ( " a " " a ", z ) '  bound text " a  a " (quotes and backslashes
//!                           as range_parse_bound reads them)
//! ```
//!
//! Text I/O is `range_in`/`range_out`: a bound is quoted when it is
//! empty or holds `"`, `\`, `(`, `)`, `[`, `]`, `,` or white space;
//! malformed input is 22P02 `malformed range literal` with PostgreSQL's
//! DETAIL. The binary form is `range_send`'s: a flags byte, then each
//! finite bound as a length-prefixed binary value of the subtype.
//!
//! [`catalog`] holds the SQL surface: the constructors, `lower`,
//! `upper`, `isempty`, ..., the operators (pg_operator's rows naming
//! their pg_proc functions) and their resolution for the binder. The
//! comparison operators are not there: `=`, `<`, ... over ranges bind as
//! ordinary comparisons of `Value`s, whose order for ranges is
//! `range_cmp`'s, so ORDER BY, DISTINCT, GROUP BY, joins and B-tree
//! indexes (storage's key encoding follows the same order) need nothing
//! of their own. Elsewhere: `anyrange` / `anycompatiblerange` in user
//! functions (plan's `bind/polymorphic.rs`) and `range_intersect_agg`
//! (an aggregate of the executor's).
//!
//! Left out: user-defined range types (`CREATE TYPE ... AS RANGE`) and
//! multiranges (`int4multirange`, `range_agg`), both 0A000 naming them;
//! GiST/SP-GiST indexes and EXCLUDE constraints on ranges.

pub mod catalog;

use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::value::Value;

/// Which built-in range type (pg_type OIDs in [`RangeKind::oid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RangeKind {
    Int4,
    Int8,
    Num,
    Date,
    Ts,
    Tstz,
}

/// The array types of the range types (pg_type.typarray).
pub static ARRAY_TYPES: [(DataType, u32, &str); 6] = [
    (DataType::Range(RangeKind::Int4), 3905, "int4range[]"),
    (DataType::Range(RangeKind::Int8), 3927, "int8range[]"),
    (DataType::Range(RangeKind::Num), 3907, "numrange[]"),
    (DataType::Range(RangeKind::Date), 3913, "daterange[]"),
    (DataType::Range(RangeKind::Ts), 3909, "tsrange[]"),
    (DataType::Range(RangeKind::Tstz), 3911, "tstzrange[]"),
];

impl RangeKind {
    pub const ALL: [RangeKind; 6] = [
        RangeKind::Int4,
        RangeKind::Int8,
        RangeKind::Num,
        RangeKind::Date,
        RangeKind::Ts,
        RangeKind::Tstz,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RangeKind::Int4 => "int4range",
            RangeKind::Int8 => "int8range",
            RangeKind::Num => "numrange",
            RangeKind::Date => "daterange",
            RangeKind::Ts => "tsrange",
            RangeKind::Tstz => "tstzrange",
        }
    }

    pub fn oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 3904,
            RangeKind::Int8 => 3926,
            RangeKind::Num => 3906,
            RangeKind::Date => 3912,
            RangeKind::Ts => 3908,
            RangeKind::Tstz => 3910,
        }
    }

    /// pg_range.rngmultitypid (the multirange type, which Nestor lacks).
    pub fn multirange_oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 4451,
            RangeKind::Int8 => 4536,
            RangeKind::Num => 4532,
            RangeKind::Date => 4535,
            RangeKind::Ts => 4533,
            RangeKind::Tstz => 4534,
        }
    }

    /// pg_range.rngsubopc: the subtype's default B-tree operator class.
    pub fn subtype_opclass(self) -> u32 {
        match self {
            RangeKind::Int4 => 1978,
            RangeKind::Int8 => 3124,
            RangeKind::Num => 3125,
            RangeKind::Date => 3122,
            RangeKind::Ts => 3128,
            RangeKind::Tstz => 3127,
        }
    }

    /// pg_range.rngcanonical and rngsubdiff.
    pub fn support_functions(self) -> (&'static str, &'static str) {
        match self {
            RangeKind::Int4 => ("int4range_canonical", "int4range_subdiff"),
            RangeKind::Int8 => ("int8range_canonical", "int8range_subdiff"),
            RangeKind::Num => ("-", "numrange_subdiff"),
            RangeKind::Date => ("daterange_canonical", "daterange_subdiff"),
            RangeKind::Ts => ("-", "tsrange_subdiff"),
            RangeKind::Tstz => ("-", "tstzrange_subdiff"),
        }
    }

    /// pg_type.typalign (the subtype's alignment).
    pub fn typalign(self) -> &'static str {
        match self {
            RangeKind::Int4 | RangeKind::Num | RangeKind::Date => "i",
            _ => "d",
        }
    }

    pub fn from_oid(oid: u32) -> Option<RangeKind> {
        RangeKind::ALL.into_iter().find(|k| k.oid() == oid)
    }

    pub fn from_name(name: &str) -> Option<RangeKind> {
        RangeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The type of the bounds.
    pub fn subtype(self) -> DataType {
        match self {
            RangeKind::Int4 => DataType::Int4,
            RangeKind::Int8 => DataType::Int8,
            RangeKind::Num => DataType::Numeric(None),
            RangeKind::Date => DataType::Date,
            RangeKind::Ts => DataType::Timestamp(None),
            RangeKind::Tstz => DataType::TimestampTz(None),
        }
    }

    /// Whether the type has a canonical function (a discrete subtype).
    pub fn is_discrete(self) -> bool {
        matches!(self, RangeKind::Int4 | RangeKind::Int8 | RangeKind::Date)
    }

    /// The range type whose subtype is `t` (its modifier ignored).
    pub fn of_subtype(t: DataType) -> Option<RangeKind> {
        RangeKind::ALL
            .into_iter()
            .find(|k| k.subtype() == t.without_typmod())
    }
}

/// Whether `name` is one of PostgreSQL's multirange types (not
/// supported: named in their 0A000).
pub fn is_multirange_name(name: &str) -> bool {
    matches!(
        name,
        "int4multirange"
            | "int8multirange"
            | "nummultirange"
            | "datemultirange"
            | "tsmultirange"
            | "tstzmultirange"
            | "anymultirange"
            | "anycompatiblemultirange"
    )
}

/// A range value (what `Value::Range` carries). An empty range has no
/// bounds; an infinite bound (None) is never inclusive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub kind: RangeKind,
    pub empty: bool,
    pub lower: Option<Value>,
    pub upper: Option<Value>,
    pub lower_inc: bool,
    pub upper_inc: bool,
}

/// One bound of a range, as `RangeBound`: its value (None: infinite),
/// whether it is inclusive and whether it is a lower bound.
#[derive(Clone, Debug)]
pub struct Bound {
    pub val: Option<Value>,
    pub inc: bool,
    pub lower: bool,
}

impl Bound {
    pub fn lower(val: Option<Value>, inc: bool) -> Bound {
        Bound {
            val,
            inc,
            lower: true,
        }
    }

    pub fn upper(val: Option<Value>, inc: bool) -> Bound {
        Bound {
            val,
            inc,
            lower: false,
        }
    }
}

/// `range_cmp_bounds`: the order of two bounds, lower or upper, as
/// positions on the line (an exclusive lower bound lies just above its
/// value, an exclusive upper bound just below).
pub fn cmp_bounds(a: &Bound, b: &Bound) -> Ordering {
    match (&a.val, &b.val) {
        (None, None) if a.lower == b.lower => Ordering::Equal,
        (None, _) => inf_side(a.lower),
        (_, None) => inf_side(b.lower).reverse(),
        (Some(x), Some(y)) => match x.cmp(y) {
            Ordering::Equal => match (a.inc, b.inc) {
                (false, false) if a.lower == b.lower => Ordering::Equal,
                (false, false) => inf_side(!a.lower),
                (false, true) => inf_side(!a.lower),
                (true, false) => inf_side(b.lower),
                (true, true) => Ordering::Equal,
            },
            o => o,
        },
    }
}

/// Where an infinite bound (or an exclusive one's offset) lies: a lower
/// one below everything.
fn inf_side(lower: bool) -> Ordering {
    if lower {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// `range_cmp_bound_values`: like [`cmp_bounds`] but ignoring
/// inclusivity.
pub fn cmp_bound_values(a: &Bound, b: &Bound) -> Ordering {
    match (&a.val, &b.val) {
        (None, None) if a.lower == b.lower => Ordering::Equal,
        (None, _) => inf_side(a.lower),
        (_, None) => inf_side(b.lower).reverse(),
        (Some(x), Some(y)) => x.cmp(y),
    }
}

impl Range {
    pub fn empty(kind: RangeKind) -> Range {
        Range {
            kind,
            empty: true,
            lower: None,
            upper: None,
            lower_inc: false,
            upper_inc: false,
        }
    }

    pub fn lower_bound(&self) -> Bound {
        Bound::lower(self.lower.clone(), self.lower_inc)
    }

    pub fn upper_bound(&self) -> Bound {
        Bound::upper(self.upper.clone(), self.upper_inc)
    }

    pub fn value(self) -> Value {
        Value::Range(Arc::new(self))
    }

    /// `range_cmp`: empty ranges first (all equal), then by lower bound,
    /// then by upper bound.
    pub fn cmp_range(&self, other: &Range) -> Ordering {
        match (self.empty, other.empty) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => cmp_bounds(&self.lower_bound(), &other.lower_bound())
                .then_with(|| cmp_bounds(&self.upper_bound(), &other.upper_bound())),
        }
    }

    /// The range's bound values (for hashing and storage).
    pub fn bound_values(&self) -> impl Iterator<Item = &Value> {
        self.lower.iter().chain(self.upper.iter())
    }
}

impl PartialOrd for Range {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Range {
    fn cmp(&self, other: &Self) -> Ordering {
        self.kind
            .cmp(&other.kind)
            .then_with(|| self.cmp_range(other))
    }
}

/// 22000 `range lower bound must be less than or equal to range upper
/// bound`.
fn bounds_out_of_order() -> DbError {
    DbError::new(
        SqlState::DataException,
        "range lower bound must be less than or equal to range upper bound",
    )
}

/// `make_range`: the range of these bounds (`empty` forces an empty
/// one), checked, normalised to empty and canonicalized as PostgreSQL's
/// `range_serialize` and canonical functions do.
pub fn make_range(
    kind: RangeKind,
    lower: Bound,
    upper: Bound,
    empty: bool,
) -> Result<Range, DbError> {
    let r = serialize(kind, lower, upper, empty)?;
    if r.empty || !kind.is_discrete() {
        return Ok(r);
    }
    let (lower, upper) = canonical(kind, r.lower_bound(), r.upper_bound())?;
    serialize(kind, lower, upper, false)
}

/// `range_serialize`: 22000 for a lower bound above the upper, empty for
/// equal bounds not both inclusive.
fn serialize(kind: RangeKind, lower: Bound, upper: Bound, empty: bool) -> Result<Range, DbError> {
    if empty {
        return Ok(Range::empty(kind));
    }
    if let (Some(l), Some(u)) = (&lower.val, &upper.val) {
        match l.cmp(u) {
            Ordering::Greater => return Err(bounds_out_of_order()),
            Ordering::Equal if !(lower.inc && upper.inc) => return Ok(Range::empty(kind)),
            _ => {}
        }
    }
    Ok(Range {
        kind,
        empty: false,
        lower_inc: lower.inc && lower.val.is_some(),
        upper_inc: upper.inc && upper.val.is_some(),
        lower: lower.val,
        upper: upper.val,
    })
}

/// `int4range_canonical` and friends: an exclusive finite lower bound
/// becomes the next value inclusive, an inclusive finite upper bound the
/// next value exclusive (a date's infinities stay as they are).
fn canonical(
    kind: RangeKind,
    mut lower: Bound,
    mut upper: Bound,
) -> Result<(Bound, Bound), DbError> {
    if let Some(v) = lower.val.as_ref().filter(|_| !lower.inc) {
        if let Some(next) = successor(kind, v)? {
            lower.val = Some(next);
            lower.inc = true;
        }
    }
    if let Some(v) = upper.val.as_ref().filter(|_| upper.inc) {
        if let Some(next) = successor(kind, v)? {
            upper.val = Some(next);
            upper.inc = false;
        }
    }
    Ok((lower, upper))
}

/// The next value of a discrete subtype (int4pl, int8pl, date_pli with
/// their overflow errors); None for a date's infinities, which
/// daterange_canonical leaves as they are.
fn successor(kind: RangeKind, v: &Value) -> Result<Option<Value>, DbError> {
    let out = |what: &str, state: SqlState| DbError::new(state, format!("{what} out of range"));
    match (kind, v) {
        (RangeKind::Int4, Value::Int4(i)) => i
            .checked_add(1)
            .map(|i| Some(Value::Int4(i)))
            .ok_or_else(|| out("integer", SqlState::NumericValueOutOfRange)),
        (RangeKind::Int8, Value::Int8(i)) => i
            .checked_add(1)
            .map(|i| Some(Value::Int8(i)))
            .ok_or_else(|| out("bigint", SqlState::NumericValueOutOfRange)),
        (RangeKind::Date, Value::Date(d))
            if *d == crate::datetime::DATE_NOBEGIN || *d == crate::datetime::DATE_NOEND =>
        {
            Ok(None)
        }
        (RangeKind::Date, Value::Date(d)) => d
            .checked_add(1)
            .filter(|d| *d != crate::datetime::DATE_NOEND)
            .map(|d| Some(Value::Date(d)))
            .ok_or_else(|| out("date", SqlState::DatetimeFieldOverflow)),
        _ => Err(DbError::new(
            SqlState::InternalError,
            format!("{} bound is not a {}", kind.name(), kind.subtype().name()),
        )),
    }
}

// ----- text I/O ------------------------------------------------------------

/// 22P02 `malformed range literal: "<input>"` with `detail`.
fn malformed(input: &str, detail: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("malformed range literal: \"{input}\""),
    )
    .with_detail(detail)
}

/// What `range_parse` reads: empty, or the bounds' texts (None:
/// infinite) and inclusivity.
struct Parsed {
    empty: bool,
    lower: Option<String>,
    upper: Option<String>,
    lower_inc: bool,
    upper_inc: bool,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `range_parse`.
fn parse_literal(input: &str) -> Result<Parsed, DbError> {
    let s = input.as_bytes();
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    if s.len() - i >= 5 && s[i..i + 5].eq_ignore_ascii_case(b"empty") {
        i += 5;
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        if i != s.len() {
            return Err(malformed(input, "Junk after \"empty\" key word."));
        }
        return Ok(Parsed {
            empty: true,
            lower: None,
            upper: None,
            lower_inc: false,
            upper_inc: false,
        });
    }
    let lower_inc = match s.get(i) {
        Some(b'[') => true,
        Some(b'(') => false,
        _ => return Err(malformed(input, "Missing left parenthesis or bracket.")),
    };
    i += 1;
    let lower = parse_bound(input, &mut i)?;
    if s.get(i) != Some(&b',') {
        return Err(malformed(input, "Missing comma after lower bound."));
    }
    i += 1;
    let upper = parse_bound(input, &mut i)?;
    let upper_inc = match s.get(i) {
        Some(b']') => true,
        Some(b')') => false,
        _ => return Err(malformed(input, "Too many commas.")),
    };
    i += 1;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    if i != s.len() {
        return Err(malformed(input, "Junk after right parenthesis or bracket."));
    }
    Ok(Parsed {
        empty: false,
        lower,
        upper,
        lower_inc,
        upper_inc,
    })
}

/// `range_parse_bound`: None for an empty (infinite) bound; quotes group,
/// a doubled quote inside quotes and a backslash escape one character.
fn parse_bound(input: &str, i: &mut usize) -> Result<Option<String>, DbError> {
    let s = input.as_bytes();
    let ends = |c: Option<&u8>| matches!(c, Some(b',' | b')' | b']'));
    if ends(s.get(*i)) {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut quoted = false;
    while quoted || !ends(s.get(*i)) {
        let Some(&c) = s.get(*i) else {
            return Err(malformed(input, "Unexpected end of input."));
        };
        *i += 1;
        match c {
            b'\\' => {
                let Some(&n) = s.get(*i) else {
                    return Err(malformed(input, "Unexpected end of input."));
                };
                out.push(n);
                *i += 1;
            }
            b'"' if !quoted => quoted = true,
            b'"' if s.get(*i) == Some(&b'"') => {
                out.push(b'"');
                *i += 1;
            }
            b'"' => quoted = false,
            c => out.push(c),
        }
    }
    // Only ASCII bytes were dropped, so the rest is still UTF-8.
    Ok(Some(String::from_utf8_lossy(&out).into_owned()))
}

/// `range_in`: a range literal of type `kind`.
pub fn parse(kind: RangeKind, input: &str, ctx: &EvalCtx) -> Result<Range, DbError> {
    let p = parse_literal(input)?;
    if p.empty {
        return Ok(Range::empty(kind));
    }
    let bound = |t: Option<String>| -> Result<Option<Value>, DbError> {
        t.map(|t| crate::text::parse_text(kind.subtype(), &t, ctx))
            .transpose()
    };
    let lower = bound(p.lower)?;
    let upper = bound(p.upper)?;
    make_range(
        kind,
        Bound::lower(lower, p.lower_inc),
        Bound::upper(upper, p.upper_inc),
        false,
    )
}

/// `range_bound_escape`: quoted when empty or holding a special
/// character, with `"` and `\` doubled inside.
fn escape_bound(v: &str, out: &mut String) {
    let quote = v.is_empty()
        || v.bytes()
            .any(|c| matches!(c, b'"' | b'\\' | b'(' | b')' | b'[' | b']' | b',') || is_space(c));
    if quote {
        out.push('"');
    }
    for c in v.chars() {
        if c == '"' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    if quote {
        out.push('"');
    }
}

impl Range {
    /// `range_out`.
    pub fn to_text(&self, ctx: &EvalCtx) -> String {
        if self.empty {
            return "empty".into();
        }
        let mut out = String::from(if self.lower_inc { "[" } else { "(" });
        if let Some(l) = &self.lower {
            escape_bound(&l.to_text(ctx), &mut out);
        }
        out.push(',');
        if let Some(u) = &self.upper {
            escape_bound(&u.to_text(ctx), &mut out);
        }
        out.push(if self.upper_inc { ']' } else { ')' });
        out
    }
}

// ----- binary I/O ----------------------------------------------------------

const RANGE_EMPTY: u8 = 0x01;
const RANGE_LB_INC: u8 = 0x02;
const RANGE_UB_INC: u8 = 0x04;
const RANGE_LB_INF: u8 = 0x08;
const RANGE_UB_INF: u8 = 0x10;

impl Range {
    /// `range_send`: flags, then each finite bound as an int4 length and
    /// the subtype's binary form.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut flags = 0;
        if self.empty {
            flags |= RANGE_EMPTY;
        } else {
            flags |= if self.lower_inc { RANGE_LB_INC } else { 0 };
            flags |= if self.upper_inc { RANGE_UB_INC } else { 0 };
            flags |= if self.lower.is_none() {
                RANGE_LB_INF
            } else {
                0
            };
            flags |= if self.upper.is_none() {
                RANGE_UB_INF
            } else {
                0
            };
        }
        let mut out = vec![flags];
        for v in self.bound_values() {
            let b = v.to_binary();
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(&b);
        }
        out
    }
}

fn bad_binary() -> DbError {
    DbError::new(
        SqlState::InvalidBinaryRepresentation,
        "insufficient data left in message",
    )
}

/// `range_recv`.
pub fn parse_binary(kind: RangeKind, buf: &[u8]) -> Result<Range, DbError> {
    let (&flags, mut rest) = buf.split_first().ok_or_else(bad_binary)?;
    let mut bound = |present: bool| -> Result<Option<Value>, DbError> {
        if !present {
            return Ok(None);
        }
        let len = rest.get(..4).ok_or_else(bad_binary)?;
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let body = rest.get(4..4 + len).ok_or_else(bad_binary)?;
        rest = &rest[4 + len..];
        crate::binary::parse_binary(kind.subtype(), body).map(Some)
    };
    let empty = flags & RANGE_EMPTY != 0;
    let lower = bound(!empty && flags & RANGE_LB_INF == 0)?;
    let upper = bound(!empty && flags & RANGE_UB_INF == 0)?;
    if !rest.is_empty() {
        return Err(DbError::new(
            SqlState::InvalidBinaryRepresentation,
            "incorrect binary data format",
        ));
    }
    make_range(
        kind,
        Bound::lower(lower, flags & RANGE_LB_INC != 0),
        Bound::upper(upper, flags & RANGE_UB_INC != 0),
        empty,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> EvalCtx {
        EvalCtx::default()
    }

    fn text(kind: RangeKind, s: &str) -> Result<String, String> {
        parse(kind, s, &ctx())
            .map(|r| r.to_text(&ctx()))
            .map_err(|e| format!("{}|{}", e.message, e.detail.clone().unwrap_or_default()))
    }

    #[test]
    fn discrete_ranges_are_canonical() {
        assert_eq!(text(RangeKind::Int4, "(1,3]").unwrap(), "[2,4)");
        assert_eq!(text(RangeKind::Int4, "(1,2)").unwrap(), "empty");
        assert_eq!(text(RangeKind::Int4, "[1,1]").unwrap(), "[1,2)");
        assert_eq!(text(RangeKind::Int4, "(,5]").unwrap(), "(,6)");
        assert_eq!(text(RangeKind::Num, "[1.5,1.5]").unwrap(), "[1.5,1.5]");
        assert_eq!(text(RangeKind::Num, "(1.5,1.5]").unwrap(), "empty");
    }

    #[test]
    fn malformed_literals_say_why() {
        assert_eq!(
            text(RangeKind::Int4, "").unwrap_err(),
            "malformed range literal: \"\"|Missing left parenthesis or bracket."
        );
        assert_eq!(
            text(RangeKind::Int4, "[1,2) x").unwrap_err(),
            "malformed range literal: \"[1,2) x\"|Junk after right parenthesis or bracket."
        );
        assert_eq!(
            text(RangeKind::Int4, "(,,1)").unwrap_err(),
            "malformed range literal: \"(,,1)\"|Too many commas."
        );
        assert!(text(RangeKind::Int4, "[3,1]")
            .unwrap_err()
            .starts_with("range lower bound must be"));
    }

    #[test]
    fn order_and_binary_round_trip() {
        let p = |s: &str| parse(RangeKind::Int4, s, &ctx()).unwrap();
        assert!(p("empty") < p("(,1)"));
        assert!(p("(,1)") < p("[0,1)"));
        assert!(p("[0,1)") < p("[0,2)"));
        for s in ["empty", "(,)", "[1,5)", "(,3)"] {
            assert_eq!(
                parse_binary(RangeKind::Int4, &p(s).to_binary()).unwrap(),
                p(s)
            );
        }
    }
}
