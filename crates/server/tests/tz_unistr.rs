//! Time zone abbreviations (PostgreSQL's `Default` set: fixed ones,
//! dynamic ones resolved through their zone's history, the
//! `pg_timezone_abbrevs` view), `unistr`, `U&'...' UESCAPE` literals and
//! `string_to_table`, through the wire.

mod common;

use common::*;

#[test]
fn timestamptz_input_and_at_time_zone_read_abbreviations() {
    let srv = Server::start();
    let q = |sql: &str| ok(&srv, &format!("SET TimeZone = 'UTC'; {sql}"));
    assert_eq!(
        q("SELECT '2024-01-15 12:00 PST'::timestamptz, '2024-07-15 12:00 cest'::timestamptz, '2024-01-15 12:00 AEST'::timestamptz"),
        "2024-01-15 20:00:00+00|2024-07-15 10:00:00+00|2024-01-15 02:00:00+00"
    );
    // MSK means +04 between 2011 and 2014 (Europe/Moscow's history).
    assert_eq!(
        q("SELECT '2012-01-15 12:00 MSK'::timestamptz, '2024-01-15 12:00 MSK'::timestamptz"),
        "2012-01-15 08:00:00+00|2024-01-15 09:00:00+00"
    );
    assert_eq!(
        q("SELECT '2024-01-15 12:00 UTC'::timestamptz AT TIME ZONE 'PST', '2012-01-15 12:00'::timestamp AT TIME ZONE 'MSK'"),
        "2024-01-15 04:00:00|2012-01-15 08:00:00+00"
    );
    // A named zone follows its history: 1997's DST began on April 6.
    assert_eq!(
        ok(
            &srv,
            "SET TimeZone = 'America/New_York'; SELECT '1997-04-06 12:00 UTC'::timestamptz, '1997-03-20 12:00 UTC'::timestamptz, '1997-07-10 17:32:01 Europe/Moscow'::timestamptz"
        ),
        "1997-04-06 08:00:00-04|1997-03-20 07:00:00-05|1997-07-10 09:32:01-04"
    );
    let e = err(&srv, "SELECT now() AT TIME ZONE 'NOSUCH'");
    assert!(
        e.starts_with("ERROR:  time zone \"NOSUCH\" not recognized"),
        "{e}"
    );
    assert_eq!(
        ok(
            &srv,
            "SELECT abbrev, utc_offset, is_dst FROM pg_timezone_abbrevs WHERE abbrev IN ('PDT', 'MSK', 'NST') ORDER BY abbrev"
        ),
        "MSK|03:00:00|f\nNST|-03:30:00|f\nPDT|-07:00:00|t"
    );
}

#[test]
fn unistr_uescape_and_string_to_table() {
    let srv = Server::start();
    assert_eq!(
        ok(
            &srv,
            r"SELECT unistr('d\0061t\+000061 \u00e9\U0001F600\\'), U&'d!0061t' UESCAPE '!'"
        ),
        "data é😀\\|dat"
    );
    let e = err(&srv, r"SELECT unistr('wrong: \xyz')");
    assert!(e.starts_with("ERROR:  invalid Unicode escape"), "{e}");
    let e = err(&srv, r"SELECT unistr('\D800')");
    assert!(
        e.starts_with("ERROR:  invalid Unicode surrogate pair"),
        "{e}"
    );
    assert_eq!(
        ok(
            &srv,
            "SELECT string_to_table('a,b,,c', ',', '') IS NULL, string_to_table('a,b,,c', ',')"
        ),
        "f|a\nf|b\nt|\nf|c"
    );
    assert_eq!(
        ok(
            &srv,
            "SELECT n, s FROM string_to_table('x y', NULL) WITH ORDINALITY AS t(s, n)"
        ),
        "1|x\n2| \n3|y"
    );
    assert_eq!(
        ok(&srv, "SELECT count(*) FROM string_to_table(NULL, ',')"),
        "0"
    );
}
