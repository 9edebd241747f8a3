//! The engine's one closed error type: every bad input is reported, never panicked on. An input error carries
//! the location of the offending field in the spec as a path (`flows[3].size_bytes` -> ["flows", 3,
//! "size_bytes"]), so the binding can hand it to Python as data and Python can name the scenario key.

use std::fmt;

/// One step of a field's location in the spec: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocItem {
    Key(String),
    Index(usize),
}

/// Where in the spec a problem is: a path of keys and indices; empty for the spec as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Loc(pub Vec<LocItem>);

impl Loc {
    /// Parse a dotted path with indices, as written in messages and by serde_path_to_error:
    /// `links[3].a`, `tcp.mss`, `.` (the root) or `` (the root).
    pub fn parse(path: &str) -> Loc {
        let mut items = Vec::new();
        for part in path.split('.').filter(|p| !p.is_empty()) {
            let mut rest = part;
            if let Some(open) = rest.find('[') {
                if open > 0 {
                    items.push(LocItem::Key(rest[..open].to_string()));
                }
                rest = &rest[open..];
                while let Some(stripped) = rest.strip_prefix('[') {
                    let Some(close) = stripped.find(']') else {
                        break;
                    };
                    match stripped[..close].parse::<usize>() {
                        Ok(i) => items.push(LocItem::Index(i)),
                        Err(_) => items.push(LocItem::Key(stripped[..close].to_string())),
                    }
                    rest = &stripped[close + 1..];
                }
            } else {
                items.push(LocItem::Key(rest.to_string()));
            }
        }
        Loc(items)
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            match item {
                LocItem::Key(k) if i == 0 => write!(f, "{k}")?,
                LocItem::Key(k) => write!(f, ".{k}")?,
                LocItem::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The JSON spec could not be read (syntax, unknown key, wrong type) at `loc`.
    Parse { loc: Loc, msg: String },
    /// The spec was read but makes no sense (a flow to a switch, a zero rate, ...) at `loc`.
    Invalid { loc: Loc, msg: String },
    /// The caller asked the run to stop (Ctrl-C).
    Interrupted,
}

impl EngineError {
    /// An input error at the field written as a path (`"links[3].rate_bps"`).
    pub fn invalid(path: &str, msg: impl Into<String>) -> Self {
        EngineError::Invalid {
            loc: Loc::parse(path),
            msg: msg.into(),
        }
    }

    /// The location of an input error (None for an interruption).
    pub fn loc(&self) -> Option<&Loc> {
        match self {
            EngineError::Parse { loc, .. } | EngineError::Invalid { loc, .. } => Some(loc),
            EngineError::Interrupted => None,
        }
    }
}

fn located(f: &mut fmt::Formatter<'_>, loc: &Loc, msg: &str) -> fmt::Result {
    if loc.0.is_empty() {
        write!(f, "{msg}")
    } else {
        write!(f, "{loc}: {msg}")
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Parse { loc, msg } => {
                write!(f, "cannot read engine spec: ")?;
                located(f, loc, msg)
            }
            EngineError::Invalid { loc, msg } => {
                write!(f, "invalid engine spec: ")?;
                located(f, loc, msg)
            }
            EngineError::Interrupted => write!(f, "simulation interrupted"),
        }
    }
}

impl std::error::Error for EngineError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_into_keys_and_indices_and_print_back() {
        let loc = Loc::parse("flows[3].size_bytes");
        assert_eq!(
            loc.0,
            vec![
                LocItem::Key("flows".into()),
                LocItem::Index(3),
                LocItem::Key("size_bytes".into())
            ]
        );
        assert_eq!(loc.to_string(), "flows[3].size_bytes");
        assert_eq!(Loc::parse(".").0, vec![]);
        assert_eq!(Loc::parse("a[1][2].b").to_string(), "a[1][2].b");
    }

    #[test]
    fn messages_keep_their_old_form() {
        let e = EngineError::invalid("links[0].rate_bps", "must be positive");
        assert_eq!(
            e.to_string(),
            "invalid engine spec: links[0].rate_bps: must be positive"
        );
    }
}
