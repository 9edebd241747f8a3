"""A deterministic synthetic combined access log for benchmarks: realistic user agents (browser versions,
phone models, app UAs), users with one to three devices and skewed activity, requests in sessions (a few open
at a time, interleaved, about 8 requests each, as a busy server logs them), one year in time order."""

from __future__ import annotations

import calendar
import itertools
import os
import random
import subprocess
import time
from pathlib import Path

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
GENERATOR_VERSION = 2  # bump when the output changes, so that cached files are made anew

_ANDROID_MODELS = [
    "SM-G991B",
    "SM-G996B",
    "SM-S901B",
    "SM-S911B",
    "SM-S918B",
    "SM-A525F",
    "SM-A536B",
    "SM-A546B",
    "SM-A145R",
    "SM-G781B",
    "SM-N986B",
    "SM-F936B",
    "Pixel 5",
    "Pixel 6",
    "Pixel 6a",
    "Pixel 7",
    "Pixel 7 Pro",
    "Pixel 8",
    "moto g(60)",
    "moto g84 5G",
    "Redmi Note 10 Pro",
    "Redmi Note 12",
    "M2101K6G",
    "CPH2305",
    "RMX3363",
    "ONEPLUS A6013",
    "LE2123",
    "K",
]
_IOS = [f"{m}_{n}" for m, ns in ((15, range(8)), (16, range(8)), (17, range(6)), (18, range(7))) for n in ns]
_WINDOWS = ["Windows NT 10.0; Win64; x64", "Windows NT 6.1; Win64; x64", "Windows NT 10.0; WOW64"]
_MACOS = ["10_15_7", "11_7_10", "12_7_1", "13_6_3", "14_2_1"]


def _chrome(rng: random.Random) -> str:
    major = rng.randint(96, 131)
    return f"{major}.0.{rng.randint(4600, 6800)}.{rng.randint(0, 220)}"


def _one_ua(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.30:
        return (
            f"Mozilla/5.0 (Linux; Android {rng.randint(9, 14)}; {rng.choice(_ANDROID_MODELS)}) "
            f"AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{_chrome(rng)} Mobile Safari/537.36"
        )
    if k < 0.36:
        return (
            f"Mozilla/5.0 (Linux; Android {rng.randint(9, 14)}; {rng.choice(_ANDROID_MODELS)}; wv) "
            f"AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/{_chrome(rng)} Mobile Safari/537.36"
        )
    if k < 0.40:
        return (
            f"Mozilla/5.0 (Linux; Android {rng.randint(10, 14)}; {rng.choice(_ANDROID_MODELS)}) "
            f"AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/{rng.randint(17, 24)}.0 "
            f"Chrome/{_chrome(rng)} Mobile Safari/537.36"
        )
    if k < 0.62:
        v = rng.choice(_IOS)
        device = rng.choice(["iPhone; CPU iPhone OS", "iPad; CPU OS"])
        return (
            f"Mozilla/5.0 ({device} {v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            f"Version/{v.split('_')[0]}.{v.split('_')[1]} Mobile/15E148 Safari/604.1"
        )
    if k < 0.80:
        browser = rng.random()
        win = rng.choice(_WINDOWS)
        if browser < 0.6:
            return (
                f"Mozilla/5.0 ({win}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{_chrome(rng)} "
                f"Safari/537.36"
            )
        if browser < 0.85:
            c = _chrome(rng)
            return (
                f"Mozilla/5.0 ({win}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{c} Safari/537.36 "
                f"Edg/{c.split('.')[0]}.0.{rng.randint(1000, 2500)}.{rng.randint(0, 99)}"
            )
        ff = rng.randint(100, 133)
        return f"Mozilla/5.0 ({win}; rv:{ff}.0) Gecko/20100101 Firefox/{ff}.0"
    if k < 0.92:
        mac = rng.choice(_MACOS)
        if rng.random() < 0.5:
            return (
                f"Mozilla/5.0 (Macintosh; Intel Mac OS X {mac}) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                f"Version/{rng.randint(14, 17)}.{rng.randint(0, 6)} Safari/605.1.15"
            )
        return (
            f"Mozilla/5.0 (Macintosh; Intel Mac OS X {mac}) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{_chrome(rng)} Safari/537.36"
        )
    platform = rng.choice(["android", "ios"])
    model = (
        rng.choice(_ANDROID_MODELS)
        if platform == "android"
        else f"iPhone{rng.randint(10, 16)},{rng.randint(1, 8)}"
    )
    return (
        f"MoodleMobile/{rng.randint(3, 4)}.{rng.randint(0, 9)}.{rng.randint(0, 3)} "
        f"(device_id={rng.getrandbits(64):016x}; model={model}; os={platform}; "
        f"os_version={rng.randint(10, 17)})"
    )


def ua_pool(n: int, rng: random.Random) -> list[str]:
    """`n` distinct user agents."""
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen.setdefault(_one_ua(rng))
    return list(seen)


_PATHS = [
    "/login/index.php",
    "/login/logout.php",
    "/my/",
    "/course/view.php?id={}",
    "/mod/quiz/view.php?id={}",
    "/mod/assign/view.php?id={}",
    "/pluginfile.php/{}/mod_resource/content/1/notes.pdf",
    "/lib/ajax/service.php?sesskey=x&info=core_fetch_notifications",
]


def write_log(path: Path, lines: int, uas: int, users: int, seed: int) -> None:
    """Write the log to `path` (through a temporary file, so an interrupted run leaves nothing half-made)."""
    rng = random.Random(seed)
    pool = ua_pool(uas, rng)
    # Each user has 1-3 devices; devices draw user agents with a skew (popular browsers are common), but every
    # agent in the pool is given to some user so that all of them occur.
    devices = [[rng.randrange(uas) for _ in range(rng.choice((1, 1, 2, 2, 3)))] for _ in range(users)]
    for i in range(uas):
        devices[i % users].append(i)
    cum = list(itertools.accumulate(1.0 / (r + 1) ** 0.8 for r in range(users)))
    start = calendar.timegm((2023, 1, 1, 0, 0, 0))
    span = 365 * 86400
    tmp = path.with_suffix(".part")
    sessions: list[tuple[int, str, bool]] = []  # open sessions, interleaved as a busy server logs them
    with open(tmp, "w", buffering=1 << 22) as out:
        chunk = 100_000
        for base in range(0, lines, chunk):
            n = min(chunk, lines - base)
            buf = []
            for j in range(n):
                if not sessions or rng.random() < 1 / 4:
                    # A new session: a user (skewed activity) on one of their devices, about 8 requests long.
                    u = rng.choices(range(users), cum_weights=cum)[0]
                    sessions.append((u, pool[rng.choice(devices[u])], rng.random() < 0.97))
                    if len(sessions) > 4:
                        sessions.pop(rng.randrange(len(sessions) - 1))
                k = rng.randrange(len(sessions))
                u, ua, alive = sessions[k]
                if rng.random() < 1 / 8:  # the session ends after this request
                    sessions.pop(k)
                t = start + (base + j) * span // lines
                local = time.gmtime(t - 5 * 3600)
                stamp = (
                    f"{local.tm_mday:02d}/{MONTHS[local.tm_mon - 1]}/{local.tm_year}:"
                    f"{local.tm_hour:02d}:{local.tm_min:02d}:{local.tm_sec:02d} -0500"
                )
                req = rng.choice(_PATHS).format(rng.randint(2, 9999))
                status = 200 if alive and rng.random() < 0.93 else rng.choice((303, 304, 404, 500))
                buf.append(
                    f"10.{u >> 8 & 255}.{u & 255}.{rng.randint(1, 254)} - s{u:06d} [{stamp}] "
                    f'"GET {req} HTTP/1.1" {status} {rng.randint(200, 90000)} '
                    f'"https://lms.example.edu/my/" "{ua}"\n'
                )
            out.write("".join(buf))
    os.replace(tmp, path)


def gzip_file(src: Path, dst: Path) -> None:
    tmp = dst.with_suffix(".part")
    with open(tmp, "wb") as out:
        subprocess.run(["gzip", "-c", "-n", "-6", str(src)], stdout=out, check=True)
    os.replace(tmp, dst)
