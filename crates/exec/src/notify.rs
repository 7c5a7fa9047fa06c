//! LISTEN / NOTIFY: asynchronous notifications between sessions.
//!
//! Correctness property (PostgreSQL's): a notification is delivered iff
//! the transaction that sent it commits, to every session listening on its
//! channel when the commit happens, after that session's own transaction
//! (if any) ends; a LISTEN or UNLISTEN takes effect when its transaction
//! commits; notifications from one transaction arrive in the order sent,
//! with duplicates (same channel and payload) folded into one.
//!
//! Mechanism:
//!
//! ```text
//!   session A: LISTEN c; (commit)      channels: c -> {A}
//!   session B: NOTIFY c, 'x'           pending in B's transaction (by level,
//!              ... COMMIT ───────────▶ so ROLLBACK TO drops it)
//!                                      after the commit: A's queue += (B, c, x),
//!                                      A's wake flag set, A's waker woken
//!   A idle:    the wire layer wakes, sends NotificationResponse
//!   A busy:    sent before its next ReadyForQuery outside a transaction
//! ```
//!
//! The channel map and the per-session queues live in the session
//! [`crate::Registry`] (a session's listens go with it). Limits:
//! `NOTIFY_PAYLOAD_BYTES_MAX` per payload (PostgreSQL's 8000-byte rule),
//! `NOTIFY_QUEUE_MAX` notifications waiting for one session (a NOTIFY
//! whose listener is that far behind fails with 54000, as PostgreSQL's
//! full queue does).

use nestor_common::{DbError, SessionId, SqlState};

pub use nestor_common::limits::{
    NOTIFY_CHANNEL_BYTES_MAX, NOTIFY_PAYLOAD_BYTES_MAX, NOTIFY_QUEUE_MAX,
};

/// One delivered notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The sending session (NotificationResponse's process id).
    pub sender: SessionId,
    pub channel: String,
    pub payload: String,
}

/// A NOTIFY (or pg_notify) waiting for its transaction to commit, at the
/// savepoint level it was sent from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingNotify {
    pub level: u32,
    pub channel: String,
    pub payload: String,
}

/// A LISTEN / UNLISTEN waiting for its transaction to commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListenOp {
    Listen(String),
    Unlisten(String),
    UnlistenAll,
}

/// Check a NOTIFY's channel and payload (PostgreSQL's messages).
pub fn check_notify(channel: &str, payload: &str) -> Result<(), DbError> {
    if channel.is_empty() {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "channel name cannot be empty",
        ));
    }
    if channel.len() > NOTIFY_CHANNEL_BYTES_MAX {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "channel name too long",
        ));
    }
    if payload.len() > NOTIFY_PAYLOAD_BYTES_MAX {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "payload string too long",
        ));
    }
    Ok(())
}

/// The notifications to deliver, in order, duplicates folded.
pub fn fold(pending: &[PendingNotify]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(pending.len());
    for p in pending {
        if !out.iter().any(|(c, x)| *c == p.channel && *x == p.payload) {
            out.push((p.channel.clone(), p.payload.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(c: &str, x: &str) -> PendingNotify {
        PendingNotify {
            level: 0,
            channel: c.into(),
            payload: x.into(),
        }
    }

    #[test]
    fn duplicates_fold_and_order_stays() {
        let f = fold(&[p("a", "1"), p("b", ""), p("a", "1"), p("a", "2")]);
        assert_eq!(
            f,
            vec![
                ("a".to_string(), "1".to_string()),
                ("b".to_string(), String::new()),
                ("a".to_string(), "2".to_string())
            ]
        );
    }

    #[test]
    fn limits_are_postgresqls() {
        assert!(check_notify("", "").is_err());
        assert!(check_notify("c", &"x".repeat(7999)).is_ok());
        assert_eq!(
            check_notify("c", &"x".repeat(8000)).unwrap_err().message,
            "payload string too long"
        );
    }
}
