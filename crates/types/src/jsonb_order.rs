//! jsonb's btree order, as one sortable byte string per value.
//!
//! PostgreSQL orders jsonb values (compareJsonbContainers, documented in
//! "jsonb Indexing") by walking both in step:
//!
//! ```text
//!   Object > Array > Boolean > Number > String > Null
//!   an object with n pairs > one with n - 1; an array with n elements >
//!   one with n - 1; equal counts compare pair by pair (key, then value,
//!   keys in storage order: shorter first) or element by element
//!   a top-level scalar is a one-element "raw scalar" array: it sorts
//!   among arrays by its count first, so '[]' < 'null' < '[1]'
//!   numbers compare as numeric ('1.0' = '1'), strings by the collation
//! ```
//!
//! Nestor keeps a jsonb value as its canonical text, which is not that
//! order (and not even equality: `1.0` and `1` are the same jsonb). So the
//! order is made a byte string, [`sort_key`], built from the parsed value:
//! every comparison, hash and index key of a jsonb value goes through it,
//! which keeps `=`, `<`, DISTINCT, GROUP BY, hash joins and btree indexes
//! agreeing with each other by construction.
//!
//! ```text
//!   top level:  array/scalar 10 count:u32 raw(0 scalar, 1 array) elements
//!               object       11 count:u32 (key value)*
//!   nested:     null 00 | string 01 text 00 01 | number 02 numeric key
//!               | bool 03 0/1 | array 10 count elements | object 11 count pairs
//! ```
//!
//! Strings escape a 0x00 byte as 00 FF and end with 00 01, so a string
//! sorts before every longer one it prefixes; numbers use numeric's own
//! prefix-free sort key. Strings compare bytewise (Nestor's text order).

use std::cmp::Ordering;

use crate::json::{self, Json};

const NULL: u8 = 0x00;
const STRING: u8 = 0x01;
const NUMBER: u8 = 0x02;
const BOOL: u8 = 0x03;
const ARRAY: u8 = 0x10;
const OBJECT: u8 = 0x11;

/// The sortable form of a jsonb value's canonical text: byte order is
/// jsonb order, equal values (`1.0`, `1`) get equal bytes.
pub fn sort_key(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 8);
    match json::parse(text) {
        Ok(v) => put_top(&v, &mut out),
        Err(_) => {
            // A stored jsonb value is canonical text that parsed once;
            // failing now is a broken invariant (or a stack-depth check
            // under deep recursion): keep a total order on the text.
            debug_assert!(false, "stored jsonb does not parse: {text:.80}");
            out.push(0xFF);
            out.extend_from_slice(text.as_bytes());
        }
    }
    out
}

/// jsonb's btree comparison of two canonical texts.
pub fn compare(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    sort_key(a).cmp(&sort_key(b))
}

fn put_top(v: &Json, out: &mut Vec<u8>) {
    match v {
        Json::Arr(items) => {
            out.push(ARRAY);
            put_count(items.len(), out);
            out.push(1);
            items.iter().for_each(|i| put_value(i, out));
        }
        Json::Obj(_) => put_value(v, out),
        scalar => {
            out.push(ARRAY);
            put_count(1, out);
            out.push(0);
            put_value(scalar, out);
        }
    }
}

fn put_value(v: &Json, out: &mut Vec<u8>) {
    match v {
        Json::Null => out.push(NULL),
        Json::Str(s) => put_string(s, out),
        Json::Num(n) => {
            out.push(NUMBER);
            n.encode_sort_key(out);
        }
        Json::Bool(b) => out.extend_from_slice(&[BOOL, *b as u8]),
        Json::Arr(items) => {
            out.push(ARRAY);
            put_count(items.len(), out);
            items.iter().for_each(|i| put_value(i, out));
        }
        Json::Obj(fields) => {
            out.push(OBJECT);
            put_count(fields.len(), out);
            for (k, item) in fields {
                put_string(k, out);
                put_value(item, out);
            }
        }
    }
}

fn put_count(n: usize, out: &mut Vec<u8>) {
    let n = u32::try_from(n).expect("a jsonb container holds fewer than 2^32 items");
    out.extend_from_slice(&n.to_be_bytes());
}

fn put_string(s: &str, out: &mut Vec<u8>) {
    out.push(STRING);
    for &c in s.as_bytes() {
        out.push(c);
        if c == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 1]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(a: &str, b: &str) {
        assert_eq!(compare(a, b), Ordering::Less, "{a} < {b}");
        assert_eq!(compare(b, a), Ordering::Greater, "{b} > {a}");
    }

    #[test]
    fn orders_as_postgresql() {
        // Each checked against PostgreSQL 15.
        lt("{\"a\": 1}", "{\"p\": 1}");
        lt("[1, 2]", "{}");
        lt("{\"aa\": 1}", "{\"b\": 1}");
        lt("[]", "null");
        lt("\"a\"", "1");
        lt("1", "true");
        lt("{\"c\": 5}", "{\"a\": 1, \"b\": 2}");
        lt("[1]", "[[1]]");
        lt("null", "[1]");
        lt("[1, 2]", "[1, 2, 3]");
        lt("\"ab\"", "\"abc\"");
        lt("[\"a\"]", "[1]");
        lt("[{}]", "[{\"a\": 1}]");
        lt("[[]]", "[{}]");
    }

    #[test]
    fn equal_numbers_are_equal() {
        assert_eq!(compare("1.0", "1"), Ordering::Equal);
        assert_eq!(sort_key("{\"a\": [1.50]}"), sort_key("{\"a\": [1.5]}"));
        assert_ne!(sort_key("\"1\""), sort_key("1"));
    }
}
