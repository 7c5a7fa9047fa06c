#!/usr/bin/env bash
# Print the subtrans-cliff pgbench script with N marks per transaction:
#
#   generate.sh N [savepoint|select1] [prepare|plain] > script.sql
#
# savepoint (default): the article's script: one transaction that sets N
#   nested "SAVEPOINT a", each followed by a SELECT over 101 rows and an
#   UPDATE of 4 rows of the client's own stripe (:client_id keeps up to 10
#   clients from updating each other's rows; they do read each other's).
# select1: the control: "SELECT 1" in place of each SAVEPOINT, so the same
#   number of statements and row changes, and no subtransactions.
# prepare (default): the article's PREPARE/EXECUTE statements, for the simple
#   protocol. plain: the same statements written out with pgbench variables,
#   for `pgbench -M prepared` (Parse once, then Bind/Execute/Sync per
#   statement: the way drivers talk).
#
# The committed savepoints-{60,90}.sql and select1-{60,90}.sql are this
# script's output (crates/server/tests/clients.rs checks that they match).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 N [savepoint|select1] [prepare|plain]" >&2
    exit 2
fi
n="$1"
case "${2:-savepoint}" in
    savepoint) mark='SAVEPOINT a;' ;;
    select1) mark='SELECT 1;' ;;
    *) echo "$0: mode must be savepoint or select1" >&2; exit 2 ;;
esac
case "${3:-prepare}" in
    prepare)
        sel='EXECUTE sel(10 * :rnd + :client_id + 1);'
        upd='EXECUTE upd(10 * :rnd + :client_id);'
        printf '%s\n' \
            'BEGIN;' \
            'PREPARE sel(integer) AS SELECT count(*) FROM contend WHERE id BETWEEN $1 AND $1 + 100;' \
            'PREPARE upd(integer) AS UPDATE contend SET val = val + 1 WHERE id IN ($1, $1 + 10, $1 + 20, $1 + 30);'
        ;;
    plain)
        sel='SELECT count(*) FROM contend WHERE id BETWEEN :id + 1 AND :id + 101;'
        upd='UPDATE contend SET val = val + 1 WHERE id IN (:id, :id + 10, :id + 20, :id + 30);'
        printf '%s\n' 'BEGIN;'
        ;;
    *) echo "$0: form must be prepare or plain" >&2; exit 2 ;;
esac
for ((i = 0; i < n; i++)); do
    printf '%s\n' "$mark" '\set rnd random(1, 990)'
    if [ "${3:-prepare}" = plain ]; then
        printf '%s\n' '\set id 10 * :rnd + :client_id'
    fi
    printf '%s\n' "$sel" "$upd"
done
if [ "${3:-prepare}" = prepare ]; then
    printf '%s\n' 'DEALLOCATE ALL;'
fi
printf '%s\n' 'COMMIT;'
