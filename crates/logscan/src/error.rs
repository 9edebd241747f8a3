//! The scanner's one error enum: whole-run failures only. A bad line is never an error (it is counted).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// A file could not be opened or read (missing, a directory, no permission, an I/O error).
    Io { path: String, message: String },
    /// A CSV file's header lacks a column the mapping names (or the header itself is unreadable).
    Header { path: String, message: String },
    /// The configuration makes no sense (an unknown format, field or status filter); names the field.
    Config { field: String, message: String },
    /// The caller asked the scan to stop (Ctrl-C).
    Interrupted,
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::Io { path, message } => write!(f, "{path}: cannot read: {message}"),
            ScanError::Header { path, message } => write!(f, "{path}: {message}"),
            ScanError::Config { field, message } => write!(f, "{field}: {message}"),
            ScanError::Interrupted => write!(f, "scan interrupted"),
        }
    }
}

impl std::error::Error for ScanError {}
