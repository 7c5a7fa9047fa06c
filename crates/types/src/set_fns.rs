//! Built-in set-returning functions over values: `regexp_matches`,
//! `regexp_split_to_table`, `jsonb_array_elements[_text]`,
//! `jsonb_each[_text]` and `jsonb_object_keys` (and their `json_` twins,
//! which read the same text).
//!
//! Each is a [`SetFn`]: the binder asks it for its parameter types and
//! result columns ([`SetFn::bind`]), the executor for its rows
//! ([`SetFn::rows`]), in a select list (one column, or a record of them, as
//! PostgreSQL's `SELECT jsonb_each(j)` gives `(k,v)`) and in FROM (the
//! columns as the relation's):
//!
//! ```text
//!   SELECT * FROM jsonb_each('{"a":1,"b":[2]}')      key | value
//!                                                   -----+-------
//!                                                    a   | 1
//!                                                    b   | [2]
//!   SELECT regexp_matches('a1b22', '\d+', 'g')       {1}, {22}
//! ```
//!
//! Rows are computed whole, at most SET_ROWS_MAX per call (54000 past
//! it), as the inputs are single values already in memory.
//! `json[b]_populate_record[set]` and `json[b]_to_record[set]` are
//! [`SetFn::Populate`], made by the binder with the record type it
//! resolved (the base argument's type or the column definition list; see
//! [`crate::json_populate`]). Left out: `json_each` keeping json's
//! duplicate keys and key order (the `json_` forms answer as the jsonb
//! ones do).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::{DataType, RecordType};
use crate::json::{parse, write_json, Json};
use crate::value::Value;

/// A function's result columns: names and types.
pub type Columns = Vec<(&'static str, DataType)>;

/// The most rows one call may return.
pub const SET_ROWS_MAX: usize = 10_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetFn {
    RegexpMatches,
    RegexpSplitToTable,
    ArrayElements {
        text: bool,
        json: bool,
    },
    Each {
        text: bool,
        json: bool,
    },
    ObjectKeys {
        json: bool,
    },
    /// string_to_table(string, delimiter [, null_string]): the elements
    /// string_to_array would make, one per row.
    StringToTable,
    /// unnest(tsvector): lexeme, positions, weights.
    TsUnnest,
    /// ts_token_type(parser): the default parser's token types.
    TsTokenType,
    /// ts_parse(parser, text): the tokens (type id, text).
    TsParse,
    /// ts_debug([config,] text): each token, its type, the dictionary
    /// that took it and the lexemes.
    TsDebug,
    /// pg_get_keywords(): the grammar's keywords, their categories and
    /// whether each may be a bare column label.
    Keywords,
    /// json[b]_populate_record[set] (`base`: a base record comes first)
    /// and json[b]_to_record[set] of record type `rt`.
    Populate {
        rt: &'static RecordType,
        json: bool,
        base: bool,
        set: bool,
    },
}

/// Every function of this module, by its SQL name.
const NAMES: &[(&str, SetFn)] = {
    use SetFn::*;
    &[
        ("regexp_matches", RegexpMatches),
        ("regexp_split_to_table", RegexpSplitToTable),
        ("string_to_table", StringToTable),
        (
            "jsonb_array_elements",
            ArrayElements {
                text: false,
                json: false,
            },
        ),
        (
            "jsonb_array_elements_text",
            ArrayElements {
                text: true,
                json: false,
            },
        ),
        (
            "json_array_elements",
            ArrayElements {
                text: false,
                json: true,
            },
        ),
        (
            "json_array_elements_text",
            ArrayElements {
                text: true,
                json: true,
            },
        ),
        (
            "jsonb_each",
            Each {
                text: false,
                json: false,
            },
        ),
        (
            "jsonb_each_text",
            Each {
                text: true,
                json: false,
            },
        ),
        (
            "json_each",
            Each {
                text: false,
                json: true,
            },
        ),
        (
            "json_each_text",
            Each {
                text: true,
                json: true,
            },
        ),
        ("ts_token_type", TsTokenType),
        ("pg_get_keywords", Keywords),
        ("ts_parse", TsParse),
        ("ts_debug", TsDebug),
        ("jsonb_object_keys", ObjectKeys { json: false }),
        ("json_object_keys", ObjectKeys { json: true }),
    ]
};

impl SetFn {
    pub fn by_name(name: &str) -> Option<SetFn> {
        NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        if let SetFn::Populate {
            json, base, set, ..
        } = self
        {
            return populate_name(json, base, set);
        }
        // unnest is the arrays' unless its argument is a tsvector (the
        // binder switches), so by_name does not answer for it.
        if self == SetFn::TsUnnest {
            return "unnest";
        }
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .expect("every SetFn is named")
    }

    /// The JSON type of a json_/jsonb_ function's input and values.
    fn doc_type(json: bool) -> DataType {
        if json {
            DataType::Json
        } else {
            DataType::Jsonb
        }
    }

    /// For these argument types: the types the arguments are coerced to
    /// and the result columns; 42883 if no such function.
    pub fn bind(self, args: &[DataType]) -> Result<(Vec<DataType>, Columns), DbError> {
        let text = DataType::Text;
        let textish = |t: &DataType| t.is_string() || *t == DataType::Unknown;
        let ok = match self {
            SetFn::RegexpMatches | SetFn::RegexpSplitToTable | SetFn::StringToTable => {
                (2..=3).contains(&args.len()) && args.iter().all(textish)
            }
            SetFn::ArrayElements { json, .. }
            | SetFn::Each { json, .. }
            | SetFn::ObjectKeys { json } => {
                args.len() == 1 && (args[0] == DataType::Unknown || args[0] == Self::doc_type(json))
            }
            SetFn::TsUnnest => args == [DataType::TsVector],
            SetFn::Keywords => args.is_empty(),
            SetFn::TsTokenType => {
                args.len() == 1
                    && (textish(&args[0])
                        || args[0].is_integer()
                        || args[0].base() == DataType::Oid)
            }
            SetFn::TsParse => {
                args.len() == 2
                    && (textish(&args[0])
                        || args[0].is_integer()
                        || args[0].base() == DataType::Oid)
                    && textish(&args[1])
            }
            SetFn::TsDebug => match args {
                [t] => textish(t),
                [c, t] => {
                    (*c == DataType::Unknown
                        || *c == crate::tsearch::catalog::REGCONFIG
                        || c.is_integer())
                        && textish(t)
                }
                _ => false,
            },
            SetFn::Populate { json, base, .. } => {
                let doc = args.last().copied();
                args.len() == 1 + usize::from(base)
                    && matches!(doc, Some(t) if t == DataType::Unknown || t == Self::doc_type(json))
            }
        };
        if !ok {
            return Err(crate::functions::no_function(self.name(), args));
        }
        Ok(match self {
            SetFn::RegexpMatches => (
                vec![text; args.len()],
                vec![("regexp_matches", DataType::Text.array_of().expect("text[]"))],
            ),
            SetFn::RegexpSplitToTable | SetFn::StringToTable => {
                (vec![text; args.len()], vec![(self.name(), text)])
            }
            SetFn::ArrayElements {
                text: as_text,
                json,
            } => (
                vec![Self::doc_type(json)],
                vec![("value", if as_text { text } else { Self::doc_type(json) })],
            ),
            SetFn::Each {
                text: as_text,
                json,
            } => (
                vec![Self::doc_type(json)],
                vec![
                    ("key", text),
                    ("value", if as_text { text } else { Self::doc_type(json) }),
                ],
            ),
            SetFn::ObjectKeys { json } => (vec![Self::doc_type(json)], vec![(self.name(), text)]),
            SetFn::TsUnnest => (
                vec![DataType::TsVector],
                vec![
                    ("lexeme", text),
                    ("positions", DataType::Int2.array_of().expect("int2[]")),
                    ("weights", text.array_of().expect("text[]")),
                ],
            ),
            SetFn::Keywords => (
                Vec::new(),
                vec![
                    ("word", text),
                    ("catcode", text),
                    ("barelabel", DataType::Bool),
                    ("catdesc", text),
                    ("baredesc", text),
                ],
            ),
            SetFn::TsTokenType => (
                vec![parser_arg(args[0])],
                vec![
                    ("tokid", DataType::Int4),
                    ("alias", text),
                    ("description", text),
                ],
            ),
            SetFn::TsParse => (
                vec![parser_arg(args[0]), text],
                vec![("tokid", DataType::Int4), ("token", text)],
            ),
            SetFn::TsDebug => {
                let mut params = vec![text];
                if args.len() == 2 {
                    params.insert(0, crate::tsearch::catalog::REGCONFIG);
                }
                (
                    params,
                    vec![
                        ("alias", text),
                        ("description", text),
                        ("token", text),
                        ("dictionaries", text.array_of().expect("text[]")),
                        ("dictionary", text),
                        ("lexemes", text.array_of().expect("text[]")),
                    ],
                )
            }
            SetFn::Populate { rt, json, base, .. } => {
                let mut params = Vec::with_capacity(2);
                if base {
                    params.push(DataType::Record(rt));
                }
                params.push(Self::doc_type(json));
                let cols = rt.fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
                (params, cols)
            }
        })
    }

    /// The rows for these (coerced) arguments. NULL input: no rows, as
    /// PostgreSQL's strict set-returning functions.
    pub fn rows(self, args: &[Value], ctx: &EvalCtx) -> Result<Vec<Vec<Value>>, DbError> {
        if let SetFn::Populate {
            rt,
            json,
            base,
            set,
        } = self
        {
            return populate_rows(rt, json, base, set, args, ctx);
        }
        // string_to_table is not strict: a NULL delimiter splits into
        // characters, a NULL null_string matches nothing.
        let strict = self != SetFn::StringToTable;
        if args.first().is_some_and(Value::is_null) || (strict && args.iter().any(Value::is_null)) {
            return Ok(Vec::new());
        }
        let rows: Vec<Vec<Value>> = match self {
            SetFn::RegexpMatches => {
                let s: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
                crate::regex::regexp_matches(s[0], s[1], s.get(2).copied())?
                    .into_iter()
                    .map(|v| vec![v])
                    .collect()
            }
            SetFn::RegexpSplitToTable => {
                let s: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
                crate::regex::split(s[0], s[1], s.get(2).copied(), "regexp_split_to_table")?
                    .into_iter()
                    .map(|v| vec![v])
                    .collect()
            }
            SetFn::StringToTable => match crate::array_fns::split_string(args) {
                Value::Array(a) => a.items.iter().map(|v| vec![v.clone()]).collect(),
                _ => Vec::new(),
            },
            // json's own text: elements and fields as written, in order.
            SetFn::ArrayElements { text, json: true } => {
                let d = args[0].as_str().unwrap_or_default();
                match crate::json_ops::raw_elements(d) {
                    Some(items) => items
                        .into_iter()
                        .map(|v| vec![crate::json_ops::raw_value(v, text)])
                        .collect(),
                    None if d.trim_start().starts_with('{') => {
                        return Err(not_an(&format!("call {} on a non-array", self.name())))
                    }
                    None => return Err(not_an(&format!("call {} on a scalar", self.name()))),
                }
            }
            SetFn::Each { text, json: true } => {
                let d = args[0].as_str().unwrap_or_default();
                match crate::json_ops::raw_fields(d) {
                    Some(fields) => fields
                        .into_iter()
                        .map(|(k, v)| vec![Value::text(&k), crate::json_ops::raw_value(v, text)])
                        .collect(),
                    None if d.trim_start().starts_with('[') => {
                        return Err(not_an("deconstruct an array as an object"))
                    }
                    None => return Err(not_an("deconstruct a scalar")),
                }
            }
            SetFn::ArrayElements { text, json } => match doc(&args[0])? {
                Json::Arr(items) => items.iter().map(|v| vec![out(v, text, json)]).collect(),
                Json::Obj(_) => return Err(not_an("extract elements from an object")),
                _ => return Err(not_an("extract elements from a scalar")),
            },
            SetFn::Each { text, json } => match doc(&args[0])? {
                Json::Obj(fields) => fields
                    .iter()
                    .map(|(k, v)| vec![Value::text(k), out(v, text, json)])
                    .collect(),
                _ => return Err(not_an(&format!("call {} on a non-object", self.name()))),
            },
            SetFn::ObjectKeys { .. } => match doc(&args[0])? {
                Json::Obj(fields) => fields.iter().map(|(k, _)| vec![Value::text(k)]).collect(),
                Json::Arr(_) => return Err(not_an(&format!("call {} on an array", self.name()))),
                _ => return Err(not_an(&format!("call {} on a scalar", self.name()))),
            },
            SetFn::TsUnnest => match &args[0] {
                Value::TsVector(v) => crate::tsearch::catalog::unnest_rows(v),
                _ => return Err(DbError::internal("unnest of a non-tsvector")),
            },
            SetFn::Keywords => keyword_rows(),
            SetFn::TsTokenType => {
                crate::tsearch::catalog::check_parser(&args[0])?;
                crate::tsearch::catalog::token_type_rows()
            }
            SetFn::TsParse => {
                crate::tsearch::catalog::check_parser(&args[0])?;
                crate::tsearch::catalog::parse_rows(args[1].as_str().unwrap_or_default())
            }
            SetFn::TsDebug => {
                let (cfg, t) = match args {
                    [c, t] => (c.as_i64().unwrap_or(0) as u32, t),
                    [t] => (ctx.ts_config, t),
                    _ => return Err(DbError::internal("ts_debug arguments")),
                };
                crate::tsearch::catalog::debug_rows(cfg, t.as_str().unwrap_or_default())?
            }
            SetFn::Populate { .. } => return Err(DbError::internal("populate rows above")),
        };
        if rows.len() > SET_ROWS_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("{} returns at most {SET_ROWS_MAX} rows", self.name()),
            ));
        }
        Ok(rows)
    }
}

/// A text search parser argument: its name (text) or OID.
fn parser_arg(t: DataType) -> DataType {
    if t.is_integer() || t.base() == DataType::Oid {
        DataType::Oid
    } else {
        DataType::Text
    }
}

/// The SQL name of a [`SetFn::Populate`].
fn populate_name(json: bool, base: bool, set: bool) -> &'static str {
    match (json, base, set) {
        (true, true, false) => "json_populate_record",
        (true, true, true) => "json_populate_recordset",
        (false, true, false) => "jsonb_populate_record",
        (false, true, true) => "jsonb_populate_recordset",
        (true, false, false) => "json_to_record",
        (true, false, true) => "json_to_recordset",
        (false, false, false) => "jsonb_to_record",
        (false, false, true) => "jsonb_to_recordset",
    }
}

/// The kind of populate function `name` is: (json, base, set).
pub fn populate_kind(name: &str) -> Option<(bool, bool, bool)> {
    [true, false].into_iter().find_map(|json| {
        [true, false].into_iter().find_map(|base| {
            [true, false]
                .into_iter()
                .find(|set| populate_name(json, base, *set) == name)
                .map(|set| (json, base, set))
        })
    })
}

/// The rows of a [`SetFn::Populate`]: each record's fields.
fn populate_rows(
    rt: &RecordType,
    json: bool,
    base: bool,
    set: bool,
    args: &[Value],
    ctx: &EvalCtx,
) -> Result<Vec<Vec<Value>>, DbError> {
    let (base_value, doc) = match (base, args) {
        (true, [b, d]) => (b, d),
        (false, [d]) => (&Value::Null, d),
        _ => return Err(DbError::internal("populate function arguments")),
    };
    let fields = |v: Value| match v {
        Value::Record(f) => f.to_vec(),
        _ => vec![Value::Null; rt.fields.len()],
    };
    if !set {
        let v = crate::json_populate::populate_record(rt, base_value, doc, ctx)?;
        return Ok(vec![fields(v)]);
    }
    let name = populate_name(json, base, set);
    let recs = crate::json_populate::populate_recordset(rt, base_value, doc, name, json, ctx)?;
    if recs.len() > SET_ROWS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("{name} returns at most {SET_ROWS_MAX} rows"),
        ));
    }
    Ok(recs.into_iter().map(fields).collect())
}

fn not_an(what: &str) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, format!("cannot {what}"))
}

fn doc(v: &Value) -> Result<Json, DbError> {
    match v {
        Value::Jsonb(s) | Value::Text(s) => parse(s),
        other => Err(DbError::internal(format!("JSON operand {other:?}"))),
    }
}

/// A value as the function returns it: text (a string unquoted, null as
/// SQL NULL) or json/jsonb.
fn out(v: &Json, text: bool, json: bool) -> Value {
    match (v, text) {
        (Json::Null, true) => Value::Null,
        (Json::Str(s), true) => Value::text(s),
        _ => {
            let mut s = String::new();
            write_json(&mut s, v);
            // A json value is held as text, like the json type's others.
            if text || json {
                Value::Text(Arc::from(s))
            } else {
                Value::Jsonb(Arc::from(s))
            }
        }
    }
}

/// pg_get_keywords()'s rows, worded as PostgreSQL's (catcode is its
/// `"char"`, here text).
fn keyword_rows() -> Vec<Vec<Value>> {
    use nestor_common::keywords::{KeywordCategory as K, ALL_KEYWORDS};
    ALL_KEYWORDS
        .iter()
        .map(|&(word, cat, bare)| {
            let (code, desc) = match cat {
                K::Unreserved => ("U", "unreserved"),
                K::ColName => ("C", "unreserved (cannot be function or type name)"),
                K::TypeFuncName => ("T", "reserved (can be function or type name)"),
                K::Reserved => ("R", "reserved"),
            };
            let label = if bare {
                "can be bare label"
            } else {
                "requires AS"
            };
            vec![
                Value::text(word),
                Value::text(code),
                Value::Bool(bare),
                Value::text(desc),
                Value::text(label),
            ]
        })
        .collect()
}
