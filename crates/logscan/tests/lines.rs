//! Line handling shared by all formats: over-long lines, bad UTF-8, garbage, a BOM, no final newline.

mod common;
use common::*;
use logscan::ScanConfig;

fn line(user: &str) -> String {
    combined(
        user,
        "01/Jan/2024:00:00:00 +0000",
        "GET / HTTP/1.1",
        200,
        UA,
    )
}

#[test]
fn an_over_long_line_is_skipped_and_the_next_line_survives() {
    let cfg = ScanConfig::new("combined", &[], None, None, 1024).unwrap();
    let long = "x".repeat(3 << 20);
    let log = format!("{}{long}\n{}{}", line("a"), line("b"), line("c").trim_end());
    let (s, stats) = scan(&cfg, log.as_bytes());
    check_invariants(&stats);
    assert_eq!(
        (stats.lines_read, stats.kept, malformed(&stats, "over_long")),
        (4, 3, 1)
    );
    assert_eq!(s.len(), 3);
}

#[test]
fn the_limit_excludes_the_terminator() {
    let cfg = ScanConfig::new("combined", &[], None, None, 100).unwrap();
    let exact = "y".repeat(100);
    let over = "y".repeat(101);
    for (body, term, over_long) in [
        (&exact, "\n", 0),
        (&exact, "\r\n", 0),
        (&over, "\n", 1),
        (&over, "\r\n", 1),
        (&over, "", 1),
    ] {
        let log = format!("{body}{term}");
        let (_, stats) = scan(&cfg, log.as_bytes());
        assert_eq!(
            malformed(&stats, "over_long"),
            over_long,
            "{} bytes + {term:?}",
            body.len()
        );
        assert_eq!(stats.lines_read, 1);
    }
}

#[test]
fn bad_utf8_and_binary_garbage_are_counted_not_fatal() {
    let mut log = line("a").into_bytes();
    log.extend_from_slice(
        b"10.0.0.1 - u [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"\xff\xfe\"\n",
    );
    let mut x: u32 = 12345;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        log.push(x as u8);
    }
    log.push(b'\n');
    log.extend_from_slice(line("b").as_bytes());
    let (_, stats) = scan(&config("auto"), &log);
    check_invariants(&stats);
    assert_eq!(stats.kept, 2);
    assert!(malformed(&stats, "bad_utf8") >= 1);
    assert!(
        stats.lines_read > 3,
        "garbage split into lines at its newline bytes"
    );
}

#[test]
fn a_bom_at_the_start_of_a_file_is_ignored() {
    let log = format!("\u{feff}{}", line("a"));
    let (_, stats) = scan(&config("auto"), log.as_bytes());
    assert_eq!((stats.kept, stats.formats[0].1), (1, "combined"));
}

#[test]
fn files_aggregate_into_one_table_and_formats_are_per_file() {
    let a = line("a");
    let b = "user,time,ua\nb,1704067200,A\n";
    let (s, stats) = scan_many(&config("auto"), &[a.as_bytes(), b.as_bytes(), b""]);
    check_invariants(&stats);
    let formats: Vec<&str> = stats.formats.iter().map(|f| f.1).collect();
    assert_eq!(formats, ["combined", "csv", "empty"]);
    assert_eq!((stats.files, s.len()), (3, 2));
}

#[test]
fn bad_configuration_is_refused() {
    assert!(ScanConfig::new("xml", &[], None, None, 65536).is_err());
    assert!(ScanConfig::new("csv", &[("agent".into(), "ua".into())], None, None, 65536).is_err());
    assert!(ScanConfig::new("csv", &[], None, Some(&["20x".into()]), 65536).is_err());
    assert!(ScanConfig::new("csv", &[], None, Some(&["099".into()]), 65536).is_err());
    assert!(ScanConfig::new("csv", &[], None, None, 10).is_err());
}

#[test]
fn a_long_line_within_a_large_limit_is_parsed() {
    // The buffer starts small and grows only for such a line.
    let cfg = ScanConfig::new("combined", &[], None, None, 8 << 20).unwrap();
    let ua = format!("Agent {}", "z".repeat(5 << 20));
    let log = format!(
        "{}{}",
        line("a"),
        combined(
            "b",
            "01/Jan/2024:00:00:00 +0000",
            "GET / HTTP/1.1",
            200,
            &ua
        )
    );
    let (s, stats) = scan(&cfg, log.as_bytes());
    check_invariants(&stats);
    assert_eq!((stats.kept, malformed(&stats, "over_long")), (2, 0));
    assert_eq!(rows(&s)[1].1.len(), ua.len());
}
