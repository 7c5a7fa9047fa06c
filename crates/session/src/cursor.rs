//! SQL cursors: DECLARE, FETCH, MOVE, CLOSE (what psycopg's named cursors,
//! Django's `.iterator()` and SQLAlchemy's `stream_results` send).
//!
//! A cursor runs its query to completion at DECLARE and keeps the rows
//! (PostgreSQL's cursors are lazy; the rows are the same, as both read the
//! snapshot of DECLARE — an "insensitive" cursor), with a position:
//!
//! ```text
//!   rows  r1 r2 r3          position 0 = before r1, 1..=3 on a row,
//!         ^ pos=1                    4 = after r3
//!   FETCH 2   -> r2 r3, pos=3     FETCH BACKWARD 1 -> r2, pos=2
//! ```
//!
//! Every direction works (the rows are all there) unless the cursor was
//! declared NO SCROLL, which refuses backward moves with PostgreSQL's
//! 55000. A cursor lives until its transaction ends; WITH HOLD ones until
//! CLOSE or the session's end. The rows are held in memory and counted as
//! query working memory while the cursor lives (a cursor over more than
//! the server can hold fails at DECLARE with 53200).
//!
//! Left out: a cursor declared after a savepoint is not closed by ROLLBACK
//! TO it, and a WITH HOLD cursor survives its transaction's rollback
//! (PostgreSQL drops both); cursors are not listed in pg_cursors; WHERE
//! CURRENT OF is 0A000.

use nestor_common::memory::Growth;
use nestor_common::{DbError, SqlState};
use nestor_exec::{ColumnDesc, RowSink};
use nestor_types::Value;

/// DECLARE's option bits (PostgreSQL's CURSOR_OPT_*).
pub(crate) const CURSOR_OPT_NO_SCROLL: i32 = 0x0004;
pub(crate) const CURSOR_OPT_HOLD: i32 = 0x0020;

/// A declared cursor.
pub(crate) struct Cursor {
    pub columns: Vec<ColumnDesc>,
    pub rows: Vec<Vec<Value>>,
    /// 0: before the first row; rows.len() + 1: after the last.
    pub pos: usize,
    pub no_scroll: bool,
    /// WITH HOLD: survives its transaction's end.
    pub hold: bool,
    /// The transaction that declared it (its start time), for the others.
    pub txn_start_us: i64,
    /// The rows' bytes, counted while the cursor lives.
    pub _growth: Option<Growth>,
}

/// Collects a cursor's rows, counting their bytes.
pub(crate) struct CursorSink {
    pub rows: Vec<Vec<Value>>,
    pub growth: Growth,
}

impl CursorSink {
    pub fn new() -> CursorSink {
        CursorSink {
            rows: Vec::new(),
            growth: Growth::new("cursor rows"),
        }
    }
}

impl RowSink for CursorSink {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        let bytes = 24 + row.iter().map(Value::size_bytes).sum::<usize>();
        self.growth.grow(bytes)?;
        self.rows.push(row);
        Ok(())
    }
}

/// FETCH/MOVE's direction from the parse tree (libpg_query numbers the
/// directions from 1; a count of i64::MAX is ALL).
pub(crate) fn direction(kind: i32, how_many: i64) -> Direction {
    match kind {
        2 => Direction::Backward(how_many),
        3 => Direction::Absolute(how_many),
        4 => Direction::Relative(how_many),
        _ => Direction::Forward(how_many),
    }
}

/// How FETCH/MOVE moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward(i64),
    Backward(i64),
    Absolute(i64),
    Relative(i64),
}

impl Cursor {
    fn backward_error() -> DbError {
        DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "cursor can only scan forward",
        )
        .with_hint("Declare it with SCROLL option to enable backward scan.")
    }

    /// Move as `dir` says; the rows passed over (FETCH returns them).
    pub fn fetch(&mut self, dir: Direction) -> Result<Vec<Vec<Value>>, DbError> {
        let n = self.rows.len() as i64;
        let mut out = Vec::new();
        let pos = self.pos as i64;
        match dir {
            // FORWARD 0 and BACKWARD 0 re-fetch the current row.
            Direction::Forward(0) | Direction::Backward(0) => {
                return self.fetch(Direction::Relative(0))
            }
            Direction::Forward(k) if k < 0 => {
                return self.fetch(Direction::Backward(k.saturating_neg()))
            }
            Direction::Backward(k) if k < 0 => {
                return self.fetch(Direction::Forward(k.saturating_neg()))
            }
            Direction::Forward(k) => {
                let mut p = pos;
                for _ in 0..k {
                    if p >= n {
                        p = n + 1;
                        break;
                    }
                    p += 1;
                    out.push(self.rows[(p - 1) as usize].clone());
                }
                self.pos = p as usize;
            }
            Direction::Backward(k) => {
                if self.no_scroll && k > 0 {
                    return Err(Self::backward_error());
                }
                let mut p = pos;
                for _ in 0..k {
                    if p <= 1 {
                        p = 0;
                        break;
                    }
                    p -= 1;
                    out.push(self.rows[(p - 1) as usize].clone());
                }
                self.pos = p as usize;
            }
            Direction::Absolute(k) => {
                let target = if k >= 0 { k } else { n + 1 + k };
                if self.no_scroll && target < pos {
                    return Err(Self::backward_error());
                }
                self.pos = target.clamp(0, n + 1) as usize;
                if (1..=n).contains(&target) {
                    out.push(self.rows[(target - 1) as usize].clone());
                }
            }
            Direction::Relative(k) => {
                if self.no_scroll && k < 0 {
                    return Err(Self::backward_error());
                }
                let target = pos.saturating_add(k);
                self.pos = target.clamp(0, n + 1) as usize;
                if (1..=n).contains(&target) {
                    out.push(self.rows[(target - 1) as usize].clone());
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(n: i32) -> Cursor {
        Cursor {
            columns: Vec::new(),
            rows: (1..=n).map(|i| vec![Value::Int4(i)]).collect(),
            pos: 0,
            no_scroll: false,
            hold: false,
            txn_start_us: 0,
            _growth: None,
        }
    }

    fn ints(rows: Vec<Vec<Value>>) -> Vec<i64> {
        rows.iter().map(|r| r[0].as_i64().unwrap()).collect()
    }

    #[test]
    fn directions_move_as_postgresql() {
        let mut c = cursor(3);
        assert_eq!(ints(c.fetch(Direction::Forward(2)).unwrap()), vec![1, 2]);
        assert_eq!(ints(c.fetch(Direction::Forward(5)).unwrap()), vec![3]);
        assert_eq!(c.pos, 4);
        assert_eq!(ints(c.fetch(Direction::Backward(1)).unwrap()), vec![3]);
        assert_eq!(ints(c.fetch(Direction::Backward(9)).unwrap()), vec![2, 1]);
        assert_eq!(c.pos, 0);
        assert_eq!(ints(c.fetch(Direction::Absolute(-1)).unwrap()), vec![3]);
        assert_eq!(ints(c.fetch(Direction::Relative(-1)).unwrap()), vec![2]);
        assert_eq!(ints(c.fetch(Direction::Relative(0)).unwrap()), vec![2]);
        assert!(c.fetch(Direction::Absolute(7)).unwrap().is_empty());
        assert_eq!(c.pos, 4);
        let mut ns = cursor(2);
        ns.no_scroll = true;
        ns.fetch(Direction::Forward(1)).unwrap();
        assert_eq!(
            ns.fetch(Direction::Backward(1)).unwrap_err().code,
            SqlState::ObjectNotInPrerequisiteState
        );
    }
}
