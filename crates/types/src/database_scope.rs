//! Which database the current thread works for, for the name registries
//! of user types.
//!
//! Enum types and domains are mirrored into process-wide registries
//! ([`crate::enums`], [`crate::domains`]) so that a type name resolves
//! without a catalog handle (`DataType::from_sql_name`). Each database has
//! its own types (as in PostgreSQL: pg_type is per database), so a name
//! resolves only among the types of the database the thread is working
//! for: the session's thread runs its statements inside
//! [`with_database`], and every other thread (recovery, background work,
//! tests) works for `postgres`. Lookups by OID need no scope: OIDs are
//! unique across the cluster.

use std::cell::Cell;

/// OID of the `postgres` database (as in PostgreSQL).
pub const POSTGRES_DATABASE_OID: u32 = 5;

thread_local! {
    static CURRENT: Cell<u32> = const { Cell::new(POSTGRES_DATABASE_OID) };
}

/// The database the current thread works for.
pub fn current() -> u32 {
    CURRENT.with(|c| c.get())
}

/// Run `f` working for database `oid` (restored afterwards, also when `f`
/// unwinds).
pub fn with_database<R>(oid: u32, f: impl FnOnce() -> R) -> R {
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(oid)));
    f()
}
