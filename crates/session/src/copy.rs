//! COPY data formats: option parsing, the text and CSV parsers for
//! `COPY ... FROM STDIN`, and the formatters for `COPY ... TO STDOUT`.
//!
//! COPY FROM arrives as a stream of CopyData messages whose boundaries mean
//! nothing (a row may be split across two). [`CopyParser`] buffers bytes,
//! cuts complete records (a newline outside CSV quotes), splits fields,
//! recognises NULL on the raw field text (as PostgreSQL does: `\N` in text
//! format, an unquoted empty field in CSV), unescapes, and converts each
//! field with the column type's text input. The session drains parsed rows
//! in batches into the query engine's `copy_insert`, so memory stays bounded
//! by one batch whatever the size of the load.
//!
//! Not supported (0A000): binary format, HEADER MATCH, FORCE_QUOTE /
//! FORCE_NOT_NULL / FORCE_NULL, WHERE, files and programs.

use std::borrow::Cow;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{node::Node as NodeEnum, CopyStmt, DefElem};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use nestor_types::text::parse_text;
use nestor_types::EvalCtx;

use crate::encode::wire_type;

/// Rows handed to the engine at once.
pub(crate) const COPY_BATCH_ROWS: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyFormat {
    Text,
    Csv,
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

/// Options of a COPY statement (new and old syntax parse alike).
pub fn parse_options(stmt: &CopyStmt) -> Result<CopyOptions, DbError> {
    let mut o = CopyOptions {
        format: CopyFormat::Text,
        delimiter: b'\t',
        null: "\\N".into(),
        header: false,
        quote: b'"',
        escape: b'"',
        freeze: false,
    };
    let (mut delim, mut null, mut escape) = (None, None, None);
    for n in &stmt.options {
        let Some(NodeEnum::DefElem(d)) = n.node.as_ref() else {
            continue;
        };
        match d.defname.as_str() {
            "format" => {
                o.format = match def_arg(d).unwrap_or_default().to_ascii_lowercase().as_str() {
                    "text" => CopyFormat::Text,
                    "csv" => CopyFormat::Csv,
                    "binary" => return Err(DbError::unsupported("COPY BINARY")),
                    f => return Err(bad_option(format!("COPY format \"{f}\" not recognized"))),
                }
            }
            "delimiter" => delim = Some(single_byte(d, "delimiter")?),
            "null" => null = Some(def_arg(d).unwrap_or_default()),
            "header" => o.header = def_bool(d)?,
            "quote" => o.quote = single_byte(d, "quote")?,
            "escape" => escape = Some(single_byte(d, "escape")?),
            "freeze" => o.freeze = def_bool(d)?,
            "encoding" => {}
            other => return Err(DbError::unsupported(format!("COPY option \"{other}\""))),
        }
    }
    if o.format == CopyFormat::Csv {
        o.delimiter = b',';
        o.null = String::new();
    } else if o.header {
        return Err(DbError::unsupported("COPY HEADER in text format"));
    }
    o.delimiter = delim.unwrap_or(o.delimiter);
    o.null = null.unwrap_or(o.null);
    o.escape = escape.unwrap_or(o.quote);
    Ok(o)
}

fn copy_error(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::DataException, msg)
}

/// Incremental parser of COPY FROM data (see module header).
pub(crate) struct CopyParser {
    opts: CopyOptions,
    /// The target columns' types (from their OIDs), in data order.
    types: Vec<DataType>,
    names: Vec<String>,
    buf: Vec<u8>,
    line: u64,
    header_pending: bool,
    ended: bool,
    /// Relation name for error context (`COPY rel, line n`).
    rel: String,
    pub rows: Vec<Vec<Value>>,
    /// The input line number of each row in `rows`.
    pub lines: Vec<u64>,
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
            rel: String::new(),
            rows: Vec::new(),
            lines: Vec::new(),
        }
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

    /// Take one CopyData message's bytes.
    pub(crate) fn feed(&mut self, codec: &EvalCtx, data: &[u8]) -> Result<(), DbError> {
        if self.ended {
            return Ok(());
        }
        self.buf.extend_from_slice(data);
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
        self.line += 1;
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
            CopyFormat::Text => self.convert_text(codec, text)?,
            CopyFormat::Csv => {
                let fields = split_csv(text, &self.opts);
                self.convert(codec, fields, text)?
            }
        };
        self.rows.push(row);
        self.lines.push(line);
        Ok(())
    }

    /// A text-format record's values, parsed field by field as the line is
    /// split (no intermediate list of fields).
    fn convert_text(&self, codec: &EvalCtx, text: &str) -> Result<Vec<Value>, DbError> {
        // As in PostgreSQL: extra data is an error before any field is
        // parsed, missing data only after the fields that are there.
        let delimiter = self.opts.delimiter;
        let fields = 1 + text.bytes().filter(|&b| b == delimiter).count();
        if fields > self.types.len() {
            return Err(self.extra_data(text));
        }
        let mut row = Vec::with_capacity(self.types.len());
        for (raw, &ty) in text.split(delimiter as char).zip(&self.types) {
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
            fields.push(csv_field(std::mem::take(&mut cur), quoted, o));
            quoted = false;
        } else {
            cur.push(c);
        }
    }
    fields.push(csv_field(cur, quoted, o));
    fields
}

fn csv_field(s: String, quoted: bool, o: &CopyOptions) -> Option<Cow<'static, str>> {
    (quoted || s != o.null).then_some(Cow::Owned(s))
}

/// One COPY TO output line (with its newline).
pub(crate) fn format_row(codec: &EvalCtx, row: &[Value], o: &CopyOptions) -> Vec<u8> {
    let mut line = String::new();
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            line.push(o.delimiter as char);
        }
        match ((!v.is_null()).then(|| v.to_text(codec)), o.format) {
            (None, _) => line.push_str(&o.null),
            (Some(s), CopyFormat::Text) => escape_text(&mut line, &s, o.delimiter as char),
            (Some(s), CopyFormat::Csv) => quote_csv(&mut line, &s, o),
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
        quote_csv(&mut line, n, o);
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

fn quote_csv(out: &mut String, s: &str, o: &CopyOptions) {
    let (q, e, d) = (o.quote as char, o.escape as char, o.delimiter as char);
    let needs = s == o.null || s.contains([q, d, '\n', '\r']) || s == "\\.";
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
}
