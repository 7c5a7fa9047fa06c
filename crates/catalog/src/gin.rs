//! GIN operator classes: which class a GIN index key uses, keyed by the
//! key's type (PostgreSQL's pg_opclass rows for `gin`).
//!
//! Each class says how a row's value becomes a set of GIN keys and which
//! operators the index can answer (the key extraction itself lives with
//! the SQL layer, `nestor_plan::select::gin`). The table is the single
//! place a class is added (a variant, its type in
//! [`GinClass::default_for`], its name in [`GinClass::named`]), with its
//! key extraction in the plan crate's `gin` module.

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
    /// tsvector's default: its lexemes (`@@`).
    TsvectorOps,
}

impl GinClass {
    /// The class's pg_opclass.opcname.
    pub fn name(self) -> &'static str {
        match self {
            GinClass::JsonbOps => "jsonb_ops",
            GinClass::JsonbPathOps => "jsonb_path_ops",
            GinClass::ArrayOps => "array_ops",
            GinClass::TsvectorOps => "tsvector_ops",
        }
    }

    /// pg_opclass.oid (PostgreSQL 15's).
    pub fn oid(self) -> u32 {
        match self {
            GinClass::JsonbOps => 10090,
            GinClass::JsonbPathOps => 10091,
            GinClass::ArrayOps => 10064,
            GinClass::TsvectorOps => 10073,
        }
    }

    /// pg_opfamily.oid (PostgreSQL 15's).
    pub fn family(self) -> u32 {
        match self {
            GinClass::JsonbOps => 4036,
            GinClass::JsonbPathOps => 4037,
            GinClass::ArrayOps => 2745,
            GinClass::TsvectorOps => 3659,
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
            GinClass::TsvectorOps => 3,
        }
    }

    pub fn from_code(c: u8) -> Option<GinClass> {
        Some(match c {
            0 => GinClass::JsonbOps,
            1 => GinClass::JsonbPathOps,
            2 => GinClass::ArrayOps,
            3 => GinClass::TsvectorOps,
            _ => return None,
        })
    }

    /// Every class, for pg_opclass.
    pub const ALL: [GinClass; 4] = [
        GinClass::ArrayOps,
        GinClass::JsonbOps,
        GinClass::JsonbPathOps,
        GinClass::TsvectorOps,
    ];

    /// The default GIN class of a key type (None: the type has none,
    /// PostgreSQL's 42704).
    pub fn default_for(ty: DataType) -> Option<GinClass> {
        match ty {
            DataType::Jsonb => Some(GinClass::JsonbOps),
            DataType::TsVector => Some(GinClass::TsvectorOps),
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
            GinClass::TsvectorOps => ty == DataType::TsVector,
        }
    }
}
