//! Gzip input: detected by magic, multi-member streams, truncated and corrupt streams reported, not fatal.

mod common;
use common::*;

fn log(n: usize) -> String {
    (0..n)
        .map(|i| {
            combined(
                &format!("u{i}"),
                "01/Jan/2024:00:00:00 +0000",
                "GET / HTTP/1.1",
                200,
                UA,
            )
        })
        .collect()
}

#[test]
fn gzip_gives_the_same_table_as_plain() {
    let plain = log(500);
    let (a, sa) = scan(&config("auto"), plain.as_bytes());
    let (b, sb) = scan(&config("auto"), &gzip(plain.as_bytes()));
    assert_eq!(a, b);
    assert_eq!(sa.kept, sb.kept);
    assert!(
        sb.bytes_read < sa.bytes_read,
        "compressed bytes are counted for gzip"
    );
    assert!(sb.gzip_errors.is_empty());
}

#[test]
fn multi_member_gzip_is_read_to_its_end() {
    let plain = log(300);
    let (head, tail) = plain.split_at(plain.len() / 3);
    let mut data = gzip(head.as_bytes());
    data.extend(gzip(tail.as_bytes()));
    data.extend(gzip(b""));
    let (s, stats) = scan(&config("auto"), &data);
    check_invariants(&stats);
    assert_eq!((s.len(), stats.lines_read), (300, 300));
    assert!(stats.gzip_errors.is_empty());
}

#[test]
fn a_truncated_gzip_keeps_the_complete_lines_and_reports() {
    let plain = log(2000);
    let data = gzip(plain.as_bytes());
    for cut in [5, 20, data.len() / 3, data.len() / 2, data.len() - 4] {
        let (s, stats) = scan(&config("auto"), &data[..cut]);
        check_invariants(&stats);
        assert_eq!(stats.gzip_errors.len(), 1, "cut at {cut}");
        let e = &stats.gzip_errors[0];
        assert_eq!(e.error, "truncated");
        assert!(stats.lines_read < 2000 || cut == data.len() - 4);
        assert_eq!(s.len() as u64, stats.kept);
        assert_eq!(
            stats.malformed_total(),
            0,
            "the incomplete last line is dropped, not miscounted"
        );
    }
}

#[test]
fn a_corrupt_gzip_is_reported_after_the_lines_before_it() {
    let plain = log(1000);
    let mut data = gzip(plain.as_bytes());
    data.extend_from_slice(b"\x1f\x8bgarbage that is no gzip member");
    let (_, stats) = scan(&config("auto"), &data);
    check_invariants(&stats);
    assert_eq!(stats.kept, 1000);
    assert_eq!(stats.gzip_errors.len(), 1);
    let n = data.len();
    data[n / 2] ^= 0xff;
    let (_, stats) = scan(&config("auto"), &data);
    check_invariants(&stats);
    assert_eq!(stats.gzip_errors.len(), 1);
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let cfg = config("auto");
    let err = logscan::scan_paths(&cfg, &["/nonexistent/access.log".to_string()], &mut |_| {
        true
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("/nonexistent/access.log: cannot read"),
        "{err}"
    );
    let err = logscan::scan_paths(&cfg, &["/".to_string()], &mut |_| true).unwrap_err();
    assert!(matches!(err, logscan::ScanError::Io { .. }), "{err}");
}

#[test]
fn progress_can_interrupt() {
    let dir = std::env::temp_dir().join(format!("logscan-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.log");
    std::fs::write(&path, log(200_000)).unwrap();
    let mut calls = 0;
    let err = logscan::scan_paths(
        &config("auto"),
        &[path.to_string_lossy().into()],
        &mut |_| {
            calls += 1;
            calls < 2
        },
    )
    .unwrap_err();
    assert_eq!(err, logscan::ScanError::Interrupted);
    std::fs::remove_dir_all(&dir).unwrap();
}
