//! The scan loop: lines from each file, the format decided per file, parsed, checked, filtered, aggregated.

use std::io::Read;

use crate::aggregate::{Aggregator, Sighting};
use crate::classify::classify;
use crate::combined::CombinedParser;
use crate::config::{Format, ScanConfig};
use crate::csv::{header_names, layout, looks_like_header, CsvParser};
use crate::error::ScanError;
use crate::input::{self, Input};
use crate::jsonl::{looks_like_json, JsonParser};
use crate::lines::{End, Line, LineReader};
use crate::record::{Fields, Reason, TimeValue};
use crate::sightings::Sightings;
use crate::stats::{GzipError, Stats};
use crate::time;

/// How often (in lines) the progress callback is asked whether to go on.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Everything a line touches after parsing, apart from the parsers (so both can be borrowed at once).
struct Sink<'c> {
    config: &'c ScanConfig,
    stats: Stats,
    agg: Aggregator,
    /// The last day number seen and its month index: consecutive lines mostly share a day.
    day_cache: (i64, i32),
}

impl Sink<'_> {
    #[inline]
    fn accept(&mut self, f: Fields<'_>) {
        if f.ua.is_empty() {
            return self.stats.count(Reason::NoUa);
        }
        let unix_s = match f.time {
            TimeValue::Unix(t) => Some(t),
            TimeValue::Text(b) => time::parse_text(b),
            TimeValue::Number(b) => time::parse_json_number(b),
            TimeValue::Invalid | TimeValue::Missing => None,
        };
        let Some(unix_s) = unix_s else {
            return self.stats.count(Reason::Time);
        };
        self.stats.parsed += 1;
        if let Some(events) = &self.config.events {
            if !events.contains(f.event) {
                self.stats.filtered_event += 1;
                return;
            }
        }
        if let Some(statuses) = &self.config.statuses {
            if !statuses.keeps(f.status) {
                self.stats.filtered_status += 1;
                return;
            }
        }
        if f.user.is_empty() {
            self.stats.filtered_user += 1;
            return;
        }
        self.stats.kept += 1;
        let day = unix_s.div_euclid(86_400);
        if day != self.day_cache.0 {
            self.day_cache = (day, time::month_index(unix_s));
        }
        self.agg.add(&Sighting {
            user: f.user,
            ua: f.ua,
            app_device_id: f.app_device_id,
            ch_model: f.ch_model,
            ch_platform_version: f.ch_platform_version,
            month: self.day_cache.1,
            unix_s,
        });
    }
}

/// The parser of one file, once its format is known.
enum Parser {
    Undecided,
    Combined,
    Csv(Box<CsvParser>),
    Jsonl,
}

pub struct Scanner<'c> {
    sink: Sink<'c>,
    combined: CombinedParser,
    json: JsonParser,
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r'))
}

impl<'c> Scanner<'c> {
    pub fn new(config: &'c ScanConfig) -> Self {
        Scanner {
            sink: Sink {
                config,
                stats: Stats::default(),
                agg: Aggregator::default(),
                day_cache: (i64::MIN, 0),
            },
            combined: CombinedParser::default(),
            json: JsonParser::new(&config.columns),
        }
    }

    /// Scan one file by path.
    pub fn scan_path(
        &mut self,
        path: &str,
        progress: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(), ScanError> {
        let io_err = |e: std::io::Error| ScanError::Io {
            path: path.to_string(),
            message: e.to_string(),
        };
        let input = input::open(path).map_err(io_err)?;
        self.scan_input(path, input, progress)
    }

    /// Scan one stream (plain or gzip bytes); `name` labels it in errors and stats.
    pub fn scan_input<R: Read>(
        &mut self,
        name: &str,
        input: Input<R>,
        progress: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(), ScanError> {
        let config = self.sink.config;
        let want_event = config.events.is_some();
        let gzip = input.is_gzip();
        let bytes_before = self.sink.stats.bytes_read;
        let mut reader = LineReader::new(input, config.max_line_bytes);
        // Decided on the first non-blank line that fits the limit (for CSV, that line is the header).
        let mut parser = Parser::Undecided;
        let mut first = true;
        // The classes of a first line without its byte-order mark.
        let mut bom_stripped;
        let mut since_progress = 0u64;
        let io_err = |e: std::io::Error| ScanError::Io {
            path: name.to_string(),
            message: e.to_string(),
        };
        loop {
            since_progress += 1;
            if since_progress == PROGRESS_EVERY {
                since_progress = 0;
                if !progress(bytes_before + reader.get_ref().raw_bytes()) {
                    return Err(ScanError::Interrupted);
                }
            }
            let Some(line) = reader.next_line().map_err(io_err)? else {
                break;
            };
            let stats = &mut self.sink.stats;
            let (mut b, mut classes) = match line {
                Line::OverLong => {
                    first = false;
                    stats.lines_read += 1;
                    stats.count(Reason::OverLong);
                    continue;
                }
                Line::Text(b, classes) => (b, classes),
            };
            if std::mem::take(&mut first) {
                if let Some(rest) = b.strip_prefix(b"\xef\xbb\xbf") {
                    bom_stripped = classify(rest);
                    (b, classes) = (rest, &bom_stripped);
                }
            }
            if blank(b) {
                stats.blank_lines += 1;
                continue;
            }
            if let Parser::Undecided = parser {
                let format = match config.format {
                    Format::Auto if looks_like_json(b) => Format::Jsonl,
                    Format::Auto if looks_like_header(b, &config.columns) => Format::Csv,
                    Format::Auto => Format::Combined,
                    explicit => explicit,
                };
                parser = match format {
                    Format::Csv => {
                        let header_err = |message: String| ScanError::Header {
                            path: name.to_string(),
                            message,
                        };
                        let names = header_names(b).ok_or_else(|| {
                            header_err("CSV header has broken quoting or is not UTF-8".into())
                        })?;
                        let at = layout(&names, &config.columns).map_err(header_err)?;
                        stats.formats.push((name.to_string(), "csv"));
                        parser = Parser::Csv(Box::new(CsvParser::new(at, names.len())));
                        continue; // the header is not a data line
                    }
                    Format::Jsonl => Parser::Jsonl,
                    _ => Parser::Combined,
                };
                stats.formats.push((name.to_string(), format.name()));
            }
            stats.lines_read += 1;
            // The combined parser checks UTF-8 itself (it knows from its own pass whether a line is ASCII).
            let utf8 = |b| simdutf8::basic::from_utf8(b).map_err(|_| Reason::BadUtf8);
            let parsed = match &mut parser {
                Parser::Combined => self.combined.parse(b, classes, want_event),
                Parser::Csv(csv) => utf8(b).and_then(|_| csv.parse(b)),
                Parser::Jsonl => utf8(b).and_then(|_| self.json.parse(b)),
                Parser::Undecided => unreachable!("decided above"),
            };
            match parsed {
                Ok(fields) => self.sink.accept(fields),
                Err(reason) => self.sink.stats.count(reason),
            }
        }
        let stats = &mut self.sink.stats;
        if let Parser::Undecided = parser {
            let label = if config.format == Format::Auto {
                "empty"
            } else {
                config.format.name()
            };
            stats.formats.push((name.to_string(), label));
        }
        stats.files += 1;
        stats.bytes_read = bytes_before + reader.get_ref().raw_bytes();
        if let End::Broken {
            message,
            truncated,
            dropped_bytes,
        } = reader.end()
        {
            debug_assert!(gzip, "only a gzip stream can break without an I/O error");
            stats.gzip_errors.push(GzipError {
                file: name.to_string(),
                error: if truncated { "truncated" } else { "corrupt" },
                detail: message,
                dropped_bytes: dropped_bytes as u64,
            });
        }
        if !progress(stats.bytes_read) {
            return Err(ScanError::Interrupted);
        }
        Ok(())
    }

    pub fn finish(self) -> (Sightings, Stats) {
        (self.sink.agg.finish(), self.sink.stats)
    }
}
