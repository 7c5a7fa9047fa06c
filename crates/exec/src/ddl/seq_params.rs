//! The options of CREATE SEQUENCE, ALTER SEQUENCE and identity columns
//! (AS, INCREMENT, MINVALUE, MAXVALUE, START, RESTART, CACHE, CYCLE), read
//! as PostgreSQL's init_params reads them (commands/sequence.c): one pure
//! function from the current form (none when creating) and the options to
//! the new form, with PostgreSQL's defaults, cross-checks and messages.
//!
//! ```text
//!   CREATE SEQUENCE s AS smallint INCREMENT -1
//!     type int2, increment -1, max -1, min -32768, start -1, last -1
//!   ALTER SEQUENCE s AS integer        (min was int2's: becomes int4's)
//!     min -2147483648, the rest kept
//!   ALTER SEQUENCE s RESTART            last := start, not called
//! ```
//!
//! OWNED BY and SEQUENCE NAME are the callers' (they name other objects).

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::DataType;

const INT2_OID: u32 = 21;
const INT4_OID: u32 = 23;
pub(crate) const INT8_OID: u32 = 20;

/// A sequence's parameters and state (pg_sequence and the sequence's
/// own row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeqForm {
    pub type_oid: u32,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cache: i64,
    pub cycle: bool,
    pub last: i64,
    pub called: bool,
}

impl SeqForm {
    /// A new sequence of this form (its state: `last`, `called`).
    pub(crate) fn sequence(
        self,
        oid: nestor_common::RelId,
        name: String,
        namespace: u32,
        owned_by: Option<(String, String)>,
        temporary: bool,
    ) -> nestor_catalog::Sequence {
        nestor_catalog::Sequence {
            oid,
            name,
            namespace,
            increment: self.increment,
            min: self.min,
            max: self.max,
            start: self.start,
            cycle: self.cycle,
            type_oid: self.type_oid,
            cache: self.cache,
            state: std::sync::Arc::new(parking_lot::Mutex::new((self.last, self.called))),
            owned_by,
            temporary,
            dirty: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
        }
    }
}

/// The options PostgreSQL's init_params reads, each at most once.
#[derive(Default)]
struct Given<'a> {
    as_type: Option<&'a pb::DefElem>,
    increment: Option<&'a pb::DefElem>,
    start: Option<&'a pb::DefElem>,
    restart: Option<&'a pb::DefElem>,
    max: Option<&'a pb::DefElem>,
    min: Option<&'a pb::DefElem>,
    cache: Option<&'a pb::DefElem>,
    cycle: Option<&'a pb::DefElem>,
}

/// The new form from `current` (None: a new sequence, of `new_type`
/// unless AS says otherwise) and `options`. Options this function does
/// not read (`owned_by`, `sequence_name`) are skipped; others are 42601.
pub(crate) fn init_params(
    options: &[pb::Node],
    current: Option<SeqForm>,
    new_type: u32,
    for_identity: bool,
) -> Result<SeqForm, DbError> {
    let mut g = Given::default();
    for o in options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        let slot = match d.defname.as_str() {
            "as" => &mut g.as_type,
            "increment" => &mut g.increment,
            "start" => &mut g.start,
            "restart" => &mut g.restart,
            "maxvalue" => &mut g.max,
            "minvalue" => &mut g.min,
            "cache" => &mut g.cache,
            "cycle" => &mut g.cycle,
            "owned_by" | "sequence_name" => continue,
            other => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("option \"{other}\" not recognized"),
                ))
            }
        };
        if slot.is_some() {
            return Err(
                DbError::new(SqlState::SyntaxError, "conflicting or redundant options")
                    .with_position(u32::try_from(d.location + 1).unwrap_or(0)),
            );
        }
        *slot = Some(d);
    }
    let init = current.is_none();
    let mut f = current.unwrap_or(SeqForm {
        type_oid: new_type,
        increment: 1,
        min: 1,
        max: i64::MAX,
        start: 1,
        cache: 1,
        cycle: false,
        last: 1,
        called: false,
    });
    let (mut reset_max, mut reset_min) = (false, false);
    if let Some(d) = g.as_type {
        let type_oid = as_type(d, for_identity)?;
        if !init {
            let (lo, hi) = type_bounds(f.type_oid);
            reset_max = f.max == hi;
            reset_min = f.min == lo;
        }
        f.type_oid = type_oid;
    }
    if let Some(d) = g.increment {
        f.increment = int_arg(d)?.unwrap_or(1);
        if f.increment == 0 {
            return Err(invalid("INCREMENT must not be zero".into()));
        }
    }
    if let Some(d) = g.cycle {
        f.cycle = int_arg(d)?.unwrap_or(1) != 0;
    }
    let (lo, hi) = type_bounds(f.type_oid);
    let type_name = type_name(f.type_oid);
    match g.max.map(int_arg).transpose()?.flatten() {
        Some(v) => f.max = v,
        None if init || g.max.is_some() || reset_max => {
            f.max = if f.increment > 0 || reset_max { hi } else { -1 };
        }
        None => {}
    }
    if f.max < lo || f.max > hi {
        return Err(invalid(format!(
            "MAXVALUE ({}) is out of range for sequence data type {type_name}",
            f.max
        )));
    }
    match g.min.map(int_arg).transpose()?.flatten() {
        Some(v) => f.min = v,
        None if init || g.min.is_some() || reset_min => {
            f.min = if f.increment < 0 || reset_min { lo } else { 1 };
        }
        None => {}
    }
    if f.min < lo || f.min > hi {
        return Err(invalid(format!(
            "MINVALUE ({}) is out of range for sequence data type {type_name}",
            f.min
        )));
    }
    if f.min >= f.max {
        return Err(invalid(format!(
            "MINVALUE ({}) must be less than MAXVALUE ({})",
            f.min, f.max
        )));
    }
    match g.start {
        Some(d) => f.start = int_arg(d)?.unwrap_or(f.start),
        None if init => f.start = if f.increment > 0 { f.min } else { f.max },
        None => {}
    }
    if f.start < f.min {
        return Err(invalid(format!(
            "START value ({}) cannot be less than MINVALUE ({})",
            f.start, f.min
        )));
    }
    if f.start > f.max {
        return Err(invalid(format!(
            "START value ({}) cannot be greater than MAXVALUE ({})",
            f.start, f.max
        )));
    }
    match g.restart {
        Some(d) => {
            f.last = int_arg(d)?.unwrap_or(f.start);
            f.called = false;
        }
        None if init => {
            f.last = f.start;
            f.called = false;
        }
        None => {}
    }
    if f.last < f.min {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be less than MINVALUE ({})",
            f.last, f.min
        )));
    }
    if f.last > f.max {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be greater than MAXVALUE ({})",
            f.last, f.max
        )));
    }
    if let Some(d) = g.cache {
        f.cache = int_arg(d)?.unwrap_or(1);
        if f.cache <= 0 {
            return Err(invalid(format!(
                "CACHE ({}) must be greater than zero",
                f.cache
            )));
        }
    }
    Ok(f)
}

/// The bounds of a sequence data type.
pub(crate) fn type_bounds(type_oid: u32) -> (i64, i64) {
    match type_oid {
        INT2_OID => (i64::from(i16::MIN), i64::from(i16::MAX)),
        INT4_OID => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    }
}

fn type_name(type_oid: u32) -> &'static str {
    match type_oid {
        INT2_OID => "smallint",
        INT4_OID => "integer",
        _ => "bigint",
    }
}

/// The sequence data type OID of an integer type (identity columns).
pub(crate) fn oid_of(ty: DataType) -> Option<u32> {
    match ty {
        DataType::Int2 => Some(INT2_OID),
        DataType::Int4 => Some(INT4_OID),
        DataType::Int8 => Some(INT8_OID),
        _ => None,
    }
}

fn as_type(d: &pb::DefElem, for_identity: bool) -> Result<u32, DbError> {
    let Some(NodeEnum::TypeName(tn)) = d.arg.as_deref().map(node).transpose()? else {
        return Err(DbError::internal("AS without a type"));
    };
    oid_of(bind::type_from_name(tn)?).ok_or_else(|| {
        invalid(if for_identity {
            "identity column type must be smallint, integer, or bigint".into()
        } else {
            "sequence type must be smallint, integer, or bigint".into()
        })
    })
}

/// An option's integer argument (None: no argument, as in NO MAXVALUE or
/// a bare RESTART).
fn int_arg(d: &pb::DefElem) -> Result<Option<i64>, DbError> {
    super::def_int(d)
}

fn invalid(msg: String) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}
