//! The types' I/O functions as pg_proc names them.
//!
//! Every type has four: text input and output (implemented by
//! [`crate::text`]'s parser and `Value::to_text`), binary receive and
//! send ([`crate::binary`]). PostgreSQL lists them in pg_proc and names
//! them from pg_type (`typinput`, `typoutput`, `typreceive`, `typsend`),
//! and tools read them there: pgjdbc's getTypeInfo tells arrays by
//! `typinput = 'array_in'::regproc`. [`IO_FUNCTIONS`] gives each its
//! PostgreSQL 15 name, OID and signature for the types Nestor has (the
//! pseudo types `cstring` and `internal` in the signatures included),
//! keyed by pg_type's name (`array` for every array type, which all share
//! `array_in` and friends). Input, output and receive functions are not
//! callable from SQL: they take or return `cstring` and `internal`, which
//! no SQL value has. The send functions of concrete types are, as in
//! PostgreSQL (`float4send(1.5)` is the value's binary form as bytea):
//! [`resolve_send`].

use nestor_common::DbError;

use crate::datatype::DataType;
use crate::functions::{no_function, Imp, Resolved};
use crate::value::Value;

/// Which of a type's I/O functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    In,
    Out,
    Recv,
    Send,
}

/// One I/O function: pg_proc's row of it.
#[derive(Debug)]
pub struct IoFn {
    /// pg_type's name of the type it belongs to (`array` for arrays).
    pub typ: &'static str,
    pub kind: IoKind,
    pub oid: u32,
    pub name: &'static str,
    /// Argument type OIDs (proargtypes).
    pub args: &'static [u32],
    /// Result type OID.
    pub ret: u32,
    /// provolatile 's' (else 'i').
    pub stable: bool,
}

/// The I/O functions of the types with pg_type rows (PostgreSQL 15's).
#[rustfmt::skip]
pub static IO_FUNCTIONS: &[IoFn] = &[
    IoFn { typ: "any", kind: IoKind::In, oid: 2294, name: "any_in", args: &[2275], ret: 2276, stable: false },
    IoFn { typ: "any", kind: IoKind::Out, oid: 2295, name: "any_out", args: &[2276], ret: 2275, stable: false },
    IoFn { typ: "anyarray", kind: IoKind::In, oid: 2296, name: "anyarray_in", args: &[2275], ret: 2277, stable: false },
    IoFn { typ: "anyarray", kind: IoKind::Out, oid: 2297, name: "anyarray_out", args: &[2277], ret: 2275, stable: true },
    IoFn { typ: "anyarray", kind: IoKind::Recv, oid: 2502, name: "anyarray_recv", args: &[2281], ret: 2277, stable: true },
    IoFn { typ: "anyarray", kind: IoKind::Send, oid: 2503, name: "anyarray_send", args: &[2277], ret: 17, stable: true },
    IoFn { typ: "array", kind: IoKind::In, oid: 750, name: "array_in", args: &[2275, 26, 23], ret: 2277, stable: true },
    IoFn { typ: "array", kind: IoKind::Out, oid: 751, name: "array_out", args: &[2277], ret: 2275, stable: true },
    IoFn { typ: "array", kind: IoKind::Recv, oid: 2400, name: "array_recv", args: &[2281, 26, 23], ret: 2277, stable: true },
    IoFn { typ: "array", kind: IoKind::Send, oid: 2401, name: "array_send", args: &[2277], ret: 17, stable: true },
    IoFn { typ: "enum", kind: IoKind::In, oid: 3504, name: "enum_in", args: &[2275, 26], ret: 3500, stable: true },
    IoFn { typ: "enum", kind: IoKind::Out, oid: 3505, name: "enum_out", args: &[3500], ret: 2275, stable: true },
    IoFn { typ: "enum", kind: IoKind::Recv, oid: 3532, name: "enum_recv", args: &[2281, 26], ret: 3500, stable: true },
    IoFn { typ: "enum", kind: IoKind::Send, oid: 3533, name: "enum_send", args: &[3500], ret: 17, stable: true },
    IoFn { typ: "range", kind: IoKind::In, oid: 3834, name: "range_in", args: &[2275, 26, 23], ret: 3831, stable: true },
    IoFn { typ: "range", kind: IoKind::Out, oid: 3835, name: "range_out", args: &[3831], ret: 2275, stable: true },
    IoFn { typ: "range", kind: IoKind::Recv, oid: 3836, name: "range_recv", args: &[2281, 26, 23], ret: 3831, stable: true },
    IoFn { typ: "range", kind: IoKind::Send, oid: 3837, name: "range_send", args: &[3831], ret: 17, stable: true },
    IoFn { typ: "point", kind: IoKind::In, oid: 117, name: "point_in", args: &[2275], ret: 600, stable: false },
    IoFn { typ: "point", kind: IoKind::Out, oid: 118, name: "point_out", args: &[600], ret: 2275, stable: false },
    IoFn { typ: "point", kind: IoKind::Recv, oid: 2428, name: "point_recv", args: &[2281], ret: 600, stable: false },
    IoFn { typ: "point", kind: IoKind::Send, oid: 2429, name: "point_send", args: &[600], ret: 17, stable: false },
    IoFn { typ: "lseg", kind: IoKind::In, oid: 119, name: "lseg_in", args: &[2275], ret: 601, stable: false },
    IoFn { typ: "lseg", kind: IoKind::Out, oid: 120, name: "lseg_out", args: &[601], ret: 2275, stable: false },
    IoFn { typ: "lseg", kind: IoKind::Recv, oid: 2480, name: "lseg_recv", args: &[2281], ret: 601, stable: false },
    IoFn { typ: "lseg", kind: IoKind::Send, oid: 2481, name: "lseg_send", args: &[601], ret: 17, stable: false },
    IoFn { typ: "path", kind: IoKind::In, oid: 121, name: "path_in", args: &[2275], ret: 602, stable: false },
    IoFn { typ: "path", kind: IoKind::Out, oid: 122, name: "path_out", args: &[602], ret: 2275, stable: false },
    IoFn { typ: "path", kind: IoKind::Recv, oid: 2482, name: "path_recv", args: &[2281], ret: 602, stable: false },
    IoFn { typ: "path", kind: IoKind::Send, oid: 2483, name: "path_send", args: &[602], ret: 17, stable: false },
    IoFn { typ: "box", kind: IoKind::In, oid: 123, name: "box_in", args: &[2275], ret: 603, stable: false },
    IoFn { typ: "box", kind: IoKind::Out, oid: 124, name: "box_out", args: &[603], ret: 2275, stable: false },
    IoFn { typ: "box", kind: IoKind::Recv, oid: 2484, name: "box_recv", args: &[2281], ret: 603, stable: false },
    IoFn { typ: "box", kind: IoKind::Send, oid: 2485, name: "box_send", args: &[603], ret: 17, stable: false },
    IoFn { typ: "polygon", kind: IoKind::In, oid: 347, name: "poly_in", args: &[2275], ret: 604, stable: false },
    IoFn { typ: "polygon", kind: IoKind::Out, oid: 348, name: "poly_out", args: &[604], ret: 2275, stable: false },
    IoFn { typ: "polygon", kind: IoKind::Recv, oid: 2486, name: "poly_recv", args: &[2281], ret: 604, stable: false },
    IoFn { typ: "polygon", kind: IoKind::Send, oid: 2487, name: "poly_send", args: &[604], ret: 17, stable: false },
    IoFn { typ: "line", kind: IoKind::In, oid: 1490, name: "line_in", args: &[2275], ret: 628, stable: false },
    IoFn { typ: "line", kind: IoKind::Out, oid: 1491, name: "line_out", args: &[628], ret: 2275, stable: false },
    IoFn { typ: "line", kind: IoKind::Recv, oid: 2488, name: "line_recv", args: &[2281], ret: 628, stable: false },
    IoFn { typ: "line", kind: IoKind::Send, oid: 2489, name: "line_send", args: &[628], ret: 17, stable: false },
    IoFn { typ: "circle", kind: IoKind::In, oid: 1450, name: "circle_in", args: &[2275], ret: 718, stable: false },
    IoFn { typ: "circle", kind: IoKind::Out, oid: 1451, name: "circle_out", args: &[718], ret: 2275, stable: false },
    IoFn { typ: "circle", kind: IoKind::Recv, oid: 2490, name: "circle_recv", args: &[2281], ret: 718, stable: false },
    IoFn { typ: "circle", kind: IoKind::Send, oid: 2491, name: "circle_send", args: &[718], ret: 17, stable: false },
    IoFn { typ: "bit", kind: IoKind::In, oid: 1564, name: "bit_in", args: &[2275, 26, 23], ret: 1560, stable: false },
    IoFn { typ: "bit", kind: IoKind::Out, oid: 1565, name: "bit_out", args: &[1560], ret: 2275, stable: false },
    IoFn { typ: "bit", kind: IoKind::Recv, oid: 2456, name: "bit_recv", args: &[2281, 26, 23], ret: 1560, stable: false },
    IoFn { typ: "bit", kind: IoKind::Send, oid: 2457, name: "bit_send", args: &[1560], ret: 17, stable: false },
    IoFn { typ: "bool", kind: IoKind::In, oid: 1242, name: "boolin", args: &[2275], ret: 16, stable: false },
    IoFn { typ: "bool", kind: IoKind::Out, oid: 1243, name: "boolout", args: &[16], ret: 2275, stable: false },
    IoFn { typ: "bool", kind: IoKind::Recv, oid: 2436, name: "boolrecv", args: &[2281], ret: 16, stable: false },
    IoFn { typ: "bool", kind: IoKind::Send, oid: 2437, name: "boolsend", args: &[16], ret: 17, stable: false },
    IoFn { typ: "bpchar", kind: IoKind::In, oid: 1044, name: "bpcharin", args: &[2275, 26, 23], ret: 1042, stable: false },
    IoFn { typ: "bpchar", kind: IoKind::Out, oid: 1045, name: "bpcharout", args: &[1042], ret: 2275, stable: false },
    IoFn { typ: "bpchar", kind: IoKind::Recv, oid: 2430, name: "bpcharrecv", args: &[2281, 26, 23], ret: 1042, stable: true },
    IoFn { typ: "bpchar", kind: IoKind::Send, oid: 2431, name: "bpcharsend", args: &[1042], ret: 17, stable: true },
    IoFn { typ: "bytea", kind: IoKind::In, oid: 1244, name: "byteain", args: &[2275], ret: 17, stable: false },
    IoFn { typ: "bytea", kind: IoKind::Out, oid: 31, name: "byteaout", args: &[17], ret: 2275, stable: false },
    IoFn { typ: "bytea", kind: IoKind::Recv, oid: 2412, name: "bytearecv", args: &[2281], ret: 17, stable: false },
    IoFn { typ: "bytea", kind: IoKind::Send, oid: 2413, name: "byteasend", args: &[17], ret: 17, stable: false },
    IoFn { typ: "cstring", kind: IoKind::In, oid: 2292, name: "cstring_in", args: &[2275], ret: 2275, stable: false },
    IoFn { typ: "cstring", kind: IoKind::Out, oid: 2293, name: "cstring_out", args: &[2275], ret: 2275, stable: false },
    IoFn { typ: "cstring", kind: IoKind::Recv, oid: 2500, name: "cstring_recv", args: &[2281], ret: 2275, stable: true },
    IoFn { typ: "cstring", kind: IoKind::Send, oid: 2501, name: "cstring_send", args: &[2275], ret: 17, stable: true },
    IoFn { typ: "date", kind: IoKind::In, oid: 1084, name: "date_in", args: &[2275], ret: 1082, stable: true },
    IoFn { typ: "date", kind: IoKind::Out, oid: 1085, name: "date_out", args: &[1082], ret: 2275, stable: true },
    IoFn { typ: "date", kind: IoKind::Recv, oid: 2468, name: "date_recv", args: &[2281], ret: 1082, stable: false },
    IoFn { typ: "date", kind: IoKind::Send, oid: 2469, name: "date_send", args: &[1082], ret: 17, stable: false },
    IoFn { typ: "float4", kind: IoKind::In, oid: 200, name: "float4in", args: &[2275], ret: 700, stable: false },
    IoFn { typ: "float4", kind: IoKind::Out, oid: 201, name: "float4out", args: &[700], ret: 2275, stable: false },
    IoFn { typ: "float4", kind: IoKind::Recv, oid: 2424, name: "float4recv", args: &[2281], ret: 700, stable: false },
    IoFn { typ: "float4", kind: IoKind::Send, oid: 2425, name: "float4send", args: &[700], ret: 17, stable: false },
    IoFn { typ: "float8", kind: IoKind::In, oid: 214, name: "float8in", args: &[2275], ret: 701, stable: false },
    IoFn { typ: "float8", kind: IoKind::Out, oid: 215, name: "float8out", args: &[701], ret: 2275, stable: false },
    IoFn { typ: "float8", kind: IoKind::Recv, oid: 2426, name: "float8recv", args: &[2281], ret: 701, stable: false },
    IoFn { typ: "float8", kind: IoKind::Send, oid: 2427, name: "float8send", args: &[701], ret: 17, stable: false },
    IoFn { typ: "int2", kind: IoKind::In, oid: 38, name: "int2in", args: &[2275], ret: 21, stable: false },
    IoFn { typ: "int2", kind: IoKind::Out, oid: 39, name: "int2out", args: &[21], ret: 2275, stable: false },
    IoFn { typ: "int2", kind: IoKind::Recv, oid: 2404, name: "int2recv", args: &[2281], ret: 21, stable: false },
    IoFn { typ: "int2", kind: IoKind::Send, oid: 2405, name: "int2send", args: &[21], ret: 17, stable: false },
    IoFn { typ: "int2vector", kind: IoKind::In, oid: 40, name: "int2vectorin", args: &[2275], ret: 22, stable: false },
    IoFn { typ: "int2vector", kind: IoKind::Out, oid: 41, name: "int2vectorout", args: &[22], ret: 2275, stable: false },
    IoFn { typ: "int2vector", kind: IoKind::Recv, oid: 2410, name: "int2vectorrecv", args: &[2281], ret: 22, stable: false },
    IoFn { typ: "int2vector", kind: IoKind::Send, oid: 2411, name: "int2vectorsend", args: &[22], ret: 17, stable: false },
    IoFn { typ: "int4", kind: IoKind::In, oid: 42, name: "int4in", args: &[2275], ret: 23, stable: false },
    IoFn { typ: "int4", kind: IoKind::Out, oid: 43, name: "int4out", args: &[23], ret: 2275, stable: false },
    IoFn { typ: "int4", kind: IoKind::Recv, oid: 2406, name: "int4recv", args: &[2281], ret: 23, stable: false },
    IoFn { typ: "int4", kind: IoKind::Send, oid: 2407, name: "int4send", args: &[23], ret: 17, stable: false },
    IoFn { typ: "int8", kind: IoKind::In, oid: 460, name: "int8in", args: &[2275], ret: 20, stable: false },
    IoFn { typ: "int8", kind: IoKind::Out, oid: 461, name: "int8out", args: &[20], ret: 2275, stable: false },
    IoFn { typ: "int8", kind: IoKind::Recv, oid: 2408, name: "int8recv", args: &[2281], ret: 20, stable: false },
    IoFn { typ: "int8", kind: IoKind::Send, oid: 2409, name: "int8send", args: &[20], ret: 17, stable: false },
    IoFn { typ: "internal", kind: IoKind::In, oid: 2304, name: "internal_in", args: &[2275], ret: 2281, stable: false },
    IoFn { typ: "internal", kind: IoKind::Out, oid: 2305, name: "internal_out", args: &[2281], ret: 2275, stable: false },
    IoFn { typ: "interval", kind: IoKind::In, oid: 1160, name: "interval_in", args: &[2275, 26, 23], ret: 1186, stable: true },
    IoFn { typ: "interval", kind: IoKind::Out, oid: 1161, name: "interval_out", args: &[1186], ret: 2275, stable: true },
    IoFn { typ: "interval", kind: IoKind::Recv, oid: 2478, name: "interval_recv", args: &[2281, 26, 23], ret: 1186, stable: false },
    IoFn { typ: "interval", kind: IoKind::Send, oid: 2479, name: "interval_send", args: &[1186], ret: 17, stable: false },
    IoFn { typ: "json", kind: IoKind::In, oid: 321, name: "json_in", args: &[2275], ret: 114, stable: false },
    IoFn { typ: "json", kind: IoKind::Out, oid: 322, name: "json_out", args: &[114], ret: 2275, stable: false },
    IoFn { typ: "json", kind: IoKind::Recv, oid: 323, name: "json_recv", args: &[2281], ret: 114, stable: false },
    IoFn { typ: "json", kind: IoKind::Send, oid: 324, name: "json_send", args: &[114], ret: 17, stable: false },
    IoFn { typ: "jsonb", kind: IoKind::In, oid: 3806, name: "jsonb_in", args: &[2275], ret: 3802, stable: false },
    IoFn { typ: "jsonb", kind: IoKind::Out, oid: 3804, name: "jsonb_out", args: &[3802], ret: 2275, stable: false },
    IoFn { typ: "jsonb", kind: IoKind::Recv, oid: 3805, name: "jsonb_recv", args: &[2281], ret: 3802, stable: false },
    IoFn { typ: "jsonb", kind: IoKind::Send, oid: 3803, name: "jsonb_send", args: &[3802], ret: 17, stable: false },
    IoFn { typ: "tsvector", kind: IoKind::In, oid: 3610, name: "tsvectorin", args: &[2275], ret: 3614, stable: false },
    IoFn { typ: "tsvector", kind: IoKind::Out, oid: 3611, name: "tsvectorout", args: &[3614], ret: 2275, stable: false },
    IoFn { typ: "tsvector", kind: IoKind::Recv, oid: 3639, name: "tsvectorrecv", args: &[2281], ret: 3614, stable: false },
    IoFn { typ: "tsvector", kind: IoKind::Send, oid: 3638, name: "tsvectorsend", args: &[3614], ret: 17, stable: false },
    IoFn { typ: "tsquery", kind: IoKind::In, oid: 3612, name: "tsqueryin", args: &[2275], ret: 3615, stable: false },
    IoFn { typ: "tsquery", kind: IoKind::Out, oid: 3613, name: "tsqueryout", args: &[3615], ret: 2275, stable: false },
    IoFn { typ: "tsquery", kind: IoKind::Recv, oid: 3641, name: "tsqueryrecv", args: &[2281], ret: 3615, stable: false },
    IoFn { typ: "tsquery", kind: IoKind::Send, oid: 3640, name: "tsquerysend", args: &[3615], ret: 17, stable: false },
    IoFn { typ: "regconfig", kind: IoKind::In, oid: 3736, name: "regconfigin", args: &[2275], ret: 3734, stable: true },
    IoFn { typ: "regconfig", kind: IoKind::Out, oid: 3737, name: "regconfigout", args: &[3734], ret: 2275, stable: true },
    IoFn { typ: "regconfig", kind: IoKind::Recv, oid: 3738, name: "regconfigrecv", args: &[2281], ret: 3734, stable: false },
    IoFn { typ: "regconfig", kind: IoKind::Send, oid: 3739, name: "regconfigsend", args: &[3734], ret: 17, stable: false },
    IoFn { typ: "regdictionary", kind: IoKind::In, oid: 3771, name: "regdictionaryin", args: &[2275], ret: 3769, stable: true },
    IoFn { typ: "regdictionary", kind: IoKind::Out, oid: 3772, name: "regdictionaryout", args: &[3769], ret: 2275, stable: true },
    IoFn { typ: "regdictionary", kind: IoKind::Recv, oid: 3773, name: "regdictionaryrecv", args: &[2281], ret: 3769, stable: false },
    IoFn { typ: "regdictionary", kind: IoKind::Send, oid: 3774, name: "regdictionarysend", args: &[3769], ret: 17, stable: false },
    IoFn { typ: "money", kind: IoKind::In, oid: 886, name: "cash_in", args: &[2275], ret: 790, stable: true },
    IoFn { typ: "money", kind: IoKind::Out, oid: 887, name: "cash_out", args: &[790], ret: 2275, stable: true },
    IoFn { typ: "money", kind: IoKind::Recv, oid: 2492, name: "cash_recv", args: &[2281], ret: 790, stable: false },
    IoFn { typ: "money", kind: IoKind::Send, oid: 2493, name: "cash_send", args: &[790], ret: 17, stable: false },
    IoFn { typ: "name", kind: IoKind::In, oid: 34, name: "namein", args: &[2275], ret: 19, stable: false },
    IoFn { typ: "name", kind: IoKind::Out, oid: 35, name: "nameout", args: &[19], ret: 2275, stable: false },
    IoFn { typ: "name", kind: IoKind::Recv, oid: 2422, name: "namerecv", args: &[2281], ret: 19, stable: true },
    IoFn { typ: "name", kind: IoKind::Send, oid: 2423, name: "namesend", args: &[19], ret: 17, stable: true },
    IoFn { typ: "numeric", kind: IoKind::In, oid: 1701, name: "numeric_in", args: &[2275, 26, 23], ret: 1700, stable: false },
    IoFn { typ: "numeric", kind: IoKind::Out, oid: 1702, name: "numeric_out", args: &[1700], ret: 2275, stable: false },
    IoFn { typ: "numeric", kind: IoKind::Recv, oid: 2460, name: "numeric_recv", args: &[2281, 26, 23], ret: 1700, stable: false },
    IoFn { typ: "numeric", kind: IoKind::Send, oid: 2461, name: "numeric_send", args: &[1700], ret: 17, stable: false },
    IoFn { typ: "oid", kind: IoKind::In, oid: 1798, name: "oidin", args: &[2275], ret: 26, stable: false },
    IoFn { typ: "oid", kind: IoKind::Out, oid: 1799, name: "oidout", args: &[26], ret: 2275, stable: false },
    IoFn { typ: "oid", kind: IoKind::Recv, oid: 2418, name: "oidrecv", args: &[2281], ret: 26, stable: false },
    IoFn { typ: "oid", kind: IoKind::Send, oid: 2419, name: "oidsend", args: &[26], ret: 17, stable: false },
    IoFn { typ: "oidvector", kind: IoKind::In, oid: 54, name: "oidvectorin", args: &[2275], ret: 30, stable: false },
    IoFn { typ: "oidvector", kind: IoKind::Out, oid: 55, name: "oidvectorout", args: &[30], ret: 2275, stable: false },
    IoFn { typ: "oidvector", kind: IoKind::Recv, oid: 2420, name: "oidvectorrecv", args: &[2281], ret: 30, stable: false },
    IoFn { typ: "oidvector", kind: IoKind::Send, oid: 2421, name: "oidvectorsend", args: &[30], ret: 17, stable: false },
    IoFn { typ: "record", kind: IoKind::In, oid: 2290, name: "record_in", args: &[2275, 26, 23], ret: 2249, stable: true },
    IoFn { typ: "record", kind: IoKind::Out, oid: 2291, name: "record_out", args: &[2249], ret: 2275, stable: true },
    IoFn { typ: "record", kind: IoKind::Recv, oid: 2402, name: "record_recv", args: &[2281, 26, 23], ret: 2249, stable: true },
    IoFn { typ: "record", kind: IoKind::Send, oid: 2403, name: "record_send", args: &[2249], ret: 17, stable: true },
    IoFn { typ: "regclass", kind: IoKind::In, oid: 2218, name: "regclassin", args: &[2275], ret: 2205, stable: true },
    IoFn { typ: "regclass", kind: IoKind::Out, oid: 2219, name: "regclassout", args: &[2205], ret: 2275, stable: true },
    IoFn { typ: "regclass", kind: IoKind::Recv, oid: 2452, name: "regclassrecv", args: &[2281], ret: 2205, stable: false },
    IoFn { typ: "regclass", kind: IoKind::Send, oid: 2453, name: "regclasssend", args: &[2205], ret: 17, stable: false },
    IoFn { typ: "regnamespace", kind: IoKind::In, oid: 4084, name: "regnamespacein", args: &[2275], ret: 4089, stable: true },
    IoFn { typ: "regnamespace", kind: IoKind::Out, oid: 4085, name: "regnamespaceout", args: &[4089], ret: 2275, stable: true },
    IoFn { typ: "regnamespace", kind: IoKind::Recv, oid: 4087, name: "regnamespacerecv", args: &[2281], ret: 4089, stable: false },
    IoFn { typ: "regnamespace", kind: IoKind::Send, oid: 4088, name: "regnamespacesend", args: &[4089], ret: 17, stable: false },
    IoFn { typ: "regproc", kind: IoKind::In, oid: 44, name: "regprocin", args: &[2275], ret: 24, stable: true },
    IoFn { typ: "regproc", kind: IoKind::Out, oid: 45, name: "regprocout", args: &[24], ret: 2275, stable: true },
    IoFn { typ: "regproc", kind: IoKind::Recv, oid: 2444, name: "regprocrecv", args: &[2281], ret: 24, stable: false },
    IoFn { typ: "regproc", kind: IoKind::Send, oid: 2445, name: "regprocsend", args: &[24], ret: 17, stable: false },
    IoFn { typ: "regtype", kind: IoKind::In, oid: 2220, name: "regtypein", args: &[2275], ret: 2206, stable: true },
    IoFn { typ: "regtype", kind: IoKind::Out, oid: 2221, name: "regtypeout", args: &[2206], ret: 2275, stable: true },
    IoFn { typ: "regtype", kind: IoKind::Recv, oid: 2454, name: "regtyperecv", args: &[2281], ret: 2206, stable: false },
    IoFn { typ: "regtype", kind: IoKind::Send, oid: 2455, name: "regtypesend", args: &[2206], ret: 17, stable: false },
    IoFn { typ: "text", kind: IoKind::In, oid: 46, name: "textin", args: &[2275], ret: 25, stable: false },
    IoFn { typ: "text", kind: IoKind::Out, oid: 47, name: "textout", args: &[25], ret: 2275, stable: false },
    IoFn { typ: "text", kind: IoKind::Recv, oid: 2414, name: "textrecv", args: &[2281], ret: 25, stable: true },
    IoFn { typ: "text", kind: IoKind::Send, oid: 2415, name: "textsend", args: &[25], ret: 17, stable: true },
    IoFn { typ: "time", kind: IoKind::In, oid: 1143, name: "time_in", args: &[2275, 26, 23], ret: 1083, stable: true },
    IoFn { typ: "time", kind: IoKind::Out, oid: 1144, name: "time_out", args: &[1083], ret: 2275, stable: false },
    IoFn { typ: "time", kind: IoKind::Recv, oid: 2470, name: "time_recv", args: &[2281, 26, 23], ret: 1083, stable: false },
    IoFn { typ: "time", kind: IoKind::Send, oid: 2471, name: "time_send", args: &[1083], ret: 17, stable: false },
    IoFn { typ: "timestamp", kind: IoKind::In, oid: 1312, name: "timestamp_in", args: &[2275, 26, 23], ret: 1114, stable: true },
    IoFn { typ: "timestamp", kind: IoKind::Out, oid: 1313, name: "timestamp_out", args: &[1114], ret: 2275, stable: true },
    IoFn { typ: "timestamp", kind: IoKind::Recv, oid: 2474, name: "timestamp_recv", args: &[2281, 26, 23], ret: 1114, stable: false },
    IoFn { typ: "timestamp", kind: IoKind::Send, oid: 2475, name: "timestamp_send", args: &[1114], ret: 17, stable: false },
    IoFn { typ: "timestamptz", kind: IoKind::In, oid: 1150, name: "timestamptz_in", args: &[2275, 26, 23], ret: 1184, stable: true },
    IoFn { typ: "timestamptz", kind: IoKind::Out, oid: 1151, name: "timestamptz_out", args: &[1184], ret: 2275, stable: true },
    IoFn { typ: "timestamptz", kind: IoKind::Recv, oid: 2476, name: "timestamptz_recv", args: &[2281, 26, 23], ret: 1184, stable: false },
    IoFn { typ: "timestamptz", kind: IoKind::Send, oid: 2477, name: "timestamptz_send", args: &[1184], ret: 17, stable: false },
    IoFn { typ: "timetz", kind: IoKind::In, oid: 1350, name: "timetz_in", args: &[2275, 26, 23], ret: 1266, stable: true },
    IoFn { typ: "timetz", kind: IoKind::Out, oid: 1351, name: "timetz_out", args: &[1266], ret: 2275, stable: false },
    IoFn { typ: "timetz", kind: IoKind::Recv, oid: 2472, name: "timetz_recv", args: &[2281, 26, 23], ret: 1266, stable: false },
    IoFn { typ: "timetz", kind: IoKind::Send, oid: 2473, name: "timetz_send", args: &[1266], ret: 17, stable: false },
    IoFn { typ: "trigger", kind: IoKind::In, oid: 2300, name: "trigger_in", args: &[2275], ret: 2279, stable: false },
    IoFn { typ: "trigger", kind: IoKind::Out, oid: 2301, name: "trigger_out", args: &[2279], ret: 2275, stable: false },
    IoFn { typ: "unknown", kind: IoKind::In, oid: 109, name: "unknownin", args: &[2275], ret: 705, stable: false },
    IoFn { typ: "unknown", kind: IoKind::Out, oid: 110, name: "unknownout", args: &[705], ret: 2275, stable: false },
    IoFn { typ: "unknown", kind: IoKind::Recv, oid: 2416, name: "unknownrecv", args: &[2281], ret: 705, stable: false },
    IoFn { typ: "unknown", kind: IoKind::Send, oid: 2417, name: "unknownsend", args: &[705], ret: 17, stable: false },
    IoFn { typ: "uuid", kind: IoKind::In, oid: 2952, name: "uuid_in", args: &[2275], ret: 2950, stable: false },
    IoFn { typ: "uuid", kind: IoKind::Out, oid: 2953, name: "uuid_out", args: &[2950], ret: 2275, stable: false },
    IoFn { typ: "uuid", kind: IoKind::Recv, oid: 2961, name: "uuid_recv", args: &[2281], ret: 2950, stable: false },
    IoFn { typ: "uuid", kind: IoKind::Send, oid: 2962, name: "uuid_send", args: &[2950], ret: 17, stable: false },
    IoFn { typ: "varbit", kind: IoKind::In, oid: 1579, name: "varbit_in", args: &[2275, 26, 23], ret: 1562, stable: false },
    IoFn { typ: "varbit", kind: IoKind::Out, oid: 1580, name: "varbit_out", args: &[1562], ret: 2275, stable: false },
    IoFn { typ: "varbit", kind: IoKind::Recv, oid: 2458, name: "varbit_recv", args: &[2281, 26, 23], ret: 1562, stable: false },
    IoFn { typ: "varbit", kind: IoKind::Send, oid: 2459, name: "varbit_send", args: &[1562], ret: 17, stable: false },
    IoFn { typ: "varchar", kind: IoKind::In, oid: 1046, name: "varcharin", args: &[2275, 26, 23], ret: 1043, stable: false },
    IoFn { typ: "varchar", kind: IoKind::Out, oid: 1047, name: "varcharout", args: &[1043], ret: 2275, stable: false },
    IoFn { typ: "varchar", kind: IoKind::Recv, oid: 2432, name: "varcharrecv", args: &[2281, 26, 23], ret: 1043, stable: true },
    IoFn { typ: "varchar", kind: IoKind::Send, oid: 2433, name: "varcharsend", args: &[1043], ret: 17, stable: true },
    IoFn { typ: "void", kind: IoKind::In, oid: 2298, name: "void_in", args: &[2275], ret: 2278, stable: false },
    IoFn { typ: "void", kind: IoKind::Out, oid: 2299, name: "void_out", args: &[2278], ret: 2275, stable: false },
    IoFn { typ: "void", kind: IoKind::Recv, oid: 3120, name: "void_recv", args: &[2281], ret: 2278, stable: false },
    IoFn { typ: "void", kind: IoKind::Send, oid: 3121, name: "void_send", args: &[2278], ret: 17, stable: false },
];

/// The I/O function of kind `kind` of the type pg_type names `typname`.
pub fn of_type(typname: &str, kind: IoKind) -> Option<&'static IoFn> {
    let key = if typname.len() > 1 && typname.starts_with('_') {
        "array"
    } else {
        typname
    };
    IO_FUNCTIONS.iter().find(|f| f.typ == key && f.kind == kind)
}

/// The I/O function with this OID.
pub fn by_oid(oid: u32) -> Option<&'static IoFn> {
    IO_FUNCTIONS.iter().find(|f| f.oid == oid)
}

/// The I/O function with this name (names are unique among them).
pub fn by_name(name: &str) -> Option<&'static IoFn> {
    IO_FUNCTIONS.iter().find(|f| f.name == name)
}

/// The send function `name` of a concrete type (its argument type), if
/// it is one SQL can call.
fn send_target(name: &str) -> Option<DataType> {
    let f = by_name(name).filter(|f| f.kind == IoKind::Send)?;
    match f.typ {
        "anyarray" | "array" | "enum" | "cstring" | "record" | "unknown" | "void"
        | "int2vector" | "oidvector" => None,
        _ => DataType::from_oid(*f.args.first()?),
    }
}

/// Whether `name` is a send function SQL can call.
pub(crate) fn is_send(name: &str) -> bool {
    send_target(name).is_some()
}

/// `float4send(real)` and the other send functions of concrete types:
/// the argument's binary form (what a binary-format result column holds).
pub(crate) fn resolve_send(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    let ty = send_target(name)?;
    if !matches!(args, [a] if crate::functions::passes_as(*a, ty)) {
        return Some(Err(no_function(name, args)));
    }
    let imp: Imp = match ty {
        DataType::Oid | DataType::Reg(_) => |a, _| send(a, DataType::Oid),
        _ => |a, _| send(a, DataType::Text),
    };
    let name = by_name(name).expect("send_target found it").name;
    Some(Ok(Resolved::listed(
        &[name],
        name,
        imp,
        vec![ty],
        DataType::Bytea,
        false,
    )))
}

fn send(a: &[Value], as_type: DataType) -> Result<Value, DbError> {
    Ok(match &a[0] {
        Value::Null => Value::Null,
        v => Value::Bytea(v.to_binary_as(as_type).into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_oids_are_unique_and_every_type_has_input_and_output() {
        for f in IO_FUNCTIONS {
            assert!(std::ptr::eq(by_oid(f.oid).unwrap(), f), "{}", f.name);
            assert!(std::ptr::eq(by_name(f.name).unwrap(), f), "{}", f.name);
            assert!(of_type(f.typ, IoKind::In).is_some(), "{}", f.typ);
            assert!(of_type(f.typ, IoKind::Out).is_some(), "{}", f.typ);
        }
        assert_eq!(of_type("_int4", IoKind::In).unwrap().name, "array_in");
        assert_eq!(of_type("int4", IoKind::Send).unwrap().oid, 2407);
    }
}
