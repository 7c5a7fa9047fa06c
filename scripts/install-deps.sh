#!/usr/bin/env bash
# Install what building and testing Nestor needs on a Debian 12 machine.
# Run as root. Idempotent: when everything is present it touches neither the
# network nor apt (so it also succeeds offline on a prepared machine).
#
#   libclang-dev clang      pg_query's build (bindgen) needs libclang
#   make                    jemalloc's build (tikv-jemalloc-sys runs its configure/make)
#   postgresql-client-15    psql
#   openssl                 certificates for the TLS tests (crates/server/tests/tls.rs)
#   postgresql-15           the reference server for comparisons; on Debian 12
#                           it also ships pgbench (in PostgreSQL's bindir,
#                           `pg_config --bindir`, wrapped by /usr/bin/pgbench
#                           from postgresql-client-common)
#   psycopg[binary]         Python client tests (pip)
#   sqlalchemy 2, django 5.2  the ORM tests (pip)
#   a JDK and maven         only if `java`/`mvn` are missing
#   the driver matrix (crates/server/tests/drivers.rs, tests/clients):
#     psycopg2-binary, asyncpg        pip
#     nodejs + npm                    apt, only if `node`/`npm` are missing;
#                                     then `npm ci` in tests/clients/node
#     Go >= 1.25                      must be on PATH (Debian 12's golang is
#                                     too old); `go mod download` in tests/clients/go
#     pgjdbc, HikariCP                `mvn package` in tests/clients/java
#                                     (Maven Central into ~/.m2)
#   Each step first checks, without the network, whether it is already done.
#
# With --build-only, only what building the server needs (libclang).
set -euo pipefail

build_only=false
[ "${1:-}" = "--build-only" ] && build_only=true

log() { printf 'install-deps: %s\n' "$*"; }

pkg_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

python_ok() { python3 -c 'import psycopg' >/dev/null 2>&1; }
sqlalchemy_ok() { python3 -c 'import sqlalchemy, sys; sys.exit(sqlalchemy.__version__ < "2")' >/dev/null 2>&1; }
django_ok() { python3 -c 'import django, sys; sys.exit(django.VERSION[:2] != (5, 2))' >/dev/null 2>&1; }
if $build_only; then
    want=(libclang-dev clang make)
else
    want=(libclang-dev clang make postgresql-client-15 postgresql-15 openssl)
    command -v java >/dev/null 2>&1 || want+=(default-jdk-headless)
    command -v mvn >/dev/null 2>&1 || want+=(maven)
    command -v node >/dev/null 2>&1 || want+=(nodejs)
    command -v npm >/dev/null 2>&1 || want+=(npm)
    if ! python_ok && ! python3 -m pip --version >/dev/null 2>&1; then
        want+=(python3-pip)
    fi
fi

missing=()
for p in "${want[@]}"; do
    pkg_installed "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        log "missing ${missing[*]}: run as root (apt-get install)" >&2
        exit 1
    fi
    log "installing with apt: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    log "apt packages already installed: ${want[*]}"
fi

if $build_only; then
    log "done (build dependencies)"
    exit 0
fi

if python_ok; then
    log "python3 psycopg already installed"
else
    log "installing with pip: psycopg[binary]"
    # Debian's own python3 is "externally managed" (PEP 668); a pyenv or
    # venv python is not. Try the plain install first.
    python3 -m pip install -q 'psycopg[binary]' ||
        python3 -m pip install -q --break-system-packages 'psycopg[binary]'
    python_ok || { log "psycopg still not importable" >&2; exit 1; }
fi
if sqlalchemy_ok; then
    log "python3 sqlalchemy 2 already installed"
else
    log "installing with pip: sqlalchemy 2"
    python3 -m pip install -q 'sqlalchemy>=2,<3' ||
        python3 -m pip install -q --break-system-packages 'sqlalchemy>=2,<3'
    sqlalchemy_ok || { log "sqlalchemy 2 still not importable" >&2; exit 1; }
fi
if django_ok; then
    log "python3 django 5.2 already installed"
else
    log "installing with pip: django 5.2"
    python3 -m pip install -q 'django>=5.2,<5.3' ||
        python3 -m pip install -q --break-system-packages 'django>=5.2,<5.3'
    django_ok || { log "django 5.2 still not importable" >&2; exit 1; }
fi

# The driver matrix (tests/clients, crates/server/tests/drivers.rs).
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="$root/tests/clients"
for mod in psycopg2:psycopg2-binary asyncpg:asyncpg; do
    import="${mod%%:*}" pkg="${mod#*:}"
    if python3 -c "import $import" >/dev/null 2>&1; then
        log "python3 $pkg already installed"
    else
        log "installing with pip: $pkg"
        python3 -m pip install -q "$pkg" ||
            python3 -m pip install -q --break-system-packages "$pkg"
        python3 -c "import $import" >/dev/null 2>&1 || { log "$pkg still not importable" >&2; exit 1; }
    fi
done
# npm ls checks node_modules against package.json without the network.
if (cd "$clients/node" && npm ls --all >/dev/null 2>&1); then
    log "tests/clients/node: node_modules already installed"
else
    log "tests/clients/node: npm ci"
    (cd "$clients/node" && npm ci --no-audit --no-fund --loglevel=error)
fi
# The Go toolchain's own installer puts it in /usr/local/go.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    export PATH="$PATH:/usr/local/go/bin"
fi
if ! command -v go >/dev/null 2>&1; then
    log "go is not on PATH: install Go >= 1.25 (https://go.dev/dl/) for tests/clients/go" >&2
    exit 1
fi
# With GOPROXY=off `go list` fails unless every module is in the module cache.
if (cd "$clients/go" && GOPROXY=off GOFLAGS=-mod=readonly go list -deps . >/dev/null 2>&1); then
    log "tests/clients/go: modules already downloaded"
else
    log "tests/clients/go: go mod download"
    (cd "$clients/go" && go mod download)
fi
# An offline build succeeds only when every plugin and jar is in ~/.m2.
if (cd "$clients/java" && mvn -q -o -B package >/dev/null 2>&1); then
    log "tests/clients/java: Maven artifacts already in ~/.m2"
else
    log "tests/clients/java: mvn package (fetches pgjdbc, HikariCP and the plugins)"
    (cd "$clients/java" && mvn -q -B package)
fi

# pgbench must be reachable by name (Debian's wrapper picks the newest
# installed version).
if ! command -v pgbench >/dev/null 2>&1; then
    log "pgbench not on PATH after install" >&2
    exit 1
fi
log "done"
