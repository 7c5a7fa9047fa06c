//! The write-ahead log: committed transactions only, group commit, segment
//! files, and a reader that replays them and cuts a torn tail.
//!
//! Property: nothing acknowledged as committed is lost, nothing
//! uncommitted is replayed. Rules: (1) a transaction's redo reaches the log
//! only at commit, under the commit sequencer, so log order is commit (CSN)
//! order and rolled-back work (whole transactions or savepoints) never
//! appears; (2) a synchronous commit is acknowledged, and made visible, only
//! after an fdatasync covered its `TxnCommit` record; (3) a checksum failure
//! or short record at the end of the *last* segment is a torn write of
//! commits that were never acknowledged and is cut; anywhere else it is
//! damage to acknowledged data and recovery stops naming the file.
//!
//! Group commit: committers append encoded records to a shared buffer and
//! wait; one flusher thread writes whatever has accumulated and issues one
//! fdatasync for all of it, then wakes every committer it covered.
//!
//! ```text
//!   T1 append ─┐                ┌─ write+fdatasync(T1,T2,T3) ─┐
//!   T2 append ─┼─> buffer ──────┤                             ├─> wake T1,T2,T3
//!   T3 append ─┘                └─────────────────────────────┘
//! ```
//!
//! While no committer waits (only synchronous_commit = off commits are
//! pending), the flusher gathers for up to WAL_WRITER_DELAY_MS first; any
//! wait for durability ends that at once (`Wal::await_durable`).
//!
//! An fsync failure aborts the process (PostgreSQL's fsyncgate lesson: after
//! a failed fsync the kernel may have dropped the dirty pages, so retrying
//! can "succeed" without the data; only recovery from the log is safe).
//!
//! Segments are files `wal/<start lsn as 16 hex digits>.wal`; the LSN is
//! the byte position in the log stream, so a segment's name says where its
//! first record lives and a gap between segments is detectable. A
//! transaction whose redo outgrew its memory limit is logged as its own
//! redo file `wal/<xid>.redo` plus one small record naming it
//! ([`SpillBuffer`]); docs/durability.md §1–2.

#![forbid(unsafe_code)]

pub mod record;
mod stream;
mod switch;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nestor_common::{Csn, Lsn, Xid};
use nestor_txn::RedoBuffer;
use parking_lot::{Condvar, Mutex};

pub use record::{Record, RecordKind, HEADER_BYTES, RECORD_PAYLOAD_BYTES_MAX};
pub use stream::{LogReader, RedoFileReader, RedoFileWriter};
pub use switch::SwitchLog;

/// Default size at which a new segment is started.
pub const SEGMENT_BYTES_DEFAULT: u64 = 16 * 1024 * 1024;

use nestor_common::limits::WAL_WRITER_DELAY_MS;
pub use nestor_common::limits::{TXN_REDO_MEMORY_BYTES_MAX, WAL_BUFFER_BYTES_MAX};

/// A transaction's redo: in memory up to TXN_REDO_MEMORY_BYTES_MAX; past
/// that, the whole of it goes to the transaction's **redo file**
/// `DIR/<xid as 16 hex digits>.redo`, checksummed as it is written.
///
/// A redo file is part of the log only once a `TxnFile` commit record names
/// it (see [`record`]): [`RedoBuffer::seal`] makes the file durable before
/// the commit is sequenced, so the sequencer is held only for appending
/// that small record, and the bytes are written once instead of being
/// copied through the log buffer. A transaction that does not commit
/// removes its file (drop); a file left by a crash before its commit record
/// was durable is removed by [`Wal::adopt_redo_files`] at start-up.
pub struct SpillBuffer {
    mem: Vec<u8>,
    /// `mem`'s capacity as counted in the memory budget's "redo buffers".
    accounted: usize,
    file: Option<RedoFile>,
    len: u64,
    read_pos: u64,
    dir: PathBuf,
    xid: Xid,
    limit: usize,
}

/// The file of a spilled [`SpillBuffer`].
struct RedoFile {
    file: File,
    path: PathBuf,
    crc: u32,
    sealed: bool,
    /// Named by an appended commit record: the log owns it now.
    adopted: bool,
    /// Bytes written since the background syncer was last asked to run.
    unsynced: u64,
    syncer: Option<Syncer>,
}

/// Redo written to a file since the last background fdatasync before the
/// next one is asked for: the disk writes the redo while the commit is
/// still encoding it, so `seal` finds little left to sync.
const REDO_FILE_SYNC_BYTES: u64 = 8 << 20;

/// A thread that fdatasyncs a redo file (a second handle on it) each time
/// it is asked, while its transaction goes on writing.
struct Syncer {
    ask: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Syncer {
    fn start(file: &File, path: &Path) -> Option<Syncer> {
        // Without a second handle or a thread, `seal` syncs it all.
        let file = file.try_clone().ok()?;
        let path = path.to_path_buf();
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("redo-sync".into())
            .spawn(move || {
                while asked.recv().is_ok() {
                    while asked.try_recv().is_ok() {} // one sync for all asks
                    file.sync_data()
                        .unwrap_or_else(|e| fatal("fsync redo file", &path, e));
                }
            })
            .ok()?;
        Some(Syncer {
            ask: Some(ask),
            thread: Some(thread),
        })
    }

    fn ask(&self) {
        if let Some(a) = &self.ask {
            let _ = a.send(());
        }
    }

    /// Let the thread finish the syncs asked for and end.
    fn finish(&mut self) {
        self.ask = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        self.finish();
    }
}

impl SpillBuffer {
    pub fn with_limit(dir: &Path, xid: Xid, limit: usize) -> SpillBuffer {
        SpillBuffer {
            mem: Vec::new(),
            accounted: 0,
            file: None,
            len: 0,
            read_pos: 0,
            dir: dir.to_path_buf(),
            xid,
            limit,
        }
    }

    /// Whether the buffer went to its redo file.
    pub fn spilled(&self) -> bool {
        self.file.is_some()
    }

    fn spill(&mut self) {
        let path = redo_file_path(&self.dir, self.xid);
        // A file of this name can only be left over from a transaction
        // whose commit never became durable (xids are not reused once a
        // commit is logged): overwrite it.
        let file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)
            .unwrap_or_else(|e| fatal("create redo file", &path, e));
        let syncer = Syncer::start(&file, &path);
        let mut f = RedoFile {
            file,
            path,
            crc: 0,
            sealed: false,
            adopted: false,
            unsynced: 0,
            syncer,
        };
        f.write(&std::mem::take(&mut self.mem));
        self.file = Some(f);
        self.account();
    }

    /// Bring the "redo buffers" count up to `mem`'s capacity (it changes
    /// when the vector grows, a few dozen times at most).
    fn account(&mut self) {
        let cap = self.mem.capacity();
        if cap != self.accounted {
            add_redo_buffers(cap as i64 - self.accounted as i64);
            self.accounted = cap;
        }
    }

    /// Append up to `max` bytes from the read position to `out` (in-memory
    /// buffers only: a spilled one is appended as its file).
    fn read_chunk(&mut self, out: &mut Vec<u8>, max: usize) {
        assert!(self.file.is_none(), "a spilled redo is not copied");
        let n = (self.len - self.read_pos).min(max as u64) as usize;
        let start = self.read_pos as usize;
        out.extend_from_slice(&self.mem[start..start + n]);
        self.read_pos += n as u64;
    }
}

impl RedoFile {
    fn write(&mut self, bytes: &[u8]) {
        assert!(!self.sealed, "redo written after seal");
        self.file
            .write_all(bytes)
            .unwrap_or_else(|e| fatal("write redo file", &self.path, e));
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.unsynced += bytes.len() as u64;
        if self.unsynced >= REDO_FILE_SYNC_BYTES {
            self.unsynced = 0;
            if let Some(s) = &self.syncer {
                s.ask();
            }
        }
    }
}

impl Drop for RedoFile {
    fn drop(&mut self) {
        if !self.adopted {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl RedoBuffer for SpillBuffer {
    fn write(&mut self, bytes: &[u8]) {
        if self.file.is_none() && self.mem.len() + bytes.len() > self.limit {
            self.spill();
        }
        match &mut self.file {
            Some(f) => f.write(bytes),
            None => {
                self.mem.extend_from_slice(bytes);
                self.account();
            }
        }
        self.len += bytes.len() as u64;
    }

    fn len(&self) -> u64 {
        self.len
    }

    /// Make a redo file durable, name included, before the commit record
    /// that names it can be appended (WAL-before-ack for the file's bytes).
    fn seal(&mut self) {
        if let Some(f) = &mut self.file {
            if let Some(mut s) = f.syncer.take() {
                s.finish();
            }
            f.file
                .sync_data()
                .unwrap_or_else(|e| fatal("fsync redo file", &f.path, e));
            sync_dir_or_abort(&self.dir, &f.path);
            f.sealed = true;
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Drop for SpillBuffer {
    fn drop(&mut self) {
        add_redo_buffers(-(self.accounted as i64));
    }
}

fn add_redo_buffers(bytes: i64) {
    nestor_common::memory::add(nestor_common::memory::Category::RedoBuffers, bytes);
}

fn redo_file_path(dir: &Path, xid: Xid) -> PathBuf {
    dir.join(format!("{:016X}.redo", xid.0))
}

/// The payload of a `TxnFile` record: the redo file's length and crc32c.
fn redo_file_payload(len: u64, crc: u32) -> [u8; 12] {
    let mut p = [0u8; 12];
    p[..8].copy_from_slice(&len.to_le_bytes());
    p[8..].copy_from_slice(&crc.to_le_bytes());
    p
}

/// Read the redo file a `TxnFile` record names and check it against the
/// record; the result is the transaction's whole redo.
/// The length and crc32c a `TxnFile` record states for its redo file.
pub(crate) fn redo_file_expected(rec: &Record) -> Result<(u64, u32), &'static str> {
    let [l0, l1, l2, l3, l4, l5, l6, l7, c0, c1, c2, c3] = rec.payload[..] else {
        return Err("redo file record of the wrong size");
    };
    let len = u64::from_le_bytes([l0, l1, l2, l3, l4, l5, l6, l7]);
    let crc = u32::from_le_bytes([c0, c1, c2, c3]);
    Ok((len, crc))
}

pub fn read_redo_file(dir: &Path, rec: &Record) -> Result<Vec<u8>, &'static str> {
    let (len, crc) = redo_file_expected(rec)?;
    let path = redo_file_path(dir, Xid(rec.xid));
    let mut data = Vec::new();
    File::open(&path)
        .and_then(|mut f| f.read_to_end(&mut data))
        .map_err(|_| "the redo file a commit names cannot be read")?;
    if data.len() as u64 != len {
        return Err("redo file length does not match its commit record");
    }
    if crc32c::crc32c(&data) != crc {
        return Err("redo file checksum mismatch");
    }
    Ok(data)
}

/// Errors that stop recovery or the log; each names the file.
#[derive(Debug)]
pub enum WalError {
    Io {
        file: PathBuf,
        error: std::io::Error,
    },
    Corrupt {
        file: PathBuf,
        offset: u64,
        why: &'static str,
    },
    Gap {
        file: PathBuf,
        expected_lsn: Lsn,
        found_lsn: Lsn,
    },
    /// A reader asked for a position whose segment a checkpoint removed.
    Removed { file: PathBuf, lsn: Lsn },
}

impl std::fmt::Display for WalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalError::Io { file, error } => write!(f, "I/O error on WAL file \"{}\": {error}", file.display()),
            WalError::Corrupt { file, offset, why } => write!(
                f,
                "corrupt WAL record in \"{}\" at offset {offset} ({why}); it is not at the end of the log, so committed data would be lost: refusing to start",
                file.display()
            ),
            WalError::Gap {
                file,
                expected_lsn,
                found_lsn,
            } => write!(
                f,
                "WAL gap: expected the log to continue at {:016X}, but \"{}\" starts at {:016X}; refusing to start",
                expected_lsn.0,
                file.display(),
                found_lsn.0
            ),
            WalError::Removed { file, lsn } => write!(
                f,
                "requested WAL segment for position {} has already been removed (the oldest kept is \"{}\")",
                lsn.pg_text(),
                file.display()
            ),
        }
    }
}

impl std::error::Error for WalError {}

fn io_err(file: &Path, error: std::io::Error) -> WalError {
    WalError::Io {
        file: file.to_path_buf(),
        error,
    }
}

/// The segment files of `dir`, sorted by start LSN.
pub fn segments(dir: &Path) -> Result<Vec<(Lsn, PathBuf)>, WalError> {
    let mut out: Vec<(Lsn, PathBuf)> = hex_named(dir, ".wal")?
        .into_iter()
        .map(|(n, p)| (Lsn(n), p))
        .collect();
    out.sort();
    Ok(out)
}

/// The files of `dir` named `<hex digits><suffix>` (segments by start LSN,
/// redo files by xid), with the number their name carries; none if the
/// directory does not exist.
fn hex_named(dir: &Path, suffix: &str) -> Result<Vec<(u64, PathBuf)>, WalError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(n) = name
            .strip_suffix(suffix)
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        {
            out.push((n, entry.path()));
        }
    }
    Ok(out)
}

fn segment_path(dir: &Path, start: Lsn) -> PathBuf {
    dir.join(format!("{:016X}.wal", start.0))
}

/// Where replay ended.
#[derive(Debug, PartialEq, Eq)]
pub struct ReplayEnd {
    /// The LSN after the last valid record: where the log continues.
    pub end_lsn: Lsn,
    /// A torn tail that was cut: the file and the offset it was cut at.
    pub cut: Option<(PathBuf, u64)>,
    pub records: u64,
    /// The redo files replayed: the LSN of the record naming each, and its
    /// transaction (for [`Wal::adopt_redo_files`]).
    pub redo_files: Vec<(Lsn, Xid, u64)>,
}

/// Replay every record from `from_lsn` (a record boundary, e.g. the
/// checkpoint's) to the end of the log, cutting a torn tail of the last
/// segment. `apply` sees records in log order.
pub fn replay(
    dir: &Path,
    from_lsn: Lsn,
    mut apply: impl FnMut(Record) -> Result<(), String>,
) -> Result<ReplayEnd, WalError> {
    let segs = segments(dir)?;
    let mut end = ReplayEnd {
        end_lsn: from_lsn,
        cut: None,
        records: 0,
        redo_files: Vec::new(),
    };
    let relevant: Vec<usize> = (0..segs.len())
        .filter(|&i| segs.get(i + 1).is_none_or(|next| next.0 > from_lsn))
        .collect();
    let Some(&first) = relevant.first() else {
        return Ok(end);
    };
    if segs[first].0 > from_lsn {
        return Err(WalError::Gap {
            file: segs[first].1.clone(),
            expected_lsn: from_lsn,
            found_lsn: segs[first].0,
        });
    }
    for (n, &i) in relevant.iter().enumerate() {
        let (start, path) = &segs[i];
        let last = n + 1 == relevant.len();
        if *start > end.end_lsn {
            return Err(WalError::Gap {
                file: path.clone(),
                expected_lsn: end.end_lsn,
                found_lsn: *start,
            });
        }
        let mut data = Vec::new();
        File::open(path)
            .and_then(|mut f| f.read_to_end(&mut data))
            .map_err(|e| io_err(path, e))?;
        let mut pos = (end.end_lsn.0 - start.0) as usize;
        while pos < data.len() {
            match record::decode(&data[pos..], start.advance(pos as u64)) {
                Ok(mut rec) => {
                    let len = rec.len();
                    if rec.kind == RecordKind::TxnFile {
                        rec.payload =
                            read_redo_file(dir, &rec).map_err(|why| WalError::Corrupt {
                                file: redo_file_path(dir, Xid(rec.xid)),
                                offset: 0,
                                why,
                            })?;
                        rec.kind = RecordKind::TxnCommit;
                        let bytes = rec.payload.len() as u64;
                        end.redo_files.push((rec.lsn, Xid(rec.xid), bytes));
                    }
                    apply(rec).map_err(|why| WalError::Corrupt {
                        file: path.clone(),
                        offset: pos as u64,
                        why: Box::leak(why.into_boxed_str()),
                    })?;
                    end.records += 1;
                    pos += len;
                }
                Err(e) if last => {
                    let _ = e;
                    cut_tail(path, pos as u64)?;
                    end.cut = Some((path.clone(), pos as u64));
                    break;
                }
                Err(record::DecodeError::Truncated) => {
                    return Err(WalError::Corrupt {
                        file: path.clone(),
                        offset: pos as u64,
                        why: "truncated record",
                    })
                }
                Err(record::DecodeError::Corrupt(why)) => {
                    return Err(WalError::Corrupt {
                        file: path.clone(),
                        offset: pos as u64,
                        why,
                    })
                }
            }
        }
        end.end_lsn = start.advance(pos as u64);
    }
    Ok(end)
}

fn cut_tail(path: &Path, len: u64) -> Result<(), WalError> {
    let f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| io_err(path, e))?;
    f.set_len(len).map_err(|e| io_err(path, e))?;
    f.sync_all().map_err(|e| io_err(path, e))
}

/// fsync a directory so a created/renamed/removed entry is durable.
pub fn sync_dir(dir: &Path) -> Result<(), WalError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err(dir, e))
}

struct Pending {
    buf: Vec<u8>,
    /// Records appended (pg_stat_wal.wal_records).
    records: u64,
    next_lsn: Lsn,
    last_csn: u64,
}

struct Durable {
    lsn: Lsn,
    csn: u64,
}

struct Segment {
    file: File,
    start: Lsn,
    len: u64,
    path: PathBuf,
}

/// Counters for benchmarks and monitoring (pg_stat_wal), since the log
/// was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    /// Bytes of records written, plus the redo files commits adopted.
    pub bytes_written: u64,
    /// fdatasyncs of segments, redo files and the directory they are in.
    pub fsyncs: u64,
    /// Of those, the flusher's fdatasyncs of segments (each after a write
    /// of the buffer), and the microseconds they took in total.
    pub segment_fsyncs: u64,
    pub segment_fsync_micros: u64,
    /// Writes of the log buffer to a segment (a redo file counts as one).
    pub writes: u64,
    /// Records appended.
    pub records: u64,
    /// Times a large in-memory redo waited for the log buffer to drain.
    pub buffer_full_waits: u64,
    pub commits: u64,
}

struct Shared {
    dir: PathBuf,
    segment_bytes: u64,
    pending: Mutex<Pending>,
    work: Condvar,
    durable: Mutex<Durable>,
    flushed: Condvar,
    stop: AtomicBool,
    /// Test hook ([`Wal::hold_flusher`]): the flusher takes no new batch.
    held: AtomicBool,
    /// Threads waiting for durability (synchronous commits, flushes, a full
    /// buffer): while there are none, the flusher gathers records for up to
    /// WAL_WRITER_DELAY_MS instead of writing each commit at once.
    urgent: AtomicUsize,
    bytes_written: AtomicU64,
    fsyncs: AtomicU64,
    /// The flusher's fdatasyncs of segments and their total time.
    segment_fsyncs: AtomicU64,
    segment_fsync_micros: AtomicU64,
    writes: AtomicU64,
    buffer_full_waits: AtomicU64,
    commits: AtomicU64,
    /// Redo files the log owns, by the LSN of the commit record naming
    /// them: removed with the segments before a checkpoint's cut.
    redo_files: Mutex<std::collections::BTreeMap<Lsn, (Xid, u64)>>,
    /// TXN_REDO_MEMORY_BYTES_MAX unless set otherwise.
    redo_memory_bytes_max: AtomicUsize,
}

/// The log writer. Implements [`nestor_txn::CommitLog`].
pub struct Wal {
    shared: Arc<Shared>,
    /// When the log was opened: pg_stat_wal.stats_reset.
    opened: std::time::SystemTime,
    flusher: Mutex<Option<JoinHandle<()>>>,
}

impl Wal {
    /// Continue the log in `dir` at `end_lsn` (from [`replay`]); `last_csn`
    /// is the CSN of the last replayed commit.
    pub fn open(
        dir: &Path,
        end_lsn: Lsn,
        last_csn: u64,
        segment_bytes: u64,
    ) -> Result<Wal, WalError> {
        fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let segment = Self::open_segment(dir, end_lsn)?;
        let shared = Arc::new(Shared {
            dir: dir.to_path_buf(),
            segment_bytes,
            pending: Mutex::new(Pending {
                buf: Vec::new(),
                records: 0,
                next_lsn: end_lsn,
                last_csn,
            }),
            work: Condvar::new(),
            durable: Mutex::new(Durable {
                lsn: end_lsn,
                csn: last_csn,
            }),
            flushed: Condvar::new(),
            stop: AtomicBool::new(false),
            held: AtomicBool::new(false),
            urgent: AtomicUsize::new(0),
            bytes_written: AtomicU64::new(0),
            fsyncs: AtomicU64::new(0),
            segment_fsyncs: AtomicU64::new(0),
            segment_fsync_micros: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            buffer_full_waits: AtomicU64::new(0),
            commits: AtomicU64::new(0),
            redo_files: Mutex::new(Default::default()),
            redo_memory_bytes_max: AtomicUsize::new(TXN_REDO_MEMORY_BYTES_MAX),
        });
        let s = shared.clone();
        let handle = std::thread::Builder::new()
            .name("wal-flusher".into())
            .spawn(move || flusher(s, segment))
            .map_err(|e| io_err(dir, e))?;
        Ok(Wal {
            shared,
            opened: std::time::SystemTime::now(),
            flusher: Mutex::new(Some(handle)),
        })
    }

    /// The segment that ends at `end_lsn`, opened for append, or a new one.
    fn open_segment(dir: &Path, end_lsn: Lsn) -> Result<Segment, WalError> {
        if let Some((start, path)) = segments(dir)?
            .into_iter()
            .rev()
            .find(|(s, _)| *s <= end_lsn)
        {
            let len = fs::metadata(&path).map_err(|e| io_err(&path, e))?.len();
            if start.advance(len) == end_lsn {
                let file = OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(|e| io_err(&path, e))?;
                return Ok(Segment {
                    file,
                    start,
                    len,
                    path,
                });
            }
        }
        let path = segment_path(dir, end_lsn);
        let file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)
            .map_err(|e| io_err(&path, e))?;
        sync_dir(dir)?;
        Ok(Segment {
            file,
            start: end_lsn,
            len: 0,
            path,
        })
    }

    /// Append a committed transaction's redo (split into records) in CSN
    /// order. Returns the LSN after it.
    pub fn append_commit(&self, xid: Xid, csn: Csn, redo: &[u8]) -> Lsn {
        let mut p = self.shared.pending.lock();
        assert!(csn.0 > p.last_csn, "WAL appends must follow CSN order");
        let was_empty = p.buf.is_empty();
        let mut chunks = redo.chunks(RECORD_PAYLOAD_BYTES_MAX).peekable();
        if chunks.peek().is_none() {
            Self::push(&mut p, xid, csn, RecordKind::TxnCommit, &[]);
        }
        while let Some(chunk) = chunks.next() {
            let kind = if chunks.peek().is_some() {
                RecordKind::TxnChunk
            } else {
                RecordKind::TxnCommit
            };
            Self::push(&mut p, xid, csn, kind, chunk);
        }
        self.shared.commits.fetch_add(1, Ordering::Relaxed);
        p.last_csn = csn.0;
        if was_empty || p.buf.len() >= WAL_BUFFER_BYTES_MAX / 2 {
            // The flusher may be idle (nothing pending) or the buffer is
            // large; otherwise it is busy or gathering and will look again.
            self.shared.work.notify_one();
        }
        p.next_lsn
    }

    fn push(p: &mut Pending, xid: Xid, csn: Csn, kind: RecordKind, payload: &[u8]) {
        p.records += 1;
        let before = p.buf.len();
        let cap = p.buf.capacity();
        record::encode(&mut p.buf, p.next_lsn.0, xid.0, csn.0, kind, payload);
        p.next_lsn = p.next_lsn.advance((p.buf.len() - before) as u64);
        // The log buffer counts as redo memory from its growth here until
        // the flusher has written it (flusher()).
        if p.buf.capacity() != cap {
            add_redo_buffers(p.buf.capacity() as i64 - cap as i64);
        }
    }

    /// Append a transaction's redo held in a [`SpillBuffer`]: a spilled
    /// one as a `TxnFile` record naming its (sealed) redo file, an
    /// in-memory one streamed into records. Memory stays bounded: when the
    /// shared buffer passes WAL_BUFFER_BYTES_MAX the appender waits for the
    /// flusher to write it out (it holds the commit sequencer, so no other
    /// commit interleaves; a crash mid-way leaves chunks without their
    /// TxnCommit record, which replay ignores).
    pub(crate) fn append_spilled(&self, xid: Xid, csn: Csn, mut redo: SpillBuffer) {
        if let Some(file) = &mut redo.file {
            assert!(
                file.sealed,
                "a redo file is sealed before its commit is sequenced"
            );
            assert_eq!(redo.xid, xid, "redo file of another transaction");
            let mut p = self.shared.pending.lock();
            assert!(csn.0 > p.last_csn, "WAL appends must follow CSN order");
            let at = p.next_lsn;
            let payload = redo_file_payload(redo.len, file.crc);
            Self::push(&mut p, xid, csn, RecordKind::TxnFile, &payload);
            file.adopted = true;
            self.shared.redo_files.lock().insert(at, (xid, redo.len));
            self.shared.commits.fetch_add(1, Ordering::Relaxed);
            self.shared
                .bytes_written
                .fetch_add(redo.len, Ordering::Relaxed);
            // The file and its directory were synced by `seal`.
            self.shared.writes.fetch_add(1, Ordering::Relaxed);
            self.shared.fsyncs.fetch_add(2, Ordering::Relaxed);
            p.last_csn = csn.0;
            self.shared.work.notify_one();
            return;
        }
        let total = redo.len;
        let mut sent = 0u64;
        let mut chunk = Vec::with_capacity(RECORD_PAYLOAD_BYTES_MAX.min(total as usize));
        let mut p = self.shared.pending.lock();
        assert!(csn.0 > p.last_csn, "WAL appends must follow CSN order");
        loop {
            chunk.clear();
            redo.read_chunk(&mut chunk, RECORD_PAYLOAD_BYTES_MAX);
            sent += chunk.len() as u64;
            let last = sent >= total;
            let kind = if last {
                RecordKind::TxnCommit
            } else {
                RecordKind::TxnChunk
            };
            Self::push(&mut p, xid, csn, kind, &chunk);
            if last {
                break;
            }
            if p.buf.len() >= WAL_BUFFER_BYTES_MAX {
                let target = p.next_lsn;
                drop(p);
                self.shared
                    .buffer_full_waits
                    .fetch_add(1, Ordering::Relaxed);
                self.await_durable(|d| d.lsn >= target);
                p = self.shared.pending.lock();
            }
        }
        self.shared.commits.fetch_add(1, Ordering::Relaxed);
        p.last_csn = csn.0;
        self.shared.work.notify_one();
    }

    /// Block until everything up to commit `csn` is on disk.
    pub fn wait_for_csn(&self, csn: Csn) {
        self.await_durable(|d| d.csn >= csn.0);
    }

    /// Block until `done` holds of what is durable, telling the flusher
    /// that someone waits (it stops gathering and writes at once).
    fn await_durable(&self, done: impl Fn(&Durable) -> bool) {
        if done(&self.shared.durable.lock()) {
            return;
        }
        self.shared.urgent.fetch_add(1, Ordering::SeqCst);
        {
            // Under the lock the flusher checks `urgent` with: no lost
            // wake-up.
            let _p = self.shared.pending.lock();
            self.shared.work.notify_one();
        }
        let mut d = self.shared.durable.lock();
        while !done(&d) {
            self.shared.flushed.wait(&mut d);
        }
        drop(d);
        self.shared.urgent.fetch_sub(1, Ordering::SeqCst);
    }

    /// The LSN the next record will get.
    pub fn next_lsn(&self) -> Lsn {
        self.shared.pending.lock().next_lsn
    }

    /// Block until everything appended so far is durable; returns its end.
    pub fn flush(&self) -> Lsn {
        // The flusher advances the durable LSN and CSN together, so the
        // LSN covers every commit appended so far.
        let target = self.shared.pending.lock().next_lsn;
        self.await_durable(|d| d.lsn >= target);
        target
    }

    /// The end of what is on disk: a walsender sends records up to here.
    pub fn durable_lsn(&self) -> Lsn {
        self.shared.durable.lock().lsn
    }

    /// Wait until the durable end passes `lsn` or `until` comes; returns
    /// the durable end. Does not hurry the flusher (a walsender follows
    /// the log, it does not make commits more urgent).
    pub fn wait_durable_beyond(&self, lsn: Lsn, until: Instant) -> Lsn {
        let mut d = self.shared.durable.lock();
        while d.lsn <= lsn && !self.shared.stop.load(Ordering::SeqCst) {
            if self.shared.flushed.wait_until(&mut d, until).timed_out() {
                break;
            }
        }
        d.lsn
    }

    /// The CSN of the last commit appended.
    pub fn last_csn(&self) -> u64 {
        self.shared.pending.lock().last_csn
    }

    /// A replica: append records received from the primary, already
    /// encoded and checked, exactly at the LSN they carry (`start`, which
    /// must be this log's end: see stream.rs). `redo_files` are the
    /// `TxnFile` records among them, with the files already written by
    /// [`write_redo_file`]. Returns the new end; [`Wal::flush`] makes it
    /// durable.
    pub fn append_raw(
        &self,
        start: Lsn,
        bytes: &[u8],
        records: u64,
        last_csn: u64,
        redo_files: &[(Lsn, Xid, u64)],
    ) -> Lsn {
        let mut p = self.shared.pending.lock();
        assert_eq!(p.next_lsn, start, "replicated WAL appended out of place");
        let cap = p.buf.capacity();
        p.buf.extend_from_slice(bytes);
        if p.buf.capacity() != cap {
            add_redo_buffers(p.buf.capacity() as i64 - cap as i64);
        }
        p.next_lsn = start.advance(bytes.len() as u64);
        p.records += records;
        p.last_csn = p.last_csn.max(last_csn);
        let mut files = self.shared.redo_files.lock();
        for &(lsn, xid, len) in redo_files {
            files.insert(lsn, (xid, len));
            self.shared.bytes_written.fetch_add(len, Ordering::Relaxed);
        }
        drop(files);
        self.shared.work.notify_one();
        p.next_lsn
    }

    /// Take over the redo files replay read (`ReplayEnd::redo_files`) so
    /// that checkpoints remove them in turn, and delete every other redo
    /// file in the directory: a file no replayed commit names belongs to a
    /// transaction whose commit never became durable, or to one the
    /// checkpoint already holds. Call once, after [`replay`], before any
    /// commit.
    pub fn adopt_redo_files(&self, replayed: &[(Lsn, Xid, u64)]) -> Result<usize, WalError> {
        let mut files = self.shared.redo_files.lock();
        files.extend(replayed.iter().map(|&(lsn, xid, len)| (lsn, (xid, len))));
        let keep: std::collections::HashSet<Xid> = files.values().map(|f| f.0).collect();
        let mut removed = 0;
        for (xid, path) in hex_named(&self.shared.dir, ".redo")? {
            if !keep.contains(&Xid(xid)) {
                fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Redo a committing transaction keeps in memory before it goes to its
    /// redo file (`nestor --txn-redo-memory-max`).
    pub fn set_redo_memory_bytes_max(&self, bytes: usize) {
        self.shared
            .redo_memory_bytes_max
            .store(bytes, Ordering::Relaxed);
    }

    /// Bytes of the redo files of commits at or after `lsn`: log volume
    /// that LSNs do not count (the checkpointer adds it to max_wal_size).
    pub fn redo_file_bytes_from(&self, lsn: Lsn) -> u64 {
        self.shared
            .redo_files
            .lock()
            .range(lsn..)
            .map(|(_, f)| f.1)
            .sum()
    }

    /// Delete segments that end at or before `lsn` (after a checkpoint),
    /// and the redo files of commits before `lsn`. The segment being
    /// written is never removed.
    pub fn remove_before(&self, lsn: Lsn) -> Result<usize, WalError> {
        let segs = segments(&self.shared.dir)?;
        let mut removed = 0;
        let old: Vec<Xid> = {
            let mut files = self.shared.redo_files.lock();
            let newer = files.split_off(&lsn);
            std::mem::replace(&mut *files, newer)
                .into_values()
                .map(|f| f.0)
                .collect()
        };
        for xid in old {
            let path = redo_file_path(&self.shared.dir, xid);
            fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
            removed += 1;
        }
        for w in segs.windows(2) {
            let (next_start, _) = w[1];
            if next_start <= lsn {
                fs::remove_file(&w[0].1).map_err(|e| io_err(&w[0].1, e))?;
                removed += 1;
            }
        }
        if removed > 0 {
            sync_dir(&self.shared.dir)?;
        }
        Ok(removed)
    }

    /// Test hook: until the returned guard is dropped the flusher starts no
    /// new batch (one already taken still completes), so commits appended
    /// meanwhile wait together and are then written with one write and one
    /// fdatasync. It makes group commit observable deterministically, which
    /// timing cannot (on tmpfs an fdatasync takes microseconds). Not for use
    /// outside tests: held too long it stalls every commit.
    #[doc(hidden)]
    pub fn hold_flusher(&self) -> FlusherHold<'_> {
        let _p = self.shared.pending.lock();
        self.shared.held.store(true, Ordering::SeqCst);
        FlusherHold {
            shared: &self.shared,
        }
    }

    /// When the log was opened.
    pub fn opened(&self) -> std::time::SystemTime {
        self.opened
    }

    pub fn stats(&self) -> WalStats {
        WalStats {
            bytes_written: self.shared.bytes_written.load(Ordering::Relaxed),
            fsyncs: self.shared.fsyncs.load(Ordering::Relaxed),
            segment_fsyncs: self.shared.segment_fsyncs.load(Ordering::Relaxed),
            segment_fsync_micros: self.shared.segment_fsync_micros.load(Ordering::Relaxed),
            writes: self.shared.writes.load(Ordering::Relaxed),
            records: self.shared.pending.lock().records,
            buffer_full_waits: self.shared.buffer_full_waits.load(Ordering::Relaxed),
            commits: self.shared.commits.load(Ordering::Relaxed),
        }
    }

    /// Flush what is pending and stop the flusher.
    pub fn shutdown(&self) {
        self.flush();
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.work.notify_all();
        if let Some(h) = self.flusher.lock().take() {
            let _ = h.join();
        }
    }
}

/// Returned by [`Wal::hold_flusher`]; releases the flusher when dropped.
#[doc(hidden)]
pub struct FlusherHold<'a> {
    shared: &'a Shared,
}

impl Drop for FlusherHold<'_> {
    fn drop(&mut self) {
        // Under the lock the flusher checks the flag with: no lost wake-up.
        let _p = self.shared.pending.lock();
        self.shared.held.store(false, Ordering::SeqCst);
        self.shared.work.notify_all();
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl nestor_txn::CommitLog for Wal {
    fn redo_buffer(&self, xid: Xid) -> Box<dyn RedoBuffer> {
        let limit = self.shared.redo_memory_bytes_max.load(Ordering::Relaxed);
        Box::new(SpillBuffer::with_limit(&self.shared.dir, xid, limit))
    }

    fn append(&self, xid: Xid, csn: Csn, redo: Box<dyn RedoBuffer>) {
        let redo = redo
            .into_any()
            .downcast::<SpillBuffer>()
            .expect("redo buffer made by this log");
        self.append_spilled(xid, csn, *redo);
    }

    fn wait_durable(&self, csn: Csn) {
        self.wait_for_csn(csn);
    }
}

/// fsync `dir` after creating `file` in it, or stop the process ([`fatal`]).
fn sync_dir_or_abort(dir: &Path, file: &Path) {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .unwrap_or_else(|e| fatal("fsync directory of", file, e));
}

/// Stop the process after a failed write or fsync: the only safe way on is
/// crash recovery from the log (fsyncgate).
fn fatal(what: &str, path: &Path, e: std::io::Error) -> ! {
    nestor_common::log::write(&nestor_common::log::Line::new(
        "PANIC",
        &format!(
            "could not {what} WAL file \"{}\": {e}; stopping (crash recovery will replay the log)",
            path.display()
        ),
    ));
    std::process::abort()
}

fn flusher(s: Arc<Shared>, mut seg: Segment) {
    loop {
        let Some((buf, end_lsn, csn)) = next_batch(&s) else {
            return;
        };
        if seg.len >= s.segment_bytes {
            seg = roll(&s, seg);
        }
        assert_eq!(
            seg.start.advance(seg.len + buf.len() as u64),
            end_lsn,
            "WAL position drift"
        );
        if let Err(e) = seg.file.write_all(&buf) {
            fatal("write", &seg.path, e);
        }
        let sync_began = std::time::Instant::now();
        if let Err(e) = seg.file.sync_data() {
            fatal("fsync", &seg.path, e);
        }
        s.segment_fsync_micros.fetch_add(
            u64::try_from(sync_began.elapsed().as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        s.segment_fsyncs.fetch_add(1, Ordering::Relaxed);
        seg.len += buf.len() as u64;
        s.bytes_written
            .fetch_add(buf.len() as u64, Ordering::Relaxed);
        s.fsyncs.fetch_add(1, Ordering::Relaxed);
        s.writes.fetch_add(1, Ordering::Relaxed);
        add_redo_buffers(-(buf.capacity() as i64));
        drop(buf);
        let mut d = s.durable.lock();
        d.lsn = end_lsn;
        d.csn = csn;
        s.flushed.notify_all();
    }
}

/// Wait for records to write and take them (None: stopped with nothing
/// left). While no one waits for durability (only asynchronous commits
/// pending), gather for up to WAL_WRITER_DELAY_MS first, as PostgreSQL's
/// walwriter does: one write and fsync for many commits.
fn next_batch(s: &Shared) -> Option<(Vec<u8>, Lsn, u64)> {
    let stop = || s.stop.load(Ordering::SeqCst);
    let mut p = s.pending.lock();
    loop {
        while (p.buf.is_empty() || s.held.load(Ordering::SeqCst)) && !stop() {
            s.work.wait(&mut p);
        }
        if p.buf.is_empty() {
            return None;
        }
        let deadline = Instant::now() + Duration::from_millis(WAL_WRITER_DELAY_MS);
        while s.urgent.load(Ordering::SeqCst) == 0
            && !stop()
            && p.buf.len() < WAL_BUFFER_BYTES_MAX / 2
            && !s.work.wait_until(&mut p, deadline).timed_out()
        {}
        if s.held.load(Ordering::SeqCst) && !stop() {
            continue;
        }
        return Some((std::mem::take(&mut p.buf), p.next_lsn, p.last_csn));
    }
}

/// Start the next segment. The old one is already fully synced.
fn roll(s: &Shared, old: Segment) -> Segment {
    let start = old.start.advance(old.len);
    let path = segment_path(&s.dir, start);
    let file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| fatal("create", &path, e));
    sync_dir_or_abort(&s.dir, &path);
    Segment {
        file,
        start,
        len: 0,
        path,
    }
}
