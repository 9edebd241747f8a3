//! What a parser gives back for one line: its fields (borrowed from the line or a scratch buffer), or the
//! reason the line is malformed.

/// Why a line was not parsed. The order is the index into `Stats::malformed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A quoted field is not closed, or a quote stands where the format does not allow one.
    Quoting = 0,
    /// The timestamp is missing, unparseable, or outside 1970..=9999.
    Time,
    /// The user agent is missing, empty or `-`.
    NoUa,
    /// The line (or an escaped value in it) is not UTF-8.
    BadUtf8,
    /// Longer than `max_line_bytes`.
    OverLong,
    /// The line does not have the format's structure (missing fields, wrong types, not a JSON object).
    Fields,
}

pub const REASONS: [Reason; 6] = [
    Reason::Quoting,
    Reason::Time,
    Reason::NoUa,
    Reason::BadUtf8,
    Reason::OverLong,
    Reason::Fields,
];

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Quoting => "quoting",
            Reason::Time => "time",
            Reason::NoUa => "no_ua",
            Reason::BadUtf8 => "bad_utf8",
            Reason::OverLong => "over_long",
            Reason::Fields => "fields",
        }
    }
}

/// The timestamp as the line gives it; a bad one is counted only after the structure and the UA are known to be
/// fine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeValue<'a> {
    /// Already read by the parser (a combined log's bracketed time, whose fast path needs it read to know where
    /// the field ends).
    Unix(i64),
    /// Present but not accepted by the format's time rules.
    Invalid,
    /// CSV text or a JSON string: epoch seconds or ISO 8601.
    Text(&'a [u8]),
    /// A JSON number token.
    Number(&'a [u8]),
    Missing,
}

/// One well-structured line. Absent optional fields are empty; `-` has already been turned into empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields<'a> {
    pub user: &'a [u8],
    pub time: TimeValue<'a>,
    pub ua: &'a [u8],
    pub event: &'a [u8],
    pub app_device_id: &'a [u8],
    pub ch_model: &'a [u8],
    pub ch_platform_version: &'a [u8],
    /// A three-digit status, `None` if the line has none (or not a usable one, in CSV/JSONL).
    pub status: Option<u16>,
}

impl Default for Fields<'_> {
    fn default() -> Self {
        Fields {
            user: b"",
            time: TimeValue::Missing,
            ua: b"",
            event: b"",
            app_device_id: b"",
            ch_model: b"",
            ch_platform_version: b"",
            status: None,
        }
    }
}

/// The log convention for "no value" is `-`; it counts as empty everywhere.
pub fn dash_empty(v: &[u8]) -> &[u8] {
    if v == b"-" {
        b""
    } else {
        v
    }
}

/// Client hints are structured-header strings (`"Pixel 7"`): drop one pair of surrounding quotes.
pub fn unquote_hint(v: &[u8]) -> &[u8] {
    if v.len() >= 2 && v[0] == b'"' && v[v.len() - 1] == b'"' {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

/// A status given as text: exactly three ASCII digits, 100-999.
pub fn status_text(v: &[u8]) -> Option<u16> {
    if v.len() == 3 && v[0] != b'0' && v.iter().all(u8::is_ascii_digit) {
        Some(v.iter().fold(0u16, |a, &c| a * 10 + u16::from(c - b'0')))
    } else {
        None
    }
}

/// A CSV cell or JSON value of a mapped field, before the field rules below are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// No such column/key, or JSON `null`.
    Absent,
    /// Text (a CSV cell or a JSON string), unescaped.
    Str(&'a [u8]),
    /// A JSON number token as written.
    Num(&'a [u8]),
}

impl<'a> Value<'a> {
    fn text(self) -> &'a [u8] {
        match self {
            Value::Absent => b"",
            Value::Str(v) | Value::Num(v) => dash_empty(v),
        }
    }
}

/// The field rules shared by CSV and JSON lines; `values` is indexed by `config::Field`.
pub fn fields_from_values<'a>(values: &[Value<'a>; 8]) -> Fields<'a> {
    use crate::config::Field as F;
    let time = match values[F::Time as usize] {
        Value::Num(v) => TimeValue::Number(v),
        other => match other.text() {
            b"" => TimeValue::Missing,
            v => TimeValue::Text(v),
        },
    };
    let status = match values[F::Status as usize] {
        Value::Absent => None,
        Value::Str(v) | Value::Num(v) => status_text(v),
    };
    Fields {
        user: values[F::User as usize].text(),
        time,
        ua: values[F::Ua as usize].text(),
        event: values[F::Event as usize].text(),
        app_device_id: values[F::AppDeviceId as usize].text(),
        ch_model: dash_empty(unquote_hint(values[F::ChModel as usize].text())),
        ch_platform_version: dash_empty(unquote_hint(values[F::ChPlatformVersion as usize].text())),
        status,
    }
}
