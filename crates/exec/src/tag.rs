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
}

impl fmt::Display for CommandTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandTag::Rows(RowsCommand::Select, n) => write!(f, "SELECT {n}"),
            CommandTag::Rows(RowsCommand::Insert, n) => write!(f, "INSERT 0 {n}"),
            CommandTag::Rows(RowsCommand::Update, n) => write!(f, "UPDATE {n}"),
            CommandTag::Rows(RowsCommand::Delete, n) => write!(f, "DELETE {n}"),
            CommandTag::Rows(RowsCommand::Copy, n) => write!(f, "COPY {n}"),
            CommandTag::Rows(RowsCommand::Fetch, n) => write!(f, "FETCH {n}"),
            CommandTag::Rows(RowsCommand::Move, n) => write!(f, "MOVE {n}"),
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
