//! GIN operator classes: which class a GIN index key uses, keyed by the
//! key's type (PostgreSQL's pg_opclass rows for `gin`).
//!
//! Each class says how a row's value becomes a set of GIN keys and which
//! operators the index can answer (the key extraction itself lives with
//! the SQL layer, `nestor_plan::select::gin`). The table is the single
//! place a new class is added: tsvector_ops (for `@@` on tsvector) slots
//! in as one more variant with its type in [`GinClass::default_for`] and
//! its name in [`GinClass::named`], and its key extraction in the plan
//! crate's `gin` module.

use nestor_types::datatype::DataType;

/// A GIN operator class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GinClass {
    /// jsonb's default: keys, elements and values (`@>`, `?`, `?|`, `?&`).
    JsonbOps,
    /// jsonb, non-default: hashed paths to leaves (`@>` only).
    JsonbPathOps,
    /// Any array's default: its elements (`&&`, `@>`, `<@`, `=`).
    ArrayOps,
}

impl GinClass {
    /// The class's pg_opclass.opcname.
    pub fn name(self) -> &'static str {
        match self {
            GinClass::JsonbOps => "jsonb_ops",
            GinClass::JsonbPathOps => "jsonb_path_ops",
            GinClass::ArrayOps => "array_ops",
        }
    }

    /// pg_opclass.oid (PostgreSQL 15's).
    pub fn oid(self) -> u32 {
        match self {
            GinClass::JsonbOps => 10090,
            GinClass::JsonbPathOps => 10091,
            GinClass::ArrayOps => 10064,
        }
    }

    /// pg_opfamily.oid (PostgreSQL 15's).
    pub fn family(self) -> u32 {
        match self {
            GinClass::JsonbOps => 4036,
            GinClass::JsonbPathOps => 4037,
            GinClass::ArrayOps => 2745,
        }
    }

    /// Whether it is its type's default class.
    pub fn is_default(self) -> bool {
        self != GinClass::JsonbPathOps
    }

    /// The record's byte for the class.
    pub fn code(self) -> u8 {
        match self {
            GinClass::JsonbOps => 0,
            GinClass::JsonbPathOps => 1,
            GinClass::ArrayOps => 2,
        }
    }

    pub fn from_code(c: u8) -> Option<GinClass> {
        Some(match c {
            0 => GinClass::JsonbOps,
            1 => GinClass::JsonbPathOps,
            2 => GinClass::ArrayOps,
            _ => return None,
        })
    }

    /// Every class, for pg_opclass.
    pub const ALL: [GinClass; 3] = [
        GinClass::ArrayOps,
        GinClass::JsonbOps,
        GinClass::JsonbPathOps,
    ];

    /// The default GIN class of a key type (None: the type has none,
    /// PostgreSQL's 42704).
    pub fn default_for(ty: DataType) -> Option<GinClass> {
        match ty {
            DataType::Jsonb => Some(GinClass::JsonbOps),
            t if t.is_array() => Some(GinClass::ArrayOps),
            _ => None,
        }
    }

    /// The class a key names (`(body jsonb_path_ops)`) if it exists.
    pub fn named(name: &str) -> Option<GinClass> {
        GinClass::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the class takes keys of type `ty`.
    pub fn accepts(self, ty: DataType) -> bool {
        match self {
            GinClass::JsonbOps | GinClass::JsonbPathOps => ty == DataType::Jsonb,
            GinClass::ArrayOps => ty.is_array(),
        }
    }
}
