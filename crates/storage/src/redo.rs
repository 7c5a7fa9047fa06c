//! Redo: what a committed transaction hands to the WAL, and how recovery
//! applies it.
//!
//! Redo is generated at commit from the transaction's undo log, not logged
//! as the transaction runs: for each row it wrote, the *final* image (or a
//! delete), emitted at the position of the row's last change so that schema
//! changes made earlier in the same transaction (CREATE TABLE, ADD COLUMN)
//! are replayed first. Work undone by ROLLBACK TO is no longer in the undo
//! log, so it never reaches the WAL; a row updated a thousand times in one
//! transaction is logged once.
//!
//! ```text
//!  op      := 0x04 Row    rel:u32 row:u64 len:u32 stored-row
//!           | 0x02 Delete rel:u32 row:u64
//!           | 0x03 Ddl    len:u32 bytes            (the catalog's own redo)
//!           | 0x01 Put    rel:u32 row:u64 ncols:u16 value*    (read only)
//!  stored-row := the row's in-memory form (crate::codec), copied as is
//!  value   := oid:u32 (0 = NULL) [len:u32 bytes]   (PostgreSQL binary send format)
//! ```
//!
//! A row image is the bytes the table holds, so commit copies them and
//! recovery installs them without building values; recovery checks them
//! first (`codec::check_row`). `0x01`, the image as PostgreSQL binary
//! values, was written by earlier versions and is still read.
//!
//! All integers little-endian. Row ids are stable, so replay addresses rows
//! exactly as the checkpoint image and earlier records left them.

use nestor_common::{RelId, RowId};
use nestor_types::datatype::DataType;
use nestor_types::{Row, Value};

/// One redo operation.
#[derive(Clone, Debug, PartialEq)]
pub enum RedoOp {
    /// A row's final image in its stored form ([`stored_values`] reads it).
    Put {
        rel: RelId,
        row: RowId,
        stored: Box<[u8]>,
    },
    Delete {
        rel: RelId,
        row: RowId,
    },
    Ddl(Vec<u8>),
}

pub fn encode_value(v: &Value, out: &mut Vec<u8>) {
    if v.is_null() {
        out.extend_from_slice(&0u32.to_le_bytes());
        return;
    }
    let oid = v.data_type().oid();
    let bytes = v.to_binary();
    out.extend_from_slice(&oid.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
}

/// The stored form of `values` (what [`RedoOp::Put`] carries).
pub fn store_values(values: &[Value]) -> Box<[u8]> {
    crate::codec::encode_row(values)
}

/// The values of a stored row image.
pub fn stored_values(stored: &[u8]) -> Row {
    crate::codec::decode_row(stored)
}

/// A row image op for `stored`.
pub(crate) fn encode_put(rel: RelId, row: RowId, stored: &[u8], out: &mut Vec<u8>) {
    out.push(4);
    out.extend_from_slice(&rel.0.to_le_bytes());
    out.extend_from_slice(&row.0.to_le_bytes());
    out.extend_from_slice(&(stored.len() as u32).to_le_bytes());
    out.extend_from_slice(stored);
}

pub(crate) fn encode_op(op: &RedoOp, out: &mut Vec<u8>) {
    match op {
        RedoOp::Put { rel, row, stored } => encode_put(*rel, *row, stored, out),
        RedoOp::Delete { rel, row } => {
            out.push(2);
            out.extend_from_slice(&rel.0.to_le_bytes());
            out.extend_from_slice(&row.0.to_le_bytes());
        }
        RedoOp::Ddl(bytes) => {
            out.push(3);
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        }
    }
}

/// A cursor over redo bytes; every read is bounds-checked (a corrupt
/// payload is an error, never a panic).
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| format!("redo truncated at byte {}", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.bytes(2)?.try_into().expect("2")))
    }

    pub fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().expect("4")))
    }

    pub fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().expect("8")))
    }

    /// A stored row image of `len` bytes, checked.
    pub fn stored_row(&mut self, len: usize) -> Result<Box<[u8]>, String> {
        let b = self.bytes(len)?;
        crate::codec::check_row(b)?;
        Ok(Box::from(b))
    }

    /// A row image in the earlier form, `ncols:u16 value*`, converted to
    /// the stored form.
    pub fn values_row(&mut self) -> Result<Box<[u8]>, String> {
        let n = self.u16()? as usize;
        let values: Vec<Value> = (0..n).map(|_| self.value()).collect::<Result<_, _>>()?;
        Ok(crate::codec::encode_row(&values))
    }

    pub fn value(&mut self) -> Result<Value, String> {
        let oid = self.u32()?;
        if oid == 0 {
            return Ok(Value::Null);
        }
        let ty =
            DataType::from_oid(oid).ok_or_else(|| format!("unknown type oid {oid} in redo"))?;
        let len = self.u32()? as usize;
        let bytes = self.bytes(len)?;
        nestor_types::binary::parse_binary(ty, bytes).map_err(|e| e.into_message())
    }
}

pub fn decode_ops(buf: &[u8]) -> Result<Vec<RedoOp>, String> {
    let mut r = Reader::new(buf);
    let mut ops = Vec::new();
    while !r.at_end() {
        let op = match r.u8()? {
            1 => {
                let rel = RelId(r.u32()?);
                let row = RowId(r.u64()?);
                RedoOp::Put {
                    rel,
                    row,
                    stored: r.values_row()?,
                }
            }
            4 => {
                let rel = RelId(r.u32()?);
                let row = RowId(r.u64()?);
                let len = r.u32()? as usize;
                RedoOp::Put {
                    rel,
                    row,
                    stored: r.stored_row(len)?,
                }
            }
            2 => RedoOp::Delete {
                rel: RelId(r.u32()?),
                row: RowId(r.u64()?),
            },
            3 => {
                let len = r.u32()? as usize;
                RedoOp::Ddl(r.bytes(len)?.to_vec())
            }
            t => return Err(format!("unknown redo op {t}")),
        };
        ops.push(op);
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip_and_truncation_is_an_error() {
        let values = [
            Value::Int4(1),
            Value::Null,
            Value::Text("x".into()),
            Value::Int8(-5),
        ];
        let ops = vec![
            RedoOp::Put {
                rel: RelId(16384),
                row: RowId(7),
                stored: crate::codec::encode_row(&values),
            },
            RedoOp::Delete {
                rel: RelId(16384),
                row: RowId(3),
            },
            RedoOp::Ddl(b"CREATE TABLE t (a int)".to_vec()),
        ];
        let mut buf = Vec::new();
        let mut boundaries = vec![0];
        for op in &ops {
            encode_op(op, &mut buf);
            boundaries.push(buf.len());
        }
        assert_eq!(decode_ops(&buf).unwrap(), ops);
        // The earlier image form (PostgreSQL binary values) is still read.
        let mut old = vec![1];
        old.extend_from_slice(&16384u32.to_le_bytes());
        old.extend_from_slice(&7u64.to_le_bytes());
        old.extend_from_slice(&(values.len() as u16).to_le_bytes());
        for v in &values {
            encode_value(v, &mut old);
        }
        assert_eq!(decode_ops(&old).unwrap()[..1], ops[..1]);
        // A damaged image is an error, not a panic.
        let mut bad = Vec::new();
        encode_put(RelId(1), RowId(1), &[9, 5, b'a'], &mut bad);
        assert!(decode_ops(&bad).is_err());
        for cut in 1..buf.len() {
            let r = decode_ops(&buf[..cut]);
            if boundaries.contains(&cut) {
                assert!(r.is_ok(), "a cut between ops is a shorter valid sequence");
            } else {
                assert!(r.is_err(), "cut inside an op at {cut}");
            }
        }
    }
}
