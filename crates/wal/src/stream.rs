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

    /// The redo file a `TxnFile` record names, to be read in pieces.
    pub fn redo_file(&self, rec: &Record) -> Result<RedoFileReader, WalError> {
        RedoFileReader::open(&self.dir, rec)
    }
}

/// Reads a redo file piece by piece (a walsender sends it without holding
/// it whole), checking its length and crc32c against the `TxnFile`
/// record at the end.
pub struct RedoFileReader {
    path: PathBuf,
    file: File,
    len: u64,
    crc: u32,
    read: u64,
    crc_so_far: u32,
}

impl RedoFileReader {
    fn open(dir: &Path, rec: &Record) -> Result<RedoFileReader, WalError> {
        let path = redo_file_path(dir, Xid(rec.xid));
        let (len, crc) = crate::redo_file_expected(rec).map_err(|why| WalError::Corrupt {
            file: path.clone(),
            offset: 0,
            why,
        })?;
        let file = File::open(&path).map_err(|e| io_err(&path, e))?;
        Ok(RedoFileReader {
            path,
            file,
            len,
            crc,
            read: 0,
            crc_so_far: 0,
        })
    }

    /// The file's length, as its record states it.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fill `buf` with the next piece; 0 at the end, once the whole file
    /// has been read and checked.
    pub fn next_piece(&mut self, buf: &mut [u8]) -> Result<usize, WalError> {
        let want = (self.len - self.read).min(buf.len() as u64) as usize;
        if want == 0 {
            if self.crc_so_far != self.crc {
                return Err(WalError::Corrupt {
                    file: self.path.clone(),
                    offset: 0,
                    why: "redo file checksum mismatch",
                });
            }
            return Ok(0);
        }
        self.file
            .read_exact(&mut buf[..want])
            .map_err(|e| io_err(&self.path, e))?;
        self.crc_so_far = crc32c::crc32c_append(self.crc_so_far, &buf[..want]);
        self.read += want as u64;
        Ok(want)
    }
}

/// A replica: the redo file of transaction `xid` (received in pieces
/// before the `TxnFile` record naming it), written to a temporary name as
/// the pieces come, then synced and renamed into place with its directory
/// synced, so the record that names it is appended only after it is
/// durable. Never held whole in memory.
pub struct RedoFileWriter {
    dir: PathBuf,
    xid: Xid,
    total: u64,
    written: u64,
    tmp: PathBuf,
    file: File,
}

impl RedoFileWriter {
    pub fn create(dir: &Path, xid: Xid, total: u64) -> Result<RedoFileWriter, WalError> {
        fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let tmp = redo_file_path(dir, xid).with_extension("redo.tmp");
        let file = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        Ok(RedoFileWriter {
            dir: dir.to_path_buf(),
            xid,
            total,
            written: 0,
            tmp,
            file,
        })
    }

    pub fn xid(&self) -> Xid {
        self.xid
    }

    /// Bytes written so far (the offset the next piece must have).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Append a piece; returns whether the file is complete (and then
    /// durable under its own name).
    pub fn piece(&mut self, bytes: &[u8]) -> Result<bool, WalError> {
        if self.written + bytes.len() as u64 > self.total {
            return Err(WalError::Corrupt {
                file: self.tmp.clone(),
                offset: self.written,
                why: "redo file longer than announced",
            });
        }
        self.file
            .write_all(bytes)
            .map_err(|e| io_err(&self.tmp, e))?;
        self.written += bytes.len() as u64;
        if self.written < self.total {
            return Ok(false);
        }
        self.file.sync_data().map_err(|e| io_err(&self.tmp, e))?;
        let path = redo_file_path(&self.dir, self.xid);
        fs::rename(&self.tmp, &path).map_err(|e| io_err(&path, e))?;
        sync_dir(&self.dir)?;
        Ok(true)
    }
}
