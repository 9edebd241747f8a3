//! A tiny `--key value` parser: the probe binaries are driven by greendcn's Python harness, not typed by hand,
//! so a dependency-free parser with clear errors is enough.

use std::collections::HashMap;

#[derive(Debug)]
pub struct Args {
    map: HashMap<String, String>,
}

impl Args {
    /// Parse `--key value` pairs; `known` lists the accepted keys so a typo is an error, not a silent default.
    pub fn parse(argv: impl Iterator<Item = String>, known: &[&str]) -> Result<Args, String> {
        let mut map = HashMap::new();
        let mut it = argv.peekable();
        while let Some(a) = it.next() {
            let key = a
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected argument {a:?}"))?;
            if !known.contains(&key) {
                return Err(format!(
                    "unknown option --{key}; known: --{}",
                    known.join(", --")
                ));
            }
            let value = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
            map.insert(key.to_string(), value);
        }
        Ok(Args { map })
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(|s| s.as_str())
    }

    pub fn required(&self, key: &str) -> Result<&str, String> {
        self.str(key).ok_or_else(|| format!("--{key} is required"))
    }

    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64, String> {
        match self.str(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{key}: expected a whole number, got {v:?}")),
        }
    }

    pub fn i64_or(&self, key: &str, default: i64) -> Result<i64, String> {
        match self.str(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{key}: expected an integer, got {v:?}")),
        }
    }
}

/// Print an error the way greendcn does and exit with status 2 (bad invocation).
pub fn die(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> impl Iterator<Item = String> {
        s.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn parses_and_refuses() {
        let a = Args::parse(argv("--size 1500 --cpu -1"), &["size", "cpu"]).unwrap();
        assert_eq!(a.u64_or("size", 0).unwrap(), 1500);
        assert_eq!(a.i64_or("cpu", 0).unwrap(), -1);
        assert_eq!(a.u64_or("burst", 8).unwrap(), 8);
        assert!(Args::parse(argv("--sise 1"), &["size"])
            .unwrap_err()
            .contains("unknown option --sise"));
        assert!(Args::parse(argv("--size"), &["size"])
            .unwrap_err()
            .contains("needs a value"));
        let bad = Args::parse(argv("--size x"), &["size"]).unwrap();
        assert!(bad.u64_or("size", 0).unwrap_err().contains("--size"));
    }
}
