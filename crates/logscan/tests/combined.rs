//! The combined-log parser: fields, escapes, extra trailing fields, and each way a line can be malformed.

mod common;
use common::*;

#[test]
fn one_line_gives_one_sighting_in_its_utc_month() {
    let log = combined(
        "alice",
        "31/Oct/2023:23:30:00 -0400",
        "GET /login HTTP/1.1",
        200,
        UA,
    );
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(stats.kept, 1);
    // 23:30 at -04:00 is 03:30 UTC on 1 November.
    let t = 1_698_809_400;
    assert_eq!(
        rows(&s),
        vec![(
            "alice".into(),
            UA.into(),
            "".into(),
            "".into(),
            "".into(),
            "2023-11".into(),
            t,
            t,
            1
        )]
    );
}

#[test]
fn repeated_keys_aggregate_first_last_and_hits() {
    let mut log = String::new();
    for (sec, user) in [(5, "bob"), (1, "bob"), (9, "bob"), (3, "amy")] {
        log += &combined(
            user,
            &format!("01/Mar/2024:00:00:0{sec} +0000"),
            "GET / HTTP/1.1",
            200,
            UA,
        );
    }
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    let r = rows(&s);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].0, "amy", "rows are sorted by user");
    let base = 1_709_251_200;
    assert_eq!((r[1].6, r[1].7, r[1].8), (base + 1, base + 9, 3));
}

#[test]
fn escaped_quotes_and_backslashes_are_undone() {
    let ua_logged = r#"Weird \"quoted\" agent \\ \x41"#;
    let log = combined(
        "u",
        "01/Jan/2024:00:00:00 +0000",
        r#"GET /a\"b HTTP/1.1"#,
        200,
        ua_logged,
    );
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(rows(&s)[0].1, r#"Weird "quoted" agent \ A"#);
}

#[test]
fn unescaped_quote_inside_the_agent_is_quoting() {
    let log = combined(
        "u",
        "01/Jan/2024:00:00:00 +0000",
        "GET / HTTP/1.1",
        200,
        r#"Mozilla "x" y"#,
    );
    let (_, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(malformed(&stats, "quoting"), 1);
    let log = "h - u [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"never closed\n";
    let (_, stats) = scan(&config("combined"), log.as_bytes());
    assert_eq!(malformed(&stats, "quoting"), 1);
}

#[test]
fn nginx_extra_fields_after_the_agent_are_allowed() {
    let base = combined("u", "01/Jan/2024:00:00:00 +0000", "GET / HTTP/1.1", 200, UA);
    let log = base.trim_end().to_string() + " \"1.2.3.4\" 0.004 -\n";
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(stats.kept, 1);
    assert_eq!(rows(&s)[0].1, UA);
}

#[test]
fn missing_agent_user_and_time_each_have_their_reason() {
    let t = "01/Jan/2024:00:00:00 +0000";
    let log = [
        combined("u", t, "GET / HTTP/1.1", 200, "-"),
        combined("u", t, "GET / HTTP/1.1", 200, ""),
        combined("-", t, "GET / HTTP/1.1", 200, UA),
        combined("u", "01/Jan/2024:25:00:00 +0000", "GET / HTTP/1.1", 200, UA),
        "h - u [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200\n".to_string(),
        "h - u [01/Jan/2024:00:00:00 +0000 \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\"\n".to_string(),
        "h - u [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" OK 5 \"-\" \"ua\"\n".to_string(),
    ]
    .concat();
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(malformed(&stats, "no_ua"), 2);
    assert_eq!(malformed(&stats, "time"), 1);
    assert_eq!(malformed(&stats, "fields"), 3);
    assert_eq!(
        stats.filtered_user, 1,
        "a line without a user is well-formed but cannot be attributed"
    );
    assert!(s.is_empty());
}

#[test]
fn hex_escapes_that_are_not_utf8_are_bad_utf8() {
    let log = combined(
        "u",
        "01/Jan/2024:00:00:00 +0000",
        "GET / HTTP/1.1",
        200,
        r"agent \xff\xfe",
    );
    let (_, stats) = scan(&config("combined"), log.as_bytes());
    assert_eq!(malformed(&stats, "bad_utf8"), 1);
    let log = combined(
        "u",
        "01/Jan/2024:00:00:00 +0000",
        "GET / HTTP/1.1",
        200,
        r"caf\xc3\xa9",
    );
    let (s, _) = scan(&config("combined"), log.as_bytes());
    assert_eq!(rows(&s)[0].1, "café");
}

#[test]
fn event_is_the_request_path_and_filters_apply() {
    let t = "01/Jan/2024:00:00:00 +0000";
    let log = [
        combined("a", t, "POST /login?next=/x HTTP/1.1", 302, UA),
        combined("b", t, "POST /login HTTP/1.1", 500, UA),
        combined("c", t, "GET /logout HTTP/1.1", 200, UA),
        combined("d", t, "GET /course/1 HTTP/1.1", 200, UA),
    ]
    .concat();
    let events = ["/login".to_string(), "/logout".to_string()];
    let statuses = ["2xx".to_string(), "302".to_string()];
    let cfg =
        logscan::ScanConfig::new("combined", &[], Some(&events), Some(&statuses), 65536).unwrap();
    let (s, stats) = scan(&cfg, log.as_bytes());
    check_invariants(&stats);
    assert_eq!(
        (stats.kept, stats.filtered_event, stats.filtered_status),
        (2, 1, 1)
    );
    let users: Vec<String> = rows(&s).into_iter().map(|r| r.0).collect();
    assert_eq!(users, ["a", "c"]);
}

#[test]
fn crlf_and_blank_lines() {
    let line = combined("u", "01/Jan/2024:00:00:00 +0000", "GET / HTTP/1.1", 200, UA);
    let log = format!("\r\n{}\r\n   \n\n{}", line.trim_end(), line.trim_end());
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!((stats.lines_read, stats.kept, stats.blank_lines), (2, 2, 3));
    assert_eq!(rows(&s)[0].1, UA, "no carriage return left in the agent");
}

#[test]
fn interleaved_sessions_aggregate_exactly() {
    // More interleaved (user, agent) pairs than the scanner keeps as recent keys, in a scrambled order, so
    // that its shortcut both hits and misses; the table must equal a plain count.
    let mut expected = std::collections::BTreeMap::new();
    let mut log = String::new();
    let mut x: u64 = 42;
    for i in 0..5000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let user = format!("u{}", (x >> 33) % 37);
        let ua = format!("Agent/{}", (x >> 45) % 3);
        let t = 1_700_000_000 + i as i64 * 600; // crosses into a new month part way
        let (y, m) = logscan::time::civil_month(t.div_euclid(86_400));
        let stamp = clf_time(t, 0);
        log += &combined(&user, &stamp, "GET / HTTP/1.1", 200, &ua);
        let e = expected
            .entry((user, ua, format!("{y:04}-{m:02}")))
            .or_insert((t, t, 0));
        e.0 = e.0.min(t);
        e.1 = e.1.max(t);
        e.2 += 1;
    }
    let (s, stats) = scan(&config("combined"), log.as_bytes());
    check_invariants(&stats);
    let got: Vec<(String, String, String, i64, i64, i64)> = rows(&s)
        .into_iter()
        .map(|r| (r.0, r.1, r.5, r.6, r.7, r.8))
        .collect();
    let want: Vec<(String, String, String, i64, i64, i64)> = expected
        .into_iter()
        .map(|((u, a, m), (f, l, h))| (u, a, m, f, l, h))
        .collect();
    assert_eq!(got, want);
}
