"""Test inputs for the log scanner: tricky combined/CSV/JSONL lines, a seeded line mutator, gzip variants."""

from __future__ import annotations

import gzip
import json
import random
from datetime import datetime, timedelta, timezone

UA_ANDROID = (
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 "
    "Mobile Safari/537.36"
)
UA_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Mobile/15E148 Safari/604.1"
)
UA_APP = "Moodle/4.3.0 (device_id=9f2c; model=SM-G991B; os=android; os_version=14)"
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def clf_time(unix_s: int, offset_min: int = 0) -> str:
    """The combined log's time of a Unix second, written at a UTC offset."""
    tz = timezone(timedelta(minutes=offset_min))
    d = datetime.fromtimestamp(unix_s, tz)
    sign = "+" if offset_min >= 0 else "-"
    m = abs(offset_min)
    return f"{d.day:02d}/{MONTHS[d.month - 1]}/{d.year}:{d:%H:%M:%S} {sign}{m // 60:02d}{m % 60:02d}"


def clf_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def combined_line(
    user: str,
    unix_s: int,
    ua: str,
    *,
    offset_min: int = 0,
    request: str = "GET / HTTP/1.1",
    status: int = 200,
) -> str:
    return (
        f'10.1.2.3 - {clf_escape(user)} [{clf_time(unix_s, offset_min)}] "{clf_escape(request)}" {status} 1043 '
        f'"https://lms.example.edu/" "{clf_escape(ua)}"'
    )


def csv_cell(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\r\n') else s


# A month boundary in UTC: 2023-10-31 22:00 .. 2023-11-01 02:00 UTC, written at several offsets.
BOUNDARY = int(datetime(2023, 11, 1, tzinfo=timezone.utc).timestamp())


def tricky_combined() -> bytes:
    """Lines that test the combined parser's every rule, good and bad, with CRLF and blank lines mixed in."""
    good = [
        combined_line("alice", BOUNDARY - 3600, UA_ANDROID, offset_min=-240),
        combined_line("alice", BOUNDARY + 3600, UA_ANDROID, offset_min=+330),
        combined_line("bob", BOUNDARY - 1, UA_IPHONE, offset_min=+60),
        combined_line("bob", BOUNDARY, UA_IPHONE, offset_min=-600),
        combined_line(
            'q"uote', BOUNDARY, 'Agent "with" quotes \\ and backslash', request='GET /a"b HTTP/1.1'
        ),
        combined_line("carol", BOUNDARY + 86400 * 40, UA_APP),
        combined_line("dave", BOUNDARY, "caf\\xc3\\xa9 agent"),  # a literal backslash-x sequence
        combined_line("-", BOUNDARY, UA_ANDROID),
        combined_line("erin", BOUNDARY, "-"),
        combined_line("erin", BOUNDARY, ""),
    ]
    raw = [
        # hex escapes written by the server (nginx): valid UTF-8 after unescaping, and not
        '1.1.1.1 - frank [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "caf\\xC3\\xA9"',
        '1.1.1.1 - frank [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "bad \\xff"',
        # an unescaped quote inside the agent, an unclosed quote, a stray quote in a bare field
        '1.1.1.1 - gina [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "Mozilla "x" y"',
        '1.1.1.1 - gina [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "never closed',
        '1.1.1.1 - gi"na [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - gina [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua" extra" field',
        '1.1.1.1 - gina [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua\\"',
        # nginx extra fields after the agent
        '1.1.1.1 - hank [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua" "10.0.0.9" 0.003 -',
        # times: bad month name, impossible day, hour 24, offset with colon, before 1970
        '1.1.1.1 - ivan [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [01/nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [31/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [01/Nov/2023:24:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [01/Nov/2023:00:00:00 +00:00] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [31/Dec/1969:23:59:59 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1 - ivan [01/Jan/1970:00:59:59 +0100] "GET / HTTP/1.1" 200 5 "-" "ua"',
        # structure: missing fields, bad status, bad size, missing bracket, double space
        '1.1.1.1 - jo [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-"',
        '1.1.1.1 - jo [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 20 5 "-" "ua"',
        '1.1.1.1 - jo [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5k "-" "ua"',
        '1.1.1.1 - jo [01/Nov/2023:00:00:00 +0000 "GET / HTTP/1.1" 200 5 "-" "ua"',
        '1.1.1.1  - jo [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
        "just some words",
        "   leading spaces then text",
    ]
    lines = [*good, *raw]
    body = ""
    for i, line in enumerate(lines):
        body += line + ("\r\n" if i % 3 == 0 else "\n")
        if i % 5 == 0:
            body += "\n   \n\t\r\n"
    data = b"\xef\xbb\xbf" + body.encode()
    data += b'1.1.1.1 - kim [01/Nov/2023:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "\xff\xfe raw bytes"\n'
    data += b"\x00\x01\x02\xff binary \x89PNG\r\n\x1a\n" + bytes(range(256)) + b"\n"
    data += ("x" * (1 << 20)).encode() + b"\n"  # a 1 MB line
    data += combined_line("last", BOUNDARY, UA_IPHONE).encode()  # no final newline
    return data


def tricky_csv() -> bytes:
    rows = [
        "when,who,agent,model,platform_version,event,code,device",
        f'2023-10-31T22:30:00-04:00,alice,{csv_cell(UA_ANDROID)},"""Pixel 7""","""14.0.0""",login,200,',
        f'2023-11-01T02:30:00Z,alice,{csv_cell(UA_ANDROID)},"""Pixel 7""","""14.0.0""",login,200,',
        f"1698800000.75,bob,{csv_cell(UA_IPHONE)},,,logout,302,-",
        f"1698800000,bob,{csv_cell(UA_APP)},,,login,200,9f2c",
        '2023-11-01 00:00:00+0530,carol,"Agent, with ""quotes""",,,login,200,',
        "2023-11-01T00:00:00,dave,plain agent,,,view,404,",
        "2023-11-01T00:00:00.123456+01,erin,plain agent,,,login,500,",
        # malformed: quoting, field count, time, no agent; a row without a user
        '2023-11-01T00:00:00Z,x,"never closed,,,login,200,',
        '2023-11-01T00:00:00Z,x,"closed"junk,,,login,200,',
        '2023-11-01T00:00:00Z,x,mid"quote,,,login,200,',
        "2023-11-01T00:00:00Z,x,too few",
        "2023-11-01T00:00:00Z,x,agent,,,login,200,,extra",
        "2023-11-01,x,agent,,,login,200,",
        "2023-11-01T00:00:00 Z,x,agent,,,login,200,",
        "1.7e9,x,agent,,,login,200,",
        "2023-11-01T00:00:00Z,x,,,,login,200,",
        "2023-11-01T00:00:00Z,x,-,,,login,200,",
        "2023-11-01T00:00:00Z,,agent,,,login,200,",
        "2023-11-01T00:00:00Z,x,agent,,,login,2xx,",
    ]
    return ("\r\n".join(rows) + "\r\n\r\n").encode() + b"2023-11-01T00:00:00Z,y,\xff agent,,,login,200,\n"


TRICKY_CSV_COLUMNS = {
    "time": "when",
    "user": "who",
    "ua": "agent",
    "ch_model": "model",
    "ch_platform_version": "platform_version",
    "status": "code",
    "app_device_id": "device",
}


def tricky_jsonl() -> bytes:
    lines = [
        json.dumps(
            {"user": "alice", "time": "2023-10-31T23:30:00-04:00", "ua": UA_ANDROID, "event": "login"}
        ),
        json.dumps({"user": "alice", "time": 1698800000.999, "ua": UA_ANDROID, "status": 200}),
        json.dumps({"user": 1234, "time": 1698800000, "ua": 'A "quoted" é 😀 agent'}),
        json.dumps(
            {
                "user": "bob",
                "time": "1698800000",
                "ua": UA_IPHONE,
                "ch_model": '"iPhone"',
                "nested": {"a": [1, 2, {"b": None}], "c": "x"},
            }
        ),
        '{"user":"bob","user":"bo2","time":1698800000,"ua":"dup keys"}',
        '{"user":"bob","time":1698800000,"ua":"A","app_device_id":null,"status":"302"}',
        '{"user":"bob","time":1.6988e9,"ua":"exp"}',
        '{"user":"bob","time":-0,"ua":"zero"}',
        '{"u\\u0073er":"esc","time":1698800000,"ua":"escaped key"}',
        '{"user":"p","time":1698800000,"ua":"pair \\ud83d\\ude00"}',
        # malformed
        '{"user":"p","time":1698800000,"ua":"lone \\ud83d"}',
        '{"user":"p","time":1698800000,"ua":"lone low \\ude00"}',
        '{"user":"p","time":1698800000,"ua":"unterminated}',
        '{"user":"p","time":1698800000,"ua":"bad \\q escape"}',
        '{"user":"p","time":1698800000,"ua":"short \\u12"}',
        '{"user":"p","time":1698800000,"ua":"tab\tinside"}',
        '{"user":"p","time":1698800000,"ua":"A",}',
        '{"user":"p","time":1698800000,"ua":"A"} trailing',
        '["user","p"]',
        '[1, "unterminated',
        '"just a string"',
        '{"user":"p","time":01,"ua":"A"}',
        '{"user":"p","time":NaN,"ua":"A"}',
        '{"user":"p","time":-Infinity,"ua":"A"}',
        '{"user":"p","time":1e400,"ua":"A"}',
        '{"user":"p","time":-1,"ua":"A"}',
        '{"user":"p","time":1698800000,"ua":true}',
        '{"user":"p","time":1698800000,"ua":{"x":1}}',
        '{"user":"p","time":1698800000}',
        '{"user":"p","time":"yesterday","ua":"A"}',
        '{"user":"p","ua":"A"}',
        '{"time":1698800000,"ua":"no user"}',
        '{"user":"-","time":1698800000,"ua":"dash user"}',
        '{"user":"p","time":1698800000,"ua":"A" "x":1}',
        "{" + '"a":' * 5 + "1",
        '{"a":' + "[" * 500 + "]" * 500 + ',"user":"deep","time":1698800000,"ua":"A"}',
        '  {"user":"ws","time":1698800000,"ua":"leading whitespace"}  ',
    ]
    data = ("\n".join(lines) + "\r\n").encode()
    data += b'{"user":"p","time":1698800000,"ua":"\xc3\x28 bad utf8"}\n'
    return data


def mutate(lines: list[str], n: int, seed: int) -> list[str]:
    """`n` lines made by random small edits of `lines`, biased towards the characters parsers care about."""
    rng = random.Random(seed)
    alphabet = [
        '"',
        "\\",
        " ",
        "[",
        "]",
        ",",
        "{",
        "}",
        ":",
        "-",
        "x",
        "0",
        "\t",
        "\r",
        "é",
        "\\x",
        "\\u",
        '""',
    ]
    out = []
    for _ in range(n):
        s = rng.choice(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(s) + 1)
            op = rng.random()
            if op < 0.4:
                s = s[:i] + rng.choice(alphabet) + s[i:]
            elif op < 0.8:
                s = s[:i] + s[i + rng.randint(1, 3) :]
            else:
                s = s[:i] + rng.choice(alphabet) + s[i + 1 :]
        out.append(s.replace("\n", ""))
    return out


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)
