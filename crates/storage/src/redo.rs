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
//!  op      := 0x01 Put    rel:u32 row:u64 ncols:u16 value*
//!           | 0x02 Delete rel:u32 row:u64
//!           | 0x03 Ddl    len:u32 bytes            (the catalog's own redo)
//!  value   := oid:u32 (0 = NULL) [len:u32 bytes]   (PostgreSQL binary send format)
//! ```
//!
//! All integers little-endian. Row ids are stable, so replay addresses rows
//! exactly as the checkpoint image and earlier records left them.

use std::sync::Arc;

use nestor_common::{RelId, RowId};
use nestor_types::datatype::DataType;
use nestor_types::{Row, Value};

/// One redo operation.
#[derive(Clone, Debug, PartialEq)]
pub enum RedoOp {
    Put { rel: RelId, row: RowId, values: Row },
    Delete { rel: RelId, row: RowId },
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

pub(crate) fn encode_op(op: &RedoOp, out: &mut Vec<u8>) {
    match op {
        RedoOp::Put { rel, row, values } => {
            out.push(1);
            out.extend_from_slice(&rel.0.to_le_bytes());
            out.extend_from_slice(&row.0.to_le_bytes());
            out.extend_from_slice(&(values.len() as u16).to_le_bytes());
            for v in values.iter() {
                encode_value(v, out);
            }
        }
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

    pub fn value(&mut self) -> Result<Value, String> {
        let oid = self.u32()?;
        if oid == 0 {
            return Ok(Value::Null);
        }
        let ty =
            DataType::from_oid(oid).ok_or_else(|| format!("unknown type oid {oid} in redo"))?;
        let len = self.u32()? as usize;
        let bytes = self.bytes(len)?;
        nestor_types::binary::parse_binary(ty, bytes).map_err(|e| e.message)
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
                let n = r.u16()? as usize;
                let values: Vec<Value> = (0..n).map(|_| r.value()).collect::<Result<_, _>>()?;
                RedoOp::Put {
                    rel,
                    row,
                    values: Arc::from(values),
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

/// Rows touched, keeping only each row's last occurrence (see header).
pub(crate) fn last_occurrences<T: Copy + Eq + std::hash::Hash>(items: &[T]) -> Vec<(usize, T)> {
    let mut seen = nestor_common::hash::IdHashSet::default();
    seen.reserve(items.len());
    let mut out: Vec<(usize, T)> = items
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, t)| seen.insert(**t))
        .map(|(i, t)| (i, *t))
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip_and_truncation_is_an_error() {
        let ops = vec![
            RedoOp::Put {
                rel: RelId(16384),
                row: RowId(7),
                values: Arc::from(vec![
                    Value::Int4(1),
                    Value::Null,
                    Value::Text("x".into()),
                    Value::Int8(-5),
                ]),
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
        for cut in 1..buf.len() {
            let r = decode_ops(&buf[..cut]);
            if boundaries.contains(&cut) {
                assert!(r.is_ok(), "a cut between ops is a shorter valid sequence");
            } else {
                assert!(r.is_err(), "cut inside an op at {cut}");
            }
        }
    }

    #[test]
    fn last_occurrence_order() {
        assert_eq!(
            last_occurrences(&[1, 2, 1, 3, 2]),
            vec![(2, 1), (3, 3), (4, 2)]
        );
    }
}
