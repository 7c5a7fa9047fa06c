//! Command tags: what CommandComplete tells the client a statement did.

use std::fmt;

/// Commands whose tag carries a row count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsCommand {
    Select,
    /// `INSERT 0 n` (the 0 is the historical OID field).
    Insert,
    Update,
    Delete,
    Merge,
    Copy,
    /// FETCH and MOVE on a cursor.
    Fetch,
    Move,
}

/// A CommandComplete tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandTag {
    Rows(RowsCommand, u64),
    /// Every other command: its fixed tag ("CREATE TABLE", "BEGIN", "SET").
    Plain(&'static str),
}

impl CommandTag {
    /// The same command with another row count (a portal fetched in
    /// pieces reports each piece's rows).
    pub fn with_rows(self, n: u64) -> CommandTag {
        match self {
            CommandTag::Rows(c, _) => CommandTag::Rows(c, n),
            plain => plain,
        }
    }

    /// The row count the tag carries (0 for a plain tag): what
    /// pg_stat_statements.rows adds up.
    pub fn rows(self) -> u64 {
        match self {
            CommandTag::Rows(_, n) => n,
            CommandTag::Plain(_) => 0,
        }
    }
}

impl RowsCommand {
    /// The tag's text before the row count.
    pub fn prefix(self) -> &'static str {
        match self {
            RowsCommand::Select => "SELECT ",
            RowsCommand::Insert => "INSERT 0 ",
            RowsCommand::Update => "UPDATE ",
            RowsCommand::Delete => "DELETE ",
            RowsCommand::Merge => "MERGE ",
            RowsCommand::Copy => "COPY ",
            RowsCommand::Fetch => "FETCH ",
            RowsCommand::Move => "MOVE ",
        }
    }
}

impl fmt::Display for CommandTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandTag::Rows(c, n) => write!(f, "{}{n}", c.prefix()),
            CommandTag::Plain(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_print_as_postgresql_does() {
        assert_eq!(
            CommandTag::Rows(RowsCommand::Insert, 3).to_string(),
            "INSERT 0 3"
        );
        assert_eq!(
            CommandTag::Rows(RowsCommand::Select, 9)
                .with_rows(2)
                .to_string(),
            "SELECT 2"
        );
        assert_eq!(CommandTag::Plain("BEGIN").with_rows(2).to_string(), "BEGIN");
    }
}
