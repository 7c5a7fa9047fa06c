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
}

/// Add a need to `perms`, merged with one for the same object and role.
pub fn need(perms: &mut Vec<Perm>, p: Perm) {
    match perms
        .iter_mut()
        .find(|q| q.kind == p.kind && q.oid == p.oid && q.check_as == p.check_as)
    {
        Some(q) => q.privs |= p.privs,
        None => perms.push(p),
    }
}
