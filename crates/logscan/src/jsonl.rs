//! JSON lines: one object per line; mapped keys at the top level, values strings or numbers (null: absent).
//! The whole line is validated as JSON (RFC 8259), iteratively, so deep nesting cannot overflow a stack.

use memchr::memchr2;

use crate::config::{Columns, FIELDS};
use crate::record::{fields_from_values, Fields, Reason, Value};

/// A top-level value of a mapped key before decoding.
#[derive(Clone, Copy)]
enum Raw<'a> {
    Absent,
    Str {
        raw: &'a [u8],
        escaped: bool,
    },
    Num(&'a [u8]),
    /// `true`, `false`, an object or an array: not a usable field value.
    Other,
}

pub struct JsonParser {
    keys: [Vec<u8>; 8],
    stack: Vec<u8>,
    key_buf: Vec<u8>,
    scratch: [Vec<u8>; 8],
}

fn ws(line: &[u8], mut p: usize) -> usize {
    while matches!(line.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        p += 1;
    }
    p
}

fn hex4(b: &[u8]) -> Option<u32> {
    if b.len() < 4 {
        return None;
    }
    b[..4]
        .iter()
        .try_fold(0u32, |a, &c| Some(a * 16 + (c as char).to_digit(16)?))
}

/// A string starting at the quote `p`: its raw inside, whether it has escapes, the position after it.
/// Bad escapes, control characters and a missing close are `Quoting`; a lone surrogate sets `lone`.
fn string<'a>(
    line: &'a [u8],
    p: usize,
    lone: &mut bool,
) -> Result<(&'a [u8], bool, usize), Reason> {
    let start = p + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
        i += memchr2(b'"', b'\\', &line[i..]).ok_or(Reason::Quoting)?;
        if line[i] == b'"' {
            let raw = &line[start..i];
            if raw.iter().any(|&c| c < 0x20) {
                return Err(Reason::Quoting);
            }
            return Ok((raw, escaped, i + 1));
        }
        escaped = true;
        match line.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
            Some(b'u') => {
                let cp = hex4(&line[i + 2..]).ok_or(Reason::Quoting)?;
                i += 6;
                if (0xD800..0xDC00).contains(&cp) {
                    let low = if line[i..].starts_with(b"\\u") {
                        hex4(&line[i + 2..])
                    } else {
                        None
                    };
                    match low {
                        Some(l) if (0xDC00..0xE000).contains(&l) => i += 6,
                        _ => *lone = true,
                    }
                } else if (0xDC00..0xE000).contains(&cp) {
                    *lone = true;
                }
            }
            _ => return Err(Reason::Quoting),
        }
    }
}

/// Decode a validated string's escapes into `buf` (a lone surrogate, already flagged, becomes U+FFFD).
fn decode<'a>(raw: &'a [u8], escaped: bool, buf: &'a mut Vec<u8>) -> &'a [u8] {
    if !escaped {
        return raw;
    }
    buf.clear();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'\\' {
            buf.push(raw[i]);
            i += 1;
            continue;
        }
        let c = raw[i + 1];
        i += 2;
        let ch = match c {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let cp = hex4(&raw[i..]).unwrap_or(0xFFFD);
                i += 4;
                let low = if (0xD800..0xDC00).contains(&cp) && raw[i..].starts_with(b"\\u") {
                    hex4(&raw[i + 2..]).filter(|l| (0xDC00..0xE000).contains(l))
                } else {
                    None
                };
                let full = match low {
                    Some(l) => {
                        i += 6;
                        0x10000 + ((cp - 0xD800) << 10) + (l - 0xDC00)
                    }
                    None => cp,
                };
                char::from_u32(full).unwrap_or('\u{FFFD}')
            }
            other => other as char, // '"', '\\' and '/' stand for themselves
        };
        let mut tmp = [0u8; 4];
        buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
    }
    buf.as_slice()
}

/// A number token at `p`: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`; returns the position after it.
fn number(line: &[u8], p: usize) -> Result<usize, Reason> {
    let digit = |i: usize| line.get(i).is_some_and(u8::is_ascii_digit);
    let run = |mut i: usize| {
        while digit(i) {
            i += 1;
        }
        i
    };
    let mut i = p + usize::from(line[p] == b'-');
    match line.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = run(i),
        _ => return Err(Reason::Fields),
    }
    if line.get(i) == Some(&b'.') && digit(i + 1) {
        i = run(i + 1);
    }
    if matches!(line.get(i), Some(b'e' | b'E')) {
        let j = i + 1 + usize::from(matches!(line.get(i + 1), Some(b'+' | b'-')));
        if digit(j) {
            i = run(j);
        }
    }
    Ok(i)
}

/// Skip one value of any kind at `p` (containers iteratively, with `stack`); the position after it.
fn skip_value(
    line: &[u8],
    mut p: usize,
    stack: &mut Vec<u8>,
    lone: &mut bool,
) -> Result<usize, Reason> {
    stack.clear();
    loop {
        p = ws(line, p);
        match line.get(p) {
            Some(b'{') => {
                p = ws(line, p + 1);
                if line.get(p) == Some(&b'}') {
                    p += 1;
                } else {
                    stack.push(b'{');
                    p = member_key(line, p, lone)?;
                    continue;
                }
            }
            Some(b'[') => {
                p = ws(line, p + 1);
                if line.get(p) == Some(&b']') {
                    p += 1;
                } else {
                    stack.push(b'[');
                    continue;
                }
            }
            Some(b'"') => p = string(line, p, lone)?.2,
            Some(b'-' | b'0'..=b'9') => p = number(line, p)?,
            _ => {
                let lit = [&b"true"[..], b"false", b"null"]
                    .into_iter()
                    .find(|l| line[p..].starts_with(l));
                p += lit.ok_or(Reason::Fields)?.len();
            }
        }
        // A value ended: close containers or move to the next element.
        loop {
            let Some(&top) = stack.last() else {
                return Ok(p);
            };
            p = ws(line, p);
            match (top, line.get(p)) {
                (_, Some(b',')) => {
                    p += 1;
                    if top == b'{' {
                        p = member_key(line, ws(line, p), lone)?;
                    }
                    break;
                }
                (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                    stack.pop();
                    p += 1;
                }
                _ => return Err(Reason::Fields),
            }
        }
    }
}

/// `"key" :` at `p`; the position after the colon.
fn member_key(line: &[u8], p: usize, lone: &mut bool) -> Result<usize, Reason> {
    if line.get(p) != Some(&b'"') {
        return Err(Reason::Fields);
    }
    let p = ws(line, string(line, p, lone)?.2);
    if line.get(p) != Some(&b':') {
        return Err(Reason::Fields);
    }
    Ok(p + 1)
}

impl JsonParser {
    pub fn new(columns: &Columns) -> JsonParser {
        JsonParser {
            keys: FIELDS.map(|f| columns.name(f).as_bytes().to_vec()),
            stack: Vec::new(),
            key_buf: Vec::new(),
            scratch: Default::default(),
        }
    }

    pub fn parse<'a>(&'a mut self, line: &'a [u8]) -> Result<Fields<'a>, Reason> {
        let mut raw = [Raw::Absent; 8];
        let mut lone = false;
        let mut p = ws(line, 0);
        if line.get(p) != Some(&b'{') {
            // Not an object: `fields`, unless the value itself has a quoting error that comes first.
            return match skip_value(line, p, &mut self.stack, &mut lone) {
                Err(Reason::Quoting) => Err(Reason::Quoting),
                _ => Err(Reason::Fields),
            };
        }
        p = ws(line, p + 1);
        if line.get(p) == Some(&b'}') {
            p += 1;
        } else {
            loop {
                if line.get(p) != Some(&b'"') {
                    return Err(Reason::Fields);
                }
                let (key_raw, key_escaped, after_key) = string(line, p, &mut lone)?;
                p = ws(line, after_key);
                if line.get(p) != Some(&b':') {
                    return Err(Reason::Fields);
                }
                p = ws(line, p + 1);
                let value = match line.get(p) {
                    Some(b'"') => {
                        let (r, escaped, next) = string(line, p, &mut lone)?;
                        p = next;
                        Raw::Str { raw: r, escaped }
                    }
                    Some(b'-' | b'0'..=b'9') => {
                        let next = number(line, p)?;
                        let token = &line[p..next];
                        p = next;
                        Raw::Num(token)
                    }
                    _ => {
                        let start = p;
                        p = skip_value(line, p, &mut self.stack, &mut lone)?;
                        if &line[start..p] == b"null" {
                            Raw::Absent
                        } else {
                            Raw::Other
                        }
                    }
                };
                let key = decode(key_raw, key_escaped, &mut self.key_buf);
                for (slot, name) in raw.iter_mut().zip(self.keys.iter()) {
                    if key == name.as_slice() {
                        *slot = value; // a repeated key: the last one wins, as in most JSON readers
                    }
                }
                p = ws(line, p);
                match line.get(p) {
                    Some(b',') => p = ws(line, p + 1),
                    Some(b'}') => {
                        p += 1;
                        break;
                    }
                    _ => return Err(Reason::Fields),
                }
            }
        }
        if ws(line, p) != line.len() {
            return Err(Reason::Fields);
        }
        if raw.iter().any(|r| matches!(r, Raw::Other)) {
            return Err(Reason::Fields);
        }
        if lone {
            return Err(Reason::BadUtf8);
        }
        let mut values = [Value::Absent; 8];
        for ((value, r), buf) in values
            .iter_mut()
            .zip(raw.iter())
            .zip(self.scratch.iter_mut())
        {
            *value = match *r {
                Raw::Str { raw, escaped } => Value::Str(decode(raw, escaped, buf)),
                Raw::Num(token) => Value::Num(token),
                Raw::Absent | Raw::Other => Value::Absent,
            };
        }
        Ok(fields_from_values(&values))
    }
}

/// Whether a line starts like a JSON object (used to tell JSON lines from other formats).
pub fn looks_like_json(line: &[u8]) -> bool {
    line.get(ws(line, 0)) == Some(&b'{')
}
