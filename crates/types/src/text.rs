//! Text I/O: PostgreSQL's output and input functions.
//!
//! [`Value::to_text`] prints what PostgreSQL prints with default settings
//! (see [`crate::context`]); [`parse_text`] is the type's input function,
//! with PostgreSQL's accepted syntax, messages and SQLSTATEs. The input of
//! `varchar(n)`/`char(n)` applies the length as an *assignment* does:
//! too-long input is 22001 unless the excess is spaces (an explicit cast,
//! which truncates, is [`crate::cast::cast`]). `numeric(p,s)` input is
//! rounded to the typmod. Text input rejects NUL characters (22021).

use std::fmt::Write;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::cast::apply_typmod;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datestyle::IntervalStyle;
use crate::datetime;
use crate::float;
use crate::json;
use crate::numeric::Numeric;
use crate::value::Value;

impl Value {
    /// PostgreSQL's text output. NULL gives the empty string (on the wire a
    /// NULL is length -1; callers check `is_null` first).
    pub fn to_text(&self, ctx: &EvalCtx) -> String {
        match self {
            Value::Null => String::new(),
            Value::Bool(b) => if *b { "t" } else { "f" }.into(),
            Value::Int2(v) => v.to_string(),
            Value::Int4(v) => v.to_string(),
            Value::Int8(v) => v.to_string(),
            Value::Float4(v) if ctx.extra_float_digits > 0 => float::format_f32(*v),
            Value::Float4(v) => float::format_digits(*v as f64, 6 + ctx.extra_float_digits as i32),
            Value::Float8(v) if ctx.extra_float_digits > 0 => float::format_f64(*v),
            Value::Float8(v) => float::format_digits(*v, 15 + ctx.extra_float_digits as i32),
            Value::Numeric(n) => n.to_string(),
            Value::Text(s) | Value::Jsonb(s) => s.to_string(),
            Value::Bytea(b) if ctx.bytea_escape => format_bytea_escape(b),
            Value::Bytea(b) => format_bytea(b),
            Value::Date(d) => datetime::format_date(*d, ctx.date_style),
            Value::Timestamp(t) => datetime::format_timestamp(*t, ctx.date_style),
            Value::TimestampTz(t) => {
                datetime::format_timestamptz(*t, ctx.time_zone, ctx.date_style)
            }
            Value::Uuid(u) => format_uuid(u),
            Value::PgLsn(l) => crate::pg_lsn::format(*l),
            Value::Bits(b) => b.to_text(),
            Value::TsVector(v) => v.to_text(),
            Value::TsQuery(q) => q.to_text(),
            Value::Interval(i) => match ctx.interval_style {
                IntervalStyle::Postgres => datetime::format_interval(i),
                style => crate::datestyle::format_interval_styled(i, style),
            },
            Value::Time(t) => crate::time::format_time(*t),
            Value::TimeTz(t, z) => crate::timetz::format(*t, *z),
            Value::Money(c) => crate::money::format(*c),
            Value::Array(a) => a.to_text(ctx),
            Value::Record(fields) => record_out(fields, ctx),
            Value::Enum(l) => crate::enums::label_text(*l).to_string(),
            Value::Geo(g) => g.to_text(ctx.extra_float_digits as i32),
            Value::Range(r) => r.to_text(ctx),
        }
    }
}

/// record_out: `(a,b,...)`, a NULL field empty, a field quoted when it is
/// empty or holds a quote, backslash, parenthesis, comma or white space
/// (quotes and backslashes doubled inside).
fn record_out(fields: &[Value], ctx: &EvalCtx) -> String {
    let mut s = String::from("(");
    for (i, v) in fields.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        if v.is_null() {
            continue;
        }
        let t = v.to_text(ctx);
        let quote = t.is_empty()
            || t.chars()
                .any(|c| matches!(c, '"' | '\\' | '(' | ')' | ',') || c.is_ascii_whitespace());
        if !quote {
            s.push_str(&t);
            continue;
        }
        s.push('"');
        for c in t.chars() {
            if c == '"' || c == '\\' {
                s.push(c);
            }
            s.push(c);
        }
        s.push('"');
    }
    s.push(')');
    s
}

/// bytea_output = escape: printable ASCII as is, a backslash doubled,
/// every other byte as a three-digit octal escape (PostgreSQL's byteaout).
fn format_bytea_escape(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &byte in b {
        match byte {
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(byte as char),
            _ => {
                let _ = write!(s, "\\{byte:03o}");
            }
        }
    }
    s
}

/// bytea_output = hex.
pub(crate) fn format_bytea(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("\\x");
    for byte in b {
        let _ = write!(s, "{byte:02x}");
    }
    s
}

pub(crate) fn format_uuid(u: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        let _ = write!(s, "{byte:02x}");
    }
    s
}

fn syntax(type_name: &str, input: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("invalid input syntax for type {type_name}: \"{input}\""),
    )
}

/// The input function of `ty`.
pub fn parse_text(ty: DataType, input: &str, ctx: &EvalCtx) -> Result<Value, DbError> {
    let tz = ctx.time_zone;
    Ok(match ty {
        DataType::Bool => Value::Bool(parse_bool(input)?),
        DataType::Int2 => Value::Int2(parse_int(input, DataType::Int2)? as i16),
        DataType::Int4 => Value::Int4(parse_int(input, DataType::Int4)? as i32),
        DataType::Int8 => Value::Int8(parse_int(input, DataType::Int8)?),
        DataType::Oid => Value::Int8(parse_oid(input)?),
        // A name needs the catalog (the binder and executor look names
        // up); here only the numeric form is accepted.
        DataType::Reg(crate::datatype::RegKind::Config) => {
            Value::Int8(crate::tsearch::config::config_oid(input)? as i64)
        }
        DataType::Reg(crate::datatype::RegKind::Dictionary) => {
            Value::Int8(crate::tsearch::config::dictionary_oid(input)? as i64)
        }
        DataType::Reg(_) => Value::Int8(parse_oid(input)?),
        DataType::TsVector => Value::TsVector(Arc::new(crate::tsearch::vector::parse(input)?)),
        DataType::TsQuery => Value::TsQuery(Arc::new(crate::tsearch::parse_query(input)?)),
        DataType::Float4 => Value::Float4(float::parse_f32(input)?),
        DataType::Float8 => Value::Float8(float::parse_f64(input)?),
        DataType::Numeric(_) => apply_typmod(Value::Numeric(Numeric::parse(input)?), ty, false)?,
        DataType::Text
        | DataType::Unknown
        | DataType::Varchar(_)
        | DataType::Char(_)
        | DataType::Name => {
            check_no_nul(input.as_bytes())?;
            apply_typmod(Value::Text(Arc::from(input)), ty, false)?
        }
        DataType::Bytea => Value::Bytea(Arc::from(parse_bytea(input)?)),
        DataType::Record(rt) => crate::composites::record_in(rt, input, ctx)?,
        // anyelement_in and friends.
        DataType::Poly(p) => {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("cannot accept a value of type {}", p.name()),
            ))
        }
        // void_in accepts anything.
        DataType::Void => Value::Text(Arc::from("")),
        DataType::Date => Value::Date(datetime::parse_date(
            input,
            tz,
            ctx.now,
            ctx.date_style.order,
        )?),
        DataType::Timestamp(p) => Value::Timestamp(datetime::round_timestamp(
            datetime::parse_timestamp(input, tz, ctx.now, ctx.date_style.order)?,
            p,
        )),
        DataType::TimestampTz(p) => Value::TimestampTz(datetime::round_timestamp(
            datetime::parse_timestamptz(input, tz, ctx.now, ctx.date_style.order)?,
            p,
        )),
        DataType::Interval(m) => {
            let sql_standard = ctx.interval_style == IntervalStyle::SqlStandard;
            Value::Interval(datetime::parse_interval_typmod(input, m, sql_standard)?)
        }
        DataType::Time(p) => {
            let t = crate::time::parse_time(input, tz, ctx.now, ctx.date_style.order)?;
            Value::Time(p.map_or(t, |p| crate::time::round_time(t, p)))
        }
        DataType::TimeTz(p) => {
            let (t, z) = crate::timetz::parse(input, tz, ctx.now, ctx.date_style.order)?;
            Value::TimeTz(p.map_or(t, |p| crate::time::round_time(t, p)), z)
        }
        DataType::Money => Value::Money(crate::money::parse(input)?),
        DataType::Uuid => Value::Uuid(parse_uuid(input)?),
        DataType::PgLsn => Value::PgLsn(crate::pg_lsn::parse(input)?),
        DataType::Bit(_) | DataType::VarBit(_) => crate::bits::parse_typed(ty, input)?,
        DataType::Geo(k) => crate::geometry::parse(k, input)?.value(),
        DataType::Range(k) => crate::range::parse(k, input, ctx)?.value(),
        DataType::Enum(oid) => crate::enums::parse(oid, input)?,
        DataType::Jsonb => Value::Jsonb(Arc::from(json::normalize_jsonb(input)?)),
        DataType::Json => {
            json::validate_json(input)?;
            Value::Text(Arc::from(input))
        }
        DataType::JsonPath => Value::Text(Arc::from(crate::jsonpath::normalize(input)?)),
        DataType::Array(e) => crate::array::parse_array(*e, input, ctx)?.value(),
        DataType::Int2Vector => crate::array::parse_vector(DataType::Int2, input, ctx)?.value(),
        DataType::OidVector => crate::array::parse_vector(DataType::Oid, input, ctx)?.value(),
    })
}

pub(crate) fn check_no_nul(b: &[u8]) -> Result<(), DbError> {
    if b.contains(&0) {
        return Err(DbError::new(
            SqlState::CharacterNotInRepertoire,
            "invalid byte sequence for encoding \"UTF8\": 0x00",
        ));
    }
    Ok(())
}

/// boolin: unique prefixes of true/false/yes/no, on/off, 1/0.
pub fn parse_bool(input: &str) -> Result<bool, DbError> {
    let s = input
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_ascii_lowercase();
    let prefix_of = |word: &str, min: usize| s.len() >= min && word.starts_with(s.as_str());
    if prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || s == "1" {
        Ok(true)
    } else if prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || s == "0" {
        Ok(false)
    } else {
        Err(syntax("boolean", input))
    }
}

/// int2in/int4in/int8in; the result is within the type's range.
pub fn parse_int(input: &str, ty: DataType) -> Result<i64, DbError> {
    let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(syntax(ty.name(), input));
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = (v * 10 + (c - b'0') as i128).min(i128::MAX / 100);
    }
    if neg {
        v = -v;
    }
    let (lo, hi) = match ty {
        DataType::Int2 => (i16::MIN as i128, i16::MAX as i128),
        DataType::Int4 => (i32::MIN as i128, i32::MAX as i128),
        _ => (i64::MIN as i128, i64::MAX as i128),
    };
    if v < lo || v > hi {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("value \"{input}\" is out of range for type {}", ty.name()),
        ));
    }
    Ok(v as i64)
}

fn out_of_oid_range(input: &str) -> DbError {
    DbError::new(
        SqlState::NumericValueOutOfRange,
        format!("value \"{input}\" is out of range for type oid"),
    )
}

fn parse_oid(input: &str) -> Result<i64, DbError> {
    let v = parse_int(input, DataType::Int8).map_err(|e| {
        if e.code == SqlState::InvalidTextRepresentation {
            syntax("oid", input)
        } else {
            // Past int8's range is past oid's too.
            out_of_oid_range(input)
        }
    })?;
    if v < i32::MIN as i64 || v > u32::MAX as i64 {
        return Err(out_of_oid_range(input));
    }
    Ok(if v < 0 { v + (1i64 << 32) } else { v })
}

/// byteain: `\x` hex format or the escape format.
pub(crate) fn parse_bytea(input: &str) -> Result<Vec<u8>, DbError> {
    let b = input.as_bytes();
    if b.len() >= 2 && b[0] == b'\\' && (b[1] == b'x' || b[1] == b'X') {
        return parse_bytea_hex(&input[2..]);
    }
    let bad = || {
        DbError::new(
            SqlState::InvalidTextRepresentation,
            "invalid input syntax for type bytea",
        )
    };
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
        } else if b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else {
            let oct = b.get(i + 1..i + 4).ok_or_else(bad)?;
            let valid = (b'0'..=b'3').contains(&oct[0])
                && oct[1..].iter().all(|c| (b'0'..=b'7').contains(c));
            if !valid {
                return Err(bad());
            }
            out.push((oct[0] - b'0') * 64 + (oct[1] - b'0') * 8 + (oct[2] - b'0'));
            i += 4;
        }
    }
    Ok(out)
}

fn parse_bytea_hex(s: &str) -> Result<Vec<u8>, DbError> {
    let bad_param = |m: String| DbError::new(SqlState::InvalidParameterValue, m);
    let hex = |c: char| -> Result<u8, DbError> {
        c.to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| bad_param(format!("invalid hexadecimal digit: \"{c}\"")))
    };
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        let hi = hex(c)?;
        let lo = match chars.next() {
            Some(c2) => hex(c2)?,
            None => {
                return Err(bad_param(
                    "invalid hexadecimal data: odd number of digits".into(),
                ))
            }
        };
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

/// uuid_in: 32 hex digits, optional `{}`, a hyphen allowed after any group
/// of four digits.
pub(crate) fn parse_uuid(input: &str) -> Result<[u8; 16], DbError> {
    let bad = || syntax("uuid", input);
    let mut s = input.as_bytes();
    let braced = s.first() == Some(&b'{');
    if braced {
        s = &s[1..];
    }
    let mut out = [0u8; 16];
    let mut i = 0;
    for (k, byte) in out.iter_mut().enumerate() {
        let hi = (*s.get(i).ok_or_else(bad)? as char)
            .to_digit(16)
            .ok_or_else(bad)?;
        let lo = (*s.get(i + 1).ok_or_else(bad)? as char)
            .to_digit(16)
            .ok_or_else(bad)?;
        *byte = (hi << 4 | lo) as u8;
        i += 2;
        if k % 2 == 1 && k < 15 && s.get(i) == Some(&b'-') {
            i += 1;
        }
    }
    if braced {
        if s.get(i) != Some(&b'}') {
            return Err(bad());
        }
        i += 1;
    }
    if i != s.len() {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::TimeZone;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn rt(ty: DataType, input: &str) -> String {
        parse_text(ty, input, &ctx()).unwrap().to_text(&ctx())
    }

    fn err(ty: DataType, input: &str) -> (SqlState, String) {
        let e = parse_text(ty, input, &ctx()).unwrap_err();
        (e.code, e.message.clone())
    }

    #[test]
    fn scalars_round_trip_like_postgres() {
        assert_eq!(rt(DataType::Bool, "tr"), "t");
        assert_eq!(rt(DataType::Bool, "of"), "f");
        assert_eq!(rt(DataType::Bool, " yes "), "t");
        assert_eq!(rt(DataType::Bool, "1"), "t");
        assert_eq!(rt(DataType::Int2, " 12 "), "12");
        assert_eq!(rt(DataType::Int2, "-32768"), "-32768");
        assert_eq!(rt(DataType::Int4, "+12"), "12");
        assert_eq!(rt(DataType::Oid, "-1"), "4294967295");
        assert_eq!(rt(DataType::Bytea, "\\x DE AD"), "\\xdead");
        assert_eq!(rt(DataType::Bytea, "a\\\\b\\001c"), "\\x615c620163");
        assert_eq!(
            rt(DataType::Uuid, "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        );
        assert_eq!(
            rt(DataType::Uuid, "A0EEBC999C0B4EF8BB6D6BB9BD380A11"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        );
        assert_eq!(
            rt(DataType::Uuid, "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        );
        assert_eq!(rt(DataType::NUMERIC, " 1.50 "), "1.50");
        assert_eq!(
            rt(
                DataType::from_sql_name("numeric", &[5, 2]).unwrap(),
                "1.005"
            ),
            "1.01"
        );
        assert_eq!(rt(DataType::Char(Some(4)), "ab"), "ab  ");
        assert_eq!(rt(DataType::Varchar(Some(3)), "abc   "), "abc");
        assert_eq!(rt(DataType::Name, &"x".repeat(70)), "x".repeat(63));
    }

    #[test]
    fn input_errors_like_postgres() {
        use SqlState::*;
        let invalid = InvalidTextRepresentation;
        assert_eq!(
            err(DataType::Int4, "abc"),
            (
                invalid,
                "invalid input syntax for type integer: \"abc\"".into()
            )
        );
        assert_eq!(
            err(DataType::Int4, ""),
            (
                invalid,
                "invalid input syntax for type integer: \"\"".into()
            )
        );
        assert_eq!(
            err(DataType::Int4, "- 12"),
            (
                invalid,
                "invalid input syntax for type integer: \"- 12\"".into()
            )
        );
        assert_eq!(
            err(DataType::Int4, "99999999999"),
            (
                NumericValueOutOfRange,
                "value \"99999999999\" is out of range for type integer".into()
            )
        );
        assert_eq!(
            err(DataType::Int2, "40000"),
            (
                NumericValueOutOfRange,
                "value \"40000\" is out of range for type smallint".into()
            )
        );
        assert_eq!(
            err(DataType::Int8, "9223372036854775808"),
            (
                NumericValueOutOfRange,
                "value \"9223372036854775808\" is out of range for type bigint".into()
            )
        );
        assert_eq!(
            err(DataType::Int8, &"9".repeat(100)).0,
            NumericValueOutOfRange
        );
        assert_eq!(
            err(DataType::Bool, "o"),
            (
                invalid,
                "invalid input syntax for type boolean: \"o\"".into()
            )
        );
        assert_eq!(
            err(DataType::Bytea, "\\x4g"),
            (
                InvalidParameterValue,
                "invalid hexadecimal digit: \"g\"".into()
            )
        );
        assert_eq!(
            err(DataType::Bytea, "\\x123"),
            (
                InvalidParameterValue,
                "invalid hexadecimal data: odd number of digits".into()
            )
        );
        for bad in ["abc\\", "\\400", "a\\x"] {
            assert_eq!(
                err(DataType::Bytea, bad),
                (invalid, "invalid input syntax for type bytea".into())
            );
        }
        for bad in [
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
            "a0eebc99-9c0b4ef8-bb6d6bb9bd380a11-",
            "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "",
            "é",
        ] {
            assert_eq!(
                err(DataType::Uuid, bad),
                (
                    invalid,
                    format!("invalid input syntax for type uuid: \"{bad}\"")
                )
            );
        }
        assert_eq!(
            err(DataType::Oid, "12-34"),
            (
                invalid,
                "invalid input syntax for type oid: \"12-34\"".into()
            )
        );
        assert_eq!(
            err(DataType::Oid, "32958209582039852935"),
            (
                NumericValueOutOfRange,
                "value \"32958209582039852935\" is out of range for type oid".into()
            )
        );
        assert_eq!(
            err(DataType::Oid, "4294967296"),
            (
                NumericValueOutOfRange,
                "value \"4294967296\" is out of range for type oid".into()
            )
        );
        assert_eq!(
            err(DataType::Varchar(Some(3)), "abcd"),
            (
                StringDataRightTruncation,
                "value too long for type character varying(3)".into()
            )
        );
        assert_eq!(
            err(DataType::Char(Some(2)), "abc"),
            (
                StringDataRightTruncation,
                "value too long for type character(2)".into()
            )
        );
        assert_eq!(err(DataType::Text, "a\0b").0, CharacterNotInRepertoire);
    }

    #[test]
    fn datetime_and_json_text() {
        let c = EvalCtx::new(TimeZone::fixed(3600), 0);
        let v = parse_text(DataType::TimestampTz(None), "2024-06-01 12:00:00", &c).unwrap();
        assert_eq!(v.to_text(&c), "2024-06-01 12:00:00+01");
        assert_eq!(v.to_text(&ctx()), "2024-06-01 11:00:00+00");
        assert_eq!(
            rt(DataType::Jsonb, r#"{"b":1,"a":2}"#),
            r#"{"a": 2, "b": 1}"#
        );
        assert_eq!(
            rt(DataType::Interval(None), "1 day 2 hours"),
            "1 day 02:00:00"
        );
        assert_eq!(rt(DataType::Date, "2024-02-29"), "2024-02-29");
        let now = parse_text(DataType::TimestampTz(None), "now", &c).unwrap();
        assert_eq!(now, Value::TimestampTz(0));
        assert_eq!(
            parse_text(DataType::Date, "today", &c).unwrap(),
            Value::Date(0)
        );
    }
}
