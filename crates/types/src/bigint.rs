//! Unsigned arbitrary-precision integers for the numeric type.
//!
//! A magnitude is a little-endian `Vec<u32>` of base-10^9 limbs with no high
//! zero limbs (zero is the empty vector). Base 10^9 keeps decimal scaling
//! (multiplying by powers of ten, printing, parsing) cheap, which is what a
//! decimal type does most; multiplication is schoolbook and division is
//! Knuth's algorithm D, both quadratic, which is fine at PostgreSQL's sizes
//! (a few thousand digits). Nothing here can panic on valid magnitudes; the
//! divisor of [`divmod`] must be non-zero, which callers check first.

use std::cmp::Ordering;

pub(crate) const BASE: u64 = 1_000_000_000;
pub(crate) type Mag = Vec<u32>;

const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

pub(crate) fn trim(v: &mut Mag) {
    while v.last() == Some(&0) {
        v.pop();
    }
}

#[allow(dead_code)]
pub(crate) fn is_zero(v: &[u32]) -> bool {
    v.is_empty()
}

pub(crate) fn from_u128(mut x: u128) -> Mag {
    let mut v = Vec::new();
    while x > 0 {
        v.push((x % BASE as u128) as u32);
        x /= BASE as u128;
    }
    v
}

/// The value if it fits in a u128.
pub(crate) fn to_u128(v: &[u32]) -> Option<u128> {
    let mut acc: u128 = 0;
    for &limb in v.iter().rev() {
        acc = acc.checked_mul(BASE as u128)?.checked_add(limb as u128)?;
    }
    Some(acc)
}

pub(crate) fn cmp(a: &[u32], b: &[u32]) -> Ordering {
    if a.len() != b.len() {
        return a.len().cmp(&b.len());
    }
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return x.cmp(y);
        }
    }
    Ordering::Equal
}

pub(crate) fn add(a: &[u32], b: &[u32]) -> Mag {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(long.len() + 1);
    let mut carry = 0u64;
    for (i, &x) in long.iter().enumerate() {
        let s = x as u64 + short.get(i).copied().unwrap_or(0) as u64 + carry;
        out.push((s % BASE) as u32);
        carry = s / BASE;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    out
}

/// a - b; requires a >= b.
pub(crate) fn sub(a: &[u32], b: &[u32]) -> Mag {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &x) in a.iter().enumerate() {
        let mut d = x as i64 - b.get(i).copied().unwrap_or(0) as i64 - borrow;
        if d < 0 {
            d += BASE as i64;
            borrow = 1;
        } else {
            borrow = 0;
        }
        out.push(d as u32);
    }
    trim(&mut out);
    out
}

pub(crate) fn mul(a: &[u32], b: &[u32]) -> Mag {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (j, &y) in b.iter().enumerate() {
            let t = acc[i + j] + x as u64 * y as u64 + carry;
            acc[i + j] = t % BASE;
            carry = t / BASE;
        }
        let mut k = i + b.len();
        while carry > 0 && k < acc.len() {
            let t = acc[k] + carry;
            acc[k] = t % BASE;
            carry = t / BASE;
            k += 1;
        }
    }
    let mut out: Mag = acc.into_iter().map(|x| x as u32).collect();
    trim(&mut out);
    out
}

pub(crate) fn mul_small(a: &[u32], m: u32) -> Mag {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for &x in a {
        let t = x as u64 * m as u64 + carry;
        out.push((t % BASE) as u32);
        carry = t / BASE;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    trim(&mut out);
    out
}

/// (a / d, a % d) for a small non-zero divisor.
pub(crate) fn divmod_small(a: &[u32], d: u32) -> (Mag, u32) {
    let mut q = vec![0u32; a.len()];
    let mut rem = 0u64;
    for i in (0..a.len()).rev() {
        let cur = rem * BASE + a[i] as u64;
        q[i] = (cur / d as u64) as u32;
        rem = cur % d as u64;
    }
    trim(&mut q);
    (q, rem as u32)
}

/// a * 10^k.
pub(crate) fn mul_pow10(a: &[u32], k: u32) -> Mag {
    if a.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u32; (k / 9) as usize];
    out.extend_from_slice(a);
    let r = k % 9;
    if r == 0 {
        out
    } else {
        mul_small(&out, POW10[r as usize])
    }
}

pub(crate) fn pow10(k: u32) -> Mag {
    mul_pow10(&[1], k)
}

/// (a / 10^k, a % 10^k).
pub(crate) fn divmod_pow10(a: &[u32], k: u32) -> (Mag, Mag) {
    let limbs = (k / 9) as usize;
    if limbs >= a.len() {
        return (Vec::new(), a.to_vec());
    }
    let mut low: Mag = a[..limbs].to_vec();
    let high = &a[limbs..];
    let r = k % 9;
    let (q, rem) = if r == 0 {
        (high.to_vec(), 0)
    } else {
        divmod_small(high, POW10[r as usize])
    };
    if rem > 0 {
        low.push(rem);
    }
    trim(&mut low);
    (q, low)
}

/// (a / b, a % b) by Knuth's algorithm D; b must be non-zero.
pub(crate) fn divmod(a: &[u32], b: &[u32]) -> (Mag, Mag) {
    if b.is_empty() {
        return (Vec::new(), Vec::new());
    }
    if cmp(a, b) == Ordering::Less {
        return (Vec::new(), a.to_vec());
    }
    if b.len() == 1 {
        let (q, r) = divmod_small(a, b[0]);
        return (q, from_u128(r as u128));
    }
    let n = b.len();
    let m = a.len() - n;
    let d = (BASE / (b[n - 1] as u64 + 1)) as u32;
    let mut un = mul_small(a, d);
    un.resize(a.len() + 1, 0);
    let mut vn = mul_small(b, d);
    vn.resize(n, 0);
    let mut q = vec![0u32; m + 1];
    let base = BASE as u128;
    for j in (0..=m).rev() {
        let num = un[j + n] as u128 * base + un[j + n - 1] as u128;
        let top = vn[n - 1] as u128;
        let mut qhat = num / top;
        let mut rhat = num % top;
        while qhat >= base || qhat * vn[n - 2] as u128 > rhat * base + un[j + n - 2] as u128 {
            qhat -= 1;
            rhat += top;
            if rhat >= base {
                break;
            }
        }
        let mut borrow = 0i128;
        let mut carry = 0u128;
        for i in 0..n {
            let p = qhat * vn[i] as u128 + carry;
            carry = p / base;
            let mut t = un[i + j] as i128 - (p % base) as i128 - borrow;
            borrow = 0;
            if t < 0 {
                t += base as i128;
                borrow = 1;
            }
            un[i + j] = t as u32;
        }
        let t = un[j + n] as i128 - carry as i128 - borrow;
        if t < 0 {
            un[j + n] = (t + base as i128) as u32;
            qhat -= 1;
            let mut c = 0u64;
            for i in 0..n {
                let s = un[i + j] as u64 + vn[i] as u64 + c;
                un[i + j] = (s % BASE) as u32;
                c = s / BASE;
            }
            un[j + n] = ((un[j + n] as u64 + c) % BASE) as u32;
        } else {
            un[j + n] = t as u32;
        }
        q[j] = qhat as u32;
    }
    trim(&mut q);
    un.truncate(n);
    trim(&mut un);
    let (r, _) = divmod_small(&un, d);
    (q, r)
}

/// Floor of the square root, by Newton's iteration.
pub(crate) fn isqrt(a: &[u32]) -> Mag {
    if a.is_empty() {
        return Vec::new();
    }
    // Start above the root: 10^(ceil(digits/2)).
    let digits = decimal_len(a);
    let mut x = pow10(digits.div_ceil(2));
    loop {
        let (q, _) = divmod(a, &x);
        let (y, _) = divmod_small(&add(&x, &q), 2);
        if cmp(&y, &x) != Ordering::Less {
            return x;
        }
        x = y;
    }
}

/// Number of decimal digits (0 for zero).
pub(crate) fn decimal_len(a: &[u32]) -> u32 {
    match a.last() {
        None => 0,
        Some(&top) => {
            let mut d = 1;
            while d < 10 && top >= POW10[d as usize] {
                d += 1;
            }
            (a.len() as u32 - 1) * 9 + d
        }
    }
}

pub(crate) fn to_decimal(a: &[u32]) -> String {
    let mut s = String::with_capacity(a.len() * 9);
    match a.split_last() {
        None => s.push('0'),
        Some((top, rest)) => {
            s.push_str(&top.to_string());
            for limb in rest.iter().rev() {
                s.push_str(&format!("{limb:09}"));
            }
        }
    }
    s
}

/// Parses a string of ASCII digits (the caller has validated them).
pub(crate) fn from_decimal(digits: &[u8]) -> Mag {
    let mut out = Vec::with_capacity(digits.len() / 9 + 1);
    let mut end = digits.len();
    while end > 0 {
        let start = end.saturating_sub(9);
        let mut limb = 0u32;
        for &c in &digits[start..end] {
            limb = limb * 10 + (c - b'0') as u32;
        }
        out.push(limb);
        end = start;
    }
    trim(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divmod_matches_u128() {
        let cases: [(u128, u128); 6] = [
            (123456789012345678901234567890, 987654321987),
            (u128::MAX, 1_000_000_007),
            (u128::MAX, 18_446_744_073_709_551_557),
            (10u128.pow(30), 10u128.pow(15) + 1),
            (999_999_999_999_999_999, 999_999_999_999),
            (5, 7),
        ];
        for (a, b) in cases {
            let (q, r) = divmod(&from_u128(a), &from_u128(b));
            assert_eq!(to_u128(&q), Some(a / b), "{a}/{b}");
            assert_eq!(to_u128(&r), Some(a % b), "{a}%{b}");
        }
    }

    #[test]
    fn decimal_round_trip_and_sqrt() {
        let s = "1234567890123456789012345678901234567890";
        assert_eq!(to_decimal(&from_decimal(s.as_bytes())), s);
        assert_eq!(decimal_len(&from_decimal(s.as_bytes())), 40);
        assert_eq!(to_decimal(&isqrt(&pow10(40))), "100000000000000000000");
        assert_eq!(to_u128(&isqrt(&from_u128(99))), Some(9));
        let (q, r) = divmod_pow10(&from_decimal(s.as_bytes()), 12);
        assert_eq!(to_decimal(&q), "1234567890123456789012345678");
        assert_eq!(to_decimal(&r), "901234567890");
    }
}
