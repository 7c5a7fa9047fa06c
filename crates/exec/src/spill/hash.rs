//! Hash batches: what a hash aggregate (GROUP BY, DISTINCT) does once its
//! table outgrows work_mem, as PostgreSQL 13+ does.
//!
//! Past work_mem the table stops taking new groups: rows of groups already
//! in it are still aggregated there, and every other row is written to one
//! of BATCH_COUNT temporary files chosen by its key's hash ([`Batches`]).
//! All rows of one group land in one batch, and none of those groups is in
//! the table, so once the table's groups are out each batch is aggregated
//! on its own, by the same code, with a fresh table; a batch that again
//! outgrows work_mem spills one level deeper, its keys hashed with the
//! level as salt so they spread differently. Past DEPTH_MAX levels (keys
//! whose hashes keep colliding) the table just grows, bounded by
//! `nestor.query_memory_max` as before.
//!
//! ```text
//!   rows ─▶ table (≤ work_mem) ─▶ its groups out first
//!     └─ unseen key once full ─▶ batch hash(level, key) % 16 ─▶ each batch:
//!                                 the same aggregation, level + 1
//! ```
//!
//! Groups come out table first, then batch by batch: not in first-seen
//! order any more, which SQL never promised (PostgreSQL's order changes
//! the same way).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use nestor_common::DbError;
use nestor_types::Value;

use super::{TempFile, TempSpace};

/// Files one spilling level writes (PostgreSQL picks 4 to 1024 by its
/// estimates; Nestor has none, so a middle value).
const BATCH_COUNT: usize = 16;

/// Levels of batches within batches before a table stops spilling.
pub(crate) const DEPTH_MAX: u32 = 6;

/// The batch files of one spilling level.
pub(crate) struct Batches {
    files: Vec<Option<TempFile>>,
    depth: u32,
    space: Arc<TempSpace>,
}

impl Batches {
    pub(crate) fn new(depth: u32, space: &Arc<TempSpace>) -> Batches {
        Batches {
            files: (0..BATCH_COUNT).map(|_| None).collect(),
            depth,
            space: space.clone(),
        }
    }

    /// Write `row` to the batch of `key`.
    pub(crate) fn add(&mut self, key: &[Value], row: &[Value]) -> Result<(), DbError> {
        let i = batch_of(key, self.depth);
        let f = match &mut self.files[i] {
            Some(f) => f,
            slot => slot.insert(TempFile::create(&self.space)?),
        };
        f.write(row)
    }

    /// The batches written, each ready to read.
    pub(crate) fn into_files(self) -> Result<Vec<TempFile>, DbError> {
        Ok(self.into_slots()?.into_iter().flatten().collect())
    }

    /// Every batch by its number (None: nothing written to it), each
    /// ready to read.
    pub(crate) fn into_slots(self) -> Result<Vec<Option<TempFile>>, DbError> {
        let mut out = Vec::with_capacity(self.files.len());
        for mut f in self.files {
            if let Some(f) = &mut f {
                f.read()?;
            }
            out.push(f);
        }
        Ok(out)
    }
}

/// The batch a key belongs to at `depth`: equal keys (as `Value`'s `Eq`
/// has it, e.g. 1.0 = 1.00, int4 1 = int8 1) always get the same one.
pub(crate) fn batch_of(key: &[Value], depth: u32) -> usize {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    depth.hash(&mut h);
    key.hash(&mut h);
    (h.finish() % BATCH_COUNT as u64) as usize
}
