//! External sort: what a sort does once its rows outgrow work_mem.
//!
//! The sort collects (sort keys, row) entries in memory as before; when
//! what it holds passes work_mem it sorts them (the same stable sort and
//! comparator as the in-memory path), writes them to a temporary file as
//! one sorted *run* and starts again with an empty buffer ([`Runs::add`]).
//! At the end the last buffer is sorted in memory and merged with the runs
//! ([`Runs::finish`]): a k-way merge over a binary heap of run heads.
//! A sort that never passed work_mem never comes here, so the in-memory
//! path costs one comparison per row more than before.
//!
//! A merge reads every input run through a 32 kB buffer, so it takes at
//! most `work_mem / 32 kB` runs at once (at least MERGE_ORDER_MIN, at most
//! MERGE_ORDER_MAX, PostgreSQL's MINORDER and MAXORDER); with more runs,
//! earlier passes merge consecutive groups into longer runs first.
//! Equal keys come out in input order, as from the in-memory (stable)
//! sort: runs are consecutive stretches of the input, kept in input
//! order, and the merge breaks ties by run position.
//!
//! ```text
//!   input ─▶ [buffer ≤ work_mem] ─sort─▶ run 1 ─┐
//!            [buffer ≤ work_mem] ─sort─▶ run 2 ─┤ (passes while runs > order)
//!            ...                                ├─▶ heap merge ─▶ emit
//!            [last buffer] ─sort (in memory) ───┘
//! ```

use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::DbError;
use nestor_types::Value;

use super::{TempFile, TempSpace, READ_BUFFER_BYTES};

type Row = Vec<Value>;

/// What a merge runs in: the executor's state, which it hands to the
/// consumer and asks every row whether the statement was cancelled.
pub(crate) trait Cx {
    /// Count a row; fail if the statement was cancelled or timed out.
    fn poll(&mut self, counter: &mut u32) -> Result<(), DbError>;
}

/// Fewest and most runs one merge pass reads (PostgreSQL's MINORDER and
/// MAXORDER).
const MERGE_ORDER_MIN: usize = 6;
const MERGE_ORDER_MAX: usize = 500;

/// A sort entry: its sort keys' values and the row.
pub(crate) type Entry = (Vec<Value>, Row);

/// How entries' keys order.
pub(crate) type KeyCmp<'c> = dyn Fn(&[Value], &[Value]) -> Ordering + 'c;

/// The sorted runs a sort has written so far.
pub(crate) struct Runs {
    files: Vec<TempFile>,
    /// The number of sort keys at the front of each stored row.
    width: usize,
    space: Arc<TempSpace>,
}

impl Runs {
    pub(crate) fn new(width: usize, space: &Arc<TempSpace>) -> Runs {
        Runs {
            files: Vec::new(),
            width,
            space: space.clone(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Sort `entries` and write them as the next run; `entries` is left
    /// empty.
    pub(crate) fn add(&mut self, entries: &mut Vec<Entry>, cmp: &KeyCmp) -> Result<(), DbError> {
        nestor_common::sort::pg_qsort(entries, |a, b| cmp(&a.0, &b.0));
        let mut f = TempFile::create(&self.space)?;
        let mut stored = Vec::new();
        for (k, row) in entries.drain(..) {
            stored.clear();
            stored.extend(k);
            stored.extend(row);
            f.write(&stored)?;
        }
        self.files.push(f);
        Ok(())
    }

    /// Sort `last` in memory and merge it with the runs, handing every
    /// row to `emit` in order (false from `emit` stops).
    pub(crate) fn finish<C: Cx>(
        mut self,
        mut last: Vec<Entry>,
        cmp: &KeyCmp,
        work_mem: usize,
        ev: &mut C,
        emit: &mut dyn FnMut(&mut C, Row) -> Result<bool, DbError>,
    ) -> Result<bool, DbError> {
        let order = (work_mem / READ_BUFFER_BYTES).clamp(MERGE_ORDER_MIN, MERGE_ORDER_MAX);
        while self.files.len() > order {
            self.pass(order, cmp, ev)?;
        }
        nestor_common::sort::pg_qsort(&mut last, |a, b| cmp(&a.0, &b.0));
        let mut sources: Vec<Source> = Vec::with_capacity(self.files.len() + 1);
        for mut f in std::mem::take(&mut self.files) {
            f.read()?;
            sources.push(Source::File(f));
        }
        sources.push(Source::Memory(last.into_iter()));
        merge(sources, self.width, cmp, ev, &mut |ev, (_, row)| {
            emit(ev, row)
        })
    }

    /// One merge pass: each group of `order` consecutive runs becomes one.
    fn pass<C: Cx>(&mut self, order: usize, cmp: &KeyCmp, ev: &mut C) -> Result<(), DbError> {
        let mut merged = Vec::with_capacity(self.files.len().div_ceil(order));
        let mut files = std::mem::take(&mut self.files).into_iter().peekable();
        while files.peek().is_some() {
            let mut sources = Vec::with_capacity(order);
            for mut f in files.by_ref().take(order) {
                f.read()?;
                sources.push(Source::File(f));
            }
            let mut out = TempFile::create(&self.space)?;
            let mut stored = Vec::new();
            merge(sources, self.width, cmp, ev, &mut |_, (k, row)| {
                stored.clear();
                stored.extend(k);
                stored.extend(row);
                out.write(&stored)?;
                Ok(true)
            })?;
            merged.push(out);
        }
        self.files = merged;
        Ok(())
    }
}

/// One input of a merge.
enum Source {
    File(TempFile),
    Memory(std::vec::IntoIter<Entry>),
}

impl Source {
    fn next(&mut self, width: usize) -> Result<Option<Entry>, DbError> {
        match self {
            Source::Memory(it) => Ok(it.next()),
            Source::File(f) => Ok(f.next()?.map(|mut stored| {
                let row = stored.split_off(width.min(stored.len()));
                (stored, row)
            })),
        }
    }
}

/// Merge sorted `sources` into `out` in key order, ties by source
/// position; a run's file is removed as soon as it is read to its end.
fn merge<C: Cx>(
    mut sources: Vec<Source>,
    width: usize,
    cmp: &KeyCmp,
    ev: &mut C,
    out: &mut dyn FnMut(&mut C, Entry) -> Result<bool, DbError>,
) -> Result<bool, DbError> {
    let mut heads: Vec<Option<Entry>> = Vec::with_capacity(sources.len());
    for s in &mut sources {
        heads.push(s.next(width)?);
    }
    let before = |heads: &[Option<Entry>], a: usize, b: usize| -> bool {
        match (&heads[a], &heads[b]) {
            (Some(x), Some(y)) => cmp(&x.0, &y.0).then(a.cmp(&b)).is_lt(),
            _ => false,
        }
    };
    let mut heap: Vec<usize> = (0..sources.len()).filter(|&i| heads[i].is_some()).collect();
    for i in (0..heap.len() / 2).rev() {
        sift_down(&mut heap, i, &|a, b| before(&heads, a, b));
    }
    let mut n = 0;
    while let Some(&top) = heap.first() {
        ev.poll(&mut n)?;
        let next = sources[top].next(width)?;
        let entry = std::mem::replace(&mut heads[top], next)
            .ok_or_else(|| DbError::internal("merge: empty run head"))?;
        if heads[top].is_none() {
            // This run is done: drop it now (its file goes too).
            sources[top] = Source::Memory(Vec::new().into_iter());
            let last = heap.len() - 1;
            heap.swap(0, last);
            heap.pop();
        }
        sift_down(&mut heap, 0, &|a, b| before(&heads, a, b));
        if !out(ev, entry)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Restore the heap property below `i` (`before(a, b)`: a comes first).
fn sift_down(heap: &mut [usize], mut i: usize, before: &dyn Fn(usize, usize) -> bool) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut first = i;
        if l < heap.len() && before(heap[l], heap[first]) {
            first = l;
        }
        if r < heap.len() && before(heap[r], heap[first]) {
            first = r;
        }
        if first == i {
            return;
        }
        heap.swap(i, first);
        i = first;
    }
}
