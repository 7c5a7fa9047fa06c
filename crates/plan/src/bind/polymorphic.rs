//! Polymorphic user functions: resolving `anyelement`, `anyarray`,
//! `anynonarray`, `anyenum` and the `anycompatible` family at each call.
//!
//! PostgreSQL's rules (parse_coerce.c: check_generic_type_consistency
//! while choosing a candidate, enforce_generic_type_consistency once it
//! is chosen):
//!
//! - every `anyelement`, `anynonarray` and `anyenum` argument has the
//!   same type, the *element* type; an `anyarray` argument is an array of
//!   it; `anynonarray` forbids an array, `anyenum` demands an enum;
//! - the `anycompatible` arguments (and the elements of the
//!   `anycompatiblearray` ones) have a common type, as UNION finds one,
//!   and are converted to it;
//! - an unknown literal (or NULL) decides nothing: it takes the resolved
//!   type; when only unknowns feed the `anyelement` family, the call fails
//!   with 42804 "could not determine polymorphic type", while an all-
//!   unknown `anycompatible` family resolves to text;
//! - typmods are dropped (`varchar(3)` resolves to `varchar`).
//!
//! The result and OUT arguments take the resolved types. A call binds an
//! *instance*: a copy of the definition with every polymorphic type
//! replaced, so the executor, the SQL-function planner and the PL/pgSQL
//! compiler only ever see concrete types. Instances are kept per resolved
//! signature in the declared definition's `compiled` slot
//! ([`POLYMORPHIC_INSTANCES_MAX`] of them), so a PL/pgSQL body compiles
//! once per signature and dies with the definition (CREATE OR REPLACE).
//!
//! ```text
//!   dup(f1 anyelement, OUT f2 anyelement, OUT f3 anyarray)
//!   dup(22)   -> elem int4 -> instance dup(f1 int4, OUT f2 int4, OUT f3 int4[])
//!   dup('x')  -> 42804 could not determine polymorphic type ...
//! ```
//!
//! A non-polymorphic function never reaches this module: its call costs
//! one scan of its argument types (`FunctionDef::is_polymorphic`) at bind
//! time, nothing at run time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use nestor_catalog::{FuncArg, FunctionDef, Returns};
use nestor_common::limits::POLYMORPHIC_INSTANCES_MAX;
use nestor_common::{DbError, SqlState};
use nestor_types::datatype::{DataType, Poly};

/// The type a polymorphic argument resolves from: typmod dropped.
fn strip(t: DataType) -> DataType {
    use DataType as T;
    match t {
        T::Numeric(_) => T::Numeric(None),
        T::Varchar(_) => T::Varchar(None),
        T::Char(_) => T::Char(None),
        T::Time(_) => T::Time(None),
        T::TimeTz(_) => T::TimeTz(None),
        T::Timestamp(_) => T::Timestamp(None),
        T::TimestampTz(_) => T::TimestampTz(None),
        T::Interval(_) => T::Interval(None),
        t => t,
    }
}

/// What a call's arguments say about its polymorphic types.
#[derive(Default)]
struct Seen {
    /// The `anyelement` family: the element type, the array type.
    elem: Option<DataType>,
    array: Option<DataType>,
    /// Whether any argument is of that family (`anynonarray`, `anyenum`).
    family: bool,
    nonarray: bool,
    enumeration: bool,
    /// The `anycompatible` family: the known types (array elements for
    /// `anycompatiblearray`).
    compatible: Vec<DataType>,
    compatible_family: bool,
    compatible_nonarray: bool,
    /// The `anyrange` and `anycompatiblerange` arguments' range types.
    range: Option<DataType>,
    compatible_range: Option<DataType>,
}

/// Record the range type `t` (None: an unknown literal) in `slot`; its
/// subtype is the element type. False when `t` is not a range or another
/// range type was seen.
fn see_range(slot: &mut Option<DataType>, t: Option<DataType>) -> Option<Option<DataType>> {
    let Some(t) = t else {
        return Some(None);
    };
    let DataType::Range(k) = t else {
        return None;
    };
    if slot.is_some_and(|r| r != t) {
        return None;
    }
    *slot = Some(t);
    Some(Some(k.subtype()))
}

/// Read the declared/actual pairs; None when they are inconsistent.
fn collect(pairs: &[(DataType, DataType)]) -> Option<Seen> {
    let mut s = Seen::default();
    for &(declared, actual) in pairs {
        let DataType::Poly(p) = declared else {
            continue;
        };
        let known = (actual != DataType::Unknown).then(|| strip(actual));
        match p {
            Poly::AnyElement | Poly::AnyNonArray | Poly::AnyEnum => {
                s.family = true;
                s.nonarray |= p == Poly::AnyNonArray;
                s.enumeration |= p == Poly::AnyEnum;
                if let Some(t) = known {
                    if s.elem.is_some_and(|e| e != t) {
                        return None;
                    }
                    s.elem = Some(t);
                }
            }
            Poly::AnyArray => {
                s.family = true;
                if let Some(t) = known {
                    if s.array.is_some_and(|a| a != t) {
                        return None;
                    }
                    s.array = Some(t);
                }
            }
            Poly::AnyCompatible | Poly::AnyCompatibleNonArray => {
                s.compatible_family = true;
                s.compatible_nonarray |= p == Poly::AnyCompatibleNonArray;
                s.compatible.extend(known);
            }
            Poly::AnyCompatibleArray => {
                s.compatible_family = true;
                if let Some(t) = known {
                    s.compatible.push(t.element()?);
                }
            }
            Poly::AnyRange => {
                s.family = true;
                if let Some(e) = see_range(&mut s.range, known)? {
                    if s.elem.is_some_and(|x| x != e) {
                        return None;
                    }
                    s.elem = Some(e);
                }
            }
            Poly::AnyCompatibleRange => {
                s.compatible_family = true;
                s.compatible
                    .extend(see_range(&mut s.compatible_range, known)?);
            }
        }
    }
    if let Some(a) = s.array {
        let e = a.element()?;
        if s.elem.is_some_and(|x| x != e) {
            return None;
        }
        s.elem = Some(e);
    }
    if s.nonarray && s.elem.is_some_and(DataType::is_array) {
        return None;
    }
    if s.enumeration && s.elem.is_some_and(|e| !matches!(e, DataType::Enum(_))) {
        return None;
    }
    Some(s)
}

/// The common type of the `anycompatible` arguments (None: there is
/// none); text when all were unknown.
fn common(s: &Seen) -> Option<DataType> {
    let mut t = DataType::Unknown;
    for &c in &s.compatible {
        t = super::unify(t, c)?;
    }
    let t = t.resolve_unknown();
    // With an anycompatiblerange argument the common type is its subtype
    // exactly (the others must convert to it).
    if let Some(DataType::Range(k)) = s.compatible_range {
        return (t == k.subtype()).then_some(t);
    }
    (!(s.compatible_nonarray && t.is_array())).then_some(t)
}

/// Whether a candidate with these declared argument types takes these
/// actual ones (check_generic_type_consistency). Only the polymorphic
/// positions are looked at.
pub(crate) fn consistent(pairs: &[(DataType, DataType)]) -> bool {
    collect(pairs).is_some_and(|s| s.compatible.is_empty() || common(&s).is_some())
}

/// The types a call resolved its polymorphic types to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    elem: Option<DataType>,
    array: Option<DataType>,
    compatible: Option<DataType>,
    range: Option<DataType>,
    compatible_range: Option<DataType>,
}

fn no_array_type(t: DataType) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("could not find array type for data type {}", t.name()),
    )
}

impl Resolution {
    /// Resolve a chosen candidate's polymorphic types
    /// (enforce_generic_type_consistency).
    pub(crate) fn of(pairs: &[(DataType, DataType)]) -> Result<Resolution, DbError> {
        let s = collect(pairs).ok_or_else(|| {
            DbError::new(
                SqlState::DatatypeMismatch,
                "arguments declared polymorphic are not consistent",
            )
        })?;
        if s.family && s.elem.is_none() {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                "could not determine polymorphic type because input has type unknown",
            )
            .unpositioned());
        }
        let compatible = match s.compatible_family {
            true => Some(common(&s).ok_or_else(|| {
                DbError::new(
                    SqlState::DatatypeMismatch,
                    "arguments declared \"anycompatible\" are not all alike",
                )
            })?),
            false => None,
        };
        Ok(Resolution {
            elem: s.elem,
            array: s.array,
            compatible,
            range: s.range,
            compatible_range: s.compatible_range,
        })
    }

    /// The concrete type for a declared one.
    pub fn concrete(&self, t: DataType) -> Result<DataType, DbError> {
        let DataType::Poly(p) = t else {
            return Ok(t);
        };
        let unresolved = || {
            DbError::new(
                SqlState::DatatypeMismatch,
                format!("could not determine polymorphic type {}", p.name()),
            )
        };
        match p {
            Poly::AnyElement | Poly::AnyNonArray | Poly::AnyEnum => {
                self.elem.ok_or_else(unresolved)
            }
            Poly::AnyArray => match (self.array, self.elem) {
                (Some(a), _) => Ok(a),
                (None, Some(e)) => e.array_of().ok_or_else(|| no_array_type(e)),
                (None, None) => Err(unresolved()),
            },
            Poly::AnyCompatible | Poly::AnyCompatibleNonArray => {
                self.compatible.ok_or_else(unresolved)
            }
            Poly::AnyCompatibleArray => {
                let c = self.compatible.ok_or_else(unresolved)?;
                c.array_of().ok_or_else(|| no_array_type(c))
            }
            Poly::AnyRange => self.range.ok_or_else(unresolved),
            Poly::AnyCompatibleRange => self.compatible_range.ok_or_else(unresolved),
        }
    }

    /// Every element type resolved to `t` (the array types to its array
    /// type): what CREATE AGGREGATE binds a polymorphic aggregate's steps
    /// with, to check them and to see which types follow the input's.
    pub fn with_element(t: DataType) -> Resolution {
        Resolution {
            elem: Some(t),
            array: None,
            compatible: Some(t),
            range: None,
            compatible_range: None,
        }
    }

    /// What CREATE FUNCTION checks a polymorphic body with (PostgreSQL's
    /// PL/pgSQL validator): integer for the element types.
    pub fn for_validation() -> Resolution {
        Resolution {
            elem: Some(DataType::Int4),
            array: None,
            compatible: Some(DataType::Int4),
            range: Some(DataType::Range(nestor_types::range::RangeKind::Int4)),
            compatible_range: Some(DataType::Range(nestor_types::range::RangeKind::Int4)),
        }
    }
}

/// The instances of one polymorphic function, by resolution.
type Instances = Mutex<HashMap<Resolution, Arc<FunctionDef>>>;

/// The definition with its polymorphic types replaced.
pub fn instantiate(def: &Arc<FunctionDef>, r: &Resolution) -> Result<FunctionDef, DbError> {
    let args = def
        .args
        .iter()
        .map(|a| {
            Ok(FuncArg {
                ty: r.concrete(a.ty)?,
                ..a.clone()
            })
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    let returns = match &def.returns {
        Returns::Scalar(t) => Returns::Scalar(r.concrete(*t)?),
        Returns::Row(cols) => Returns::Row(
            cols.iter()
                .map(|(n, t)| Ok((n.clone(), r.concrete(*t)?)))
                .collect::<Result<Vec<_>, DbError>>()?,
        ),
        other => other.clone(),
    };
    let mut inst = FunctionDef::clone(def);
    inst.args = args;
    inst.returns = returns;
    inst.declared = Some(def.clone());
    Ok(inst)
}

/// The instance of `def` for a call's resolution: the cached one, else a
/// new one (cached while there is room).
pub(crate) fn instance(
    def: &Arc<FunctionDef>,
    r: &Resolution,
) -> Result<Arc<FunctionDef>, DbError> {
    let slot = def
        .compiled
        .get_or_init(|| Arc::new(Instances::default()))
        .clone();
    let Some(cache) = slot.downcast_ref::<Instances>() else {
        return Ok(Arc::new(instantiate(def, r)?));
    };
    if let Some(i) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(r) {
        return Ok(i.clone());
    }
    let inst = Arc::new(instantiate(def, r)?);
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if map.len() < POLYMORPHIC_INSTANCES_MAX {
        map.entry(*r).or_insert_with(|| inst.clone());
    }
    Ok(map.get(r).cloned().unwrap_or(inst))
}
