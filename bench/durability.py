#!/usr/bin/env python3
"""Durability benchmark: Nestor against the local PostgreSQL 15 in one run (README, Performance).

  1. pgbench -i, then tpcb-like at -c 1, 4, 16 with synchronous_commit on and off
     (PGOPTIONS='-c synchronous_commit=off'), servers interleaved point by point;
  2. WAL bytes per transaction of every run (pg_current_wal_lsn() before/after);
  3. restart time after kill -9 with ~1 GB (quick: ~100 MB) of WAL to replay.

Entry point: bench/durability [--quick] (creates/uses bench/.venv, then runs this file).
Prints a Markdown report to stdout (progress goes to stderr) and writes it to
bench/results/<date>-<host>/durability.md. Server start/stop helpers come from
bench/nestor_bench.py; every server started here is stopped on exit, Ctrl-C,
SIGTERM and errors.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nestor_bench as nb  # noqa: E402  (server helpers, pgbench parsing, machine info)

PORT_RANGE = range(55600, 55700)
CLIENTS = (1, 4, 16)
SYNC_MODES = ("on", "off")
# Identical durability for both servers: fsync at commit (synchronous_commit as per run),
# PostgreSQL full_page_writes / wal_level at their defaults.
PG_BENCH_SETTINGS = {
    "fsync": "on", "synchronous_commit": "on", "shared_buffers": "256MB", "max_wal_size": "4GB",
    "max_connections": "100",
}
PG_CRASH_SETTINGS = {**PG_BENCH_SETTINGS, "max_wal_size": "8GB", "checkpoint_timeout": "1h"}
PG_SHOW = ["fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers",
           "max_wal_size", "checkpoint_timeout", "wal_compression"]
NESTOR_CKPT_TIMEOUT_S = 300          # nestor's defaults (crates/durable/src/lib.rs)
NESTOR_MAX_WAL = 1 << 30


def oneline(e: BaseException | str, n: int = 300) -> str:
    """An error as one line: psycopg's multi-line messages (LINE 1: ..., HINT) squeezed."""
    text = e if isinstance(e, str) else f"{type(e).__name__}: {e}"
    return " ".join(text.split())[:n]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def free_port(taken: set[int]) -> int:
    for port in PORT_RANGE:
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RuntimeError("no free port in 55600-55699")


def parse_lsn(text: str) -> int:
    hi, lo = text.strip().split("/")
    return (int(hi, 16) << 32) + int(lo, 16)


def connect(port: int, timeout: float = 10, options: str | None = None):
    import psycopg
    kw = {"options": options} if options else {}
    return psycopg.connect(host="127.0.0.1", port=port, user=nb.DB_USER, dbname=nb.DB_NAME,
                           autocommit=True, connect_timeout=max(1, int(timeout)), **kw)


def query1(port: int, sql: str, timeout: float = 30) -> object:
    with connect(port, timeout) as c:
        return c.execute(sql).fetchone()[0]


def dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, pgrp)."""
    table = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            table[int(p.name)] = (int(fields[1]), int(fields[2]))
        except (OSError, ValueError, IndexError):
            continue
    return table


def tree_of(leader: int) -> set[int]:
    """The leader, its process group and all descendants (PostgreSQL backends call setsid())."""
    table = proc_table()
    found = {leader} | {p for p, (_, pgrp) in table.items() if pgrp == leader}
    kids: dict[int, list[int]] = {}
    for p, (ppid, _) in table.items():
        kids.setdefault(ppid, []).append(p)
    todo = list(found)
    while todo:
        for c in kids.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def alive_pid(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] not in ("Z", "X")


def signal_quietly(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# ----------------------------------------------------------------------------- servers

class Launchable:
    """Mixin: start the server process directly (own session), wait until a query works,
    kill -9 its whole tree, restart it and time recovery."""
    proc: subprocess.Popen[bytes] | None
    port: int
    logfile: Path
    name: str

    def argv(self) -> list[str]:
        raise NotImplementedError

    def popen_kwargs(self) -> dict:
        return {}

    def launch(self) -> None:
        with open(self.logfile, "ab") as lf:
            lf.write(f"\n===== start {time.strftime('%H:%M:%S')}: {shlex.join(self.argv())}\n".encode())
            lf.flush()
            self.proc = subprocess.Popen(self.argv(), stdout=lf, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True, cwd="/",
                                         **self.popen_kwargs())

    def wait_ready(self, check_sql: str = "SELECT 1", expect: object = None,
                   timeout: float = 600) -> tuple[float, float]:
        """Seconds from launch until (a) a connection is accepted, (b) check_sql returns expect."""
        import psycopg
        t0 = time.monotonic()
        t_conn: float | None = None
        last = ""
        while True:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} during startup: "
                                   f"{self.log_tail(8)}")
            try:
                with connect(self.port, 2) as c:
                    if t_conn is None:
                        t_conn = time.monotonic() - t0
                    got = c.execute(check_sql).fetchone()[0]
                    if expect is None or got == expect:
                        return t_conn, time.monotonic() - t0
                    raise RuntimeError(f"{self.name}: `{check_sql}` returned {got!r}, expected {expect!r}")
            except psycopg.Error as e:
                last = oneline(e)
            if time.monotonic() - t0 > timeout:
                raise RuntimeError(f"{self.name} not ready within {timeout:.0f} s ({last}); {self.log_tail(8)}")
            time.sleep(0.02)

    def kill9(self) -> int:
        """SIGSTOP the leader, then SIGKILL it and every process of its tree; returns how many died."""
        if self.proc is None:
            return 0
        leader = self.proc.pid
        signal_quietly(leader, signal.SIGSTOP)
        victims: set[int] = set()
        while True:
            found = tree_of(leader) - victims
            if not found:
                break
            for pid in found:
                signal_quietly(pid, signal.SIGSTOP)
            victims |= found
        for pid in victims:
            signal_quietly(pid, signal.SIGKILL)
        try:
            os.killpg(leader, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(30)
        deadline = time.monotonic() + 15
        while any(alive_pid(p) for p in victims):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: processes still alive after SIGKILL")
            time.sleep(0.02)
        self.proc = None
        return len(victims)


class DurNestor(Launchable, nb.NestorServer):
    def argv(self) -> list[str]:
        return [str(self.binary), "--data-dir", str(self.workdir / "data"), "--listen", "127.0.0.1",
                "--port", str(self.port), "--max-connections", "200"]

    def start(self) -> None:
        self.start_command = shlex.join(self.argv())
        self.launch()
        self.wait_ready(timeout=120)
        self.version = nb.sh([str(self.binary), "--version"])
        try:
            self.version += "; " + str(query1(self.port, "SELECT version()"))
        except Exception as e:  # noqa: BLE001
            self.version += f"; SELECT version() failed: {e}"
        self.settings = {"durability": "defaults: fdatasync before acknowledging (group commit), "
                                      "checkpoint every 5 min or 1 GiB of WAL"}

    def wal_dir(self) -> Path:
        return self.workdir / "data" / "wal"

    def log_position(self) -> int:
        """Log volume so far: the LSN counts the segments' bytes, and a
        transaction whose redo outgrew --txn-redo-memory-max keeps it in a
        redo file beside them (removed at the next checkpoint)."""
        redo = sum(p.stat().st_size for p in self.wal_dir().glob("*.redo"))
        return wal_lsn(self) + redo

    def replay_start_lsn(self) -> tuple[int, str]:
        """LSN recovery starts from: the checkpoint's cut, or 0 without a checkpoint."""
        ck = self.workdir / "data" / "checkpoint"
        try:
            with open(ck, "rb") as f:
                head = f.read(28)
            if head[:8] == b"NESTORCK" and len(head) == 28:
                return int.from_bytes(head[20:28], "little"), "checkpoint file"
        except OSError:
            pass
        return 0, "no checkpoint (replay from LSN 0)"


class DurPostgres(Launchable, nb.PostgresServer):
    def __init__(self, name: str, port: int, workdir: Path, bindir: Path, settings: dict[str, str]) -> None:
        super().__init__(name, port, workdir, bindir)
        self.conf = settings
        self.proc = None

    def argv(self) -> list[str]:
        return [str(self.bindir / "postgres"), "-D", str(self.data)]

    def popen_kwargs(self) -> dict:
        return {"user": "postgres", "group": "postgres", "extra_groups": []}

    def start(self) -> None:
        shutil.chown(self.workdir, "postgres", "postgres")
        p = self.as_postgres([str(self.bindir / "initdb"), "-D", str(self.data), "-U", nb.DB_USER,
                              "--auth=trust", "-E", "UTF8", "--locale=C"])
        if p.returncode != 0:
            raise RuntimeError(f"initdb failed: {nb.first_error(p.stdout + p.stderr)}")
        conf = {**self.conf, "port": str(self.port), "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": f"'{self.workdir}'"}
        with open(self.data / "postgresql.conf", "a") as f:
            f.write("\n# nestor durability bench\n" + "".join(f"{k} = {v}\n" for k, v in conf.items()))
        with open(self.logfile, "a"):
            pass
        shutil.chown(self.logfile, "postgres", "postgres")
        self.start_command = ("runuser -u postgres -- initdb -D DATA --auth=trust -E UTF8 --locale=C; "
                              f"runuser -u postgres -- {shlex.join(self.argv())}  (postgresql.conf: "
                              + ", ".join(f"{k}={v}" for k, v in self.conf.items()) + ")")
        self.started = True
        self.launch()
        self.wait_ready(timeout=120)
        with connect(self.port) as c:
            self.version = str(c.execute("SELECT version()").fetchone()[0])
            for s in PG_SHOW:
                self.settings[s] = str(c.execute(f"SHOW {s}").fetchone()[0])

    def stop(self) -> None:
        super().stop()          # pg_ctl stop -m fast, then immediate, then SIGKILL of the postmaster
        if self.proc is not None:
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill9()
            self.proc = None

    def wal_dir(self) -> Path:
        return self.data / "pg_wal"

    def log_position(self) -> int:
        return wal_lsn(self)

    def replay_start_lsn(self) -> tuple[int, str]:
        redo = query1(self.port, "SELECT redo_lsn::text FROM pg_control_checkpoint()")
        return parse_lsn(str(redo)), "redo_lsn of the last checkpoint"


def stop_server(s: nb.Server) -> None:
    try:
        s.stop()
    except Exception as e:  # noqa: BLE001
        log(f"  stopping {s.name}: {e}")
    if isinstance(s, DurNestor) and s.proc is not None:
        s.kill9()


# ----------------------------------------------------------------------------- experiment

@dataclass
class Point:
    tps: float | None = None
    txns: float | None = None
    wal_bytes: int | None = None
    error: str | None = None

    @property
    def wal_per_txn(self) -> float | None:
        if self.wal_bytes is None or not self.txns:
            return None
        return self.wal_bytes / self.txns


@dataclass
class CrashResult:
    rows: int = 0
    row_writes: int = 0
    statements: int = 0
    gen_s: float = 0
    wal_replay: int | None = None
    replay_from: str = ""
    wal_dir: int | None = None
    t_conn: float | None = None
    t_count: float | None = None
    check: str = ""
    error: str | None = None


@dataclass
class Run:
    quick: bool
    out: Path
    runner: nb.Runner
    duration: int
    scale: int
    crash_target: int
    notes: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)

    def cmd(self, display: str) -> None:
        if display not in self.commands:
            self.commands.append(display)


def pg_env(s: nb.Server, sync: str | None = None) -> dict[str, str]:
    env = dict(s.env)
    env["PGAPPNAME"] = "nestor-durbench"
    if sync == "off":
        env["PGOPTIONS"] = "-c synchronous_commit=off"
    return env


def verify_options(run: Run, servers: Sequence[nb.Server]) -> dict[str, str]:
    """SHOW synchronous_commit through psql with and without PGOPTIONS."""
    got = {}
    for s in servers:
        vals = []
        for sync in SYNC_MODES:
            res = run.runner.run("durability", f"{s.name}-show-sync-{sync}",
                                 ["psql", "-X", "-At", "-c", "SHOW synchronous_commit"], pg_env(s, sync), 30)
            vals.append(res.output.strip() if res.ok else f"ERROR {nb.first_error(res.output)}")
        got[s.name] = f"PGOPTIONS unset: `{vals[0]}`; PGOPTIONS='-c synchronous_commit=off': `{vals[1]}`"
        if vals[1] != "off":
            run.notes.append(f"{s.name} did not apply PGOPTIONS='-c synchronous_commit=off' (SHOW says {vals[1]!r}): "
                             "its 'off' rows ran with synchronous commits.")
    run.cmd("PGOPTIONS='-c synchronous_commit=off' psql -X -At -c 'SHOW synchronous_commit'")
    return got


def wal_lsn(s: nb.Server) -> int:
    return parse_lsn(str(query1(s.port, "SELECT pg_current_wal_lsn()::text")))


def pgbench_point(run: Run, s: nb.Server, sync: str, c: int) -> Point:
    pt = Point()
    try:
        lsn0 = wal_lsn(s)
    except Exception as e:  # noqa: BLE001
        pt.error = f"pg_current_wal_lsn(): {oneline(e)}"
        lsn0 = None
    args = ["pgbench", "-n", "-T", str(run.duration), "-c", str(c), "-j", str(min(c, 2)), "-P", "5"]
    res = run.runner.run("durability", f"{s.name}-sync{sync}-c{c}", args, pg_env(s, sync), run.duration + 120)
    run.cmd(("PGOPTIONS='-c synchronous_commit=off' " if sync == "off" else "") + " ".join(args))
    b = nb.parse_pgbench(res)
    pt.tps = b.tps
    pt.txns = b.extra.get("transactions")
    if b.error:
        pt.error = b.error
        if not s.alive():
            pt.error += f" | server died: {s.log_tail(6)}"
    if lsn0 is not None:
        try:
            pt.wal_bytes = wal_lsn(s) - lsn0
        except Exception as e:  # noqa: BLE001
            pt.error = (pt.error or "") + f" pg_current_wal_lsn() after: {oneline(e)}"
    wpt = f"{pt.wal_per_txn:,.0f} B/txn" if pt.wal_per_txn is not None else "-"
    log(f"  sync={sync:<3} -c {c:<2} {s.name:<7} "
        + (f"{pt.tps:,.1f} tps, {wpt}" if pt.tps is not None else "") + (f" ERROR {pt.error[:200]}" if pt.error else ""))
    return pt


def pgbench_phase(run: Run, servers: list[nb.Server]) -> tuple[dict, dict]:
    init: dict[str, str] = {}
    for s in servers:
        args = ["pgbench", "-i", "-q", "-s", str(run.scale)]
        res = run.runner.run("durability", f"{s.name}-init", args, pg_env(s), 900)
        run.cmd(" ".join(args))
        init[s.name] = f"{res.seconds:.1f} s" if res.ok else f"ERROR: {nb.first_error(res.output)}"
        log(f"  pgbench -i -s {run.scale} on {s.name}: {init[s.name]}")
    results: dict[tuple[str, int, str], Point] = {}
    i = 0
    for sync in SYNC_MODES:
        for c in CLIENTS:
            order = servers if i % 2 == 0 else list(reversed(servers))
            i += 1
            for s in order:
                results[(sync, c, s.name)] = pgbench_point(run, s, sync, c)
    # tpcb-like invariant: sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)
    checks = {}
    for s in servers:
        try:
            with connect(s.port) as cn:
                vals = cn.execute("SELECT (SELECT sum(abalance) FROM pgbench_accounts), "
                                  "(SELECT sum(bbalance) FROM pgbench_branches), "
                                  "(SELECT sum(tbalance) FROM pgbench_tellers), "
                                  "(SELECT sum(delta) FROM pgbench_history), "
                                  "(SELECT count(*) FROM pgbench_history)").fetchone()
            ok = len({int(v or 0) for v in vals[:4]}) == 1
            checks[s.name] = (f"{'ok' if ok else 'MISMATCH'}: sums {', '.join(str(v) for v in vals[:4])}; "
                              f"{vals[4]} history rows")
            if not ok:
                run.notes.append(f"{s.name}: balances inconsistent after the pgbench runs: {vals}")
        except Exception as e:  # noqa: BLE001
            checks[s.name] = f"ERROR {oneline(e)}"
    return results, {"init": init, "checks": checks}


def crash_phase(run: Run, s: nb.Server) -> CrashResult:
    """Generate ~crash_target bytes of WAL since the last checkpoint, kill -9, restart, time it."""
    cr = CrashResult()
    assert isinstance(s, (DurNestor, DurPostgres))
    t0 = time.monotonic()
    insert_rows = max(50_000, run.crash_target // 1200)   # about a quarter of the WAL from inserts
    batch = 50_000 if run.quick else 100_000
    passes = 0
    with connect(s.port, 30) as c:
        c.execute("CREATE TABLE big (id int PRIMARY KEY, n int NOT NULL, v text NOT NULL)")
        start_lsn, cr.replay_from = s.replay_start_lsn()
        lo = 1
        while lo <= insert_rows:
            hi = min(insert_rows, lo + batch - 1)
            c.execute(f"INSERT INTO big SELECT g, 0, '{'x' * 200}' FROM generate_series({lo}, {hi}) g")
            cr.statements += 1
            lo = hi + 1
        cr.rows = cr.row_writes = insert_rows
        expected_n = 0
        # updates rewrite whole rows: the table (and Nestor's memory) stays the same size
        while s.log_position() - start_lsn < run.crash_target:
            lo = 1 + (passes * batch) % insert_rows
            hi = min(insert_rows, lo + batch - 1)
            ch = "abcdefghijklmnopqrstuvwxyz"[passes % 26]
            c.execute(f"UPDATE big SET n = n + 1, v = '{ch * 200}' WHERE id BETWEEN {lo} AND {hi}")
            expected_n += hi - lo + 1
            cr.row_writes += hi - lo + 1
            cr.statements += 1
            passes += 1
            if time.monotonic() - t0 > (NESTOR_CKPT_TIMEOUT_S - 40):
                run.notes.append(f"{s.name}: WAL generation stopped early at {time.monotonic() - t0:.0f} s "
                                 "to stay inside Nestor's 5-minute checkpoint interval")
                break
        cur = s.log_position()
        # replay start again: a checkpoint during generation would move it (and is reported)
        start2, cr.replay_from = s.replay_start_lsn()
        if start2 != start_lsn:
            run.notes.append(f"{s.name}: a checkpoint happened during WAL generation "
                             f"(replay start moved from {start_lsn} to {start2})")
        cr.wal_replay = cur - start2
    cr.gen_s = time.monotonic() - t0
    cr.wal_dir = dir_bytes(s.wal_dir())
    log(f"  {s.name}: {cr.rows:,} rows, {cr.statements} statements, {cr.wal_replay / 1e6:,.0f} MB of WAL "
        f"to replay ({cr.replay_from}), wal dir {cr.wal_dir / 1e6:,.0f} MB, generated in {cr.gen_s:.0f} s; kill -9")
    killed = s.kill9()
    log(f"  {s.name}: killed {killed} process(es); restarting")
    s.launch()
    try:
        cr.t_conn, cr.t_count = s.wait_ready("SELECT count(*) FROM big", cr.rows, timeout=900)
        got = query1(s.port, "SELECT sum(n) FROM big", 120)
        cr.check = (f"count(*) = {cr.rows:,} ok; sum(n) = {got} "
                    + ("ok" if int(got or 0) == expected_n else f"WRONG (expected {expected_n})"))
        if int(got or 0) != expected_n:
            run.notes.append(f"{s.name}: after crash recovery sum(n) = {got}, expected {expected_n}")
        log(f"  {s.name}: first connection after {cr.t_conn:.2f} s, correct count after {cr.t_count:.2f} s; "
            f"{cr.check}")
    except Exception as e:  # noqa: BLE001
        cr.error = oneline(e, 600)
        log(f"  {s.name}: RESTART FAILED: {cr.error}")
    return cr


# ----------------------------------------------------------------------------- report

def fmt(v: float | None, digits: int = 0, unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:,.{digits}f}{unit}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "—"


def report(run: Run, servers: list[nb.Server], crash_servers: list[nb.Server], started: dt.datetime,
           wall: float, build_msg: str, opts: dict[str, str], bench: tuple[dict, dict] | None,
           crash: dict[str, CrashResult], errors: list[str]) -> str:
    n, p = "nestor", "pg15"
    out = [f"# Nestor durability benchmark — {started:%Y-%m-%d %H:%M} on {socket.gethostname()}", "",
           f"Mode **{'quick' if run.quick else 'full'}**, wall time {wall / 60:.1f} min. One run, servers "
           "interleaved point by point (alternating which goes first). Ratios are **nestor/pg15**: for tps "
           "above 1× means Nestor is faster; for WAL bytes and restart time above 1× means Nestor writes / "
           "takes more. The machine's 2 cores are shared with client, both servers and other engineers' work: "
           "compare ratios, not absolutes.", "",
           "## Machine", "", nb.md_table(["", ""], nb.machine_info()), "", "## Servers", ""]
    rows = []
    for s in servers + crash_servers:
        rows.append([s.name + (" (crash test)" if s in crash_servers else ""), str(s.port),
                     nb.md_escape(s.version[:160]),
                     nb.md_escape(", ".join(f"{k}={v}" for k, v in s.settings.items())),
                     f"`{nb.md_escape(s.start_command)}`"])
    out += [nb.md_table(["server", "port", "version", "settings (SHOW)", "started with"], rows), "",
            f"Nestor binary: {build_msg}", "",
            "synchronous_commit through PGOPTIONS (verified with `SHOW synchronous_commit`):", ""]
    out += [f"- {k}: {v}" for k, v in opts.items()] + [""]
    if bench:
        results, extra = bench
        out += [f"## 1–2. pgbench tpcb-like: tps and WAL bytes per transaction", "",
                f"`pgbench -i -q -s {run.scale}` (" + ", ".join(f"{k} {v}" for k, v in extra["init"].items())
                + f"), then `pgbench -n -T {run.duration} -c C -j min(C,2) -P 5` per point. WAL/txn = "
                "(pg_current_wal_lsn() after − before) / transactions processed (PostgreSQL's includes "
                "background WAL: autovacuum, checkpoints and their full-page images).", ""]
        trows = []
        errs = []
        for sync in SYNC_MODES:
            for c in CLIENTS:
                a, b = results.get((sync, c, n)), results.get((sync, c, p))
                cells = []
                for name, pt in ((n, a), (p, b)):
                    if pt is None:
                        cells.append("—")
                    elif pt.error and pt.tps is None:
                        errs.append(f"{name} sync={sync} -c {c}: {pt.error}")
                        cells.append(f"ERR[{len(errs)}]")
                    else:
                        cells.append(fmt(pt.tps, 1))
                        if pt.error:
                            errs.append(f"{name} sync={sync} -c {c}: {pt.error}")
                trows.append([sync, str(c), *cells, ratio(a and a.tps, b and b.tps),
                              fmt(a and a.wal_per_txn), fmt(b and b.wal_per_txn),
                              ratio(a and a.wal_per_txn, b and b.wal_per_txn)])
        out += [nb.md_table(["synchronous_commit", "clients", "nestor tps", "pg15 tps", "tps nestor/pg15",
                             "nestor WAL B/txn", "pg15 WAL B/txn", "WAL nestor/pg15"], trows), ""]
        if errs:
            out += ["Errors:", ""] + [f"{i}. {nb.md_escape(e)}" for i, e in enumerate(errs, 1)] + [""]
        out += ["Consistency after the runs (sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)): "
                + "; ".join(f"{k}: {v}" for k, v in extra["checks"].items()), ""]
    if crash:
        out += ["## 3. Restart after kill -9 with WAL to replay", "",
                f"Fresh instances (PostgreSQL: checkpoint_timeout=1h, max_wal_size=8GB; Nestor: its defaults, "
                f"checkpoint every 5 min or 1 GiB of WAL, generation kept inside one interval). "
                f"`CREATE TABLE big (id int PRIMARY KEY, n int, v text)`, "
                f"`INSERT INTO big SELECT g, 0, 'xxx…' FROM generate_series(a, b) g` in batches, then "
                f"`UPDATE big SET n = n + 1, v = 'ccc…' WHERE id BETWEEN a AND b` batches (200-character "
                "literals: Nestor has no repeat()) until "
                f"pg_current_wal_lsn() − (replay start) ≥ {run.crash_target / 1e6:,.0f} MB; all with "
                "synchronous_commit=on. Then SIGSTOP+SIGKILL of the server's whole process tree, restart, and "
                "poll (every 20 ms) until a connection is accepted and `SELECT count(*) FROM big` returns the "
                "inserted count; sum(n) is checked afterwards.", ""]
        crow = []
        vals = {}
        for name in (n, p):
            cr = crash.get(name)
            if cr is None:
                crow.append([name] + ["—"] * 8)
                continue
            mb = cr.wal_replay / 1e6 if cr.wal_replay is not None else None
            rate = mb / cr.t_count if mb and cr.t_count else None
            vals[name] = (cr.t_count, mb)
            crow.append([name, f"{cr.rows:,} rows; {cr.row_writes:,} row writes in {cr.statements} statements, {cr.gen_s:.0f} s",
                         f"{fmt(mb)} MB ({cr.replay_from})", fmt(cr.wal_dir and cr.wal_dir / 1e6, 0, " MB"),
                         fmt(cr.t_conn, 2, " s"), fmt(cr.t_count, 2, " s"), fmt(rate, 0, " MB/s"),
                         nb.md_escape(cr.check or ""), nb.md_escape(cr.error or "")])
        out += [nb.md_table(["server", "workload", "WAL to replay", "WAL dir size", "restart → connection",
                             "restart → correct count", "replay rate", "check", "error"], crow), ""]
        if n in vals and p in vals:
            out += [f"Restart time nestor/pg15: {ratio(vals[n][0], vals[p][0])} (WAL to replay nestor/pg15 "
                    f"{ratio(vals[n][1], vals[p][1])}).", ""]
    if run.notes or errors:
        out += ["## Findings and notes", ""] + [f"- {nb.md_escape(x)}" for x in run.notes + errors] + [""]
    out += ["## Commands", "", "Every client command ran with PGHOST=127.0.0.1 PGUSER=postgres PGDATABASE=postgres "
            "and the server's PGPORT; raw outputs in `durability-raw/`.", "", "```",
            *run.commands, "```", ""]
    return "\n".join(out)


# ----------------------------------------------------------------------------- main

class Interrupted(BaseException):
    pass


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="short runs (< 4 min): -s 2, 5 s per point, ~100 MB WAL")
    ap.add_argument("--nestor-bin", type=Path, help="use this nestor binary (default: cargo build --release)")
    ap.add_argument("--out", type=Path, help="output directory (default bench/results/<date>-<host>/)")
    ap.add_argument("--duration", type=int, help="seconds per pgbench run (default: quick 5, full 45)")
    ap.add_argument("--crash-mb", type=int, help="WAL to replay in MB (default: quick 100, full 1000)")
    ap.add_argument("--pg-bin", type=Path, help="directory of PostgreSQL 15's initdb, pg_ctl and postgres "
                                                "(default: pg_config --bindir, else pg_ctl on PATH)")
    ap.add_argument("--skip", choices=["pgbench", "crash"], action="append", default=[], help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    nb.PG_BIN_OVERRIDE = a.pg_bin

    def on_signal(signum: int, _frame: object) -> None:
        raise Interrupted(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    signal.signal(signal.SIGINT, signal.default_int_handler)

    started = dt.datetime.now()
    t0 = time.monotonic()
    if a.nestor_bin:
        binary: Path | None = a.nestor_bin.resolve()
        build_msg = f"{binary} (given with --nestor-bin)"
        if not binary.exists():
            log(f"no nestor binary at {binary}")
            return 2
    else:
        binary, build_msg = nb.build_nestor()
        log(build_msg)
        if binary is None:
            return 2
    t_bench0 = time.monotonic()
    out = a.out or nb.BENCH_DIR / "results" / f"{started:%Y-%m-%d}-{socket.gethostname()}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "durability-raw", ignore_errors=True)
    run = Run(quick=a.quick, out=out, runner=nb.Runner(out / "durability-raw"),
              duration=a.duration or (5 if a.quick else 45), scale=2 if a.quick else 10,
              crash_target=(a.crash_mb or (100 if a.quick else 1000)) * 1_000_000)
    if run.crash_target >= NESTOR_MAX_WAL * 0.97:
        log("warning: --crash-mb close to Nestor's 1 GiB max_wal_size: a checkpoint may cut the replay")
    base = Path(tempfile.mkdtemp(prefix="nestor-durbench-"))
    os.chmod(base, 0o755)
    ports: set[int] = set()
    live: list[nb.Server] = []
    servers: list[nb.Server] = []
    crash_servers: list[nb.Server] = []
    opts: dict[str, str] = {}
    bench = None
    crash: dict[str, CrashResult] = {}
    errors: list[str] = []
    rc = 0

    def make(kind: str, tag: str, pg_settings: dict[str, str]) -> nb.Server:
        wd = base / tag
        wd.mkdir()
        if kind == "nestor":
            return DurNestor("nestor", free_port(ports), wd, binary)
        return DurPostgres("pg15", free_port(ports), wd, nb.pg15_bindir(), pg_settings)

    try:
        log(f"plan: {'quick' if a.quick else 'full'}; pgbench -s {run.scale}, {run.duration} s x "
            f"{len(SYNC_MODES) * len(CLIENTS)} points x 2 servers; crash test with "
            f"{run.crash_target / 1e6:.0f} MB of WAL; output {out}")
        if "pgbench" not in a.skip:
            for kind, tag in (("nestor", "nestor"), ("pg", "pg15")):
                s = make(kind, tag, PG_BENCH_SETTINGS)
                live.append(s)
                log(f"starting {s.name} on port {s.port}")
                s.start()
                servers.append(s)
            opts = verify_options(run, servers)
            log("pgbench phase")
            bench = pgbench_phase(run, servers)
            for s in servers:
                if not s.alive():
                    errors.append(f"{s.name} was not running at the end of the pgbench phase: {s.log_tail(6)}")
                stop_server(s)
                live.remove(s)
        if "crash" not in a.skip:
            log("crash-recovery phase")
            for kind, tag in (("pg", "pg15-crash"), ("nestor", "nestor-crash")):
                s = make(kind, tag, PG_CRASH_SETTINGS)
                live.append(s)
                try:
                    log(f"starting {s.name} (fresh, for the crash test) on port {s.port}")
                    s.start()
                    crash_servers.append(s)
                    crash[s.name] = crash_phase(run, s)
                    if crash[s.name].error:
                        errors.append(f"{s.name} crash restart: {crash[s.name].error}")
                except Exception as e:  # noqa: BLE001 - one server's failure is a finding, the run goes on
                    errors.append(f"{s.name} crash test failed: {oneline(e, 600)}")
                    log(errors[-1])
                finally:
                    stop_server(s)
                    live.remove(s)
                    shutil.rmtree(s.workdir, ignore_errors=True)   # free the disk before the next one
    except (KeyboardInterrupt, Interrupted) as e:
        log(f"interrupted ({e or 'Ctrl-C'}); stopping servers")
        errors.append(f"run interrupted ({e or 'Ctrl-C'})")
        rc = 130
    except Exception as e:  # noqa: BLE001
        errors.append(f"harness error: {oneline(e, 600)}")
        log(errors[-1])
        rc = 1
    finally:
        for s in live:
            stop_server(s)
        shutil.rmtree(base, ignore_errors=True)
    wall = time.monotonic() - t_bench0
    text = report(run, servers, crash_servers, started, wall, build_msg, opts, bench, crash, errors)
    (out / "durability.md").write_text(text)
    print(text, flush=True)
    log(f"done in {wall:.0f} s (build excluded; total {time.monotonic() - t0:.0f} s); report: {out / 'durability.md'}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
