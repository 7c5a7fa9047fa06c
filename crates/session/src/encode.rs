//! Values on the wire: DataRow encoding (text output and binary send),
//! parameter decoding (text input and binary receive), RowDescription.
//!
//! The type OID of the column or parameter, not the `Value` variant, decides
//! the wire form: an `oid` column holds `Value::Int8` but is sent as a
//! 4-byte integer, and a parameter the planner typed `int4` is parsed as an
//! integer whatever its text looks like. There is one value codec, the
//! types crate's (`Value::to_text`, `text::parse_text`, `Value::to_binary_as`,
//! `binary::parse_binary`): a bound parameter reads exactly as a literal
//! cast to its type would. This module only maps OIDs to types, applies the
//! session's [`EvalCtx`], and words wire-level errors as PostgreSQL does.

use nestor_common::{DbError, SqlState};
use nestor_exec::ColumnDesc;
use nestor_types::binary;
use nestor_types::datatype::DataType;
use nestor_types::text::parse_text;
use nestor_types::{EvalCtx, Value};

use crate::protocol::{FieldDesc, FormatCode};

/// The format of result column `i` given Bind's result format codes.
pub(crate) fn column_format(formats: &[FormatCode], i: usize) -> FormatCode {
    match formats.len() {
        0 => 0,
        1 => formats[0],
        _ => formats.get(i).copied().unwrap_or(0),
    }
}

/// RowDescription fields for `columns` with the result formats of a Bind
/// (empty = all text; Describe of a statement uses text).
pub(crate) fn field_descs(columns: &[ColumnDesc], formats: &[FormatCode]) -> Vec<FieldDesc> {
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
pub(crate) fn check_result_formats(formats: &[FormatCode], ncols: usize) -> Result<(), DbError> {
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

/// The type of a column or parameter with type OID `oid` (unknown OIDs are
/// read and written as text, as PostgreSQL treats `unknown`).
pub(crate) fn wire_type(oid: u32) -> DataType {
    DataType::from_oid(oid).unwrap_or(DataType::Text)
}

/// Encode one row for DataRow: each value in its column's type and format.
pub(crate) fn encode_row(
    ctx: &EvalCtx,
    row: &[Value],
    types: &[DataType],
    formats: &[FormatCode],
) -> Vec<Option<Vec<u8>>> {
    debug_assert!(
        types.is_empty() || types.len() == row.len(),
        "{} column types for a row of {}",
        types.len(),
        row.len()
    );
    row.iter()
        .enumerate()
        .map(|(i, v)| {
            if v.is_null() {
                return None;
            }
            let ty = types.get(i).copied().unwrap_or(DataType::Text);
            Some(match column_format(formats, i) {
                1 => v.to_binary_as(ty),
                _ => v.to_text(ctx).into_bytes(),
            })
        })
        .collect()
}

/// Decode Bind parameter `index` (0-based) of type `oid` in `format`.
pub(crate) fn decode_param(
    ctx: &EvalCtx,
    raw: Option<&[u8]>,
    format: FormatCode,
    oid: u32,
    index: usize,
) -> Result<Value, DbError> {
    let Some(raw) = raw else {
        return Ok(Value::Null);
    };
    let ty = wire_type(oid);
    match format {
        0 => parse_text(ty, binary::utf8_text(raw)?, ctx),
        1 => decode_binary(ty, raw, index),
        f => Err(DbError::new(
            SqlState::ProtocolViolation,
            format!("unsupported format code: {f}"),
        )),
    }
}

/// A binary parameter, with PostgreSQL's errors for a wrong length (see
/// [`recv_binary`]), a malformed value naming the parameter.
fn decode_binary(ty: DataType, raw: &[u8], index: usize) -> Result<Value, DbError> {
    recv_binary(ty, raw).map_err(|e| {
        if e.code == SqlState::InvalidBinaryRepresentation {
            DbError::new(
                SqlState::InvalidBinaryRepresentation,
                format!(
                    "incorrect binary data format in bind parameter {}",
                    index + 1
                ),
            )
        } else {
            e
        }
    })
}

/// A value in `ty`'s binary send/recv form (a binary parameter, a field of
/// binary COPY), with the errors of PostgreSQL's receive functions for a
/// wrong length: too short is the buffer running out (08P01), bytes left
/// over are 22P03 "incorrect binary data format".
pub(crate) fn recv_binary(ty: DataType, raw: &[u8]) -> Result<Value, DbError> {
    let width = match ty {
        DataType::Name | DataType::Enum(_) => -1, // sent as text
        t => t.typlen(),
    };
    if width > 0 && raw.len() < width as usize {
        // boolrecv reads one byte (pq_getmsgbyte), the others a block.
        let msg = if raw.is_empty() && ty == DataType::Bool {
            "no data left in message"
        } else {
            "insufficient data left in message"
        };
        return Err(DbError::new(SqlState::ProtocolViolation, msg));
    }
    if width > 0 && raw.len() > width as usize {
        return Err(DbError::new(
            SqlState::InvalidBinaryRepresentation,
            "incorrect binary data format",
        ));
    }
    binary::parse_binary(ty, raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nestor_types::datetime::TimeZone;

    const UTC: EvalCtx = EvalCtx::new(TimeZone::UTC, 0);

    fn text_param(s: &str, oid: u32) -> Result<Value, DbError> {
        decode_param(&UTC, Some(s.as_bytes()), 0, oid, 0)
    }

    #[test]
    fn text_params_by_type() {
        assert_eq!(text_param("42", 23).unwrap(), Value::Int4(42));
        let e = text_param("x", 23).unwrap_err();
        assert_eq!(e.message, "invalid input syntax for type integer: \"x\"");
        assert_eq!(text_param("99999", 21).unwrap_err().code.code(), "22003");
        assert_eq!(text_param("\\x0aff", 17).unwrap(), Value::bytea(&[10, 255]));
        // One codec: a parameter reads as the same literal cast would.
        assert_eq!(text_param("tru", 16).unwrap(), Value::Bool(true));
        assert_eq!(text_param("anything", 0).unwrap(), Value::text("anything"));
    }

    #[test]
    fn binary_params_and_lengths() {
        for (v, oid) in [
            (Value::Int4(-7), 23),
            (Value::Int8(1 << 40), 20),
            (Value::Bool(true), 16),
        ] {
            let b = v.to_binary_as(wire_type(oid));
            assert_eq!(decode_param(&UTC, Some(&b), 1, oid, 0).unwrap(), v);
        }
        let e = decode_param(&UTC, Some(&[0, 1]), 1, 23, 0).unwrap_err();
        assert_eq!(e.code, SqlState::ProtocolViolation);
        let e = decode_param(&UTC, Some(&[0, 0, 0, 0, 1]), 1, 23, 2).unwrap_err();
        assert_eq!(e.code, SqlState::InvalidBinaryRepresentation);
        assert_eq!(
            e.message,
            "incorrect binary data format in bind parameter 3"
        );
    }

    #[test]
    fn rows_encode_by_column_type() {
        let row = [
            Value::Bool(false),
            Value::bytea(&[1, 171]),
            Value::Null,
            Value::Int8(5),
        ];
        let types = [
            DataType::Bool,
            DataType::Bytea,
            DataType::Text,
            DataType::Oid,
        ];
        let text = encode_row(&UTC, &row, &types, &[]);
        assert_eq!(text[0].as_deref(), Some(&b"f"[..]));
        assert_eq!(text[1].as_deref(), Some(&b"\\x01ab"[..]));
        assert_eq!(text[2], None);
        let bin = encode_row(&UTC, &row, &types, &[1]);
        assert_eq!(bin[3].as_deref(), Some(&[0u8, 0, 0, 5][..]));
    }
}
