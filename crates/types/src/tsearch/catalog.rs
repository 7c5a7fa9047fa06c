//! The SQL surface of text search: pg_proc's functions (by their SQL
//! names), pg_operator's operators (each the function PostgreSQL
//! implements it with) and their resolution.
//!
//! Resolution follows the geometric types' catalog: an argument matches
//! a parameter of its own type, an unknown literal any parameter, a
//! string type `text`; among several candidates the one with most exact
//! matches wins. Every function is strict (a NULL argument gives NULL).
//! The one-argument forms (`to_tsvector(text)`, `to_tsquery(text)`...)
//! read the session's default_text_search_config from the [`EvalCtx`].

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use super::config::{self, QueryKind};
use super::query::TsQuery;
use super::vector::{Lexeme, TsVector, STR_LEN_MAX};
use super::{ops, rank};
use crate::array::Array;
use crate::context::EvalCtx;
use crate::datatype::{DataType, RegKind};
use crate::functions::{Imp, Resolved, ScalarFn, Volatility};
use crate::json::Json;
use crate::value::Value;

const TV: DataType = DataType::TsVector;
const TQ: DataType = DataType::TsQuery;
const CFG: DataType = DataType::Reg(RegKind::Config);
const DICT: DataType = DataType::Reg(RegKind::Dictionary);
const TX: DataType = DataType::Text;
const JS: DataType = DataType::Json;
const JB: DataType = DataType::Jsonb;
const BO: DataType = DataType::Bool;
const I4: DataType = DataType::Int4;
const F4: DataType = DataType::Float4;
const TXA: DataType = DataType::Array(&DataType::Text);
const F4A: DataType = DataType::Array(&DataType::Float4);

/// One function: SQL name, parameter types, result type, implementation.
pub struct Def {
    pub name: &'static str,
    pub args: &'static [DataType],
    pub ret: DataType,
    imp: Imp,
    /// Reads the session's configuration (stable, not immutable).
    stable: bool,
}

const fn d(name: &'static str, args: &'static [DataType], ret: DataType, imp: Imp) -> Def {
    Def {
        name,
        args,
        ret,
        imp,
        stable: false,
    }
}

const fn s(name: &'static str, args: &'static [DataType], ret: DataType, imp: Imp) -> Def {
    Def {
        name,
        args,
        ret,
        imp,
        stable: true,
    }
}

fn internal(what: &str) -> DbError {
    DbError::new(
        SqlState::InternalError,
        format!("text search function got a value that is not a {what}"),
    )
}

fn tv(v: &Value) -> Result<&TsVector, DbError> {
    match v {
        Value::TsVector(t) => Ok(t),
        _ => Err(internal("tsvector")),
    }
}

fn tq(v: &Value) -> Result<&TsQuery, DbError> {
    match v {
        Value::TsQuery(t) => Ok(t),
        _ => Err(internal("tsquery")),
    }
}

fn txt(v: &Value) -> Result<&str, DbError> {
    v.as_str().ok_or_else(|| internal("text"))
}

fn cfg(v: &Value) -> Result<u32, DbError> {
    v.as_i64()
        .and_then(|o| u32::try_from(o).ok())
        .ok_or_else(|| internal("regconfig"))
}

fn i4(v: &Value) -> Result<i32, DbError> {
    v.as_i64()
        .and_then(|o| i32::try_from(o).ok())
        .ok_or_else(|| internal("integer"))
}

fn vec_value(t: TsVector) -> Result<Value, DbError> {
    Ok(Value::TsVector(Arc::new(t)))
}

fn query_value(q: TsQuery) -> Result<Value, DbError> {
    Ok(Value::TsQuery(Arc::new(q)))
}

fn notices(n: Vec<String>) {
    for m in n {
        super::notice(m);
    }
}

fn any_null(a: &[Value]) -> bool {
    a.iter().any(Value::is_null)
}

/// Strings of a text[] argument (NULL elements: `nulls` names them).
fn strings(v: &Value, nulls: &str) -> Result<Vec<String>, DbError> {
    let Value::Array(a) = v else {
        return Err(internal("text[]"));
    };
    a.items
        .iter()
        .map(|x| match x {
            Value::Null => Err(DbError::new(
                SqlState::NullValueNotAllowed,
                nulls.to_string(),
            )),
            x => Ok(x.as_str().unwrap_or_default().to_string()),
        })
        .collect()
}

fn to_tsvector_cfg(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let mut n = Vec::new();
    let v = config::to_tsvector(cfg(&a[0])?, txt(&a[1])?, &mut n)?;
    notices(n);
    vec_value(v)
}

fn to_tsvector_cur(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let mut n = Vec::new();
    let v = config::to_tsvector(ctx.ts_config, txt(&a[0])?, &mut n)?;
    notices(n);
    vec_value(v)
}

use super::json_docs::{J_BOOL, J_KEY, J_NUMERIC, J_STRING};

fn json_flags(filter: &Value) -> Result<u8, DbError> {
    let hint = "Possible values are: \"string\", \"numeric\", \"boolean\", \"key\", and \"all\".";
    let doc = crate::json::parse(filter.as_str().ok_or_else(|| internal("jsonb"))?)?;
    let items = match doc {
        Json::Arr(items) => items,
        Json::Obj(_) => {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "wrong flag type, only arrays and scalars are allowed",
            ))
        }
        scalar => vec![scalar],
    };
    let mut flags = 0;
    for it in items {
        let Json::Str(s) = it else {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "flag array element is not a string",
            )
            .with_hint(hint));
        };
        flags |= match s.to_ascii_lowercase().as_str() {
            "all" => J_STRING | J_NUMERIC | J_BOOL | J_KEY,
            "key" => J_KEY,
            "string" => J_STRING,
            "numeric" => J_NUMERIC,
            "boolean" => J_BOOL,
            _ => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("wrong flag in flag array: \"{s}\""),
                )
                .with_hint(hint))
            }
        };
    }
    Ok(flags)
}

/// jsonb_to_tsvector_worker: each selected string parsed in turn, a
/// position skipped between strings that gave words. `doc` is a json
/// value (its text) or a jsonb one.
fn json_tsvector(cfg_oid: u32, doc: &Value, flags: u8) -> Result<Value, DbError> {
    config::check_config(cfg_oid)?;
    let strs = match doc {
        Value::Jsonb(j) => super::json_docs::jsonb_strings(j, flags)?,
        v => super::json_docs::json_strings(v.as_str().ok_or_else(|| internal("json"))?, flags)?,
    };
    let mut words = Vec::new();
    let mut pos = 0u32;
    let mut n = Vec::new();
    for s in strs {
        let w = config::parse_text(cfg_oid, &s, &mut pos, &mut n);
        if !w.is_empty() {
            pos += 1;
        }
        words.extend(w);
    }
    notices(n);
    vec_value(config::make_tsvector(words)?)
}

fn json_tsv_cfg(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    json_tsvector(cfg(&a[0])?, &a[1], J_STRING)
}

fn json_tsv_cur(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    json_tsvector(ctx.ts_config, &a[0], J_STRING)
}

fn json_tsv_filter_cfg(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let f = json_flags(&a[2])?;
    json_tsvector(cfg(&a[0])?, &a[1], f)
}

fn json_tsv_filter_cur(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let f = json_flags(&a[1])?;
    json_tsvector(ctx.ts_config, &a[0], f)
}

fn query_fn(cfg_oid: u32, text: &str, kind: QueryKind) -> Result<Value, DbError> {
    let (q, n) = config::to_tsquery(cfg_oid, text, kind)?;
    notices(n);
    query_value(q)
}

macro_rules! query_fns {
    ($cfg:ident, $cur:ident, $kind:expr) => {
        fn $cfg(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
            query_fn(cfg(&a[0])?, txt(&a[1])?, $kind)
        }
        fn $cur(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
            query_fn(ctx.ts_config, txt(&a[0])?, $kind)
        }
    };
}

query_fns!(to_tsquery_cfg, to_tsquery_cur, QueryKind::Standard);
query_fns!(plain_cfg, plain_cur, QueryKind::Plain);
query_fns!(phrase_cfg, phrase_cur, QueryKind::Phrase);
query_fns!(web_cfg, web_cur, QueryKind::Web);

fn match_vq(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Bool(ops::matches(tv(&a[0])?, tq(&a[1])?)?))
}

fn match_qv(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Bool(ops::matches(tv(&a[1])?, tq(&a[0])?)?))
}

/// `text @@ tsquery`: the text through the session's configuration.
fn match_tq(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let mut n = Vec::new();
    let v = config::to_tsvector(ctx.ts_config, txt(&a[0])?, &mut n)?;
    notices(n);
    Ok(Value::Bool(ops::matches(&v, tq(&a[1])?)?))
}

/// `text @@ text`: to_tsvector(a) @@ plainto_tsquery(b).
fn match_tt(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let mut n = Vec::new();
    let v = config::to_tsvector(ctx.ts_config, txt(&a[0])?, &mut n)?;
    let (q, qn) = config::to_tsquery(ctx.ts_config, txt(&a[1])?, QueryKind::Plain)?;
    notices(n);
    notices(qn);
    Ok(Value::Bool(ops::matches(&v, &q)?))
}

fn setweight2(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let w = ops::weight_code(txt(&a[1])?)?;
    vec_value(ops::setweight(tv(&a[0])?, w, None))
}

fn setweight3(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let w = ops::weight_code(txt(&a[1])?)?;
    // NULL elements match nothing (tsvector_setweight_by_filter).
    let Value::Array(arr) = &a[2] else {
        return Err(internal("text[]"));
    };
    let words: Vec<String> = arr
        .items
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    vec_value(ops::setweight(tv(&a[0])?, w, Some(&words)))
}

fn strip(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    vec_value(ops::strip(tv(&a[0])?))
}

fn length(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Int4(tv(&a[0])?.entries.len() as i32))
}

fn numnode(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Int4(tq(&a[0])?.size() as i32))
}

fn querytree(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::text(&ops::querytree(tq(&a[0])?)))
}

fn to_array(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let items = tv(&a[0])?.lexemes().map(Value::text).collect();
    Ok(Value::Array(Arc::new(Array::from_items(
        DataType::Text,
        items,
    ))))
}

fn from_array(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let words = strings(&a[0], "lexeme array may not contain nulls")?;
    if words.iter().any(String::is_empty) {
        return Err(DbError::new(
            SqlState::ZeroLengthCharacterString,
            "lexeme array may not contain empty strings",
        ));
    }
    if let Some(w) = words.iter().find(|w| w.len() >= STR_LEN_MAX) {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "word is too long ({} bytes, max {} bytes)",
                w.len(),
                STR_LEN_MAX - 1
            ),
        ));
    }
    vec_value(TsVector::from_unsorted(
        words
            .into_iter()
            .map(|w| Lexeme {
                word: w.into(),
                pos: Vec::new(),
            })
            .collect(),
    ))
}

fn delete_one(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    vec_value(ops::delete(tv(&a[0])?, &[txt(&a[1])?.to_string()]))
}

fn delete_many(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Value::Array(arr) = &a[1] else {
        return Err(internal("text[]"));
    };
    // NULL elements delete nothing (tsvector_delete_arr skips them).
    let words: Vec<String> = arr
        .items
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    vec_value(ops::delete(tv(&a[0])?, &words))
}

fn filter(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Value::Array(arr) = &a[1] else {
        return Err(internal("char[]"));
    };
    let mut ws = Vec::new();
    for x in &arr.items {
        match x {
            Value::Null => {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "weight array may not contain nulls",
                ))
            }
            x => ws.push(ops::weight_code(x.as_str().unwrap_or_default())?),
        }
    }
    vec_value(ops::filter(tv(&a[0])?, &ws))
}

fn tsvector_concat(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    vec_value(ops::concat(tv(&a[0])?, tv(&a[1])?))
}

fn tsquery_and(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(ops::query_and_or(tq(&a[0])?, tq(&a[1])?, false))
}

fn tsquery_or(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(ops::query_and_or(tq(&a[0])?, tq(&a[1])?, true))
}

fn tsquery_not(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(ops::query_not(tq(&a[0])?))
}

fn tsquery_phrase(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(ops::query_phrase(tq(&a[0])?, tq(&a[1])?, 1)?)
}

fn tsquery_phrase_d(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(ops::query_phrase(tq(&a[0])?, tq(&a[1])?, i4(&a[2])?)?)
}

fn contains(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Bool(ops::query_contains(tq(&a[0])?, tq(&a[1])?)))
}

fn contained(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Bool(ops::query_contains(tq(&a[1])?, tq(&a[0])?)))
}

fn weights_of(v: &Value) -> Result<[f32; 4], DbError> {
    let Value::Array(a) = v else {
        return Err(internal("real[]"));
    };
    if a.dims.len() > 1 {
        return Err(DbError::new(
            SqlState::ArraySubscriptError,
            "array of weight must be one-dimensional",
        ));
    }
    let w: Vec<Option<f32>> = a
        .items
        .iter()
        .map(|x| x.as_f64().map(|f| f as f32))
        .collect();
    rank::weights(&w)
}

macro_rules! rank_fns {
    ($f:path, $tt:ident, $ttf:ident, $wtt:ident, $wttf:ident) => {
        fn $tt(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
            Ok(Value::Float4($f(&rank::WEIGHTS, tv(&a[0])?, tq(&a[1])?, 0)))
        }
        fn $ttf(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
            Ok(Value::Float4($f(
                &rank::WEIGHTS,
                tv(&a[0])?,
                tq(&a[1])?,
                i4(&a[2])?,
            )))
        }
        fn $wtt(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
            let w = weights_of(&a[0])?;
            Ok(Value::Float4($f(&w, tv(&a[1])?, tq(&a[2])?, 0)))
        }
        fn $wttf(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
            let w = weights_of(&a[0])?;
            Ok(Value::Float4($f(&w, tv(&a[1])?, tq(&a[2])?, i4(&a[3])?)))
        }
    };
}

rank_fns!(rank::rank, rank_tt, rank_ttf, rank_wtt, rank_wttf);
rank_fns!(
    rank::rank_cd,
    rankcd_tt,
    rankcd_ttf,
    rankcd_wtt,
    rankcd_wttf
);

fn headline_text(
    cfg_oid: u32,
    doc: &Value,
    q: &Value,
    opts: Option<&Value>,
) -> Result<Value, DbError> {
    let q = tq(q)?;
    let opts = opts.map(txt).transpose()?;
    let mut h = super::headline::Headliner::new(cfg_oid, q, opts)?;
    match doc {
        Value::Jsonb(j) => Ok(Value::Jsonb(Arc::from(
            super::json_docs::jsonb_map_strings(j, &mut |s| h.headline(s))?.as_str(),
        ))),
        Value::Text(t) => Ok(Value::text(&h.headline(t)?)),
        _ => Err(internal("text")),
    }
}

/// ts_headline over json: its text, rewritten compactly.
fn headline_json(
    cfg_oid: u32,
    doc: &Value,
    q: &Value,
    opts: Option<&Value>,
) -> Result<Value, DbError> {
    let q = tq(q)?;
    let opts = opts.map(txt).transpose()?;
    let mut h = super::headline::Headliner::new(cfg_oid, q, opts)?;
    let out = super::json_docs::json_map_strings(txt(doc)?, &mut |s| h.headline(s))?;
    Ok(Value::text(&out))
}

fn hl_2(a: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
    headline_text(c.ts_config, &a[0], &a[1], None)
}
fn hl_3(a: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
    headline_text(c.ts_config, &a[0], &a[1], Some(&a[2]))
}
fn hl_cfg3(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    headline_text(cfg(&a[0])?, &a[1], &a[2], None)
}
fn hl_cfg4(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    headline_text(cfg(&a[0])?, &a[1], &a[2], Some(&a[3]))
}
fn hlj_2(a: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
    headline_json(c.ts_config, &a[0], &a[1], None)
}
fn hlj_3(a: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
    headline_json(c.ts_config, &a[0], &a[1], Some(&a[2]))
}
fn hlj_cfg3(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    headline_json(cfg(&a[0])?, &a[1], &a[2], None)
}
fn hlj_cfg4(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    headline_json(cfg(&a[0])?, &a[1], &a[2], Some(&a[3]))
}

fn lexize(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let dict = a[0]
        .as_i64()
        .and_then(|o| u32::try_from(o).ok())
        .ok_or_else(|| internal("regdictionary"))?;
    let items = config::ts_lexize(dict, txt(&a[1])?)?
        .iter()
        .map(|s| Value::text(s))
        .collect();
    Ok(Value::Array(Arc::new(Array::from_items(
        DataType::Text,
        items,
    ))))
}

fn ts_rewrite(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    query_value(super::rewrite::rewrite(tq(&a[0])?, tq(&a[1])?, tq(&a[2])?)?)
}

fn current_config(_: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Int8(ctx.ts_config as i64))
}

fn tsvector_cmp(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Int4(
        super::vector::compare(tv(&a[0])?, tv(&a[1])?) as i32
    ))
}

fn tsquery_cmp(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(Value::Int4(
        super::query::compare(tq(&a[0])?, tq(&a[1])?) as i32
    ))
}

/// Every function.
/// Each function with PostgreSQL's strictness: a NULL argument gives
/// NULL without calling it.
mod w {
    use super::*;

    macro_rules! strict {
        ($($f:ident),* $(,)?) => {
            $(
                pub(super) fn $f(a: &[Value], c: &EvalCtx) -> Result<Value, DbError> {
                    if any_null(a) {
                        return Ok(Value::Null);
                    }
                    super::$f(a, c)
                }
            )*
        };
    }

    strict!(
        ts_rewrite,
        lexize,
        hl_2,
        hl_3,
        hl_cfg3,
        hl_cfg4,
        hlj_2,
        hlj_3,
        hlj_cfg3,
        hlj_cfg4,
        to_tsvector_cfg,
        to_tsvector_cur,
        json_tsv_cfg,
        json_tsv_cur,
        json_tsv_filter_cfg,
        json_tsv_filter_cur,
        to_tsquery_cfg,
        to_tsquery_cur,
        plain_cfg,
        plain_cur,
        phrase_cfg,
        phrase_cur,
        web_cfg,
        web_cur,
        current_config,
        setweight2,
        setweight3,
        strip,
        length,
        numnode,
        querytree,
        to_array,
        from_array,
        delete_one,
        delete_many,
        filter,
        match_vq,
        match_qv,
        match_tq,
        match_tt,
        tsvector_concat,
        tsquery_and,
        tsquery_or,
        tsquery_not,
        tsquery_phrase,
        tsquery_phrase_d,
        contains,
        contained,
        rank_tt,
        rank_ttf,
        rank_wtt,
        rank_wttf,
        rankcd_tt,
        rankcd_ttf,
        rankcd_wtt,
        rankcd_wttf,
        tsvector_cmp,
        tsquery_cmp,
    );
}

pub static DEFS: &[Def] = &[
    d("to_tsvector", &[CFG, TX], TV, w::to_tsvector_cfg),
    s("to_tsvector", &[TX], TV, w::to_tsvector_cur),
    d("to_tsvector", &[CFG, JB], TV, w::json_tsv_cfg),
    s("to_tsvector", &[JB], TV, w::json_tsv_cur),
    d("to_tsvector", &[CFG, JS], TV, w::json_tsv_cfg),
    s("to_tsvector", &[JS], TV, w::json_tsv_cur),
    d(
        "jsonb_to_tsvector",
        &[CFG, JB, JB],
        TV,
        w::json_tsv_filter_cfg,
    ),
    s("jsonb_to_tsvector", &[JB, JB], TV, w::json_tsv_filter_cur),
    d(
        "json_to_tsvector",
        &[CFG, JS, JB],
        TV,
        w::json_tsv_filter_cfg,
    ),
    s("json_to_tsvector", &[JS, JB], TV, w::json_tsv_filter_cur),
    d("to_tsquery", &[CFG, TX], TQ, w::to_tsquery_cfg),
    s("to_tsquery", &[TX], TQ, w::to_tsquery_cur),
    d("plainto_tsquery", &[CFG, TX], TQ, w::plain_cfg),
    s("plainto_tsquery", &[TX], TQ, w::plain_cur),
    d("phraseto_tsquery", &[CFG, TX], TQ, w::phrase_cfg),
    s("phraseto_tsquery", &[TX], TQ, w::phrase_cur),
    d("websearch_to_tsquery", &[CFG, TX], TQ, w::web_cfg),
    s("websearch_to_tsquery", &[TX], TQ, w::web_cur),
    s("get_current_ts_config", &[], CFG, w::current_config),
    d("setweight", &[TV, TX], TV, w::setweight2),
    d("setweight", &[TV, TX, TXA], TV, w::setweight3),
    d("strip", &[TV], TV, w::strip),
    d("length", &[TV], I4, w::length),
    d("numnode", &[TQ], I4, w::numnode),
    d("querytree", &[TQ], TX, w::querytree),
    d("tsvector_to_array", &[TV], TXA, w::to_array),
    d("array_to_tsvector", &[TXA], TV, w::from_array),
    d("ts_delete", &[TV, TX], TV, w::delete_one),
    d("ts_delete", &[TV, TXA], TV, w::delete_many),
    d("ts_filter", &[TV, TXA], TV, w::filter),
    d("ts_match_vq", &[TV, TQ], BO, w::match_vq),
    d("ts_match_qv", &[TQ, TV], BO, w::match_qv),
    s("ts_match_tq", &[TX, TQ], BO, w::match_tq),
    s("ts_match_tt", &[TX, TX], BO, w::match_tt),
    d("tsvector_concat", &[TV, TV], TV, w::tsvector_concat),
    d("tsquery_and", &[TQ, TQ], TQ, w::tsquery_and),
    d("tsquery_or", &[TQ, TQ], TQ, w::tsquery_or),
    d("tsquery_not", &[TQ], TQ, w::tsquery_not),
    d("tsquery_phrase", &[TQ, TQ], TQ, w::tsquery_phrase),
    d("tsquery_phrase", &[TQ, TQ, I4], TQ, w::tsquery_phrase_d),
    d("tsq_mcontains", &[TQ, TQ], BO, w::contains),
    d("tsq_mcontained", &[TQ, TQ], BO, w::contained),
    d("ts_rank", &[TV, TQ], F4, w::rank_tt),
    d("ts_rank", &[TV, TQ, I4], F4, w::rank_ttf),
    d("ts_rank", &[F4A, TV, TQ], F4, w::rank_wtt),
    d("ts_rank", &[F4A, TV, TQ, I4], F4, w::rank_wttf),
    d("ts_rank_cd", &[TV, TQ], F4, w::rankcd_tt),
    d("ts_rank_cd", &[TV, TQ, I4], F4, w::rankcd_ttf),
    d("ts_rank_cd", &[F4A, TV, TQ], F4, w::rankcd_wtt),
    d("ts_rank_cd", &[F4A, TV, TQ, I4], F4, w::rankcd_wttf),
    s("ts_headline", &[TX, TQ], TX, w::hl_2),
    s("ts_headline", &[TX, TQ, TX], TX, w::hl_3),
    d("ts_headline", &[CFG, TX, TQ], TX, w::hl_cfg3),
    d("ts_headline", &[CFG, TX, TQ, TX], TX, w::hl_cfg4),
    s("ts_headline", &[JB, TQ], JB, w::hl_2),
    s("ts_headline", &[JB, TQ, TX], JB, w::hl_3),
    d("ts_headline", &[CFG, JB, TQ], JB, w::hl_cfg3),
    d("ts_headline", &[CFG, JB, TQ, TX], JB, w::hl_cfg4),
    s("ts_headline", &[JS, TQ], JS, w::hlj_2),
    s("ts_headline", &[JS, TQ, TX], JS, w::hlj_3),
    d("ts_headline", &[CFG, JS, TQ], JS, w::hlj_cfg3),
    d("ts_headline", &[CFG, JS, TQ, TX], JS, w::hlj_cfg4),
    d("ts_lexize", &[DICT, TX], TXA, w::lexize),
    d("ts_rewrite", &[TQ, TQ, TQ], TQ, w::ts_rewrite),
    d("tsvector_cmp", &[TV, TV], I4, w::tsvector_cmp),
    d("tsquery_cmp", &[TQ, TQ], I4, w::tsquery_cmp),
];

/// pg_operator's text search operators: name, left type (None: prefix),
/// right type, implementing function.
pub static OPERATORS: &[(&str, Option<DataType>, DataType, &str)] = &[
    ("@@", Some(TV), TQ, "ts_match_vq"),
    ("@@", Some(TQ), TV, "ts_match_qv"),
    ("@@", Some(TX), TQ, "ts_match_tq"),
    ("@@", Some(TX), TX, "ts_match_tt"),
    ("@@@", Some(TV), TQ, "ts_match_vq"),
    ("@@@", Some(TQ), TV, "ts_match_qv"),
    ("||", Some(TV), TV, "tsvector_concat"),
    ("&&", Some(TQ), TQ, "tsquery_and"),
    ("||", Some(TQ), TQ, "tsquery_or"),
    ("!!", None, TQ, "tsquery_not"),
    ("<->", Some(TQ), TQ, "tsquery_phrase"),
    ("@>", Some(TQ), TQ, "tsq_mcontains"),
    ("<@", Some(TQ), TQ, "tsq_mcontained"),
];

/// Whether `t` is one of the text search types.
pub fn is_ts_type(t: DataType) -> bool {
    matches!(t, DataType::TsVector | DataType::TsQuery)
}

/// How well `arg` fits parameter `param`: 2 exact, 1 through an unknown
/// literal or an implicit cast, None not at all.
fn fit(arg: DataType, param: DataType) -> Option<u8> {
    if arg == param || (arg.base() == param.base()) {
        return Some(2);
    }
    match (arg, param) {
        (DataType::Unknown, _) => Some(1),
        (a, DataType::Text) if a.is_string() => Some(1),
        (DataType::Int2, DataType::Int4) => Some(1),
        (DataType::Oid | DataType::Int4 | DataType::Int8, p) if p == CFG || p == DICT => Some(1),
        (DataType::Array(a), DataType::Array(p)) if fit(*a, *p).is_some() => Some(1),
        (a, DataType::Float4) if a.is_integer() => Some(1),
        _ => None,
    }
}

fn resolved(d: &'static Def) -> Resolved {
    Resolved {
        func: ScalarFn {
            name: d.name,
            volatility: if d.stable {
                Volatility::Volatile
            } else {
                Volatility::Immutable
            },
            imp: d.imp,
        },
        arg_types: d.args.to_vec(),
        ret: d.ret,
    }
}

/// Call `def` with PostgreSQL's strictness.
pub fn call(def: &Def, args: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    (def.imp)(args, ctx)
}

/// Whether `name` is a function of this module.
pub fn is_function(name: &str) -> bool {
    DEFS.iter().any(|d| d.name == name)
}

/// `name(args)` if it is one of these functions (None lets other modules
/// answer: `length` of a string, `strip`...).
pub fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !is_function(name) {
        return None;
    }
    if name == "length" && !args.iter().any(|t| is_ts_type(*t)) {
        return None;
    }
    let mut best: Vec<(&'static Def, u32)> = Vec::new();
    for d in DEFS
        .iter()
        .filter(|d| d.name == name && d.args.len() == args.len())
    {
        let mut score = 0u32;
        let mut ok = true;
        for (a, p) in args.iter().zip(d.args) {
            match fit(*a, *p) {
                Some(s) => score += s as u32,
                None => ok = false,
            }
        }
        if ok {
            best.push((d, score));
        }
    }
    let Some(top) = best.iter().map(|b| b.1).max() else {
        return Some(Err(crate::functions::no_function(name, args)));
    };
    let winners: Vec<_> = best.iter().filter(|b| b.1 == top).collect();
    if winners.len() > 1 {
        // An unknown literal prefers text (PostgreSQL's preferred type of
        // the string category): to_tsvector('...') is the text form.
        if let Some(w) = winners
            .iter()
            .find(|w| w.0.args.iter().all(|p| *p != JB && *p != JS))
        {
            return Some(Ok(resolved(w.0)));
        }
        let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
        return Some(Err(DbError::new(
            SqlState::AmbiguousFunction,
            format!("function {name}({}) is not unique", list.join(", ")),
        )
        .with_hint(
            "Could not choose a best candidate function. You might need to add explicit type casts.",
        )));
    }
    Some(Ok(resolved(winners[0].0)))
}

/// Whether `l op r` is text search's business: an operand is a text
/// search type, or `@@` over strings.
pub fn applies(op: &str, l: Option<DataType>, r: DataType) -> bool {
    if !OPERATORS.iter().any(|o| o.0 == op) {
        return false;
    }
    let ts = |t: DataType| is_ts_type(t);
    l.is_some_and(ts)
        || ts(r)
        || (op == "!!" && l.is_none() && r == DataType::Unknown)
        || (op == "@@"
            && l.is_some_and(|l| l.is_string() || l == DataType::Unknown)
            && (r.is_string() || r == DataType::Unknown))
}

/// The operator `left op right` (left None: prefix) if text search has
/// one for these types. An unknown operand is first taken to be of the
/// other operand's type; failing that, among the operators for the known
/// operand a string parameter is preferred (PostgreSQL's rule for unknown
/// literals: `'a fat cat' @@ 'cat'::tsquery` is text @@ tsquery).
pub fn resolve_operator(op: &str, left: Option<DataType>, right: DataType) -> Option<Resolved> {
    if !applies(op, left, right) {
        return None;
    }
    let norm = |t: DataType| if t.is_string() { TX } else { t.base() };
    let cands: Vec<_> = OPERATORS
        .iter()
        .filter(|o| o.0 == op && o.1.is_some() == left.is_some())
        .collect();
    let unknown = DataType::Unknown;
    let pick = |l: Option<DataType>, r: DataType| {
        cands
            .iter()
            .find(|o| o.1.map(norm) == l.map(norm) && o.2 == norm(r))
            .copied()
    };
    let chosen = match (left, right) {
        (Some(l), r) if l != unknown && r != unknown => pick(Some(l), r),
        (None, r) if r != unknown => pick(None, r),
        (None, _) => cands.first().copied(),
        (Some(l), r) => {
            let same = if l == unknown { r } else { l };
            let same_type = if same == unknown {
                None
            } else {
                pick(Some(same), same)
            };
            same_type.or_else(|| {
                let fits: Vec<_> = cands
                    .iter()
                    .filter(|o| {
                        (l == unknown || o.1.map(norm) == Some(norm(l)))
                            && (r == unknown || o.2 == norm(r))
                    })
                    .copied()
                    .collect();
                let stringy = |o: &&&(&str, Option<DataType>, DataType, &str)| {
                    (l != unknown || o.1 == Some(TX)) && (r != unknown || o.2 == TX)
                };
                fits.iter().find(stringy).or(fits.first()).copied()
            })
        }
    }?;
    DEFS.iter()
        .find(|d| d.name == chosen.3 && d.args.len() == 1 + usize::from(chosen.1.is_some()))
        .map(resolved)
}

/// The operator a function implements, for EXPLAIN.
pub fn operator_of(fname: &str, nargs: usize) -> Option<&'static str> {
    OPERATORS
        .iter()
        .find(|o| o.3 == fname && o.1.is_some() == (nargs == 2))
        .map(|o| o.0)
}

/// The element rows of unnest(tsvector): lexeme, positions (NULL when
/// none), weights (NULL when none).
pub fn unnest_rows(v: &TsVector) -> Vec<Vec<Value>> {
    use super::vector::{pos_of, weight_of};
    v.entries
        .iter()
        .map(|e| {
            let (pos, w) = if e.pos.is_empty() {
                (Value::Null, Value::Null)
            } else {
                let p = e
                    .pos
                    .iter()
                    .map(|p| Value::Int2(pos_of(*p) as i16))
                    .collect();
                let w = e
                    .pos
                    .iter()
                    .map(|p| Value::text(["D", "C", "B", "A"][weight_of(*p) as usize]))
                    .collect();
                (
                    Value::Array(Arc::new(Array::from_items(DataType::Int2, p))),
                    Value::Array(Arc::new(Array::from_items(DataType::Text, w))),
                )
            };
            vec![Value::text(&e.word), pos, w]
        })
        .collect()
}

/// The regconfig type.
pub const REGCONFIG: DataType = CFG;

/// The default parser's OID (pg_ts_parser).
pub const DEFAULT_PARSER_OID: i64 = 3722;

/// A parser argument of ts_token_type / ts_parse: `default`
/// (pg_catalog-qualified or not) or its OID.
pub fn check_parser(v: &Value) -> Result<(), DbError> {
    let ok = match v {
        Value::Text(s) => {
            let n = s.trim();
            let n = n.strip_prefix("pg_catalog.").unwrap_or(n);
            if n.eq_ignore_ascii_case("default") {
                true
            } else {
                return Err(DbError::new(
                    SqlState::UndefinedObject,
                    format!("text search parser \"{}\" does not exist", s.trim()),
                ));
            }
        }
        v => v.as_i64() == Some(DEFAULT_PARSER_OID),
    };
    if ok {
        Ok(())
    } else {
        Err(DbError::new(
            SqlState::InternalError,
            format!(
                "cache lookup failed for text search parser {}",
                v.as_i64().unwrap_or(0)
            ),
        ))
    }
}

/// ts_token_type('default').
pub fn token_type_rows() -> Vec<Vec<Value>> {
    super::parser::TOKEN_TYPES
        .iter()
        .enumerate()
        .map(|(i, (alias, descr))| {
            vec![
                Value::Int4(i as i32 + 1),
                Value::text(alias),
                Value::text(descr),
            ]
        })
        .collect()
}

/// ts_parse('default', text).
pub fn parse_rows(text: &str) -> Vec<Vec<Value>> {
    super::parser::tokens(text)
        .into_iter()
        .map(|(t, s)| vec![Value::Int4(t as i32), Value::text(&s)])
        .collect()
}

/// ts_debug(config, text).
pub fn debug_rows(cfg_oid: u32, text: &str) -> Result<Vec<Vec<Value>>, DbError> {
    config::check_config(cfg_oid)?;
    let text_array =
        |items: Vec<Value>| Value::Array(Arc::new(Array::from_items(DataType::Text, items)));
    let mut rows = Vec::new();
    for (ty, tok) in super::parser::tokens(text) {
        let (alias, descr) = super::parser::TOKEN_TYPES[ty as usize - 1];
        let dict = config::dictionary(cfg_oid, ty);
        let (dicts, used, lexemes) = match dict {
            None => (text_array(Vec::new()), Value::Null, Value::Null),
            Some(d) => {
                let lex = match config::lexize(d, &tok) {
                    Some(l) => vec![Value::text(&l)],
                    None => Vec::new(),
                };
                (
                    text_array(vec![Value::text(d.name())]),
                    Value::text(d.name()),
                    text_array(lex),
                )
            }
        };
        rows.push(vec![
            Value::text(alias),
            Value::text(descr),
            Value::text(&tok),
            dicts,
            used,
            lexemes,
        ]);
    }
    Ok(rows)
}
