//! SCRAM-SHA-256 server side (RFC 5802 / RFC 7677), as PostgreSQL speaks it
//! (no channel binding: we offer only `SCRAM-SHA-256`, never `-PLUS`).
//!
//! Why not pgwire's `ScramServerAuth`: in pgwire 0.42.1 it only compiles
//! with the `server-api` feature plus a TLS crypto backend (`ring` or
//! `aws-lc-rs`), which grows the dependency tree from ~20 to ~120 crates
//! (tokio-rustls, x509-certificate, postgres-types, serde_json, C builds)
//! for about a hundred lines of logic, and it compares client proofs as
//! strings, not in constant time. This module uses the RustCrypto crates
//! (`sha2`, `hmac`, `pbkdf2`) and `base64`, the same ones the client side
//! (postgres-protocol) uses.
//!
//! The server password is turned into a verifier once at start-up (random
//! salt, 4096 iterations like PostgreSQL's default); the password itself is
//! not kept. Passwords go through SASLprep like PostgreSQL's, falling back to
//! the raw bytes when SASLprep rejects them (libpq does the same).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use sha2::{Digest, Sha256};

pub(crate) use nestor_catalog::verifier::{hmac, Verifier, MECHANISM};

/// Why an exchange failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ScramError {
    /// The proof did not match: wrong password (28P01).
    BadProof,
    /// The client sent something that is not a valid SCRAM message (08P01).
    Malformed(&'static str),
}

/// State between server-first and client-final.
pub(crate) struct Exchange {
    gs2_header: String,
    client_first_bare: String,
    server_first: String,
    nonce: String,
}

fn printable_nonce(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b',')
}

/// Handle client-first-message; returns the server-first-message to send.
pub(crate) fn client_first(v: &Verifier, msg: &[u8]) -> Result<(Exchange, String), ScramError> {
    let msg = std::str::from_utf8(msg).map_err(|_| ScramError::Malformed("invalid UTF-8"))?;
    // gs2-header: cbind-flag "," [authzid] ","
    let mut parts = msg.splitn(3, ',');
    let flag = parts.next().unwrap_or("");
    let authzid = parts
        .next()
        .ok_or(ScramError::Malformed("missing gs2 header"))?;
    let bare = parts
        .next()
        .ok_or(ScramError::Malformed("missing gs2 header"))?;
    match flag {
        "n" | "y" => {}
        f if f.starts_with("p=") => {
            return Err(ScramError::Malformed(
                "channel binding is not supported by this server",
            ))
        }
        _ => return Err(ScramError::Malformed("unexpected channel-binding flag")),
    }
    if !authzid.is_empty() {
        return Err(ScramError::Malformed(
            "client uses authorization identity, but it is not supported",
        ));
    }
    // client-first-message-bare: [reserved-mext ","] "n=" user "," "r=" nonce ["," ext]
    let mut attrs = bare.split(',');
    let user = attrs.next().unwrap_or("");
    if user.starts_with("m=") {
        return Err(ScramError::Malformed("unsupported SCRAM extension"));
    }
    if !user.starts_with("n=") {
        return Err(ScramError::Malformed("expected attribute \"n\""));
    }
    // PostgreSQL ignores the SCRAM user name; the startup packet's counts.
    let client_nonce = attrs
        .next()
        .and_then(|a| a.strip_prefix("r="))
        .ok_or(ScramError::Malformed("expected attribute \"r\""))?;
    if !printable_nonce(client_nonce) {
        return Err(ScramError::Malformed("invalid nonce"));
    }
    let server_nonce: [u8; 18] = rand::random();
    let nonce = format!("{client_nonce}{}", B64.encode(server_nonce));
    let server_first = format!("r={nonce},s={},i={}", B64.encode(&v.salt), v.iterations);
    let gs2_header = format!("{flag},{authzid},");
    Ok((
        Exchange {
            gs2_header,
            client_first_bare: bare.to_owned(),
            server_first: server_first.clone(),
            nonce,
        },
        server_first,
    ))
}

/// Handle client-final-message; returns the server-final-message on success.
pub(crate) fn client_final(v: &Verifier, ex: &Exchange, msg: &[u8]) -> Result<String, ScramError> {
    let msg = std::str::from_utf8(msg).map_err(|_| ScramError::Malformed("invalid UTF-8"))?;
    let (without_proof, proof) = msg
        .rsplit_once(",p=")
        .ok_or(ScramError::Malformed("expected attribute \"p\""))?;
    let mut attrs = without_proof.split(',');
    let cbind = attrs
        .next()
        .and_then(|a| a.strip_prefix("c="))
        .ok_or(ScramError::Malformed("expected attribute \"c\""))?;
    let cbind = B64
        .decode(cbind)
        .map_err(|_| ScramError::Malformed("malformed channel binding"))?;
    if cbind != ex.gs2_header.as_bytes() {
        return Err(ScramError::Malformed("SCRAM channel binding check failed"));
    }
    let nonce = attrs
        .next()
        .and_then(|a| a.strip_prefix("r="))
        .ok_or(ScramError::Malformed("expected attribute \"r\""))?;
    if nonce != ex.nonce {
        return Err(ScramError::Malformed("nonce does not match"));
    }
    let proof = B64
        .decode(proof)
        .map_err(|_| ScramError::Malformed("malformed proof"))?;
    if proof.len() != 32 {
        return Err(ScramError::Malformed("malformed proof"));
    }
    let auth_message = format!(
        "{},{},{}",
        ex.client_first_bare, ex.server_first, without_proof
    );
    let client_signature = hmac(&v.stored_key, auth_message.as_bytes());
    let mut client_key = [0u8; 32];
    for i in 0..32 {
        client_key[i] = proof[i] ^ client_signature[i];
    }
    let computed: [u8; 32] = Sha256::digest(client_key).into();
    // Constant-time comparison.
    let diff = computed
        .iter()
        .zip(v.stored_key.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 {
        return Err(ScramError::BadProof);
    }
    let server_signature = hmac(&v.server_key, auth_message.as_bytes());
    Ok(format!("v={}", B64.encode(server_signature)))
}

/// The client side of SCRAM-SHA-256 (a replica logging in to its primary):
/// the client-first message, then the client-final message computed from
/// the server-first one, then a check of the server's signature.
pub(crate) struct Client {
    password: String,
    nonce: String,
    client_first_bare: String,
    server_signature: Option<[u8; 32]>,
}

impl Client {
    pub fn new(password: &str) -> Client {
        let nonce = B64.encode(rand::random::<[u8; 18]>());
        Client {
            password: password.to_string(),
            client_first_bare: format!("n=,r={nonce}"),
            nonce,
            server_signature: None,
        }
    }

    /// `n,,` (no channel binding) and the bare message.
    pub fn first(&self) -> String {
        format!("n,,{}", self.client_first_bare)
    }

    /// The client-final message for `server_first` (`r=...,s=...,i=...`).
    pub fn last(&mut self, server_first: &str) -> Result<String, String> {
        let mut nonce = None;
        let mut salt = None;
        let mut iterations = None;
        for part in server_first.split(',') {
            match part.split_once('=') {
                Some(("r", v)) => nonce = Some(v.to_string()),
                Some(("s", v)) => salt = B64.decode(v).ok(),
                Some(("i", v)) => iterations = v.parse::<u32>().ok(),
                _ => {}
            }
        }
        let (Some(nonce), Some(salt), Some(iterations)) = (nonce, salt, iterations) else {
            return Err("malformed SCRAM server-first message".into());
        };
        if !nonce.starts_with(&self.nonce) || !(1..=1_000_000).contains(&iterations) {
            return Err("invalid SCRAM server-first message".into());
        }
        let prepped = stringprep::saslprep(&self.password)
            .map(|c| c.into_owned())
            .unwrap_or_else(|_| self.password.clone());
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(prepped.as_bytes(), &salt, iterations, &mut salted);
        let client_key = hmac(&salted, b"Client Key");
        let stored_key: [u8; 32] = Sha256::digest(client_key).into();
        let server_key = hmac(&salted, b"Server Key");
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let signature = hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(signature.iter())
            .map(|(a, b)| a ^ b)
            .collect();
        self.server_signature = Some(hmac(&server_key, auth_message.as_bytes()));
        Ok(format!("{without_proof},p={}", B64.encode(proof)))
    }

    /// Check the server-final message (`v=...`): the server knew the
    /// password too.
    pub fn verify(&self, server_final: &str) -> Result<(), String> {
        let v = server_final
            .strip_prefix("v=")
            .and_then(|v| B64.decode(v).ok())
            .ok_or("malformed SCRAM server-final message")?;
        match self.server_signature {
            Some(sig) if sig[..] == v[..] => Ok(()),
            _ => Err("the server's SCRAM signature is wrong".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client computing the proof as RFC 5802 says.
    fn client_proof(password: &str, salt: &[u8], iters: u32, auth_message: &str) -> Vec<u8> {
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), salt, iters, &mut salted);
        let client_key = hmac(&salted, b"Client Key");
        let stored: [u8; 32] = Sha256::digest(client_key).into();
        let sig = hmac(&stored, auth_message.as_bytes());
        client_key
            .iter()
            .zip(sig.iter())
            .map(|(a, b)| a ^ b)
            .collect()
    }

    fn run(server_pw: &str, client_pw: &str) -> Result<String, ScramError> {
        let v = Verifier::with_salt(server_pw, &[7; 16], 4096);
        let first = "n,,n=,r=rOprNGfwEbeRWgbNEkqO";
        let (ex, server_first) = client_first(&v, first.as_bytes())?;
        let nonce = server_first
            .split(',')
            .next()
            .unwrap()
            .strip_prefix("r=")
            .unwrap();
        let without_proof = format!("c=biws,r={nonce}");
        let auth = format!("n=,r=rOprNGfwEbeRWgbNEkqO,{server_first},{without_proof}");
        let proof = client_proof(client_pw, &[7; 16], 4096, &auth);
        let fin = format!("{without_proof},p={}", B64.encode(proof));
        client_final(&v, &ex, fin.as_bytes())
    }

    #[test]
    fn right_and_wrong_password() {
        assert!(run("sekret", "sekret").unwrap().starts_with("v="));
        assert_eq!(run("sekret", "wrong"), Err(ScramError::BadProof));
    }

    #[test]
    fn rejects_malformed() {
        let v = Verifier::with_salt("pw", &[1; 16], 4096);
        for bad in [
            &b""[..],
            b"n",
            b"x,,n=,r=abc",
            b"p=tls-server-end-point,,n=,r=abc",
            b"n,a=bob,n=,r=abc",
            b"n,,r=abc",
            b"n,,n=,r=",
            b"\xff",
        ] {
            assert!(matches!(
                client_first(&v, bad),
                Err(ScramError::Malformed(_))
            ));
        }
        let (ex, _) = client_first(&v, b"n,,n=,r=abc").unwrap();
        for bad in [&b""[..], b"c=biws,r=abc,p=AAAA", b"c=eSws,r=x,p=AAAA"] {
            assert!(matches!(
                client_final(&v, &ex, bad),
                Err(ScramError::Malformed(_))
            ));
        }
    }

    #[test]
    fn the_client_side_logs_in_to_the_server_side() {
        let v = Verifier::new("s3cret");
        let mut c = Client::new("s3cret");
        let (ex, server_first) = client_first(&v, c.first().as_bytes())
            .unwrap_or_else(|_| panic!("client-first refused"));
        let last = c.last(&server_first).expect("server-first understood");
        let server_final =
            client_final(&v, &ex, last.as_bytes()).unwrap_or_else(|_| panic!("proof refused"));
        c.verify(&server_final).expect("server signature checks");
        let mut wrong = Client::new("wrong");
        let (ex, server_first) = client_first(&v, wrong.first().as_bytes())
            .unwrap_or_else(|_| panic!("client-first refused"));
        let last = wrong.last(&server_first).unwrap();
        assert!(client_final(&v, &ex, last.as_bytes()).is_err());
    }
}
