//! What a scan is asked to do: the input format, the CSV/JSONL column mapping, the filters, the line limit.

use rustc_hash::FxHashSet;

use crate::error::ScanError;

/// The input format; `Auto` decides per file from its first non-blank line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Auto,
    Combined,
    Csv,
    Jsonl,
}

impl Format {
    pub fn parse(name: &str) -> Result<Format, ScanError> {
        match name {
            "auto" => Ok(Format::Auto),
            "combined" => Ok(Format::Combined),
            "csv" => Ok(Format::Csv),
            "jsonl" => Ok(Format::Jsonl),
            _ => Err(ScanError::Config {
                field: "fmt".into(),
                message: format!("unknown format {name:?} (expected auto, combined, csv or jsonl)"),
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Combined => "combined",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

/// The fields a line can give. The order is the index into `Columns::names`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    User = 0,
    Time,
    Ua,
    Event,
    AppDeviceId,
    ChModel,
    ChPlatformVersion,
    Status,
}

pub const FIELDS: [Field; 8] = [
    Field::User,
    Field::Time,
    Field::Ua,
    Field::Event,
    Field::AppDeviceId,
    Field::ChModel,
    Field::ChPlatformVersion,
    Field::Status,
];

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::User => "user",
            Field::Time => "time",
            Field::Ua => "ua",
            Field::Event => "event",
            Field::AppDeviceId => "app_device_id",
            Field::ChModel => "ch_model",
            Field::ChPlatformVersion => "ch_platform_version",
            Field::Status => "status",
        }
    }

    pub fn required(self) -> bool {
        matches!(self, Field::User | Field::Time | Field::Ua)
    }
}

/// Column (CSV) or key (JSONL) name of each field. A field not mapped explicitly is read from a column of its
/// own name; `explicit` remembers which were mapped, because a mapped CSV column must exist.
#[derive(Debug, Clone)]
pub struct Columns {
    pub names: [String; 8],
    pub explicit: [bool; 8],
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            names: FIELDS.map(|f| f.name().to_string()),
            explicit: [false; 8],
        }
    }
}

impl Columns {
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Columns, ScanError> {
        let mut c = Columns::default();
        for (field, column) in pairs {
            let Some(f) = FIELDS.iter().find(|f| f.name() == field) else {
                let known: Vec<&str> = FIELDS.iter().map(|f| f.name()).collect();
                return Err(ScanError::Config {
                    field: format!("columns.{field}"),
                    message: format!("unknown field (known: {})", known.join(", ")),
                });
            };
            if column.is_empty() {
                return Err(ScanError::Config {
                    field: format!("columns.{field}"),
                    message: "empty column name".into(),
                });
            }
            c.names[*f as usize] = column.clone();
            c.explicit[*f as usize] = true;
        }
        Ok(c)
    }

    pub fn name(&self, f: Field) -> &str {
        &self.names[f as usize]
    }
}

/// HTTP status codes to keep: a set over 100..=999, filled from codes ("302") and classes ("2xx").
#[derive(Debug, Clone)]
pub struct StatusFilter {
    keep: Box<[bool; 1000]>,
}

impl StatusFilter {
    pub fn parse(items: &[String]) -> Result<StatusFilter, ScanError> {
        let mut keep = Box::new([false; 1000]);
        for item in items {
            let b = item.trim().as_bytes();
            let bad = || ScanError::Config {
                field: "statuses".into(),
                message: format!(
                    "{item:?} is neither a status code (100-999) nor a class like \"2xx\""
                ),
            };
            if b.len() != 3 || !(b'1'..=b'9').contains(&b[0]) {
                return Err(bad());
            }
            if b[1..].eq_ignore_ascii_case(b"xx") {
                let base = usize::from(b[0] - b'0') * 100;
                keep[base..base + 100].iter_mut().for_each(|k| *k = true);
            } else if b[1..].iter().all(u8::is_ascii_digit) {
                keep[usize::from(b[0] - b'0') * 100
                    + usize::from(b[1] - b'0') * 10
                    + usize::from(b[2] - b'0')] = true;
            } else {
                return Err(bad());
            }
        }
        Ok(StatusFilter { keep })
    }

    /// `None` (no usable status on the line) never matches a filter.
    pub fn keeps(&self, status: Option<u16>) -> bool {
        status.is_some_and(|s| self.keep.get(usize::from(s)).copied().unwrap_or(false))
    }
}

#[derive(Debug, Clone)]
pub struct ScanConfig {
    pub format: Format,
    pub columns: Columns,
    /// Keep only lines whose event is in this set; `None`: no event filter.
    pub events: Option<FxHashSet<Vec<u8>>>,
    /// Keep only these statuses; `None`: no status filter.
    pub statuses: Option<StatusFilter>,
    /// Longer lines (terminator excluded) are counted as `over_long` and skipped without being buffered.
    pub max_line_bytes: usize,
}

pub const MIN_LINE_BYTES: usize = 64;
pub const MAX_LINE_BYTES: usize = 1 << 30;

impl ScanConfig {
    pub fn new(
        format: &str,
        columns: &[(String, String)],
        events: Option<&[String]>,
        statuses: Option<&[String]>,
        max_line_bytes: usize,
    ) -> Result<ScanConfig, ScanError> {
        if !(MIN_LINE_BYTES..=MAX_LINE_BYTES).contains(&max_line_bytes) {
            return Err(ScanError::Config {
                field: "max_line_bytes".into(),
                message: format!("{max_line_bytes} is outside {MIN_LINE_BYTES}..={MAX_LINE_BYTES}"),
            });
        }
        Ok(ScanConfig {
            format: Format::parse(format)?,
            columns: Columns::from_pairs(columns)?,
            events: events.map(|e| e.iter().map(|s| s.as_bytes().to_vec()).collect()),
            statuses: statuses.map(StatusFilter::parse).transpose()?,
            max_line_bytes,
        })
    }
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            format: Format::Auto,
            columns: Columns::default(),
            events: None,
            statuses: None,
            max_line_bytes: 65536,
        }
    }
}
