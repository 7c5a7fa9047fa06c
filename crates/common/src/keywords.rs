//! The SQL keywords that are not PostgreSQL's "unreserved" keywords: an
//! identifier spelled like one must be double-quoted (`quote_ident`,
//! `format('%I')`, deparsed names). From libpg_query's kwlist.h
//! (PostgreSQL's grammar; the categories have not changed since 15 for
//! these words), in its alphabetical order. Kept here, below the parser
//! and the types crate, because both quote identifiers.

const QUOTED_KEYWORDS: [&str; 164] = [
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "json",
    "json_array",
    "json_arrayagg",
    "json_exists",
    "json_object",
    "json_objectagg",
    "json_query",
    "json_scalar",
    "json_serialize",
    "json_table",
    "json_value",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "merge_action",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// Whether `word` (lower case) is a keyword that must be quoted as an
/// identifier.
pub fn is_reserved_keyword(word: &str) -> bool {
    QUOTED_KEYWORDS.binary_search(&word).is_ok()
}

/// An identifier as PostgreSQL's quote_identifier writes it: bare when it
/// is lower-case letters, digits and underscores not starting with a
/// digit and not a keyword that needs quoting; else in double quotes,
/// inner ones doubled (`a$b`, `Abc`, `select` and `1a` are quoted). The
/// one rule for the SQL function quote_ident, pg_get_indexdef and every
/// other deparse.
pub fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !is_reserved_keyword(name);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_complete_for_common_words() {
        assert!(super::QUOTED_KEYWORDS.windows(2).all(|w| w[0] < w[1]));
        for w in ["select", "table", "user", "order", "between", "int"] {
            assert!(super::is_reserved_keyword(w), "{w}");
        }
        assert_eq!(super::quote_identifier("abc"), "abc");
        assert_eq!(super::quote_identifier("a$b"), "\"a$b\"");
        assert_eq!(super::quote_identifier("Abc"), "\"Abc\"");
        assert_eq!(super::quote_identifier("a\"b"), "\"a\"\"b\"");
        assert_eq!(super::quote_identifier(""), "\"\"");
        for w in ["name", "value", "id", "text", "data"] {
            assert!(!super::is_reserved_keyword(w), "{w}");
        }
    }
}
