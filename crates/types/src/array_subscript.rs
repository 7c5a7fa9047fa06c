//! Subscripted reads and writes of arrays: slices (`a[2:3]`,
//! `a[1:1][1:2]`) and assignment of an element (`a[i] := v`) or a slice
//! (`a[lo:hi] := v`), as PostgreSQL's `array_get_slice`,
//! `array_set_element` and `array_set_slice` do them.
//!
//! A subscript list is one bound pair per dimension, the leading
//! dimensions; an omitted bound (`a[:2]`, `a[2:]`) is `None` and means
//! the array's own. The elements inside a box of subscripts are visited
//! row-major ([`box_offsets`]), which is the order a slice reads them in
//! and the order a slice assignment takes its source's elements in (the
//! source's shape is ignored, as in PostgreSQL).
//!
//! Assignment rules (PostgreSQL's):
//! - into an empty array (and into NULL, which the caller passes as
//!   empty): an element makes an array of one element per dimension
//!   whose lower bounds are the subscripts (`'{}'` with `a[0] := 7` is
//!   `[0:0]={7}`); a slice needs both bounds of every dimension and
//!   takes that many source elements (2202E otherwise);
//! - into a one-dimensional array, a subscript outside the bounds extends
//!   it, the gap filled with NULLs:
//!
//! ```text
//!   '{1,2}'  a[5] := 5        {1,2,NULL,NULL,5}
//!   '{1,2}'  a[-1:0] := {8,9} [-1:2]={8,9,1,2}
//! ```
//! - a multi-dimensional array is never extended: a subscript outside it
//!   is 2202E `array subscript out of range`;
//! - the number of subscripts must match the dimensions (an element) or
//!   not exceed them (a slice; trailing dimensions are taken whole).
//!
//! Left out: fixed-length element types (PostgreSQL's `point[0]`
//! assignment), which Nestor's arrays do not have.

use nestor_common::{DbError, SqlState};

use crate::array::{Array, Dim, ARRAY_DIMS_MAX, ARRAY_ITEMS_MAX};
use crate::value::Value;

fn subscript_error(msg: &str) -> DbError {
    DbError::new(SqlState::ArraySubscriptError, msg)
}

fn too_large() -> DbError {
    DbError::new(
        SqlState::ProgramLimitExceeded,
        format!("array size exceeds the maximum allowed ({ARRAY_ITEMS_MAX})"),
    )
}

/// The most elements an assignment may grow an array to: PostgreSQL's
/// maximum, or fewer where that many of Nestor's values would pass the
/// 1 GB a single value may take (PostgreSQL keeps NULLs in a bitmap;
/// Nestor holds each element as a value), so `a[100000000] := 1` is
/// refused rather than allocating gigabytes.
const GROWTH_ITEMS_MAX: usize = {
    let by_bytes = nestor_common::limits::VALUE_BYTES_MAX / std::mem::size_of::<Value>();
    if by_bytes < ARRAY_ITEMS_MAX {
        by_bytes
    } else {
        ARRAY_ITEMS_MAX
    }
};

fn too_large_to_grow() -> DbError {
    DbError::new(
        SqlState::ProgramLimitExceeded,
        format!("array size exceeds the maximum allowed ({GROWTH_ITEMS_MAX})"),
    )
}

/// PostgreSQL's check that no dimension's upper bound overflows.
fn check_bounds(dims: &[Dim]) -> Result<(), DbError> {
    for d in dims {
        if d.lower.checked_add(d.len).is_none() {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("array lower bound is too large: {}", d.lower),
            ));
        }
    }
    Ok(())
}

/// The number of elements of an array of these dimensions, checked
/// against PostgreSQL's maximum.
fn item_count(dims: &[Dim]) -> Result<usize, DbError> {
    if dims.is_empty() {
        return Ok(0);
    }
    let mut n = 1usize;
    for d in dims {
        let len = usize::try_from(d.len).map_err(|_| too_large())?;
        n = n.checked_mul(len).ok_or_else(too_large)?;
    }
    if n > ARRAY_ITEMS_MAX {
        return Err(too_large());
    }
    Ok(n)
}

/// The row-major offsets in an array of `dims` of the elements whose
/// subscripts lie within `lo..=hi` in every dimension (`lo`/`hi` hold
/// one entry per dimension, inside the array).
pub fn box_offsets(dims: &[Dim], lo: &[i32], hi: &[i32]) -> Vec<usize> {
    let n = dims.len();
    if n == 0 || (0..n).any(|i| lo[i] > hi[i]) {
        return Vec::new();
    }
    let mut stride = vec![1usize; n];
    for i in (0..n.saturating_sub(1)).rev() {
        stride[i] = stride[i + 1] * dims[i + 1].len as usize;
    }
    let mut at: Vec<i32> = lo.to_vec();
    let mut out = Vec::new();
    loop {
        let off = (0..n)
            .map(|i| (at[i] - dims[i].lower) as usize * stride[i])
            .sum();
        out.push(off);
        // Advance the last dimension first, carrying leftwards.
        let mut d = n;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            if at[d] < hi[d] {
                at[d] += 1;
                break;
            }
            at[d] = lo[d];
        }
    }
}

/// `a[lo:hi]...` (PostgreSQL's array_get_slice): the elements inside the
/// given bounds, clipped to the array, as an array with lower bounds 1;
/// empty when more subscripts than dimensions are given or nothing is
/// inside. Dimensions past the subscripts are taken whole.
pub fn get_slice(a: &Array, lower: &[Option<i32>], upper: &[Option<i32>]) -> Array {
    let empty = || Array::from_items(a.elem, Vec::new());
    let ndim = a.ndims();
    if ndim == 0 || ndim < lower.len() {
        return empty();
    }
    let mut lo = Vec::with_capacity(ndim);
    let mut hi = Vec::with_capacity(ndim);
    for (i, d) in a.dims.iter().enumerate() {
        let own_hi = d.lower + d.len - 1;
        let l = lower
            .get(i)
            .copied()
            .flatten()
            .map_or(d.lower, |l| l.max(d.lower));
        let h = upper
            .get(i)
            .copied()
            .flatten()
            .map_or(own_hi, |h| h.min(own_hi));
        if l > h {
            return empty();
        }
        lo.push(l);
        hi.push(h);
    }
    let items = box_offsets(&a.dims, &lo, &hi)
        .into_iter()
        .map(|o| a.items[o].clone())
        .collect();
    let dims = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| Dim {
            len: h - l + 1,
            lower: 1,
        })
        .collect();
    Array {
        elem: a.elem,
        dims,
        items,
        vector: false,
    }
}

/// `a[s1][s2]... := v` (PostgreSQL's array_set_element); `a` is the
/// empty array for a NULL one.
pub fn set_element(a: &Array, subs: &[i32], v: Value) -> Result<Array, DbError> {
    if a.ndims() == 0 {
        let dims: Vec<Dim> = subs.iter().map(|&s| Dim { len: 1, lower: s }).collect();
        check_bounds(&dims)?;
        return Ok(Array {
            elem: a.elem,
            dims,
            items: vec![v],
            vector: false,
        });
    }
    if a.ndims() != subs.len() {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if a.ndims() == 1 {
        let (new, at) = extended_1d(a, subs[0], subs[0])?;
        let mut new = new;
        new.items[at] = v;
        return Ok(new);
    }
    let mut offset = 0usize;
    for (s, d) in subs.iter().zip(&a.dims) {
        if *s < d.lower || i64::from(*s) >= i64::from(d.lower) + i64::from(d.len) {
            return Err(subscript_error("array subscript out of range"));
        }
        offset = offset * d.len as usize + (s - d.lower) as usize;
    }
    let mut new = a.clone();
    new.vector = false;
    new.items[offset] = v;
    Ok(new)
}

/// A one-dimensional array grown (NULL-filled) to take subscripts
/// `lo..=hi`, and the offset of `lo` in it.
fn extended_1d(a: &Array, lo: i32, hi: i32) -> Result<(Array, usize), DbError> {
    let d = a.dims[0];
    let lower = i64::from(d.lower).min(i64::from(lo));
    let upper = (i64::from(d.lower) + i64::from(d.len) - 1).max(i64::from(hi));
    let len = i32::try_from(upper - lower + 1).map_err(|_| too_large())?;
    let lower = lower as i32;
    let dims = vec![Dim { len, lower }];
    let n = item_count(&dims)?;
    if n > GROWTH_ITEMS_MAX.max(a.items.len()) {
        return Err(too_large_to_grow());
    }
    check_bounds(&dims)?;
    let before = (d.lower - lower) as usize;
    let mut items = Vec::with_capacity(n);
    items.resize(before, Value::Null);
    items.extend(a.items.iter().cloned());
    items.resize(n, Value::Null);
    let at = (i64::from(lo) - i64::from(lower)) as usize;
    Ok((
        Array {
            elem: a.elem,
            dims,
            items,
            vector: false,
        },
        at,
    ))
}

/// `a[lo:hi]... := src` (PostgreSQL's array_set_slice); `a` is the empty
/// array for a NULL one, `src` None for a NULL source (which changes
/// nothing).
pub fn set_slice(
    a: &Array,
    lower: &[Option<i32>],
    upper: &[Option<i32>],
    src: Option<&Array>,
) -> Result<Array, DbError> {
    let Some(src) = src else {
        return Ok(a.clone());
    };
    if a.ndims() == 0 {
        return slice_into_empty(a, lower, upper, src);
    }
    let ndim = a.ndims();
    if ndim < lower.len() || ndim > ARRAY_DIMS_MAX {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    let mut lo = Vec::with_capacity(ndim);
    let mut hi = Vec::with_capacity(ndim);
    for (i, d) in a.dims.iter().enumerate() {
        let l = lower.get(i).copied().flatten().unwrap_or(d.lower);
        let h = upper
            .get(i)
            .copied()
            .flatten()
            .unwrap_or(d.lower + d.len - 1);
        if l > h {
            return Err(subscript_error(
                "upper bound cannot be less than lower bound",
            ));
        }
        lo.push(l);
        hi.push(h);
    }
    let (mut new, base) = if ndim == 1 {
        extended_1d(a, lo[0], hi[0])?
    } else {
        for (i, d) in a.dims.iter().enumerate() {
            if lo[i] < d.lower || i64::from(hi[i]) >= i64::from(d.lower) + i64::from(d.len) {
                return Err(subscript_error("array subscript out of range"));
            }
        }
        let mut same = a.clone();
        same.vector = false;
        (same, 0)
    };
    let offsets = if ndim == 1 {
        (base..=base + (hi[0] - lo[0]) as usize).collect()
    } else {
        box_offsets(&new.dims, &lo, &hi)
    };
    if offsets.len() > src.items.len() {
        return Err(subscript_error("source array too small"));
    }
    for (o, v) in offsets.into_iter().zip(&src.items) {
        new.items[o] = v.clone();
    }
    Ok(new)
}

/// A slice assigned into an empty array: the slice's bounds are the new
/// array's, its elements the source's first ones.
fn slice_into_empty(
    a: &Array,
    lower: &[Option<i32>],
    upper: &[Option<i32>],
    src: &Array,
) -> Result<Array, DbError> {
    let mut dims = Vec::with_capacity(lower.len());
    for (l, h) in lower.iter().zip(upper) {
        let (Some(l), Some(h)) = (l, h) else {
            return Err(
                subscript_error("array slice subscript must provide both boundaries")
                    .with_detail(
                        "When assigning to a slice of an empty array value, slice boundaries must be fully specified.",
                    ),
            );
        };
        let len = i32::try_from(1 + i64::from(*h) - i64::from(*l)).map_err(|_| too_large())?;
        if len < 0 {
            return Err(too_large());
        }
        dims.push(Dim { len, lower: *l });
    }
    let n = item_count(&dims)?;
    if src.items.len() < n {
        return Err(subscript_error("source array too small"));
    }
    check_bounds(&dims)?;
    if n == 0 {
        return Ok(Array::from_items(a.elem, Vec::new()));
    }
    Ok(Array {
        elem: a.elem,
        dims,
        items: src.items[..n].to_vec(),
        vector: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::parse_array;
    use crate::context::EvalCtx;
    use crate::datatype::DataType;
    use crate::datetime::TimeZone;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn arr(s: &str) -> Array {
        parse_array(DataType::Int4, s, &ctx()).unwrap()
    }

    fn text(a: &Array) -> String {
        a.to_text(&ctx())
    }

    #[test]
    fn slices_read_as_postgresql() {
        let a = arr("{{1,2,3},{4,5,6}}");
        assert_eq!(text(&get_slice(&a, &[Some(2)], &[Some(2)])), "{{4,5,6}}");
        assert_eq!(
            text(&get_slice(&a, &[None, Some(2)], &[None, Some(9)])),
            "{{2,3},{5,6}}"
        );
        assert_eq!(text(&get_slice(&a, &[Some(3)], &[Some(4)])), "{}");
        assert_eq!(
            text(&get_slice(&arr("[0:2]={7,8,9}"), &[Some(1)], &[None])),
            "{8,9}"
        );
    }

    #[test]
    fn element_assignment_extends_one_dimension_with_nulls() {
        let a = arr("{1,2}");
        assert_eq!(
            text(&set_element(&a, &[5], Value::Int4(5)).unwrap()),
            "{1,2,NULL,NULL,5}"
        );
        assert_eq!(
            text(&set_element(&a, &[-1], Value::Int4(0)).unwrap()),
            "[-1:2]={0,NULL,1,2}"
        );
        let empty = arr("{}");
        assert_eq!(
            text(&set_element(&empty, &[0, 2], Value::Int4(7)).unwrap()),
            "[0:0][2:2]={{7}}"
        );
        let m = arr("{{1,2},{3,4}}");
        assert_eq!(
            text(&set_element(&m, &[2, 1], Value::Null).unwrap()),
            "{{1,2},{NULL,4}}"
        );
        let e = set_element(&m, &[3, 1], Value::Null).unwrap_err();
        assert_eq!(e.message, "array subscript out of range");
        let e = set_element(&m, &[1], Value::Null).unwrap_err();
        assert_eq!(e.message, "wrong number of array subscripts");
    }

    #[test]
    fn slice_assignment_follows_array_set_slice() {
        let a = arr("{1,2,3}");
        let src = arr("{8,9}");
        let s = |lo, hi| set_slice(&a, &[lo], &[hi], Some(&src));
        assert_eq!(text(&s(Some(2), Some(3)).unwrap()), "{1,8,9}");
        assert_eq!(text(&s(Some(5), Some(6)).unwrap()), "{1,2,3,NULL,8,9}");
        assert_eq!(text(&s(Some(-1), Some(0)).unwrap()), "[-1:3]={8,9,1,2,3}");
        assert_eq!(text(&s(None, Some(1)).unwrap()), "{8,2,3}");
        assert_eq!(
            s(Some(1), None).unwrap_err().message,
            "source array too small"
        );
        assert_eq!(
            s(Some(3), Some(2)).unwrap_err().message,
            "upper bound cannot be less than lower bound"
        );
        let m = arr("{{1,2},{3,4}}");
        assert_eq!(
            text(&set_slice(&m, &[None, Some(2)], &[None, Some(2)], Some(&src)).unwrap()),
            "{{1,8},{3,9}}"
        );
        let empty = arr("{}");
        let e = set_slice(&empty, &[None], &[Some(2)], Some(&src)).unwrap_err();
        assert_eq!(e.code, SqlState::ArraySubscriptError);
        assert_eq!(
            text(&set_slice(&empty, &[Some(3)], &[Some(4)], Some(&src)).unwrap()),
            "[3:4]={8,9}"
        );
        assert_eq!(
            text(&set_slice(&a, &[Some(1)], &[Some(1)], None).unwrap()),
            "{1,2,3}"
        );
    }
}
