//! Values on the wire: DataRow encoding (text output and binary send),
//! parameter decoding (text input and binary receive), RowDescription.
//!
//! The type OID of the column or parameter, not the `Value` variant, decides
//! the wire form: an `oid` column holds `Value::Int8` but is sent as a
//! 4-byte integer, and a parameter the planner typed `int4` is parsed as an
//! integer whatever its text looks like. The per-type formatters and parsers
//! are the types crate's (`nestor_types::{float, numeric, datetime, json}`);
//! this module only dispatches and applies the session's TimeZone.
//!
//! Text output and input follow PostgreSQL's default styles (DateStyle ISO,
//! bytea hex, IntervalStyle postgres); other styles are the types crate's
//! business once it offers them.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_types::datetime::{self, TimeZone};
use nestor_types::{float, json, Numeric, Value};

use crate::protocol::{FieldDesc, FormatCode};
use nestor_exec::ColumnDesc;
use nestor_settings::Settings;

/// Per-session conversion context.
#[derive(Clone, Copy, Debug)]
pub struct Codec {
    pub tz: TimeZone,
    /// Transaction timestamp (for 'now' / 'today' in input).
    pub now_us: i64,
}

impl Codec {
    pub fn new(settings: &Settings, now_us: i64) -> Codec {
        let tz = settings
            .get("timezone")
            .and_then(TimeZone::parse)
            .unwrap_or(TimeZone::UTC);
        Codec { tz, now_us }
    }
}

/// The format of result column `i` given Bind's result format codes.
pub fn column_format(formats: &[FormatCode], i: usize) -> FormatCode {
    match formats.len() {
        0 => 0,
        1 => formats[0],
        _ => formats.get(i).copied().unwrap_or(0),
    }
}

/// RowDescription fields for `columns` with the result formats of a Bind
/// (empty = all text; Describe of a statement uses text).
pub fn field_descs(columns: &[ColumnDesc], formats: &[FormatCode]) -> Vec<FieldDesc> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| FieldDesc {
            name: c.name.clone(),
            table_oid: c.table_oid,
            column_id: c.column_id,
            type_oid: c.type_oid,
            type_size: c.type_size,
            type_modifier: c.type_modifier,
            format: column_format(formats, i),
        })
        .collect()
}

/// Check result format codes against the column count (08P01 otherwise).
pub fn check_result_formats(formats: &[FormatCode], ncols: usize) -> Result<(), DbError> {
    if formats.iter().any(|f| *f != 0 && *f != 1) {
        let bad = formats.iter().find(|f| **f != 0 && **f != 1).copied();
        return Err(DbError::new(
            SqlState::ProtocolViolation,
            format!("unsupported format code: {}", bad.unwrap_or(0)),
        ));
    }
    if formats.len() > 1 && formats.len() != ncols {
        return Err(DbError::new(
            SqlState::ProtocolViolation,
            format!(
                "bind message has {} result formats but query has {} columns",
                formats.len(),
                ncols
            ),
        ));
    }
    Ok(())
}

/// Encode one row for DataRow.
pub fn encode_row(
    codec: &Codec,
    row: &[Value],
    oids: &[u32],
    formats: &[FormatCode],
) -> Vec<Option<Vec<u8>>> {
    row.iter()
        .enumerate()
        .map(|(i, v)| {
            let oid = oids.get(i).copied().unwrap_or(0);
            match column_format(formats, i) {
                1 => to_binary(v, oid),
                _ => to_text(codec, v).map(String::into_bytes),
            }
        })
        .collect()
}

/// Text output of a value (None for NULL).
pub fn to_text(codec: &Codec, v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => if *b { "t" } else { "f" }.to_string(),
        Value::Int2(x) => x.to_string(),
        Value::Int4(x) => x.to_string(),
        Value::Int8(x) => x.to_string(),
        Value::Float4(x) => float::format_f32(*x),
        Value::Float8(x) => float::format_f64(*x),
        Value::Numeric(n) => n.to_string(),
        Value::Text(s) | Value::Jsonb(s) => s.to_string(),
        Value::Bytea(b) => bytea_hex(b),
        Value::Date(d) => datetime::format_date(*d),
        Value::Timestamp(t) => datetime::format_timestamp(*t),
        Value::TimestampTz(t) => datetime::format_timestamptz(*t, codec.tz),
        Value::Uuid(u) => format_uuid(u),
        Value::Interval(iv) => datetime::format_interval(iv),
    })
}

fn bytea_hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("\\x");
    for byte in b {
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

fn format_uuid(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Binary send of a value for a column of type `oid` (None for NULL).
pub fn to_binary(v: &Value, oid: u32) -> Option<Vec<u8>> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => vec![*b as u8],
        Value::Int2(x) => x.to_be_bytes().to_vec(),
        Value::Int4(x) => x.to_be_bytes().to_vec(),
        Value::Int8(x) if oid == 26 => (*x as u32).to_be_bytes().to_vec(),
        Value::Int8(x) => x.to_be_bytes().to_vec(),
        Value::Float4(x) => x.to_be_bytes().to_vec(),
        Value::Float8(x) => x.to_be_bytes().to_vec(),
        Value::Numeric(n) => n.to_binary(),
        Value::Text(s) => s.as_bytes().to_vec(),
        Value::Jsonb(s) => [&[1u8][..], s.as_bytes()].concat(),
        Value::Bytea(b) => b.to_vec(),
        Value::Date(d) => d.to_be_bytes().to_vec(),
        Value::Timestamp(t) | Value::TimestampTz(t) => t.to_be_bytes().to_vec(),
        Value::Uuid(u) => u.to_vec(),
        Value::Interval(iv) => {
            let mut b = iv.micros.to_be_bytes().to_vec();
            b.extend_from_slice(&iv.days.to_be_bytes());
            b.extend_from_slice(&iv.months.to_be_bytes());
            b
        }
    })
}

/// Decode one Bind parameter of type `oid` in `format`.
pub fn decode_param(
    codec: &Codec,
    raw: Option<&[u8]>,
    format: FormatCode,
    oid: u32,
) -> Result<Value, DbError> {
    let Some(raw) = raw else {
        return Ok(Value::Null);
    };
    match format {
        0 => {
            let s = std::str::from_utf8(raw).map_err(|_| {
                DbError::new(
                    SqlState::CharacterNotInRepertoire,
                    "invalid byte sequence for encoding \"UTF8\"",
                )
            })?;
            parse_text(codec, s, oid)
        }
        1 => parse_binary(raw, oid),
        f => Err(DbError::new(
            SqlState::ProtocolViolation,
            format!("unsupported format code: {f}"),
        )),
    }
}

fn syntax(type_name: &str, s: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("invalid input syntax for type {type_name}: \"{s}\""),
    )
}

fn int_in<T: std::str::FromStr + TryFrom<i128>>(s: &str, name: &str) -> Result<T, DbError> {
    let wide: i128 = s.trim().parse().map_err(|_| syntax(name, s))?;
    T::try_from(wide).map_err(|_| {
        DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("value \"{s}\" is out of range for type {name}"),
        )
    })
}

/// Text input of a value of type `oid` (unknown OIDs read as text).
pub fn parse_text(codec: &Codec, s: &str, oid: u32) -> Result<Value, DbError> {
    Ok(match oid {
        16 => Value::Bool(parse_bool(s).ok_or_else(|| syntax("boolean", s))?),
        21 => Value::Int2(int_in(s, "smallint")?),
        23 => Value::Int4(int_in(s, "integer")?),
        20 => Value::Int8(int_in(s, "bigint")?),
        26 => Value::Int8(int_in::<u32>(s, "oid")? as i64),
        700 => Value::Float4(float::parse_f32(s)?),
        701 => Value::Float8(float::parse_f64(s)?),
        1700 => Value::Numeric(Numeric::parse(s)?),
        17 => Value::Bytea(Arc::from(parse_bytea(s)?)),
        1082 => Value::Date(datetime::parse_date(s, codec.tz, codec.now_us)?),
        1114 => Value::Timestamp(datetime::parse_timestamp(s, codec.tz, codec.now_us)?),
        1184 => Value::TimestampTz(datetime::parse_timestamptz(s, codec.tz, codec.now_us)?),
        1186 => Value::Interval(datetime::parse_interval(s)?),
        2950 => Value::Uuid(parse_uuid(s).ok_or_else(|| syntax("uuid", s))?),
        3802 => Value::Jsonb(Arc::from(json::normalize_jsonb(s)?)),
        _ => Value::text(s),
    })
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "t" | "true" | "yes" | "y" | "on" | "1" => Some(true),
        "f" | "false" | "no" | "n" | "off" | "0" => Some(false),
        _ => None,
    }
}

fn parse_bytea(s: &str) -> Result<Vec<u8>, DbError> {
    let bad = || syntax("bytea", s);
    if let Some(hex) = s.strip_prefix("\\x") {
        let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        if !digits.len().is_multiple_of(2) {
            return Err(bad());
        }
        return digits
            .chunks(2)
            .map(|c| {
                std::str::from_utf8(c)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(bad)
            })
            .collect();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'\\', Some(b'\\')) => {
                out.push(b'\\');
                i += 2;
            }
            (b'\\', _) => {
                let oct = s.get(i + 1..i + 4).ok_or_else(bad)?;
                out.push(u8::from_str_radix(oct, 8).map_err(|_| bad())?);
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let t = s.trim();
    let t = t
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(t);
    let hex: String = t.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fn binary_err(type_name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidBinaryRepresentation,
        format!("incorrect binary data format in bind parameter of type {type_name}"),
    )
}

fn fixed<const N: usize>(raw: &[u8], name: &str) -> Result<[u8; N], DbError> {
    raw.try_into().map_err(|_| binary_err(name))
}

/// Binary receive of a value of type `oid`.
pub fn parse_binary(raw: &[u8], oid: u32) -> Result<Value, DbError> {
    Ok(match oid {
        16 => Value::Bool(fixed::<1>(raw, "boolean")?[0] != 0),
        21 => Value::Int2(i16::from_be_bytes(fixed(raw, "smallint")?)),
        23 => Value::Int4(i32::from_be_bytes(fixed(raw, "integer")?)),
        20 => Value::Int8(i64::from_be_bytes(fixed(raw, "bigint")?)),
        26 => Value::Int8(u32::from_be_bytes(fixed(raw, "oid")?) as i64),
        700 => Value::Float4(f32::from_be_bytes(fixed(raw, "real")?)),
        701 => Value::Float8(f64::from_be_bytes(fixed(raw, "double precision")?)),
        1700 => Value::Numeric(Numeric::from_binary(raw)?),
        17 => Value::bytea(raw),
        1082 => Value::Date(i32::from_be_bytes(fixed(raw, "date")?)),
        1114 => Value::Timestamp(i64::from_be_bytes(fixed(raw, "timestamp")?)),
        1184 => Value::TimestampTz(i64::from_be_bytes(fixed(raw, "timestamptz")?)),
        2950 => Value::Uuid(fixed(raw, "uuid")?),
        3802 => match raw.split_first() {
            Some((1, rest)) => {
                let s = std::str::from_utf8(rest).map_err(|_| binary_err("jsonb"))?;
                Value::Jsonb(Arc::from(json::normalize_jsonb(s)?))
            }
            _ => return Err(binary_err("jsonb")),
        },
        1186 => {
            let b: [u8; 16] = fixed(raw, "interval")?;
            Value::Interval(datetime::Interval {
                micros: i64::from_be_bytes(b[0..8].try_into().expect("8 bytes")),
                days: i32::from_be_bytes(b[8..12].try_into().expect("4 bytes")),
                months: i32::from_be_bytes(b[12..16].try_into().expect("4 bytes")),
            })
        }
        _ => Value::text(std::str::from_utf8(raw).map_err(|_| binary_err("text"))?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> Codec {
        Codec {
            tz: TimeZone::UTC,
            now_us: 0,
        }
    }

    #[test]
    fn text_params_by_type() {
        let c = codec();
        assert_eq!(parse_text(&c, "42", 23).unwrap(), Value::Int4(42));
        let e = parse_text(&c, "x", 23).unwrap_err();
        assert_eq!(e.message, "invalid input syntax for type integer: \"x\"");
        let e = parse_text(&c, "99999", 21).unwrap_err();
        assert_eq!(e.code.code(), "22003");
        assert_eq!(
            parse_text(&c, "\\x0aff", 17).unwrap(),
            Value::bytea(&[10, 255])
        );
    }

    #[test]
    fn binary_round_trip() {
        for (v, oid) in [
            (Value::Int4(-7), 23),
            (Value::Int8(1 << 40), 20),
            (Value::Bool(true), 16),
        ] {
            let b = to_binary(&v, oid).unwrap();
            assert_eq!(parse_binary(&b, oid).unwrap(), v);
        }
        assert_eq!(to_binary(&Value::Int8(5), 26).unwrap(), vec![0, 0, 0, 5]);
    }

    #[test]
    fn text_output() {
        let c = codec();
        assert_eq!(to_text(&c, &Value::Bool(false)).unwrap(), "f");
        assert_eq!(to_text(&c, &Value::bytea(&[1, 171])).unwrap(), "\\x01ab");
        assert_eq!(to_text(&c, &Value::Null), None);
    }
}
