//! Timestamps to Unix seconds (UTC): the combined log's `[10/Oct/2000:13:55:36 -0700]`, ISO 8601 and epoch
//! seconds. Each parser is strict and returns `None` for anything it does not fully accept (the `time` reason).

/// Latest accepted instant, 9999-12-31T23:59:59Z; the earliest is the epoch. Outside: `time`.
pub const MAX_UNIX_S: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1-12) of a day number (the inverse of `days_from_civil`).
pub fn civil_month(days: i64) -> (i64, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m)
}

/// Months since 1970-01 of a Unix second, in UTC.
pub fn month_index(unix_s: i64) -> i32 {
    let (y, m) = civil_month(unix_s.div_euclid(86_400));
    ((y - 1970) * 12 + i64::from(m) - 1) as i32
}

/// `YYYY-MM` of a month index.
pub fn month_label(index: i32) -> String {
    let y = 1970 + index.div_euclid(12);
    let m = index.rem_euclid(12) + 1;
    format!("{y:04}-{m:02}")
}

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The value of a run of ASCII digits; `None` if any byte is not a digit.
fn digits(b: &[u8]) -> Option<u32> {
    let mut v: u32 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
    }
    Some(v)
}

/// Unix seconds of a validated civil time minus an offset; `None` if a field is out of range.
fn assemble(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32, offset_s: i64) -> Option<i64> {
    let y = i64::from(y);
    if !(1..=12).contains(&mo) || d == 0 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59
    {
        return None;
    }
    let t = days_from_civil(y, mo, d) * 86_400 + i64::from(h * 3600 + mi * 60 + s) - offset_s;
    (0..=MAX_UNIX_S).contains(&t).then_some(t)
}

/// `+HHMM`, `+HH:MM` or `+HH` (and `-`) to seconds east of UTC; hours 0-23, minutes 0-59.
fn offset(b: &[u8], colon_allowed: bool) -> Option<i64> {
    let (sign, rest) = match b.first()? {
        b'+' => (1, &b[1..]),
        b'-' => (-1, &b[1..]),
        _ => return None,
    };
    let (h, m) = match rest.len() {
        2 => (digits(rest)?, 0),
        4 => (digits(&rest[..2])?, digits(&rest[2..])?),
        5 if colon_allowed && rest[2] == b':' => (digits(&rest[..2])?, digits(&rest[3..])?),
        _ => return None,
    };
    (h <= 23 && m <= 59).then_some(sign * i64::from(h * 3600 + m * 60))
}

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// The inside of a combined log's brackets: exactly `DD/Mon/YYYY:HH:MM:SS +HHMM` (English month names).
pub fn parse_combined(b: &[u8]) -> Option<i64> {
    if b.len() != 26
        || b[2] != b'/'
        || b[6] != b'/'
        || b[11] != b':'
        || b[14] != b':'
        || b[17] != b':'
    {
        return None;
    }
    if b[20] != b' ' {
        return None;
    }
    let mon = MONTHS.iter().position(|m| m[..] == b[3..6])? as u32 + 1;
    assemble(
        digits(&b[7..11])?,
        mon,
        digits(&b[0..2])?,
        digits(&b[12..14])?,
        digits(&b[15..17])?,
        digits(&b[18..20])?,
        if b[21] == b'+' || b[21] == b'-' {
            offset(&b[21..], false)?
        } else {
            return None;
        },
    )
}

/// `parse_combined` with a memory of the last date and zone: consecutive lines of a log share them, and then
/// only the time of day needs reading. Gives exactly what `parse_combined` gives.
#[derive(Default)]
pub struct CombinedClock {
    /// Bytes 0..11 (`DD/Mon/YYYY`) and 20..26 (` +HHMM`) of the last accepted time, and its day's start.
    key: [u8; 17],
    day_start: Option<i64>,
}

impl CombinedClock {
    pub fn parse(&mut self, b: &[u8]) -> Option<i64> {
        if let (Some(day_start), Ok(a)) = (self.day_start, <&[u8; 26]>::try_from(b)) {
            // Fixed-size compares: a few word loads, no call.
            if a[..11] == self.key[..11] && a[20..] == self.key[11..] {
                let d = |i: usize| u32::from(a[i].wrapping_sub(b'0'));
                let digits = [d(12), d(13), d(15), d(16), d(18), d(19)];
                if digits.iter().any(|&x| x > 9) || a[11] != b':' || a[14] != b':' || a[17] != b':'
                {
                    return None;
                }
                let (h, m, s) = (
                    digits[0] * 10 + digits[1],
                    digits[2] * 10 + digits[3],
                    digits[4] * 10 + digits[5],
                );
                if h > 23 || m > 59 || s > 59 {
                    return None;
                }
                let t = day_start + i64::from(h * 3600 + m * 60 + s);
                return (0..=MAX_UNIX_S).contains(&t).then_some(t);
            }
        }
        let t = parse_combined(b)?;
        let of_day =
            i64::from(digits(&b[12..14])? * 3600 + digits(&b[15..17])? * 60 + digits(&b[18..20])?);
        self.key[..11].copy_from_slice(&b[..11]);
        self.key[11..].copy_from_slice(&b[20..]);
        self.day_start = Some(t - of_day);
        Some(t)
    }
}

/// ISO 8601: `YYYY-MM-DD(T| )HH:MM:SS[(.|,)digits][Z|+HH|+HHMM|+HH:MM]`; no offset means UTC; the fraction is
/// dropped (floor, since it is never negative).
pub fn parse_iso(b: &[u8]) -> Option<i64> {
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let mut rest = &b[19..];
    if let Some(&c) = rest.first() {
        if c == b'.' || c == b',' {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            rest = &rest[1 + n..];
        }
    }
    let off = match rest {
        [] | [b'Z'] | [b'z'] => 0,
        _ => offset(rest, true)?,
    };
    assemble(
        digits(&b[0..4])?,
        digits(&b[5..7])?,
        digits(&b[8..10])?,
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
        off,
    )
}

/// Epoch seconds written as text: `digits` or `digits.digits` (no sign, no exponent); floor of the value.
pub fn parse_epoch_text(b: &[u8]) -> Option<i64> {
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int_len == 0 {
        return None;
    }
    let frac = &b[int_len..];
    if !frac.is_empty()
        && (frac[0] != b'.' || frac.len() < 2 || !frac[1..].iter().all(u8::is_ascii_digit))
    {
        return None;
    }
    let int = &b[..int_len];
    let significant = &int[int.iter().take_while(|&&c| c == b'0').count()..];
    if significant.len() > 12 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in significant {
        v = v * 10 + i64::from(c - b'0');
    }
    (v <= MAX_UNIX_S).then_some(v)
}

/// A JSON number token (already validated by the JSON reader): integers exactly, others through f64, floor.
pub fn parse_json_number(b: &[u8]) -> Option<i64> {
    if b.iter().any(|&c| matches!(c, b'.' | b'e' | b'E')) {
        let v: f64 = std::str::from_utf8(b).ok()?.parse().ok()?;
        let f = v.floor();
        return (f >= 0.0 && f <= MAX_UNIX_S as f64).then_some(f as i64);
    }
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        _ => (false, b),
    };
    let v = parse_epoch_text(digits)?;
    if neg && v != 0 {
        return None;
    }
    Some(v)
}

/// A timestamp from CSV/JSONL text: epoch seconds if it looks like a number, else ISO 8601.
pub fn parse_text(b: &[u8]) -> Option<i64> {
    if b.first().is_some_and(u8::is_ascii_digit)
        && b.iter().all(|&c| c.is_ascii_digit() || c == b'.')
    {
        parse_epoch_text(b)
    } else {
        parse_iso(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip_over_four_centuries() {
        for days in (-200_000..3_000_000).step_by(97) {
            let (y, m) = civil_month(days);
            let first = days_from_civil(y, m, 1);
            assert!(first <= days && days - first < 31, "day {days} -> {y}-{m}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn combined_apache_example_with_offset() {
        // 13:55:36 at -0700 is 20:55:36 UTC.
        assert_eq!(
            parse_combined(b"10/Oct/2000:13:55:36 -0700"),
            Some(971_211_336)
        );
        assert_eq!(
            parse_combined(b"10/Oct/2000:20:55:36 +0000"),
            Some(971_211_336)
        );
    }

    #[test]
    fn combined_rejects_near_misses() {
        for bad in [
            &b"10/oct/2000:13:55:36 -0700"[..],
            b"1/Oct/2000:13:55:36 -0700",
            b"31/Sep/2000:13:55:36 -0700",
            b"29/Feb/1900:13:55:36 +0000",
            b"10/Oct/2000:24:00:00 +0000",
            b"10/Oct/2000:13:55:60 +0000",
            b"10/Oct/2000:13:55:36 -07:00",
            b"10/Oct/2000:13:55:36 +2400",
            b"10/Oct/2000:13:55:36 0700",
            b"10/Oct/2000 13:55:36 -0700",
        ] {
            assert_eq!(
                parse_combined(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(parse_combined(b"29/Feb/2000:00:00:00 +0000").is_some());
    }

    #[test]
    fn the_clock_agrees_with_the_plain_parser() {
        let mut clock = CombinedClock::default();
        let cases: [&[u8]; 9] = [
            b"31/Dec/2023:23:59:59 -0500",
            b"31/Dec/2023:00:00:00 -0500",
            b"31/Dec/2023:24:00:00 -0500",
            b"31/Dec/2023:12:60:00 -0500",
            b"31/Dec/2023:12:00:00 +0500",
            b"31/Dec/2023 12:00:00 +0500",
            b"31/Dec/2023:12:00:0x +0500",
            b"01/Jan/1970:00:00:00 +0100",
            b"01/Jan/1970:01:00:00 +0100",
        ];
        for b in cases.iter().chain(cases.iter().rev()) {
            assert_eq!(
                clock.parse(b),
                parse_combined(b),
                "{}",
                String::from_utf8_lossy(b)
            );
        }
    }

    #[test]
    fn iso_forms_and_the_month_boundary() {
        let utc = parse_iso(b"2023-11-01T03:30:00Z").unwrap();
        assert_eq!(parse_iso(b"2023-10-31T23:30:00-04:00"), Some(utc));
        assert_eq!(parse_iso(b"2023-10-31T23:30:00-0400"), Some(utc));
        assert_eq!(parse_iso(b"2023-10-31 23:30:00-04"), Some(utc));
        assert_eq!(parse_iso(b"2023-11-01T03:30:00.999999"), Some(utc));
        assert_eq!(parse_iso(b"2023-11-01t03:30:00,5z"), Some(utc));
        assert_eq!(month_label(month_index(utc)), "2023-11");
        for bad in [
            &b"2023-11-01"[..],
            b"2023-11-01T03:30Z",
            b"2023-11-01T03:30:00.Z",
            b"2023-11-01T03:30:00 Z",
            b"2023-13-01T03:30:00",
            b"2023-11-01T03:30:00+24:00",
            b"1969-12-31T23:59:59Z",
            b" 2023-11-01T03:30:00",
        ] {
            assert_eq!(parse_iso(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn epoch_text_and_json_numbers() {
        assert_eq!(parse_text(b"1700000000"), Some(1_700_000_000));
        assert_eq!(parse_text(b"1700000000.75"), Some(1_700_000_000));
        assert_eq!(parse_text(b"0001700000000"), Some(1_700_000_000));
        assert_eq!(parse_text(b"1700000000."), None);
        assert_eq!(parse_text(b"1.7e9"), None);
        assert_eq!(parse_text(b"253402300800"), None);
        assert_eq!(parse_json_number(b"1.7e9"), Some(1_700_000_000));
        assert_eq!(parse_json_number(b"-0"), Some(0));
        assert_eq!(parse_json_number(b"-1"), None);
        assert_eq!(parse_json_number(b"-0.5"), None);
        assert_eq!(parse_json_number(b"1e400"), None);
        assert_eq!(parse_json_number(b"253402300799.9"), Some(MAX_UNIX_S));
    }
}
