//! The log as a stream: reading it record by record from any LSN (what a
//! primary's walsender sends) and appending records read elsewhere (what a
//! replica's walreceiver stores).
//!
//! Property: a replica's log is a byte-for-byte prefix of its primary's
//! (the same records at the same LSNs), so its recovery, its checkpoints'
//! cuts and the position it resumes streaming from all mean the same thing
//! on both sides. Rules: (1) a walsender reads only records the primary has
//! made durable ([`Wal::durable_lsn`]), so a replica never holds a commit
//! its primary could lose in a crash; (2) a replica appends records exactly
//! at the LSN they carry ([`Wal::append_raw`] checks it), after checking
//! each one's checksum; (3) a transaction logged as a redo file
//! (`TxnFile`) is preceded on the stream by the file's bytes, which the
//! replica writes and syncs ([`write_redo_file`]) before it appends the
//! record that names it.
//!
//! ```text
//!   primary wal/                         replica wal/
//!   0000..0000.wal [r@0 r@97 r@250]  ──▶ 0000..0000.wal [r@0 r@97 r@250]
//!   0000..0100.wal [r@256 ...]       ──▶ (segments may split elsewhere;
//!                                        records and LSNs are the same)
//! ```
//!
//! A segment removed by a checkpoint before a reader got to it is
//! [`WalError::Removed`]: the replica must copy a new base image.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use nestor_common::{Lsn, Xid};

use crate::record::{self, Record, HEADER_BYTES, RECORD_PAYLOAD_BYTES_MAX};
use crate::{io_err, redo_file_path, segments, sync_dir, WalError};

/// Reads records from a log directory, starting at a record boundary.
pub struct LogReader {
    dir: PathBuf,
    pos: Lsn,
    /// The segment being read: its start LSN, file and length when opened.
    seg: Option<(Lsn, File, u64)>,
}

impl LogReader {
    /// A reader at `from`, which must be a record boundary the log still
    /// has (a segment holding it exists, or it is the end of the log).
    pub fn new(dir: &Path, from: Lsn) -> Result<LogReader, WalError> {
        let segs = segments(dir)?;
        if let Some((first, path)) = segs.first() {
            if from < *first {
                return Err(WalError::Removed {
                    file: path.clone(),
                    lsn: from,
                });
            }
        }
        Ok(LogReader {
            dir: dir.to_path_buf(),
            pos: from,
            seg: None,
        })
    }

    /// Where the next record starts.
    pub fn position(&self) -> Lsn {
        self.pos
    }

    /// The next record and its encoded bytes, if it ends at or before
    /// `limit` (the durable end of the log); None when caught up.
    pub fn next(&mut self, limit: Lsn) -> Result<Option<(Record, Vec<u8>)>, WalError> {
        if self.pos.0 + HEADER_BYTES as u64 > limit.0 {
            return Ok(None);
        }
        self.open_segment_at()?;
        let (start, file, _) = self.seg.as_mut().expect("opened above");
        let path = crate::segment_path(&self.dir, *start);
        let offset = self.pos.0 - start.0;
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| io_err(&path, e))?;
        let mut buf = vec![0u8; HEADER_BYTES];
        file.read_exact(&mut buf).map_err(|e| io_err(&path, e))?;
        let len = u32::from_le_bytes(buf[4..8].try_into().expect("4 bytes")) as usize;
        if !(HEADER_BYTES..=HEADER_BYTES + RECORD_PAYLOAD_BYTES_MAX).contains(&len) {
            return Err(WalError::Corrupt {
                file: path,
                offset,
                why: "record length out of range",
            });
        }
        if self.pos.0 + len as u64 > limit.0 {
            return Ok(None);
        }
        buf.resize(len, 0);
        file.read_exact(&mut buf[HEADER_BYTES..])
            .map_err(|e| io_err(&path, e))?;
        let rec = record::decode(&buf, self.pos).map_err(|e| WalError::Corrupt {
            file: path,
            offset,
            why: match e {
                record::DecodeError::Truncated => "truncated record",
                record::DecodeError::Corrupt(why) => why,
            },
        })?;
        self.pos = self.pos.advance(len as u64);
        Ok(Some((rec, buf)))
    }

    /// Make `seg` the segment holding `pos`: the current one while `pos`
    /// is inside it, else the one starting exactly at `pos` (the flusher
    /// starts a new segment at a record boundary), else the one before.
    fn open_segment_at(&mut self) -> Result<(), WalError> {
        if let Some((start, _, len)) = &self.seg {
            if self.pos.0 < start.0 + len {
                return Ok(());
            }
        }
        let segs = segments(&self.dir)?;
        let oldest = segs.first().map(|s| s.1.clone());
        let Some((start, path)) = segs.into_iter().rev().find(|(s, _)| *s <= self.pos) else {
            return Err(WalError::Removed {
                file: oldest.unwrap_or_else(|| crate::segment_path(&self.dir, self.pos)),
                lsn: self.pos,
            });
        };
        let file = File::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => WalError::Removed {
                file: path.clone(),
                lsn: self.pos,
            },
            _ => io_err(&path, e),
        })?;
        let len = file.metadata().map_err(|e| io_err(&path, e))?.len();
        self.seg = Some((start, file, len));
        Ok(())
    }

    /// The bytes of the redo file a `TxnFile` record names.
    pub fn redo_file(&self, rec: &Record) -> Result<Vec<u8>, WalError> {
        crate::read_redo_file(&self.dir, rec).map_err(|why| WalError::Corrupt {
            file: redo_file_path(&self.dir, Xid(rec.xid)),
            offset: 0,
            why,
        })
    }
}

/// A replica: store the redo file of transaction `xid` (received before
/// the `TxnFile` record naming it) durably under its usual name: written
/// to a temporary name, fsynced, renamed, directory fsynced. Returns its
/// length and crc32c (the record then names exactly these bytes).
pub fn write_redo_file(dir: &Path, xid: Xid, bytes: &[u8]) -> Result<(u64, u32), WalError> {
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let path = redo_file_path(dir, xid);
    let tmp = path.with_extension("redo.tmp");
    let mut f = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
    f.write_all(bytes).map_err(|e| io_err(&tmp, e))?;
    f.sync_data().map_err(|e| io_err(&tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))?;
    sync_dir(dir)?;
    Ok((bytes.len() as u64, crc32c::crc32c(bytes)))
}
