//! PostgreSQL's binary COPY format (`FORMAT binary`), read and written
//! exactly as PostgreSQL 15's copyfromparse.c / copyto.c do.
//!
//! Layout: the 11-byte signature `PGCOPY\n\377\r\n\0`, a 32-bit flags word
//! (bit 16 = OIDs, refused; any other bit of the high half is "critical"
//! and refused; the low half is ignored), a 32-bit header extension length
//! and that many bytes to skip. Then tuples: a 16-bit field count (-1 is
//! the trailer), and per field a 32-bit length (-1 = NULL) followed by the
//! value in its type's binary send/recv form. All integers big-endian.
//!
//! Reading is incremental (CopyData boundaries mean nothing): [`BinState`]
//! says where the stream is; a tuple is decoded only once all of its bytes
//! are buffered, except at end of input, where the fields that did arrive
//! are decoded in order before "unexpected EOF", so errors come in the
//! order PostgreSQL, which reads field by field, reports them. As in
//! PostgreSQL, input that ends (with fewer than two bytes left) where a
//! tuple would start is a normal end even without the trailer, and any byte
//! after the trailer is an error.
//!
//! Error contexts are PostgreSQL's for binary COPY: none for the header,
//! `COPY rel, line N` for a tuple (N counts tuples), and `..., column c`
//! while a field is read.

use nestor_common::{DbError, SqlState};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use super::CopyParser;
use crate::encode::recv_binary;

/// The file signature.
const SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";
/// Signature, flags and header extension length.
const HEADER_LEN: usize = SIGNATURE.len() + 8;
/// Flags bit 16: the file has OIDs (no longer supported by PostgreSQL).
const FLAG_OIDS: u32 = 1 << 16;
/// PostgreSQL's MaxAllocSize: a field must fit one allocation.
const MAX_FIELD: i32 = 0x3fff_ffff;
/// The end-of-data marker: a field count of -1.
pub(crate) const BINARY_TRAILER: [u8; 2] = (-1i16).to_be_bytes();

/// Where the binary reader is in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BinState {
    /// Before the fixed part of the header.
    Header,
    /// Skipping this many bytes of header extension.
    Extension(u32),
    /// At the start of a tuple.
    Tuples,
    /// The trailer was read: only the end of input may follow.
    Trailer,
}

/// What one step of the reader did.
enum Step {
    /// Consumed this many bytes (possibly 0 with a change of state).
    Consumed(usize),
    /// Needs more input (or, at end of input, is done).
    Wait,
}

fn bad_format(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::BadCopyFileFormat, msg)
}

fn be_i16(b: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes(b.get(..2)?.try_into().ok()?))
}

fn be_i32(b: &[u8]) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(..4)?.try_into().ok()?))
}

/// COPY TO's header: signature, no flags, no extension.
pub(crate) fn binary_header() -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    out.extend_from_slice(SIGNATURE);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
    out
}

/// One COPY TO tuple: field count, then each value's length and binary
/// send form in its column's type (`types[i]`), -1 for NULL.
pub(crate) fn binary_row(row: &[Value], types: &[DataType]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(row.len() as i16).to_be_bytes());
    for (i, v) in row.iter().enumerate() {
        if v.is_null() {
            out.extend_from_slice(&(-1i32).to_be_bytes());
            continue;
        }
        let ty = types.get(i).copied().unwrap_or(DataType::Text);
        let data = v.to_binary_as(ty);
        out.extend_from_slice(&(data.len() as i32).to_be_bytes());
        out.extend_from_slice(&data);
    }
    out
}

/// The bytes of a tuple's fields (after its count) if all have arrived:
/// `Some(len)`. A length no field can have also ends the scan, so that
/// decoding reports it after the fields before it.
fn fields_extent(b: &[u8], nfields: usize) -> Option<usize> {
    let mut at = 0;
    for _ in 0..nfields {
        let len = be_i32(&b[at..])?;
        at += 4;
        if len == -1 {
            continue;
        }
        if !(0..MAX_FIELD).contains(&len) {
            return Some(at);
        }
        at = at.checked_add(len as usize)?;
        if at > b.len() {
            return None;
        }
    }
    Some(at)
}

impl CopyParser {
    /// Read what the buffer holds; `eof`: no more input will come.
    pub(super) fn parse_binary(&mut self, eof: bool) -> Result<(), DbError> {
        let buf = std::mem::take(&mut self.buf);
        let mut pos = 0;
        let result = loop {
            match self.binary_step(&buf[pos..], eof) {
                Ok(Step::Consumed(n)) => pos += n,
                Ok(Step::Wait) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.buf = buf;
        self.buf.drain(..pos);
        result
    }

    fn binary_step(&mut self, b: &[u8], eof: bool) -> Result<Step, DbError> {
        match self.bin {
            BinState::Header => self.read_header(b, eof),
            BinState::Extension(n) => self.skip_extension(b, n, eof),
            BinState::Tuples => self.read_tuple(b, eof),
            BinState::Trailer if b.is_empty() => Ok(Step::Wait),
            BinState::Trailer => Err(bad_format("received copy data after EOF marker")
                .with_context(self.context(self.line))),
        }
    }

    /// The fixed part of the header (ReceiveCopyBinaryHeader).
    fn read_header(&mut self, b: &[u8], eof: bool) -> Result<Step, DbError> {
        let sig_len = SIGNATURE.len().min(b.len());
        if b[..sig_len] != SIGNATURE[..sig_len] || (eof && b.len() < SIGNATURE.len()) {
            return Err(bad_format("COPY file signature not recognized"));
        }
        let Some(flags) = b.get(SIGNATURE.len()..).and_then(be_i32) else {
            return self.header_short(eof, "invalid COPY file header (missing flags)");
        };
        let flags = flags as u32;
        if flags & FLAG_OIDS != 0 {
            return Err(bad_format("invalid COPY file header (WITH OIDS)"));
        }
        if (flags & !FLAG_OIDS) >> 16 != 0 {
            return Err(bad_format(
                "unrecognized critical flags in COPY file header",
            ));
        }
        let missing_length = "invalid COPY file header (missing length)";
        let Some(ext) = b.get(SIGNATURE.len() + 4..).and_then(be_i32) else {
            return self.header_short(eof, missing_length);
        };
        let ext = u32::try_from(ext).map_err(|_| bad_format(missing_length))?;
        self.bin = BinState::Extension(ext);
        Ok(Step::Consumed(HEADER_LEN))
    }

    fn header_short(&self, eof: bool, msg: &str) -> Result<Step, DbError> {
        if eof {
            Err(bad_format(msg))
        } else {
            Ok(Step::Wait)
        }
    }

    /// Skip the header extension as it arrives (it is never buffered).
    fn skip_extension(&mut self, b: &[u8], left: u32, eof: bool) -> Result<Step, DbError> {
        if left == 0 {
            self.bin = BinState::Tuples;
            return Ok(Step::Consumed(0));
        }
        if b.is_empty() {
            return match eof {
                true => Err(bad_format("invalid COPY file header (wrong length)")),
                false => Ok(Step::Wait),
            };
        }
        let n = (left as usize).min(b.len());
        self.bin = BinState::Extension(left - n as u32);
        Ok(Step::Consumed(n))
    }

    /// One tuple, or the trailer (NextCopyFrom's binary branch).
    fn read_tuple(&mut self, b: &[u8], eof: bool) -> Result<Step, DbError> {
        // Fewer than two bytes at the end of input: end of data.
        let Some(count) = be_i16(b) else {
            return Ok(Step::Wait);
        };
        let line = self.line + 1;
        if count == -1 {
            self.line = line;
            self.bin = BinState::Trailer;
            return Ok(Step::Consumed(2));
        }
        let ncols = self.types.len();
        if count as i64 != ncols as i64 {
            return Err(
                bad_format(format!("row field count is {count}, expected {ncols}"))
                    .with_context(self.context(line)),
            );
        }
        if !eof && fields_extent(&b[2..], ncols).is_none() {
            return Ok(Step::Wait);
        }
        let (row, used) = self.decode_fields(&b[2..], line)?;
        self.line = line;
        self.rows.push(row);
        self.lines.push(line);
        Ok(Step::Consumed(2 + used))
    }

    /// Decode the fields of tuple number `line` from `b`, in order; running
    /// out of bytes is "unexpected EOF" at the field being read.
    fn decode_fields(&self, b: &[u8], line: u64) -> Result<(Vec<Value>, usize), DbError> {
        let mut row = Vec::with_capacity(self.types.len());
        let mut at = 0;
        for (col, &ty) in self.types.iter().enumerate() {
            let in_column = |e: DbError| {
                let name = self.names.get(col).map(String::as_str).unwrap_or("");
                e.with_context(format!("{}, column {name}", self.context(line)))
            };
            let eof = || in_column(bad_format("unexpected EOF in COPY data"));
            let len = be_i32(&b[at..]).ok_or_else(eof)?;
            at += 4;
            if len == -1 {
                row.push(Value::Null);
                continue;
            }
            field_size(len).map_err(in_column)?;
            let data = b.get(at..at + len as usize).ok_or_else(eof)?;
            at += len as usize;
            row.push(recv_binary(ty, data).map_err(in_column)?);
        }
        Ok((row, at))
    }
}

/// A field length other than -1 (NULL): negative is invalid, and one
/// allocation must hold it (enlargeStringInfo's limit).
fn field_size(len: i32) -> Result<(), DbError> {
    if len < 0 {
        return Err(bad_format("invalid field size"));
    }
    if len >= MAX_FIELD {
        return Err(
            DbError::new(SqlState::ProgramLimitExceeded, "out of memory").with_detail(format!(
                "Cannot enlarge string buffer containing 0 bytes by {len} more bytes."
            )),
        );
    }
    Ok(())
}
