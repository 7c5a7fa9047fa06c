//! The WAL record format.
//!
//! ```text
//!  byte 0        4        8                16               24               32   33     36
//!       +--------+--------+----------------+----------------+----------------+----+------+---------
//!       | crc32c | length |      lsn       |      xid       |      csn       |kind| zero | payload
//!       +--------+--------+----------------+----------------+----------------+----+------+---------
//!        u32 LE   u32 LE   u64 LE           u64 LE           u64 LE           u8   3 B    length-36 B
//! ```
//!
//! - `crc32c` covers bytes 4..length (everything after itself), so a torn or
//!   corrupted record is detected wherever the damage is.
//! - `length` is the whole record including the 36-byte header.
//! - `lsn` is the record's own byte position in the log stream; a reader
//!   that finds a record whose lsn is not where it is reading has found a
//!   stale or misplaced record and stops, like a CRC failure.
//! - `kind`: [`RecordKind`]. A transaction's redo is one or more records
//!   written back to back at commit: `TxnChunk`s, then one `TxnCommit`. A
//!   transaction without its `TxnCommit` (a torn tail) was never
//!   acknowledged and is not replayed. A transaction whose redo outgrew
//!   TXN_REDO_MEMORY_BYTES_MAX has one `TxnFile` record instead, naming its
//!   redo file by xid (see `SpillBuffer`).

use nestor_common::Lsn;

/// Size of the fixed header.
pub const HEADER_BYTES: usize = 36;

pub use nestor_common::limits::RECORD_PAYLOAD_BYTES_MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RecordKind {
    /// Part of a transaction's redo; more records of the same transaction follow.
    TxnChunk = 1,
    /// The last (or only) part of a transaction's redo: the commit point.
    TxnCommit = 2,
    /// The commit point of a transaction whose whole redo is in its redo
    /// file (`<xid>.redo` beside the segments); the payload is the file's
    /// length (u64 LE) and crc32c (u32 LE). Replay hands the file's content
    /// on as one `TxnCommit`.
    TxnFile = 3,
}

impl RecordKind {
    fn from_u8(b: u8) -> Option<RecordKind> {
        match b {
            1 => Some(RecordKind::TxnChunk),
            2 => Some(RecordKind::TxnCommit),
            3 => Some(RecordKind::TxnFile),
            _ => None,
        }
    }
}

/// A decoded record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub lsn: Lsn,
    pub xid: u64,
    pub csn: u64,
    pub kind: RecordKind,
    pub payload: Vec<u8>,
    /// Bytes the record occupies in the log (replay may replace a
    /// `TxnFile` record's payload with its redo file's bytes; this stays
    /// the record's own length).
    pub encoded_len: usize,
}

impl Record {
    /// Bytes this record occupies in the log.
    pub fn len(&self) -> usize {
        self.encoded_len
    }

    /// The position after it.
    pub fn end(&self) -> Lsn {
        self.lsn.advance(self.encoded_len as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.payload.is_empty()
    }
}

/// Append one encoded record to `out`.
pub fn encode(out: &mut Vec<u8>, lsn: u64, xid: u64, csn: u64, kind: RecordKind, payload: &[u8]) {
    assert!(
        payload.len() <= RECORD_PAYLOAD_BYTES_MAX,
        "payload too large"
    );
    let start = out.len();
    let length = (HEADER_BYTES + payload.len()) as u32;
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&xid.to_le_bytes());
    out.extend_from_slice(&csn.to_le_bytes());
    out.push(kind as u8);
    out.extend_from_slice(&[0; 3]);
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out[start + 4..]);
    out[start..start + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Why decoding stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than a header or than the length says: a torn write.
    Truncated,
    /// CRC mismatch, bad length, unknown kind, non-zero reserved bytes or a
    /// wrong lsn: damage or a stale record.
    Corrupt(&'static str),
}

/// Decode the record at the start of `buf`, expected at `lsn`.
pub fn decode(buf: &[u8], lsn: Lsn) -> Result<Record, DecodeError> {
    if buf.len() < HEADER_BYTES {
        return Err(DecodeError::Truncated);
    }
    let u32_at = |i: usize| u32::from_le_bytes(buf[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
    let length = u32_at(4) as usize;
    if !(HEADER_BYTES..=HEADER_BYTES + RECORD_PAYLOAD_BYTES_MAX).contains(&length) {
        return Err(DecodeError::Corrupt("record length out of range"));
    }
    if buf.len() < length {
        return Err(DecodeError::Truncated);
    }
    if crc32c::crc32c(&buf[4..length]) != u32_at(0) {
        return Err(DecodeError::Corrupt("checksum mismatch"));
    }
    if u64_at(8) != lsn.0 {
        return Err(DecodeError::Corrupt(
            "record lsn does not match its position",
        ));
    }
    let kind = RecordKind::from_u8(buf[32]).ok_or(DecodeError::Corrupt("unknown record kind"))?;
    if buf[33..36] != [0, 0, 0] {
        return Err(DecodeError::Corrupt("reserved bytes not zero"));
    }
    Ok(Record {
        lsn,
        xid: u64_at(16),
        csn: u64_at(24),
        kind,
        payload: buf[HEADER_BYTES..length].to_vec(),
        encoded_len: length,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_single_byte_corruption_is_detected() {
        let mut buf = Vec::new();
        encode(&mut buf, 4096, 7, 9, RecordKind::TxnCommit, b"hello redo");
        let r = decode(&buf, Lsn(4096)).unwrap();
        assert_eq!(
            (r.xid, r.csn, r.kind, r.payload.as_slice()),
            (7, 9, RecordKind::TxnCommit, &b"hello redo"[..])
        );
        for i in 0..buf.len() {
            let mut bad = buf.clone();
            bad[i] ^= 0x40;
            assert!(
                decode(&bad, Lsn(4096)).is_err(),
                "flip at byte {i} undetected"
            );
        }
        for cut in 0..buf.len() {
            assert!(
                decode(&buf[..cut], Lsn(4096)).is_err(),
                "cut at {cut} undetected"
            );
        }
        assert!(decode(&buf, Lsn(4097)).is_err(), "misplaced record");
    }
}
