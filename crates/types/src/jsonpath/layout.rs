//! Where a container would sit in PostgreSQL's binary jsonb, for the `id`
//! that `.keyvalue()` reports: PostgreSQL numbers each object by its byte
//! offset in the binary document. Nestor keeps jsonb as text, so the
//! offset is computed from jsonb's layout (jsonb_util.c, convertJsonb*):
//! a container is 4-byte aligned and starts with a 4-byte header and one
//! 4-byte JEntry per element (two per pair: keys, then values); an object
//! stores its keys' bytes, then its values; a string is its bytes, null
//! and booleans take none, a number is its 4-byte-aligned numeric varlena
//! (4-byte header, 2-byte short header, 2 bytes per base-10000 digit).

use crate::json::Json;
use crate::numeric::Numeric;

fn pad(off: usize) -> usize {
    off.next_multiple_of(4)
}

/// Bytes of the numeric varlena PostgreSQL stores for `n`.
fn numeric_bytes(n: &Numeric) -> usize {
    let text = n.to_string();
    let t = text.trim_start_matches('-');
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    // Base-10000 groups, aligned on the decimal point.
    let mut groups: Vec<u32> = Vec::new();
    let lead = (4 - int.len() % 4) % 4;
    let int_p = format!("{}{int}", "0".repeat(lead));
    let frac_p = format!("{frac}{}", "0".repeat((4 - frac.len() % 4) % 4));
    for chunk in int_p
        .as_bytes()
        .chunks(4)
        .chain(frac_p.as_bytes().chunks(4))
    {
        let s = std::str::from_utf8(chunk).unwrap_or("0");
        groups.push(s.parse().unwrap_or(0));
    }
    let first = groups.iter().position(|g| *g != 0);
    let ndigits = match first {
        None => 0,
        Some(f) => {
            let l = groups.iter().rposition(|g| *g != 0).unwrap_or(f);
            l - f + 1
        }
    };
    // The short format holds display scales up to 63 and weights within
    // [-64, 63]; others take 2 more header bytes.
    let short = frac.len() <= 63 && int.len() <= 63 * 4;
    4 + if short { 2 } else { 4 } + 2 * ndigits
}

/// The end offset of `v` written at `off`; sets `found` when `v` is
/// `target` (compared by address).
fn walk(v: &Json, off: usize, target: *const Json, found: &mut Option<usize>) -> usize {
    match v {
        Json::Null | Json::Bool(_) => off,
        Json::Str(s) => off + s.len(),
        Json::Num(n) => pad(off) + numeric_bytes(n),
        Json::Arr(items) => {
            let o = pad(off);
            if std::ptr::eq(v, target) {
                *found = Some(o);
            }
            let mut p = o + 4 + 4 * items.len();
            for it in items {
                if found.is_some() {
                    break;
                }
                p = walk(it, p, target, found);
            }
            p
        }
        Json::Obj(fields) => {
            let o = pad(off);
            if std::ptr::eq(v, target) {
                *found = Some(o);
            }
            let mut p =
                o + 4 + 8 * fields.len() + fields.iter().map(|(k, _)| k.len()).sum::<usize>();
            for (_, it) in fields {
                if found.is_some() {
                    break;
                }
                p = walk(it, p, target, found);
            }
            p
        }
    }
}

/// The offset of `target` (a container inside `doc`, by address) in
/// `doc`'s binary form, if it is there. The recursion follows the
/// document, whose nesting the jsonb parser bounds (1000 levels).
pub(crate) fn offset_of(doc: &Json, target: &Json) -> Option<usize> {
    let mut found = None;
    walk(doc, 0, target, &mut found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn offsets_match_postgres() {
        // Offsets PostgreSQL 15 reports as keyvalue() ids.
        let doc =
            parse(r#"[1.5, 12345, {"x":{"y":null}}, "abc", {"z":2}, 0.001, {"w":3}]"#).unwrap();
        let Json::Arr(items) = &doc else { panic!() };
        assert_eq!(offset_of(&doc, &items[2]), Some(56));
        let Json::Obj(f) = &items[2] else { panic!() };
        assert_eq!(offset_of(&doc, &f[0].1), Some(72));
        assert_eq!(offset_of(&doc, &items[4]), Some(88));
        assert_eq!(offset_of(&doc, &items[6]), Some(120));
        let vars = parse(r#"{"q":1, "v":{"k":2}}"#).unwrap();
        let Json::Obj(f) = &vars else { panic!() };
        assert_eq!(offset_of(&vars, &f[1].1), Some(32));
    }
}
