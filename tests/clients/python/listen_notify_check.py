"""LISTEN / NOTIFY through psycopg 3: an idle listener is woken without
sending anything, notifications follow their transaction (commit,
rollback, savepoints, duplicates folded), a listener inside a transaction
gets them when it ends, UNLISTEN stops them, PostgreSQL's errors.
Passes against PostgreSQL 15 (PGPORT pointing at one)."""

import threading
import time

import psycopg

from checklib import env, run_checks


def dsn():
    e = env()
    return f"host={e['host']} port={e['port']} user={e['user']} dbname={e['dbname']}"


def check_listen_notify():
    a = psycopg.connect(dsn(), autocommit=True)
    b = psycopg.connect(dsn(), autocommit=True)
    a.execute("LISTEN jobs")
    a.execute('LISTEN "Other"')
    # 1. idle listener woken without sending anything
    def later():
        time.sleep(0.3)
        b.execute("NOTIFY jobs, 'one'")
        b.execute("SELECT pg_notify('Other', 'two')")
        with b.transaction():
            b.execute("NOTIFY jobs, 'dup'")
            b.execute("NOTIFY jobs, 'dup'")
            b.execute("NOTIFY jobs, 'three'")
        try:
            with b.transaction():
                b.execute("NOTIFY jobs, 'rolled back'")
                raise RuntimeError
        except RuntimeError:
            pass
    t = threading.Thread(target=later)
    t.start()
    got = [(n.channel, n.payload, n.pid == b.info.backend_pid) for n in a.notifies(timeout=5, stop_after=4)]
    print(got)
    assert got == [("jobs", "one", True), ("Other", "two", True), ("jobs", "dup", True), ("jobs", "three", True)], got
    t.join()
    assert list(a.notifies(timeout=0.3)) == [], "the rolled back NOTIFY arrived"
    # 2. savepoint rollback drops, release keeps
    with b.transaction():
        b.execute("NOTIFY jobs, 'before'")
        b.execute("SAVEPOINT s1")
        b.execute("NOTIFY jobs, 'dropped'")
        b.execute("ROLLBACK TO s1")
        b.execute("SAVEPOINT s2")
        b.execute("NOTIFY jobs, 'released'")
        b.execute("RELEASE s2")
    got = [n.payload for n in a.notifies(timeout=5, stop_after=2)]
    print(got)
    assert got == ["before", "released"], got
    # 3. a listener inside a transaction gets them after it ends
    a.autocommit = False
    a.execute("SELECT 1")
    b.execute("NOTIFY jobs, 'while busy'")
    time.sleep(0.3)
    assert list(a.notifies(timeout=0.3)) == []
    a.commit()
    got = [n.payload for n in a.notifies(timeout=5, stop_after=1)]
    print(got)
    assert got == ["while busy"], got
    a.autocommit = True
    # 4. UNLISTEN stops them; self-notify arrives
    a.execute("UNLISTEN jobs")
    b.execute("NOTIFY jobs, 'nobody'")
    a.execute("NOTIFY \"Other\", 'self'")
    got = [(n.channel, n.payload) for n in a.notifies(timeout=2, stop_after=1)]
    print(got)
    assert got == [("Other", "self")], got
    # 5. LISTEN in a rolled back transaction does nothing
    a.autocommit = False
    a.execute("LISTEN never")
    a.rollback()
    a.autocommit = True
    b.execute("NOTIFY never")
    assert list(a.notifies(timeout=0.5)) == []
    # 6. errors
    for sql, msg in [("NOTIFY jobs, '" + "x" * 8000 + "'", "payload string too long"), ("SELECT pg_notify('', 'x')", "channel name cannot be empty")]:
        try:
            b.execute(sql)
            raise AssertionError("no error for " + sql[:30])
        except psycopg.errors.InvalidParameterValue as e:
            assert msg in str(e), e
    a.close()
    b.close()


if __name__ == "__main__":
    run_checks("listen/notify", [check_listen_notify])
