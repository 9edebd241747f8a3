//! The CSV parser: header mapping, RFC 4180 quoting, optional columns, and its malformed lines.

mod common;
use common::*;
use logscan::{ScanConfig, ScanError};

fn mapped(pairs: &[(&str, &str)]) -> ScanConfig {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    ScanConfig::new("csv", &pairs, None, None, 65536).unwrap()
}

#[test]
fn mapped_columns_and_quoted_cells() {
    let csv = "ts,uid,agent,model,pv,extra\r\n\
               2024-01-01T00:00:00Z,u1,\"Agent, with \"\"quotes\"\"\",\"\"\"Pixel 7\"\"\",\"\"\"14.0.0\"\"\",x\r\n";
    let cfg = mapped(&[
        ("time", "ts"),
        ("user", "uid"),
        ("ua", "agent"),
        ("ch_model", "model"),
        ("ch_platform_version", "pv"),
    ]);
    let (s, stats) = scan(&cfg, csv.as_bytes());
    check_invariants(&stats);
    let r = &rows(&s)[0];
    assert_eq!(
        (r.0.as_str(), r.1.as_str()),
        ("u1", "Agent, with \"quotes\"")
    );
    assert_eq!(
        (r.3.as_str(), r.4.as_str()),
        ("Pixel 7", "14.0.0"),
        "client hints lose their quotes"
    );
    assert_eq!(stats.lines_read, 1, "the header is not a data line");
}

#[test]
fn default_names_epoch_times_and_optional_columns() {
    let csv = "user,time,ua,app_device_id\nu,1700000000.9,A,dev-1\nu,1700000005,A,-\n";
    let (s, stats) = scan(&config("csv"), csv.as_bytes());
    check_invariants(&stats);
    let r = rows(&s);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].2.as_str(), r[0].6),
        ("", 1_700_000_005),
        "`-` is empty"
    );
    assert_eq!(
        (r[1].2.as_str(), r[1].6),
        ("dev-1", 1_700_000_000),
        "fractions are floored"
    );
}

#[test]
fn quoting_and_field_count_errors() {
    let csv = "user,time,ua\n\
               u,2024-01-01T00:00:00Z,\"never closed\n\
               u,2024-01-01T00:00:00Z,\"closed\"junk\n\
               u,2024-01-01T00:00:00Z,mid\"quote\n\
               u,2024-01-01T00:00:00Z\n\
               u,2024-01-01T00:00:00Z,a,b\n\
               u,yesterday,a\n\
               u,2024-01-01T00:00:00Z,\n\
               ,2024-01-01T00:00:00Z,a\n";
    let (_, stats) = scan(&config("csv"), csv.as_bytes());
    check_invariants(&stats);
    assert_eq!(malformed(&stats, "quoting"), 3);
    assert_eq!(malformed(&stats, "fields"), 2);
    assert_eq!(malformed(&stats, "time"), 1);
    assert_eq!(malformed(&stats, "no_ua"), 1);
    assert_eq!(stats.filtered_user, 1);
}

#[test]
fn a_missing_mapped_column_is_a_header_error() {
    let cfg = mapped(&[("ua", "user_agent")]);
    let mut scanner = logscan::Scanner::new(&cfg);
    let input =
        logscan::input::Input::new(std::io::Cursor::new(b"user,time,ua\n".to_vec())).unwrap();
    let err = scanner
        .scan_input("x.csv", input, &mut |_| true)
        .unwrap_err();
    match err {
        ScanError::Header { path, message } => {
            assert_eq!(path, "x.csv");
            assert!(message.contains("\"user_agent\""), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn auto_detects_csv_only_from_a_header_naming_the_required_columns() {
    let (_, stats) = scan(&config("auto"), b"user,time,ua\nu,1700000000,A\n");
    assert_eq!(stats.formats[0].1, "csv");
    assert_eq!(stats.kept, 1);
    // A first line that is not such a header is read as a combined log (and is then malformed).
    let (_, stats) = scan(&config("auto"), b"a,b,c\n1,2,3\n");
    assert_eq!(stats.formats[0].1, "combined");
    assert_eq!(malformed(&stats, "fields"), 2);
}
