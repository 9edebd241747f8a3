//! Apache/nginx `combined` lines: `host ident user [time] "request" status bytes "referer" "user-agent"`,
//! optionally followed by more fields (nginx variants append some). Quoted fields use backslash escapes.
//!
//! Two parsers give the same result: `fast` handles the common line (ASCII or valid UTF-8, no backslash, the
//! usual layout) from a SIMD pass over it; anything else goes to the general parser below, which walks the
//! fields in order and so also decides which malformation comes first.

mod fast;

use memchr::{memchr, memchr2};

use crate::classify::Classes;
use crate::record::{dash_empty, status_text, Fields, Reason, TimeValue};
use crate::time::CombinedClock;

/// Reusable buffers for values that had escapes in them, so that a line costs no allocation; and the clock,
/// which remembers the last date.
#[derive(Default)]
pub struct CombinedParser {
    user: Vec<u8>,
    ua: Vec<u8>,
    request: Vec<u8>,
    clock: CombinedClock,
}

/// A bare token up to the next space; `Err(Fields)` if empty or no space follows, `Err(Quoting)` if it holds
/// a quote that no backslash escapes (a quoted value that lost its opening quote). Tokens are short: one byte
/// loop is cheaper here than library searches.
fn token(line: &[u8], pos: usize) -> Result<(&[u8], usize), Reason> {
    let mut stray = false;
    let mut escaped = false;
    let mut i = pos;
    while i < line.len() {
        let c = line[i];
        if c == b' ' {
            break;
        }
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c == b'"' {
            stray = true;
        }
        i += 1;
    }
    if i == line.len() || i == pos {
        return Err(Reason::Fields);
    }
    if stray {
        return Err(Reason::Quoting);
    }
    Ok((&line[pos..i], i + 1))
}

/// Whether a bare token holds a quote that no backslash escapes.
fn stray_quote(tok: &[u8]) -> bool {
    let mut i = 0;
    while let Some(k) = memchr2(b'"', b'\\', &tok[i.min(tok.len())..]) {
        i += k;
        if tok[i] == b'"' {
            return true;
        }
        i += 2;
    }
    false
}

/// A quoted field starting at `pos`: its raw inside, whether it holds a backslash, and the position just past
/// the closing quote. A backslash escapes the next byte. Not starting with a quote is `Fields`; not closed is
/// `Quoting`.
fn quoted(line: &[u8], pos: usize) -> Result<(&[u8], bool, usize), Reason> {
    if line.get(pos) != Some(&b'"') {
        return Err(Reason::Fields);
    }
    let start = pos + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
        let k = memchr2(b'"', b'\\', &line[i..]).ok_or(Reason::Quoting)?;
        i += k;
        if line[i] == b'"' {
            return Ok((&line[start..i], escaped, i + 1));
        }
        escaped = true;
        i += 2; // skip the backslash and the byte it escapes
        if i > line.len() {
            return Err(Reason::Quoting);
        }
    }
}

/// After a quoted field that is not the last: exactly one space. A non-space byte means the value held an
/// unescaped quote (`Quoting`); the end of the line means fields are missing (`Fields`).
fn expect_space(line: &[u8], pos: usize) -> Result<usize, Reason> {
    match line.get(pos) {
        Some(b' ') => Ok(pos + 1),
        Some(_) => Err(Reason::Quoting),
        None => Err(Reason::Fields),
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Undo Apache's (`ap_escape_logitem`) and nginx's escaping: `\"`, `\\`, `\b \n \r \t \v` and `\xHH`. Other
/// backslashes stay as they are. Returns `raw` itself when it has no backslash. `Err(BadUtf8)` if an `\xHH`
/// escape produced bytes that are not UTF-8.
pub fn unescape<'a>(raw: &'a [u8], buf: &'a mut Vec<u8>) -> Result<&'a [u8], Reason> {
    let Some(first) = memchr(b'\\', raw) else {
        return Ok(raw);
    };
    buf.clear();
    buf.extend_from_slice(&raw[..first]);
    let mut i = first;
    let mut had_hex = false;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' || i + 1 >= raw.len() {
            buf.push(c);
            i += 1;
            continue;
        }
        let (out, used) = match raw[i + 1] {
            b'"' => (b'"', 2),
            b'\\' => (b'\\', 2),
            b'b' => (0x08, 2),
            b'n' => (b'\n', 2),
            b'r' => (b'\r', 2),
            b't' => (b'\t', 2),
            b'v' => (0x0b, 2),
            b'x' => match (
                raw.get(i + 2).copied().and_then(hex),
                raw.get(i + 3).copied().and_then(hex),
            ) {
                (Some(h), Some(l)) => {
                    had_hex = true;
                    (h * 16 + l, 4)
                }
                _ => (b'\\', 1),
            },
            _ => (b'\\', 1),
        };
        buf.push(out);
        i += used;
    }
    if had_hex && std::str::from_utf8(buf).is_err() {
        return Err(Reason::BadUtf8);
    }
    Ok(buf.as_slice())
}

/// The path of a request line `METHOD TARGET PROTOCOL`, without its query string; empty if there is none.
pub(crate) fn request_path(request: &[u8]) -> &[u8] {
    let mut words = request.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let (Some(_method), Some(target)) = (words.next(), words.next()) else {
        return b"";
    };
    match memchr(b'?', target) {
        Some(q) => &target[..q],
        None => target,
    }
}

impl CombinedParser {
    /// Parse one line (terminator removed; `classes` found by the line reader), checking its UTF-8 first.
    /// `want_event`: compute the event (the request path), which only an event filter needs.
    #[inline]
    pub fn parse<'a>(
        &'a mut self,
        line: &'a [u8],
        classes: &Classes,
        want_event: bool,
    ) -> Result<Fields<'a>, Reason> {
        if classes.special {
            // A byte >= 0x80 or a backslash: rare in logs (servers escape both), so the general parser.
            if simdutf8::basic::from_utf8(line).is_err() {
                return Err(Reason::BadUtf8);
            }
        } else if let Some(fields) = fast::parse(&mut self.clock, line, classes, want_event) {
            return Ok(fields);
        }
        self.parse_general(line, want_event)
    }

    /// The general parser, for any line (UTF-8 already checked): fields left to right, escapes undone.
    #[inline(never)]
    pub fn parse_general<'a>(
        &'a mut self,
        line: &'a [u8],
        want_event: bool,
    ) -> Result<Fields<'a>, Reason> {
        let (_host, p) = token(line, 0)?;
        let (_ident, p) = token(line, p)?;
        let (user_raw, p) = token(line, p)?;
        if line.get(p) != Some(&b'[') {
            return Err(Reason::Fields);
        }
        let close = memchr(b']', &line[p..]).ok_or(Reason::Fields)? + p;
        let time = &line[p + 1..close];
        if line.get(close + 1) != Some(&b' ') {
            return Err(Reason::Fields);
        }
        let (request_raw, request_escaped, p) = quoted(line, close + 2)?;
        let p = expect_space(line, p)?;
        let (status_tok, p) = token(line, p)?;
        let status = status_text(status_tok).ok_or(Reason::Fields)?;
        let (bytes_tok, p) = token(line, p)?;
        if bytes_tok != b"-" && !bytes_tok.iter().all(u8::is_ascii_digit) {
            return Err(Reason::Fields);
        }
        let (_referer, _, p) = quoted(line, p)?;
        let p = expect_space(line, p)?;
        let (ua_raw, ua_escaped, p) = quoted(line, p)?;
        trailing(line, p)?;

        let Self {
            user,
            ua,
            request,
            clock,
        } = self;
        let user = dash_empty(unescape(user_raw, user)?);
        let ua = dash_empty(if ua_escaped {
            unescape(ua_raw, ua)?
        } else {
            ua_raw
        });
        let event = match (want_event, request_escaped) {
            (false, _) => &b""[..],
            (true, false) => request_path(request_raw),
            (true, true) => request_path(unescape(request_raw, request).unwrap_or(b"")),
        };
        Ok(Fields {
            user,
            time: clock
                .parse(time)
                .map_or(TimeValue::Invalid, TimeValue::Unix),
            ua,
            event,
            status: Some(status),
            ..Fields::default()
        })
    }
}

/// What may follow the user agent: nothing, or space-separated extra fields, each quoted (and closed) or a bare
/// token without quotes. A stray quote here means the user agent held an unescaped one.
pub(crate) fn trailing(line: &[u8], mut p: usize) -> Result<(), Reason> {
    while p < line.len() {
        if line[p] != b' ' {
            return Err(Reason::Quoting);
        }
        p += 1;
        if line.get(p) == Some(&b'"') {
            let (_, _, q) = quoted(line, p)?;
            p = q;
        } else {
            let end = memchr(b' ', &line[p..]).map_or(line.len(), |k| p + k);
            if stray_quote(&line[p..end]) {
                return Err(Reason::Quoting);
            }
            p = end;
        }
    }
    Ok(())
}
