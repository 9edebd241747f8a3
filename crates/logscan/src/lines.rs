//! Splits a byte stream into lines in large chunks, without copying a line and without buffering a line
//! longer than the limit (its bytes are skipped up to the next newline). The pass that finds a line's end also
//! classifies its bytes for the parsers (`classify`).

use std::io::{self, ErrorKind, Read};

use memchr::memchr;

use crate::classify::{Classes, LineScan};

pub enum Line<'a> {
    /// A line without its `\n` and without one `\r` before it, and the classes of its bytes (a `\r` changes
    /// none of them).
    Text(&'a [u8], &'a Classes),
    /// A line longer than the limit (terminator excluded); its content is not kept.
    OverLong,
}

/// How a stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    Clean,
    /// The reader failed (a truncated or corrupt gzip stream): the message, and how many bytes of an
    /// incomplete last line were dropped.
    Broken {
        message: String,
        truncated: bool,
        dropped_bytes: usize,
    },
}

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// The buffer grows up to this (a longest allowed line, its terminator and a chunk) only when a line needs it.
    cap: usize,
    start: usize,
    end: usize,
    max: usize,
    /// Inside an over-long line: discard until the next newline.
    skipping: bool,
    /// The scan of the line that starts at `start`.
    scan: LineScan,
    eof: bool,
    end_state: Option<End>,
    /// Decoded bytes taken from the reader.
    pub bytes: u64,
}

const CHUNK: usize = 1 << 20;

impl<R: Read> LineReader<R> {
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        let cap = max_line_bytes + 2 + CHUNK;
        LineReader {
            inner,
            buf: vec![0; cap.min(2 * CHUNK)],
            cap,
            start: 0,
            end: 0,
            max: max_line_bytes,
            skipping: false,
            scan: LineScan::default(),
            eof: false,
            end_state: None,
            bytes: 0,
        }
    }

    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// How the stream ended (meaningful once `next_line` returned `None`).
    pub fn end(&self) -> End {
        self.end_state.clone().unwrap_or(End::Clean)
    }

    fn classify(&self, line: &[u8]) -> bool {
        let len = line.len() - usize::from(line.last() == Some(&b'\r'));
        len > self.max
    }

    /// The next line, `Ok(None)` at the end. A plain-file read error is `Err`; a gzip stream error ends the
    /// stream (see `end`) after the last complete line.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            if self.skipping {
                // Inside an over-long line: only where it ends matters.
                if let Some(k) = memchr(b'\n', &self.buf[self.start..self.end]) {
                    self.start += k + 1;
                    self.skipping = false;
                    return Ok(Some(Line::OverLong));
                }
                self.start = self.end;
            } else if let Some(k) = self.scan.find(&self.buf[self.start..self.end]) {
                let (s, e) = (self.start, self.start + k);
                self.start = e + 1;
                if self.classify(&self.buf[s..e]) {
                    self.scan.end_line();
                    return Ok(Some(Line::OverLong));
                }
                let line = &self.buf[s..e];
                return Ok(Some(Line::Text(
                    line.strip_suffix(b"\r").unwrap_or(line),
                    self.scan.end_line(),
                )));
            } else if self.end - self.start > self.max + 1 {
                // No newline in the buffer: a line longer than max + '\r' is over-long whatever follows.
                self.skipping = true;
                self.start = self.end;
                self.scan.end_line();
            }
            if self.eof {
                let broken = matches!(self.end_state, Some(End::Broken { .. }));
                let (s, e) = (self.start, self.end);
                self.start = self.end;
                if broken {
                    // The stream stopped mid-line: that line is incomplete, drop it rather than guess.
                    if let Some(End::Broken { dropped_bytes, .. }) = &mut self.end_state {
                        *dropped_bytes = e - s;
                    }
                    self.skipping = false;
                    self.scan.end_line();
                    return Ok(None);
                }
                if std::mem::take(&mut self.skipping) {
                    self.scan.end_line();
                    return Ok(Some(Line::OverLong));
                }
                if s == e {
                    return Ok(None);
                }
                // A last line without a newline: same rules. The scan has seen all of it.
                if self.classify(&self.buf[s..e]) {
                    self.scan.end_line();
                    return Ok(Some(Line::OverLong));
                }
                let line = &self.buf[s..e];
                return Ok(Some(Line::Text(
                    line.strip_suffix(b"\r").unwrap_or(line),
                    self.scan.end_line(),
                )));
            }
            self.fill()?;
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < CHUNK && self.buf.len() < self.cap {
            // A long line (still within the limit) is in the buffer: make room for another chunk.
            let grown = (self.buf.len() * 2).max(self.end + CHUNK).min(self.cap);
            self.buf.resize(grown, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    self.bytes += n as u64;
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if is_stream_error(&e) => {
                    self.eof = true;
                    let truncated = e.kind() == ErrorKind::UnexpectedEof;
                    self.end_state = Some(End::Broken {
                        message: e.to_string(),
                        truncated,
                        dropped_bytes: 0,
                    });
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Errors of the data (a gzip stream ended early or is corrupt), as opposed to errors of the device.
fn is_stream_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof | ErrorKind::InvalidData | ErrorKind::InvalidInput
    )
}
