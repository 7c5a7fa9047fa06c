//! User-defined casts (CREATE CAST): PostgreSQL's pg_cast rows made by
//! users.
//!
//! A cast is keyed by its (source, target) type OIDs, at most one per
//! pair, and says how a value converts and where the binder may apply it
//! by itself. The state's `casts` map holds the user's; the built-in
//! conversions stay the value layer's (`nestor_types::cast`), and the
//! built-in pg_cast rows that say which pairs PostgreSQL has a cast for
//! are `nestor_types::cast_catalog`'s.
//!
//! ```text
//!   CREATE CAST (mood AS int4) WITH FUNCTION mood_rank(mood) AS ASSIGNMENT
//!     casts: (16390, 23) -> CastDef { oid 16395, Function(16393 "mood_rank"), Assignment }
//!   'sad'::mood::int4           binder: mood_rank('sad'::mood)
//!   INSERT INTO t(i) VALUES ('sad'::mood)    the same (assignment context)
//! ```
//!
//! Casts are changed like every other definition (`Change::PutCast` /
//! `DropCast`, undone on ROLLBACK, logged as `PutCast` / `DropCast`
//! records). Like enum types they live beside the namespaces, not in one,
//! and are not claimed: another session may see an uncommitted CREATE
//! CAST's cast (PostgreSQL would not), which only widens what it may
//! write.

use nestor_types::cast::Coercion;

/// How a cast converts (pg_cast.castmethod).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CastMethod {
    /// WITH FUNCTION: the user function of this OID (and name, to find it
    /// among its overloads).
    Function { oid: u32, name: String },
    /// WITH INOUT: the source's output function, then the target's input.
    InOut,
    /// WITHOUT FUNCTION: the value's bytes taken as the target type's.
    Binary,
}

impl CastMethod {
    /// pg_cast.castmethod.
    pub fn letter(&self) -> char {
        match self {
            CastMethod::Function { .. } => 'f',
            CastMethod::InOut => 'i',
            CastMethod::Binary => 'b',
        }
    }
}

/// One user cast (a pg_cast row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CastDef {
    pub oid: u32,
    pub source: u32,
    pub target: u32,
    pub method: CastMethod,
    /// Where it applies without being written: Implicit (AS IMPLICIT),
    /// Assignment (AS ASSIGNMENT) or Explicit (neither).
    pub context: Coercion,
}

/// pg_cast.castcontext of a cast's context.
pub fn context_letter(c: Coercion) -> char {
    match c {
        Coercion::Implicit => 'i',
        Coercion::Assignment => 'a',
        Coercion::Explicit => 'e',
    }
}
