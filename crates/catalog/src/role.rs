//! Roles: who may connect, with which password, and which roles each one
//! is a member of (PostgreSQL's pg_authid and pg_auth_members).
//!
//! Roles belong to the whole server, not to a namespace: the catalog keeps
//! them in one map by name beside the namespaces, and a role change is an
//! ordinary [`crate::Change`] (applied at once, undone by ROLLBACK, logged
//! at commit as a `PutRole`/`DropRole` record, part of every checkpoint's
//! image). A role's memberships live in the member's definition, so
//! `GRANT admins TO alice` replaces alice's definition:
//!
//! ```text
//!   roles: "postgres" -> RoleDef { oid 10, superuser, login, member_of [] }
//!          "admins"   -> RoleDef { oid 16390, nologin,  member_of [] }
//!          "alice"    -> RoleDef { oid 16391, login,    member_of [{ role 16390,
//!                                                          grantor 10, admin: no }] }
//!   ALTER ROLE alice RENAME TO al: the definition with oid 16391 is put
//!   under "al" and the entry under "alice" removed (same OID, memberships kept)
//! ```
//!
//! The bootstrap superuser is `postgres` with OID 10, as after PostgreSQL's
//! initdb; it cannot be dropped. Passwords are stored only as SCRAM-SHA-256
//! verifiers in PostgreSQL's text form (`SCRAM-SHA-256$<iterations>:<salt>$
//! <StoredKey>:<ServerKey>`), which is what pg_authid.rolpassword shows.
//!
//! Left out: privileges on objects (GRANT ... ON ...), object ownership
//! other than the bootstrap superuser, per-role settings (ALTER ROLE ...
//! SET), and the predefined pg_* roles other than pg_database_owner.

use std::collections::BTreeMap;
use std::sync::Arc;

use nestor_common::RelId;

/// OID of the bootstrap superuser (PostgreSQL's BOOTSTRAP_SUPERUSERID).
pub const BOOTSTRAP_SUPERUSER_OID: u32 = 10;

/// One role (pg_authid row plus its memberships).
#[derive(Clone, Debug, PartialEq)]
pub struct RoleDef {
    pub oid: RelId,
    pub name: String,
    pub superuser: bool,
    pub inherit: bool,
    pub createrole: bool,
    pub createdb: bool,
    pub login: bool,
    pub replication: bool,
    pub bypassrls: bool,
    /// CONNECTION LIMIT (-1: none).
    pub conn_limit: i32,
    /// SCRAM-SHA-256 verifier (PostgreSQL's text form); None: no password.
    pub password: Option<String>,
    /// VALID UNTIL, microseconds since 2000-01-01 UTC (None: forever).
    pub valid_until: Option<i64>,
    /// The roles this one is a member of.
    pub member_of: Vec<Membership>,
}

/// One pg_auth_members row, seen from the member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membership {
    pub role: RelId,
    pub grantor: RelId,
    pub admin: bool,
}

impl RoleDef {
    /// A role as CREATE ROLE makes it before options (NOLOGIN, INHERIT,
    /// nothing else).
    pub fn new(oid: RelId, name: &str) -> RoleDef {
        RoleDef {
            oid,
            name: name.to_string(),
            superuser: false,
            inherit: true,
            createrole: false,
            createdb: false,
            login: false,
            replication: false,
            bypassrls: false,
            conn_limit: -1,
            password: None,
            valid_until: None,
            member_of: Vec::new(),
        }
    }

    /// A superuser that may log in (the bootstrap roles).
    pub fn superuser(oid: RelId, name: &str) -> RoleDef {
        RoleDef {
            superuser: true,
            createrole: true,
            createdb: true,
            login: true,
            replication: true,
            bypassrls: true,
            ..RoleDef::new(oid, name)
        }
    }

    /// The attribute flags as one byte (record encoding).
    pub(crate) fn flags(&self) -> u8 {
        [
            self.superuser,
            self.inherit,
            self.createrole,
            self.createdb,
            self.login,
            self.replication,
            self.bypassrls,
        ]
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &b)| acc | (u8::from(b) << i))
    }

    pub(crate) fn set_flags(&mut self, f: u8) {
        let bit = |i: u8| f & (1 << i) != 0;
        self.superuser = bit(0);
        self.inherit = bit(1);
        self.createrole = bit(2);
        self.createdb = bit(3);
        self.login = bit(4);
        self.replication = bit(5);
        self.bypassrls = bit(6);
    }
}

/// Install `def` under its name, removing the entry of the same OID under
/// another name (a rename); returns what was removed.
pub(crate) fn put(
    roles: &mut BTreeMap<String, Arc<RoleDef>>,
    def: Arc<RoleDef>,
) -> Option<Arc<RoleDef>> {
    let old = roles
        .iter()
        .find(|(_, r)| r.oid == def.oid)
        .map(|(n, _)| n.clone());
    let prev = old.and_then(|n| roles.remove(&n));
    assert!(
        !roles.contains_key(&def.name),
        "role {} put over another role",
        def.name
    );
    roles.insert(def.name.clone(), def);
    prev
}

/// Whether `member` is `role` or belongs to it, directly or through other
/// roles (PostgreSQL's is_member_of_role, which ignores INHERIT). `lookup`
/// finds a role by OID.
pub fn is_member_of<'a>(
    member: &'a RoleDef,
    role: RelId,
    lookup: &dyn Fn(RelId) -> Option<&'a RoleDef>,
) -> bool {
    let mut seen = vec![member.oid];
    let mut todo = vec![member];
    while let Some(r) = todo.pop() {
        if r.oid == role {
            return true;
        }
        for m in &r.member_of {
            if !seen.contains(&m.role) {
                seen.push(m.role);
                if let Some(next) = lookup(m.role) {
                    todo.push(next);
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        let mut r = RoleDef::superuser(RelId(10), "postgres");
        r.inherit = false;
        let mut back = RoleDef::new(RelId(10), "postgres");
        back.set_flags(r.flags());
        assert_eq!(back, r);
    }

    #[test]
    fn membership_is_transitive_and_cycle_safe() {
        let mut a = RoleDef::new(RelId(1), "a");
        let mut b = RoleDef::new(RelId(2), "b");
        let c = RoleDef::new(RelId(3), "c");
        let m = |role| Membership {
            role: RelId(role),
            grantor: RelId(10),
            admin: false,
        };
        a.member_of.push(m(2));
        b.member_of.push(m(3));
        b.member_of.push(m(1));
        let all = [a.clone(), b.clone(), c.clone()];
        let lookup = |oid: RelId| all.iter().find(|r| r.oid == oid);
        assert!(is_member_of(&all[0], RelId(3), &lookup));
        assert!(is_member_of(&all[0], RelId(1), &lookup));
        assert!(!is_member_of(&all[2], RelId(1), &lookup));
    }
}
