//! Randomized value input for every type: text (`parse_text`, what a
//! literal, a text parameter or COPY goes through) and binary
//! (`parse_binary`, binary parameters) with random and mutated inputs —
//! valid representations with bytes flipped, cut, repeated or spliced with
//! tokens the parsers special-case. Never a panic; and whatever is
//! accepted prints, and reads back to the same value, in both formats.
//! `scripts/fuzz` runs it longer (NESTOR_FUZZ_ITERS, NESTOR_FUZZ_SEED).

use nestor_types::binary::parse_binary;
use nestor_types::context::EvalCtx;
use nestor_types::datatype::{DataType, NumericMod};
use nestor_types::datetime::TimeZone;
use nestor_types::text::parse_text;
use nestor_types::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn fuzz_params() -> (u64, u64) {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    (
        env("NESTOR_FUZZ_ITERS", 20_000),
        env("NESTOR_FUZZ_SEED", 11),
    )
}

/// Every type a value can be read as, with the typmods that change input.
fn types() -> Vec<DataType> {
    let numeric = |precision, scale| DataType::Numeric(Some(NumericMod { precision, scale }));
    vec![
        DataType::Bool,
        DataType::Int2,
        DataType::Int4,
        DataType::Int8,
        DataType::Oid,
        DataType::Float4,
        DataType::Float8,
        DataType::NUMERIC,
        numeric(3, 1),
        numeric(1000, 0),
        numeric(5, -2),
        DataType::Text,
        DataType::Varchar(None),
        DataType::Varchar(Some(3)),
        DataType::Char(None),
        DataType::Char(Some(2)),
        DataType::Name,
        DataType::Bytea,
        DataType::Date,
        DataType::Timestamp(None),
        DataType::TimestampTz(None),
        DataType::Interval(None),
        DataType::Time(None),
        DataType::Time(Some(2)),
        DataType::Uuid,
        DataType::Jsonb,
        DataType::Unknown,
        DataType::Void,
    ]
}

/// Valid (and nearly valid) text of the types, the mutations' seeds.
const SEEDS: &[&str] = &[
    "t",
    "false",
    " yes ",
    "0",
    "-32768",
    "2147483647",
    "-9223372036854775808",
    "4294967295",
    "1.5",
    "-0",
    "1e308",
    "-1.17549435e-38",
    "3.4028235e38",
    "NaN",
    "-Infinity",
    "inf",
    "12345678901234567890.12345678901234567890",
    "1e-16383",
    "9.99e131071",
    ".5",
    "5.",
    "+.e5",
    "abc",
    "\\x0aff",
    "\\001\\\\x",
    "2000-01-01",
    "294276-12-31 23:59:59.999999",
    "4714-11-24 BC",
    "5874897-12-31",
    "epoch",
    "infinity",
    "-infinity",
    "now",
    "today",
    "allballs",
    "2024-02-29 12:34:56.789+05:30",
    "1999-01-08 04:05:06 -8:00",
    "January 8, 99 BC",
    "J2451187",
    "19990108T040506",
    "1 year 2 mons 3 days 04:05:06.789",
    "-178956970 years -8 mons",
    "P1Y2M3DT4H5M6.5S",
    "@ 1 minute ago",
    "1 day -00:00:01",
    "2147483647 days 2562047788:00:54.775807",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "{a0eebc999c0b4ef8bb6d6bb9bd380a11}",
    "{\"a\": [1, 2.5e3, true, null, \"x\\u00e9\"], \"b\": {}}",
    "[[[[[[[[[[]]]]]]]]]]",
    "\"\\ud83d\\ude00\"",
    "-0.0e-0",
];

/// Tokens spliced in: signs, exponents, units, brackets, escapes.
const TOKENS: &[&str] = &[
    "-",
    "+",
    ".",
    "e",
    "E",
    "e-",
    "e99999",
    "0",
    "9",
    " ",
    ":",
    "/",
    "T",
    "Z",
    "+14",
    "-15:59",
    "BC",
    "AD",
    "ago",
    "years",
    "mon",
    "us",
    "ms",
    "infinity",
    "nan",
    "\\",
    "\\x",
    "\\u",
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    "é",
    "😀",
    "\u{0}",
    "\t",
    "99999999999999999999",
];

fn mutate(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..rng.gen_range(1..5) {
        let n = b.len();
        let i = rng.gen_range(0..=n);
        let j = rng.gen_range(i..=n.min(i + 8));
        match rng.gen_range(0..7) {
            0 if n > 0 => {
                let k = rng.gen_range(0..n);
                b[k] ^= 1 << rng.gen_range(0..8);
            }
            1 => {
                b.drain(i..j);
            }
            2 => {
                let dup = b[i..j].to_vec();
                b.splice(i..i, dup);
            }
            3 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                b.splice(i..i, t.iter().copied());
            }
            4 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())];
                let rep = t.repeat(rng.gen_range(2..100));
                b.splice(i..i, rep.bytes());
            }
            5 => b.truncate(i),
            _ => {
                let k = rng.gen_range(0..=b.len());
                b.insert(k, rng.gen());
            }
        }
    }
    b
}

/// Run one input function, naming the input if it panics.
fn guarded<T>(ty: DataType, input: &[u8], f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        panic!(
            "{ty:?} input {:?} ({input:02x?}) panicked",
            String::from_utf8_lossy(input)
        )
    })
}

/// Accepted input must print, and read back to the same value.
fn check_accepted(ty: DataType, v: &Value, ctx: &EvalCtx, input: &[u8]) {
    if matches!(ty, DataType::Unknown | DataType::Void) {
        return;
    }
    let text = v.to_text(ctx);
    let again = parse_text(ty, &text, ctx).unwrap_or_else(|e| {
        panic!("{ty:?}: {input:?} was accepted as {v:?}, printed {text:?}, which fails: {e}")
    });
    assert_eq!(
        again.to_text(ctx),
        text,
        "{ty:?}: printing {input:?} is not stable"
    );
    let bin = v.to_binary_as(ty);
    let back = parse_binary(ty, &bin)
        .unwrap_or_else(|e| panic!("{ty:?}: binary of {text:?} fails to read: {e}"));
    assert_eq!(
        back.to_text(ctx),
        text,
        "{ty:?}: binary round trip of {text:?}"
    );
}

#[test]
fn mutated_text_and_binary_values_never_panic() {
    let (iters, seed) = fuzz_params();
    eprintln!("value input fuzz: {iters} inputs per type, seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let types = types();
    let zones = [
        TimeZone::UTC,
        TimeZone::fixed(-8 * 3600),
        TimeZone::fixed(5 * 3600 + 1800),
    ];
    // Binary seeds: the binary form of whatever the text seeds are as
    // each type.
    let ctx0 = EvalCtx::new(TimeZone::UTC, 0);
    let mut binary_seeds: Vec<(DataType, Vec<u8>)> = Vec::new();
    for &ty in &types {
        for s in SEEDS {
            if let Ok(v) = parse_text(ty, s, &ctx0) {
                binary_seeds.push((ty, v.to_binary_as(ty)));
            }
        }
    }
    let (mut accepted, mut refused) = (0u64, 0u64);
    for _ in 0..iters {
        let ctx = EvalCtx::new(zones[rng.gen_range(0..zones.len())], 0);
        let ty = types[rng.gen_range(0..types.len())];
        // Text: a mutated seed or random bytes, as UTF-8 (the wire layer
        // refuses invalid UTF-8 before any input function).
        let raw = if rng.gen_bool(0.9) {
            let seed = SEEDS[rng.gen_range(0..SEEDS.len())];
            mutate(&mut rng, seed.as_bytes())
        } else {
            (0..rng.gen_range(0..32)).map(|_| rng.gen()).collect()
        };
        let text = String::from_utf8_lossy(&raw);
        match guarded(ty, text.as_bytes(), || parse_text(ty, &text, &ctx)) {
            Ok(v) => {
                accepted += 1;
                check_accepted(ty, &v, &ctx, text.as_bytes());
            }
            Err(_) => refused += 1,
        }
        // Binary: a mutated binary form of the same type, or random bytes.
        let pick = rng.gen_range(0..8);
        let seed = binary_seeds
            .iter()
            .filter(|(t, _)| *t == ty)
            .nth(pick)
            .map(|(_, b)| b.clone());
        let raw = match seed {
            Some(b) if rng.gen_bool(0.9) => mutate(&mut rng, &b),
            _ => (0..rng.gen_range(0..24)).map(|_| rng.gen()).collect(),
        };
        match guarded(ty, &raw, || parse_binary(ty, &raw)) {
            Ok(v) => {
                accepted += 1;
                check_accepted(ty, &v, &ctx, &raw);
            }
            Err(_) => refused += 1,
        }
    }
    eprintln!("value input fuzz: {accepted} accepted, {refused} refused");
}

/// Inputs the fuzzing found, each once wrong (see the commit log).
#[test]
fn inputs_found_by_fuzzing() {
    let ctx = EvalCtx::new(TimeZone::UTC, 0);
    // Years 294248..294277 passed the year check but their microseconds
    // overflowed an i64 (a panic in debug builds, a wrapped value in
    // release ones); PostgreSQL: 22008 timestamp out of range.
    for ty in [DataType::Timestamp(None), DataType::TimestampTz(None)] {
        let e = parse_text(ty, "294277-12-31 23:59:59.999999", &ctx).unwrap_err();
        assert_eq!(e.code.code(), "22008");
        assert_eq!(
            e.message,
            "timestamp out of range: \"294277-12-31 23:59:59.999999\""
        );
        assert!(parse_text(ty, "294247-01-01", &ctx).is_ok());
    }
    // Year 1 BC (year 0 inside) was refused, so a BC timestamp Nestor had
    // printed could not be read back; PostgreSQL 15 reads each of these.
    let text = |ty, s: &str| parse_text(ty, s, &ctx).map(|v| v.to_text(&ctx));
    assert_eq!(
        text(DataType::TimestampTz(None), "0001-12-31 17:00:00-08 BC").unwrap(),
        "0001-01-01 01:00:00+00"
    );
    assert_eq!(
        text(DataType::Date, "0001-12-31 BC").unwrap(),
        "0001-12-31 BC"
    );
    assert_eq!(
        text(DataType::Date, "0000-01-01").unwrap_err().code.code(),
        "22008"
    );
    // A first field of one or two digits is a month (DateStyle MDY), and
    // a one- or two-digit year is 1970..2069, whatever the separator.
    for (input, date) in [
        ("01-02-03", "2003-01-02"),
        ("01.02.03", "2003-01-02"),
        ("1/2/03", "2003-01-02"),
        ("12-31-99", "1999-12-31"),
        ("12-31-1999", "1999-12-31"),
        ("001-02-03", "0001-02-03"),
    ] {
        assert_eq!(text(DataType::Date, input).unwrap(), date, "{input}");
    }
    assert_eq!(
        text(DataType::Date, "99-02-03").unwrap_err().code.code(),
        "22008"
    );
    // A dash right after a date is no zone: "01-01-01-01" was read as
    // 0001-01-01 at UTC-1.
    let e = text(DataType::TimestampTz(None), "01-01-01-01").unwrap_err();
    assert_eq!(
        (e.code.code(), e.message.as_str()),
        (
            "22007",
            "invalid input syntax for type timestamp with time zone: \"01-01-01-01\""
        )
    );
    assert_eq!(
        text(DataType::TimestampTz(None), "2001-01-01+01").unwrap(),
        "2000-12-31 23:00:00+00"
    );
}
