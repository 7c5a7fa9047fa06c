//! Claims: no session sees another transaction's uncommitted relation DDL.
//!
//! **Property.** A session resolves and lists relations (tables, their
//! indexes, views, sequences) as the committed catalog plus its own
//! transaction's changes, as PostgreSQL's catalog snapshots do; and no
//! two in-progress transactions change one relation name, so a rollback
//! never puts back a definition over another transaction's committed one.
//!
//! **Rule.** The first change a transaction makes to a relation name in a
//! namespace *claims* the name until the transaction ends. The claim keeps
//! what the name denoted before: the committed entry, or nothing. Another
//! session looking the name up gets the claim's `before` (but the new
//! definition when the name still denotes the same relation: an ALTER,
//! which its lock makes the statement wait for and re-plan after; listings
//! and the catalog views always show `before`); a change by
//! another transaction to a claimed name is refused. The executor waits for
//! the claiming transaction before a DDL statement creates or renames onto
//! a claimed name (`exec/src/relation_lock.rs`), as PostgreSQL waits on its
//! catalog's unique index, so the refusal (40001) is left for races and
//! for derived names (a serial column's sequence, a constraint's index).
//!
//! **Mechanism.** The catalog itself still changes in place when the DDL
//! runs, under the relation lock the statement holds (docs/transactions.md):
//! the claims are an overlay, consulted only while there are any. A change
//! to a table claims its name and the names of all its indexes, before and
//! after, so an index name is claimed whenever its table is. The undo entry
//! of the change that made a claim releases it at commit or rollback
//! (ROLLBACK TO included: it undoes exactly the changes that made the
//! claims it releases), and a release bumps the catalog version so cached
//! plans made against `before` are re-planned.
//!
//! ```text
//!   A: BEGIN; ALTER TABLE t RENAME TO u;
//!        state:  u -> T (16384)
//!        claims: t -> (A, before T), u -> (A, before none)
//!   B: SELECT * FROM t      t resolves to T (the claim's before);
//!                           B waits for A's ACCESS EXCLUSIVE on 16384
//!   A: ROLLBACK              undo: t -> T; claims released; version bumped
//!   B:                       re-plans: t -> T, runs
//!   (had A committed, B's re-plan would fail: relation "t" does not exist)
//! ```
//!
//! Dependency walks (foreign keys referencing a table, inheritance
//! children, views on a table) see both sides: the current relations and
//! those another transaction dropped (`Catalog::claimed_away`).
//!
//! Functions are claimed by name the same way (`FnClaim`): a transaction
//! that creates, replaces or drops an overload keeps the name's overloads
//! as they were for everyone else, so a CREATE OR REPLACE FUNCTION that
//! has not committed changes no other session's calls; another
//! transaction's change to a claimed function name is 40001 (PostgreSQL
//! would let two transactions create different overloads at once).
//!
//! Handles without a session (recovery, background work) see the state in
//! place and make no claims. Left out: types, schemas, roles, comments and
//! ACLs are still changed in place for everyone (type names resolve in the
//! value layer's registry, `nestor_types::database_scope`); a table's TEMP
//! objects are private and never claimed.

use std::collections::HashMap;

use std::sync::Arc;

use nestor_common::{DbError, RelId, SessionId, SqlState, Xid};

use crate::change::Change;
use crate::defs::Relation;
use crate::function::FunctionDef;
use crate::{Namespace, Ns, State};

/// A relation name an in-progress transaction has changed.
pub(crate) struct Claim {
    /// The session whose transaction holds it.
    pub owner: SessionId,
    /// That transaction (what a session that must wait waits for).
    pub xid: Xid,
    /// What the name denoted before the transaction changed it: what every
    /// other session sees under it.
    pub before: Option<Relation>,
}

/// The claims of one database, by namespace and name.
pub(crate) type Claims = HashMap<Ns, HashMap<String, Claim>>;

/// A function name an in-progress transaction has changed (created,
/// replaced or dropped an overload of): every overload of the name as it
/// was is what other sessions see.
pub(crate) struct FnClaim {
    pub owner: SessionId,
    pub before: Vec<Arc<FunctionDef>>,
}

impl State {
    /// Whether some transaction's DDL holds a claim (then lookups differ
    /// between sessions).
    pub(crate) fn has_claims(&self) -> bool {
        !self.claims.is_empty() || !self.fn_claims.is_empty()
    }

    /// The claim on `bare` in `ns` held by a session other than `viewer`
    /// (none for a handle without a session).
    pub(crate) fn foreign_claim(
        &self,
        viewer: Option<SessionId>,
        ns: Ns,
        bare: &str,
    ) -> Option<&Claim> {
        let viewer = viewer?;
        let claim = self.claims.get(&ns)?.get(bare)?;
        (claim.owner != viewer).then_some(claim)
    }

    /// The relation `viewer` resolves `bare` to in namespace `ns` (whose
    /// maps are `n`). Under another transaction's claim that is the
    /// relation as it was, unless the name still denotes the same relation
    /// (an ALTER in progress): then its new definition, as a statement
    /// plans against it, waits for the ALTER's lock and is planned again
    /// once it ends (`exec/src/relation_lock.rs`), so that a column being
    /// added is found after the wait, as PostgreSQL finds it.
    pub(crate) fn visible(
        &self,
        viewer: Option<SessionId>,
        ns: Ns,
        n: &Namespace,
        bare: &str,
    ) -> Option<Relation> {
        let current = n.relation(bare);
        let Some(claim) = self.foreign_claim(viewer, ns, bare) else {
            return current;
        };
        match (&claim.before, current) {
            (Some(before), Some(now)) if oid_of(before) == oid_of(&now) => Some(now),
            (before, _) => before.clone(),
        }
    }

    /// Whether `viewer` resolves the current entry `name` of namespace
    /// `ns`, with OID `oid`, by its OID: it is not another transaction's
    /// new relation (see [`State::visible`]).
    pub(crate) fn resolves_current(
        &self,
        viewer: Option<SessionId>,
        ns: Ns,
        name: &str,
        oid: RelId,
    ) -> bool {
        match self.foreign_claim(viewer, ns, name) {
            None => true,
            Some(claim) => claim.before.as_ref().is_some_and(|b| oid_of(b) == oid),
        }
    }

    /// Whether `viewer` lists the current entry `name` of namespace `ns`
    /// (another transaction has not claimed it: listings, the catalog
    /// views, show the committed catalog).
    pub(crate) fn sees_current(&self, viewer: Option<SessionId>, ns: Ns, name: &str) -> bool {
        self.claims.is_empty() || self.foreign_claim(viewer, ns, name).is_none()
    }

    /// What other sessions' claims in `ns` keep visible to `viewer`.
    pub(crate) fn foreign_befores(
        &self,
        viewer: Option<SessionId>,
        ns: Ns,
    ) -> impl Iterator<Item = &Relation> {
        let claims = viewer.and_then(|v| self.claims.get(&ns).map(|m| (v, m)));
        claims
            .into_iter()
            .flat_map(|(v, m)| m.values().filter(move |c| c.owner != v))
            .filter_map(|c| c.before.as_ref())
    }

    /// Claim for `owner`'s transaction `xid` the relation names `change`
    /// alters in `ns` (before it is applied); returns the names newly
    /// claimed. 40001 if another transaction holds one of them.
    pub(crate) fn claim(
        &mut self,
        owner: SessionId,
        xid: Xid,
        ns: Ns,
        change: &Change,
    ) -> Result<Vec<String>, DbError> {
        let names = touched_names(self.ns(ns), change);
        if names.is_empty() {
            return Ok(names);
        }
        if let Some(name) = names
            .iter()
            .find(|n| self.foreign_claim(Some(owner), ns, n).is_some())
        {
            return Err(conflict(name));
        }
        let held = self.claims.get(&ns);
        let new: Vec<(String, Option<Relation>)> = names
            .into_iter()
            .filter(|n| !held.is_some_and(|m| m.contains_key(n)))
            .map(|n| {
                let before = self.ns(ns).and_then(|m| m.relation(&n));
                (n, before)
            })
            .collect();
        let map = self.claims.entry(ns).or_default();
        let mut claimed = Vec::with_capacity(new.len());
        for (name, before) in new {
            map.insert(name.clone(), Claim { owner, xid, before });
            claimed.push(name);
        }
        Ok(claimed)
    }

    /// The claim on function name `name` held by a session other than
    /// `viewer`.
    pub(crate) fn foreign_fn_claim(
        &self,
        viewer: Option<SessionId>,
        name: &str,
    ) -> Option<&FnClaim> {
        let viewer = viewer?;
        let claim = self.fn_claims.get(name)?;
        (claim.owner != viewer).then_some(claim)
    }

    /// The overloads named `name` that `viewer` sees.
    pub(crate) fn visible_functions(
        &self,
        viewer: Option<SessionId>,
        name: &str,
    ) -> Vec<Arc<FunctionDef>> {
        match self.foreign_fn_claim(viewer, name) {
            Some(claim) => claim.before.clone(),
            None => self.public.functions.get(name).cloned().unwrap_or_default(),
        }
    }

    /// Every function `viewer` sees: the current ones under names no other
    /// transaction has claimed, and what the others' claims keep.
    pub(crate) fn visible_all_functions(&self, viewer: Option<SessionId>) -> Vec<Arc<FunctionDef>> {
        let mut out: Vec<Arc<FunctionDef>> = Vec::new();
        for (name, list) in &self.public.functions {
            if self.foreign_fn_claim(viewer, name).is_none() {
                out.extend(list.iter().cloned());
            }
        }
        for (name, claim) in &self.fn_claims {
            if self.foreign_fn_claim(viewer, name).is_some() {
                out.extend(claim.before.iter().cloned());
            }
        }
        out
    }

    /// Claim function name `name` for `owner`'s transaction before a
    /// change to one of its overloads; returns whether the claim is new.
    /// 40001 if another transaction holds it.
    pub(crate) fn claim_function(&mut self, owner: SessionId, name: &str) -> Result<bool, DbError> {
        if let Some(claim) = self.fn_claims.get(name) {
            if claim.owner != owner {
                return Err(conflict_fn(name));
            }
            return Ok(false);
        }
        let before = self.public.functions.get(name).cloned().unwrap_or_default();
        self.fn_claims
            .insert(name.to_string(), FnClaim { owner, before });
        Ok(true)
    }

    /// Release the claim on function name `name`.
    pub(crate) fn release_function(&mut self, name: &str) {
        let gone = self.fn_claims.remove(name);
        assert!(gone.is_some(), "function claim on {name:?} released twice");
    }

    /// Release claims a change made (its transaction ended, or rolled
    /// back to before it).
    pub(crate) fn release(&mut self, ns: Ns, names: &[String]) {
        let Some(map) = self.claims.get_mut(&ns) else {
            assert!(names.is_empty(), "released claims were made");
            return;
        };
        for n in names {
            let gone = map.remove(n);
            assert!(gone.is_some(), "claim on {n:?} released twice");
        }
        if map.is_empty() {
            self.claims.remove(&ns);
        }
    }
}

/// The relation names `change` alters in a namespace whose maps are `n`
/// (None: the namespace is new): a table's name and every index name it
/// has before or after, a view's or sequence's name.
fn touched_names(n: Option<&Namespace>, change: &Change) -> Vec<String> {
    let table_names = |name: &str| -> Vec<String> {
        let prev = n.and_then(|n| n.tables.get(name));
        std::iter::once(name.to_string())
            .chain(
                prev.into_iter()
                    .flat_map(|t| t.indexes.iter().map(|i| i.name.clone())),
            )
            .collect()
    };
    let mut names = match change {
        Change::PutTable { def, .. } => {
            let mut v = table_names(&def.name);
            v.extend(def.indexes.iter().map(|i| i.name.clone()));
            v
        }
        Change::DropTable(name) => table_names(name),
        Change::RenameTable { from, def } => {
            let mut v = table_names(from);
            v.push(def.name.clone());
            v
        }
        Change::PutSequence(s) => vec![s.name.clone()],
        Change::PutView(v) => vec![v.name.clone()],
        Change::DropSequence(name) | Change::DropView(name) => vec![name.clone()],
        _ => Vec::new(),
    };
    names.sort();
    names.dedup();
    names
}

/// The OID of the relation (of the index itself for an index).
pub(crate) fn oid_of(r: &Relation) -> RelId {
    match r {
        Relation::Table(t) => t.oid,
        Relation::Index { table, index } => table
            .indexes
            .iter()
            .find(|i| &i.name == index)
            .map_or(table.oid, |i| i.oid),
        Relation::Sequence(s) => s.oid,
        Relation::View(v) => v.oid,
    }
}

fn conflict_fn(name: &str) -> DbError {
    DbError::new(
        SqlState::SerializationFailure,
        format!("could not serialize access due to concurrent change of function \"{name}\""),
    )
    .with_detail("Another transaction has created, replaced or dropped a function of that name and has not ended yet.")
}

fn conflict(name: &str) -> DbError {
    DbError::new(
        SqlState::SerializationFailure,
        format!("could not serialize access due to concurrent change of relation \"{name}\""),
    )
    .with_detail(
        "Another transaction has created, altered, renamed or dropped it and has not ended yet.",
    )
}
