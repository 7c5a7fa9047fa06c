//! Sizes as operators write them: `65536`, `64kB`, `8MB`, `1GB`, `1TB`
//! (PostgreSQL's memory units: multiples of 1,024; the unit is
//! case-sensitive as in postgresql.conf, `B` is bytes).

/// Parse a size in bytes. Errors name what was wrong.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = (&t[..split], t[split..].trim());
    if digits.is_empty() {
        return Err(format!("invalid size \"{text}\": expected a number of bytes, optionally with a unit (B, kB, MB, GB, TB)"));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("invalid size \"{text}\": number out of range"))?;
    let scale: u64 = match unit {
        "" | "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        other => {
            return Err(format!(
                "invalid size \"{text}\": unknown unit \"{other}\" (valid units are B, kB, MB, GB and TB)"
            ))
        }
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("invalid size \"{text}\": out of range"))
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_parse_with_postgres_memory_units() {
        assert_eq!(parse_bytes("65536"), Ok(65536));
        assert_eq!(parse_bytes("64kB"), Ok(64 << 10));
        assert_eq!(parse_bytes("8MB"), Ok(8 << 20));
        assert_eq!(parse_bytes(" 2 GB "), Ok(2 << 30));
        assert_eq!(parse_bytes("1TB"), Ok(1 << 40));
        assert_eq!(parse_bytes("7B"), Ok(7));
        for bad in [
            "",
            "MB",
            "8mb",
            "8 XB",
            "-1",
            "1.5GB",
            "99999999999999999999",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad:?} parsed");
        }
        assert!(parse_bytes("20000000TB")
            .unwrap_err()
            .contains("out of range"));
    }
}
