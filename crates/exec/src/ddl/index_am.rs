//! CREATE INDEX ... USING: which access method builds the index, and the
//! checks PostgreSQL's DefineIndex and ComputeIndexAttrs make of it.
//!
//! Nestor has two: btree (the default) and hash. A hash index is kept in
//! the same ordered storage as a btree one (`nestor_storage::Index`, keyed
//! on the value), so every write path (INSERT, UPDATE, DELETE, COPY,
//! TRUNCATE, undo, WAL replay) maintains it unchanged; the method only
//! narrows what the index may do, as PostgreSQL's hash AM's capabilities
//! (pg_am's amcanunique, amcanmulticol, amcanorder, amcaninclude all
//! false) do: one key column, no UNIQUE, no INCLUDE, no ASC/DESC or NULLS
//! FIRST/LAST, and the planner uses it for equality only
//! (`nestor_plan::select::access`). A key type needs a default hash
//! operator class: the geometric types, money, the bit strings and json
//! have none (42704 with PostgreSQL's hint).
//!
//! GIN is a computed, multi-key index (`nestor_plan::select::gin`): each
//! key column needs a GIN operator class, named or its type's default
//! (`nestor_catalog::gin::GinClass`: jsonb_ops, jsonb_path_ops,
//! array_ops); several key columns are allowed (amcanmulticol), UNIQUE,
//! INCLUDE and ASC/DESC are not. Its storage parameters (fastupdate,
//! gin_pending_list_limit) are checked as PostgreSQL checks them; Nestor
//! has no pending list, so they tune nothing.
//!
//! A btree key's options ([`key_opt`]) are kept as written, as
//! ComputeIndexAttrs resolves them: COLLATE (a collation Nestor knows,
//! kept when it is not the key's own), the operator class (the type's
//! default, which is not kept, or a pattern class: `text_pattern_ops`
//! orders by bytes, as every Nestor string order does), ASC/DESC and
//! NULLS FIRST/LAST (the storage index sorts as they say). Operator
//! class options are PostgreSQL's 22023: no btree class has any.
//!
//! The other built-in methods (GiST, SP-GiST, BRIN) exist in PostgreSQL
//! but not here: 0A000 naming the method. Any other name is PostgreSQL's
//! 42704 `access method "x" does not exist`.

use nestor_catalog::gin::GinClass;
use nestor_catalog::{AccessMethod, IndexKeyOpt, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::node;
use nestor_types::datatype::DataType;

/// The access method CREATE INDEX names (btree when it names none).
pub(super) fn resolve(name: &str) -> Result<AccessMethod, DbError> {
    if name.is_empty() {
        return Ok(AccessMethod::Btree);
    }
    if let Some(am) = AccessMethod::from_name(name) {
        return Ok(am);
    }
    if matches!(name, "gist" | "spgist" | "brin") {
        return Err(DbError::unsupported(format!("access method \"{name}\"")));
    }
    Err(DbError::new(
        SqlState::UndefinedObject,
        format!("access method \"{name}\" does not exist"),
    ))
}

/// DefineIndex's capability checks for a method that lacks them, in its
/// order: UNIQUE, INCLUDE, more than one key column.
pub(super) fn check_capabilities(am: AccessMethod, is: &pb::IndexStmt) -> Result<(), DbError> {
    if am == AccessMethod::Btree {
        return Ok(());
    }
    let refuse = |what: &str| {
        Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("access method \"{}\" does not support {what}", am.name()),
        ))
    };
    if is.unique || is.primary {
        return refuse("unique indexes");
    }
    if !is.index_including_params.is_empty() {
        return refuse("included columns");
    }
    if is.index_params.len() > 1 && am != AccessMethod::Gin {
        return refuse("multicolumn indexes");
    }
    Ok(())
}

/// ComputeIndexAttrs' per-key checks for a method without an order: the
/// key's type needs a default operator class of the method (a plain
/// column's type is known here; an expression key's is checked by
/// [`check_key_type`] once bound), and ASC/DESC or NULLS FIRST/LAST are
/// refused.
pub(super) fn check_key(
    am: AccessMethod,
    def: &TableDef,
    ie: &pb::IndexElem,
) -> Result<(), DbError> {
    if am == AccessMethod::Btree {
        return Ok(());
    }
    if let Some(col) = def.columns.iter().find(|c| c.name == ie.name) {
        if am == AccessMethod::Gin {
            gin_class(ie, col.ty)?;
        } else {
            check_key_type(am, col.ty)?;
        }
    }
    let refuse = |what: &str| {
        Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("access method \"{}\" does not support {what}", am.name()),
        ))
    };
    if ie.ordering != pb::SortByDir::SortbyDefault as i32 {
        return refuse("ASC/DESC options");
    }
    if ie.nulls_ordering != pb::SortByNulls::SortbyNullsDefault as i32 {
        return refuse("NULLS FIRST/LAST options");
    }
    Ok(())
}

/// The storage parameters of `WITH (...)` (PostgreSQL's index
/// reloptions): each method's own names (btree: fillfactor,
/// deduplicate_items; hash: fillfactor), fillfactor an integer from 10
/// to 100. Nestor's storage has nothing to tune with them, so they are
/// only checked (22023 as PostgreSQL's parse_one_reloption).
pub(super) fn check_options(am: AccessMethod, is: &pb::IndexStmt) -> Result<(), DbError> {
    for o in &is.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        let known = match am {
            AccessMethod::Btree => ["fillfactor", "deduplicate_items"].as_slice(),
            AccessMethod::Hash => ["fillfactor"].as_slice(),
            AccessMethod::Gin => ["fastupdate", "gin_pending_list_limit"].as_slice(),
        };
        if !known.contains(&d.defname.as_str()) {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("unrecognized parameter \"{}\"", d.defname),
            ));
        }
        let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
        match d.defname.as_str() {
            "fillfactor" => check_int_option("fillfactor", arg, (10, 100))?,
            "fastupdate" => check_bool_option("fastupdate", arg)?,
            "gin_pending_list_limit" => {
                check_int_option("gin_pending_list_limit", arg, (64, 2_147_483_647))?
            }
            _ => {}
        }
    }
    Ok(())
}

/// The storage parameters of `WITH (...)` as written, name and value
/// (checked by [`check_options`] before).
pub(super) fn option_values(is: &pb::IndexStmt) -> Result<Vec<(String, String)>, DbError> {
    let mut out = Vec::with_capacity(is.options.len());
    for o in &is.options {
        if let NodeEnum::DefElem(d) = node(o)? {
            let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
            out.push((d.defname.clone(), option_text(arg)));
        }
    }
    Ok(out)
}

/// An option's value as text (a bare name is `true`, as for reloptions).
fn option_text(arg: Option<&NodeEnum>) -> String {
    match arg {
        None => "true".to_string(),
        Some(NodeEnum::Integer(i)) => i.ival.to_string(),
        Some(NodeEnum::Float(f)) => f.fval.clone(),
        Some(NodeEnum::String(s)) => s.sval.clone(),
        Some(NodeEnum::Boolean(b)) => b.boolval.to_string(),
        // A bare word (`fastupdate = maybe`) is a type name to the parser.
        Some(NodeEnum::TypeName(t)) => t
            .names
            .last()
            .and_then(|n| match n.node.as_ref() {
                Some(NodeEnum::String(s)) => Some(s.sval.clone()),
                _ => None,
            })
            .unwrap_or_default(),
        Some(_) => String::new(),
    }
}

/// A boolean reloption (parse_bool's spellings).
fn check_bool_option(name: &str, arg: Option<&NodeEnum>) -> Result<(), DbError> {
    let text = option_text(arg);
    let t = text.trim().to_ascii_lowercase();
    let ok = !t.is_empty()
        && (["true", "false", "yes", "no", "on", "off", "1", "0"].contains(&t.as_str())
            || (t.len() >= 2 && ("off".starts_with(&t) || "on".starts_with(&t)) && t != "o")
            || "true".starts_with(&t)
            || "false".starts_with(&t)
            || "yes".starts_with(&t)
            || "no".starts_with(&t));
    if ok {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::InvalidParameterValue,
        format!("invalid value for boolean option \"{name}\": {text}"),
    ))
}

/// An integer reloption within `(min, max)` (a number is rounded, and
/// must fit an int4, as PostgreSQL's parse_int reads it).
fn check_int_option(
    name: &str,
    arg: Option<&NodeEnum>,
    (min, max): (i64, i64),
) -> Result<(), DbError> {
    let text = option_text(arg);
    let value = text
        .trim()
        .parse::<f64>()
        .ok()
        .map(f64::round)
        .filter(|v| (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(v))
        .map(|v| v as i64);
    let Some(value) = value else {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for integer option \"{name}\": {text}"),
        ));
    };
    if !(min..=max).contains(&value) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("value {text} out of bounds for option \"{name}\""),
        )
        .with_detail(format!("Valid values are between \"{min}\" and \"{max}\".")));
    }
    Ok(())
}

/// The GIN operator class of a key of type `ty`: the one it names
/// (42704 if GIN has none of that name, 42804 if it does not take the
/// type) or the type's default (42704 with PostgreSQL's hint if none).
pub(super) fn gin_class(ie: &pb::IndexElem, ty: DataType) -> Result<GinClass, DbError> {
    let named = ie.opclass.last().and_then(|n| match n.node.as_ref() {
        Some(NodeEnum::String(s)) => Some(s.sval.clone()),
        _ => None,
    });
    let Some(name) = named else {
        return GinClass::default_for(ty)
            .ok_or_else(|| no_default_class(ty.name(), AccessMethod::Gin));
    };
    let Some(class) = GinClass::named(&name) else {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!("operator class \"{name}\" does not exist for access method \"gin\""),
        ));
    };
    if !class.accepts(ty) {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "operator class \"{name}\" does not accept data type {}",
                ty.name()
            ),
        ));
    }
    Ok(class)
}

/// array_ops compares elements with their type's btree order (initGinState):
/// an element type without one (the geometric types, json, jsonpath) is
/// PostgreSQL's 42883 when the index is made.
pub(super) fn check_gin_elements(class: GinClass, ty: DataType) -> Result<(), DbError> {
    let Some(elem) = ty.element().filter(|_| class == GinClass::ArrayOps) else {
        return Ok(());
    };
    if matches!(elem, DataType::Geo(_) | DataType::Json | DataType::JsonPath) {
        return Err(DbError::new(
            SqlState::UndefinedFunction,
            format!(
                "could not identify a comparison function for type {}",
                elem.name()
            ),
        ));
    }
    Ok(())
}

/// The key elements of CREATE INDEX.
pub(super) fn elems(is: &pb::IndexStmt) -> Result<Vec<&pb::IndexElem>, DbError> {
    let mut out = Vec::with_capacity(is.index_params.len());
    for p in &is.index_params {
        if let NodeEnum::IndexElem(ie) = node(p)? {
            out.push(ie.as_ref());
        }
    }
    Ok(out)
}

/// 42704 when the method has no default operator class for the key type.
pub(super) fn check_key_type(am: AccessMethod, ty: DataType) -> Result<(), DbError> {
    if am == AccessMethod::Gin && GinClass::default_for(ty).is_none() {
        return Err(no_default_class(ty.name(), am));
    }
    if am != AccessMethod::Hash || has_hash_class(ty) {
        return Ok(());
    }
    Err(no_default_class(ty.name(), am))
}

/// PostgreSQL's 42704 for an index key whose type (named `ty`) has no
/// default operator class of `am` (ResolveOpClass's error and hint).
pub(super) fn no_default_class(ty: &str, am: AccessMethod) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!(
            "data type {ty} has no default operator class for access method \"{}\"",
            am.name()
        ),
    )
    .with_hint(
        "You must specify an operator class for the index or define a default operator class for the data type.",
    )
}

/// Whether PostgreSQL has a default hash operator class for the type
/// (pg_opclass with opcmethod 405): every type with equality but these.
fn has_hash_class(ty: DataType) -> bool {
    !matches!(
        ty,
        DataType::Geo(_)
            | DataType::Money
            | DataType::Bit(_)
            | DataType::VarBit(_)
            | DataType::Json
            | DataType::JsonPath
    )
}

/// A table's storage parameters (`CREATE TABLE ... WITH (...)`, ALTER
/// TABLE SET/RESET): PostgreSQL's heap reloptions and their `toast.`
/// forms, checked as its parseRelOptions does (22023 for an unknown name
/// or namespace, a value of the wrong kind or out of bounds, a name given
/// twice; `oids = true` is 0A000). Nestor's storage tunes nothing with
/// them, so a valid list is accepted and not kept. RESET's names are not
/// checked (PostgreSQL ignores names it does not know there).
pub(crate) fn check_table_options(options: &[pb::Node]) -> Result<(), DbError> {
    use TableOpt::*;
    let mut seen: Vec<String> = Vec::new();
    for o in options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
        let full = match d.defnamespace.as_str() {
            "" => d.defname.clone(),
            "toast" => format!("toast.{}", d.defname),
            other => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized parameter namespace \"{other}\""),
                ))
            }
        };
        if d.defnamespace.is_empty() && d.defname == "oids" {
            if option_text(arg) == "false" || option_text(arg) == "0" {
                continue;
            }
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "tables declared WITH OIDS are not supported",
            ));
        }
        let kind = table_option(&d.defname).filter(|_| {
            // The TOAST table takes the autovacuum and vacuum options.
            d.defnamespace.is_empty()
                || (d.defname.starts_with("autovacuum_") && !d.defname.contains("analyze"))
                || matches!(
                    d.defname.as_str(),
                    "log_autovacuum_min_duration" | "vacuum_index_cleanup" | "vacuum_truncate"
                )
        });
        let Some(kind) = kind else {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("unrecognized parameter \"{}\"", d.defname),
            ));
        };
        if seen.contains(&full) {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("parameter \"{}\" specified more than once", d.defname),
            ));
        }
        seen.push(full);
        match kind {
            Bool => check_bool_option(&d.defname, arg)?,
            Int(lo, hi) => check_int_option(&d.defname, arg, (lo, hi))?,
            Real(lo, hi) => check_real_option(&d.defname, arg, (lo, hi))?,
            IndexCleanup => {
                let t = option_text(arg).to_ascii_lowercase();
                if t != "auto" {
                    check_bool_option(&d.defname, arg).map_err(|_| {
                        DbError::new(
                            SqlState::InvalidParameterValue,
                            format!("invalid value for enum option \"{}\": {t}", d.defname),
                        )
                        .with_detail("Valid values are \"on\", \"off\", and \"auto\".")
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// The kind and bounds of a heap reloption (PostgreSQL 15's reloptions.c).
#[derive(Clone, Copy)]
enum TableOpt {
    Bool,
    Int(i64, i64),
    Real(f64, f64),
    IndexCleanup,
}

fn table_option(name: &str) -> Option<TableOpt> {
    use TableOpt::*;
    const MAX: i64 = i32::MAX as i64;
    Some(match name {
        "fillfactor" => Int(10, 100),
        "autovacuum_enabled" | "vacuum_truncate" | "user_catalog_table" => Bool,
        "autovacuum_vacuum_threshold" | "autovacuum_analyze_threshold" => Int(0, MAX),
        "autovacuum_vacuum_insert_threshold" | "log_autovacuum_min_duration" => Int(-1, MAX),
        "autovacuum_vacuum_cost_limit" => Int(1, 10_000),
        "autovacuum_freeze_min_age" | "autovacuum_multixact_freeze_min_age" => {
            Int(0, 1_000_000_000)
        }
        "autovacuum_freeze_max_age" => Int(100_000, 2_000_000_000),
        "autovacuum_multixact_freeze_max_age" => Int(10_000, 2_000_000_000),
        "autovacuum_freeze_table_age" | "autovacuum_multixact_freeze_table_age" => {
            Int(0, 2_000_000_000)
        }
        "toast_tuple_target" => Int(128, 8160),
        "parallel_workers" => Int(0, 1024),
        "autovacuum_vacuum_cost_delay"
        | "autovacuum_vacuum_scale_factor"
        | "autovacuum_vacuum_insert_scale_factor"
        | "autovacuum_analyze_scale_factor" => Real(0.0, 100.0),
        "vacuum_index_cleanup" => IndexCleanup,
        _ => return None,
    })
}

/// A floating-point reloption within `(min, max)`.
fn check_real_option(
    name: &str,
    arg: Option<&NodeEnum>,
    (min, max): (f64, f64),
) -> Result<(), DbError> {
    let text = option_text(arg);
    let Some(value) = text.trim().parse::<f64>().ok().filter(|v| v.is_finite()) else {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for floating point option \"{name}\": {text}"),
        ));
    };
    if !(min..=max).contains(&value) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("value {text} out of bounds for option \"{name}\""),
        )
        .with_detail(format!(
            "Valid values are between \"{min:.6}\" and \"{max:.6}\"."
        )));
    }
    Ok(())
}

/// The options of a key element of type `ty` (ComputeIndexAttrs' order:
/// the collation, then the operator class; ASC/DESC for a method without
/// an order were refused by [`check_key`]).
pub(super) fn key_opt(
    am: AccessMethod,
    ie: &pb::IndexElem,
    ty: DataType,
) -> Result<IndexKeyOpt, DbError> {
    let collation = if ie.collation.is_empty() {
        None
    } else {
        let parts = nestor_plan::bind::names(&ie.collation);
        nestor_plan::bind::check_collation(&parts, ty)?;
        parts.last().filter(|n| *n != "default").cloned()
    };
    let opclass = if am == AccessMethod::Btree {
        btree_class(&ie.opclass, ty)?
    } else {
        None
    };
    Ok(IndexKeyOpt {
        desc: ie.ordering == pb::SortByDir::SortbyDesc as i32,
        nulls_first: match pb::SortByNulls::try_from(ie.nulls_ordering) {
            Ok(pb::SortByNulls::SortbyNullsFirst) => true,
            Ok(pb::SortByNulls::SortbyNullsLast) => false,
            // DESC's default is NULLS FIRST.
            _ => ie.ordering == pb::SortByDir::SortbyDesc as i32,
        },
        collation,
        opclass,
        opclass_options: Vec::new(),
    })
}

/// Operator class options (`text_ops (k = v)`): no btree or hash class
/// takes any (PostgreSQL's index_opclass_options, when the index is
/// built: after every key's other checks).
pub(super) fn check_opclass_options(ie: &pb::IndexElem, ty: DataType) -> Result<(), DbError> {
    if ie.opclassopts.is_empty() {
        return Ok(());
    }
    let name = nestor_plan::bind::names(&ie.opclass)
        .pop()
        .or_else(|| default_btree_class(ty).map(str::to_string))
        .unwrap_or_default();
    Err(DbError::new(
        SqlState::InvalidParameterValue,
        format!("operator class {name} has no options"),
    ))
}

/// PostgreSQL's other built-in btree classes, by name: naming one for a
/// type it does not take is 42804, not 42704.
const BTREE_CLASSES: [&str; 36] = [
    "array_ops",
    "bit_ops",
    "bool_ops",
    "bpchar_ops",
    "bytea_ops",
    "char_ops",
    "cidr_ops",
    "date_ops",
    "float4_ops",
    "float8_ops",
    "inet_ops",
    "int2_ops",
    "int4_ops",
    "int8_ops",
    "interval_ops",
    "jsonb_ops",
    "macaddr_ops",
    "macaddr8_ops",
    "money_ops",
    "multirange_ops",
    "name_ops",
    "numeric_ops",
    "oid_ops",
    "oidvector_ops",
    "pg_lsn_ops",
    "range_ops",
    "record_image_ops",
    "record_ops",
    "text_ops",
    "tid_ops",
    "time_ops",
    "timestamp_ops",
    "timestamptz_ops",
    "timetz_ops",
    "uuid_ops",
    "varbit_ops",
];

/// A btree key's named operator class (ResolveOpClass): None for none or
/// the type's default; a class whose input type the key's type is
/// binary-coercible to (an implicit pg_cast of method `b`: text and
/// varchar to bpchar, int4 to oid, bit and varbit) or a pattern class; else 42804 for a class
/// of another type, 42704 for a name btree has no class of.
fn btree_class(names: &[pb::Node], ty: DataType) -> Result<Option<String>, DbError> {
    use DataType as T;
    let parts = nestor_plan::bind::names(names);
    let Some(name) = parts.last() else {
        return Ok(None);
    };
    if default_btree_class(ty) == Some(name.as_str()) {
        return Ok(None);
    }
    let base = ty.base();
    let string = matches!(base, T::Text | T::Varchar(_));
    let takes = match name.as_str() {
        "text_pattern_ops" | "varchar_pattern_ops" | "varchar_ops" => string,
        "bpchar_pattern_ops" | "bpchar_ops" => string || matches!(base, T::Char(_)),
        "oid_ops" => base == T::Int4,
        "bit_ops" => matches!(base, T::VarBit(_)),
        "varbit_ops" => matches!(base, T::Bit(_)),
        n if BTREE_CLASSES.contains(&n) || n == "enum_ops" => false,
        _ => {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("operator class \"{name}\" does not exist for access method \"btree\""),
            ))
        }
    };
    if !takes {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "operator class \"{name}\" does not accept data type {}",
                ty.name()
            ),
        ));
    }
    Ok(Some(name.clone()))
}

/// A unique index whose key compares by another type's equality than
/// its own (bpchar's, blind to trailing blanks, on a text key): Nestor's
/// unique check compares by the key's type, so it would accept rows
/// PostgreSQL rejects: 0A000.
pub(super) fn check_unique_class(
    is: &pb::IndexStmt,
    o: &IndexKeyOpt,
    ty: DataType,
) -> Result<(), DbError> {
    let bpchar = matches!(
        o.opclass.as_deref(),
        Some("bpchar_ops" | "bpchar_pattern_ops")
    );
    if (is.unique || is.primary) && bpchar && o.foreign_class(ty) {
        return Err(DbError::unsupported(format!(
            "unique index with operator class \"{}\" on type {}",
            o.opclass.as_deref().unwrap_or_default(),
            ty.name()
        )));
    }
    Ok(())
}

/// The name of a type's default btree operator class.
fn default_btree_class(ty: DataType) -> Option<&'static str> {
    use DataType as T;
    super::partition::default_opclass(ty).or(match ty.base() {
        T::Bit(_) => Some("bit_ops"),
        T::VarBit(_) => Some("varbit_ops"),
        T::PgLsn => Some("pg_lsn_ops"),
        T::Enum(_) => Some("enum_ops"),
        T::Range(_) => Some("range_ops"),
        T::Record(_) => Some("record_ops"),
        T::OidVector => Some("oidvector_ops"),
        T::TsVector => Some("tsvector_ops"),
        T::TsQuery => Some("tsquery_ops"),
        t if t.is_array() => Some("array_ops"),
        _ => None,
    })
}

/// Key options as an index keeps them: none when every key has the
/// defaults.
pub(super) fn normalized(keyopts: Vec<IndexKeyOpt>) -> Vec<IndexKeyOpt> {
    if keyopts.iter().all(IndexKeyOpt::is_default) {
        Vec::new()
    } else {
        keyopts
    }
}

/// Operator class options on any key (22023): checked once the keys'
/// other options are (the index build's check, in PostgreSQL).
pub(super) fn check_elem_options(is: &pb::IndexStmt, def: &TableDef) -> Result<(), DbError> {
    for ie in elems(is)? {
        let ty = def
            .columns
            .iter()
            .find(|c| c.name == ie.name)
            .map_or(DataType::Text, |c| c.ty);
        check_opclass_options(ie, ty)?;
    }
    Ok(())
}

/// A key whose column changes type (ALTER COLUMN TYPE rebuilds the
/// index): its COLLATE and operator class are resolved again for the new
/// type, with ComputeIndexAttrs' errors.
pub(super) fn check_retyped_key(o: &IndexKeyOpt, ty: DataType) -> Result<(), DbError> {
    if let Some(c) = &o.collation {
        nestor_plan::bind::check_collation(std::slice::from_ref(c), ty)?;
    }
    if let Some(class) = &o.opclass {
        let names = [pb::Node {
            node: Some(NodeEnum::String(pb::String {
                sval: class.clone(),
            })),
        }];
        btree_class(&names, ty)?;
    }
    Ok(())
}
