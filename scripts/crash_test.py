#!/usr/bin/env python3
"""Crash test harness (docs/durability.md §6).

Each cycle runs a workload from several client threads against a server on a
data directory that persists across cycles, records every commit the server
acknowledged (in memory and in a journal file), kill -9s the server's process
group at a seeded random moment, restarts it on the same data directory and
verifies what the database holds against what the clients were told:

* every acknowledged commit is present (acks rows, transfers, savepoint work);
* nothing of a rolled-back transaction, of a rolled-back savepoint, or of a
  transaction whose COMMIT was never sent is present;
* a transaction whose COMMIT was sent but never answered ("in doubt") is
  present entirely or not at all; once seen, its fate is fixed for later
  cycles;
* every account balance equals its initial balance plus the transfers
  present (so the total is unchanged), and history rows match transfers;
* primary keys are unbroken (no duplicate keys, no rows from nowhere).

The server that restarted for verification then serves the next cycle.

Usage: scripts/crash-test [--cycles N] [--seconds-per-cycle S] [--seed K]
                          [--port P] [--server-cmd CMD] [--pg15] ...
`--server-cmd` is a command line with {port} and {datadir} placeholders;
`--pg15` runs the local PostgreSQL 15 (initdb'd, as user postgres, fsync=on;
its programs from --pg-bin, else `pg_config --bindir`, else pg_ctl on PATH)
to prove the harness itself. Without either it builds and runs
target/release/nestor (cargo's target directory: $CARGO_TARGET_DIR or the
workspace's target/). Paths given on the command line may be relative to the
current directory: the server runs with cwd=/, so they are made absolute.

Output: one line per cycle, then `N passed, M failed` alone on a line.
Exit status 0 only if every cycle passed.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

import psycopg

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG_SERVER_PROGRAMS = ("initdb", "postgres")
PORT_RANGE = range(55500, 55600)

N_ACCOUNTS = 50
INITIAL_BALANCE = 100_000
INITIAL_TOTAL = N_ACCOUNTS * INITIAL_BALANCE
SP_ID_STRIDE = 10**12  # sp.id = client * SP_ID_STRIDE + counter

SCHEMA = [
    "CREATE TABLE acks (client int NOT NULL, seq bigint NOT NULL, PRIMARY KEY (client, seq))",
    "CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)",
    "CREATE TABLE history (client int NOT NULL, seq bigint NOT NULL, src int NOT NULL,"
    " dst int NOT NULL, amount bigint NOT NULL, PRIMARY KEY (client, seq))",
    "CREATE TABLE sp (id bigint PRIMARY KEY, client int NOT NULL, kept bool NOT NULL)",
]

# Transaction fates.
RUNNING = "running"  # not finished (only while the workload runs)
ACKED = "acked"  # COMMIT answered with success: must be present forever
IN_DOUBT = "in-doubt"  # COMMIT sent, no answer: all or nothing
ABORTED = "aborted"  # COMMIT never sent, or answered with an error
ROLLED_BACK = "rolled-back"  # ended by ROLLBACK on purpose
RESOLVED_PRESENT = "in-doubt→present"
RESOLVED_ABSENT = "in-doubt→absent"

MUST_BE_PRESENT = (ACKED, RESOLVED_PRESENT)
MUST_BE_ABSENT = (ABORTED, ROLLED_BACK, RESOLVED_ABSENT)


def log(msg: str) -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Journal: what each client did and was told.


@dataclass
class Txn:
    """One client transaction and the rows it should (not) leave behind.

    `commit_*` rows exist iff the transaction committed; `never_*` rows were
    written under a savepoint that was rolled back and must never exist.
    """

    tid: str
    kind: str
    client: int
    cycle: int
    started: float
    status: str = RUNNING
    detail: str = ""
    commit_acks: list = field(default_factory=list)  # [(client, seq)]
    commit_transfers: list = field(default_factory=list)  # [(client, seq, src, dst, amount)]
    commit_sp: list = field(default_factory=list)  # [sp id]
    never_sp: list = field(default_factory=list)  # [sp id]
    never_transfers: list = field(default_factory=list)  # [(client, seq, src, dst, amount)]

    def describe(self) -> str:
        return (
            f"transaction {self.tid} ({self.kind}, client {self.client}, cycle {self.cycle},"
            f" started t={self.started:.3f}s, {self.status}{': ' + self.detail if self.detail else ''})"
        )


class Journal:
    """All transactions of the run, in memory and appended to a JSON-lines file
    (one line per transaction start and per fate), which survives the server."""

    def __init__(self, path: str, t0: float):
        self.path = path
        self.t0 = t0
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")
        self.txns: dict[str, Txn] = {}

    def now(self) -> float:
        return time.monotonic() - self.t0

    def begin(self, kind: str, client: int, cycle: int, tid: str) -> Txn:
        t = Txn(tid=tid, kind=kind, client=client, cycle=cycle, started=self.now())
        with self.lock:
            self.txns[tid] = t
        return t

    def _write(self, rec: dict) -> None:
        with self.lock:
            self.file.write(json.dumps(rec) + "\n")
            self.file.flush()

    def about_to_commit(self, t: Txn) -> None:
        # Written before COMMIT is sent: the journal names every row a
        # commit might make appear.
        self._write(
            {
                "t": round(self.now(), 4),
                "ev": "commit-sent",
                "tid": t.tid,
                "kind": t.kind,
                "cycle": t.cycle,
                "acks": t.commit_acks,
                "transfers": t.commit_transfers,
                "sp": t.commit_sp,
                "never_sp": t.never_sp,
                "never_transfers": t.never_transfers,
            }
        )

    def finish(self, t: Txn, status: str, detail: str = "") -> None:
        t.status = status
        t.detail = detail
        self._write({"t": round(self.now(), 4), "ev": status, "tid": t.tid, "detail": detail})

    def close(self) -> None:
        self.file.close()


# --------------------------------------------------------------------------
# Server process management.


class Server:
    def __init__(self, argv: list[str], log_path: str, dsn: str, run_as: str | None):
        self.argv = argv
        self.log_path = log_path
        self.dsn = dsn
        self.run_as = run_as
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float) -> float:
        """Start the server and wait until it accepts a connection; returns
        the seconds that took."""
        assert self.proc is None
        t0 = time.monotonic()
        with open(self.log_path, "ab") as logf:
            logf.write(f"\n===== start {time.strftime('%H:%M:%S')}: {shlex.join(self.argv)}\n".encode())
            logf.flush()
            kwargs = {}
            if self.run_as:
                kwargs["user"] = self.run_as
                kwargs["group"] = self.run_as
                kwargs["extra_groups"] = []
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: kill -9 hits all of it
                cwd="/",
                **kwargs,
            )
        last = None
        while True:
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self.proc = None
                raise RuntimeError(f"server exited with status {rc} before accepting connections; log tail:\n{self.log_tail()}")
            try:
                with psycopg.connect(self.dsn, connect_timeout=2, autocommit=True) as c:
                    c.execute("SELECT 1")
                return time.monotonic() - t0
            except psycopg.Error as e:
                last = e
            if time.monotonic() - t0 > timeout:
                self.kill()
                raise RuntimeError(f"server did not accept connections within {timeout}s ({last}); log tail:\n{self.log_tail()}")
            time.sleep(0.05)

    def kill(self) -> None:
        """kill -9 the server: its process group and every descendant (PostgreSQL's
        backends each call setsid(), so the group alone is not enough). All are
        SIGSTOPped first, the leader before anyone else, so that nothing runs on
        once part of the server is gone; then all get SIGKILL, and we wait until
        every one has died."""
        if self.proc is None:
            return
        leader = self.proc.pid
        victims: set[int] = set()
        while True:
            found = server_processes(leader) - victims
            if not found:
                break
            for pid in sorted(found):  # the leader has the lowest pid, mostly; stop it first
                signal_quietly(leader, signal.SIGSTOP)
                signal_quietly(pid, signal.SIGSTOP)
            victims |= found
        for pid in victims:
            signal_quietly(pid, signal.SIGKILL)
        try:
            os.killpg(leader, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self.proc = None
        deadline = time.monotonic() + 10
        while True:
            alive = [p for p in victims if process_alive(p)]
            if not alive:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"server processes {alive} still alive 10s after SIGKILL")
            for p in alive:
                signal_quietly(p, signal.SIGKILL)
            time.sleep(0.02)

    def log_tail(self, n: int = 25) -> str:
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode(errors="replace").splitlines()
            return "\n".join("    | " + line for line in lines[-n:])
        except OSError:
            return "    | (no log)"


def proc_table() -> dict[int, tuple[str, int, int]]:
    """pid -> (state, ppid, pgrp) of every process, from /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2:
            table[int(name)] = (fields[0], int(fields[1]), int(fields[2]))
    return table


def server_processes(leader: int) -> set[int]:
    """The leader, every member of its process group and all their descendants."""
    table = proc_table()
    found = {leader} | {p for p, (_, _, pgrp) in table.items() if pgrp == leader}
    children: dict[int, list[int]] = {}
    for p, (_, ppid, _) in table.items():
        children.setdefault(ppid, []).append(p)
    todo = list(found)
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def process_alive(pid: int) -> bool:
    """False once the process is gone or a zombie (an init that does not reap
    must not hang us)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode(errors="replace")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in ("Z", "X")


def signal_quietly(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def pick_port() -> int:
    start = os.getpid() % len(PORT_RANGE)
    for i in range(len(PORT_RANGE)):
        port = PORT_RANGE[(start + i) % len(PORT_RANGE)]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError(f"no free port in {PORT_RANGE.start}-{PORT_RANGE.stop - 1}")


# --------------------------------------------------------------------------
# Workload.


def is_connection_loss(e: BaseException) -> bool:
    """Errors after which the server's fate for an in-flight COMMIT is unknown:
    no SQLSTATE (the connection broke), connection exceptions (08), operator
    intervention (57: shutdown, crash of another backend)."""
    st = getattr(e, "sqlstate", None)
    return st is None or st.startswith("08") or st.startswith("57")


class Client(threading.Thread):
    def __init__(self, idx: int, state: "ClientState", journal: Journal, dsn: str, seed: int, cycle: int,
                 stop: threading.Event, killing: threading.Event):
        super().__init__(name=f"client-{idx}", daemon=True)
        self.idx = idx
        self.st = state
        self.journal = journal
        self.dsn = dsn
        self.rng = random.Random(f"{seed}/{cycle}/{idx}")
        self.cycle = cycle
        self.stop = stop  # set after the kill: leave the loop
        self.killing = killing  # set just before the kill: connection loss is expected
        self.notes: list[str] = []  # unexpected errors (not violations by themselves)

    def run(self) -> None:
        try:
            conn = psycopg.connect(self.dsn, connect_timeout=5, prepare_threshold=None)
        except psycopg.Error as e:
            if not self.killing.is_set():
                self.notes.append(f"client {self.idx}: cannot connect: {e}")
            return
        try:
            while not self.stop.is_set():
                r = self.rng.random()
                if r < 0.40:
                    op = self.insert_ack
                elif r < 0.70:
                    op = self.transfer
                elif r < 0.90:
                    op = self.savepoints
                else:
                    op = self.rollback
                if not op(conn):
                    return  # connection gone
        finally:
            try:
                conn.close()
            except Exception:
                pass

    # Each op returns False once the connection is unusable.

    def _new_tid(self, kind: str) -> Txn:
        self.st.txn_seq += 1
        return self.journal.begin(kind, self.idx, self.cycle, f"c{self.idx}.{self.st.txn_seq}")

    def _fail(self, conn, t: Txn, e: psycopg.Error, commit_sent: bool) -> bool:
        # Only psycopg errors come here: a harness bug raises out of the thread
        # and leaves its transaction "running", which verification reports.
        msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        if getattr(e, "sqlstate", None):
            msg += f" [{e.sqlstate}]"
        lost = is_connection_loss(e) or conn.closed or conn.broken
        if commit_sent and lost:
            self.journal.finish(t, IN_DOUBT, msg)
        else:
            self.journal.finish(t, ABORTED, msg + ("" if commit_sent else " (before COMMIT)"))
        if lost:
            if not self.killing.is_set():
                self.notes.append(f"client {self.idx}: connection lost outside a kill: {msg}")
            return False
        try:
            conn.rollback()
        except psycopg.Error:
            return False
        if getattr(e, "sqlstate", None) not in ("40001", "40P01", "55P03"):
            self.notes.append(f"client {self.idx}: {t.tid}: unexpected error: {msg}")
        return True

    def _commit(self, conn, t: Txn) -> bool:
        self.journal.about_to_commit(t)
        try:
            conn.commit()
        except psycopg.Error as e:
            return self._fail(conn, t, e, commit_sent=True)
        self.journal.finish(t, ACKED)
        return True

    def insert_ack(self, conn) -> bool:
        t = self._new_tid("insert")
        self.st.ack_seq += 1
        key = (self.idx, self.st.ack_seq)
        t.commit_acks.append(key)
        try:
            conn.execute("INSERT INTO acks (client, seq) VALUES (%s, %s)", key)
        except psycopg.Error as e:
            return self._fail(conn, t, e, commit_sent=False)
        return self._commit(conn, t)

    def _do_transfer(self, conn, rec) -> None:
        _, _, src, dst, amount = rec
        # Lock in id order: concurrent transfers never deadlock.
        for aid, delta in sorted([(src, -amount), (dst, amount)]):
            conn.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (delta, aid))
        conn.execute(
            "INSERT INTO history (client, seq, src, dst, amount) VALUES (%s, %s, %s, %s, %s)", rec
        )

    def _transfer_rec(self):
        self.st.transfer_seq += 1
        src, dst = self.rng.sample(range(1, N_ACCOUNTS + 1), 2)
        return (self.idx, self.st.transfer_seq, src, dst, self.rng.randint(1, 1000))

    def transfer(self, conn) -> bool:
        t = self._new_tid("transfer")
        rec = self._transfer_rec()
        t.commit_transfers.append(rec)
        try:
            self._do_transfer(conn, rec)
        except psycopg.Error as e:
            return self._fail(conn, t, e, commit_sent=False)
        return self._commit(conn, t)

    def _sp_insert(self, conn, t: Txn, n: int, kept: bool) -> None:
        ids = []
        for _ in range(n):
            self.st.sp_seq += 1
            ids.append(self.idx * SP_ID_STRIDE + self.st.sp_seq)
        # Record before executing: a row written is a row to account for.
        (t.commit_sp if kept else t.never_sp).extend(ids)
        for i in ids:
            conn.execute("INSERT INTO sp (id, client, kept) VALUES (%s, %s, %s)", (i, self.idx, kept))

    def savepoints(self, conn) -> bool:
        """kept rows; SAVEPOINT a; doomed rows (maybe a nested savepoint, maybe a
        transfer); ROLLBACK TO a (maybe twice); RELEASE a; maybe SAVEPOINT b +
        kept rows + RELEASE b; maybe SAVEPOINT c + doomed row + ROLLBACK TO c +
        kept row; COMMIT."""
        t = self._new_tid("savepoint")
        rng = self.rng
        try:
            self._sp_insert(conn, t, rng.randint(1, 3), True)
            conn.execute("SAVEPOINT a")
            self._sp_insert(conn, t, rng.randint(1, 3), False)
            if rng.random() < 0.5:
                conn.execute("SAVEPOINT a2")
                self._sp_insert(conn, t, rng.randint(1, 2), False)
                if rng.random() < 0.5:
                    conn.execute("RELEASE SAVEPOINT a2")
            if rng.random() < 0.3:
                rec = self._transfer_rec()
                t.never_transfers.append(rec)
                self._do_transfer(conn, rec)
            conn.execute("ROLLBACK TO SAVEPOINT a")
            if rng.random() < 0.3:
                # `a` survives ROLLBACK TO: roll back to it once more.
                self._sp_insert(conn, t, 1, False)
                conn.execute("ROLLBACK TO SAVEPOINT a")
            # Release `a`, so what follows is no longer inside it.
            conn.execute("RELEASE SAVEPOINT a")
            if rng.random() < 0.5:
                conn.execute("SAVEPOINT b")
                self._sp_insert(conn, t, rng.randint(1, 2), True)
                conn.execute("RELEASE SAVEPOINT b")
            if rng.random() < 0.3:
                conn.execute("SAVEPOINT c")
                self._sp_insert(conn, t, 1, False)
                conn.execute("ROLLBACK TO SAVEPOINT c")
                self._sp_insert(conn, t, 1, True)
        except psycopg.Error as e:
            return self._fail(conn, t, e, commit_sent=False)
        return self._commit(conn, t)

    def rollback(self, conn) -> bool:
        """A transaction that writes (rows and/or a transfer) and ends in ROLLBACK."""
        t = self._new_tid("rollback")
        rng = self.rng
        try:
            self._sp_insert(conn, t, rng.randint(1, 3), True)
            if rng.random() < 0.5:
                rec = self._transfer_rec()
                t.commit_transfers.append(rec)
                self._do_transfer(conn, rec)
            if rng.random() < 0.5:
                self.st.ack_seq += 1
                key = (self.idx, self.st.ack_seq)
                t.commit_acks.append(key)
                conn.execute("INSERT INTO acks (client, seq) VALUES (%s, %s)", key)
        except psycopg.Error as e:
            return self._fail(conn, t, e, commit_sent=False)
        try:
            conn.rollback()
        except psycopg.Error as e:
            # Never sent COMMIT: whatever happened, nothing may survive.
            self.journal.finish(t, ROLLED_BACK, f"ROLLBACK failed: {e}")
            return False
        self.journal.finish(t, ROLLED_BACK)
        return True


@dataclass
class ClientState:
    """Per-client counters that persist across cycles (keys stay unique)."""

    ack_seq: int = 0
    transfer_seq: int = 0
    sp_seq: int = 0
    txn_seq: int = 0


# --------------------------------------------------------------------------
# Verification.


class Violations:
    def __init__(self, limit: int = 25):
        self.items: list[str] = []
        self.kinds: dict[str, int] = {}
        self.limit = limit

    def add(self, msg: str, kind: str) -> None:
        self.items.append(msg)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def __bool__(self) -> bool:
        return bool(self.items)

    def print(self) -> None:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.kinds.items(), key=lambda kv: -kv[1]))
        log(f"  {len(self.items)} violations: {kinds}")
        for m in self.items[: self.limit]:
            log(f"  VIOLATION: {m}")
        if len(self.items) > self.limit:
            log(f"  ... and {len(self.items) - self.limit} more violations")


def brief(items: list[str], n: int = 4) -> str:
    return ", ".join(items[:n]) + (f", ... ({len(items) - n} more)" if len(items) > n else "")


def fetch(conn, table: str, sql: str, v: Violations) -> list | None:
    try:
        with conn.transaction():
            return conn.execute(sql).fetchall()
    except psycopg.errors.UndefinedTable:
        v.add(f"table {table} does not exist after restart (its acknowledged CREATE TABLE was lost)", "missing table")
        return None


def check_unique_indexes(dsn: str, acks, hist, sp, acc, v: Violations) -> None:
    """Recovered primary keys must still be enforced and found by key: for the
    newest row of each client in each table (the ones replay most likely
    rebuilt), a point lookup finds exactly it and re-inserting its key fails
    with unique_violation. Every probe is rolled back."""

    def newest(rows, client_of, key_of):
        best = {}
        for r in rows:
            c = client_of(r)
            if c not in best or key_of(r) > key_of(best[c]):
                best[c] = r
        return list(best.values())

    probes = []  # (table, key description, lookup sql, params, insert sql, params)
    for r in newest(acks, lambda r: r[0], lambda r: r[1]):
        probes.append(("acks", f"(client {r[0]}, seq {r[1]})", "SELECT count(*) FROM acks WHERE client = %s AND seq = %s",
                       (r[0], r[1]), "INSERT INTO acks (client, seq) VALUES (%s, %s)", (r[0], r[1])))
    for r in newest(hist, lambda r: r[0], lambda r: r[1]):
        probes.append(("history", f"(client {r[0]}, seq {r[1]})", "SELECT count(*) FROM history WHERE client = %s AND seq = %s",
                       (r[0], r[1]), "INSERT INTO history (client, seq, src, dst, amount) VALUES (%s, %s, 1, 2, 0)", (r[0], r[1])))
    for r in newest(sp, lambda r: r[1], lambda r: r[0]):
        probes.append(("sp", f"id {r[0]}", "SELECT count(*) FROM sp WHERE id = %s", (r[0],),
                       "INSERT INTO sp (id, client, kept) VALUES (%s, -1, false)", (r[0],)))
    for r in acc[:1] + acc[-1:]:
        probes.append(("accounts", f"id {r[0]}", "SELECT count(*) FROM accounts WHERE id = %s", (r[0],),
                       "INSERT INTO accounts (id, balance) VALUES (%s, 0)", (r[0],)))
    with psycopg.connect(dsn, connect_timeout=10, prepare_threshold=None) as conn:
        for table, key, lookup, lp, insert, ip in probes:
            n = conn.execute(lookup, lp).fetchone()[0]
            conn.rollback()
            if n != 1:
                v.add(f"{table}: lookup by primary key {key} finds {n} rows, the table scan found 1", "primary key index broken")
            try:
                conn.execute(insert, ip)
                ok = False
            except psycopg.errors.UniqueViolation:
                ok = True
            conn.rollback()
            if not ok:
                v.add(f"{table}: inserting the existing primary key {key} again succeeded (rolled back)", "primary key index broken")


def verify(dsn: str, journal: Journal) -> tuple[Violations, dict]:
    v = Violations()
    stats = {"rows": 0, "present": 0, "absent": 0}
    # Nothing else runs while we verify: one read per table is consistent.
    with psycopg.connect(dsn, connect_timeout=10, autocommit=True, prepare_threshold=None) as conn:
        acks = fetch(conn, "acks", "SELECT client, seq FROM acks", v)
        hist = fetch(conn, "history", "SELECT client, seq, src, dst, amount FROM history", v)
        sp = fetch(conn, "sp", "SELECT id, client, kept FROM sp", v)
        acc = fetch(conn, "accounts", "SELECT id, balance FROM accounts", v)
    accounts_missing = acc is None
    if not v:
        check_unique_indexes(dsn, acks or [], hist or [], sp or [], acc or [], v)
    acks = acks or []
    hist = hist or []
    sp = sp or []
    acc = acc or []
    stats["rows"] = len(acks) + len(hist) + len(sp) + len(acc)

    # Unique keys: the fetched rows must not repeat a primary key.
    def dups(rows, key, table):
        seen = {}
        for r in rows:
            k = key(r)
            seen[k] = seen.get(k, 0) + 1
        for k, n in seen.items():
            if n > 1:
                v.add(f"{table}: primary key {k} appears {n} times", "duplicate key")
        return seen

    db_acks = dups(acks, lambda r: (r[0], r[1]), "acks")
    db_hist_n = dups(hist, lambda r: (r[0], r[1]), "history")
    db_hist = {(r[0], r[1]): tuple(r) for r in hist}
    db_sp_n = dups(sp, lambda r: r[0], "sp")
    db_sp = {r[0]: r for r in sp}
    db_acc_n = dups(acc, lambda r: r[0], "accounts")
    db_acc = {r[0]: r[1] for r in acc}
    del db_hist_n, db_sp_n, db_acc_n

    # Every row in the database must belong to some transaction of the journal.
    known_acks, known_hist, known_sp = {}, {}, {}
    for t in journal.txns.values():
        for k in t.commit_acks:
            known_acks[k] = t
        for r in t.commit_transfers + t.never_transfers:
            known_hist[(r[0], r[1])] = t
        for i in t.commit_sp + t.never_sp:
            known_sp[i] = t
    for k in db_acks:
        if k not in known_acks:
            v.add(f"acks row (client {k[0]}, seq {k[1]}) was never inserted by any client", "row from nowhere")
    for k in db_hist:
        if k not in known_hist:
            v.add(f"history row {db_hist[k]} was never inserted by any client", "row from nowhere")
    for k in db_sp:
        if k not in known_sp:
            v.add(f"sp row {db_sp[k]} was never inserted by any client", "row from nowhere")

    committed_transfers = []
    for t in journal.txns.values():
        # Rows that exist iff the transaction committed, with a check of their content.
        parts: list[tuple[str, bool]] = []  # (row description, present?)
        for k in t.commit_acks:
            parts.append((f"acks (client {k[0]}, seq {k[1]})", k in db_acks))
        for rec in t.commit_transfers:
            got = db_hist.get((rec[0], rec[1]))
            parts.append((f"history {rec}", got is not None))
            if got is not None and got != tuple(rec):
                v.add(f"{t.describe()}: history row is {got}, the transaction wrote {tuple(rec)}", "wrong row content")
        for i in t.commit_sp:
            got = db_sp.get(i)
            parts.append((f"sp id {i} (kept=true)", got is not None))
            if got is not None and (got[1] != t.client or got[2] is not True):
                v.add(f"{t.describe()}: sp row {tuple(got)}, the transaction wrote ({i}, {t.client}, True)", "wrong row content")
        # Rows rolled back to a savepoint: never.
        for i in t.never_sp:
            if i in db_sp:
                v.add(f"{t.describe()}: sp row {tuple(db_sp[i])} was rolled back to a savepoint but is present", "rolled-back savepoint effect present")
        for rec in t.never_transfers:
            if (rec[0], rec[1]) in db_hist:
                v.add(f"{t.describe()}: history row {rec} of a transfer rolled back to a savepoint is present", "rolled-back savepoint effect present")

        present = [d for d, p in parts if p]
        absent = [d for d, p in parts if not p]
        if t.status in MUST_BE_PRESENT:
            if absent:
                v.add(
                    f"{t.describe()}: acknowledged commit lost: {len(absent)} of its {len(parts)} rows missing: {brief(absent)}",
                    "acknowledged transactions lost",
                )
            committed = True
        elif t.status in MUST_BE_ABSENT:
            if present:
                v.add(
                    f"{t.describe()}: never committed, yet {len(present)} of its rows are present: {brief(present)}",
                    "uncommitted transactions visible",
                )
            committed = False
        elif t.status == IN_DOUBT:
            if present and absent:
                v.add(
                    f"{t.describe()}: partially present (in-doubt must be all or nothing):"
                    f" present {brief(present)}; missing {brief(absent)}",
                    "partial in-doubt transaction",
                )
            committed = bool(present)
            # Its fate is now fixed: later cycles must see the same.
            t.status = RESOLVED_PRESENT if committed else RESOLVED_ABSENT
            stats["present" if committed else "absent"] += 1
            journal.finish(t, t.status)
        else:
            v.add(f"{t.describe()}: still running at verification (harness bug)", "harness bug")
            committed = False
        if committed:
            committed_transfers.extend((t, rec) for rec in t.commit_transfers)

    # Balances: initial + committed transfers, account by account.
    expected = {a: INITIAL_BALANCE for a in range(1, N_ACCOUNTS + 1)}
    touching: dict[int, list[str]] = {a: [] for a in expected}
    for t, (_, _, src, dst, amount) in committed_transfers:
        expected[src] -= amount
        expected[dst] += amount
        touching[src].append(t.tid)
        touching[dst].append(t.tid)
    if not accounts_missing:
        for a in sorted(expected):
            if a not in db_acc:
                v.add(f"accounts row id={a} missing", "wrong balance")
            elif db_acc[a] != expected[a]:
                v.add(
                    f"account {a}: balance {db_acc[a]}, expected {expected[a]} (initial {INITIAL_BALANCE}"
                    f" + {len(touching[a])} committed transfers, last: {touching[a][-3:]}); off by {db_acc[a] - expected[a]}",
                    "wrong balance",
                )
        for a in db_acc:
            if a not in expected:
                v.add(f"accounts row id={a} was never created", "row from nowhere")
        total = sum(db_acc.values())
        if total != INITIAL_TOTAL:
            v.add(f"accounts: total balance {total}, must stay {INITIAL_TOTAL}", "total balance changed")
    return v, stats


# --------------------------------------------------------------------------
# Main loop.


def create_schema(dsn: str) -> None:
    with psycopg.connect(dsn, connect_timeout=10, autocommit=True) as conn:
        for stmt in SCHEMA:
            conn.execute(stmt)
        with conn.transaction():
            for a in range(1, N_ACCOUNTS + 1):
                conn.execute("INSERT INTO accounts (id, balance) VALUES (%s, %s)", (a, INITIAL_BALANCE))


def pg_bindir(explicit: str | None, major: int = 15) -> str:
    """PostgreSQL `major`'s server programs: `explicit` (--pg-bin), else the first of
    `pg_config --bindir` and the directory of pg_ctl on PATH whose postgres is `major`."""

    def version(d: str) -> str:
        try:
            return subprocess.run([os.path.join(d, "postgres"), "--version"], capture_output=True,
                                  text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    def usable(d: str) -> bool:
        return all(os.access(os.path.join(d, p), os.X_OK) for p in PG_SERVER_PROGRAMS) and (
            f" {major}." in version(d)
        )

    if explicit:
        d = os.path.abspath(explicit)
        if not usable(d):
            raise SystemExit(f"crash-test: --pg-bin {d}: no PostgreSQL {major} initdb/postgres there")
        return d
    candidates = []
    if shutil.which("pg_config"):
        r = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            candidates.append(r.stdout.strip())
    if shutil.which("pg_ctl"):
        candidates.append(os.path.dirname(os.path.realpath(shutil.which("pg_ctl"))))
    for d in candidates:
        if usable(d):
            return d
    raise SystemExit(
        f"crash-test: no PostgreSQL {major} server programs found (tried: {', '.join(candidates) or 'nothing on PATH'});"
        " pass --pg-bin DIR"
    )


def cargo_target_dir() -> str:
    """Cargo's target directory for this workspace, absolute ($CARGO_TARGET_DIR, cargo config, or target/)."""
    try:
        r = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=REPO, capture_output=True, text=True
        )
        if r.returncode == 0:
            return os.path.abspath(json.loads(r.stdout)["target_directory"])
    except (OSError, ValueError, KeyError):
        pass
    return os.path.abspath(os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target"))


def parse_args(argv):
    p = argparse.ArgumentParser(prog="crash-test", description=__doc__.split("\n\n")[0])
    p.add_argument("--cycles", type=int, default=100)
    p.add_argument("--seconds-per-cycle", type=float, default=3.0, help="upper bound of the kill delay; the kill comes after a seeded random delay in [S/2, S]")
    p.add_argument("--seed", type=int, default=None, help="RNG seed (default: random, printed)")
    p.add_argument("--port", type=int, default=None, help="default: a free port in 55500-55599")
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--server-cmd", default=None, help="server command line; {port} and {datadir} are substituted")
    p.add_argument("--init-cmd", default=None, help="run once before the first start (e.g. initdb); same placeholders")
    p.add_argument("--run-as", default=None, help="run the server (and --init-cmd) as this user")
    p.add_argument("--pg15", action="store_true", help="use the local PostgreSQL 15 (initdb, fsync=on, as postgres)")
    p.add_argument("--pg-bin", default=None, help="with --pg15: directory of PostgreSQL 15's initdb and postgres (default: pg_config --bindir, else pg_ctl on PATH)")
    p.add_argument("--nestor-bin", default=None, help="nestor binary (default: $CARGO_TARGET_DIR or target/, release)")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    p.add_argument("--user", default="postgres")
    p.add_argument("--dbname", default="postgres")
    p.add_argument("--workdir", default=None, help="data directory, journal and server log go here (default: a new temp dir, removed on success)")
    p.add_argument("--keep", action="store_true", help="keep the work directory even on success")
    p.add_argument("--start-timeout", type=float, default=60.0)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    port = args.port if args.port is not None else pick_port()
    own_workdir = args.workdir is None
    workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="nestor-crash-"))
    os.makedirs(workdir, exist_ok=True)
    datadir = os.path.join(workdir, "data")

    init_cmd = args.init_cmd
    server_cmd = args.server_cmd
    run_as = args.run_as
    if args.pg15:
        run_as = run_as or "postgres"
        pg_bin = shlex.quote(pg_bindir(args.pg_bin))
        init_cmd = init_cmd or f"{pg_bin}/initdb -D {{datadir}} -U postgres --auth=trust --no-sync"
        server_cmd = server_cmd or (
            f"{pg_bin}/postgres -D {{datadir}} -p {{port}} -c listen_addresses=127.0.0.1"
            " -c unix_socket_directories={datadir} -c fsync=on -c synchronous_commit=on"
            " -c full_page_writes=on -c max_connections=30 -c checkpoint_timeout=30s"
            " -c recovery_init_sync_method=syncfs"
        )
    if server_cmd is None:
        # Absolute: the server is started with cwd=/.
        if args.nestor_bin:
            binary = os.path.abspath(args.nestor_bin)
        else:
            binary = os.path.join(cargo_target_dir(), "release", "nestor")
        if not args.no_build and args.nestor_bin is None:
            log("building nestor (cargo build --release --bin nestor)")
            r = subprocess.run(["cargo", "build", "--release", "--bin", "nestor"], cwd=REPO)
            if r.returncode != 0:
                log("cargo build failed")
                return 2
        if not os.access(binary, os.X_OK):
            log(f"crash-test: no nestor binary at {binary} (build it, or pass --nestor-bin)")
            return 2
        server_cmd = f"{shlex.quote(binary)} --data-dir {{datadir}} --listen 127.0.0.1 --port {{port}}"

    def subst(cmd: str) -> list[str]:
        return [a.replace("{port}", str(port)).replace("{datadir}", datadir) for a in shlex.split(cmd)]

    if run_as:
        import pwd

        pw = pwd.getpwnam(run_as)
        os.chmod(workdir, 0o755)
        if init_cmd is None:
            os.makedirs(datadir, exist_ok=True)
            os.chown(datadir, pw.pw_uid, pw.pw_gid)
    if init_cmd and not (os.path.isdir(datadir) and os.listdir(datadir)):
        if run_as:
            os.makedirs(datadir, mode=0o700, exist_ok=True)
            os.chown(datadir, pw.pw_uid, pw.pw_gid)
        kw = {"user": run_as, "group": run_as, "extra_groups": []} if run_as else {}
        r = subprocess.run(subst(init_cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/", **kw)
        if r.returncode != 0:
            log(f"init command failed ({r.returncode}):\n{r.stdout.decode(errors='replace')}")
            return 2

    dsn = f"host=127.0.0.1 port={port} user={args.user} dbname={args.dbname}"
    server = Server(subst(server_cmd), os.path.join(workdir, "server.log"), dsn, run_as)

    def cleanup():
        try:
            server.kill()
        except Exception as e:  # noqa: BLE001
            print(f"crash-test: cleanup: {e}", file=sys.stderr)

    atexit.register(cleanup)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    rng = random.Random(seed)
    journal = Journal(os.path.join(workdir, "journal.jsonl"), time.monotonic())
    states = [ClientState() for _ in range(args.clients)]
    log(
        f"crash-test: seed {seed}, {args.cycles} cycles of <= {args.seconds_per_cycle}s, {args.clients} clients,"
        f" port {port}, workdir {workdir}"
    )
    log(f"crash-test: server: {shlex.join(server.argv)}")

    passed = failed = 0
    totals = {"acked": 0, "in_doubt": 0}
    try:
        try:
            restart = server.start(args.start_timeout)
            create_schema(dsn)
        except Exception as e:  # noqa: BLE001
            log(f"cycle 1: FAIL: cannot start the server or create the schema: {e}")
            failed = 1
            raise _Stop()
        for cycle in range(1, args.cycles + 1):
            stop, killing = threading.Event(), threading.Event()
            seen = set(journal.txns)
            clients = [Client(i, states[i], journal, dsn, seed, cycle, stop, killing) for i in range(args.clients)]
            delay = rng.uniform(args.seconds_per_cycle / 2, args.seconds_per_cycle)
            for c in clients:
                c.start()
            time.sleep(delay)
            # Kill first, then tell the clients: the kill must hit work in flight.
            killing.set()
            kill_t = journal.now()
            server.kill()
            stop.set()
            hung = []
            for c in clients:
                c.join(timeout=30)
                if c.is_alive():
                    hung.append(c.name)
            notes = [n for c in clients for n in c.notes]
            new = [t for tid, t in journal.txns.items() if tid not in seen]
            count = {s: 0 for s in (ACKED, IN_DOUBT, ABORTED, ROLLED_BACK, RUNNING)}
            for t in new:
                count[t.status] = count.get(t.status, 0) + 1
            try:
                restart = server.start(args.start_timeout)
            except Exception as e:  # noqa: BLE001
                log(f"cycle {cycle}: FAIL: restart after kill -9: {e}")
                failed += 1
                break
            if hung:
                log(f"cycle {cycle}: FAIL: client threads {hung} did not finish 30s after the kill")
                failed += 1
                break
            try:
                v, vs = verify(dsn, journal)
            except psycopg.Error as e:
                log(f"cycle {cycle}: FAIL: verification queries failed after restart: {type(e).__name__}: {e}")
                failed += 1
                break
            totals["acked"] += count[ACKED]
            totals["in_doubt"] += count[IN_DOUBT]
            line = (
                f"cycle {cycle}/{args.cycles}: kill -9 at t={kill_t:.2f}s ({delay:.2f}s in); acknowledged {count[ACKED]},"
                f" in doubt {count[IN_DOUBT]} ({vs['present']} present, {vs['absent']} absent),"
                f" rolled back {count[ROLLED_BACK]}, aborted {count[ABORTED]};"
                f" verified {len(journal.txns)} transactions / {vs['rows']} rows; restart {restart:.2f}s"
            )
            if v:
                log(line + ": FAIL")
                v.print()
                failed += 1
                for n in notes[:5]:
                    log(f"  note: {n}")
                break
            log(line + ": ok")
            for n in notes[:5]:
                log(f"  note: {n}")
            passed += 1
    except _Stop:
        pass
    except (KeyboardInterrupt, SystemExit):
        log("crash-test: interrupted")
        failed += 1
    finally:
        cleanup()
        journal.close()
    log(f"{passed} passed, {failed} failed")
    if failed:
        not_run = args.cycles - passed - failed
        if not_run > 0:
            log(f"crash-test: stopped at the first failure ({not_run} cycles not run); seed {seed}")
        log(f"crash-test: kept {workdir} (data/, journal.jsonl, server.log); server log tail:\n{server.log_tail(15)}")
        return 1
    log(f"crash-test: seed {seed}; {totals['acked']} acknowledged commits, {totals['in_doubt']} in doubt, all verified")
    if own_workdir and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


class _Stop(Exception):
    pass


if __name__ == "__main__":
    sys.exit(main())
