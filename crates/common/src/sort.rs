//! PostgreSQL's in-memory sort, step for step, so that rows equal on every
//! sort key come out in the order PostgreSQL gives them.
//!
//! A sort is free to order rows that compare equal ("peers") any way it
//! likes, and SQL leaves their order unspecified; but applications and
//! PostgreSQL's own regression files see one order, the one PostgreSQL's
//! quicksort produces (src/include/lib/sort_template.h, used by tuplesort
//! for every in-memory sort: ORDER BY, window sorts, ordered aggregates).
//! It is not stable. Given the same input order and the same comparator,
//! it is deterministic, so reproducing it exactly reproduces PostgreSQL's
//! order of peers. Rust's `sort_by` is stable and would keep peers in
//! input order instead:
//!
//! ```text
//!   input (unique1, four), heap order of tenk1 WHERE unique1 < 10:
//!     (4,0) (2,2) (1,1) (6,2) (9,1) (8,0) (5,1) (3,3) (7,3) (0,0)
//!   ORDER BY four, stable:        4 8 0 | 1 9 5 | 2 6 | 3 7
//!   ORDER BY four, PostgreSQL's:  0 8 4 | 5 9 1 | 6 2 | 3 7   <- pg_qsort
//! ```
//!
//! The algorithm (Bentley & McIlroy, "Engineering a Sort Function"):
//! insertion sort below 7 elements; a pass that returns at once if the
//! input is already in order; the pivot is the median of three (of three
//! medians of three past 40 elements); a three-way partition that moves
//! the pivot's peers to both ends and then into the middle; recursion on
//! the smaller side and iteration on the larger, so the stack depth stays
//! logarithmic. Every comparison and swap is the one PostgreSQL makes.
//!
//! A sort under a LIMIT needs only the first `bound` rows (ExecSetTupleBound
//! tells tuplesort so): past twice that many input rows tuplesort turns
//! what it holds into a heap of the `bound` best and keeps only those, then
//! heap-sorts them at the end. That too orders peers its own way, and
//! [`Bounded`] repeats it step for step (make_bounded_heap,
//! tuplesort_heap_insert / replace_top, sort_bounded_heap).
//!
//! Left out: external merges past work_mem, which order peers differently
//! again (the caller's spill path keeps its merge order).

use std::cmp::Ordering;

/// Below this many elements, insertion sort (sort_template.h: `n < 7`).
const INSERTION_SORT_LEN_MAX: usize = 6;
/// Above this many elements, the pivot is a median of medians (`n > 40`).
const NINTHER_LEN_MIN: usize = 41;

/// Sort `v` as PostgreSQL's `qsort` sorts it with comparator `cmp`.
pub fn pg_qsort<T, F>(v: &mut [T], mut cmp: F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    sort(v, &mut cmp);
}

/// The best `bound` of the items pushed, as tuplesort keeps them for a
/// bounded sort: all of them while there are at most `2 * bound`, then a
/// heap of the `bound` best (the worst on top, so a newcomer is compared
/// with it once). Items no longer needed are handed back from `push`.
pub struct Bounded<T> {
    bound: usize,
    items: Vec<T>,
    heap: bool,
}

impl<T> Bounded<T> {
    pub fn new(bound: usize) -> Bounded<T> {
        assert!(bound > 0, "a bounded sort keeps at least one row");
        Bounded {
            bound,
            items: Vec::new(),
            heap: false,
        }
    }

    /// Whether the `bound` best are kept in a heap (the rest given back).
    pub fn is_heap(&self) -> bool {
        self.heap
    }

    /// Take `item`; items dropped as no longer among the best go to
    /// `dropped`. `make_heap_now` turns the buffer into the heap before
    /// twice the bound is reached (tuplesort does when memory runs out
    /// and more than `bound` are held).
    pub fn push<F, D>(&mut self, item: T, make_heap_now: bool, cmp: &mut F, dropped: &mut D)
    where
        F: FnMut(&T, &T) -> Ordering,
        D: FnMut(T),
    {
        if self.heap {
            self.offer(item, cmp, dropped);
            return;
        }
        self.items.push(item);
        let n = self.items.len();
        if n > self.bound.saturating_mul(2) || (make_heap_now && n > self.bound) {
            self.make_heap(cmp, dropped);
        }
    }

    /// Everything kept, in order: qsorted if the heap was never needed,
    /// else heap-sorted.
    pub fn finish<F>(mut self, cmp: &mut F) -> Vec<T>
    where
        F: FnMut(&T, &T) -> Ordering,
    {
        if !self.heap {
            sort(&mut self.items, cmp);
            return self.items;
        }
        // sort_bounded_heap: the top (the worst) goes to the end, the last
        // leaf takes its place and sinks, until one is left.
        let v = &mut self.items;
        let mut n = v.len();
        while n > 1 {
            v.swap(0, n - 1);
            n -= 1;
            sift_down(&mut v[..n], cmp);
        }
        self.items
    }

    fn make_heap<F, D>(&mut self, cmp: &mut F, dropped: &mut D)
    where
        F: FnMut(&T, &T) -> Ordering,
        D: FnMut(T),
    {
        debug_assert!(!self.heap && self.items.len() >= self.bound);
        let all = std::mem::take(&mut self.items);
        self.items.reserve(self.bound);
        self.heap = true;
        for item in all {
            if self.items.len() < self.bound {
                self.heap_insert(item, cmp);
            } else {
                self.offer(item, cmp, dropped);
            }
        }
        debug_assert_eq!(self.items.len(), self.bound);
    }

    /// A full heap: `item` replaces the worst if it is better, else it is
    /// dropped (ties keep the earlier one).
    fn offer<F, D>(&mut self, item: T, cmp: &mut F, dropped: &mut D)
    where
        F: FnMut(&T, &T) -> Ordering,
        D: FnMut(T),
    {
        if cmp(&item, &self.items[0]) != Ordering::Less {
            dropped(item);
            return;
        }
        let old = std::mem::replace(&mut self.items[0], item);
        dropped(old);
        sift_down(&mut self.items, cmp);
    }

    /// tuplesort_heap_insert: the new item rises while it is worse than its
    /// parent (the heap keeps the worst on top).
    fn heap_insert<F>(&mut self, item: T, cmp: &mut F)
    where
        F: FnMut(&T, &T) -> Ordering,
    {
        let v = &mut self.items;
        v.push(item);
        let mut j = v.len() - 1;
        while j > 0 {
            let i = (j - 1) / 2;
            // reversed cmp(item, parent) >= 0, i.e. cmp(parent, item) >= 0.
            if cmp(&v[i], &v[j]) != Ordering::Less {
                break;
            }
            v.swap(i, j);
            j = i;
        }
    }
}

/// tuplesort_heap_replace_top over `v` whose top, v[0], was just put
/// there: it sinks below every child worse than it (comparisons reversed,
/// as tuplesort reverses the sort direction while it keeps the heap).
fn sift_down<T, F>(v: &mut [T], cmp: &mut F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    let n = v.len();
    let mut i = 0;
    loop {
        let mut j = 2 * i + 1;
        if j >= n {
            break;
        }
        // reversed cmp(v[j], v[j+1]) > 0, i.e. cmp(v[j+1], v[j]) > 0.
        if j + 1 < n && cmp(&v[j + 1], &v[j]) == Ordering::Greater {
            j += 1;
        }
        // reversed cmp(item, v[j]) <= 0, i.e. cmp(v[j], item) <= 0.
        if cmp(&v[j], &v[i]) != Ordering::Greater {
            break;
        }
        v.swap(i, j);
        i = j;
    }
}

fn sort<T, F>(mut v: &mut [T], cmp: &mut F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    loop {
        let n = v.len();
        if n <= INSERTION_SORT_LEN_MAX {
            insertion_sort(v, cmp);
            return;
        }
        if is_presorted(v, cmp) {
            return;
        }
        let mut pm = n / 2;
        if n > 7 {
            let (mut pl, mut pn) = (0, n - 1);
            if n >= NINTHER_LEN_MIN {
                let d = n / 8;
                pl = med3(v, pl, pl + d, pl + 2 * d, cmp);
                pm = med3(v, pm - d, pm, pm + d, cmp);
                pn = med3(v, pn - 2 * d, pn - d, pn, cmp);
            }
            pm = med3(v, pl, pm, pn, cmp);
        }
        v.swap(0, pm);
        // Partition around v[0]: [0, pa) and (pd, n) hold the pivot's
        // peers, [pa, pb) the smaller, (pc, pd] the larger. Indices are
        // signed because pc may step below pb (to pb - 1) at the end.
        let (mut pa, mut pb) = (1isize, 1isize);
        let (mut pc, mut pd) = (n as isize - 1, n as isize - 1);
        loop {
            while pb <= pc {
                let r = cmp(&v[pb as usize], &v[0]);
                if r == Ordering::Greater {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pa as usize, pb as usize);
                    pa += 1;
                }
                pb += 1;
            }
            while pb <= pc {
                let r = cmp(&v[pc as usize], &v[0]);
                if r == Ordering::Less {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pc as usize, pd as usize);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb > pc {
                break;
            }
            v.swap(pb as usize, pc as usize);
            pb += 1;
            pc -= 1;
        }
        let (pa, pb) = (pa as usize, pb as usize);
        let n_i = n as isize;
        let d1 = pa.min(pb - pa);
        swap_n(v, 0, pb - d1, d1);
        let d1 = ((pd - pc).min(n_i - pd - 1)) as usize;
        swap_n(v, pb, n - d1, d1);
        let less = pb - pa;
        let greater = (pd - pc) as usize;
        let whole = v;
        if less <= greater {
            if less > 1 {
                sort(&mut whole[..less], cmp);
            }
            if greater <= 1 {
                return;
            }
            v = &mut whole[n - greater..];
        } else {
            if greater > 1 {
                sort(&mut whole[n - greater..], cmp);
            }
            if less <= 1 {
                return;
            }
            v = &mut whole[..less];
        }
    }
}

fn insertion_sort<T, F>(v: &mut [T], cmp: &mut F)
where
    F: FnMut(&T, &T) -> Ordering,
{
    for m in 1..v.len() {
        let mut l = m;
        while l > 0 && cmp(&v[l - 1], &v[l]) == Ordering::Greater {
            v.swap(l, l - 1);
            l -= 1;
        }
    }
}

fn is_presorted<T, F>(v: &[T], cmp: &mut F) -> bool
where
    F: FnMut(&T, &T) -> Ordering,
{
    v.windows(2).all(|w| cmp(&w[0], &w[1]) != Ordering::Greater)
}

/// The index of the median of v[a], v[b], v[c], as ST_MED3 picks it.
fn med3<T, F>(v: &[T], a: usize, b: usize, c: usize, cmp: &mut F) -> usize
where
    F: FnMut(&T, &T) -> Ordering,
{
    if cmp(&v[a], &v[b]) == Ordering::Less {
        if cmp(&v[b], &v[c]) == Ordering::Less {
            b
        } else if cmp(&v[a], &v[c]) == Ordering::Less {
            c
        } else {
            a
        }
    } else if cmp(&v[b], &v[c]) == Ordering::Greater {
        b
    } else if cmp(&v[a], &v[c]) == Ordering::Less {
        a
    } else {
        c
    }
}

/// Swap v[a..a+n] with v[b..b+n] element by element (the ranges may not
/// overlap in a way that matters: ST_SWAPN walks them in step).
fn swap_n<T>(v: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        v.swap(a + i, b + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded xorshift64 generator (the tests' inputs are reproducible).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// tenk1's rows with unique1 < 10 in heap order, sorted on `four`:
    /// the peer order of PostgreSQL 15's window.out.
    #[test]
    fn peers_come_out_as_postgresql_orders_them() {
        let mut v: Vec<(i32, i32)> = [4, 2, 1, 6, 9, 8, 5, 3, 7, 0]
            .iter()
            .map(|&u| (u, u % 4))
            .collect();
        pg_qsort(&mut v, |a, b| a.1.cmp(&b.1));
        let got: Vec<i32> = v.iter().map(|p| p.0).collect();
        assert_eq!(got, [0, 8, 4, 5, 9, 1, 6, 2, 3, 7]);
    }

    /// Against the model (a stable sort), on seeded random inputs of every
    /// size class and many duplicates: same multiset, sorted by key.
    #[test]
    fn sorts_like_the_model() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for len in (0..60).chain([100, 257, 1000, 5000]) {
            for spread in [1u64, 3, 50, 1 << 40] {
                let mut v: Vec<(u64, usize)> = (0..len).map(|i| (next() % spread, i)).collect();
                let mut model = v.clone();
                model.sort_by_key(|p| p.0);
                pg_qsort(&mut v, |a, b| a.0.cmp(&b.0));
                let keys: Vec<u64> = v.iter().map(|p| p.0).collect();
                let want: Vec<u64> = model.iter().map(|p| p.0).collect();
                assert_eq!(keys, want, "len {len} spread {spread}");
                let mut ids: Vec<usize> = v.iter().map(|p| p.1).collect();
                ids.sort_unstable();
                assert!(ids.iter().copied().eq(0..len), "len {len}: lost rows");
            }
        }
    }

    /// A bounded sort keeps the best `bound` in order, whatever the input;
    /// everything else is handed back exactly once.
    #[test]
    fn bounded_keeps_the_best() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for len in [0usize, 1, 5, 9, 10, 11, 21, 100, 1000] {
            for bound in [1usize, 2, 5, 10, 50] {
                for spread in [2u64, 1000] {
                    let input: Vec<(u64, usize)> = (0..len).map(|i| (next() % spread, i)).collect();
                    let mut b = Bounded::new(bound);
                    let mut gone = Vec::new();
                    let mut cmp = |a: &(u64, usize), b: &(u64, usize)| a.0.cmp(&b.0);
                    for &x in &input {
                        b.push(x, false, &mut cmp, &mut |d| gone.push(d));
                    }
                    let heap = b.is_heap();
                    let kept = b.finish(&mut cmp);
                    assert_eq!(heap, len > 2 * bound);
                    let mut model = input.clone();
                    model.sort_by_key(|p| p.0);
                    let want: Vec<u64> = model.iter().take(bound).map(|p| p.0).collect();
                    let got: Vec<u64> = kept.iter().take(bound).map(|p| p.0).collect();
                    assert_eq!(got, want, "len {len} bound {bound}");
                    let mut ids: Vec<usize> = kept.iter().chain(&gone).map(|p| p.1).collect();
                    ids.sort_unstable();
                    assert!(ids.iter().copied().eq(0..len), "rows lost or doubled");
                }
            }
        }
    }

    /// PostgreSQL 15's `select unique1, four from tenk1 where unique1 < 10
    /// order by four limit 2` (and `limit 3`) runs a bounded sort (10 rows
    /// is more than twice the bound): 4, 8 (and 4, 8, 0), where an
    /// unbounded sort gives 0, 8, 4.
    #[test]
    fn bounded_peers_as_postgresql() {
        let input: Vec<(i32, i32)> = [4, 2, 1, 6, 9, 8, 5, 3, 7, 0]
            .iter()
            .map(|&u| (u, u % 4))
            .collect();
        let mut cmp = |a: &(i32, i32), b: &(i32, i32)| a.1.cmp(&b.1);
        for (bound, want) in [(2, &[4, 8][..]), (3, &[4, 8, 0][..])] {
            let mut b = Bounded::new(bound);
            for &x in &input {
                b.push(x, false, &mut cmp, &mut |_| {});
            }
            let got: Vec<i32> = b.finish(&mut cmp).iter().map(|p| p.0).collect();
            assert_eq!(got, want, "limit {bound}");
        }
    }

    #[test]
    fn sorted_and_reversed_inputs() {
        let mut v: Vec<u32> = (0..10_000).collect();
        pg_qsort(&mut v, |a, b| a.cmp(b));
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        v.reverse();
        pg_qsort(&mut v, |a, b| a.cmp(b));
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}
