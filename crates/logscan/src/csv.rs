//! CSV rows (RFC 4180 quoting: `"` around a cell, `""` inside it) with a header row naming the columns.
//! A row is one line: a quoted cell cannot span lines (an export of access logs has no newline in a cell, and
//! one stray quote then cannot swallow the rest of the file).

use memchr::{memchr, memchr2};

use crate::config::{Columns, Field, FIELDS};
use crate::record::{fields_from_values, Fields, Reason, Value};

/// Calls `cell(index, raw, quoted)` for each cell of `line`; `raw` is the inside of a quoted cell (with `""`
/// still doubled). Returns the number of cells. Quote errors stop the row.
fn cells<'a>(line: &'a [u8], mut cell: impl FnMut(usize, &'a [u8], bool)) -> Result<usize, Reason> {
    let mut p = 0;
    let mut n = 0;
    loop {
        if line.get(p) == Some(&b'"') {
            let start = p + 1;
            let mut i = start;
            loop {
                i += memchr(b'"', &line[i..]).ok_or(Reason::Quoting)?;
                if line.get(i + 1) == Some(&b'"') {
                    i += 2;
                } else {
                    break;
                }
            }
            cell(n, &line[start..i], true);
            p = i + 1;
            n += 1;
            match line.get(p) {
                None => return Ok(n),
                Some(b',') => p += 1,
                Some(_) => return Err(Reason::Quoting),
            }
        } else {
            let end = memchr2(b',', b'"', &line[p..]).map_or(line.len(), |k| p + k);
            if line.get(end) == Some(&b'"') {
                return Err(Reason::Quoting);
            }
            cell(n, &line[p..end], false);
            n += 1;
            if end == line.len() {
                return Ok(n);
            }
            p = end + 1;
        }
    }
}

/// `""` -> `"` in a quoted cell; the cell itself when it has none.
fn undouble<'a>(raw: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
    if memchr(b'"', raw).is_none() {
        return raw;
    }
    buf.clear();
    let mut i = 0;
    while i < raw.len() {
        buf.push(raw[i]);
        i += if raw[i] == b'"' { 2 } else { 1 };
    }
    buf.as_slice()
}

/// The cells of a header row, unquoted, as strings; `None` if its quoting is broken or it is not UTF-8.
pub fn header_names(line: &[u8]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut buf = Vec::new();
    cells(line, |_, raw, _| {
        names.push(String::from_utf8_lossy(undouble(raw, &mut buf)).into_owned())
    })
    .ok()?;
    std::str::from_utf8(line).ok()?;
    Some(names)
}

/// The column index of each field in a header; `Err(message)` if a required or explicitly mapped column is
/// missing. An optional field not mapped explicitly is simply absent when no column has its name.
pub fn layout(names: &[String], columns: &Columns) -> Result<[Option<usize>; 8], String> {
    let mut at = [None; 8];
    for f in FIELDS {
        let name = columns.name(f);
        at[f as usize] = names.iter().position(|n| n == name);
        if at[f as usize].is_none() && (f.required() || columns.explicit[f as usize]) {
            return Err(format!(
                "CSV header has no column {name:?} for field {:?} (header: {}); map it with columns={{\"{}\": \"<column>\"}}",
                f.name(),
                names.join(","),
                f.name()
            ));
        }
    }
    Ok(at)
}

/// Parses rows of one CSV file after its header.
pub struct CsvParser {
    /// For each column index, the field it feeds (a column may feed several fields).
    wanted: Vec<u8>,
    /// Whether the header has a column for each field.
    present: [bool; 8],
    width: usize,
    scratch: [Vec<u8>; 8],
}

impl CsvParser {
    pub fn new(at: [Option<usize>; 8], width: usize) -> CsvParser {
        let mut wanted = vec![0u8; width];
        for f in FIELDS {
            if let Some(i) = at[f as usize] {
                wanted[i] |= 1 << (f as u8);
            }
        }
        CsvParser {
            wanted,
            present: at.map(|a| a.is_some()),
            width,
            scratch: Default::default(),
        }
    }

    pub fn parse<'a>(&'a mut self, line: &'a [u8]) -> Result<Fields<'a>, Reason> {
        let mut raw: [(&[u8], bool); 8] = [(b"", false); 8];
        let wanted = &self.wanted;
        let n = cells(line, |i, cell, quoted| {
            if let Some(&mask) = wanted.get(i) {
                for f in FIELDS {
                    if mask & (1 << (f as u8)) != 0 {
                        raw[f as usize] = (cell, quoted);
                    }
                }
            }
        })?;
        if n != self.width {
            return Err(Reason::Fields);
        }
        let mut values = [Value::Absent; 8];
        let cells = values
            .iter_mut()
            .zip(raw.iter())
            .zip(self.scratch.iter_mut())
            .zip(self.present);
        for (((value, &(cell, quoted)), buf), present) in cells {
            if present {
                *value = Value::Str(if quoted { undouble(cell, buf) } else { cell });
            }
        }
        Ok(fields_from_values(&values))
    }
}

/// Whether a line is a header naming the required columns (used to tell CSV from other formats).
pub fn looks_like_header(line: &[u8], columns: &Columns) -> bool {
    header_names(line).is_some_and(|names| {
        [Field::User, Field::Time, Field::Ua]
            .iter()
            .all(|&f| names.iter().any(|n| n == columns.name(f)))
    })
}
