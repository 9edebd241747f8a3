//! The fast path of the combined parser: a line of ASCII without backslashes whose first three spaces lie in its
//! first 64 bytes and whose time is accepted is split at its known quote positions. It answers only when the general
//! parser would give the same fields; `None` sends the line there (which also finds the reason of a bad one).

use crate::classify::Classes;
use crate::record::{dash_empty, Fields, TimeValue};
use crate::time::CombinedClock;

use super::{request_path, trailing};

/// The bytes field: digits or `-`.
#[inline]
fn size_ok(b: &[u8]) -> bool {
    match b {
        [] => false,
        [b'-'] => true,
        _ => b.iter().all(u8::is_ascii_digit),
    }
}

/// A status of three digits, 100-999.
#[inline]
fn status3(b: [u8; 3]) -> Option<u16> {
    let d = b.map(|c| c.wrapping_sub(b'0'));
    (d[0] >= 1 && d[0] <= 9 && d[1] <= 9 && d[2] <= 9)
        .then(|| u16::from(d[0]) * 100 + u16::from(d[1]) * 10 + u16::from(d[2]))
}

/// `host ident user [DD/Mon/YYYY:HH:MM:SS +HHMM] "request" status bytes "referer" "ua"[ extra...]`.
///
/// Without a backslash every quote delimits a quoted field, so the first six quotes are the bounds of the
/// request, referer and user agent. The first quote must come right after the time (so the three bare tokens
/// and the time hold none), and each gap between quoted fields must be exactly what the general parser accepts
/// there. The time is read here: an accepted time has no `]` inside, so its closing bracket is where the
/// general parser would find it.
#[inline]
pub fn parse<'a>(
    clock: &mut CombinedClock,
    line: &'a [u8],
    k: &Classes,
    want_event: bool,
) -> Option<Fields<'a>> {
    if k.special || k.n_quotes < 6 {
        return None;
    }
    // The first three spaces end host, ident and user (each non-empty).
    let mut spaces = k.head_spaces;
    let s1 = spaces.trailing_zeros() as usize;
    spaces &= spaces.wrapping_sub(1);
    let s2 = spaces.trailing_zeros() as usize;
    spaces &= spaces.wrapping_sub(1);
    let s3 = spaces.trailing_zeros() as usize;
    if s3 >= 64 || s1 == 0 || s2 == s1 + 1 || s3 == s2 + 1 {
        return None;
    }
    let q = k.quotes.map(|x| x as usize);
    // `[` + 26 bytes of time + `] ` and then the request's opening quote, the first quote of the line.
    if q[0] != s3 + 30 || line[s3 + 1] != b'[' || line[s3 + 28] != b']' || line[s3 + 29] != b' ' {
        return None;
    }
    let unix_s = clock.parse(&line[s3 + 2..s3 + 28])?;
    // `" status bytes "` between the request and the referer: a three-digit status, then the size.
    let status = status3(line.get(q[1] + 2..q[1] + 5)?.try_into().ok()?)?;
    if line[q[1] + 1] != b' ' || q[2] < q[1] + 7 || line[q[1] + 5] != b' ' || line[q[2] - 1] != b' '
    {
        return None;
    }
    if !size_ok(&line[q[1] + 6..q[2] - 1]) {
        return None;
    }
    // `" "` between the referer and the user agent.
    if q[4] != q[3] + 2 || line[q[3] + 1] != b' ' {
        return None;
    }
    if q[5] + 1 < line.len() {
        trailing(line, q[5] + 1).ok()?;
    }
    let request = &line[q[0] + 1..q[1]];
    Some(Fields {
        user: dash_empty(&line[s2 + 1..s3]),
        time: TimeValue::Unix(unix_s),
        ua: dash_empty(&line[q[4] + 1..q[5]]),
        event: if want_event {
            request_path(request)
        } else {
            b""
        },
        status: Some(status),
        ..Fields::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;
    use crate::combined::CombinedParser;

    /// Well-formed lines in the shapes the fast path takes, and some it leaves to the general parser.
    const BASES: [&str; 8] = [
        r#"10.0.0.1 - alice [31/Oct/2023:23:30:00 -0400] "GET /login?x=1 HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11)""#,
        r#"2001:db8::1 - - [01/Jan/2024:00:00:00 +0000] "POST /a HTTP/2.0" 302 - "https://e.org/" "-""#,
        r#"h - bob [01/Jan/2024:00:00:00 +0530] "GET / HTTP/1.1" 404 0 "-" "Agent/1" "1.2.3.4" 0.004 -"#,
        r#"h i u [29/Feb/2024:12:59:59 +0100] "" 500 12 "" """#,
        r#"host-name.example.org ident user.name [01/Mar/2024:00:00:01 -1200] "GET / HTTP/1.1" 999 1 "r" "a""#,
        r#"h - u [01/Jan/2024:00:00:00 +0000] "GET /\"q\" HTTP/1.1" 200 5 "-" "Agent \\ x""#,
        r#"h - u [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "Mozilla" trailing"#,
        r#"h - u [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "Mozilla""quoted""#,
    ];

    /// Bytes that matter to the structure, and a few that do not.
    const BYTES: [u8; 12] = [
        b' ', b'"', b'\\', b'[', b']', b'-', b'x', b'0', b'/', b':', b'\t', b'+',
    ];

    #[test]
    fn the_fast_path_agrees_with_the_general_parser_on_mutated_lines() {
        let mut x: u64 = 11;
        let mut next = |n: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % n
        };
        let (mut clock, mut general) = (CombinedClock::default(), CombinedParser::default());
        let mut answered = 0;
        let mut lines = 0;
        for base in BASES {
            for round in 0..4000 {
                let mut line = base.as_bytes().to_vec();
                // Round 0 is the line itself; the others change one to three bytes.
                for _ in 0..if round == 0 { 0 } else { 1 + next(3) } {
                    let at = next(line.len());
                    match next(3) {
                        0 => line[at] = BYTES[next(BYTES.len())],
                        1 => {
                            line.remove(at);
                        }
                        _ => line.insert(at, BYTES[next(BYTES.len())]),
                    }
                }
                let k = classify(&line);
                for want_event in [false, true] {
                    lines += 1;
                    if let Some(fast) = parse(&mut clock, &line, &k, want_event) {
                        answered += 1;
                        let slow = general.parse_general(&line, want_event);
                        assert_eq!(Ok(fast), slow, "{}", String::from_utf8_lossy(&line));
                    }
                }
            }
        }
        // Most mutations break the structure; the fast path must still have taken a fair share.
        assert!(answered > lines / 10, "{answered} of {lines}");
    }
}
