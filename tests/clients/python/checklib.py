"""The small harness the Python driver checks share.

Connection parameters come from libpq's environment variables (PGHOST,
PGPORT, PGUSER, PGDATABASE; defaults 127.0.0.1, 5432, postgres, postgres),
the convention every program in tests/clients follows.

Every check is a function; `main` runs them all in order (or only those
named on the command line), prints `ok <name>` or `FAIL <name>: <why>` for
each, and exits 1 when any failed, naming them. A check stops at its first
failed assertion (`expect`/`expect_error`), so the message says which value
was wrong.
"""

import os
import sys
import time
import traceback


def env():
    return {
        "host": os.environ.get("PGHOST", "127.0.0.1"),
        "port": int(os.environ.get("PGPORT", "5432")),
        "user": os.environ.get("PGUSER", "postgres"),
        "dbname": os.environ.get("PGDATABASE", "postgres"),
    }


class CheckFailed(Exception):
    pass


def expect(what, got, want):
    """`got` must equal `want` (and have the same type unless want is None)."""
    if got != want or (want is not None and not isinstance(got, type(want))):
        raise CheckFailed(f"{what}: got {got!r} ({type(got).__name__}), want {want!r} ({type(want).__name__})")
    print(f"    {what}: {got!r}")


def expect_true(what, cond, detail=""):
    if not cond:
        raise CheckFailed(f"{what}: false {detail}")
    print(f"    {what}")


def run_checks(driver, checks):
    names = sys.argv[1:]
    failed = []
    for fn in checks:
        name = fn.__name__.removeprefix("check_")
        if names and name not in names:
            continue
        print(f"-- {driver}: {name}", flush=True)
        t0 = time.monotonic()
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported
            detail = f"{type(e).__name__}: {e}".strip()
            sqlstate = getattr(e, "sqlstate", None) or getattr(e, "pgcode", None)
            if sqlstate:
                detail += f" [SQLSTATE {sqlstate}]"
            if not isinstance(e, CheckFailed):
                tb = traceback.extract_tb(e.__traceback__)
                here = [f for f in tb if f.filename == sys.argv[0] or f.filename.endswith(os.path.basename(sys.argv[0]))]
                if here:
                    detail += f" (at line {here[-1].lineno}: {here[-1].line})"
            print(f"FAIL {name}: {detail}", flush=True)
            failed.append(name)
        else:
            print(f"ok   {name} ({time.monotonic() - t0:.2f}s)", flush=True)
    if failed:
        print(f"{driver}: {len(failed)} check(s) failed: {', '.join(failed)}", flush=True)
        sys.exit(1)
    print(f"{driver}: all checks passed", flush=True)
