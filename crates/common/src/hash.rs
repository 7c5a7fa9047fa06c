//! A fast hasher for sets of our own integer keys (row ids, XIDs, relation
//! ids, hashes already computed), where the keys come from inside the server and need no
//! protection against chosen collisions: std's SipHash costs several times
//! more per key (measured on the redo of a 1,000,000-row COPY, see
//! docs/performance.md). The mixing step is FxHash's (rustc's hasher):
//! rotate, xor, multiply by a large odd constant.
//!
//! Not for keys a client chooses (names, text, values): use std's.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// FxHash-style hasher for integer keys.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }

    #[inline]
    fn write_isize(&mut self, x: isize) {
        self.add(x as u64);
    }
}

pub type IdBuildHasher = BuildHasherDefault<IdHasher>;
pub type IdHashSet<K> = HashSet<K, IdBuildHasher>;
/// A map keyed by internal integer ids.
pub type IdHashMap<K, V> = HashMap<K, V, IdBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_ids_spread_and_equal_ids_agree() {
        let h = |x: u64| {
            let mut s = IdHasher::default();
            s.write_u64(x);
            s.finish()
        };
        assert_eq!(h(7), h(7));
        let mut buckets = [0u32; 64];
        for i in 0..64_000u64 {
            buckets[(h(i) >> 58) as usize] += 1;
        }
        // Sequential ids spread over the top bits (what hashbrown uses).
        assert!(buckets.iter().all(|&n| n > 500), "{buckets:?}");
        let mut set = IdHashSet::default();
        assert!(set.insert((3u32, 9u64)));
        assert!(!set.insert((3u32, 9u64)));
    }
}
