#!/usr/bin/env bash
# Print the subtrans-cliff pgbench script with N marks per transaction:
#
#   generate.sh N [savepoint|select1] > script.sql
#
# savepoint (default): the article's script: one transaction that sets N
#   nested "SAVEPOINT a", each followed by a SELECT over 101 rows and an
#   UPDATE of 4 rows of the client's own stripe (:client_id keeps up to 10
#   clients from updating each other's rows; they do read each other's).
# select1: the control: "SELECT 1" in place of each SAVEPOINT, so the same
#   number of statements and row changes, and no subtransactions.
#
# The committed savepoints-{60,90}.sql and select1-{60,90}.sql are this
# script's output (crates/server/tests/clients.rs checks that they match).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 N [savepoint|select1]" >&2
    exit 2
fi
n="$1"
case "${2:-savepoint}" in
    savepoint) mark='SAVEPOINT a;' ;;
    select1) mark='SELECT 1;' ;;
    *) echo "$0: mode must be savepoint or select1" >&2; exit 2 ;;
esac
printf '%s\n' \
    'BEGIN;' \
    'PREPARE sel(integer) AS SELECT count(*) FROM contend WHERE id BETWEEN $1 AND $1 + 100;' \
    'PREPARE upd(integer) AS UPDATE contend SET val = val + 1 WHERE id IN ($1, $1 + 10, $1 + 20, $1 + 30);'
for ((i = 0; i < n; i++)); do
    printf '%s\n' \
        "$mark" \
        '\set rnd random(1, 990)' \
        'EXECUTE sel(10 * :rnd + :client_id + 1);' \
        'EXECUTE upd(10 * :rnd + :client_id);'
done
printf '%s\n' 'DEALLOCATE ALL;' 'COMMIT;'
