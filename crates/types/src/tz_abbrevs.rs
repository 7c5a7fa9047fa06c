//! Time zone abbreviations: PostgreSQL's default `timezone_abbreviations`
//! set (`Default`, its `src/timezone/tznames/Default` file), as timestamp
//! input (`'2024-01-02 03:04 PST'`), `AT TIME ZONE 'CET'`, `date_trunc`'s
//! and `make_timestamptz`'s zone argument and the `pg_timezone_abbrevs`
//! view read them.
//!
//! Most abbreviations are a fixed offset (`PST` is -08:00 standard time,
//! `PDT` -07:00 daylight time). Some are *dynamic*: they name a zone of
//! the tz database whose meaning of the abbreviation changed over time
//! (`MSK` is `Europe/Moscow`'s: +03 before 2011, +04 until 2014, +03
//! since). As PostgreSQL's `pg_interpret_timezone_abbrev` does, a dynamic
//! abbreviation means what the zone's last period using it before the
//! instant meant (else its first one after); the periods are read from the
//! zone's TZif file (`/usr/share/zoneinfo`, its 64-bit data block and its
//! POSIX footer), cached per zone. An abbreviation the zone never used
//! falls back to the zone's own offset at that instant.
//!
//! ```text
//!   '2011-03-27 04:00 MSK'::timestamptz   MSK meant +04 then (Europe/Moscow)
//!   '2024-07-01 12:00 CEST'::timestamptz  fixed +02
//! ```
//!
//! The same history answers for a zone named in timestamp input
//! (`'1997-07-10 17:32 America/New_York'`): [`zone_offset_for_local`].
//!
//! Names are matched case-insensitively; the table is sorted by name, which
//! is also the view's order. Left out: choosing another abbreviation set
//! (`SET timezone_abbreviations`) and the set files' @INCLUDE/@OVERRIDE.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::datetime::{TimeZone, UNIX_EPOCH_USECS};

/// What an abbreviation stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Seconds east of UTC, and whether it is a daylight-saving time.
    Fixed { offset: i32, dst: bool },
    /// The tz database zone whose history gives its meaning.
    Dynamic(&'static str),
}

/// The `Default` set, sorted by name.
pub const ABBREVS: &[(&str, Kind)] = &[
    (
        "ACDT",
        Kind::Fixed {
            offset: 37800,
            dst: true,
        },
    ),
    (
        "ACSST",
        Kind::Fixed {
            offset: 37800,
            dst: true,
        },
    ),
    (
        "ACST",
        Kind::Fixed {
            offset: 34200,
            dst: false,
        },
    ),
    (
        "ACT",
        Kind::Fixed {
            offset: -18000,
            dst: false,
        },
    ),
    (
        "ACWST",
        Kind::Fixed {
            offset: 31500,
            dst: false,
        },
    ),
    (
        "ADT",
        Kind::Fixed {
            offset: -10800,
            dst: true,
        },
    ),
    (
        "AEDT",
        Kind::Fixed {
            offset: 39600,
            dst: true,
        },
    ),
    (
        "AESST",
        Kind::Fixed {
            offset: 39600,
            dst: true,
        },
    ),
    (
        "AEST",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    (
        "AFT",
        Kind::Fixed {
            offset: 16200,
            dst: false,
        },
    ),
    (
        "AKDT",
        Kind::Fixed {
            offset: -28800,
            dst: true,
        },
    ),
    (
        "AKST",
        Kind::Fixed {
            offset: -32400,
            dst: false,
        },
    ),
    (
        "ALMST",
        Kind::Fixed {
            offset: 25200,
            dst: true,
        },
    ),
    (
        "ALMT",
        Kind::Fixed {
            offset: 21600,
            dst: false,
        },
    ),
    ("AMST", Kind::Dynamic("Asia/Yerevan")),
    (
        "AMT",
        Kind::Fixed {
            offset: -14400,
            dst: false,
        },
    ),
    ("ANAST", Kind::Dynamic("Asia/Anadyr")),
    ("ANAT", Kind::Dynamic("Asia/Anadyr")),
    ("ARST", Kind::Dynamic("America/Argentina/Buenos_Aires")),
    ("ART", Kind::Dynamic("America/Argentina/Buenos_Aires")),
    (
        "AST",
        Kind::Fixed {
            offset: -14400,
            dst: false,
        },
    ),
    (
        "AWSST",
        Kind::Fixed {
            offset: 32400,
            dst: true,
        },
    ),
    (
        "AWST",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "AZOST",
        Kind::Fixed {
            offset: 0,
            dst: true,
        },
    ),
    (
        "AZOT",
        Kind::Fixed {
            offset: -3600,
            dst: false,
        },
    ),
    ("AZST", Kind::Dynamic("Asia/Baku")),
    ("AZT", Kind::Dynamic("Asia/Baku")),
    (
        "BDST",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "BDT",
        Kind::Fixed {
            offset: 21600,
            dst: false,
        },
    ),
    (
        "BNT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "BORT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "BOT",
        Kind::Fixed {
            offset: -14400,
            dst: false,
        },
    ),
    (
        "BRA",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "BRST",
        Kind::Fixed {
            offset: -7200,
            dst: true,
        },
    ),
    (
        "BRT",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "BST",
        Kind::Fixed {
            offset: 3600,
            dst: true,
        },
    ),
    (
        "BTT",
        Kind::Fixed {
            offset: 21600,
            dst: false,
        },
    ),
    (
        "CADT",
        Kind::Fixed {
            offset: 37800,
            dst: true,
        },
    ),
    (
        "CAST",
        Kind::Fixed {
            offset: 34200,
            dst: false,
        },
    ),
    (
        "CCT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "CDT",
        Kind::Fixed {
            offset: -18000,
            dst: true,
        },
    ),
    (
        "CEST",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "CET",
        Kind::Fixed {
            offset: 3600,
            dst: false,
        },
    ),
    (
        "CETDST",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "CHADT",
        Kind::Fixed {
            offset: 49500,
            dst: true,
        },
    ),
    (
        "CHAST",
        Kind::Fixed {
            offset: 45900,
            dst: false,
        },
    ),
    (
        "CHUT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    ("CKT", Kind::Dynamic("Pacific/Rarotonga")),
    (
        "CLST",
        Kind::Fixed {
            offset: -10800,
            dst: true,
        },
    ),
    ("CLT", Kind::Dynamic("America/Santiago")),
    (
        "COT",
        Kind::Fixed {
            offset: -18000,
            dst: false,
        },
    ),
    (
        "CST",
        Kind::Fixed {
            offset: -21600,
            dst: false,
        },
    ),
    (
        "CXT",
        Kind::Fixed {
            offset: 25200,
            dst: false,
        },
    ),
    ("DAVT", Kind::Dynamic("Antarctica/Davis")),
    (
        "DDUT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    ("EASST", Kind::Dynamic("Pacific/Easter")),
    ("EAST", Kind::Dynamic("Pacific/Easter")),
    (
        "EAT",
        Kind::Fixed {
            offset: 10800,
            dst: false,
        },
    ),
    (
        "EDT",
        Kind::Fixed {
            offset: -14400,
            dst: true,
        },
    ),
    (
        "EEST",
        Kind::Fixed {
            offset: 10800,
            dst: true,
        },
    ),
    (
        "EET",
        Kind::Fixed {
            offset: 7200,
            dst: false,
        },
    ),
    (
        "EETDST",
        Kind::Fixed {
            offset: 10800,
            dst: true,
        },
    ),
    (
        "EGST",
        Kind::Fixed {
            offset: 0,
            dst: true,
        },
    ),
    (
        "EGT",
        Kind::Fixed {
            offset: -3600,
            dst: false,
        },
    ),
    (
        "EST",
        Kind::Fixed {
            offset: -18000,
            dst: false,
        },
    ),
    (
        "FET",
        Kind::Fixed {
            offset: 10800,
            dst: false,
        },
    ),
    (
        "FJST",
        Kind::Fixed {
            offset: 46800,
            dst: true,
        },
    ),
    (
        "FJT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    ("FKST", Kind::Dynamic("Atlantic/Stanley")),
    ("FKT", Kind::Dynamic("Atlantic/Stanley")),
    (
        "FNST",
        Kind::Fixed {
            offset: -3600,
            dst: true,
        },
    ),
    (
        "FNT",
        Kind::Fixed {
            offset: -7200,
            dst: false,
        },
    ),
    (
        "GALT",
        Kind::Fixed {
            offset: -21600,
            dst: false,
        },
    ),
    (
        "GAMT",
        Kind::Fixed {
            offset: -32400,
            dst: false,
        },
    ),
    ("GEST", Kind::Dynamic("Asia/Tbilisi")),
    ("GET", Kind::Dynamic("Asia/Tbilisi")),
    (
        "GFT",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "GILT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "GMT",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    ("GYT", Kind::Dynamic("America/Guyana")),
    (
        "HKT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "HST",
        Kind::Fixed {
            offset: -36000,
            dst: false,
        },
    ),
    (
        "ICT",
        Kind::Fixed {
            offset: 25200,
            dst: false,
        },
    ),
    (
        "IDT",
        Kind::Fixed {
            offset: 10800,
            dst: true,
        },
    ),
    ("IOT", Kind::Dynamic("Indian/Chagos")),
    ("IRKST", Kind::Dynamic("Asia/Irkutsk")),
    ("IRKT", Kind::Dynamic("Asia/Irkutsk")),
    (
        "IRT",
        Kind::Fixed {
            offset: 12600,
            dst: false,
        },
    ),
    (
        "IST",
        Kind::Fixed {
            offset: 7200,
            dst: false,
        },
    ),
    (
        "JAYT",
        Kind::Fixed {
            offset: 32400,
            dst: false,
        },
    ),
    (
        "JST",
        Kind::Fixed {
            offset: 32400,
            dst: false,
        },
    ),
    (
        "KDT",
        Kind::Fixed {
            offset: 36000,
            dst: true,
        },
    ),
    (
        "KGST",
        Kind::Fixed {
            offset: 21600,
            dst: true,
        },
    ),
    ("KGT", Kind::Dynamic("Asia/Bishkek")),
    ("KOST", Kind::Dynamic("Pacific/Kosrae")),
    ("KRAST", Kind::Dynamic("Asia/Krasnoyarsk")),
    ("KRAT", Kind::Dynamic("Asia/Krasnoyarsk")),
    (
        "KST",
        Kind::Fixed {
            offset: 32400,
            dst: false,
        },
    ),
    ("LHDT", Kind::Dynamic("Australia/Lord_Howe")),
    (
        "LHST",
        Kind::Fixed {
            offset: 37800,
            dst: false,
        },
    ),
    (
        "LIGT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    ("LINT", Kind::Dynamic("Pacific/Kiritimati")),
    ("LKT", Kind::Dynamic("Asia/Colombo")),
    ("MAGST", Kind::Dynamic("Asia/Magadan")),
    ("MAGT", Kind::Dynamic("Asia/Magadan")),
    (
        "MART",
        Kind::Fixed {
            offset: -34200,
            dst: false,
        },
    ),
    ("MAWT", Kind::Dynamic("Antarctica/Mawson")),
    (
        "MDT",
        Kind::Fixed {
            offset: -21600,
            dst: true,
        },
    ),
    (
        "MEST",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "MESZ",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "MET",
        Kind::Fixed {
            offset: 3600,
            dst: false,
        },
    ),
    (
        "METDST",
        Kind::Fixed {
            offset: 7200,
            dst: true,
        },
    ),
    (
        "MEZ",
        Kind::Fixed {
            offset: 3600,
            dst: false,
        },
    ),
    (
        "MHT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "MMT",
        Kind::Fixed {
            offset: 23400,
            dst: false,
        },
    ),
    (
        "MPT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    (
        "MSD",
        Kind::Fixed {
            offset: 14400,
            dst: true,
        },
    ),
    ("MSK", Kind::Dynamic("Europe/Moscow")),
    (
        "MST",
        Kind::Fixed {
            offset: -25200,
            dst: false,
        },
    ),
    (
        "MUST",
        Kind::Fixed {
            offset: 18000,
            dst: true,
        },
    ),
    (
        "MUT",
        Kind::Fixed {
            offset: 14400,
            dst: false,
        },
    ),
    (
        "MVT",
        Kind::Fixed {
            offset: 18000,
            dst: false,
        },
    ),
    (
        "MYT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "NDT",
        Kind::Fixed {
            offset: -9000,
            dst: true,
        },
    ),
    (
        "NFT",
        Kind::Fixed {
            offset: -12600,
            dst: false,
        },
    ),
    ("NOVST", Kind::Dynamic("Asia/Novosibirsk")),
    ("NOVT", Kind::Dynamic("Asia/Novosibirsk")),
    (
        "NPT",
        Kind::Fixed {
            offset: 20700,
            dst: false,
        },
    ),
    (
        "NST",
        Kind::Fixed {
            offset: -12600,
            dst: false,
        },
    ),
    ("NUT", Kind::Dynamic("Pacific/Niue")),
    (
        "NZDT",
        Kind::Fixed {
            offset: 46800,
            dst: true,
        },
    ),
    (
        "NZST",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "NZT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    ("OMSST", Kind::Dynamic("Asia/Omsk")),
    ("OMST", Kind::Dynamic("Asia/Omsk")),
    (
        "PDT",
        Kind::Fixed {
            offset: -25200,
            dst: true,
        },
    ),
    (
        "PET",
        Kind::Fixed {
            offset: -18000,
            dst: false,
        },
    ),
    ("PETST", Kind::Dynamic("Asia/Kamchatka")),
    ("PETT", Kind::Dynamic("Asia/Kamchatka")),
    (
        "PGT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    (
        "PHT",
        Kind::Fixed {
            offset: 28800,
            dst: false,
        },
    ),
    (
        "PKST",
        Kind::Fixed {
            offset: 21600,
            dst: true,
        },
    ),
    (
        "PKT",
        Kind::Fixed {
            offset: 18000,
            dst: false,
        },
    ),
    (
        "PMDT",
        Kind::Fixed {
            offset: -7200,
            dst: true,
        },
    ),
    (
        "PMST",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "PONT",
        Kind::Fixed {
            offset: 39600,
            dst: false,
        },
    ),
    (
        "PST",
        Kind::Fixed {
            offset: -28800,
            dst: false,
        },
    ),
    (
        "PWT",
        Kind::Fixed {
            offset: 32400,
            dst: false,
        },
    ),
    (
        "PYST",
        Kind::Fixed {
            offset: -10800,
            dst: true,
        },
    ),
    ("PYT", Kind::Dynamic("America/Asuncion")),
    (
        "RET",
        Kind::Fixed {
            offset: 14400,
            dst: false,
        },
    ),
    (
        "SADT",
        Kind::Fixed {
            offset: 37800,
            dst: true,
        },
    ),
    (
        "SAST",
        Kind::Fixed {
            offset: 7200,
            dst: false,
        },
    ),
    (
        "SCT",
        Kind::Fixed {
            offset: 14400,
            dst: false,
        },
    ),
    ("SGT", Kind::Dynamic("Asia/Singapore")),
    (
        "TAHT",
        Kind::Fixed {
            offset: -36000,
            dst: false,
        },
    ),
    (
        "TFT",
        Kind::Fixed {
            offset: 18000,
            dst: false,
        },
    ),
    (
        "TJT",
        Kind::Fixed {
            offset: 18000,
            dst: false,
        },
    ),
    ("TKT", Kind::Dynamic("Pacific/Fakaofo")),
    ("TMT", Kind::Dynamic("Asia/Ashgabat")),
    (
        "TOT",
        Kind::Fixed {
            offset: 46800,
            dst: false,
        },
    ),
    (
        "TRUT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    (
        "TVT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "UCT",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    (
        "ULAST",
        Kind::Fixed {
            offset: 32400,
            dst: true,
        },
    ),
    ("ULAT", Kind::Dynamic("Asia/Ulaanbaatar")),
    (
        "UT",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    (
        "UTC",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    (
        "UYST",
        Kind::Fixed {
            offset: -7200,
            dst: true,
        },
    ),
    (
        "UYT",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "UZST",
        Kind::Fixed {
            offset: 21600,
            dst: true,
        },
    ),
    (
        "UZT",
        Kind::Fixed {
            offset: 18000,
            dst: false,
        },
    ),
    ("VET", Kind::Dynamic("America/Caracas")),
    ("VLAST", Kind::Dynamic("Asia/Vladivostok")),
    ("VLAT", Kind::Dynamic("Asia/Vladivostok")),
    ("VOLT", Kind::Dynamic("Europe/Volgograd")),
    (
        "VUT",
        Kind::Fixed {
            offset: 39600,
            dst: false,
        },
    ),
    (
        "WADT",
        Kind::Fixed {
            offset: 28800,
            dst: true,
        },
    ),
    (
        "WAKT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "WAST",
        Kind::Fixed {
            offset: 25200,
            dst: false,
        },
    ),
    (
        "WAT",
        Kind::Fixed {
            offset: 3600,
            dst: false,
        },
    ),
    (
        "WDT",
        Kind::Fixed {
            offset: 32400,
            dst: true,
        },
    ),
    (
        "WET",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    (
        "WETDST",
        Kind::Fixed {
            offset: 3600,
            dst: true,
        },
    ),
    (
        "WFT",
        Kind::Fixed {
            offset: 43200,
            dst: false,
        },
    ),
    (
        "WGST",
        Kind::Fixed {
            offset: -7200,
            dst: true,
        },
    ),
    (
        "WGT",
        Kind::Fixed {
            offset: -10800,
            dst: false,
        },
    ),
    (
        "XJT",
        Kind::Fixed {
            offset: 21600,
            dst: false,
        },
    ),
    ("YAKST", Kind::Dynamic("Asia/Yakutsk")),
    ("YAKT", Kind::Dynamic("Asia/Yakutsk")),
    (
        "YAPT",
        Kind::Fixed {
            offset: 36000,
            dst: false,
        },
    ),
    (
        "YEKST",
        Kind::Fixed {
            offset: 21600,
            dst: true,
        },
    ),
    ("YEKT", Kind::Dynamic("Asia/Yekaterinburg")),
    (
        "Z",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
    (
        "ZULU",
        Kind::Fixed {
            offset: 0,
            dst: false,
        },
    ),
];

/// The abbreviation `name` (any case) stands for, with its name as the
/// set spells it.
pub fn lookup(name: &str) -> Option<(&'static str, Kind)> {
    if name.is_empty() || name.len() > 10 {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    ABBREVS
        .binary_search_by(|(n, _)| n.cmp(&upper.as_str()))
        .ok()
        .map(|i| ABBREVS[i])
}

/// (seconds east of UTC, daylight-saving) of abbreviation `abbrev` at UTC
/// instant `utc` (microseconds since 2000-01-01).
pub fn meaning_at_utc(abbrev: &str, kind: Kind, utc: i64) -> (i32, bool) {
    match kind {
        Kind::Fixed { offset, dst } => (offset, dst),
        Kind::Dynamic(zone) => dynamic_meaning(zone, abbrev, utc)
            .or_else(|| history(zone)?.meaning_at(unix_secs(utc)))
            .unwrap_or((0, false)),
    }
}

/// The offset (seconds east) of abbreviation `abbrev` for a local time
/// (microseconds since 2000-01-01) written with it.
pub fn offset_for_local(abbrev: &str, kind: Kind, local: i64) -> i32 {
    match kind {
        Kind::Fixed { offset, .. } => offset,
        Kind::Dynamic(zone) => {
            // Probed at the instant the zone's own rules give the local
            // time (PostgreSQL's DetermineTimeZoneAbbrevOffset).
            let zone_off = history(zone).map_or(0, |h| h.offset_for_local(unix_secs(local)));
            let at = local.saturating_sub(i64::from(zone_off) * 1_000_000);
            dynamic_meaning(zone, abbrev, at).map_or(zone_off, |m| m.0)
        }
    }
}

/// A zone's history, kept for the life of the process (one per zone file
/// read), as a [`TimeZone`] holds it: compared and hashed by identity.
#[derive(Clone, Copy)]
pub struct HistoryRef(&'static History);

impl PartialEq for HistoryRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for HistoryRef {}

impl std::hash::Hash for HistoryRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state)
    }
}

impl std::fmt::Debug for HistoryRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HistoryRef({} transitions)", self.0.at.len())
    }
}

impl HistoryRef {
    pub(crate) fn offset_at_utc(self, utc: i64) -> Option<i32> {
        self.0.meaning_at(unix_secs(utc)).map(|m| m.0)
    }

    pub(crate) fn offset_for_local(self, local: i64) -> i32 {
        self.0.offset_for_local(unix_secs(local))
    }

    /// Whether every period has one offset (pg_get_timezone_offset): a
    /// time in the zone needs no date.
    pub(crate) fn is_fixed(self) -> bool {
        let h = self.0;
        h.types.windows(2).all(|w| w[0].0 == w[1].0)
            && h.footer.is_none_or(|f| {
                f.dst.is_none() && h.types.first().is_none_or(|t| t.0 == f.offset_secs)
            })
    }

    /// The abbreviation in effect at `utc`, from the periods (None past
    /// the last one, where the current rule says it).
    pub(crate) fn abbrev_at_utc(self, utc: i64) -> Option<&'static str> {
        let h: &'static History = self.0;
        let t = unix_secs(utc);
        let n = h.at.partition_point(|&a| a <= t);
        if n == h.at.len() && h.footer.is_some() {
            return None;
        }
        let ty = match n {
            0 => h.types.first()?,
            n => h.types.get(*h.kinds.get(n - 1)? as usize)?,
        };
        let rest = h.chars.get(ty.2..)?;
        let end = rest.iter().position(|&c| c == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    }
}

/// The history of zone `name` for a [`TimeZone`], None when the zone has
/// no TZif file.
pub(crate) fn history_ref(name: &str) -> Option<HistoryRef> {
    use std::sync::RwLock;
    static KEPT: OnceLock<RwLock<HashMap<String, &'static History>>> = OnceLock::new();
    let kept = KEPT.get_or_init(|| RwLock::new(HashMap::new()));
    if let Some(h) = kept.read().ok()?.get(name) {
        return Some(HistoryRef(h));
    }
    let h = history(name)?;
    let mut map = kept.write().ok()?;
    let h: &'static History = match map.get(name) {
        Some(h) => h,
        None => {
            // Leaked once per zone file: at most the tz database's size.
            let leaked: &'static History = Box::leak(Box::new(History {
                at: h.at.clone(),
                kinds: h.kinds.clone(),
                types: h.types.clone(),
                chars: h.chars.clone(),
                footer: h.footer,
            }));
            map.insert(name.to_string(), leaked);
            leaked
        }
    };
    Some(HistoryRef(h))
}

/// Whether the tz database has zone `name` (as `SET TimeZone` takes it).
pub fn zone_exists(name: &str) -> bool {
    history(name).is_some() || TimeZone::parse_rule(name).is_some()
}

/// The tz database's spelling of zone `name` written in any case
/// (`america/new_york` is `America/New_York`), as pg_tzset finds it: each
/// path component matched case-insensitively against the directory.
pub(crate) fn zone_name_any_case(name: &str) -> Option<String> {
    let safe = !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('/')
        && !name
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b));
    if !safe {
        return None;
    }
    ["/usr/share/zoneinfo", "/usr/lib/zoneinfo"]
        .iter()
        .find_map(|dir| {
            let mut path = std::path::PathBuf::from(dir);
            let mut found = Vec::new();
            for part in name.split('/') {
                let entry = std::fs::read_dir(&path).ok()?.flatten().find_map(|e| {
                    let n = e.file_name().into_string().ok()?;
                    n.eq_ignore_ascii_case(part).then_some(n)
                })?;
                path.push(&entry);
                found.push(entry);
            }
            path.is_file().then(|| found.join("/"))
        })
}

/// The offset (seconds east) of a local time (microseconds since
/// 2000-01-01) in zone `name`, from the zone's history.
pub fn zone_offset_for_local(name: &str, local: i64) -> i32 {
    match history(name) {
        Some(h) => h.offset_for_local(unix_secs(local)),
        None => TimeZone::parse_rule(name).map_or(0, |t| t.offset_for_local(local)),
    }
}

/// A zone's periods from its TZif file: transition instants (Unix
/// seconds), the period type of each, and the types as (offset, dst,
/// abbreviation).
struct History {
    at: Vec<i64>,
    kinds: Vec<u8>,
    types: Vec<(i32, bool, usize)>,
    /// The abbreviations, NUL-terminated.
    chars: Vec<u8>,
    /// The zone's current rule, for abbreviations only it names.
    footer: Option<TimeZone>,
}

/// Unix seconds of an instant in microseconds since 2000-01-01.
fn unix_secs(t: i64) -> i64 {
    t.saturating_sub(UNIX_EPOCH_USECS).div_euclid(1_000_000)
}

impl History {
    /// (offset, dst) of the period holding Unix second `t`: the last
    /// transition at or before it, the first period before any, the
    /// current rule after the last.
    fn meaning_at(&self, t: i64) -> Option<(i32, bool)> {
        let n = self.at.partition_point(|&a| a <= t);
        if n == self.at.len() {
            if let Some(f) = self.footer {
                let off =
                    f.offset_at_utc(t.saturating_mul(1_000_000).saturating_add(UNIX_EPOCH_USECS));
                return Some((off, off != f.offset_secs));
            }
        }
        let ty = match n {
            0 => self.types.first()?,
            n => self.types.get(*self.kinds.get(n - 1)? as usize)?,
        };
        Some((ty.0, ty.1))
    }

    /// The offset for a local time (Unix seconds read as local), as
    /// PostgreSQL's DetermineTimeZoneOffset finds it: from the period a
    /// day before and the next transition; a time in a gap takes the
    /// earlier offset, one in an overlap the later.
    fn offset_for_local(&self, local: i64) -> i32 {
        let prev = local - 86_400;
        let before = self.meaning_at(prev).map_or(0, |m| m.0);
        let next = self.at.partition_point(|&a| a <= prev);
        let Some(&boundary) = self.at.get(next) else {
            return match self.footer {
                Some(f) => f.offset_for_local(
                    local
                        .saturating_mul(1_000_000)
                        .saturating_add(UNIX_EPOCH_USECS),
                ),
                None => before,
            };
        };
        let after = self
            .kinds
            .get(next)
            .and_then(|&k| self.types.get(k as usize))
            .map_or(before, |t| t.0);
        let (bt, at) = (local - i64::from(before), local - i64::from(after));
        if bt < boundary && at < boundary {
            before
        } else if bt > boundary && at >= boundary {
            after
        } else if bt > at {
            before
        } else {
            after
        }
    }
}

fn dynamic_meaning(zone: &str, abbrev: &str, utc: i64) -> Option<(i32, bool)> {
    let h = history(zone)?;
    let t = unix_secs(utc);
    let cutoff = h.at.partition_point(|&a| a <= t);
    let idx = name_index(&h.chars, abbrev);
    let matches = |i: usize| {
        let ty = h.types.get(*h.kinds.get(i)? as usize)?;
        (Some(ty.2) == idx).then_some((ty.0, ty.1))
    };
    if let Some(m) = (0..cutoff).rev().find_map(matches) {
        return Some(m);
    }
    if let Some(m) = (cutoff..h.at.len()).find_map(matches) {
        return Some(m);
    }
    let f = h.footer?;
    if f.abbrev.as_ref().is_some_and(|a| a.as_str() == abbrev) {
        return Some((f.offset_secs, false));
    }
    let d = f.dst?;
    d.abbrev
        .as_ref()
        .is_some_and(|a| a.as_str() == abbrev)
        .then_some((d.offset_secs, true))
}

fn history(zone: &str) -> Option<Arc<History>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<History>>>>> = OnceLock::new();
    // (Values are always Some; the Option keeps the lookup uniform.)
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().ok()?.get(zone) {
        return hit.clone();
    }
    let safe = !zone.is_empty()
        && !zone.starts_with('/')
        && !zone
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
        && zone
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b));
    if !safe {
        return None;
    }
    let h = ["/usr/share/zoneinfo", "/usr/lib/zoneinfo"]
        .iter()
        .find_map(|dir| std::fs::read(format!("{dir}/{zone}")).ok())
        .and_then(|bytes| parse_tzif(&bytes))
        .map(|mut h| {
            h.footer = TimeZone::parse_rule(zone);
            Arc::new(h)
        });
    // Only zones that exist are kept, so input naming others cannot grow
    // the cache.
    if h.is_some() {
        cache.lock().ok()?.insert(zone.to_string(), h.clone());
    }
    h
}

fn be32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The version 2+ data block of a TZif file (RFC 8536).
fn parse_tzif(b: &[u8]) -> Option<History> {
    if !b.starts_with(b"TZif") || *b.get(4)? < b'2' {
        return None;
    }
    let counts = |at: usize| -> Option<[usize; 6]> {
        let mut c = [0usize; 6];
        for (k, x) in c.iter_mut().enumerate() {
            *x = usize::try_from(be32(b, at + 20 + 4 * k)?).ok()?;
        }
        Some(c)
    };
    let [isut, isstd, leap, time, typ, chr] = counts(0)?;
    let v1 = time * 5 + typ * 6 + chr + leap * 8 + isstd + isut;
    let head = 44 + v1;
    let [_, _, _, time, typ, chr] = counts(head)?;
    let mut p = head + 44;
    let mut at = Vec::with_capacity(time);
    for _ in 0..time {
        at.push(i64::from_be_bytes(b.get(p..p + 8)?.try_into().ok()?));
        p += 8;
    }
    let kinds = b.get(p..p + time)?.to_vec();
    p += time;
    let chars = b.get(p + typ * 6..p + typ * 6 + chr)?.to_vec();
    let mut types = Vec::with_capacity(typ);
    for k in 0..typ {
        let e = p + 6 * k;
        types.push((be32(b, e)?, *b.get(e + 4)? != 0, *b.get(e + 5)? as usize));
    }
    Some(History {
        at,
        kinds,
        types,
        chars,
        footer: None,
    })
}

/// Where PostgreSQL finds `name` in a TZif abbreviation list: the first
/// NUL-terminated string equal to it (zic shares suffixes, so a type may
/// point inside another name, and then never matches).
fn name_index(chars: &[u8], name: &str) -> Option<usize> {
    let mut at = 0;
    while at < chars.len() {
        let len = chars[at..].iter().position(|&c| c == 0)?;
        if &chars[at..at + len] == name.as_bytes() {
            return Some(at);
        }
        at += len + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_found_in_any_case() {
        assert!(ABBREVS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            lookup("pst"),
            Some((
                "PST",
                Kind::Fixed {
                    offset: -28800,
                    dst: false
                }
            ))
        );
        assert_eq!(
            lookup("Msk").map(|x| x.1),
            Some(Kind::Dynamic("Europe/Moscow"))
        );
        assert_eq!(lookup("xyz"), None);
    }

    /// Microseconds since 2000-01-01 of a UTC date and hour.
    fn utc(y: i64, m: i64, d: i64, h: i64) -> i64 {
        ((crate::datetime::date2j(y, m, d) - 2_451_545) * 24 + h) * 3_600_000_000
    }

    #[test]
    fn dynamic_abbreviations_and_named_zones_follow_history() {
        let msk = lookup("MSK").unwrap();
        assert_eq!(
            meaning_at_utc(msk.0, msk.1, utc(2012, 7, 1, 0)),
            (4 * 3600, false)
        );
        assert_eq!(
            meaning_at_utc(msk.0, msk.1, utc(2020, 7, 1, 0)),
            (3 * 3600, false)
        );
        let ny = TimeZone::parse("America/New_York").unwrap();
        // 1997's DST began on April 6 (the first Sunday), not in March.
        assert_eq!(ny.offset_at_utc(utc(1997, 3, 20, 12)), -5 * 3600);
        assert_eq!(ny.offset_at_utc(utc(1997, 4, 6, 12)), -4 * 3600);
        assert_eq!(ny.abbrev_at_utc(utc(1997, 4, 6, 12)), Some("EDT"));
        assert!(!zone_exists("Nowhere/Special"));
    }
}
