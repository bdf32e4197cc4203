//! Timestamps as log4j prints them: local wall-clock time, parsed by hand because the layouts are fixed-width
//! and this runs on every line.

use std::fmt;

/// The clock skew tolerated between nodes (`--max-skew`), by default.
pub const DEFAULT_MAX_SKEW_MS: i64 = 1000;

/// Milliseconds since 1970-01-01T00:00:00 of the log's own clock (no zone: log4j prints local time).
/// `has_date` is false for layouts that print only the time of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub millis: i64,
    pub has_date: bool,
}

impl Timestamp {
    pub fn from_parts(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> Timestamp {
        let days = days_from_civil(y, mo, d);
        let millis =
            ((days * 24 + h as i64) * 60 + mi as i64) * 60_000 + s as i64 * 1000 + ms as i64;
        Timestamp {
            millis,
            has_date: true,
        }
    }

    /// Parses an ISO-8601 instant as Java's `Instant.toString()` prints it (`2026-08-23T09:00:00.123Z`,
    /// fraction optional, any number of fraction digits).
    pub fn parse_instant(s: &str) -> Option<Timestamp> {
        let b = s.trim().as_bytes();
        if b.len() < 20
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[13] != b':'
            || b[16] != b':'
        {
            return None;
        }
        let y = digits(&b[0..4])? as i64;
        let mo = digits(&b[5..7])?;
        let d = digits(&b[8..10])?;
        let h = digits(&b[11..13])?;
        let mi = digits(&b[14..16])?;
        let sec = digits(&b[17..19])?;
        let mut rest = &b[19..];
        let mut ms = 0;
        if rest.first() == Some(&b'.') {
            let frac_len = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if frac_len == 0 {
                return None;
            }
            let frac = &rest[1..1 + frac_len];
            let mut v = 0u32;
            for i in 0..3 {
                v = v * 10 + frac.get(i).map_or(0, |c| (c - b'0') as u32);
            }
            ms = v;
            rest = &rest[1 + frac_len..];
        }
        if rest != b"Z" {
            return None;
        }
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        Some(Timestamp::from_parts(y, mo, d, h, mi, sec, ms))
    }

    /// The inverse of `Display`: `2026-08-23T10:15:30.123`, or `10:15:30.123` (no date), as `events`
    /// writes times.
    pub fn parse_event_time(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        let (date, clock) = match b.len() {
            23 if b[4] == b'-' && b[7] == b'-' && b[10] == b'T' => (Some(&b[..10]), &b[11..]),
            12 => (None, b),
            _ => return None,
        };
        if clock[2] != b':' || clock[5] != b':' || clock[8] != b'.' {
            return None;
        }
        let (h, mi, sec, ms) = (
            digits(&clock[0..2])?,
            digits(&clock[3..5])?,
            digits(&clock[6..8])?,
            digits(&clock[9..12])?,
        );
        if h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        match date {
            Some(d) => {
                let (y, mo, day) = (digits(&d[0..4])?, digits(&d[5..7])?, digits(&d[8..10])?);
                if !(1..=12).contains(&mo) || !(1..=31).contains(&day) {
                    return None;
                }
                Some(Timestamp::from_parts(y as i64, mo, day, h, mi, sec, ms))
            }
            None => Some(Timestamp {
                millis: ((h as i64 * 60 + mi as i64) * 60 + sec as i64) * 1000 + ms as i64,
                has_date: false,
            }),
        }
    }
}

impl fmt::Display for Timestamp {
    /// `2026-08-23T10:15:30.123`, or `10:15:30.123` for time-of-day-only layouts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.millis.div_euclid(86_400_000);
        let rem = self.millis.rem_euclid(86_400_000);
        let (h, mi, s, ms) = (
            rem / 3_600_000,
            rem / 60_000 % 60,
            rem / 1000 % 60,
            rem % 1000,
        );
        if self.has_date {
            let (y, mo, d) = civil_from_days(days);
            write!(f, "{y:04}-{mo:02}-{d:02}T")?;
        }
        write!(f, "{h:02}:{mi:02}:{s:02}.{ms:03}")
    }
}

pub(crate) fn digits(b: &[u8]) -> Option<u32> {
    let mut v: u32 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        // Digits too long for a u32 (a timestamp part, a source line) are no number; never wrap.
        v = v.checked_mul(10)?.checked_add((c - b'0') as u32)?;
    }
    Some(v)
}

/// Howard Hinnant's `days_from_civil`: proleptic Gregorian date to days since 1970-01-01.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_that_overflow_are_no_number() {
        assert_eq!(digits(b"4294967295"), Some(u32::MAX));
        assert_eq!(digits(b"4294967296"), None);
        assert_eq!(digits(b"99999999999999999999"), None);
        assert_eq!(digits(b"12a"), None);
    }

    #[test]
    fn civil_round_trip() {
        for days in [-800_000, -1, 0, 1, 19_000, 20_688, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn formats_and_parses_instants() {
        let t = Timestamp::from_parts(2026, 8, 23, 10, 15, 30, 123);
        assert_eq!(t.to_string(), "2026-08-23T10:15:30.123");
        assert_eq!(
            Timestamp::parse_instant("2026-08-23T10:15:30.123Z"),
            Some(t)
        );
        assert_eq!(
            Timestamp::parse_instant("2026-08-23T10:15:30.123456789Z"),
            Some(t)
        );
        assert_eq!(
            Timestamp::parse_instant("2026-08-23T10:15:30Z")
                .unwrap()
                .to_string(),
            "2026-08-23T10:15:30.000"
        );
        assert_eq!(Timestamp::parse_instant("2026-08-23 10:15:30Z"), None);
        assert_eq!(Timestamp::parse_instant("2026-13-23T10:15:30Z"), None);
    }
}
