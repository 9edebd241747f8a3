//! The engine's one closed error type: every bad input is reported, never panicked on.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The JSON spec could not be read (syntax, unknown key, wrong type).
    Parse(String),
    /// The spec was read but makes no sense (a flow to a switch, a zero rate, ...); names the field.
    Invalid(String),
    /// The caller asked the run to stop (Ctrl-C).
    Interrupted,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Parse(m) => write!(f, "cannot read engine spec: {m}"),
            EngineError::Invalid(m) => write!(f, "invalid engine spec: {m}"),
            EngineError::Interrupted => write!(f, "simulation interrupted"),
        }
    }
}

impl std::error::Error for EngineError {}
