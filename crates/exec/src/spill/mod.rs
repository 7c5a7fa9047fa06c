//! Temporary files: where sorts, hash aggregates and hash joins that
//! outgrow work_mem put their rows.
//!
//! PostgreSQL bounds each sort and hash table by work_mem and writes what
//! does not fit to temporary files under `<data>/base/pgsql_tmp`; Nestor
//! does the same under `<data>/pgsql_tmp` ([`init`], called once the data
//! directory is locked, empties it: files left by a process that died are
//! removed at start). Engines without a data directory (tests) use a directory of
//! their own under the system's temporary directory.
//!
//! A [`TempFile`] is one file, `pgsql_tmp<pid>.<n>`, written sequentially
//! through a buffer, then read back sequentially ([`TempFile::read`]); it
//! is removed when the value is dropped, so an operator that finishes,
//! fails or is cancelled (an error unwinding the executor) leaves nothing
//! behind. Rows are framed as `len:u32 LE` + [`codec::RowCodec`]'s form.
//!
//! What a statement's files hold at once is counted in its
//! [`TempSpace`]; past `temp_file_limit` a write fails with PostgreSQL's
//! 53400 `temporary file size exceeds temp_file_limit (NkB)`. Each file
//! is counted in pg_stat_database's temp_files / temp_bytes when it is
//! removed, as PostgreSQL counts it. The limit holds per statement (each
//! executor state, `Ev`, has its own [`TempSpace`]), where PostgreSQL's
//! holds per backend.
//!
//! ```text
//!   run_sort ───────────── past work_mem ──▶ sort::Runs (sorted runs, k-way merge)
//!   GROUP BY, DISTINCT,
//!   hash join ──────────── past work_mem ──▶ hash::Batches (16 files by key hash)
//!                                   │
//!                                   ▼
//!                 TempFile ──▶ <data>/pgsql_tmp/pgsql_tmp<pid>.<n>
//!                 (BufWriter 64 kB, BufReader 32 kB; unlinked on drop)
//! ```

pub(crate) mod codec;
pub(crate) mod hash;
pub(crate) mod sort;

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use nestor_common::{DbError, SqlState};
use nestor_types::Value;

use codec::RowCodec;

/// A temporary file's write buffer.
const WRITE_BUFFER_BYTES: usize = 64 << 10;
/// A temporary file's read buffer (a merge has one per input run).
pub(crate) const READ_BUFFER_BYTES: usize = 32 << 10;

static DIR: OnceLock<PathBuf> = OnceLock::new();
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// Use `<data_dir>/pgsql_tmp` for temporary files, removing whatever an
/// earlier process left there. Call once, with the data directory locked.
pub fn init(data_dir: &Path) -> std::io::Result<()> {
    let dir = data_dir.join("pgsql_tmp");
    clear(&dir)?;
    let _ = DIR.set(dir);
    Ok(())
}

/// Remove `dir`'s files (it is created if missing).
fn clear(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            std::fs::remove_dir_all(&p)?;
        } else {
            std::fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// The directory temporary files go to.
pub fn dir() -> &'static Path {
    DIR.get_or_init(|| {
        std::env::temp_dir().join(format!("nestor_pgsql_tmp.{}", std::process::id()))
    })
}

/// What one statement's temporary files hold (temp_file_limit).
#[derive(Debug)]
pub struct TempSpace {
    used: AtomicU64,
    limit: Option<u64>,
    /// Files removed and their bytes, for pg_stat_database.
    files: AtomicU64,
    bytes: AtomicU64,
}

impl TempSpace {
    pub fn new(limit: Option<u64>) -> Arc<TempSpace> {
        Arc::new(TempSpace {
            used: AtomicU64::new(0),
            limit,
            files: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        })
    }

    fn grow(&self, bytes: u64) -> Result<(), DbError> {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        match self.limit {
            Some(limit) if used > limit => Err(DbError::new(
                SqlState::ConfigurationLimitExceeded,
                format!(
                    "temporary file size exceeds temp_file_limit ({}kB)",
                    limit / 1024
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Files removed so far and the bytes they held (taken: the counts
    /// start again from zero).
    pub fn take_counts(&self) -> (u64, u64) {
        (
            self.files.swap(0, Ordering::Relaxed),
            self.bytes.swap(0, Ordering::Relaxed),
        )
    }
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> DbError {
    DbError::new(
        SqlState::IoError,
        format!("could not {what} file \"{}\": {e}", path.display()),
    )
}

enum Io {
    Writing(BufWriter<File>),
    Reading(BufReader<File>),
    Closed,
}

/// One temporary file of rows: written, then read from the start; removed
/// when dropped.
pub(crate) struct TempFile {
    path: PathBuf,
    io: Io,
    codec: RowCodec,
    space: Arc<TempSpace>,
    bytes: u64,
    scratch: Vec<u8>,
}

impl TempFile {
    pub(crate) fn create(space: &Arc<TempSpace>) -> Result<TempFile, DbError> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let dir = dir();
        let path = dir.join(format!("pgsql_tmp{}.{n}", std::process::id()));
        let open = || {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
        };
        let file = match open() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, e))?;
                open()
            }
            r => r,
        }
        .map_err(|e| io_error("create temporary", &path, e))?;
        Ok(TempFile {
            path,
            io: Io::Writing(BufWriter::with_capacity(WRITE_BUFFER_BYTES, file)),
            codec: RowCodec::default(),
            space: space.clone(),
            bytes: 0,
            scratch: Vec::new(),
        })
    }

    /// Append a row (before [`TempFile::read`]).
    pub(crate) fn write(&mut self, row: &[Value]) -> Result<(), DbError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&[0; 4]);
        self.codec.put_row(row, &mut self.scratch);
        let len = u32::try_from(self.scratch.len() - 4)
            .map_err(|_| DbError::new(SqlState::ProgramLimitExceeded, "row is too big to sort"))?;
        self.scratch[..4].copy_from_slice(&len.to_le_bytes());
        self.space.grow(self.scratch.len() as u64)?;
        self.bytes += self.scratch.len() as u64;
        let Io::Writing(w) = &mut self.io else {
            return Err(DbError::internal("temporary file written after reading"));
        };
        w.write_all(&self.scratch)
            .map_err(|e| io_error("write to", &self.path, e))
    }

    /// Switch to reading, from the first row.
    pub(crate) fn read(&mut self) -> Result<(), DbError> {
        let Io::Writing(w) = std::mem::replace(&mut self.io, Io::Closed) else {
            return Err(DbError::internal("temporary file read twice"));
        };
        let mut f = w
            .into_inner()
            .map_err(|e| io_error("write to", &self.path, e.into_error()))?;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| io_error("seek in", &self.path, e))?;
        self.io = Io::Reading(BufReader::with_capacity(READ_BUFFER_BYTES, f));
        Ok(())
    }

    /// The next row (None at the end).
    pub(crate) fn next(&mut self) -> Result<Option<Vec<Value>>, DbError> {
        let Io::Reading(r) = &mut self.io else {
            return Err(DbError::internal("temporary file read before written"));
        };
        let mut len = [0u8; 4];
        match r.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(io_error("read", &self.path, e)),
        }
        let n = u32::from_le_bytes(len) as usize;
        self.scratch.resize(n, 0);
        r.read_exact(&mut self.scratch)
            .map_err(|e| io_error("read", &self.path, e))?;
        self.codec.get_row(&self.scratch).map(Some)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.io = Io::Closed;
        let _ = std::fs::remove_file(&self.path);
        self.space.used.fetch_sub(
            self.bytes.min(self.space.used.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        self.space.files.fetch_add(1, Ordering::Relaxed);
        self.space.bytes.fetch_add(self.bytes, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_in_order_and_the_file_goes_on_drop() {
        let space = TempSpace::new(None);
        let mut f = TempFile::create(&space).unwrap();
        let path = f.path.clone();
        for i in 0..10_000 {
            f.write(&[Value::Int4(i), Value::text(&format!("row {i}"))])
                .unwrap();
        }
        f.read().unwrap();
        for i in 0..10_000 {
            let row = f.next().unwrap().unwrap();
            assert_eq!(row, vec![Value::Int4(i), Value::text(&format!("row {i}"))]);
        }
        assert_eq!(f.next().unwrap(), None);
        assert!(path.exists());
        drop(f);
        assert!(!path.exists());
        assert_eq!(space.used.load(Ordering::Relaxed), 0);
        assert_eq!(space.take_counts().0, 1);
    }

    #[test]
    fn past_temp_file_limit_a_write_fails_with_53400() {
        let space = TempSpace::new(Some(1024));
        let mut f = TempFile::create(&space).unwrap();
        let row = [Value::text(&"x".repeat(100))];
        let e = (0..100).find_map(|_| f.write(&row).err()).unwrap();
        assert_eq!(e.code, SqlState::ConfigurationLimitExceeded);
        assert_eq!(
            e.message,
            "temporary file size exceeds temp_file_limit (1kB)"
        );
    }
}
