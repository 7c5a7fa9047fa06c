//! COPY data formats: option parsing, the text, CSV and binary parsers for
//! `COPY ... FROM STDIN`, and the formatters for `COPY ... TO STDOUT`.
//!
//! COPY FROM arrives as a stream of CopyData messages whose boundaries mean
//! nothing (a row may be split across two). [`CopyParser`] buffers bytes,
//! cuts complete records (a newline outside CSV quotes), splits fields,
//! recognises NULL on the raw field text (as PostgreSQL does: `\N` in text
//! format, an unquoted empty field in CSV), unescapes, and converts each
//! field with the column type's text input. The session drains parsed rows
//! in batches into the query engine's `copy_insert`, so memory stays bounded
//! by one batch whatever the size of the load — except into a table with
//! triggers, which takes the whole COPY in one batch so that its statement
//! triggers fire once (PostgreSQL queues the AFTER ROW events in memory
//! too). `WHERE` is bound over the table row and skips the rows it is not
//! true for, before BEFORE ROW triggers and constraints, as in PostgreSQL.
//!
//! Binary format (`FORMAT binary`, old `WITH BINARY`) is PostgreSQL's
//! `PGCOPY` file layout, read and written by `copy/binary.rs`. The same
//! buffering applies: a tuple is cut from the buffer once all its fields
//! have arrived, and each field goes through the type's binary receive
//! (the representation Bind uses for binary parameters). Both paths check
//! the column's typmod as the field is read, so a too-long `varchar(n)`
//! names its column in the error context, as in PostgreSQL.
//!
//! CSV's FORCE_QUOTE (COPY TO), FORCE_NOT_NULL and FORCE_NULL (COPY FROM)
//! are resolved against the COPY's columns once they are known
//! ([`CopyOptions::resolve_force`]). Server-side files and programs feed
//! the same parser (`session/copy_server.rs`). Not supported (0A000):
//! HEADER MATCH.

use std::borrow::Cow;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{node::Node as NodeEnum, CopyStmt, DefElem};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use nestor_types::text::parse_text;
use nestor_types::EvalCtx;

use crate::encode::wire_type;

mod binary;
pub(crate) use binary::{binary_header, binary_row, BINARY_TRAILER};

/// Rows handed to the engine at once.
pub(crate) const COPY_BATCH_ROWS: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyFormat {
    Text,
    Csv,
    Binary,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyOptions {
    pub format: CopyFormat,
    pub delimiter: u8,
    pub null: String,
    pub header: bool,
    pub quote: u8,
    pub escape: u8,
    pub freeze: bool,
    /// FORCE_QUOTE / FORCE_NOT_NULL / FORCE_NULL as written (CSV only);
    /// [`CopyOptions::resolve_force`] turns them into the flags below.
    pub force: Vec<Force>,
    /// Per data column: always quote (COPY TO), never NULL, NULL even
    /// when quoted (COPY FROM). Empty: no column has the flag.
    pub force_quote: Vec<bool>,
    pub force_not_null: Vec<bool>,
    pub force_null: Vec<bool>,
}

/// One FORCE_* option: which one, and its columns (None: `*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Force {
    pub kind: ForceKind,
    pub columns: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceKind {
    Quote,
    NotNull,
    Null,
}

impl ForceKind {
    /// The option's name in PostgreSQL's messages.
    fn name(self) -> &'static str {
        match self {
            ForceKind::Quote => "FORCE_QUOTE",
            ForceKind::NotNull => "FORCE_NOT_NULL",
            ForceKind::Null => "FORCE_NULL",
        }
    }

    /// Its words in "COPY force ... available only in CSV mode".
    fn words(self) -> &'static str {
        match self {
            ForceKind::Quote => "force quote",
            ForceKind::NotNull => "force not null",
            ForceKind::Null => "force null",
        }
    }
}

impl CopyOptions {
    /// Resolve the FORCE_* columns against the COPY's data columns
    /// (`data`, in data order) and the relation's (`all`; 42703 for a name
    /// that is not one, 42P10 for one the COPY does not list).
    pub fn resolve_force(
        &mut self,
        data: &[String],
        all: &[String],
        rel: &str,
    ) -> Result<(), DbError> {
        for f in std::mem::take(&mut self.force) {
            let mut flags = vec![false; data.len()];
            match &f.columns {
                None => flags.iter_mut().for_each(|x| *x = true),
                Some(cols) => {
                    for c in cols {
                        if !all.contains(c) && !data.contains(c) {
                            // COPY (query) has no relation to name.
                            let msg = if rel.is_empty() {
                                format!("column \"{c}\" does not exist")
                            } else {
                                format!("column \"{c}\" of relation \"{rel}\" does not exist")
                            };
                            return Err(DbError::new(SqlState::UndefinedColumn, msg));
                        }
                        let Some(i) = data.iter().position(|d| d == c) else {
                            return Err(DbError::new(
                                SqlState::InvalidColumnReference,
                                format!("{} column \"{c}\" not referenced by COPY", f.kind.name()),
                            ));
                        };
                        flags[i] = true;
                    }
                }
            }
            match f.kind {
                ForceKind::Quote => self.force_quote = flags,
                ForceKind::NotNull => self.force_not_null = flags,
                ForceKind::Null => self.force_null = flags,
            }
        }
        Ok(())
    }
}

/// A FORCE_* option's argument: a list of column names, or `*` for
/// FORCE_QUOTE.
fn force_option(d: &DefElem, kind: ForceKind, text: &str) -> Result<Force, DbError> {
    let columns = match d.arg.as_ref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::AStar(_)) if kind == ForceKind::Quote => None,
        Some(NodeEnum::List(l)) => Some(nestor_parser::ast::names(&l.items)),
        _ => {
            let e = bad_option(format!(
                "argument to option \"{}\" must be a list of column names",
                d.defname
            ));
            return Err(nestor_parser::ast::err_at(e, text, d.location));
        }
    };
    Ok(Force { kind, columns })
}

/// PostgreSQL's checks of the FORCE_* options: CSV only, and each in its
/// direction (0A000).
fn check_force(o: &CopyOptions, is_from: bool) -> Result<(), DbError> {
    for f in &o.force {
        let what = f.kind.words();
        if o.format != CopyFormat::Csv {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("COPY {what} available only in CSV mode"),
            ));
        }
        let wrong_way = match f.kind {
            ForceKind::Quote => is_from.then_some("COPY TO"),
            ForceKind::NotNull | ForceKind::Null => (!is_from).then_some("COPY FROM"),
        };
        if let Some(way) = wrong_way {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("COPY {what} only available using {way}"),
            ));
        }
    }
    Ok(())
}

fn bad_option(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::SyntaxError, msg)
}

fn def_arg(d: &DefElem) -> Option<String> {
    match d.arg.as_ref()?.node.as_ref()? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        NodeEnum::Integer(i) => Some(i.ival.to_string()),
        NodeEnum::Float(f) => Some(f.fval.clone()),
        NodeEnum::Boolean(b) => Some(if b.boolval { "true" } else { "false" }.into()),
        _ => None,
    }
}

fn def_bool(d: &DefElem) -> Result<bool, DbError> {
    match def_arg(d).map(|s| s.to_ascii_lowercase()) {
        None => Ok(true),
        Some(s) => match s.as_str() {
            "true" | "on" | "1" | "yes" => Ok(true),
            "false" | "off" | "0" | "no" => Ok(false),
            "match" => Err(DbError::unsupported("HEADER MATCH")),
            _ => Err(bad_option(format!(
                "{} requires a Boolean value",
                d.defname
            ))),
        },
    }
}

fn single_byte(d: &DefElem, what: &str) -> Result<u8, DbError> {
    let s = def_arg(d).unwrap_or_default();
    match s.as_bytes() {
        [b] if b.is_ascii() => Ok(*b),
        _ => Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("COPY {what} must be a single one-byte character"),
        )),
    }
}

/// Options of a COPY statement (new and old syntax parse alike). `text`
/// is the statement's source, for the position of a conflicting option.
pub fn parse_options(stmt: &CopyStmt, text: &str) -> Result<CopyOptions, DbError> {
    let mut o = CopyOptions {
        format: CopyFormat::Text,
        delimiter: b'\t',
        null: "\\N".into(),
        header: false,
        quote: b'"',
        escape: b'"',
        freeze: false,
        force: Vec::new(),
        force_quote: Vec::new(),
        force_not_null: Vec::new(),
        force_null: Vec::new(),
    };
    let (mut delim, mut null, mut quote, mut escape) = (None, None, None, None);
    let options: Vec<&DefElem> = stmt
        .options
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(NodeEnum::DefElem(d)) => Some(&**d),
            _ => None,
        })
        .collect();
    // Each option at most once (PostgreSQL's ProcessCopyOptions), checked
    // first and before COPY FROM enters copy mode: the client's data would
    // otherwise be read as the copy's.
    for (i, d) in options.iter().enumerate() {
        if options[..i].iter().any(|p| p.defname == d.defname) {
            let e = bad_option("conflicting or redundant options");
            return Err(nestor_parser::ast::err_at(e, text, d.location));
        }
    }
    for d in options {
        match d.defname.as_str() {
            "format" => o.format = parse_format(d)?,
            "delimiter" => delim = Some(single_byte(d, "delimiter")?),
            "null" => null = Some(def_arg(d).unwrap_or_default()),
            "header" => o.header = def_bool(d)?,
            "quote" => quote = Some(single_byte(d, "quote")?),
            "escape" => escape = Some(single_byte(d, "escape")?),
            "freeze" => o.freeze = def_bool(d)?,
            "force_quote" => o.force.push(force_option(d, ForceKind::Quote, text)?),
            "force_not_null" => o.force.push(force_option(d, ForceKind::NotNull, text)?),
            "force_null" => o.force.push(force_option(d, ForceKind::Null, text)?),
            "encoding" => {}
            other => return Err(DbError::unsupported(format!("COPY option \"{other}\""))),
        }
    }
    if o.format == CopyFormat::Binary {
        check_binary(delim.is_some(), null.is_some(), o.header)?;
    }
    if o.format == CopyFormat::Csv {
        o.delimiter = b',';
        o.null = String::new();
    } else if o.header && o.format == CopyFormat::Text {
        return Err(DbError::unsupported("COPY HEADER in text format"));
    }
    if o.format != CopyFormat::Csv {
        check_csv_only(quote.is_some(), escape.is_some())?;
    }
    check_force(&o, stmt.is_from)?;
    o.quote = quote.unwrap_or(o.quote);
    o.delimiter = delim.unwrap_or(o.delimiter);
    o.null = null.unwrap_or(o.null);
    o.escape = escape.unwrap_or(o.quote);
    Ok(o)
}

fn parse_format(d: &DefElem) -> Result<CopyFormat, DbError> {
    match def_arg(d).unwrap_or_default().to_ascii_lowercase().as_str() {
        "text" => Ok(CopyFormat::Text),
        "csv" => Ok(CopyFormat::Csv),
        "binary" => Ok(CopyFormat::Binary),
        f => Err(bad_option(format!("COPY format \"{f}\" not recognized"))),
    }
}

/// PostgreSQL's ProcessCopyOptions checks for options binary format has no
/// use for, in its order (HEADER's is 0A000, the others 42601).
fn check_binary(delim: bool, null: bool, header: bool) -> Result<(), DbError> {
    if delim || null {
        let what = if delim { "DELIMITER" } else { "NULL" };
        return Err(bad_option(format!("cannot specify {what} in BINARY mode")));
    }
    if header {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot specify HEADER in BINARY mode",
        ));
    }
    Ok(())
}

/// QUOTE and ESCAPE outside CSV mode (0A000, as PostgreSQL).
fn check_csv_only(quote: bool, escape: bool) -> Result<(), DbError> {
    let bad = [(quote, "quote"), (escape, "escape")];
    match bad.iter().find(|(set, _)| *set) {
        Some((_, what)) => Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("COPY {what} available only in CSV mode"),
        )),
        None => Ok(()),
    }
}

fn copy_error(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::DataException, msg)
}

/// Incremental parser of COPY FROM data (see module header).
pub(crate) struct CopyParser {
    opts: CopyOptions,
    /// The target columns' types (from their OIDs and typmods), in data
    /// order.
    types: Vec<DataType>,
    names: Vec<String>,
    buf: Vec<u8>,
    line: u64,
    header_pending: bool,
    ended: bool,
    /// Binary format: where the reader is in the stream.
    bin: binary::BinState,
    /// Relation name for error context (`COPY rel, line n`).
    rel: String,
    pub rows: Vec<Vec<Value>>,
    /// The input line number of each row in `rows`.
    pub lines: Vec<u64>,
    /// The text of each row's input line (text and CSV formats), one
    /// buffer for the batch: row i's is `texts[text_ends[i-1]..text_ends[i]]`
    /// (PostgreSQL's CONTEXT of an error writing it quotes the line).
    pub texts: String,
    pub text_ends: Vec<usize>,
}

/// Row `i`'s input line as the batch kept it (`CopyParser::texts`).
pub(crate) fn batch_line<'a>(texts: &'a str, ends: &[usize], i: usize) -> Option<&'a str> {
    let end = *ends.get(i)?;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    texts.get(start..end)
}

impl CopyParser {
    /// `oids`/`names`: the target columns in data order.
    pub fn new(opts: CopyOptions, oids: Vec<u32>, names: Vec<String>) -> CopyParser {
        let header_pending = opts.header;
        CopyParser {
            opts,
            types: oids.into_iter().map(wire_type).collect(),
            names,
            buf: Vec::new(),
            line: 0,
            header_pending,
            ended: false,
            bin: binary::BinState::Header,
            rel: String::new(),
            rows: Vec::new(),
            lines: Vec::new(),
            texts: String::new(),
            text_ends: Vec::new(),
        }
    }

    /// The target columns' typmods (`-1` for none), so that a value is
    /// checked against `varchar(n)` / `numeric(p, s)` as its field is
    /// read, with the column in the error context, as PostgreSQL does.
    pub(crate) fn with_typmods(mut self, typmods: &[i32]) -> CopyParser {
        for (ty, &typmod) in self.types.iter_mut().zip(typmods) {
            if let Some(t) = DataType::from_oid_typmod(ty.oid(), typmod) {
                *ty = t;
            }
        }
        self
    }

    /// Name the target relation in error contexts, as PostgreSQL does.
    pub(crate) fn with_relation(mut self, rel: impl Into<String>) -> CopyParser {
        self.rel = rel.into();
        self
    }

    /// PostgreSQL's CONTEXT for an error at input line `line`.
    pub fn context(&self, line: u64) -> String {
        format!("COPY {}, line {line}", self.rel)
    }

    /// The CONTEXT of an error writing the row read from `line`, whose
    /// text is `text` when the format has lines (PostgreSQL quotes it).
    pub(crate) fn row_context(&self, line: u64, text: Option<&str>) -> String {
        match text {
            Some(t) => format!("{}: \"{}\"", self.context(line), printout(t)),
            None => self.context(line),
        }
    }

    /// Take one CopyData message's bytes.
    pub(crate) fn feed(&mut self, codec: &EvalCtx, data: &[u8]) -> Result<(), DbError> {
        if self.ended {
            return Ok(());
        }
        self.buf.extend_from_slice(data);
        if self.opts.format == CopyFormat::Binary {
            return self.parse_binary(false);
        }
        // Records are parsed in place: the buffer is taken out so that
        // `record` can borrow self mutably.
        let buf = std::mem::take(&mut self.buf);
        let mut start = 0;
        let mut result = Ok(());
        while let Some(end) = self.record_end(&buf, start) {
            let rec = &buf[start..end];
            start = end + 1;
            result = self.record(codec, rec);
            if result.is_err() || self.ended {
                break;
            }
        }
        self.buf = buf;
        self.buf.drain(..start);
        result
    }

    /// CopyDone: a last record without a trailing newline.
    pub fn finish(&mut self, codec: &EvalCtx) -> Result<(), DbError> {
        if self.opts.format == CopyFormat::Binary {
            return self.parse_binary(true);
        }
        if !self.ended && !self.buf.is_empty() {
            let rec = std::mem::take(&mut self.buf);
            if self.opts.format == CopyFormat::Csv
                && self.record_end(&rec, 0).is_none()
                && quote_open(&rec, &self.opts)
            {
                return Err(copy_error("unterminated CSV quoted field"));
            }
            self.record(codec, &rec)?;
        }
        Ok(())
    }

    /// Index of the newline ending the record that starts at `start`.
    fn record_end(&self, buf: &[u8], start: usize) -> Option<usize> {
        let b = &buf[start..];
        match self.opts.format {
            // Binary input is cut into tuples by `parse_binary`.
            CopyFormat::Binary => None,
            CopyFormat::Text => b.iter().position(|c| *c == b'\n').map(|p| start + p),
            CopyFormat::Csv => {
                let mut in_quote = false;
                let mut i = 0;
                while i < b.len() {
                    let c = b[i];
                    if in_quote
                        && c == self.opts.escape
                        && b.get(i + 1) == Some(&self.opts.quote)
                        && self.opts.escape != self.opts.quote
                    {
                        i += 2;
                        continue;
                    }
                    if c == self.opts.quote {
                        in_quote = !in_quote;
                    } else if c == b'\n' && !in_quote {
                        return Some(start + i);
                    }
                    i += 1;
                }
                None
            }
        }
    }

    fn record(&mut self, codec: &EvalCtx, rec: &[u8]) -> Result<(), DbError> {
        // A CSV record's quoted newlines are lines too: PostgreSQL numbers
        // a record by the last line it spans.
        self.line += 1 + rec.iter().filter(|&&b| b == b'\n').count() as u64;
        let rec = rec.strip_suffix(b"\r").unwrap_or(rec);
        if rec == b"\\." {
            self.ended = true;
            return Ok(());
        }
        if std::mem::take(&mut self.header_pending) {
            return Ok(());
        }
        let line = self.line;
        let text = std::str::from_utf8(rec).map_err(|_| {
            DbError::new(
                SqlState::CharacterNotInRepertoire,
                "invalid byte sequence for encoding \"UTF8\"",
            )
            .with_context(self.context(line))
        })?;
        let row = match self.opts.format {
            CopyFormat::Text | CopyFormat::Binary => self.convert_text(codec, text)?,
            CopyFormat::Csv => {
                let fields = split_csv(text, &self.opts);
                self.convert(codec, fields, text)?
            }
        };
        self.rows.push(row);
        self.lines.push(line);
        self.texts.push_str(text);
        self.text_ends.push(self.texts.len());
        Ok(())
    }

    /// A text-format record's values, parsed field by field as the line is
    /// split (no intermediate list of fields).
    fn convert_text(&self, codec: &EvalCtx, text: &str) -> Result<Vec<Value>, DbError> {
        // As in PostgreSQL: extra data is an error before any field is
        // parsed, missing data only after the fields that are there.
        let delimiter = self.opts.delimiter;
        if text.contains('\\') {
            let raw = escaped_fields(text, delimiter);
            return self.convert_raw(codec, text, raw.len(), raw.into_iter());
        }
        let fields = 1 + text.bytes().filter(|&b| b == delimiter).count();
        self.convert_raw(codec, text, fields, text.split(delimiter as char))
    }

    /// [`Self::convert_text`] over the record's raw fields (`fields` of
    /// them).
    fn convert_raw<'a>(
        &self,
        codec: &EvalCtx,
        text: &str,
        fields: usize,
        raw_fields: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<Value>, DbError> {
        if fields > self.types.len() {
            return Err(self.extra_data(text));
        }
        let mut row = Vec::with_capacity(self.types.len());
        for (raw, &ty) in raw_fields.zip(&self.types) {
            if raw == self.opts.null {
                row.push(Value::Null);
                continue;
            }
            let field = unescape_text(raw).map_err(|e| {
                e.with_context(format!(
                    "{}: \"{}\"",
                    self.context(self.line),
                    printout(text)
                ))
            })?;
            row.push(self.parse_field(codec, ty, row.len(), &field)?);
        }
        self.check_width(fields, text)?;
        Ok(row)
    }

    fn convert(
        &self,
        codec: &EvalCtx,
        fields: Vec<Option<Cow<'_, str>>>,
        text: &str,
    ) -> Result<Vec<Value>, DbError> {
        if fields.len() > self.types.len() {
            return Err(self.extra_data(text));
        }
        let width = fields.len();
        let row = fields
            .into_iter()
            .zip(&self.types)
            .enumerate()
            .map(|(i, (f, ty))| match f {
                None => Ok(Value::Null),
                Some(s) => self.parse_field(codec, *ty, i, s.as_ref()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.check_width(width, text)?;
        Ok(row)
    }

    fn parse_field(
        &self,
        codec: &EvalCtx,
        ty: DataType,
        column: usize,
        field: &str,
    ) -> Result<Value, DbError> {
        parse_text(ty, field, codec).map_err(|e| {
            e.with_context(format!(
                "{}, column {}: \"{}\"",
                self.context(self.line),
                self.names[column],
                printout(field)
            ))
        })
    }

    fn whole_line(&self, text: &str) -> String {
        format!("{}: \"{}\"", self.context(self.line), printout(text))
    }

    fn extra_data(&self, text: &str) -> DbError {
        copy_error("extra data after last expected column").with_context(self.whole_line(text))
    }

    /// Error for a record with fewer fields than columns.
    fn check_width(&self, fields: usize, text: &str) -> Result<(), DbError> {
        if fields < self.types.len() {
            let col = self.names.get(fields).cloned().unwrap_or_default();
            return Err(copy_error(format!("missing data for column \"{col}\""))
                .with_context(self.whole_line(text)));
        }
        Ok(())
    }
}

/// PostgreSQL's limit_printout_length: at most 100 characters, then "...".
fn printout(s: &str) -> String {
    const MAX_CHARS: usize = 100;
    match s.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

fn quote_open(rec: &[u8], o: &CopyOptions) -> bool {
    rec.iter().filter(|c| **c == o.quote).count() % 2 == 1
}

/// A text-format record's raw fields, cut at each delimiter no backslash
/// escapes (PostgreSQL's CopyReadAttributesText: `\,` is a comma in a
/// field when the delimiter is a comma). The delimiter is ASCII, so the
/// cuts fall on character boundaries.
fn escaped_fields(text: &str, delimiter: u8) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == delimiter {
            out.push(&text[start..i]);
            start = i + 1;
        }
        i += 1;
    }
    out.push(&text[start..]);
    out
}

fn unescape_text(raw: &str) -> Result<Cow<'_, str>, DbError> {
    if !raw.contains('\\') {
        return Ok(Cow::Borrowed(raw));
    }
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            b'x' if i < b.len() && b[i].is_ascii_hexdigit() => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    String::from_utf8(out).map(Cow::Owned).map_err(|_| {
        DbError::new(
            SqlState::CharacterNotInRepertoire,
            "invalid byte sequence for encoding \"UTF8\"",
        )
    })
}

fn split_csv(line: &str, o: &CopyOptions) -> Vec<Option<Cow<'static, str>>> {
    let (q, e, d) = (o.quote as char, o.escape as char, o.delimiter as char);
    let mut fields = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut in_quote) = (false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_quote {
            if c == e && chars.peek() == Some(&q) {
                cur.push(q);
                chars.next();
            } else if c == q {
                in_quote = false;
            } else {
                cur.push(c);
            }
        } else if c == q {
            in_quote = true;
            quoted = true;
        } else if c == d {
            let i = fields.len();
            fields.push(csv_field(std::mem::take(&mut cur), quoted, o, i));
            quoted = false;
        } else {
            cur.push(c);
        }
    }
    let i = fields.len();
    fields.push(csv_field(cur, quoted, o, i));
    fields
}

/// Field `i` of a CSV record: NULL when it is the null string unquoted
/// (never under FORCE_NOT_NULL; quoted too under FORCE_NULL).
fn csv_field(s: String, quoted: bool, o: &CopyOptions, i: usize) -> Option<Cow<'static, str>> {
    let flag = |v: &[bool]| v.get(i).copied().unwrap_or(false);
    let null = s == o.null
        && match quoted {
            false => !flag(&o.force_not_null),
            true => flag(&o.force_null),
        };
    (!null).then_some(Cow::Owned(s))
}

/// One COPY TO output line (with its newline) in text or CSV format
/// (binary rows are [`binary_row`]'s).
pub(crate) fn format_row(codec: &EvalCtx, row: &[Value], o: &CopyOptions) -> Vec<u8> {
    let mut line = String::new();
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            line.push(o.delimiter as char);
        }
        match ((!v.is_null()).then(|| v.to_text(codec)), o.format) {
            (None, _) => line.push_str(&o.null),
            (Some(s), CopyFormat::Text | CopyFormat::Binary) => {
                escape_text(&mut line, &s, o.delimiter as char)
            }
            (Some(s), CopyFormat::Csv) => {
                let force = o.force_quote.get(i).copied().unwrap_or(false);
                quote_csv(&mut line, &s, o, force)
            }
        }
    }
    line.push('\n');
    line.into_bytes()
}

/// The CSV header line.
pub(crate) fn format_header(names: &[String], o: &CopyOptions) -> Vec<u8> {
    let mut line = String::new();
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            line.push(o.delimiter as char);
        }
        quote_csv(&mut line, n, o, false);
    }
    line.push('\n');
    line.into_bytes()
}

fn escape_text(out: &mut String, s: &str, delim: char) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' if delim == '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if c == delim => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
}

fn quote_csv(out: &mut String, s: &str, o: &CopyOptions, force: bool) {
    let (q, e, d) = (o.quote as char, o.escape as char, o.delimiter as char);
    let needs = force || s == o.null || s.contains([q, d, '\n', '\r']) || s == "\\.";
    if !needs {
        out.push_str(s);
        return;
    }
    out.push(q);
    for c in s.chars() {
        if c == q || c == e {
            out.push(e);
        }
        out.push(c);
    }
    out.push(q);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(format: CopyFormat) -> CopyOptions {
        CopyOptions {
            format,
            delimiter: if format == CopyFormat::Csv {
                b','
            } else {
                b'\t'
            },
            null: if format == CopyFormat::Csv {
                String::new()
            } else {
                "\\N".into()
            },
            header: false,
            quote: b'"',
            escape: b'"',
            freeze: false,
            force: Vec::new(),
            force_quote: Vec::new(),
            force_not_null: Vec::new(),
            force_null: Vec::new(),
        }
    }

    fn codec() -> EvalCtx {
        EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0)
    }

    #[test]
    fn text_rows_across_messages() {
        let mut p = CopyParser::new(
            opts(CopyFormat::Text),
            vec![23, 25],
            vec!["a".into(), "b".into()],
        );
        p.feed(&codec(), b"1\tx\\ty\n2\t\\N\n3\t").unwrap();
        p.feed(&codec(), b"z\n\\.\n").unwrap();
        p.finish(&codec()).unwrap();
        assert_eq!(
            p.rows,
            vec![
                vec![Value::Int4(1), Value::text("x\ty")],
                vec![Value::Int4(2), Value::Null],
                vec![Value::Int4(3), Value::text("z")],
            ]
        );
    }

    #[test]
    fn csv_quotes_and_nulls() {
        let mut p = CopyParser::new(
            opts(CopyFormat::Csv),
            vec![25, 25],
            vec!["a".into(), "b".into()],
        );
        p.feed(&codec(), b"\"a,\"\"b\",\n\"\",\"multi\nline\"\n")
            .unwrap();
        p.finish(&codec()).unwrap();
        assert_eq!(p.rows[0], vec![Value::text("a,\"b"), Value::Null]);
        assert_eq!(p.rows[1], vec![Value::text(""), Value::text("multi\nline")]);
    }

    #[test]
    fn missing_and_extra_columns() {
        let mut p = CopyParser::new(
            opts(CopyFormat::Text),
            vec![23, 23],
            vec!["a".into(), "b".into()],
        );
        let e = p.feed(&codec(), b"1\n").unwrap_err();
        assert_eq!(e.message, "missing data for column \"b\"");
        let mut p = CopyParser::new(opts(CopyFormat::Text), vec![23], vec!["a".into()]);
        let e = p.feed(&codec(), b"1\t2\n").unwrap_err();
        assert_eq!(e.message, "extra data after last expected column");
    }

    #[test]
    fn output_escapes() {
        let row = vec![Value::text("a\tb"), Value::Null, Value::Int4(3)];
        assert_eq!(
            format_row(&codec(), &row, &opts(CopyFormat::Text)),
            b"a\\tb\t\\N\t3\n"
        );
        let row = vec![Value::text("a,b"), Value::Null, Value::text("")];
        assert_eq!(
            format_row(&codec(), &row, &opts(CopyFormat::Csv)),
            b"\"a,b\",,\"\"\n"
        );
    }

    fn binary_opts() -> CopyOptions {
        CopyOptions {
            format: CopyFormat::Binary,
            ..opts(CopyFormat::Text)
        }
    }

    fn binary_parser(oids: Vec<u32>) -> CopyParser {
        let names = (0..oids.len()).map(|i| format!("c{i}")).collect();
        CopyParser::new(binary_opts(), oids, names).with_relation("t")
    }

    /// A binary COPY stream of `rows` (int4, text) with the trailer.
    fn binary_stream(rows: &[Vec<Value>]) -> Vec<u8> {
        let types = [DataType::Int4, DataType::Text];
        let mut out = binary_header();
        for r in rows {
            out.extend_from_slice(&binary_row(r, &types));
        }
        out.extend_from_slice(&BINARY_TRAILER);
        out
    }

    fn sample_rows() -> Vec<Vec<Value>> {
        vec![
            vec![Value::Int4(1), Value::text("one")],
            vec![Value::Null, Value::text("")],
            vec![Value::Int4(-3), Value::Null],
        ]
    }

    fn load(p: &mut CopyParser, chunks: &[&[u8]]) -> Result<(), DbError> {
        for c in chunks {
            p.feed(&codec(), c)?;
        }
        p.finish(&codec())
    }

    fn binary_error(oids: Vec<u32>, data: &[u8]) -> DbError {
        load(&mut binary_parser(oids), &[data]).unwrap_err()
    }

    #[test]
    fn binary_layout_is_postgres() {
        let s = binary_stream(&[vec![Value::Int4(7), Value::Null]]);
        let mut want = b"PGCOPY\n\xff\r\n\0".to_vec();
        want.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]); // flags, extension
        want.extend_from_slice(&[0, 2, 0, 0, 0, 4, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff]);
        want.extend_from_slice(&[0xff, 0xff]);
        assert_eq!(s, want);
    }

    #[test]
    fn binary_round_trip_in_one_message() {
        let mut p = binary_parser(vec![23, 25]);
        load(&mut p, &[&binary_stream(&sample_rows())]).unwrap();
        assert_eq!(p.rows, sample_rows());
        assert_eq!(p.lines, vec![1, 2, 3]);
    }

    /// Every way of cutting the stream in two (so every row split at every
    /// byte) and byte-at-a-time input give the same rows.
    #[test]
    fn binary_split_at_every_byte() {
        let s = binary_stream(&sample_rows());
        for cut in 0..=s.len() {
            let mut p = binary_parser(vec![23, 25]);
            load(&mut p, &[&s[..cut], &s[cut..]]).unwrap();
            assert_eq!(p.rows, sample_rows(), "cut at {cut}");
        }
        let mut p = binary_parser(vec![23, 25]);
        let bytes: Vec<&[u8]> = s.chunks(1).collect();
        load(&mut p, &bytes).unwrap();
        assert_eq!(p.rows, sample_rows());
    }

    #[test]
    fn binary_header_extension_and_flags() {
        let mut s = b"PGCOPY\n\xff\r\n\0".to_vec();
        s.extend_from_slice(&[0, 0, 0xff, 0xff]); // low flag bits are ignored
        s.extend_from_slice(&[0, 0, 0, 3, 9, 9, 9]); // 3 bytes of extension
        s.extend_from_slice(&binary_row(&[Value::Int4(5)], &[DataType::Int4]));
        for cut in 0..=s.len() {
            let mut p = binary_parser(vec![23]);
            load(&mut p, &[&s[..cut], &s[cut..]]).unwrap();
            assert_eq!(p.rows, vec![vec![Value::Int4(5)]], "cut at {cut}");
        }
        let mut oids = binary_stream(&[]);
        oids[12] = 1; // flags bit 16
        let e = binary_error(vec![23, 25], &oids);
        assert_eq!(e.message, "invalid COPY file header (WITH OIDS)");
        oids[12] = 0;
        oids[11] = 0x80;
        let e = binary_error(vec![23, 25], &oids);
        assert_eq!(e.message, "unrecognized critical flags in COPY file header");
    }

    #[test]
    fn binary_bad_headers() {
        let full = binary_stream(&[]);
        for (len, msg) in [
            (0, "COPY file signature not recognized"),
            (10, "COPY file signature not recognized"),
            (11, "invalid COPY file header (missing flags)"),
            (14, "invalid COPY file header (missing flags)"),
            (15, "invalid COPY file header (missing length)"),
            (18, "invalid COPY file header (missing length)"),
        ] {
            let e = binary_error(vec![23], &full[..len]);
            assert_eq!(
                (e.code, e.message.as_str()),
                (SqlState::BadCopyFileFormat, msg)
            );
            assert_eq!(e.context, None);
        }
        let e = binary_error(vec![23], b"1\tone\n");
        assert_eq!(e.message, "COPY file signature not recognized");
        let mut ext = full[..15].to_vec();
        ext.extend_from_slice(&[0, 0, 0, 9, 1]);
        let e = binary_error(vec![23], &ext);
        assert_eq!(e.message, "invalid COPY file header (wrong length)");
        let mut neg = full[..15].to_vec();
        neg.extend_from_slice(&[0xff; 4]);
        let e = binary_error(vec![23], &neg);
        assert_eq!(e.message, "invalid COPY file header (missing length)");
    }

    #[test]
    fn binary_tuple_errors() {
        let rows = sample_rows();
        let s = binary_stream(&rows);
        let e = binary_error(vec![23, 25, 25], &s);
        assert_eq!(e.code, SqlState::BadCopyFileFormat);
        assert_eq!(e.message, "row field count is 2, expected 3");
        assert_eq!(e.context.as_deref(), Some("COPY t, line 1"));
        // Truncated inside the second row's second field.
        let e = binary_error(vec![23, 25], &s[..s.len() - 5]);
        assert_eq!(e.message, "unexpected EOF in COPY data");
        assert_eq!(e.context.as_deref(), Some("COPY t, line 3, column c1"));
        // Data after the trailer.
        let mut extra = s.clone();
        extra.push(0);
        let e = binary_error(vec![23, 25], &extra);
        assert_eq!(e.message, "received copy data after EOF marker");
        assert_eq!(e.context.as_deref(), Some("COPY t, line 4"));
        // A negative field length.
        let mut bad = binary_header();
        bad.extend_from_slice(&[0, 1, 0xff, 0xff, 0xff, 0xfe]);
        let e = binary_error(vec![23], &bad);
        assert_eq!(e.message, "invalid field size");
        assert_eq!(e.context.as_deref(), Some("COPY t, line 1, column c0"));
    }

    #[test]
    fn binary_end_without_trailer() {
        let s = binary_stream(&sample_rows());
        // No trailer, or a lone byte where a tuple would start: the end.
        for cut in [2, 1] {
            let mut p = binary_parser(vec![23, 25]);
            load(&mut p, &[&s[..s.len() - cut]]).unwrap();
            assert_eq!(p.rows.len(), 3);
        }
    }

    #[test]
    fn binary_field_data_errors() {
        let mut s = binary_header();
        s.extend_from_slice(&[0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 1]);
        let e = binary_error(vec![23], &s);
        assert_eq!(e.code, SqlState::InvalidBinaryRepresentation);
        assert_eq!(e.message, "incorrect binary data format");
        assert_eq!(e.context.as_deref(), Some("COPY t, line 1, column c0"));
        let mut s = binary_header();
        s.extend_from_slice(&[0, 1, 0, 0, 0, 2, 0, 0]);
        let e = binary_error(vec![23], &s);
        assert_eq!(e.code, SqlState::ProtocolViolation);
        assert_eq!(e.message, "insufficient data left in message");
        // A bad first field is reported before a truncated second one.
        let mut s = binary_header();
        s.extend_from_slice(&[0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 9]);
        let e = binary_error(vec![23, 25], &s);
        assert_eq!(e.message, "insufficient data left in message");
        // A field too big for one allocation.
        let mut s = binary_header();
        s.extend_from_slice(&[0, 1, 0x7f, 0xff, 0xff, 0xff]);
        let e = binary_error(vec![17], &s);
        assert_eq!(e.code, SqlState::ProgramLimitExceeded);
    }

    /// Truncations and corrupted bytes anywhere give rows or an error,
    /// never a panic (an int4[] column exercises the array receive).
    #[test]
    fn binary_malformed_input_never_panics() {
        let arr = nestor_types::text::parse_text(
            DataType::from_oid(1007).unwrap_or(DataType::Text),
            "{1,NULL,3}",
            &codec(),
        )
        .unwrap();
        let types = [
            DataType::Int4,
            DataType::Text,
            DataType::from_oid(1007).unwrap(),
        ];
        let mut s = binary_header();
        s.extend_from_slice(&binary_row(
            &[Value::Int4(1), Value::text("ab"), arr],
            &types,
        ));
        s.extend_from_slice(&binary_row(
            &[Value::Null, Value::Null, Value::Null],
            &types,
        ));
        s.extend_from_slice(&BINARY_TRAILER);
        let run = |data: &[u8]| {
            let mut p = binary_parser(vec![23, 25, 1007]);
            let (a, b) = data.split_at(data.len() / 2);
            let _ = load(&mut p, &[a, b]);
        };
        for len in 0..=s.len() {
            run(&s[..len]);
        }
        for at in 0..s.len() {
            for byte in [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff] {
                let mut bad = s.clone();
                bad[at] = byte;
                run(&bad);
            }
        }
    }

    #[test]
    fn binary_options() {
        let parse = |sql: &str| {
            let stmts = nestor_parser::parse_sql(sql).unwrap();
            let node = stmts[0].stmt.as_ref().and_then(|n| n.node.as_ref());
            let Some(NodeEnum::CopyStmt(c)) = node else {
                panic!("not a COPY: {sql}");
            };
            parse_options(c, sql)
        };
        for sql in [
            "COPY t FROM STDIN (FORMAT binary)",
            "COPY t TO STDOUT WITH BINARY",
            "COPY BINARY t FROM STDIN",
        ] {
            assert_eq!(parse(sql).unwrap().format, CopyFormat::Binary, "{sql}");
        }
        for (sql, msg) in [
            (
                "COPY t TO STDOUT (FORMAT binary, DELIMITER ',')",
                "cannot specify DELIMITER in BINARY mode",
            ),
            (
                "COPY t TO STDOUT (FORMAT binary, NULL 'x')",
                "cannot specify NULL in BINARY mode",
            ),
            (
                "COPY t TO STDOUT (FORMAT binary, FORMAT csv)",
                "conflicting or redundant options",
            ),
        ] {
            let e = parse(sql).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (SqlState::SyntaxError, msg));
        }
        let e = parse("COPY t TO STDOUT (FORMAT binary, HEADER)").unwrap_err();
        assert_eq!(e.code, SqlState::FeatureNotSupported);
        assert_eq!(e.message, "cannot specify HEADER in BINARY mode");
        let e = parse("COPY t TO STDOUT (FORMAT binary, QUOTE '\"')").unwrap_err();
        assert_eq!(e.message, "COPY quote available only in CSV mode");
    }
}
