//! JSON documents for text search: the string (and optionally numeric,
//! boolean and key) values to index, in document order, and ts_headline's
//! rewrite of every string value.
//!
//! jsonb is walked in its stored (canonical) order, as PostgreSQL's jsonb
//! iterator does; json in the order it is written, duplicate keys
//! included, as its text iterator does, and a json headline is re-written
//! compactly (no blanks) as transform_json_string_values emits it.

use nestor_common::{DbError, SqlState};

use crate::json::{self, Json};

/// Which values to index (parse_jsonb_index_flags' bits).
pub const J_STRING: u8 = 1;
pub const J_NUMERIC: u8 = 2;
pub const J_BOOL: u8 = 4;
pub const J_KEY: u8 = 8;

/// Deepest document walked (the parser limits nesting too).
const DEPTH_MAX: usize = 10_000;

fn too_deep() -> DbError {
    DbError::new(SqlState::StatementTooComplex, "stack depth limit exceeded")
}

/// The selected values of a jsonb document (its canonical text).
pub fn jsonb_strings(doc: &str, flags: u8) -> Result<Vec<String>, DbError> {
    let j = json::parse(doc)?;
    let mut out = Vec::new();
    tree_strings(&j, flags, &mut out, 0)?;
    Ok(out)
}

fn tree_strings(j: &Json, flags: u8, out: &mut Vec<String>, depth: usize) -> Result<(), DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    match j {
        Json::Null => {}
        Json::Str(s) if flags & J_STRING != 0 => out.push(s.clone()),
        Json::Num(n) if flags & J_NUMERIC != 0 => out.push(n.to_string()),
        Json::Bool(b) if flags & J_BOOL != 0 => out.push(b.to_string()),
        Json::Str(_) | Json::Num(_) | Json::Bool(_) => {}
        Json::Arr(items) => {
            for x in items {
                tree_strings(x, flags, out, depth + 1)?;
            }
        }
        Json::Obj(fields) => {
            for (k, v) in fields {
                if flags & J_KEY != 0 {
                    out.push(k.clone());
                }
                tree_strings(v, flags, out, depth + 1)?;
            }
        }
    }
    Ok(())
}

/// The selected values of a json document, in written order.
pub fn json_strings(doc: &str, flags: u8) -> Result<Vec<String>, DbError> {
    let mut out = Vec::new();
    raw_strings(doc.trim(), flags, &mut out, 0)?;
    Ok(out)
}

fn raw_strings(d: &str, flags: u8, out: &mut Vec<String>, depth: usize) -> Result<(), DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    if let Some(fields) = crate::json_ops::raw_fields(d) {
        for (k, v) in fields {
            if flags & J_KEY != 0 {
                out.push(k);
            }
            raw_strings(v.trim(), flags, out, depth + 1)?;
        }
    } else if let Some(items) = crate::json_ops::raw_elements(d) {
        for v in items {
            raw_strings(v.trim(), flags, out, depth + 1)?;
        }
    } else {
        match json::parse(d)? {
            Json::Str(s) if flags & J_STRING != 0 => out.push(s),
            // The number as written.
            Json::Num(_) if flags & J_NUMERIC != 0 => out.push(d.to_string()),
            Json::Bool(b) if flags & J_BOOL != 0 => out.push(b.to_string()),
            _ => {}
        }
    }
    Ok(())
}

/// A jsonb document with `f` applied to every string value (not keys).
pub fn jsonb_map_strings(
    doc: &str,
    f: &mut dyn FnMut(&str) -> Result<String, DbError>,
) -> Result<String, DbError> {
    let j = json::parse(doc)?;
    let mapped = tree_map(j, f, 0)?;
    let mut out = String::new();
    json::write_json(&mut out, &mapped);
    Ok(out)
}

fn tree_map(
    j: Json,
    f: &mut dyn FnMut(&str) -> Result<String, DbError>,
    depth: usize,
) -> Result<Json, DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    Ok(match j {
        Json::Str(s) => Json::Str(f(&s)?),
        Json::Arr(items) => Json::Arr(
            items
                .into_iter()
                .map(|x| tree_map(x, f, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Json::Obj(fields) => Json::Obj(
            fields
                .into_iter()
                .map(|(k, v)| Ok((k, tree_map(v, f, depth + 1)?)))
                .collect::<Result<_, DbError>>()?,
        ),
        other => other,
    })
}

/// A json document with `f` applied to every string value, written
/// compactly in its original order.
pub fn json_map_strings(
    doc: &str,
    f: &mut dyn FnMut(&str) -> Result<String, DbError>,
) -> Result<String, DbError> {
    let mut out = String::new();
    raw_map(doc.trim(), f, &mut out, 0)?;
    Ok(out)
}

fn raw_map(
    d: &str,
    f: &mut dyn FnMut(&str) -> Result<String, DbError>,
    out: &mut String,
    depth: usize,
) -> Result<(), DbError> {
    if depth > DEPTH_MAX {
        return Err(too_deep());
    }
    if let Some(fields) = crate::json_ops::raw_fields(d) {
        out.push('{');
        for (i, (k, v)) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json::write_json_string(out, &k);
            out.push(':');
            raw_map(v.trim(), f, out, depth + 1)?;
        }
        out.push('}');
    } else if let Some(items) = crate::json_ops::raw_elements(d) {
        out.push('[');
        for (i, v) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            raw_map(v.trim(), f, out, depth + 1)?;
        }
        out.push(']');
    } else {
        match json::parse(d)? {
            Json::Str(s) => json::write_json_string(out, &f(&s)?),
            _ => out.push_str(d),
        }
    }
    Ok(())
}
