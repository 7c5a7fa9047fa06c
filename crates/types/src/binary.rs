//! Binary I/O: PostgreSQL's send/recv formats.
//!
//! Everything is big-endian: bool one byte, integers and floats their
//! width, numeric the base-10000 digit format (see [`Numeric::to_binary`]),
//! date `i32` days and timestamps `i64` microseconds since 2000-01-01,
//! interval `i64` micros + `i32` days + `i32` months, uuid 16 bytes, jsonb
//! a version byte (1) followed by the text, text types raw UTF-8 (invalid
//! UTF-8 or NUL is 22021). A wrong length is 22P03 `incorrect binary data
//! format` (the caller may add ` in bind parameter N`, as PostgreSQL does).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::cast::apply_typmod;
use crate::datatype::DataType;
use crate::datetime::{self, Interval, DATE_NOBEGIN, DATE_NOEND, TS_NOBEGIN, TS_NOEND};
use crate::json;
use crate::numeric::Numeric;
use crate::text::check_no_nul;
use crate::value::Value;

impl Value {
    /// Binary (send) form by the value's variant. NULL gives no bytes (the
    /// wire length is -1). Use [`Value::to_binary_as`] for `oid` columns.
    pub fn to_binary(&self) -> Vec<u8> {
        match self {
            Value::Null => Vec::new(),
            Value::Bool(b) => vec![*b as u8],
            Value::Int2(v) => v.to_be_bytes().to_vec(),
            Value::Int4(v) => v.to_be_bytes().to_vec(),
            Value::Int8(v) => v.to_be_bytes().to_vec(),
            Value::Float4(v) => v.to_be_bytes().to_vec(),
            Value::Float8(v) => v.to_be_bytes().to_vec(),
            Value::Numeric(n) => n.to_binary(),
            Value::Text(s) => s.as_bytes().to_vec(),
            Value::Bytea(b) => b.to_vec(),
            Value::Date(d) => d.to_be_bytes().to_vec(),
            Value::Timestamp(t) | Value::TimestampTz(t) | Value::Time(t) | Value::Money(t) => {
                t.to_be_bytes().to_vec()
            }
            // timetz_send: the time, then the zone (seconds west).
            Value::TimeTz(t, z) => {
                let mut out = t.to_be_bytes().to_vec();
                out.extend_from_slice(&z.to_be_bytes());
                out
            }
            Value::Uuid(u) => u.to_vec(),
            Value::PgLsn(l) => l.to_be_bytes().to_vec(),
            Value::Bits(b) => crate::bits::to_binary(b),
            Value::TsVector(v) => v.to_binary(),
            Value::TsQuery(q) => q.to_binary(),
            Value::Geo(g) => g.to_binary(),
            Value::Range(r) => r.to_binary(),
            Value::Jsonb(s) => {
                let mut out = Vec::with_capacity(s.len() + 1);
                out.push(1);
                out.extend_from_slice(s.as_bytes());
                out
            }
            Value::Interval(i) => {
                let mut out = Vec::with_capacity(16);
                out.extend_from_slice(&i.micros.to_be_bytes());
                out.extend_from_slice(&i.days.to_be_bytes());
                out.extend_from_slice(&i.months.to_be_bytes());
                out
            }
            Value::Array(a) => a.to_binary(),
            // enum_send: the label's text.
            Value::Enum(l) => crate::enums::label_text(*l).as_bytes().to_vec(),
            Value::Record(fields) => {
                let types: Vec<DataType> = fields.iter().map(Value::data_type).collect();
                record_send(fields, &types)
            }
        }
    }

    /// Binary form for a column of type `ty` (differs from
    /// [`Value::to_binary`] only for `oid`, sent as 4 bytes).
    pub fn to_binary_as(&self, ty: DataType) -> Vec<u8> {
        match (self, ty) {
            (Value::Int8(v), DataType::Oid | DataType::Reg(_)) => {
                (*v as u32).to_be_bytes().to_vec()
            }
            // jsonpath_send: a version byte (1), then the text.
            (Value::Text(s), DataType::JsonPath) => {
                let mut out = Vec::with_capacity(s.len() + 1);
                out.push(1);
                out.extend_from_slice(s.as_bytes());
                out
            }
            (Value::Record(fields), DataType::Record(r)) if r.fields.len() == fields.len() => {
                let types: Vec<DataType> = r.fields.iter().map(|f| f.1).collect();
                record_send(fields, &types)
            }
            _ => self.to_binary(),
        }
    }
}

/// record_send: the field count, then per field its type OID and its
/// length-prefixed binary form (-1 for NULL).
fn record_send(fields: &[Value], types: &[DataType]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(fields.len() as i32).to_be_bytes());
    for (v, t) in fields.iter().zip(types) {
        out.extend_from_slice(&t.resolve_unknown().oid().to_be_bytes());
        if v.is_null() {
            out.extend_from_slice(&(-1i32).to_be_bytes());
        } else {
            let b = v.to_binary_as(*t);
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(&b);
        }
    }
    out
}

/// Input of an anonymous record (`record_in`, `record_recv` of type
/// `record`): PostgreSQL refuses it too.
pub fn anonymous_record_input() -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        "input of anonymous composite types is not implemented",
    )
}

fn bad_format() -> DbError {
    DbError::new(
        SqlState::InvalidBinaryRepresentation,
        "incorrect binary data format",
    )
}

fn fixed<const N: usize>(buf: &[u8]) -> Result<[u8; N], DbError> {
    buf.try_into().map_err(|_| bad_format())
}

/// UTF-8 text without NULs (22021 otherwise, naming the bad bytes).
pub fn utf8_text(buf: &[u8]) -> Result<&str, DbError> {
    match std::str::from_utf8(buf) {
        Ok(s) => {
            check_no_nul(buf)?;
            Ok(s)
        }
        Err(e) => {
            let at = e.valid_up_to();
            let len = e.error_len().unwrap_or(buf.len() - at).clamp(1, 4);
            let bytes: Vec<String> = buf[at..(at + len).min(buf.len())]
                .iter()
                .map(|b| format!("0x{b:02x}"))
                .collect();
            Err(DbError::new(
                SqlState::CharacterNotInRepertoire,
                format!(
                    "invalid byte sequence for encoding \"UTF8\": {}",
                    bytes.join(" ")
                ),
            ))
        }
    }
}

fn check_ts(t: i64) -> Result<i64, DbError> {
    if t == TS_NOBEGIN || t == TS_NOEND || datetime::timestamp_in_range(t) {
        Ok(t)
    } else {
        Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "timestamp out of range",
        ))
    }
}

fn check_date(d: i32) -> Result<i32, DbError> {
    if d == DATE_NOBEGIN || d == DATE_NOEND || datetime::date_in_range(d) {
        Ok(d)
    } else {
        Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "date out of range",
        ))
    }
}

/// The recv function of `ty`.
pub fn parse_binary(ty: DataType, buf: &[u8]) -> Result<Value, DbError> {
    Ok(match ty {
        DataType::Bool => Value::Bool(fixed::<1>(buf)?[0] != 0),
        DataType::Int2 => Value::Int2(i16::from_be_bytes(fixed(buf)?)),
        DataType::Int4 => Value::Int4(i32::from_be_bytes(fixed(buf)?)),
        DataType::Int8 => Value::Int8(i64::from_be_bytes(fixed(buf)?)),
        DataType::Oid | DataType::Reg(_) => Value::Int8(u32::from_be_bytes(fixed(buf)?) as i64),
        DataType::Float4 => Value::Float4(f32::from_be_bytes(fixed(buf)?)),
        DataType::Float8 => Value::Float8(f64::from_be_bytes(fixed(buf)?)),
        DataType::Numeric(_) => {
            apply_typmod(Value::Numeric(Numeric::from_binary(buf)?), ty, false)?
        }
        DataType::Text
        | DataType::Varchar(_)
        | DataType::Char(_)
        | DataType::Name
        | DataType::Unknown => apply_typmod(Value::Text(Arc::from(utf8_text(buf)?)), ty, false)?,
        DataType::Bytea => Value::Bytea(Arc::from(buf)),
        DataType::Enum(oid) => crate::enums::parse(oid, utf8_text(buf)?)?,
        DataType::Record(rt) => crate::composites::record_recv(rt, buf)?,
        // anyelement_in and friends.
        DataType::Poly(p) => {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("cannot accept a value of type {}", p.name()),
            ))
        }
        // void_recv ignores its input.
        DataType::Void => Value::Text(Arc::from("")),
        DataType::Date => Value::Date(check_date(i32::from_be_bytes(fixed(buf)?))?),
        // timestamp_recv: the range check, then the precision.
        DataType::Timestamp(p) => Value::Timestamp(crate::datetime::round_timestamp(
            check_ts(i64::from_be_bytes(fixed(buf)?))?,
            p,
        )),
        DataType::TimestampTz(p) => Value::TimestampTz(crate::datetime::round_timestamp(
            check_ts(i64::from_be_bytes(fixed(buf)?))?,
            p,
        )),
        DataType::Time(p) => {
            // time_recv: the range check, then the precision.
            let t = i64::from_be_bytes(fixed(buf)?);
            if !(0..=crate::datetime::USECS_PER_DAY).contains(&t) {
                return Err(DbError::new(
                    SqlState::NumericValueOutOfRange,
                    "time out of range",
                ));
            }
            Value::Time(p.map_or(t, |p| crate::time::round_time(t, p)))
        }
        DataType::TimeTz(p) => {
            // timetz_recv: the range checks, then the precision.
            let b: [u8; 12] = fixed(buf)?;
            let t = i64::from_be_bytes(fixed(&b[..8])?);
            match crate::timetz::from_parts(t, i32::from_be_bytes(fixed(&b[8..])?))? {
                Value::TimeTz(t, z) => {
                    Value::TimeTz(p.map_or(t, |p| crate::time::round_time(t, p)), z)
                }
                v => v,
            }
        }
        DataType::Money => Value::Money(i64::from_be_bytes(fixed(buf)?)),
        DataType::Interval(m) => {
            // interval_recv: the value, then the typmod.
            let b: [u8; 16] = fixed(buf)?;
            let iv = Interval::new(
                i32::from_be_bytes(fixed(&b[12..16])?),
                i32::from_be_bytes(fixed(&b[8..12])?),
                i64::from_be_bytes(fixed(&b[..8])?),
            );
            Value::Interval(m.map_or(iv, |m| m.adjust(iv)))
        }
        DataType::Uuid => Value::Uuid(fixed(buf)?),
        DataType::PgLsn => Value::PgLsn(u64::from_be_bytes(fixed(buf)?)),
        DataType::Bit(_) | DataType::VarBit(_) => crate::bits::parse_binary(ty, buf)?,
        DataType::TsVector => {
            Value::TsVector(Arc::new(crate::tsearch::TsVector::from_binary(buf)?))
        }
        DataType::TsQuery => Value::TsQuery(Arc::new(crate::tsearch::TsQuery::from_binary(buf)?)),
        DataType::Geo(k) => crate::geometry::parse_binary(k, buf)?.value(),
        DataType::Range(k) => crate::range::parse_binary(k, buf)?.value(),
        DataType::Json => {
            let s = utf8_text(buf)?;
            json::validate_json(s)?;
            Value::Text(Arc::from(s))
        }
        DataType::Jsonb => match buf.split_first() {
            Some((1, rest)) => Value::Jsonb(Arc::from(json::normalize_jsonb(utf8_text(rest)?)?)),
            Some((v, _)) => {
                return Err(DbError::new(
                    SqlState::InvalidBinaryRepresentation,
                    format!("unsupported jsonb version number {v}"),
                ))
            }
            None => return Err(bad_format()),
        },
        DataType::JsonPath => match buf.split_first() {
            Some((1, rest)) => {
                Value::Text(Arc::from(crate::jsonpath::normalize(utf8_text(rest)?)?))
            }
            Some((v, _)) => {
                return Err(DbError::new(
                    SqlState::InvalidBinaryRepresentation,
                    format!("unsupported jsonpath version number: {v}"),
                ))
            }
            None => return Err(bad_format()),
        },
        DataType::Array(e) => crate::array::Array::from_binary(*e, buf)?.value(),
        DataType::Int2Vector => {
            crate::array::Array::vector_from_binary(DataType::Int2, buf)?.value()
        }
        DataType::OidVector => crate::array::Array::vector_from_binary(DataType::Oid, buf)?.value(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_layouts() {
        assert_eq!(Value::Int4(1).to_binary(), vec![0, 0, 0, 1]);
        assert_eq!(
            Value::Interval(Interval::new(1, 2, 3)).to_binary(),
            vec![0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1]
        );
        assert_eq!(
            Value::Int8(4294967295).to_binary_as(DataType::Oid),
            vec![255; 4]
        );
        assert_eq!(
            Value::Jsonb(Arc::from("{}")).to_binary(),
            vec![1, b'{', b'}']
        );
        assert_eq!(
            parse_binary(
                DataType::Interval(None),
                &Value::Interval(Interval::new(1, 2, 3)).to_binary()
            )
            .unwrap(),
            Value::Interval(Interval::new(1, 2, 3))
        );
    }

    #[test]
    fn errors() {
        let e = parse_binary(DataType::Int4, &[0, 1]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::InvalidBinaryRepresentation,
                "incorrect binary data format"
            )
        );
        let e = parse_binary(DataType::Text, &[b'a', 0xff]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::CharacterNotInRepertoire,
                "invalid byte sequence for encoding \"UTF8\": 0xff"
            )
        );
        assert!(parse_binary(DataType::Text, &[0]).is_err());
        assert!(parse_binary(DataType::Jsonb, &[2, b'1']).is_err());
        assert!(parse_binary(DataType::Jsonb, &[]).is_err());
        assert!(parse_binary(
            DataType::Timestamp(None),
            &i64::MAX.wrapping_sub(1).to_be_bytes()
        )
        .is_err());
        assert!(parse_binary(DataType::Date, &(i32::MAX - 1).to_be_bytes()).is_err());
        assert!(parse_binary(DataType::Varchar(Some(2)), b"abc").is_err());
        assert!(parse_binary(DataType::Uuid, &[0; 15]).is_err());
    }
}
