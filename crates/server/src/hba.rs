//! Client authentication rules: PostgreSQL's pg_hba.conf (`--hba-file
//! FILE`).
//!
//! Each line is `TYPE DATABASE USER ADDRESS METHOD`; the first line whose
//! type, database, user and address match a connection decides its
//! method; no matching line refuses it (FATAL 28000 "no pg_hba.conf entry
//! for host ..."). Without a file the rules are two lines, `local all all
//! trust` and `host all all all trust`, or `... scram-sha-256` when the
//! server has a `--password`.
//!
//! ```text
//!   # TYPE     DATABASE     USER      ADDRESS          METHOD
//!   hostssl    all          +admins   0.0.0.0/0        scram-sha-256
//!   host       all          all       127.0.0.1/32     trust
//!   host       replication  repl      10.0.0.0/8       scram-sha-256
//!   host       all          all       all              reject
//! ```
//!
//! TYPE: `local` (the Unix-domain socket: stream.rs), `host` (TCP, TLS or
//! not), `hostssl`, `hostnossl`. DATABASE: `all`,
//! `replication` (replication connections only; `all` does not match
//! them, as in PostgreSQL), `sameuser`, or names, comma-separated. USER:
//! `all`, names, `+role` (members of role). ADDRESS: `all`, `samehost`
//! (the loopback addresses here), an address with a CIDR mask, or an
//! address and a separate netmask column. METHOD: `trust`, `reject`,
//! `scram-sha-256`, and `md5`, which authenticates with SCRAM-SHA-256 as
//! PostgreSQL does for a role whose password is a SCRAM verifier (the only
//! kind Nestor keeps). Anything else is an error naming the line, at
//! start. Left out: `@file` includes, regular expressions, options after
//! the method, `ident`/`peer`/`ldap`/`cert` and the other methods.

use std::net::IpAddr;

/// How a matched connection authenticates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Trust,
    Reject,
    Scram,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnType {
    Host,
    HostSsl,
    HostNoSsl,
    Local,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Addr {
    All,
    Net(IpAddr, u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    line: usize,
    conn: ConnType,
    /// Empty: all.
    databases: Vec<String>,
    /// Empty: all; "+name" for members of a role.
    users: Vec<String>,
    addr: Addr,
    method: Method,
}

/// The rules, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hba {
    rules: Vec<Rule>,
}

/// One connection, as the rules see it.
pub struct Conn<'a> {
    /// None: over the Unix-domain socket.
    pub peer: Option<IpAddr>,
    pub tls: bool,
    pub database: &'a str,
    pub replication: bool,
    pub user: &'a str,
}

impl Hba {
    /// What applies without a file: trust, or SCRAM with a server password.
    pub fn default_rules(password: bool) -> Hba {
        let method = if password {
            Method::Scram
        } else {
            Method::Trust
        };
        let rule = |conn| Rule {
            line: 0,
            conn,
            databases: vec!["all".into(), "replication".into()],
            users: Vec::new(),
            addr: Addr::All,
            method,
        };
        Hba {
            rules: vec![rule(ConnType::Local), rule(ConnType::Host)],
        }
    }

    /// Parse a pg_hba.conf text; errors name the line.
    pub fn parse(text: &str) -> Result<Hba, String> {
        let mut rules = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("");
            let fields: Vec<&str> = content.split_whitespace().collect();
            if fields.is_empty() {
                continue;
            }
            rules.push(parse_line(line, &fields).map_err(|e| format!("line {line}: {e}"))?);
        }
        Ok(Hba { rules })
    }

    /// The method of the first matching line (and its number), or None.
    /// `member(user, role)`: whether user is a member of role.
    pub fn decide(
        &self,
        c: &Conn<'_>,
        member: &dyn Fn(&str, &str) -> bool,
    ) -> Option<(Method, usize)> {
        self.rules
            .iter()
            .find(|r| r.matches(c, member))
            .map(|r| (r.method, r.line))
    }

    /// Whether some rule trusts a connection from outside this machine
    /// (an address that is not loopback can match a `trust` line).
    pub fn trusts_remote(&self) -> bool {
        self.rules.iter().any(|r| {
            r.method == Method::Trust
                && r.conn != ConnType::Local
                && match r.addr {
                    Addr::All => true,
                    Addr::Net(ip, bits) => !(ip.is_loopback() && bits >= 8),
                }
        })
    }
}

fn parse_line(line: usize, f: &[&str]) -> Result<Rule, String> {
    let conn = match f[0] {
        "host" => ConnType::Host,
        "hostssl" => ConnType::HostSsl,
        "hostnossl" => ConnType::HostNoSsl,
        "local" => ConnType::Local,
        "hostgssenc" | "hostnogssenc" => {
            return Err(format!("connection type \"{}\" is not supported", f[0]))
        }
        other => return Err(format!("invalid connection type \"{other}\"")),
    };
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.trim_matches('"').to_string())
            .collect()
    };
    let (db, user) = match (f.get(1), f.get(2)) {
        (Some(d), Some(u)) => (list(d), list(u)),
        _ => return Err("end-of-line before database/user specification".into()),
    };
    for x in db.iter().chain(user.iter()) {
        if x.starts_with('@') || x.starts_with('/') {
            return Err(format!(
                "\"{x}\": file inclusion and regular expressions are not supported"
            ));
        }
    }
    let users = if user.iter().any(|u| u == "all") {
        Vec::new()
    } else {
        user
    };
    let (addr, rest) = if conn == ConnType::Local {
        (Addr::All, &f[3..])
    } else {
        let a = f
            .get(3)
            .ok_or("end-of-line before IP address specification")?;
        parse_addr(a, f.get(4).copied())?
            .map(|(addr, used)| (addr, &f[3 + used..]))
            .ok_or_else(|| format!("invalid IP address \"{a}\""))?
    };
    let method = match rest.first().copied() {
        Some("trust") => Method::Trust,
        Some("reject") => Method::Reject,
        Some("scram-sha-256" | "md5") => Method::Scram,
        Some(m) => return Err(format!("invalid authentication method \"{m}\"")),
        None => return Err("end-of-line before authentication method".into()),
    };
    if rest.len() > 1 {
        return Err(format!(
            "authentication options (\"{}\") are not supported",
            rest[1]
        ));
    }
    Ok(Rule {
        line,
        conn,
        databases: db,
        users,
        addr,
        method,
    })
}

/// An ADDRESS field (and the netmask field after it when the address has
/// no `/`): the address and how many fields it took.
fn parse_addr(a: &str, next: Option<&str>) -> Result<Option<(Addr, usize)>, String> {
    match a {
        "all" => return Ok(Some((Addr::All, 1))),
        "samehost" | "samenet" => {
            return Ok(Some((Addr::Net(IpAddr::from([127, 0, 0, 1]), 8), 1)));
        }
        _ => {}
    }
    if let Some((ip, bits)) = a.split_once('/') {
        let Ok(ip) = ip.parse::<IpAddr>() else {
            return Ok(None);
        };
        let max = if ip.is_ipv4() { 32 } else { 128 };
        let bits: u8 = bits
            .parse()
            .ok()
            .filter(|b| *b <= max)
            .ok_or_else(|| format!("invalid CIDR mask in address \"{a}\""))?;
        return Ok(Some((Addr::Net(ip, bits), 1)));
    }
    let Ok(ip) = a.parse::<IpAddr>() else {
        return Ok(None);
    };
    let mask: IpAddr = next
        .and_then(|m| m.parse().ok())
        .ok_or_else(|| format!("end-of-line before netmask specification for \"{a}\""))?;
    let bits = match mask {
        IpAddr::V4(m) => u32::from(m).leading_ones() as u8,
        IpAddr::V6(m) => u128::from(m).leading_ones() as u8,
    };
    Ok(Some((Addr::Net(ip, bits), 2)))
}

fn in_net(peer: IpAddr, net: IpAddr, bits: u8) -> bool {
    // An IPv4 client seen as ::ffff:a.b.c.d matches IPv4 lines.
    let peer = match peer {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(peer, IpAddr::V4),
        v4 => v4,
    };
    match (peer, net) {
        (IpAddr::V4(p), IpAddr::V4(n)) => {
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            };
            u32::from(p) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(p), IpAddr::V6(n)) => {
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - bits)
            };
            u128::from(p) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

impl Rule {
    fn matches(&self, c: &Conn<'_>, member: &dyn Fn(&str, &str) -> bool) -> bool {
        let conn_ok = match (self.conn, c.peer) {
            (ConnType::Local, None) => true,
            (ConnType::Local, Some(_)) | (_, None) => false,
            (ConnType::Host, Some(_)) => true,
            (ConnType::HostSsl, Some(_)) => c.tls,
            (ConnType::HostNoSsl, Some(_)) => !c.tls,
        };
        let db_ok = self.databases.iter().any(|d| match d.as_str() {
            "replication" => c.replication,
            _ if c.replication => false,
            "all" => true,
            "sameuser" => c.database == c.user,
            name => name == c.database,
        });
        let user_ok = self.users.is_empty()
            || self.users.iter().any(|u| match u.strip_prefix('+') {
                Some(role) => member(c.user, role),
                None => u == c.user,
            });
        let addr_ok = match (&self.addr, c.peer) {
            (Addr::All, _) => true,
            (Addr::Net(net, bits), Some(peer)) => in_net(peer, *net, *bits),
            (Addr::Net(..), None) => false,
        };
        conn_ok && db_ok && user_ok && addr_ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn<'a>(peer: &str, tls: bool, db: &'a str, user: &'a str) -> Conn<'a> {
        Conn {
            peer: Some(peer.parse().unwrap()),
            tls,
            database: db,
            replication: false,
            user,
        }
    }

    const FILE: &str = "\
# comment
hostssl    all          +admins   0.0.0.0/0        scram-sha-256
host       all          all       127.0.0.1/32     trust   # local trust
host       replication  repl      10.0.0.0 255.0.0.0  md5
host       app,sameuser alice     ::1/128          trust
host       all          all       all              reject
";

    #[test]
    fn first_matching_line_decides() {
        let hba = Hba::parse(FILE).unwrap();
        let member = |u: &str, r: &str| u == "bob" && r == "admins";
        let d = |c: Conn<'_>| hba.decide(&c, &member);
        assert_eq!(
            d(conn("10.1.2.3", true, "x", "bob")),
            Some((Method::Scram, 2))
        );
        assert_eq!(
            d(conn("10.1.2.3", false, "x", "bob")),
            Some((Method::Reject, 6))
        );
        assert_eq!(
            d(conn("127.0.0.1", false, "x", "eve")),
            Some((Method::Trust, 3))
        );
        assert_eq!(
            d(conn("::ffff:127.0.0.1", false, "x", "eve")),
            Some((Method::Trust, 3))
        );
        assert_eq!(
            d(conn("::1", false, "alice", "alice")),
            Some((Method::Trust, 5))
        );
        assert_eq!(
            d(conn("::1", false, "other", "alice")),
            Some((Method::Reject, 6))
        );
        let repl = Conn {
            replication: true,
            ..conn("10.9.9.9", false, "x", "repl")
        };
        assert_eq!(d(repl), Some((Method::Scram, 4)));
        assert!(!hba.trusts_remote());
        assert!(Hba::default_rules(false).trusts_remote());
        assert!(!Hba::default_rules(true).trusts_remote());
        let only_remote_reject = Hba::parse("host all all 10.0.0.0/8 trust").unwrap();
        assert_eq!(
            only_remote_reject.decide(&conn("127.0.0.1", false, "d", "u"), &member),
            None
        );
    }

    #[test]
    fn local_lines_match_the_unix_socket_only() {
        let hba = Hba::parse("local all all reject\nhost all all all trust\nlocal all all trust\n")
            .unwrap();
        let none = |_: &str, _: &str| false;
        let mut unix = conn("127.0.0.1", false, "db", "u");
        unix.peer = None;
        assert_eq!(hba.decide(&unix, &none), Some((Method::Reject, 1)));
        assert_eq!(
            hba.decide(&conn("127.0.0.1", false, "db", "u"), &none),
            Some((Method::Trust, 2))
        );
        let only_host = Hba::parse("host all all all trust\n").unwrap();
        assert_eq!(only_host.decide(&unix, &none), None);
        let default = Hba::default_rules(true);
        assert_eq!(default.decide(&unix, &none), Some((Method::Scram, 0)));
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line() {
        for (text, want) in [
            (
                "hosts all all all trust",
                "line 1: invalid connection type \"hosts\"",
            ),
            (
                "host all all",
                "line 1: end-of-line before IP address specification",
            ),
            (
                "host all all 10.0.0.300/8 trust",
                "line 1: invalid IP address \"10.0.0.300/8\"",
            ),
            (
                "host all all 10.0.0.0/40 trust",
                "line 1: invalid CIDR mask in address \"10.0.0.0/40\"",
            ),
            (
                "\nhost all all all ident",
                "line 2: invalid authentication method \"ident\"",
            ),
            (
                "host all all all",
                "line 1: end-of-line before authentication method",
            ),
            (
                "host all all all trust extra=1",
                "line 1: authentication options (\"extra=1\") are not supported",
            ),
            (
                "host @dbs all all trust",
                "line 1: \"@dbs\": file inclusion and regular expressions are not supported",
            ),
        ] {
            assert_eq!(Hba::parse(text).unwrap_err(), want, "{text}");
        }
    }
}
