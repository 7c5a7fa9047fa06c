//! The privileges a statement needs, collected while it is bound
//! (PostgreSQL keeps them in the range table's requiredPerms and checks
//! them in ExecCheckRTPerms). The executor checks the list at every
//! execution against the role running it, so a cached plan stays right
//! across SET ROLE and GRANT/REVOKE; a superuser skips the check.
//!
//! ```text
//!   UPDATE t SET v = 1 WHERE id = 2 RETURNING v
//!     -> [Perm { t, UPDATE | SELECT }]
//!   SELECT * FROM v        (a view owned by alice over table t)
//!     -> [Perm { v, SELECT }, Perm { t, SELECT, as alice }]
//! ```
//!
//! Each need also lists the columns it reads, inserts and updates
//! (PostgreSQL's selectedCols, insertedCols, updatedCols): a role lacking
//! the table privilege may still hold it on each of those columns. The
//! binder marks a column read where a reference to it is bound (a column
//! reference, `t.*`, a whole-row `t`, JOIN USING): each scope column of a
//! table carries the index of its need (`ScopeCol::perm`, in bind.rs).
//!
//! ```text
//!   UPDATE t SET v = w + 1 WHERE id = 2
//!     -> [Perm { t, UPDATE | SELECT, select [w, id], update [v] }]
//! ```

use nestor_catalog::acl::ObjKind;
use nestor_common::RelId;

/// One object the statement uses and what it needs of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Perm {
    pub kind: ObjKind,
    pub oid: u32,
    /// For messages ("permission denied for table t").
    pub name: String,
    pub privs: u16,
    /// Checked as this role rather than the current one: relations a view
    /// reads are checked as the view's owner.
    pub check_as: Option<RelId>,
    /// Where in the statement's text the object is named, for an error
    /// PostgreSQL raises while it parses (USAGE on a schema); -1: none.
    pub location: i32,
    /// The columns (attribute numbers, ascending; 0: the whole row) it
    /// reads, inserts and updates.
    pub cols: PermCols,
    /// Locked as `privs` say but not checked: a partition or inheritance
    /// child an UPDATE or DELETE of its parent reaches (PostgreSQL checks
    /// the table the statement names only).
    pub lock_only: bool,
}

/// The columns a need names, per column privilege.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PermCols {
    pub select: Vec<i16>,
    pub insert: Vec<i16>,
    pub update: Vec<i16>,
    /// Privileges needed by a part of the statement that does not say
    /// which columns it uses: only the table's privilege meets them.
    pub untracked: u16,
}

impl PermCols {
    fn merge(&mut self, other: &PermCols) {
        self.untracked |= other.untracked;
        for &a in &other.select {
            add_col(&mut self.select, a);
        }
        for &a in &other.insert {
            add_col(&mut self.insert, a);
        }
        for &a in &other.update {
            add_col(&mut self.update, a);
        }
    }
}

/// Add an attribute number to a sorted column set.
pub fn add_col(set: &mut Vec<i16>, attnum: i16) {
    if let Err(at) = set.binary_search(&attnum) {
        set.insert(at, attnum);
    }
}

/// Add a need to `perms`, merged with one for the same object and role;
/// its index.
pub fn need(perms: &mut Vec<Perm>, p: Perm) -> usize {
    match perms
        .iter()
        .position(|q| q.kind == p.kind && q.oid == p.oid && q.check_as == p.check_as)
    {
        Some(i) => {
            perms[i].privs |= p.privs;
            perms[i].cols.merge(&p.cols);
            perms[i].lock_only &= p.lock_only;
            i
        }
        None => {
            perms.push(p);
            perms.len() - 1
        }
    }
}
