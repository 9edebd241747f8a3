//! The JSON-lines parser: mapped keys, strings or numbers, escapes, and JSON that is not acceptable.

mod common;
use common::*;

#[test]
fn strings_numbers_escapes_and_unknown_keys() {
    let log = concat!(
        r#"{"user": 42, "time": 1700000000.5, "ua": "A \"q\" \u00e9 \ud83d\ude00", "nested": {"a": [1, {"b": null}]}}"#,
        "\n",
        r#"{"user":"u","time":"2023-11-14T22:13:25+00:00","ua":"A","status":"200","app_device_id":null}"#,
        "\n"
    );
    let (s, stats) = scan(&config("jsonl"), log.as_bytes());
    check_invariants(&stats);
    let r = rows(&s);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].0.as_str(), r[0].1.as_str(), r[0].6),
        ("42", "A \"q\" é 😀", 1_700_000_000)
    );
    assert_eq!((r[1].0.as_str(), r[1].6), ("u", 1_700_000_005));
}

#[test]
fn a_repeated_key_keeps_the_last_value() {
    let (s, _) = scan(
        &config("jsonl"),
        br#"{"user":"a","user":"b","time":0,"ua":"A"}"#,
    );
    assert_eq!(rows(&s)[0].0, "b");
}

#[test]
fn malformed_json_by_reason() {
    let log = [
        r#"{"user":"u","time":0,"ua":"unterminated}"#,
        r#"{"user":"u","time":0,"ua":"bad \q escape"}"#,
        "{\"user\":\"u\",\"time\":0,\"ua\":\"tab\tinside\"}",
        r#"{"user":"u","time":0,"ua":"A",}"#,
        r#"["user","u"]"#,
        r#"{"user":"u","time":0,"ua":"A"} trailing"#,
        r#"{"user":"u","time":0,"ua":true}"#,
        r#"{"user":"u","time":01,"ua":"A"}"#,
        r#"{"user":"u","time":NaN,"ua":"A"}"#,
        r#"{"user":"u","time":0,"ua":"lone \ud800 surrogate"}"#,
        r#"{"user":"u","time":-5,"ua":"A"}"#,
        r#"{"user":"u","time":"10/Oct/2000:13:55:36 -0700","ua":"A"}"#,
        r#"{"user":"u","time":0}"#,
        r#"{"user":"u","time":0,"ua":null}"#,
        r#"{"time":0,"ua":"A"}"#,
        r#"{"user":"u","ua":"A"}"#,
    ]
    .join("\n");
    let (_, stats) = scan(&config("jsonl"), log.as_bytes());
    check_invariants(&stats);
    assert_eq!(malformed(&stats, "quoting"), 3);
    assert_eq!(malformed(&stats, "fields"), 6);
    assert_eq!(malformed(&stats, "bad_utf8"), 1);
    assert_eq!(malformed(&stats, "time"), 3);
    assert_eq!(malformed(&stats, "no_ua"), 2);
    assert_eq!(stats.filtered_user, 1);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = format!(
        r#"{{"user":"u","time":0,"ua":"A","x":{}{}}}"#,
        "[".repeat(30_000),
        "]".repeat(30_000)
    );
    let (_, stats) = scan(&config("jsonl"), deep.as_bytes());
    assert_eq!(stats.kept, 1);
    let open = format!(r#"{{"x":{}"#, "[".repeat(60_000));
    let (_, stats) = scan(&config("jsonl"), open.as_bytes());
    assert_eq!(malformed(&stats, "fields"), 1);
}
