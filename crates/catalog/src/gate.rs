//! The DDL gate: keeps checkpoints and catalog changes apart.
//!
//! Property: a checkpoint's catalog image contains exactly the schema
//! changes committed before its cut, none that are uncommitted.
//!
//! Rule: every transaction that changed the catalog holds a token until it
//! ends; a checkpoint waits until no token is held, then runs its cut while
//! new DDL waits. (A checkpoint can be delayed by a stream of DDL
//! transactions; DDL waits at most for one checkpoint's cut.)
//!
//! Mechanism: a counter and a flag under one mutex with a condition
//! variable. Tokens are [`DdlGateGuard`]s held by the catalog's undo entries,
//! so they are released exactly when the transaction's undo log is dropped
//! (commit or rollback).

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

#[derive(Default)]
pub struct DdlGate {
    state: Mutex<GateState>,
    cv: Condvar,
}

#[derive(Default)]
struct GateState {
    tokens: usize,
    checkpoint_running: bool,
}

impl DdlGate {
    /// Take a token (waits while a checkpoint's cut runs).
    pub fn enter(self: &Arc<Self>) -> DdlGateGuard {
        let mut st = self.state.lock();
        while st.checkpoint_running {
            self.cv.wait(&mut st);
        }
        st.tokens += 1;
        DdlGateGuard(self.clone())
    }

    /// Run `f` with no catalog change in flight, waiting at most `wait`
    /// (None: as long as it takes) for the transactions holding tokens to
    /// end. Returns None if the wait ran out.
    pub fn exclusive<T>(&self, wait: Option<Duration>, f: impl FnOnce() -> T) -> Option<T> {
        let deadline = wait.map(|w| Instant::now() + w);
        let mut st = self.state.lock();
        while st.tokens > 0 || st.checkpoint_running {
            match deadline {
                Some(d) => {
                    if self.cv.wait_until(&mut st, d).timed_out() {
                        return None;
                    }
                }
                None => self.cv.wait(&mut st),
            }
        }
        st.checkpoint_running = true;
        drop(st);
        let r = f();
        self.state.lock().checkpoint_running = false;
        self.cv.notify_all();
        Some(r)
    }

    /// Tokens held now (tests and monitoring).
    pub fn tokens(&self) -> usize {
        self.state.lock().tokens
    }
}

/// A DDL transaction's hold on the gate, released when dropped.
pub struct DdlGateGuard(Arc<DdlGate>);

impl Drop for DdlGateGuard {
    fn drop(&mut self) {
        let mut st = self.0.state.lock();
        assert!(st.tokens > 0, "DDL gate token released twice");
        st.tokens -= 1;
        if st.tokens == 0 {
            self.0.cv.notify_all();
        }
    }
}

impl std::fmt::Debug for DdlGateGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DdlGateGuard")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_waits_for_tokens_and_gives_up_at_its_deadline() {
        let gate = Arc::new(DdlGate::default());
        let token = gate.enter();
        assert_eq!(gate.exclusive(Some(Duration::from_millis(20)), || 1), None);
        drop(token);
        assert_eq!(gate.tokens(), 0);
        assert_eq!(
            gate.exclusive(Some(Duration::from_millis(20)), || 2),
            Some(2)
        );
    }
}
