//! SQL data types: names, OIDs, typmods and wire metadata.
//!
//! [`DataType`] is the planner's static type of an expression or column.
//! It carries the type modifier where PostgreSQL's does (`varchar(n)`,
//! `char(n)`, `numeric(p,s)`), so casts and column coercions can apply it.
//! The wire protocol needs three numbers per column: the type OID
//! ([`DataType::oid`]), `typlen` ([`DataType::typlen`], RowDescription's
//! type size) and the typmod ([`DataType::typmod`], encoded as PostgreSQL
//! does: `varchar(n)` is `n + 4`, `numeric(p,s)` is `((p << 16) | s) + 4`).
//!
//! [`DataType::from_sql_name`] accepts the type names and aliases of
//! PostgreSQL's grammar, lower-cased, with multi-word names separated by
//! single spaces (`double precision`, `character varying`, `timestamp with
//! time zone`). `serial`/`bigserial` are the caller's business (they are a
//! column default, not a type). `json` is rejected with 0A000 rather than
//! silently mapped to `jsonb`, because the two differ visibly (json keeps
//! the input text, key order and duplicates).
//!
//! Pseudo types: `Unknown` is an untyped string literal (or bare `NULL`)
//! whose type is decided by context; it resolves to `text` when nothing
//! else decides ([`DataType::resolve_unknown`]), as PostgreSQL does in a
//! select list. `Oid` and `Name` exist for catalog queries: an oid value is
//! a `Value::Int8` in 0..=u32::MAX, a name is a `Value::Text`.

use std::fmt;

use crate::geometry::GeoKind;
use crate::interval_typmod::IntervalMod;
use crate::range::RangeKind;

use nestor_common::{DbError, SqlState};

/// Precision and scale of `numeric(p, s)` (PostgreSQL 15 allows a scale
/// from -1000 to 1000, also above the precision).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NumericMod {
    pub precision: u32,
    pub scale: i32,
}

/// A SQL data type (with its type modifier, where it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    Bool,
    Int2,
    Int4,
    Int8,
    Float4,
    Float8,
    /// `numeric` (None: unconstrained) or `numeric(p, s)`.
    Numeric(Option<NumericMod>),
    Text,
    /// `varchar` (None: unlimited) or `varchar(n)`.
    Varchar(Option<u32>),
    /// `char(n)`, blank-padded; None is `bpchar` without a length.
    Char(Option<u32>),
    Bytea,
    Date,
    /// `timestamp` and `timestamptz` with their fractional-second
    /// precision (None: unconstrained, 6).
    Timestamp(Option<u32>),
    TimestampTz(Option<u32>),
    /// `time` (without time zone) with its fractional-second precision
    /// (None: 6, unconstrained); values are `Value::Time`.
    Time(Option<u32>),
    /// `time with time zone` with its fractional-second precision (None:
    /// 6, unconstrained); values are `Value::TimeTz` (see [`crate::timetz`]).
    TimeTz(Option<u32>),
    /// `money`: a count of cents (values are `Value::Money`, see
    /// [`crate::money`]).
    Money,
    /// `interval`, with its fields and precision (`interval day to
    /// second(2)`) when restricted.
    Interval(Option<IntervalMod>),
    Uuid,
    /// `pg_lsn`: a WAL position (values are `Value::PgLsn`).
    PgLsn,
    /// `bit(n)` (None: `bit` without a length, as a function's result)
    /// and `bit varying(n)` / `varbit` (None: unlimited); values are
    /// `Value::Bits`, see [`crate::bits`].
    Bit(Option<u32>),
    VarBit(Option<u32>),
    Jsonb,
    /// `json`: the input text kept as it was written (values are
    /// `Value::Text`, checked to be JSON).
    Json,
    /// `jsonpath`: values are `Value::Text` holding the path's normalised
    /// text ([`crate::jsonpath`]).
    JsonPath,
    /// `tsvector` and `tsquery` (values are `Value::TsVector` /
    /// `Value::TsQuery`, see [`crate::tsearch`]).
    TsVector,
    TsQuery,
    /// Catalog object identifier (values are `Value::Int8`).
    Oid,
    /// Catalog name, 63 bytes max (values are `Value::Text`).
    Name,
    /// An untyped literal or NULL whose type is not known yet.
    Unknown,
    /// The result of a function that returns nothing (pg_sleep,
    /// pg_advisory_lock): a non-NULL value printed as '' (values are
    /// `Value::Text("")`).
    Void,
    /// An array of the element type (one of [`ARRAY_ELEMENTS`]; values
    /// are `Value::Array`, see [`crate::array`]). A column's or cast's
    /// type may carry the element's modifier (`char(5)[]`, from
    /// [`DataType::array_keeping_typmod`]); values never do.
    Array(&'static DataType),
    /// The catalog's `int2vector` and `oidvector` (index keys, argument
    /// types): one-dimensional from 0, printed space-separated (values are
    /// `Value::Array` with `vector` set).
    Int2Vector,
    OidVector,
    /// An object identifier shown by name: regclass, regtype,
    /// regnamespace, regproc (values are `Value::Int8` like oid; the
    /// name lookup needs the catalog, so it is the executor's).
    Reg(RegKind),
    /// An anonymous record (`record`, OID 2249) of the given fields: what a
    /// function with OUT arguments returns per row when called in an
    /// expression (values are `Value::Record`). Its fields are selected
    /// with `(expr).field`.
    Record(&'static RecordType),
    /// A user-defined enum type, by its pg_type OID (values are
    /// `Value::Enum`; labels and names live in [`crate::enums`]).
    Enum(u32),
    /// A polymorphic pseudo-type (`anyelement`, `anyarray`, ...): only a
    /// user function's declared argument or result type. No value has it:
    /// each call resolves it to a concrete type (plan's
    /// `bind/polymorphic.rs`), and SQL names it only in CREATE FUNCTION
    /// ([`Poly::from_name`]), never as a column's or a cast's type.
    Poly(Poly),
    /// A geometric type (`point`, `lseg`, `line`, `box`, `path`,
    /// `polygon`, `circle`; values are `Value::Geo`, see
    /// [`crate::geometry`]).
    Geo(GeoKind),
    /// A built-in range type (`int4range`, `numrange`, ...; values are
    /// `Value::Range`, see [`crate::range`]).
    Range(RangeKind),
}

/// The polymorphic pseudo-types (PostgreSQL's "Polymorphic Types"):
/// the `any*` family resolves to one element type shared by all its
/// arguments, the `anycompatible*` family to the common type of its
/// arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Poly {
    AnyElement,
    AnyArray,
    AnyNonArray,
    AnyEnum,
    AnyCompatible,
    AnyCompatibleArray,
    AnyCompatibleNonArray,
    /// `anyrange`: a range type whose subtype is the `anyelement` type.
    AnyRange,
    /// `anycompatiblerange`: a range type whose subtype is the
    /// `anycompatible` type.
    AnyCompatibleRange,
}

impl Poly {
    const ALL: [Poly; 9] = [
        Poly::AnyElement,
        Poly::AnyArray,
        Poly::AnyNonArray,
        Poly::AnyEnum,
        Poly::AnyCompatible,
        Poly::AnyCompatibleArray,
        Poly::AnyCompatibleNonArray,
        Poly::AnyRange,
        Poly::AnyCompatibleRange,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Poly::AnyElement => "anyelement",
            Poly::AnyArray => "anyarray",
            Poly::AnyNonArray => "anynonarray",
            Poly::AnyEnum => "anyenum",
            Poly::AnyCompatible => "anycompatible",
            Poly::AnyCompatibleArray => "anycompatiblearray",
            Poly::AnyCompatibleNonArray => "anycompatiblenonarray",
            Poly::AnyRange => "anyrange",
            Poly::AnyCompatibleRange => "anycompatiblerange",
        }
    }

    /// pg_type's OID.
    pub fn oid(self) -> u32 {
        match self {
            Poly::AnyElement => 2283,
            Poly::AnyArray => 2277,
            Poly::AnyNonArray => 2776,
            Poly::AnyEnum => 3500,
            Poly::AnyCompatible => 5077,
            Poly::AnyCompatibleArray => 5078,
            Poly::AnyCompatibleNonArray => 5079,
            Poly::AnyRange => 3831,
            Poly::AnyCompatibleRange => 5080,
        }
    }

    pub fn from_oid(oid: u32) -> Option<Poly> {
        Poly::ALL.into_iter().find(|p| p.oid() == oid)
    }

    /// The pseudo-type a (lower-case, unqualified) type name names.
    pub fn from_name(name: &str) -> Option<Poly> {
        Poly::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether it belongs to the `anycompatible` family.
    pub fn is_compatible(self) -> bool {
        matches!(
            self,
            Poly::AnyCompatible
                | Poly::AnyCompatibleArray
                | Poly::AnyCompatibleNonArray
                | Poly::AnyCompatibleRange
        )
    }

    /// Whether it stands for an array (`anyarray`, `anycompatiblearray`).
    pub fn is_array(self) -> bool {
        matches!(self, Poly::AnyArray | Poly::AnyCompatibleArray)
    }
}

/// The fields of a record type, by name and type. Interned
/// ([`record_type`]): one `&'static` per distinct shape, so [`DataType`]
/// stays `Copy`; the shapes come from function definitions, so there are
/// few.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RecordType {
    /// The pg_type OID of a named composite type ([`crate::composites`]);
    /// 0 for an anonymous record.
    pub oid: u32,
    pub fields: Vec<(String, DataType)>,
}

impl RecordType {
    /// The position of the field `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }
}

/// The interned record type of these fields.
pub fn record_type(fields: Vec<(String, DataType)>) -> &'static RecordType {
    named_record_type(0, fields)
}

/// The interned record type of composite type `oid` with these fields
/// (`oid` 0: anonymous).
pub fn named_record_type(oid: u32, fields: Vec<(String, DataType)>) -> &'static RecordType {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static SHAPES: OnceLock<Mutex<HashSet<&'static RecordType>>> = OnceLock::new();
    let shape = RecordType { oid, fields };
    let mut set = SHAPES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(t) = set.get(&shape) {
        return t;
    }
    let t: &'static RecordType = Box::leak(Box::new(shape));
    set.insert(t);
    t
}

/// Which catalog a reg* type names into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegKind {
    Class,
    Type,
    Namespace,
    Proc,
    Role,
    /// regconfig: a text search configuration ([`crate::tsearch::config`]).
    Config,
    /// regdictionary: a text search dictionary.
    Dictionary,
}

impl RegKind {
    pub fn name(self) -> &'static str {
        match self {
            RegKind::Class => "regclass",
            RegKind::Type => "regtype",
            RegKind::Namespace => "regnamespace",
            RegKind::Proc => "regproc",
            RegKind::Role => "regrole",
            RegKind::Config => "regconfig",
            RegKind::Dictionary => "regdictionary",
        }
    }

    fn oid(self) -> u32 {
        match self {
            RegKind::Class => 2205,
            RegKind::Type => 2206,
            RegKind::Namespace => 4089,
            RegKind::Proc => 24,
            RegKind::Role => 4096,
            RegKind::Config => 3734,
            RegKind::Dictionary => 3769,
        }
    }

    const ALL: [RegKind; 7] = [
        RegKind::Class,
        RegKind::Type,
        RegKind::Namespace,
        RegKind::Proc,
        RegKind::Role,
        RegKind::Config,
        RegKind::Dictionary,
    ];
}

/// The element types arrays exist for, each with its array type's OID and
/// name (pg_type.typarray).
pub static ARRAY_ELEMENTS: [(DataType, u32, &str); 42] = [
    (DataType::Bool, 1000, "boolean[]"),
    (DataType::Bytea, 1001, "bytea[]"),
    (DataType::Name, 1003, "name[]"),
    (DataType::Int2, 1005, "smallint[]"),
    (DataType::Int4, 1007, "integer[]"),
    (DataType::Text, 1009, "text[]"),
    (DataType::Char(None), 1014, "bpchar[]"),
    (DataType::Varchar(None), 1015, "character varying[]"),
    (DataType::Int8, 1016, "bigint[]"),
    (DataType::Float4, 1021, "real[]"),
    (DataType::Float8, 1022, "double precision[]"),
    (DataType::Oid, 1028, "oid[]"),
    (
        DataType::Timestamp(None),
        1115,
        "timestamp without time zone[]",
    ),
    (DataType::Date, 1182, "date[]"),
    (
        DataType::TimestampTz(None),
        1185,
        "timestamp with time zone[]",
    ),
    (DataType::Interval(None), 1187, "interval[]"),
    (DataType::Time(None), 1183, "time without time zone[]"),
    (DataType::TimeTz(None), 1270, "time with time zone[]"),
    (DataType::Money, 791, "money[]"),
    (DataType::Numeric(None), 1231, "numeric[]"),
    (DataType::Uuid, 2951, "uuid[]"),
    (DataType::PgLsn, 3221, "pg_lsn[]"),
    (DataType::Bit(None), 1561, "bit[]"),
    (DataType::VarBit(None), 1563, "bit varying[]"),
    (DataType::Jsonb, 3807, "jsonb[]"),
    (DataType::Json, 199, "json[]"),
    (DataType::JsonPath, 4073, "jsonpath[]"),
    (DataType::Reg(RegKind::Proc), 1008, "regproc[]"),
    (DataType::Reg(RegKind::Class), 2210, "regclass[]"),
    (DataType::Reg(RegKind::Type), 2211, "regtype[]"),
    (DataType::Reg(RegKind::Namespace), 4090, "regnamespace[]"),
    (DataType::Reg(RegKind::Config), 3735, "regconfig[]"),
    (DataType::Reg(RegKind::Dictionary), 3770, "regdictionary[]"),
    (DataType::TsVector, 3643, "tsvector[]"),
    (DataType::TsQuery, 3645, "tsquery[]"),
    (DataType::Geo(GeoKind::Point), 1017, "point[]"),
    (DataType::Geo(GeoKind::Lseg), 1018, "lseg[]"),
    (DataType::Geo(GeoKind::Path), 1019, "path[]"),
    (DataType::Geo(GeoKind::Box), 1020, "box[]"),
    (DataType::Geo(GeoKind::Polygon), 1027, "polygon[]"),
    (DataType::Geo(GeoKind::Line), 629, "line[]"),
    (DataType::Geo(GeoKind::Circle), 719, "circle[]"),
];

fn array_entry(t: DataType) -> Option<&'static (DataType, u32, &'static str)> {
    array_types().find(|e| e.0 == t)
}

/// Every built-in array type: [`ARRAY_ELEMENTS`] and the range types'
/// ([`crate::range::ARRAY_TYPES`]).
pub fn array_types() -> impl Iterator<Item = &'static (DataType, u32, &'static str)> {
    ARRAY_ELEMENTS
        .iter()
        .chain(crate::range::ARRAY_TYPES.iter())
}

/// Distinct element types with a modifier that arrays may name
/// (`char(5)[]`, `numeric(4,1)[]`): each is interned once for the life of
/// the process (never freed), so their number is bounded.
pub const TYPED_ARRAY_ELEMENTS_MAX: usize = 65_536;

/// The `'static` element of an array type whose element carries a
/// modifier: found, or interned while fewer than
/// [`TYPED_ARRAY_ELEMENTS_MAX`] are (else 54000).
fn intern_element(t: DataType) -> Result<&'static DataType, DbError> {
    static TABLE: std::sync::Mutex<Vec<&'static DataType>> = std::sync::Mutex::new(Vec::new());
    let mut table = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = table.iter().find(|e| ***e == t) {
        return Ok(e);
    }
    if table.len() >= TYPED_ARRAY_ELEMENTS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "too many distinct array element type modifiers (at most {TYPED_ARRAY_ELEMENTS_MAX})"
            ),
        ));
    }
    let e: &'static DataType = Box::leak(Box::new(t));
    table.push(e);
    Ok(e)
}

/// Longest varchar/char length PostgreSQL accepts.
pub(crate) const MAX_CHAR_LEN: i64 = 10_485_760;

fn invalid_param(msg: String) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

impl DataType {
    /// Unconstrained numeric.
    pub const NUMERIC: DataType = DataType::Numeric(None);

    /// The array type of this element type (its modifier dropped), None
    /// for types without one (arrays, unknown, void). An unknown literal's
    /// array is text[].
    pub fn array_of(self) -> Option<DataType> {
        let t = self.resolve_unknown();
        if let DataType::Enum(oid) = t {
            return crate::enums::element(oid).map(DataType::Array);
        }
        // A named composite's array is its pg_type.typarray; an anonymous
        // record's is `record[]` (2287), its elements keeping their fields
        // (a SEARCH/CYCLE path: `ARRAY[ROW(f, t)]`).
        if let DataType::Record(rt) = t {
            return Some(DataType::Array(crate::composites::element(rt)));
        }
        array_entry(t)
            .or_else(|| array_entry(t.base()))
            .map(|e| DataType::Array(&e.0))
    }

    /// The array type of this element type keeping its modifier
    /// (`character(5)[]`, a column's declared type), as PostgreSQL keeps
    /// the element's typmod in the array column's atttypmod.
    /// A new element modifier past [`TYPED_ARRAY_ELEMENTS_MAX`] is 54000.
    pub fn array_keeping_typmod(self) -> Result<Option<DataType>, DbError> {
        let Some(array) = self.array_of() else {
            return Ok(None);
        };
        if self.typmod() < 0 || matches!(self, DataType::Array(_)) {
            return Ok(Some(array));
        }
        intern_element(self).map(|e| Some(DataType::Array(e)))
    }

    /// The type with its modifier dropped (unlike [`DataType::base`], a
    /// reg* type stays itself); an array's element loses its modifier.
    pub fn without_typmod(self) -> DataType {
        match self {
            DataType::Reg(_) => self,
            DataType::Array(e) if e.typmod() >= 0 => e.without_typmod().array_of().unwrap_or(self),
            t => t.base(),
        }
    }

    /// The element type of an array type.
    pub fn element(self) -> Option<DataType> {
        match self {
            DataType::Array(e) => Some(*e),
            DataType::Int2Vector => Some(DataType::Int2),
            DataType::OidVector => Some(DataType::Oid),
            _ => None,
        }
    }

    /// An array type, or int2vector/oidvector (which subscript like one).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            DataType::Array(_) | DataType::Int2Vector | DataType::OidVector
        )
    }

    /// PostgreSQL's type OID.
    pub fn oid(self) -> u32 {
        use DataType::*;
        match self {
            Array(Enum(oid)) => crate::enums::array_oid(*oid),
            Array(Record(r)) if r.oid != 0 => crate::composites::array_oid(r.oid),
            Array(Record(_)) => 2287,
            Array(e) => array_entry(e.without_typmod()).map_or(0, |e| e.1),
            Enum(oid) => oid,
            Int2Vector => 22,
            OidVector => 30,
            Reg(k) => k.oid(),
            Record(r) if r.oid != 0 => r.oid,
            Record(_) => 2249,
            Bool => 16,
            Bytea => 17,
            Name => 19,
            Int8 => 20,
            Int2 => 21,
            Int4 => 23,
            Text => 25,
            Oid => 26,
            Float4 => 700,
            Float8 => 701,
            Unknown => 705,
            Char(_) => 1042,
            Varchar(_) => 1043,
            Date => 1082,
            Timestamp(_) => 1114,
            TimestampTz(_) => 1184,
            Time(_) => 1083,
            TimeTz(_) => 1266,
            Money => 790,
            Interval(_) => 1186,
            Numeric(_) => 1700,
            Uuid => 2950,
            PgLsn => 3220,
            Bit(_) => 1560,
            VarBit(_) => 1562,
            Jsonb => 3802,
            Json => 114,
            JsonPath => 4072,
            TsVector => 3614,
            TsQuery => 3615,
            Void => 2278,
            Poly(p) => p.oid(),
            Geo(k) => k.oid(),
            Range(k) => k.oid(),
        }
    }

    /// The type for an OID (without typmod). `char` (18) is not supported.
    pub fn from_oid(oid: u32) -> Option<DataType> {
        Self::from_oid_typmod(oid, -1)
    }

    /// The type for an OID and a typmod as found in RowDescription or a
    /// catalog (`-1` for none).
    pub fn from_oid_typmod(oid: u32, typmod: i32) -> Option<DataType> {
        use DataType::*;
        let len = (typmod >= 4).then(|| (typmod - 4) as u32);
        let precision = (0..=6).contains(&typmod).then_some(typmod as u32);
        Some(match oid {
            16 => Bool,
            17 => Bytea,
            19 => Name,
            20 => Int8,
            21 => Int2,
            23 => Int4,
            25 => Text,
            26 => Oid,
            700 => Float4,
            701 => Float8,
            705 => Unknown,
            1042 => Char(len),
            1043 => Varchar(len),
            1082 => Date,
            1114 => Timestamp(precision),
            1184 => TimestampTz(precision),
            1083 => Time(precision),
            1266 => TimeTz(precision),
            790 => Money,
            1186 => Interval(IntervalMod::from_typmod(typmod)),
            2278 => Void,
            1700 => Numeric(len.map(|t| NumericMod {
                precision: (t >> 16) & 0xffff,
                scale: (((t & 0x7ff) ^ 1024) as i32) - 1024,
            })),
            2950 => Uuid,
            3220 => PgLsn,
            1560 => Bit((typmod >= 0).then_some(typmod as u32)),
            1562 => VarBit((typmod >= 0).then_some(typmod as u32)),
            3802 => Jsonb,
            114 => Json,
            4072 => JsonPath,
            3614 => TsVector,
            3615 => TsQuery,
            3734 => Reg(RegKind::Config),
            3769 => Reg(RegKind::Dictionary),
            _ if GeoKind::from_oid(oid).is_some() => Geo(GeoKind::from_oid(oid)?),
            _ if RangeKind::from_oid(oid).is_some() => Range(RangeKind::from_oid(oid)?),
            _ => {
                return array_types()
                    .find(|e| e.1 == oid)
                    .map(|e| match DataType::from_oid_typmod(e.0.oid(), typmod) {
                        Some(typed) if typmod >= 0 => match typed.array_keeping_typmod() {
                            Ok(Some(t)) => t,
                            _ => Array(&e.0),
                        },
                        _ => Array(&e.0),
                    })
                    .or_else(|| crate::enums::type_for_oid(oid))
                    .or_else(|| crate::composites::type_for_oid(oid))
                    .or_else(|| crate::domains::lookup(oid).map(|d| d.base))
                    .or_else(|| crate::domains::lookup_array(oid).and_then(|d| d.base.array_of()))
            }
        })
    }

    /// `typlen`: fixed size in bytes, -1 for varlena, -2 for C strings.
    pub fn typlen(self) -> i16 {
        use DataType::*;
        match self {
            Bool => 1,
            Int2 => 2,
            Int4 | Float4 | Date | Oid | Reg(_) | Enum(_) => 4,
            Int8 | Float8 | Timestamp(_) | TimestampTz(_) | Time(_) | PgLsn | Money => 8,
            TimeTz(_) => 12,
            Interval(_) | Uuid => 16,
            Name => 64,
            Unknown => -2,
            Void => 4,
            Poly(p) if p.is_array() => -1,
            Poly(_) => 4,
            Geo(k) => k.typlen(),
            Range(_) => -1,
            Numeric(_) | Text | Varchar(_) | Char(_) | Bytea | Jsonb | Json | JsonPath | Bit(_)
            | VarBit(_) | Array(_) | Int2Vector | OidVector | Record(_) | TsVector | TsQuery => -1,
        }
    }

    /// The type modifier as PostgreSQL encodes it, -1 for none.
    pub fn typmod(self) -> i32 {
        match self {
            DataType::Varchar(Some(n)) | DataType::Char(Some(n)) => n as i32 + 4,
            DataType::Bit(Some(n)) | DataType::VarBit(Some(n)) => n as i32,
            DataType::Time(Some(p))
            | DataType::TimeTz(Some(p))
            | DataType::Timestamp(Some(p))
            | DataType::TimestampTz(Some(p)) => p as i32,
            DataType::Interval(Some(m)) => m.typmod(),
            DataType::Numeric(Some(m)) => {
                (((m.precision << 16) | (m.scale as u32 & 0x7ff)) + 4) as i32
            }
            DataType::Array(e) => e.typmod(),
            _ => -1,
        }
    }

    /// The same type without its modifier (and a reg* type is an oid).
    pub fn base(self) -> DataType {
        match self {
            DataType::Reg(_) => DataType::Oid,
            DataType::Numeric(_) => DataType::Numeric(None),
            DataType::Varchar(_) => DataType::Varchar(None),
            DataType::Char(_) => DataType::Char(None),
            DataType::Bit(_) => DataType::Bit(None),
            DataType::VarBit(_) => DataType::VarBit(None),
            DataType::Time(_) => DataType::Time(None),
            DataType::TimeTz(_) => DataType::TimeTz(None),
            DataType::Timestamp(_) => DataType::Timestamp(None),
            DataType::TimestampTz(_) => DataType::TimestampTz(None),
            DataType::Interval(_) => DataType::Interval(None),
            DataType::Array(e) if e.typmod() >= 0 => self.without_typmod(),
            t => t,
        }
    }

    /// `Unknown` becomes `text`; everything else is unchanged.
    pub fn resolve_unknown(self) -> DataType {
        if self == DataType::Unknown {
            DataType::Text
        } else {
            self
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Int2 | DataType::Int4 | DataType::Int8)
    }

    /// Integer, numeric or float.
    pub fn is_numeric(self) -> bool {
        self.is_integer()
            || matches!(
                self,
                DataType::Numeric(_) | DataType::Float4 | DataType::Float8
            )
    }

    /// text, varchar, char, name and unknown (PostgreSQL's string category).
    pub fn is_string(self) -> bool {
        matches!(
            self,
            DataType::Text
                | DataType::Varchar(_)
                | DataType::Char(_)
                | DataType::Name
                | DataType::Unknown
        )
    }

    pub fn is_datetime(self) -> bool {
        matches!(
            self,
            DataType::Date
                | DataType::Timestamp(_)
                | DataType::TimestampTz(_)
                | DataType::Interval(_)
                | DataType::Time(_)
                | DataType::TimeTz(_)
        )
    }

    /// The name used in error messages, without typmod (`integer`,
    /// `character varying`, `timestamp with time zone`).
    pub fn name(self) -> &'static str {
        use DataType::*;
        match self {
            Bool => "boolean",
            Int2 => "smallint",
            Int4 => "integer",
            Int8 => "bigint",
            Float4 => "real",
            Float8 => "double precision",
            Numeric(_) => "numeric",
            Text => "text",
            Varchar(_) => "character varying",
            Char(Some(_)) => "character",
            Char(None) => "bpchar",
            Bytea => "bytea",
            Date => "date",
            Timestamp(_) => "timestamp without time zone",
            TimestampTz(_) => "timestamp with time zone",
            Time(_) => "time without time zone",
            TimeTz(_) => "time with time zone",
            Money => "money",
            Interval(_) => "interval",
            Uuid => "uuid",
            PgLsn => "pg_lsn",
            Bit(_) => "bit",
            VarBit(_) => "bit varying",
            Jsonb => "jsonb",
            Json => "json",
            JsonPath => "jsonpath",
            TsVector => "tsvector",
            TsQuery => "tsquery",
            Oid => "oid",
            Name => "name",
            Unknown => "unknown",
            Void => "void",
            Array(Enum(oid)) => crate::enums::array_name(*oid),
            Array(Record(r)) if r.oid != 0 => crate::composites::array_name(r.oid),
            Array(Record(_)) => "record[]",
            Array(e) => array_entry(e.without_typmod()).map_or("anyarray", |e| e.2),
            Enum(oid) => crate::enums::type_name(oid),
            Int2Vector => "int2vector",
            Record(r) if r.oid != 0 => crate::composites::type_name(r.oid),
            Record(_) => "record",
            OidVector => "oidvector",
            Reg(k) => k.name(),
            Poly(p) => p.name(),
            Geo(k) => k.name(),
            Range(k) => k.name(),
        }
    }

    /// Parses a type name as written in SQL (see the module doc). `typmods`
    /// are the parenthesised integers, e.g. `[10]` for `varchar(10)`.
    pub fn from_sql_name(name: &str, typmods: &[i64]) -> Result<DataType, DbError> {
        let lower = name.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let joined = words.join(" ");
        let key = joined.strip_prefix("pg_catalog.").unwrap_or(&joined);
        let no_mods = |t: DataType| -> Result<DataType, DbError> {
            if typmods.is_empty() {
                Ok(t)
            } else {
                Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("type modifier is not allowed for type \"{}\"", key),
                ))
            }
        };
        use DataType::*;
        match key {
            "bool" | "boolean" => no_mods(Bool),
            "int2" | "smallint" => no_mods(Int2),
            "int" | "int4" | "integer" => no_mods(Int4),
            "int8" | "bigint" => no_mods(Int8),
            "real" | "float4" => no_mods(Float4),
            "double precision" | "float8" => no_mods(Float8),
            "float" => float_type(typmods),
            "numeric" | "decimal" | "dec" => numeric_type(typmods),
            // A cursor's name: PostgreSQL's refcursor is binary-compatible
            // with text; Nestor has no type of its own for it.
            "text" | "refcursor" => no_mods(Text),
            "varchar" | "character varying" | "char varying" => {
                Ok(Varchar(char_len("varchar", typmods)?))
            }
            "char" | "character" => Ok(Char(Some(char_len("char", typmods)?.unwrap_or(1)))),
            "bpchar" => Ok(Char(char_len("bpchar", typmods)?)),
            "bytea" => no_mods(Bytea),
            "date" => no_mods(Date),
            "timestamp" | "timestamp without time zone" => {
                Ok(Timestamp(timestamp_precision(false, typmods)?))
            }
            "timestamptz" | "timestamp with time zone" => {
                Ok(TimestampTz(timestamp_precision(true, typmods)?))
            }
            "interval" => Ok(Interval(IntervalMod::from_typmods(typmods)?)),
            "time" | "time without time zone" => time_of_day(false, typmods),
            "timetz" | "time with time zone" => time_of_day(true, typmods).map(|t| match t {
                Time(p) => TimeTz(p),
                t => t,
            }),
            "money" => no_mods(Money),
            "uuid" => no_mods(Uuid),
            "pg_lsn" => no_mods(PgLsn),
            "bit" => Ok(Bit(crate::bits::type_length("bit", typmods)?)),
            "varbit" | "bit varying" => Ok(VarBit(crate::bits::type_length("varbit", typmods)?)),
            "jsonb" => no_mods(Jsonb),
            "oid" => no_mods(Oid),
            "name" => no_mods(Name),
            "unknown" => no_mods(Unknown),
            "int2vector" => no_mods(Int2Vector),
            "tsvector" => no_mods(TsVector),
            "tsquery" => no_mods(TsQuery),
            "regclass" | "regtype" | "regnamespace" | "regproc" | "regrole" | "regconfig"
            | "regdictionary" => no_mods(Reg(RegKind::ALL
                .into_iter()
                .find(|k| k.name() == key)
                .expect("listed"))),
            "oidvector" => no_mods(OidVector),
            _ if key.starts_with('_') && key.len() > 1 => {
                let elem = DataType::from_sql_name(&key[1..], &[])?;
                no_mods(elem.array_of().ok_or_else(|| {
                    DbError::new(
                        SqlState::UndefinedObject,
                        format!("type \"{}\" does not exist", name.trim()),
                    )
                })?)
            }
            "json" => no_mods(Json),
            "jsonpath" => no_mods(JsonPath),
            _ if RangeKind::from_name(key).is_some() => {
                no_mods(Range(RangeKind::from_name(key).expect("checked")))
            }
            _ if GeoKind::from_name(key).is_some() => {
                no_mods(Geo(GeoKind::from_name(key).expect("checked")))
            }
            // The pseudo-type of an anonymous record (`null::record`).
            "record" => no_mods(Record(record_type(Vec::new()))),
            _ if crate::enums::by_name(name.trim()).is_some() => {
                no_mods(Enum(crate::enums::by_name(name.trim()).expect("checked")))
            }
            // A domain is its base type to everything but the places that
            // check its constraints (crate::domains).
            _ if crate::domains::by_name(name.trim()).is_some() => {
                no_mods(crate::domains::by_name(name.trim()).expect("checked").base)
            }
            _ if crate::composites::by_name(name.trim()).is_some() => no_mods(
                crate::composites::by_name(name.trim())
                    .expect("checked")
                    .data_type(),
            ),
            _ if crate::range::is_multirange_name(key) => Err(DbError::unsupported(format!(
                "type {key} (multirange types)"
            ))),
            _ => Err(DbError::new(
                SqlState::UndefinedObject,
                format!("type \"{}\" does not exist", name.trim()),
            )),
        }
    }
}

fn float_type(typmods: &[i64]) -> Result<DataType, DbError> {
    match typmods {
        [] => Ok(DataType::Float8),
        [p] if *p < 1 => Err(invalid_param(
            "precision for type float must be at least 1 bit".into(),
        )),
        [p] if *p <= 24 => Ok(DataType::Float4),
        [p] if *p <= 53 => Ok(DataType::Float8),
        [_] => Err(invalid_param(
            "precision for type float must be less than 54 bits".into(),
        )),
        _ => Err(DbError::new(
            SqlState::SyntaxError,
            "syntax error at or near \",\"",
        )),
    }
}

fn numeric_type(typmods: &[i64]) -> Result<DataType, DbError> {
    let (p, s) = match typmods {
        [] => return Ok(DataType::Numeric(None)),
        [p] => (*p, 0),
        [p, s] => (*p, *s),
        _ => return Err(invalid_param("invalid NUMERIC type modifier".into())),
    };
    if !(1..=1000).contains(&p) {
        return Err(invalid_param(format!(
            "NUMERIC precision {p} must be between 1 and 1000"
        )));
    }
    if !(-1000..=1000).contains(&s) {
        return Err(invalid_param(format!(
            "NUMERIC scale {s} must be between -1000 and 1000"
        )));
    }
    Ok(DataType::Numeric(Some(NumericMod {
        precision: p as u32,
        scale: s as i32,
    })))
}

fn char_len(what: &str, typmods: &[i64]) -> Result<Option<u32>, DbError> {
    match typmods {
        [] => Ok(None),
        [n] if *n < 1 => Err(invalid_param(format!(
            "length for type {what} must be at least 1"
        ))),
        [n] if *n > MAX_CHAR_LEN => Err(invalid_param(format!(
            "length for type {what} cannot exceed {MAX_CHAR_LEN}"
        ))),
        [n] => Ok(Some(*n as u32)),
        _ => Err(invalid_param(format!(
            "invalid type modifier for type {what}"
        ))),
    }
}

/// `timestamp(p)` / `timestamptz(p)` (anytimestamp_typmod_check): a
/// precision above 6 is reduced to 6 (PostgreSQL also warns).
fn timestamp_precision(tz: bool, typmods: &[i64]) -> Result<Option<u32>, DbError> {
    let with = if tz { " WITH TIME ZONE" } else { "" };
    match typmods {
        [] => Ok(None),
        [p] if *p < 0 => Err(invalid_param(format!(
            "TIMESTAMP({p}){with} precision must not be negative"
        ))),
        [p] => Ok(Some((*p).min(6) as u32)),
        _ => Err(invalid_param("invalid type modifier".into())),
    }
}

/// `time(p)` / `timetz(p)` (anytime_typmod_check): a precision above 6
/// is reduced to 6, as PostgreSQL does (with a warning there). The result
/// is a `Time`; the caller makes it a `TimeTz`.
fn time_of_day(tz: bool, typmods: &[i64]) -> Result<DataType, DbError> {
    let with = if tz { " WITH TIME ZONE" } else { "" };
    match typmods {
        [] => Ok(DataType::Time(None)),
        [p] if *p < 0 => Err(invalid_param(format!(
            "TIME({p}){with} precision must not be negative"
        ))),
        [p] => Ok(DataType::Time(Some((*p).min(6) as u32))),
        _ => Err(invalid_param("invalid type modifier".into())),
    }
}

/// `format_type` output: the name with its modifier (`character
/// varying(5)`, `numeric(5,2)`, `character(1)`).
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Varchar(Some(n))
            | DataType::Char(Some(n))
            | DataType::Bit(Some(n))
            | DataType::VarBit(Some(n)) => write!(f, "{}({n})", self.name()),
            // `bit` without a length is not BIT (which SQL reads as
            // bit(1)): quoted, as format_type prints it.
            DataType::Bit(None) => f.write_str("\"bit\""),
            DataType::Numeric(Some(m)) => write!(f, "numeric({},{})", m.precision, m.scale),
            DataType::Time(Some(p)) => write!(f, "time({p}) without time zone"),
            DataType::TimeTz(Some(p)) => write!(f, "time({p}) with time zone"),
            DataType::Timestamp(Some(p)) => write!(f, "timestamp({p}) without time zone"),
            DataType::TimestampTz(Some(p)) => write!(f, "timestamp({p}) with time zone"),
            DataType::Interval(Some(m)) => write!(f, "interval{m}"),
            DataType::Array(e) if e.typmod() >= 0 => write!(f, "{e}[]"),
            t => f.write_str(t.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oids_typlen_typmod_round_trip() {
        let all = [
            DataType::Bool,
            DataType::Int2,
            DataType::Int4,
            DataType::Int8,
            DataType::Float4,
            DataType::Float8,
            DataType::Numeric(Some(NumericMod {
                precision: 5,
                scale: 2,
            })),
            DataType::Numeric(Some(NumericMod {
                precision: 5,
                scale: -3,
            })),
            DataType::Numeric(None),
            DataType::Text,
            DataType::Varchar(Some(9)),
            DataType::Varchar(None),
            DataType::Char(Some(1)),
            DataType::Char(None),
            DataType::Bytea,
            DataType::Date,
            DataType::Timestamp(None),
            DataType::TimestampTz(None),
            DataType::Interval(None),
            DataType::Time(None),
            DataType::Time(Some(2)),
            DataType::Uuid,
            DataType::PgLsn,
            DataType::Bit(Some(4)),
            DataType::Bit(None),
            DataType::VarBit(Some(7)),
            DataType::VarBit(None),
            DataType::Jsonb,
            DataType::JsonPath,
            DataType::Oid,
            DataType::Name,
            DataType::Unknown,
        ];
        for t in all {
            assert_eq!(
                DataType::from_oid_typmod(t.oid(), t.typmod()),
                Some(t),
                "{t:?}"
            );
        }
        assert_eq!(DataType::Varchar(Some(9)).typmod(), 13);
        assert_eq!(
            DataType::Numeric(Some(NumericMod {
                precision: 5,
                scale: 2
            }))
            .typmod(),
            (5 << 16 | 2) + 4
        );
        // Values from pg_type.typlen.
        assert_eq!(DataType::Name.typlen(), 64);
        assert_eq!(DataType::Unknown.typlen(), -2);
        assert_eq!(DataType::Interval(None).typlen(), 16);
        assert_eq!(DataType::Uuid.typlen(), 16);
        assert_eq!(DataType::Text.typlen(), -1);
    }

    #[test]
    fn sql_names_and_display() {
        let t = |n: &str, m: &[i64]| DataType::from_sql_name(n, m).unwrap();
        assert_eq!(t("INTEGER", &[]), DataType::Int4);
        assert_eq!(t("double  precision", &[]), DataType::Float8);
        assert_eq!(t("float", &[24]), DataType::Float4);
        assert_eq!(t("float", &[25]), DataType::Float8);
        assert_eq!(
            t("character varying", &[9]).to_string(),
            "character varying(9)"
        );
        assert_eq!(t("char", &[]).to_string(), "character(1)");
        assert_eq!(t("bpchar", &[]).to_string(), "bpchar");
        assert_eq!(t("bit", &[4]).to_string(), "bit(4)");
        assert_eq!(t("bit varying", &[]).to_string(), "bit varying");
        assert_eq!(t("varbit", &[3]), DataType::VarBit(Some(3)));
        assert_eq!(t("decimal", &[5, 2]).to_string(), "numeric(5,2)");
        assert_eq!(
            t("timestamp with time zone", &[]).to_string(),
            "timestamp with time zone"
        );
        assert_eq!(t("timestamp", &[6]), DataType::Timestamp(Some(6)));
        assert_eq!(t("timestamptz", &[9]), DataType::TimestampTz(Some(6)));
        assert_eq!(
            t("timestamp", &[2]).to_string(),
            "timestamp(2) without time zone"
        );
        assert_eq!(
            DataType::from_oid_typmod(1184, 3),
            Some(DataType::TimestampTz(Some(3)))
        );
        assert_eq!(
            DataType::from_sql_name("timestamptz", &[-2])
                .unwrap_err()
                .message,
            "TIMESTAMP(-2) WITH TIME ZONE precision must not be negative"
        );
        assert_eq!(t("pg_catalog.int8", &[]), DataType::Int8);
        assert_eq!(t("real", &[]).name(), "real");
        let err = |n: &str, m: &[i64]| DataType::from_sql_name(n, m).unwrap_err();
        assert_eq!(
            err("numeric", &[0]).message,
            "NUMERIC precision 0 must be between 1 and 1000"
        );
        assert_eq!(
            err("numeric", &[5, 1001]).message,
            "NUMERIC scale 1001 must be between -1000 and 1000"
        );
        assert_eq!(
            err("varchar", &[0]).message,
            "length for type varchar must be at least 1"
        );
        assert_eq!(
            err("varchar", &[10485761]).message,
            "length for type varchar cannot exceed 10485760"
        );
        assert_eq!(
            err("float", &[0]).message,
            "precision for type float must be at least 1 bit"
        );
        assert_eq!(
            err("float", &[54]).message,
            "precision for type float must be less than 54 bits"
        );
        let e = err("foo", &[]);
        assert_eq!(
            (e.code, e.message.as_str()),
            (SqlState::UndefinedObject, "type \"foo\" does not exist")
        );
        assert_eq!(t("json", &[]), DataType::Json);
        assert_eq!(t("_int4", &[]), DataType::Int4.array_of().unwrap());
        assert_eq!(t("regclass", &[]).to_string(), "regclass");
        assert_eq!(err("_foo", &[]).code, SqlState::UndefinedObject);
    }
}
