//! Randomized text and binary round trips, one seeded generator per type:
//! `parse(print(v)) == v` for text and binary I/O, and printing is stable
//! (`print(parse(print(v))) == print(v)`).

use std::sync::Arc;

use nestor_types::binary::parse_binary;
use nestor_types::context::EvalCtx;
use nestor_types::datatype::{DataType, NumericMod};
use nestor_types::datetime::{Interval, TimeZone, DATE_NOBEGIN, DATE_NOEND, TS_NOBEGIN, TS_NOEND};
use nestor_types::text::parse_text;
use nestor_types::{Numeric, Value};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const N: usize = 2000;

fn check(ty: DataType, v: &Value, ctx: &EvalCtx) {
    let text = v.to_text(ctx);
    let back = parse_text(ty, &text, ctx).unwrap_or_else(|e| panic!("{ty:?} {text:?}: {e}"));
    assert_eq!(&back, v, "{ty:?} text {text:?}");
    assert_eq!(back.to_text(ctx), text, "{ty:?} stable text");
    let bin = v.to_binary_as(ty);
    let back = parse_binary(ty, &bin).unwrap_or_else(|e| panic!("{ty:?} binary of {text:?}: {e}"));
    assert_eq!(&back, v, "{ty:?} binary {text:?}");
    assert_eq!(back.to_text(ctx), text, "{ty:?} binary keeps text");
}

fn run(seed: u64, ty: DataType, mut gen: impl FnMut(&mut StdRng) -> Value) {
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..N {
        let offset = rng.gen_range(-15 * 3600..=15 * 3600);
        let ctx = EvalCtx::new(TimeZone::fixed(offset), 0);
        let v = gen(&mut rng);
        check(ty, &v, &ctx);
    }
}

#[test]
fn bool_and_integers() {
    run(1, DataType::Bool, |r| Value::Bool(r.gen()));
    run(2, DataType::Int2, |r| Value::Int2(r.gen()));
    run(3, DataType::Int4, |r| Value::Int4(r.gen()));
    run(4, DataType::Int8, |r| Value::Int8(r.gen()));
    run(5, DataType::Oid, |r| Value::Int8(r.gen::<u32>() as i64));
}

#[test]
fn floats() {
    run(6, DataType::Float8, |r| {
        let f = f64::from_bits(r.gen());
        Value::Float8(if r.gen_bool(0.5) {
            f
        } else {
            r.gen_range(-1e6..1e6)
        })
    });
    run(7, DataType::Float4, |r| {
        let f = f32::from_bits(r.gen());
        Value::Float4(if r.gen_bool(0.5) {
            f
        } else {
            r.gen_range(-1e3..1e3)
        })
    });
}

fn random_numeric(r: &mut StdRng) -> Numeric {
    match r.gen_range(0..20) {
        0 => return Numeric::nan(),
        1 => return Numeric::infinity(r.gen()),
        _ => {}
    }
    let int_len = if r.gen_bool(0.1) {
        r.gen_range(0..300)
    } else {
        r.gen_range(0..12)
    };
    let frac_len = if r.gen_bool(0.1) {
        r.gen_range(0..300)
    } else {
        r.gen_range(0..8)
    };
    let digits = |r: &mut StdRng, n: usize| -> String {
        (0..n)
            .map(|_| char::from(b'0' + r.gen_range(0..10)))
            .collect()
    };
    let mut s = String::new();
    if r.gen() {
        s.push('-');
    }
    s.push_str(&digits(r, int_len.max(1)));
    if frac_len > 0 {
        s.push('.');
        s.push_str(&digits(r, frac_len));
    }
    Numeric::parse(&s).unwrap()
}

#[test]
fn numerics() {
    run(8, DataType::NUMERIC, |r| Value::Numeric(random_numeric(r)));
    let ty = DataType::Numeric(Some(NumericMod {
        precision: 12,
        scale: 4,
    }));
    run(9, ty, |r| {
        let n = Numeric::from_i64(r.gen_range(-99_999_999_999..99_999_999_999));
        let n = n.div(&Numeric::from_i64(10_000)).unwrap().round(4).unwrap();
        Value::Numeric(n.apply_typmod(12, 4).unwrap())
    });
}

fn random_string(r: &mut StdRng, max: usize) -> String {
    let len = r.gen_range(0..max);
    (0..len)
        .map(|_| match r.gen_range(0..4) {
            0 => char::from(r.gen_range(1u8..128)),
            1 => r.gen_range('\u{80}'..'\u{800}'),
            2 => r.gen_range('\u{800}'..'\u{D7FF}'),
            _ => r.gen_range('\u{10000}'..'\u{10FFFF}'),
        })
        .collect()
}

#[test]
fn strings_and_bytes() {
    run(10, DataType::Text, |r| {
        Value::Text(Arc::from(random_string(r, 40)))
    });
    run(11, DataType::Varchar(Some(10)), |r| {
        Value::Text(Arc::from(random_string(r, 10).trim_end_matches(' ')))
    });
    run(12, DataType::Char(Some(8)), |r| {
        let s: String = random_string(r, 8);
        let n = s.chars().count();
        Value::Text(Arc::from(format!("{s}{}", " ".repeat(8 - n))))
    });
    run(13, DataType::Bytea, |r| {
        let len = r.gen_range(0..64);
        Value::Bytea((0..len).map(|_| r.gen()).collect::<Vec<u8>>().into())
    });
    run(14, DataType::Uuid, |r| Value::Uuid(r.gen()));
    run(22, DataType::VarBit(None), random_bits);
    run(23, DataType::Bit(Some(13)), |r| {
        let bits: String = (0..13).map(|_| if r.gen() { '1' } else { '0' }).collect();
        nestor_types::bits::parse(&bits).unwrap().value()
    });
}

fn random_bits(r: &mut StdRng) -> Value {
    let len = r.gen_range(0..40);
    let bits: String = (0..len).map(|_| if r.gen() { '1' } else { '0' }).collect();
    nestor_types::bits::parse(&bits).unwrap().value()
}

#[test]
fn dates_and_times() {
    // 4714-11-24 BC .. 5874897-12-31 in days since 2000-01-01
    run(15, DataType::Date, |r| match r.gen_range(0..50) {
        0 => Value::Date(DATE_NOBEGIN),
        1 => Value::Date(DATE_NOEND),
        _ => Value::Date(r.gen_range(-2_451_545..=2_145_031_948)),
    });
    let ts = |r: &mut StdRng| match r.gen_range(0..50) {
        0 => TS_NOBEGIN,
        1 => TS_NOEND,
        2 => r.gen_range(-211_813_488_000_000_000..9_223_371_331_200_000_000),
        _ => r.gen_range(-3_000_000_000_000_000..3_000_000_000_000_000),
    };
    run(16, DataType::Timestamp(None), move |r| {
        Value::Timestamp(ts(r))
    });
    run(17, DataType::TimestampTz(None), move |r| {
        let t = ts(r);
        // keep clear of the range ends so the local time is printable
        let t = if t != TS_NOBEGIN && t != TS_NOEND {
            t.clamp(-211_813_400_000_000_000, 9_223_371_331_000_000_000)
        } else {
            t
        };
        Value::TimestampTz(t)
    });
    run(18, DataType::Interval(None), |r| {
        let small = r.gen_bool(0.7);
        Value::Interval(if small {
            Interval::new(
                r.gen_range(-500..500),
                r.gen_range(-500..500),
                r.gen_range(-10i64.pow(12)..10i64.pow(12)),
            )
        } else {
            Interval::new(r.gen(), r.gen(), r.gen())
        })
    });
    run(19, DataType::Time(None), |r| {
        Value::Time(r.gen_range(0..=86_400_000_000))
    });
    run(20, DataType::TimeTz(None), |r| {
        Value::TimeTz(r.gen_range(0..=86_400_000_000), r.gen_range(-57599..=57599))
    });
    run(21, DataType::Money, |r| Value::Money(r.gen()));
}

fn random_json(r: &mut StdRng, depth: u32) -> String {
    let pick = if depth > 3 {
        r.gen_range(0..4)
    } else {
        r.gen_range(0..6)
    };
    match pick {
        0 => "null".into(),
        1 => if r.gen() { "true" } else { "false" }.into(),
        2 => format!("{}", r.gen_range(-1e6..1e6)),
        3 => {
            let mut s = String::new();
            nestor_types::json::write_json_string(&mut s, &random_string(r, 8));
            s
        }
        4 => {
            let n = r.gen_range(0..4);
            let items: Vec<String> = (0..n).map(|_| random_json(r, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            let n = r.gen_range(0..4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let mut k = String::new();
                    nestor_types::json::write_json_string(&mut k, &random_string(r, 4));
                    format!("{k}:{}", random_json(r, depth + 1))
                })
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

#[test]
fn jsonb() {
    run(19, DataType::Jsonb, |r| {
        let raw = random_json(r, 0);
        Value::Jsonb(Arc::from(
            nestor_types::json::normalize_jsonb(&raw).unwrap(),
        ))
    });
}

#[test]
fn garbage_never_panics() {
    let types = [
        DataType::Bool,
        DataType::Int2,
        DataType::Int4,
        DataType::Int8,
        DataType::Oid,
        DataType::Float4,
        DataType::Float8,
        DataType::NUMERIC,
        DataType::Numeric(Some(NumericMod {
            precision: 3,
            scale: 1,
        })),
        DataType::Text,
        DataType::Varchar(Some(3)),
        DataType::Char(Some(2)),
        DataType::Name,
        DataType::Bytea,
        DataType::Date,
        DataType::Timestamp(None),
        DataType::TimestampTz(None),
        DataType::Interval(None),
        DataType::TimeTz(None),
        DataType::Money,
        DataType::Uuid,
        DataType::Jsonb,
        DataType::Bit(Some(4)),
        DataType::VarBit(Some(9)),
        DataType::VarBit(None),
    ];
    let mut r = StdRng::seed_from_u64(20);
    let ctx = EvalCtx::new(TimeZone::UTC, 0);
    let alphabet: Vec<char> = "0123456789-+.:eE ,/tTzZ@{}[]\"\\xXabcdefnNiIyYpP\u{e9}\u{1F600}"
        .chars()
        .collect();
    for _ in 0..20_000 {
        let len = r.gen_range(0..24);
        let s: String = (0..len)
            .map(|_| alphabet[r.gen_range(0..alphabet.len())])
            .collect();
        let bytes: Vec<u8> = (0..r.gen_range(0..24)).map(|_| r.gen()).collect();
        for ty in types {
            let _ = parse_text(ty, &s, &ctx);
            let _ = parse_binary(ty, &bytes);
        }
    }
}

fn random_value(r: &mut StdRng) -> Value {
    match r.gen_range(0..16) {
        0 => Value::Null,
        1 => Value::Bool(r.gen()),
        2 => Value::Int2(r.gen()),
        3 => Value::Int4(if r.gen() { r.gen() } else { r.gen_range(-5..5) }),
        4 => Value::Int8(if r.gen() { r.gen() } else { r.gen_range(-5..5) }),
        5 => Value::Float4(f32::from_bits(r.gen())),
        6 => Value::Float8(if r.gen() {
            f64::from_bits(r.gen())
        } else {
            r.gen_range(-10.0..10.0)
        }),
        7 if r.gen_bool(0.2) => Value::Numeric(random_numeric(r)),
        7 => Value::Numeric(Numeric::from_f64(r.gen_range(-1e6..1e6), 12)),
        8 => Value::Text(Arc::from(random_string(r, 12))),
        9 => Value::Bytea(
            (0..r.gen_range(0..8))
                .map(|_| r.gen())
                .collect::<Vec<u8>>()
                .into(),
        ),
        10 => Value::Date(if r.gen() {
            r.gen()
        } else {
            r.gen_range(-10000..10000)
        }),
        11 => Value::Timestamp(r.gen()),
        12 => Value::TimestampTz(r.gen()),
        13 => Value::Uuid(r.gen()),
        14 => Value::Jsonb(Arc::from("{\"a\": 1}")),
        15 if r.gen_bool(0.3) => random_bits(r),
        _ => Value::Interval(Interval::new(r.gen(), r.gen(), r.gen())),
    }
}

#[test]
fn operators_functions_and_casts_never_panic() {
    use nestor_types::cast::cast;
    use nestor_types::functions::call_scalar_ctx;
    use nestor_types::ops::{abs, binary_op, negate, BinaryOp};
    let ops = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Mod,
        BinaryOp::Pow,
        BinaryOp::Concat,
        BinaryOp::Eq,
        BinaryOp::Lt,
        BinaryOp::Like,
        BinaryOp::ILike,
    ];
    let fns = [
        "abs",
        "round",
        "trunc",
        "floor",
        "ceil",
        "mod",
        "power",
        "sqrt",
        "sign",
        "length",
        "octet_length",
        "lower",
        "upper",
        "substr",
        "position",
        "strpos",
        "concat",
        "concat_ws",
        "replace",
        "btrim",
        "ltrim",
        "rtrim",
        "lpad",
        "rpad",
        "left",
        "right",
        "repeat",
        "reverse",
        "split_part",
        "md5",
        "coalesce",
        "nullif",
        "greatest",
        "least",
        "bit_length",
        "substring",
        "overlay",
        "get_bit",
        "set_bit",
        "bit_count",
        "bitand",
        "bitxor",
        "bitnot",
        "bitshiftleft",
        "bitcat",
    ];
    let types = [
        DataType::Bool,
        DataType::Int2,
        DataType::Int4,
        DataType::Int8,
        DataType::Oid,
        DataType::Float4,
        DataType::Float8,
        DataType::NUMERIC,
        DataType::Numeric(Some(NumericMod {
            precision: 4,
            scale: -2,
        })),
        DataType::Text,
        DataType::Varchar(Some(2)),
        DataType::Char(Some(3)),
        DataType::Bytea,
        DataType::Date,
        DataType::Timestamp(None),
        DataType::TimestampTz(None),
        DataType::Interval(None),
        DataType::Uuid,
        DataType::Jsonb,
        DataType::Bit(Some(3)),
        DataType::VarBit(None),
    ];
    let mut r = StdRng::seed_from_u64(21);
    let ctx = EvalCtx::new(TimeZone::fixed(-3600), 0);
    for _ in 0..30_000 {
        let (a, b, c) = (
            random_value(&mut r),
            random_value(&mut r),
            random_value(&mut r),
        );
        for op in ops {
            // Huge legitimate powers (12345 ^ 17692) are merely slow.
            if op == BinaryOp::Pow && b.to_text(&ctx).len() > 3 {
                continue;
            }
            let _ = binary_op(op, &a, &b, &ctx);
        }
        let _ = negate(&a);
        let _ = abs(&a);
        let _ = a.to_text(&ctx);
        let name = fns[r.gen_range(0..fns.len())];
        if name == "power" && b.to_text(&ctx).len() > 3 {
            continue;
        }
        let args = [a.clone(), b.clone(), c.clone()];
        let n = r.gen_range(0..=3);
        let _ = call_scalar_ctx(name, &args[..n], &ctx);
        let ty = types[r.gen_range(0..types.len())];
        let _ = cast(&a, ty, r.gen(), &ctx);
    }
}
