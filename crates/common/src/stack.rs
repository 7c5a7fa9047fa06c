//! Stack depth: a statement nested too deep fails with PostgreSQL's
//! `54001 stack depth limit exceeded` instead of overflowing the thread's
//! stack (which aborts the whole process, every session with it).
//!
//! Two guards, as in PostgreSQL's check_stack_depth():
//!
//! 1. Before parsing, a statement long enough to nest deeper than
//!    EXPRESSION_DEPTH_MAX gets a lexical upper bound on its nesting
//!    (`nestor_parser::depth`); past the limit it is refused. This guards the
//!    parser's C code (libpg_query's tree output recurses once per level and
//!    cannot be interrupted) and the decoding of its tree.
//! 2. The recursive Rust paths (binding expressions, planning, evaluating,
//!    running plans) call [`check`], which compares how much stack the
//!    current statement has used since [`set_base`] (called where a session
//!    starts handling a message) with STACK_DEPTH_BYTES_MAX. Session threads
//!    have SESSION_STACK_BYTES of stack, twice the limit, so the check fires
//!    long before the stack runs out.
//!
//! The depth is measured by address: the distance between a local in the
//! entry frame and one in the current frame (stacks grow down on every
//! platform Nestor builds for).

use std::cell::Cell;

use crate::error::{DbError, SqlState};
use crate::limits::STACK_DEPTH_BYTES_MAX;

thread_local! {
    /// Address of a local in the frame that started the current statement
    /// on this thread (0: not set, nothing is checked).
    static BASE: Cell<usize> = const { Cell::new(0) };
    /// The session's max_stack_depth, in bytes (at most
    /// STACK_DEPTH_BYTES_MAX).
    static LIMIT: Cell<usize> = const { Cell::new(STACK_DEPTH_BYTES_MAX) };
}

fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Record the current frame as the bottom of this thread's statement
/// processing. Call at the entry of message handling.
pub fn set_base() {
    BASE.with(|b| b.set(here()));
}

/// The stack the statements of this thread may use (the session's
/// max_stack_depth), capped at STACK_DEPTH_BYTES_MAX.
pub fn set_limit(bytes: usize) {
    LIMIT.with(|l| l.set(bytes.min(STACK_DEPTH_BYTES_MAX)));
}

/// Stack used since [`set_base`] on this thread, in bytes (0 if unset).
pub fn used_bytes() -> usize {
    let base = BASE.with(|b| b.get());
    if base == 0 {
        return 0;
    }
    base.saturating_sub(here())
}

/// Fail with 54001 once the statement has used more than max_stack_depth
/// (at most STACK_DEPTH_BYTES_MAX) of stack.
pub fn check() -> Result<(), DbError> {
    let limit = LIMIT.with(|l| l.get());
    if used_bytes() > limit {
        return Err(
            DbError::new(SqlState::StatementTooComplex, "stack depth limit exceeded").with_hint(
                format!(
                    "Increase the configuration parameter \"max_stack_depth\" (currently {}kB), \
                     after ensuring the platform's stack depth limit is adequate.",
                    limit / 1024
                ),
            ),
        );
    }
    Ok(())
}

/// PostgreSQL's error for a statement nested too deep to parse (the
/// lexical bound, before any stack is used).
pub fn too_deep() -> DbError {
    DbError::new(SqlState::StatementTooComplex, "stack depth limit exceeded").with_hint(format!(
        "Nestor evaluates statements on {} kB of stack and expressions nested at most {} deep \
         (EXPRESSION_DEPTH_MAX); simplify the statement, e.g. use IN (...) or an array instead \
         of a long chain of operators.",
        STACK_DEPTH_BYTES_MAX / 1024,
        crate::limits::EXPRESSION_DEPTH_MAX
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recurse(n: usize) -> Result<usize, DbError> {
        check()?;
        let pad = [n as u8; 512];
        let deeper = if n == 0 { 0 } else { recurse(n - 1)? };
        Ok(deeper + std::hint::black_box(pad)[0] as usize)
    }

    #[test]
    fn deep_recursion_fails_with_54001_instead_of_overflowing() {
        // Run on a thread with room for the limit, as sessions do.
        let h = std::thread::Builder::new()
            .stack_size(crate::limits::SESSION_STACK_BYTES)
            .spawn(|| {
                set_base();
                assert!(recurse(100).is_ok());
                let e = recurse(1_000_000).unwrap_err();
                assert_eq!(e.code, SqlState::StatementTooComplex);
                assert_eq!(e.message, "stack depth limit exceeded");
                // Not set on a thread: nothing is checked.
                BASE.with(|b| b.set(0));
                assert_eq!(used_bytes(), 0);
            })
            .unwrap();
        h.join().unwrap();
    }
}
