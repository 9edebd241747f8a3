"""Reading logs for the commands: which files get the seed's default filters (the fields they carry), and
merging scans of files that needed different filters."""

from __future__ import annotations

import gzip
import json

import pandas as pd

from greendcn.lifetime.pipeline import AUTO, fields_present, merge_scans, parse_filter


def test_fields_present_from_the_first_line(tmp_path):
    comb = tmp_path / "a.log"
    comb.write_text('10.0.0.1 - u1 [12/Oct/2023:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "Mozilla/5.0"\n')
    assert fields_present(comb, AUTO, None) == {"status"}
    csv_ev = tmp_path / "b.csv"
    csv_ev.write_text("\nuser,time,event,ua\nu1,2023-10-12T10:00:00Z,login,Mozilla\n")
    assert fields_present(csv_ev, AUTO, None) == {"event"}
    csv_mapped = tmp_path / "c.csv"
    csv_mapped.write_text("sid,when,agent,code,action\n")
    cols = {"user": "sid", "time": "when", "ua": "agent", "status": "code"}
    assert fields_present(csv_mapped, AUTO, cols) == {"status"}
    assert fields_present(csv_mapped, "csv", {**cols, "event": "action"}) == {"event", "status"}
    js = tmp_path / "d.jsonl.gz"
    js.write_bytes(
        gzip.compress((json.dumps({"user": "u", "time": "t", "ua": "x", "status": 200}) + "\n").encode())
    )
    assert fields_present(js, AUTO, None) == {"status"}
    cut = tmp_path / "e.log.gz"
    cut.write_bytes(gzip.compress(b"x" * 1000)[:15])  # unreadable: judged a combined log, the scanner decides
    assert fields_present(cut, AUTO, None) == {"status"}


def test_parse_filter():
    assert parse_filter("auto", "events") == AUTO and parse_filter("all", "events") is None
    assert parse_filter("login, logout", "events") == ["login", "logout"]


def test_merge_scans_merges_rows_with_one_key():
    key = {
        "user": "u1",
        "ua": "x",
        "app_device_id": "",
        "ch_model": "",
        "ch_platform_version": "",
        "month": "2023-10",
    }
    a = pd.DataFrame([{**key, "first_s": 10, "last_s": 20, "hits": 2}])
    b = pd.DataFrame(
        [
            {**key, "first_s": 5, "last_s": 15, "hits": 1},
            {**key, "user": "u2", "first_s": 1, "last_s": 1, "hits": 1},
        ]
    )
    s, st = merge_scans(
        [
            (a, {"lines_read": 3, "malformed": {"time": 1}, "formats": [["a", "csv"]]}),
            (b, {"lines_read": 4, "malformed": {"time": 2, "fields": 1}, "formats": [["b", "jsonl"]]}),
        ]
    )
    assert len(s) == 2
    row = s[s["user"] == "u1"].iloc[0]
    assert (row["first_s"], row["last_s"], row["hits"]) == (5, 20, 3)
    assert st["lines_read"] == 7 and st["malformed"] == {"time": 3, "fields": 1} and len(st["formats"]) == 2
