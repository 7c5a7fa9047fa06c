//! Identifiers. Each is a newtype so that an XID can never be passed where a
//! commit sequence number is expected.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub $inner);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A 64-bit transaction id, assigned lazily to top-level transactions only
    /// (on the first write or row lock). Never wraps. `Xid(0)` means "none".
    Xid(u64)
);
id_type!(
    /// Commit sequence number: the position of a commit in the global commit
    /// order. A snapshot is the highest CSN it can see. `Csn(0)` means "not
    /// committed (yet)"; the first commit gets `Csn(1)`... after bootstrap.
    Csn(u64)
);
id_type!(
    /// Stable identity of a logical row inside one table; versions of the row
    /// hang off it. Also the `ctid` shown to clients (as `(row_id,1)`).
    RowId(u64)
);
id_type!(
    /// Relation (table, index, sequence) id; also its pg_class OID.
    RelId(u32)
);
id_type!(
    /// Nesting depth of the innermost open savepoint inside one transaction;
    /// 0 is the top level. Never leaves the transaction's own memory except as
    /// the second half of a row-lock owner.
    SavepointLevel(u32)
);
id_type!(
    /// Statement counter inside one transaction: a statement sees the effects
    /// of commands with a smaller id, never its own (no Halloween problem).
    CommandId(u32)
);
id_type!(
    /// A session (backend) id; also the "pid" shown in pg_stat_activity.
    SessionId(u32)
);
id_type!(
    /// Log sequence number: a byte position in the WAL (the start of a
    /// record, or the end of the log). Shown as PostgreSQL does, `X/Y`.
    Lsn(u64)
);

impl Lsn {
    /// PostgreSQL's text form of an LSN: high and low 32 bits in hex.
    pub fn pg_text(self) -> String {
        format!("{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }

    /// Parse PostgreSQL's text form `X/Y` (hex), as START_REPLICATION
    /// and pg_lsn input take it.
    pub fn parse_pg(text: &str) -> Option<Lsn> {
        let (hi, lo) = text.split_once('/')?;
        let valid = |s: &str| !s.is_empty() && s.len() <= 8;
        if !valid(hi) || !valid(lo) {
            return None;
        }
        let hi = u64::from_str_radix(hi, 16).ok()?;
        let lo = u64::from_str_radix(lo, 16).ok()?;
        Some(Lsn(hi << 32 | lo))
    }

    /// The position `bytes` further on.
    pub fn advance(self, bytes: u64) -> Lsn {
        Lsn(self
            .0
            .checked_add(bytes)
            .expect("LSNs do not overflow 64 bits"))
    }
}

impl Xid {
    pub const NONE: Xid = Xid(0);
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

impl Csn {
    pub const NONE: Csn = Csn(0);
    /// The horizon of an empty database: everything bootstrapped is at CSN 1.
    pub const BOOTSTRAP: Csn = Csn(1);
}
