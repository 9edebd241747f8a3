"""The compiled log scanner against the plain-Python reference: same sightings, same counts, on tricky and
randomly mutated inputs, gzip variants, and the same records written in three formats."""

from __future__ import annotations

import pandas as pd
import pytest
from lifetime_scan_cases import (
    BOUNDARY,
    TRICKY_CSV_COLUMNS,
    UA_ANDROID,
    UA_APP,
    UA_IPHONE,
    combined_line,
    csv_cell,
    gz,
    mutate,
    tricky_combined,
    tricky_csv,
    tricky_jsonl,
)

from greendcn.lifetime.scan import scan_logs, scan_logs_reference


def comparable(stats):
    d = stats.as_dict()
    # The inflaters word their errors differently; which file broke, how, and what was dropped must agree.
    d["gzip_errors"] = [{k: v for k, v in e.items() if k != "detail"} for e in d["gzip_errors"]]
    return d


def check_invariants(stats):
    assert stats.parsed + sum(stats.malformed.values()) == stats.lines_read
    assert stats.kept + stats.filtered_event + stats.filtered_status + stats.filtered_user == stats.parsed


def both(paths, **kw):
    """Scan with both scanners, assert they agree exactly, and return the compiled result."""
    fast = scan_logs(paths, progress=False, **kw)
    slow = scan_logs_reference(paths, **kw)
    pd.testing.assert_frame_equal(fast.sightings, slow.sightings)
    assert comparable(fast.stats) == comparable(slow.stats)
    check_invariants(fast.stats)
    assert int(fast.sightings["hits"].sum()) == fast.stats.kept
    return fast


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_tricky_combined_log(tmp_path):
    r = both(write(tmp_path, "tricky.log", tricky_combined()))
    m = r.stats.malformed
    # Every reason occurs, so the comparison above covers each one.
    assert all(m[k] > 0 for k in ("quoting", "time", "no_ua", "bad_utf8", "over_long", "fields")), m
    assert r.stats.formats == [(str(tmp_path / "tricky.log"), "combined")]
    s = r.sightings
    alice = s[s.user == "alice"]
    # Written at -04:00 and +05:30 around the boundary: the month is the UTC one.
    assert alice.month.tolist() == ["2023-10", "2023-11"]
    assert 'Agent "with" quotes \\ and backslash' in set(s.ua)
    assert "café" in set(s.ua), "nginx \\xHH escapes are decoded"
    assert 'q"uote' in set(s.user)


def test_tricky_csv(tmp_path):
    r = both(write(tmp_path, "tricky.csv", tricky_csv()), fmt="csv", columns=TRICKY_CSV_COLUMNS)
    s = r.sightings
    assert set(s[s.user == "alice"].month) == {"2023-11"}
    assert set(s.ch_model) >= {"Pixel 7"} and set(s.ch_platform_version) >= {"14.0.0"}
    assert 'Agent, with "quotes"' in set(s.ua)
    assert all(r.stats.malformed[k] > 0 for k in ("quoting", "time", "no_ua", "bad_utf8", "fields"))


def test_tricky_jsonl(tmp_path):
    r = both(write(tmp_path, "tricky.jsonl", tricky_jsonl()))
    s = r.sightings
    assert r.stats.formats[0][1] == "jsonl"
    assert {"1234", "bo2", "esc", "deep", "ws"} <= set(s.user)
    assert 'A "quoted" é 😀 agent' in set(s.ua)
    assert all(r.stats.malformed[k] > 0 for k in ("quoting", "time", "no_ua", "bad_utf8", "fields"))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_randomly_mutated_lines(tmp_path, seed):
    comb = tricky_combined().decode("utf-8", "replace").splitlines()[:40]
    csv = tricky_csv().decode("utf-8", "replace").splitlines()
    jsonl = tricky_jsonl().decode("utf-8", "replace").splitlines()[:-3]
    a = write(tmp_path, "m.log", "\n".join(mutate(comb, 1500, seed)).encode())
    b = write(tmp_path, "m.csv", "\n".join([csv[0], *mutate(csv[1:], 1500, seed)]).encode())
    c = write(tmp_path, "m.jsonl", "\n".join(mutate(jsonl, 1500, seed)).encode())
    both([a], fmt="combined")
    both([b], fmt="csv", columns=TRICKY_CSV_COLUMNS)
    both([c], fmt="jsonl")


def test_gzip_plain_multi_member_and_truncated(tmp_path):
    data = tricky_combined()
    plain = both(write(tmp_path, "a.log", data))
    packed = both(write(tmp_path, "a.log.gz", gz(data)))
    pd.testing.assert_frame_equal(plain.sightings, packed.sightings)
    cut = len(data) // 3
    multi = both(write(tmp_path, "m.gz", gz(data[:cut]) + gz(b"") + gz(data[cut:])))
    pd.testing.assert_frame_equal(plain.sightings, multi.sightings)
    assert multi.stats.lines_read == plain.stats.lines_read
    z = gz(data)
    for k, end in enumerate([3, 11, len(z) // 4, len(z) // 2, len(z) - 9, len(z) - 1]):
        r = both(write(tmp_path, f"t{k}.gz", z[:end]))
        (err,) = r.stats.gzip_errors
        assert err["error"] == "truncated" and err["file"].endswith(f"t{k}.gz")
        assert r.stats.lines_read <= plain.stats.lines_read


def test_garbage_file_is_all_malformed(tmp_path):
    import random

    rng = random.Random(7)
    r = both(write(tmp_path, "garbage.bin", bytes(rng.randrange(256) for _ in range(200_000))))
    assert r.stats.kept == 0 and r.stats.lines_read > 0
    assert r.stats.lines_read == sum(r.stats.malformed.values())


def test_several_files_of_several_formats_in_one_table(tmp_path):
    a = write(tmp_path, "a.log", tricky_combined())
    b = write(tmp_path, "b.jsonl", tricky_jsonl())
    c = write(tmp_path, "c.log.gz", gz(tricky_combined()))
    e = write(tmp_path, "empty.log", b"\n\n")
    r = both([a, b, c, e])
    assert [f for _, f in r.stats.formats] == ["combined", "jsonl", "combined", "empty"]
    assert r.stats.files == 4
    # The same file twice doubles the hits, not the rows.
    once = both([a])
    assert int(r.sightings.hits.sum()) > int(once.sightings.hits.sum())


def test_filters(tmp_path):
    lines = [
        combined_line("a", BOUNDARY, UA_ANDROID, request="POST /login/index.php?x=1 HTTP/1.1", status=303),
        combined_line("b", BOUNDARY, UA_ANDROID, request="POST /login/index.php HTTP/1.1", status=200),
        combined_line("c", BOUNDARY, UA_ANDROID, request="GET /login/logout.php HTTP/1.1", status=404),
        combined_line("d", BOUNDARY, UA_ANDROID, request="GET /course/view.php HTTP/1.1", status=200),
        combined_line("-", BOUNDARY, UA_ANDROID, request="GET /login/logout.php HTTP/1.1", status=200),
    ]
    p = write(tmp_path, "f.log", ("\n".join(lines) + "\n").encode())
    r = both(p, events={"/login/index.php", "/login/logout.php"}, statuses=["2xx", 303])
    st = r.stats
    assert (st.kept, st.filtered_event, st.filtered_status, st.filtered_user) == (2, 1, 1, 1)
    assert r.sightings.user.tolist() == ["a", "b"]
    none = both(p, statuses=["5xx"])
    assert none.stats.kept == 0 and none.stats.filtered_status == 5
    everything = both(p)
    assert everything.stats.kept == 4


def test_csv_event_and_status_columns_filter(tmp_path):
    p = write(tmp_path, "t.csv", tricky_csv())
    r = both(p, fmt="csv", columns=TRICKY_CSV_COLUMNS, events={"login"}, statuses=["200"])
    assert r.stats.kept > 0 and r.stats.filtered_event > 0 and r.stats.filtered_status > 0


RECORDS = [
    # user, unix seconds, ua, app device id, Sec-CH-UA-Model, Sec-CH-UA-Platform-Version
    ("alice", BOUNDARY - 1800, UA_ANDROID, "", "Pixel 7", "14.0.0"),
    ("alice", BOUNDARY + 1800, UA_ANDROID, "", "Pixel 7", "14.0.0"),
    ("alice", BOUNDARY + 7200, UA_ANDROID, "", "Pixel 7", "14.0.0"),
    ("bob", BOUNDARY + 86400 * 35, UA_IPHONE, "", "", ""),
    ("bob", BOUNDARY + 86400 * 36, UA_APP, "9f2c-77", "", ""),
    ('zoë "z"', BOUNDARY, 'Odd, agent "with" quotes\\', "", "", ""),
]


def test_format_agreement_combined_csv_jsonl(tmp_path):
    """The same records written as a combined log, a CSV export and JSON lines give identical sightings."""
    import json

    comb, jl = [], []
    csv = ["user,time,ua,app_device_id,ch_model,ch_platform_version"]
    for user, t, ua, dev, model, pv in RECORDS:
        # Combined logs carry no app id or client hints: only records without them go there.
        comb.append(combined_line(user.replace(" ", "_"), t, ua, offset_min=-300))
        q = [
            csv_cell(v)
            for v in (
                user.replace(" ", "_"),
                str(t),
                ua,
                dev,
                f'"{model}"' if model else "",
                f'"{pv}"' if pv else "",
            )
        ]
        csv.append(",".join(q))
        jl.append(
            json.dumps(
                {
                    "time": t,
                    "ua": ua,
                    "user": user.replace(" ", "_"),
                    "app_device_id": dev,
                    "ch_model": f'"{model}"' if model else None,
                    "ch_platform_version": pv,
                }
            )
        )
    a = both(write(tmp_path, "a.log", ("\n".join(comb) + "\n").encode()))
    b = both(write(tmp_path, "b.csv", ("\r\n".join(csv) + "\r\n").encode()))
    c = both(write(tmp_path, "c.jsonl", ("\n".join(jl) + "\n").encode()))
    pd.testing.assert_frame_equal(b.sightings, c.sightings)
    key = ["user", "ua", "month", "first_s", "last_s", "hits"]
    pd.testing.assert_frame_equal(a.sightings[key], b.sightings[key])
    assert a.stats.kept == b.stats.kept == c.stats.kept == len(RECORDS)
    assert b.sightings.month.tolist().count("2023-10") == 1
