//! Snapshots and the visibility rule.
//!
//! A snapshot is one number: the commit horizon, the highest commit sequence
//! number (CSN) whose effects it sees, plus the reader's own transaction and
//! command id. Every version header carries the top-level XID that created it
//! (`xmin`) and, once replaced or deleted, the XID that did so (`xmax`). Before
//! a version is checked, each XID is *resolved* to a [`Stamp`] — the reader's
//! own command, a commit at some CSN, or "not visible" (in progress, in the
//! middle of committing, or aborted) — by [`crate::TxnManager::resolve`]. The
//! rule itself is then one small pure function, [`is_visible`].
//!
//! Worked example. T1 inserts row r (v1) and commits at CSN 7; T2 updates r
//! (v2) and commits at CSN 9; T3 is running and deletes r, uncommitted.
//!
//! ```text
//!   version  xmin        xmax        data
//!   v1       T1 (csn 7)  T2 (csn 9)  'a'
//!   v2       T2 (csn 9)  T3 (--)     'b'
//!
//!   snapshot horizon 6  : v1 not yet created, v2 not yet created -> no row
//!   snapshot horizon 8  : v1 created (7<=8), deleter csn 9 > 8   -> 'a'
//!   snapshot horizon 12 : v1 deleted (9<=12); v2 created, T3 in
//!                         progress so its delete does not count   -> 'b'
//!   T3 itself, cid 4    : v2's xmax is Own(cid 3) < 4, deleted    -> no row
//! ```
//!
//! A version whose creator is *in the middle of committing* — it has taken its
//! CSN c but the horizon has not reached c — resolves to `Committed(c)`, and
//! every snapshot that exists at that moment has a horizon below c (the
//! horizon only passes c after the commit is published), so the version is
//! invisible to them; a snapshot taken after publication sees it. A reader
//! therefore never waits for a committing transaction and never sees half of
//! one. See docs/transactions.md, "The commit protocol".

use nestor_common::{CommandId, Csn, Xid};

/// What a reader knows when it checks versions: everything committed at or
/// before `horizon`, plus its own transaction's commands before `cid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub horizon: Csn,
    /// The reader's own top-level XID, or `Xid::NONE` if it has not written.
    pub own: Xid,
    pub cid: CommandId,
    /// A SERIALIZABLE transaction's entry: reads through this snapshot take
    /// predicate locks and report rw-conflicts ([`crate::ssi`]).
    pub ssi: Option<crate::ssi::SxactId>,
}

/// An XID in a version header, resolved relative to a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// Written by the reader's own transaction by command `cid`.
    Own(CommandId),
    /// Written by a transaction that committed (or is committing) at `csn`.
    Committed(Csn),
    /// Written by a transaction that is in progress or aborted.
    NotCommitted,
}

/// Whether an effect stamped `s` is visible in `snap`.
pub fn stamp_visible(s: Stamp, snap: &Snapshot) -> bool {
    match s {
        Stamp::Own(cid) => cid < snap.cid,
        Stamp::Committed(csn) => csn <= snap.horizon,
        Stamp::NotCommitted => false,
    }
}

/// The visibility rule: a version is visible iff its creation is visible and
/// its deletion (if any) is not.
pub fn is_visible(created: Stamp, deleted: Option<Stamp>, snap: &Snapshot) -> bool {
    stamp_visible(created, snap) && !deleted.is_some_and(|d| stamp_visible(d, snap))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(h: u64, own: u64, cid: u32) -> Snapshot {
        Snapshot {
            horizon: Csn(h),
            own: Xid(own),
            cid: CommandId(cid),
            ssi: None,
        }
    }

    #[test]
    fn worked_example_from_module_header() {
        let v1 = (Stamp::Committed(Csn(7)), Some(Stamp::Committed(Csn(9))));
        let v2_other = (Stamp::Committed(Csn(9)), Some(Stamp::NotCommitted));
        let v2_own = (Stamp::Committed(Csn(9)), Some(Stamp::Own(CommandId(3))));
        let vis = |v: (Stamp, Option<Stamp>), s: &Snapshot| is_visible(v.0, v.1, s);
        assert!(!vis(v1, &snap(6, 0, 0)) && !vis(v2_other, &snap(6, 0, 0)));
        assert!(vis(v1, &snap(8, 0, 0)) && !vis(v2_other, &snap(8, 0, 0)));
        assert!(!vis(v1, &snap(12, 0, 0)) && vis(v2_other, &snap(12, 0, 0)));
        assert!(!vis(v2_own, &snap(12, 3, 4)));
        // The deleting command itself still sees the row (no Halloween).
        assert!(vis(v2_own, &snap(12, 3, 3)));
    }

    #[test]
    fn own_writes_visible_to_later_commands_only() {
        let created = Stamp::Own(CommandId(2));
        assert!(!is_visible(created, None, &snap(5, 1, 2)));
        assert!(is_visible(created, None, &snap(5, 1, 3)));
    }

    #[test]
    fn uncommitted_never_visible_and_its_delete_never_counts() {
        assert!(!is_visible(
            Stamp::NotCommitted,
            None,
            &snap(u64::MAX, 0, 0)
        ));
        assert!(is_visible(
            Stamp::Committed(Csn(1)),
            Some(Stamp::NotCommitted),
            &snap(1, 0, 0)
        ));
    }
}
