//! Array subscripts: in reads (`a[i][j]`, `a[lo:hi]`, `a[1:1][1:2]`) and
//! in assignment targets (`UPDATE t SET a[2] = 5`, `SET a[1:2] = '{7,8}'`,
//! `INSERT INTO t (a[1], a[3]) VALUES (...)`).
//!
//! A subscript list binds to int4 expressions. When any item is a slice
//! (`[lo:hi]`, `[:hi]`, `[lo:]`) the whole list is a slice and a plain
//! item `[i]` means `[1:i]`, as in PostgreSQL; an omitted bound is a
//! NULL placeholder with its bit set in `omitted` (bit 2k the lower and
//! 2k+1 the upper bound of dimension k), so it stays distinct from a
//! bound that evaluates to NULL.
//!
//! An assignment is rewritten into the new value of the whole column, as
//! PostgreSQL's rewriter does: `SET a[2] = 5` sets `a` to
//! `ArrayAssign(a, 5, 2)`, and several assignments to one column nest
//! (`SET a[1] = 1, a[3] = 3` is `ArrayAssign(ArrayAssign(a, 1, 1), 3, 3)`).
//! In INSERT the base is NULL, which the executor treats as the empty
//! array (`INSERT INTO t (a[2]) VALUES (7)` stores `[2:2]={7}`). The
//! assigned value is coerced to the element type (an element) or to the
//! column's array type (a slice). The array work itself is
//! `nestor_types::array_subscript`'s.
//!
//! A jsonb column takes subscripts too (PostgreSQL 14's jsonb
//! subscripting): each one binds to text (an integer is cast, a string
//! is a key; other types and slices are 42804, at PostgreSQL's cursor),
//! a read is `j #> ARRAY[...]` and an assignment `Func::JsonbAssign`,
//! whose work is `nestor_types::jsonb_edit::subscript_assign`'s; the
//! value is coerced to jsonb.
//!
//! A target may also name fields of a composite column and mix them with
//! subscripts (`SET c.f = v`, `INSERT INTO t (c.f[1], a[2].g)`), as
//! PostgreSQL's transformAssignmentIndirection allows: the target is a
//! chain of steps, and each step assigns into the part the previous one
//! reads, a field through `Func::FieldStore` (a NULL record is one of
//! NULL fields):
//!
//! ```text
//!   SET c.f[2] = 'x'     c := FieldStore_f(c, ArrayAssign((c).f, 'x', 2))
//!   SET a[1].g = 7       a := ArrayAssign(a, FieldStore_g(a[1], 7), 1)
//! ```
//!
//! Several targets in one column nest as subscripts do. Only an array
//! element can be assigned into further; after a slice, a jsonb or a
//! geometric value's coordinate, a field is the "not a composite type"
//! error.

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::Node;
use nestor_parser::NodeEnum;
use nestor_types::array::ARRAY_DIMS_MAX;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::bind::{err_at, expr_location, node, req, unsupported_node, Binder};
use crate::functions::Func;
use crate::ir::Expr;

/// A bound subscript list.
pub(crate) struct Subscripts {
    pub slice: bool,
    /// Omitted slice bounds (see the module header).
    pub omitted: u16,
    /// One expression per subscript, or a (lower, upper) pair per
    /// dimension for a slice.
    pub args: Vec<Expr>,
}

fn too_many_dims(n: usize) -> DbError {
    DbError::new(
        SqlState::ProgramLimitExceeded,
        format!("number of array dimensions ({n}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})"),
    )
    .unpositioned()
}

/// One subscript expression, coerced to int4.
fn bind_one(b: &mut Binder, n: &Node) -> Result<Expr, DbError> {
    let (e, t) = b.bind(n)?;
    if !(t.is_integer() || t == DataType::Unknown) {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            "array subscript must have type integer",
        ));
    }
    b.coerce(e, t, DataType::Int4)
}

/// Binds a list of `[...]` items (every one an `A_Indices`).
pub(crate) fn bind_list(b: &mut Binder, list: &[Node]) -> Result<Subscripts, DbError> {
    if list.len() > ARRAY_DIMS_MAX {
        return Err(too_many_dims(list.len()));
    }
    let mut items = Vec::with_capacity(list.len());
    for i in list {
        match node(i)? {
            NodeEnum::AIndices(ix) => items.push(ix),
            other => return Err(unsupported_node(other)),
        }
    }
    let slice = items.iter().any(|ix| ix.is_slice);
    let mut out = Subscripts {
        slice,
        omitted: 0,
        args: Vec::with_capacity(items.len() * 2),
    };
    for (k, ix) in items.into_iter().enumerate() {
        if !slice {
            let u = ix
                .uidx
                .as_deref()
                .ok_or_else(|| DbError::internal("subscript without a value"))?;
            out.args.push(bind_one(b, u)?);
            continue;
        }
        let lower = match (&ix.lidx, ix.is_slice) {
            (Some(l), _) => Some(bind_one(b, l)?),
            (None, false) => Some(Expr::Const(Value::Int4(1))),
            (None, true) => None,
        };
        let upper = match &ix.uidx {
            Some(u) => Some(bind_one(b, u)?),
            None => None,
        };
        for (bit, e) in [(2 * k, lower), (2 * k + 1, upper)] {
            match e {
                Some(e) => out.args.push(e),
                None => {
                    out.omitted |= 1 << bit;
                    out.args.push(Expr::Const(Value::Null));
                }
            }
        }
    }
    Ok(out)
}

/// Binds the subscripts of a jsonb value (`j['a'][0]`), every one an
/// `A_Indices`: each as text, and whether the first is an integer (an
/// assignment into NULL then starts from `[]`). A slice anywhere is
/// PostgreSQL's error at the first item's bound.
pub(crate) fn bind_jsonb_list(b: &mut Binder, list: &[Node]) -> Result<(Vec<Expr>, bool), DbError> {
    let mut items = Vec::with_capacity(list.len());
    for n in list {
        match n.node.as_ref() {
            Some(NodeEnum::AIndices(ix)) => items.push(ix),
            _ => return Err(DbError::unsupported("field selection from jsonb")),
        }
    }
    if items.iter().any(|ix| ix.is_slice) {
        let e = DbError::new(
            SqlState::DatatypeMismatch,
            "jsonb subscript does not support slices",
        );
        let first = items[0];
        let bound = first.uidx.as_deref().or(first.lidx.as_deref());
        return Err(match bound.and_then(|x| node(x).ok()) {
            Some(at) => err_at(e, b.text, expr_location(at)),
            None => e.unpositioned(),
        });
    }
    let mut path = Vec::with_capacity(items.len());
    let mut first_int = false;
    for (k, ix) in items.into_iter().enumerate() {
        let s = req(&ix.uidx)?;
        let at = node(s).map_or(-1, expr_location);
        let (e, t) = b.bind(s)?;
        // int2 and int4 are integers (int8 does not coerce to int4
        // implicitly: PostgreSQL refuses it like any other type).
        let int = matches!(t, DataType::Int2 | DataType::Int4);
        if k == 0 {
            first_int = int;
        }
        path.push(match t {
            DataType::Unknown => b.coerce(e, t, DataType::Text)?,
            _ if int => Expr::Cast(Box::new(e), DataType::Text),
            t if t.is_string() => b.coerce(e, t, DataType::Text)?,
            t => {
                let e = DbError::new(
                    SqlState::DatatypeMismatch,
                    format!("subscript type {} is not supported", t.name()),
                )
                .with_hint("jsonb subscript must be coercible to either integer or text.");
                return Err(err_at(e, b.text, at));
            }
        });
    }
    Ok((path, first_int))
}

/// One step of an assignment target's indirection.
enum Step {
    /// `[...]` (consecutive subscripts are one step): `func` assigns into
    /// the array, jsonb or geometric value with these subscripts.
    Subscript { func: Func, subs: Vec<Expr> },
    /// `.name`: the field at position `field` of a record of `fields`.
    Field { field: usize, fields: usize },
}

/// The bound indirection of an assignment target (`a[2]`, `a[1:2]`,
/// `c.f`, `c.f[1]`, `a[1].f`): a chain of steps from the column to the
/// place the value goes.
pub(crate) struct AssignTarget {
    steps: Vec<Step>,
    /// The type the assigned value is coerced to.
    pub value_ty: DataType,
    /// The last step's field name when it is a field (for PostgreSQL's
    /// "subfield ... is of type" message).
    last_field: Option<String>,
}

impl AssignTarget {
    /// The column's new value: `value` assigned into `base`.
    pub fn apply(&self, base: Expr, value: Expr) -> Expr {
        apply_steps(&self.steps, base, value)
    }

    /// Whether the target begins with a field (`c.f...`, not `a[1]...`).
    pub fn starts_with_field(&self) -> bool {
        matches!(self.steps.first(), Some(Step::Field { .. }))
    }
}

/// `value` assigned through `steps` into `base`: each step reads the
/// part of `base` the next one assigns into (PostgreSQL's
/// transformAssignmentIndirection), so `c.f[2] := v` is
/// `FieldStore(c, ArrayAssign(c.f, v, 2))`.
fn apply_steps(steps: &[Step], base: Expr, value: Expr) -> Expr {
    let Some((step, rest)) = steps.split_first() else {
        return value;
    };
    match step {
        Step::Field { field, fields } => {
            let inner = if rest.is_empty() {
                value
            } else {
                let part = Expr::Func(Func::FieldSelect(*field), vec![base.clone()]);
                apply_steps(rest, part, value)
            };
            let f = Func::FieldStore {
                field: *field,
                fields: *fields,
            };
            Expr::Func(f, vec![base, inner])
        }
        Step::Subscript { func, subs } => {
            let inner = if rest.is_empty() {
                value
            } else {
                // Only an array element can be assigned into further
                // (`bind_assign_target` refuses the rest).
                debug_assert!(matches!(func, Func::ArrayAssign { slice: false, .. }));
                let mut args = Vec::with_capacity(subs.len() + 1);
                args.push(base.clone());
                args.extend(subs.iter().cloned());
                apply_steps(rest, Expr::Func(Func::Subscript, args), value)
            };
            let mut args = Vec::with_capacity(subs.len() + 2);
            args.push(base);
            args.push(inner);
            args.extend(subs.iter().cloned());
            Expr::Func(*func, args)
        }
    }
}

/// Binds the indirection of a SET or INSERT target naming column `col`
/// of type `ty`: fields and runs of subscripts, each applied to the type
/// the previous step leads to. A type that takes no subscripts is an
/// error at the base's position, which PostgreSQL knows only for an
/// UPDATE's column (`column_positioned`), not for INSERT's NULL base or
/// a field read from it.
pub(crate) fn bind_assign_target(
    b: &mut Binder,
    col: &str,
    ty: DataType,
    indirection: &[Node],
    column_positioned: bool,
) -> Result<AssignTarget, DbError> {
    let mut steps = Vec::new();
    let mut ty = ty;
    let mut last_field = None;
    let mut rest = indirection;
    while let Some(first) = rest.first() {
        if let Some(NodeEnum::String(s)) = first.node.as_ref() {
            let (field, fields, fty) = field_step(col, ty, &s.sval)?;
            steps.push(Step::Field { field, fields });
            ty = fty;
            last_field = Some(s.sval.clone());
            rest = &rest[1..];
            continue;
        }
        let n = rest
            .iter()
            .position(|n| !matches!(n.node, Some(NodeEnum::AIndices(_))))
            .unwrap_or(rest.len());
        if n == 0 {
            return Err(unsupported_node(node(first)?));
        }
        let positioned = column_positioned && steps.is_empty();
        let (func, subs, next) = subscript_step(b, ty, &rest[..n], positioned)?;
        steps.push(Step::Subscript { func, subs });
        ty = next;
        last_field = None;
        rest = &rest[n..];
    }
    Ok(AssignTarget {
        steps,
        value_ty: ty,
        last_field,
    })
}

/// `.name` on a value of type `ty`: the field's position, the record's
/// width and the field's type.
fn field_step(col: &str, ty: DataType, name: &str) -> Result<(usize, usize, DataType), DbError> {
    let DataType::Record(r) = ty else {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "cannot assign to field \"{name}\" of column \"{col}\" because its type {} is not a composite type",
                ty.name()
            ),
        ));
    };
    let k = r.field(name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!(
                "cannot assign to field \"{name}\" of column \"{col}\" because there is no such column in data type {}",
                ty.name()
            ),
        )
    })?;
    Ok((k, r.fields.len(), r.fields[k].1))
}

/// A run of subscripts on a value of type `ty`: the function assigning
/// through them, the bound subscripts and the type they lead to.
fn subscript_step(
    b: &mut Binder,
    ty: DataType,
    list: &[Node],
    positioned: bool,
) -> Result<(Func, Vec<Expr>, DataType), DbError> {
    let elem = match ty {
        DataType::Jsonb => {
            let (subs, expect_array) = bind_jsonb_list(b, list)?;
            return Ok((Func::JsonbAssign { expect_array }, subs, DataType::Jsonb));
        }
        DataType::Array(e) => *e,
        DataType::Geo(k) if nestor_types::geometry::catalog::subscript_element(k).is_some() => {
            let s = bind_list(b, list)?;
            if s.slice {
                return Err(fixed_length_slices());
            }
            let func = Func::ArrayAssign {
                elem: ty,
                slice: false,
                omitted: 0,
            };
            let next = nestor_types::geometry::catalog::subscript_element(k).unwrap_or(ty);
            return Ok((func, s.args, next));
        }
        _ => {
            let e = DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    ty.name()
                ),
            );
            return Err(if positioned { e } else { e.unpositioned() });
        }
    };
    let s = bind_list(b, list)?;
    let func = Func::ArrayAssign {
        elem,
        slice: s.slice,
        omitted: s.omitted,
    };
    Ok((func, s.args, if s.slice { ty } else { elem }))
}

/// PostgreSQL's message when the value assigned through `target` does
/// not coerce (`e` is the binder's "column is of type ..." error).
pub(crate) fn subscripted_assign_err(mut e: DbError, col: &str, target: &AssignTarget) -> DbError {
    if e.code == SqlState::DatatypeMismatch {
        if let Some(rest) = e.message.strip_prefix("column is of type ") {
            e.message = match &target.last_field {
                Some(f) => format!("subfield \"{f}\" is of type {rest}"),
                None => format!("subscripted assignment to \"{col}\" requires type {rest}"),
            };
        }
    }
    e
}

/// PostgreSQL's error for a slice of a fixed-length "array" (a point's,
/// a box's coordinates).
pub(crate) fn fixed_length_slices() -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        "slices of fixed-length arrays not implemented",
    )
    .unpositioned()
}
