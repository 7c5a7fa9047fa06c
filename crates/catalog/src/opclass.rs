//! User-defined operator classes and families (CREATE OPERATOR CLASS /
//! FAMILY): PostgreSQL's pg_opclass and pg_opfamily rows made by users,
//! with their members (pg_amop and pg_amproc rows).
//!
//! A family is a name per access method (btree or hash); a class belongs
//! to one family and says, for one input type, which operator serves each
//! strategy number and which function each support number. Nestor's
//! built-in types compare and hash one way each (the built-in default
//! classes are the value layer's), so a user class matters where a
//! partition key names it: a hash partition key element with a user class
//! is hashed by the class's support function 2 (`(type, int8) -> int8`,
//! PostgreSQL's extended hash function, called with the partition seed),
//! which the planner binds as a call of the user function
//! (`nestor_plan::select::partition`).
//!
//! ```text
//!   CREATE OPERATOR CLASS part_test_int4_ops FOR TYPE int4 USING hash AS
//!     OPERATOR 1 =, FUNCTION 2 part_hashint4_noop(int4, int8);
//!   opfamilies: 16400 -> { "part_test_int4_ops", hash }       (made with it)
//!   opclasses:  16401 -> { "part_test_int4_ops", hash, family 16400,
//!                          intype 23, operators [1 = (23,23) oid 96],
//!                          procs [2 part_hashint4_noop 16399 (23,23)] }
//!   PARTITION BY HASH (a part_test_int4_ops)   key element opclass 16401
//! ```
//!
//! Classes and families are kept by OID beside the namespaces (all in
//! `public`), changed like every other definition (`Change::PutOpClass`
//! ... undone on ROLLBACK, logged as `PutOpClass` ... records) and, like
//! casts, not claimed. A member names its function by OID and name; a
//! dropped function's member is gone (PostgreSQL drops the pg_amproc row
//! with the function): readers skip members whose function no longer
//! exists.

/// An index access method a class may be for (pg_am).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AccessMethod {
    Btree,
    Hash,
    /// GIN: a computed, multi-key index (`crate::gin`).
    Gin,
}

impl AccessMethod {
    /// pg_am.oid.
    pub fn oid(self) -> u32 {
        match self {
            AccessMethod::Btree => 403,
            AccessMethod::Hash => 405,
            AccessMethod::Gin => 2742,
        }
    }

    /// pg_am.amname.
    pub fn name(self) -> &'static str {
        match self {
            AccessMethod::Btree => "btree",
            AccessMethod::Hash => "hash",
            AccessMethod::Gin => "gin",
        }
    }

    pub fn from_name(name: &str) -> Option<AccessMethod> {
        match name {
            "btree" => Some(AccessMethod::Btree),
            "hash" => Some(AccessMethod::Hash),
            "gin" => Some(AccessMethod::Gin),
            _ => None,
        }
    }

    pub fn from_oid(oid: u32) -> Option<AccessMethod> {
        match oid {
            403 => Some(AccessMethod::Btree),
            405 => Some(AccessMethod::Hash),
            2742 => Some(AccessMethod::Gin),
            _ => None,
        }
    }

    /// The highest strategy number (amstrategies).
    pub fn strategies_max(self) -> i32 {
        match self {
            AccessMethod::Btree => 5,
            AccessMethod::Hash => 1,
            AccessMethod::Gin => 0,
        }
    }

    /// The highest support function number (amsupport).
    pub fn procs_max(self) -> i32 {
        match self {
            AccessMethod::Btree => 5,
            AccessMethod::Hash => 3,
            AccessMethod::Gin => 6,
        }
    }

    /// The options-parsing support function's number (amoptsprocnum).
    pub fn options_proc(self) -> i32 {
        match self {
            AccessMethod::Gin => 7,
            _ => self.procs_max(),
        }
    }
}

/// One operator family (a pg_opfamily row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpFamilyDef {
    pub oid: u32,
    pub name: String,
    pub am: AccessMethod,
    pub owner: u32,
}

/// An operator of a class (a pg_amop row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMember {
    pub oid: u32,
    /// The strategy number.
    pub number: i16,
    /// pg_operator.oid.
    pub opr: u32,
    pub left: u32,
    pub right: u32,
}

/// A support function of a class (a pg_amproc row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcMember {
    pub oid: u32,
    /// The support function number.
    pub number: i16,
    /// The user function's OID and name.
    pub func: u32,
    pub name: String,
    pub left: u32,
    pub right: u32,
}

/// One operator class (a pg_opclass row and its members).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpClassDef {
    pub oid: u32,
    pub name: String,
    pub am: AccessMethod,
    pub family: u32,
    /// The input type's OID (opcintype).
    pub intype: u32,
    pub default: bool,
    pub owner: u32,
    pub operators: Vec<OpMember>,
    pub procs: Vec<ProcMember>,
}
