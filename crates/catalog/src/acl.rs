//! Object ownership and privileges: PostgreSQL's owner column and ACL
//! (`relacl`, `proacl`, `nspacl`) of each object, kept by the object's
//! (catalog OID, object OID) key beside the definitions, as comments are.
//!
//! An object with no entry belongs to the bootstrap superuser and has the
//! default ACL (PostgreSQL's NULL acl, `acldefault`): the owner holds every
//! privilege of the object's kind, and PUBLIC holds EXECUTE on functions.
//! The `public` schema is owned by pg_database_owner with PostgreSQL 15's
//! initial ACL (USAGE for PUBLIC, no CREATE). GRANT, REVOKE and OWNER TO
//! replace the entry ([`crate::Change::SetAcl`], logged as a `SetAcl`
//! record); CREATE by a role other than the bootstrap superuser records
//! that role as the owner.
//!
//! ```text
//!   acls: (1259, 16390) -> ObjAcl { owner 16385 (alice),
//!                                   acl [alice=arwdDxt/alice, bob=r/alice] }
//!   relacl text: {alice=arwdDxt/alice,bob=r/alice}   (aclitem[] output)
//! ```
//!
//! A check ([`ObjAcl::allows`]) grants a privilege to a role that holds it
//! through an item for itself, for PUBLIC, or for a role whose privileges it
//! has (membership with INHERIT, PostgreSQL's has_privs_of_role); a
//! superuser passes every check before any of this is looked at. ALTER
//! DEFAULT PRIVILEGES entries (pg_default_acl) are kept beside these,
//! by (role, schema, object type), and give a new object its first ACL
//! (`exec/src/ddl/default_acl.rs`).
//!
//! Column privileges (PostgreSQL's `pg_attribute.attacl`) live in the
//! table's entry, by attribute number ([`ObjAcl::cols`]): a column's ACL
//! has no default (NULL: nobody holds anything through the column), and
//! GRANT SELECT (a) writes the table's entry again, so column ACLs take
//! the table ACLs' path through the WAL, checkpoints and recovery.
//!
//! ```text
//!   GRANT SELECT (a), UPDATE (b) ON t TO bob
//!     (1259, 16390) -> ObjAcl { owner, acl None,
//!                               cols [(1, [bob=r/postgres]), (2, [bob=w/postgres])] }
//! ```
//!
//! A statement lacking a table privilege may still run on column
//! privileges (`exec/src/privilege.rs`, PostgreSQL's ExecCheckRTEPerms).
//! Left out: databases' ACLs.

use nestor_common::RelId;

/// pg_class: tables, views, sequences.
pub const CLASS_RELATION: u32 = 1259;
/// pg_proc: functions and procedures.
pub const CLASS_PROC: u32 = 1255;
/// pg_namespace: schemas.
pub const CLASS_NAMESPACE: u32 = 2615;

/// pg_database_owner (the `public` schema's owner).
pub const DATABASE_OWNER_ROLE_OID: u32 = 6171;

/// Privilege bits, PostgreSQL's ACL_* values.
pub const INSERT: u16 = 1 << 0;
pub const SELECT: u16 = 1 << 1;
pub const UPDATE: u16 = 1 << 2;
pub const DELETE: u16 = 1 << 3;
pub const TRUNCATE: u16 = 1 << 4;
pub const REFERENCES: u16 = 1 << 5;
pub const TRIGGER: u16 = 1 << 6;
pub const EXECUTE: u16 = 1 << 7;
pub const USAGE: u16 = 1 << 8;
pub const CREATE: u16 = 1 << 9;
/// What a column's ACL may hold (PostgreSQL's ACL_ALL_RIGHTS_COLUMN).
pub const COLUMN_ALL: u16 = INSERT | SELECT | UPDATE | REFERENCES;

/// aclitem letters in PostgreSQL's order, bit i -> letter i.
const LETTERS: &[u8] = b"arwdDxtXUC";

/// What kind of object an ACL belongs to (its privileges and default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjKind {
    Table,
    Sequence,
    Function,
    Schema,
}

impl ObjKind {
    /// Every privilege the kind has (ALL PRIVILEGES).
    pub fn all(self) -> u16 {
        match self {
            ObjKind::Table => INSERT | SELECT | UPDATE | DELETE | TRUNCATE | REFERENCES | TRIGGER,
            ObjKind::Sequence => SELECT | UPDATE | USAGE,
            ObjKind::Function => EXECUTE,
            ObjKind::Schema => USAGE | CREATE,
        }
    }

    pub fn class(self) -> u32 {
        match self {
            ObjKind::Table | ObjKind::Sequence => CLASS_RELATION,
            ObjKind::Function => CLASS_PROC,
            ObjKind::Schema => CLASS_NAMESPACE,
        }
    }
}

/// One aclitem: `grantee=privs/grantor` (grantee 0 is PUBLIC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AclItem {
    pub grantee: u32,
    pub grantor: u32,
    pub privs: u16,
    /// Privileges held WITH GRANT OPTION (a subset of `privs`).
    pub grant_option: u16,
}

/// The owner and ACL of one object. `acl` None is PostgreSQL's NULL ACL:
/// the kind's default for the owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjAcl {
    pub owner: RelId,
    pub acl: Option<Vec<AclItem>>,
    /// A table's or view's column ACLs, by attribute number (ascending,
    /// none empty): PostgreSQL's non-NULL `attacl`s.
    pub cols: Vec<(i16, Vec<AclItem>)>,
}

impl ObjAcl {
    /// The entry of an object nobody changed.
    pub fn default_for(kind: ObjKind, oid: u32) -> ObjAcl {
        if kind == ObjKind::Schema && oid == crate::PUBLIC_NAMESPACE_OID {
            let owner = DATABASE_OWNER_ROLE_OID;
            return ObjAcl {
                owner: RelId(owner),
                acl: Some(vec![
                    AclItem {
                        grantee: owner,
                        grantor: owner,
                        privs: USAGE | CREATE,
                        grant_option: 0,
                    },
                    AclItem {
                        grantee: 0,
                        grantor: owner,
                        privs: USAGE,
                        grant_option: 0,
                    },
                ]),
                cols: Vec::new(),
            };
        }
        ObjAcl {
            owner: RelId(crate::role::BOOTSTRAP_SUPERUSER_OID),
            acl: None,
            cols: Vec::new(),
        }
    }

    /// The ACL in force: the stored one or the kind's default
    /// (acldefault): the owner holds everything, PUBLIC
    /// may execute functions and use the system schemas.
    pub fn effective(&self, kind: ObjKind) -> Vec<AclItem> {
        if let Some(a) = &self.acl {
            return a.clone();
        }
        let owner = self.owner.0;
        // The owner's grant options are implicit (it may always grant).
        let mut items = vec![AclItem {
            grantee: owner,
            grantor: owner,
            privs: kind.all(),
            grant_option: 0,
        }];
        if kind == ObjKind::Function {
            // PUBLIC first, as acldefault('f', owner) lists them.
            items.insert(
                0,
                AclItem {
                    grantee: 0,
                    grantor: owner,
                    privs: EXECUTE,
                    grant_option: 0,
                },
            );
        }
        items
    }

    /// Whether a role holds all of `privs` (`has_privs_of(grantee)`: the
    /// role is the grantee or inherits its privileges). Ownership grants
    /// nothing by itself beyond what the ACL lists, as in PostgreSQL.
    pub fn allows(&self, kind: ObjKind, privs: u16, has_privs_of: &dyn Fn(u32) -> bool) -> bool {
        let held = self
            .effective(kind)
            .iter()
            .filter(|i| i.grantee == 0 || has_privs_of(i.grantee))
            .fold(0u16, |acc, i| acc | i.privs);
        held & privs == privs
    }

    /// Column `attnum`'s ACL (empty: NULL, nothing granted on it).
    pub fn column(&self, attnum: i16) -> &[AclItem] {
        self.cols
            .iter()
            .find(|(a, _)| *a == attnum)
            .map_or(&[], |(_, items)| items.as_slice())
    }

    /// Replace column `attnum`'s ACL (empty: removed), keeping `cols`
    /// ordered.
    pub fn set_column(&mut self, attnum: i16, items: Vec<AclItem>) {
        self.cols.retain(|(a, _)| *a != attnum);
        if !items.is_empty() {
            let at = self.cols.partition_point(|(a, _)| *a < attnum);
            self.cols.insert(at, (attnum, items));
        }
    }

    /// The privileges a role holds through column `attnum`'s ACL alone
    /// (PostgreSQL's pg_attribute_aclmask without the table's).
    pub fn column_privs(&self, attnum: i16, has_privs_of: &dyn Fn(u32) -> bool) -> u16 {
        self.column(attnum)
            .iter()
            .filter(|i| i.grantee == 0 || has_privs_of(i.grantee))
            .fold(0u16, |acc, i| acc | i.privs)
    }
}

/// Add `add`'s privileges and grant options to the item of the same
/// grantee and grantor, or append it (PostgreSQL's aclupdate with
/// ACL_MODECHG_ADD, and aclmerge).
pub fn merge_item(items: &mut Vec<AclItem>, add: AclItem) {
    match items
        .iter_mut()
        .find(|i| i.grantee == add.grantee && i.grantor == add.grantor)
    {
        Some(i) => {
            i.privs |= add.privs;
            i.grant_option |= add.grant_option;
        }
        None => items.push(add),
    }
}

/// aclitem output: `grantee=privs/grantor`, names from `name`, PUBLIC as
/// an empty grantee, `*` after a privilege held with grant option.
pub fn item_text(i: &AclItem, name: &dyn Fn(u32) -> String) -> String {
    let mut s = if i.grantee == 0 {
        String::new()
    } else {
        quote_role(&name(i.grantee))
    };
    s.push('=');
    for (bit, &letter) in LETTERS.iter().enumerate() {
        if i.privs & (1 << bit) != 0 {
            s.push(letter as char);
            if i.grant_option & (1 << bit) != 0 {
                s.push('*');
            }
        }
    }
    s.push('/');
    s.push_str(&quote_role(&name(i.grantor)));
    s
}

/// A role name as aclitem prints it (double-quoted unless plain).
pub fn quote_role(n: &str) -> String {
    let plain = !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        n.to_string()
    } else {
        format!("\"{}\"", n.replace('"', "\"\""))
    }
}

/// The privilege bit of a GRANT keyword (`select`, `insert`, ...).
pub fn privilege_bit(word: &str) -> Option<u16> {
    Some(match word {
        "insert" => INSERT,
        "select" => SELECT,
        "update" => UPDATE,
        "delete" => DELETE,
        "truncate" => TRUNCATE,
        "references" => REFERENCES,
        "trigger" => TRIGGER,
        "execute" => EXECUTE,
        "usage" => USAGE,
        "create" => CREATE,
        _ => return None,
    })
}

/// The keyword of a privilege bit, for messages.
pub fn privilege_name(bit: u16) -> &'static str {
    match bit {
        INSERT => "INSERT",
        SELECT => "SELECT",
        UPDATE => "UPDATE",
        DELETE => "DELETE",
        TRUNCATE => "TRUNCATE",
        REFERENCES => "REFERENCES",
        TRIGGER => "TRIGGER",
        EXECUTE => "EXECUTE",
        USAGE => "USAGE",
        _ => "CREATE",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(o: u32) -> String {
        match o {
            10 => "postgres".into(),
            20 => "Bob".into(),
            _ => "alice".into(),
        }
    }

    #[test]
    fn items_print_as_postgresql_does() {
        let i = AclItem {
            grantee: 20,
            grantor: 10,
            privs: SELECT | INSERT | UPDATE,
            grant_option: SELECT,
        };
        assert_eq!(item_text(&i, &names), "\"Bob\"=ar*w/postgres");
        let public = AclItem {
            grantee: 0,
            grantor: 30,
            privs: EXECUTE,
            grant_option: 0,
        };
        assert_eq!(item_text(&public, &names), "=X/alice");
    }

    #[test]
    fn defaults_and_checks() {
        let mut table = ObjAcl {
            owner: RelId(30),
            acl: None,
            cols: Vec::new(),
        };
        let is = |who: u32| move |g: u32| g == who;
        assert!(table.allows(ObjKind::Table, SELECT | DELETE, &is(30)));
        assert!(!table.allows(ObjKind::Table, SELECT, &is(20)));
        let bob = AclItem {
            grantee: 20,
            grantor: 30,
            privs: SELECT,
            grant_option: 0,
        };
        table.set_column(3, vec![bob]);
        table.set_column(1, vec![bob]);
        assert_eq!(table.column_privs(3, &is(20)), SELECT);
        assert_eq!(table.column_privs(2, &is(20)), 0);
        table.set_column(3, Vec::new());
        assert_eq!(table.cols.len(), 1);
        let func = ObjAcl::default_for(ObjKind::Function, 99);
        assert!(func.allows(ObjKind::Function, EXECUTE, &is(20)));
        let public = ObjAcl::default_for(ObjKind::Schema, crate::PUBLIC_NAMESPACE_OID);
        assert!(public.allows(ObjKind::Schema, USAGE, &is(20)));
        assert!(!public.allows(ObjKind::Schema, CREATE, &is(20)));
        assert!(public.allows(ObjKind::Schema, CREATE, &is(DATABASE_OWNER_ROLE_OID)));
    }
}
