//! Format agreement: the same records written as combined, CSV and JSON lines give the same sightings.

mod common;
use common::*;

struct Rec {
    user: &'static str,
    unix_s: i64,
    ua: &'static str,
}

const RECS: [Rec; 4] = [
    Rec {
        user: "alice",
        unix_s: 1_698_795_000,
        ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
    },
    Rec {
        user: "alice",
        unix_s: 1_698_809_400,
        ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
    },
    Rec {
        user: "bob \"the\" builder",
        unix_s: 1_700_000_000,
        ua: "Agent with \"quotes\", commas, and \\ back",
    },
    Rec {
        user: "carol",
        unix_s: 1_700_000_000,
        ua: "Ünïcode agent ✓",
    },
];

fn escape_combined(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[test]
fn combined_csv_and_jsonl_agree() {
    let mut comb = String::new();
    let mut csv = String::from("time,user,ua\n");
    let mut jsonl = String::new();
    for r in &RECS {
        comb += &combined(
            &escape_combined(r.user).replace(' ', "_"),
            // Written at -04:00 so that some records cross the month boundary only in UTC.
            &clf_time(r.unix_s, -4 * 3600),
            "GET / HTTP/1.1",
            200,
            &escape_combined(r.ua),
        );
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        csv += &format!(
            "{},{},{}\n",
            r.unix_s,
            q(&r.user.replace(' ', "_")),
            q(r.ua)
        );
        let j = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        jsonl += &format!(
            "{{\"ua\":{},\"user\":{},\"time\":{}}}\n",
            j(r.ua),
            j(&r.user.replace(' ', "_")),
            r.unix_s
        );
    }
    let (a, sa) = scan(&config("auto"), comb.as_bytes());
    let (b, sb) = scan(&config("auto"), csv.as_bytes());
    let (c, sc) = scan(&config("auto"), jsonl.as_bytes());
    for s in [&sa, &sb, &sc] {
        check_invariants(s);
        assert_eq!(s.kept, 4, "{s:?}");
    }
    assert_eq!(rows(&a), rows(&b));
    assert_eq!(rows(&a), rows(&c));
    let months: Vec<String> = rows(&a).into_iter().map(|r| r.5).collect();
    assert_eq!(months, ["2023-10", "2023-11", "2023-11", "2023-11"]);
}
