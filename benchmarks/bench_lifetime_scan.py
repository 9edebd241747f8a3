"""Benchmark of the log scanner (greendcn.lifetime.scan) on one core: a 10 M-line combined log with 20 k distinct
user agents, plain and gzip, beside a plain Python `re.match` loop over the same file and `zcat FILE | wc -l`,
all timed in the same run. Issue 11's targets: plain >= 5x the Python loop; gzip at least as fast as zcat | wc.

The log is generated once (seeded) and cached under out/bench/lifetime_scan/. Environment: LIFETIME_BENCH_LINES
(default 10000000), LIFETIME_BENCH_REPEAT (default 2, the best run counts)."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lifetime_logs import GENERATOR_VERSION, gzip_file, write_log  # noqa: E402

SEED = 11
UAS = 20_000
USERS = 50_000
OUT = HERE.parent / "out" / "bench"
# The baselines: the common combined-log regex, matched per line on bytes. It ignores escaped quotes and does
# not decode: the simplest and fastest version, the kindest to Python. Beside it the form with named groups and
# lazy `.*?` that tutorials and many scripts use.
SIMPLE = re.compile(rb'(\S+) (\S+) (\S+) \[([^\]]+)\] "([^"]*)" (\d{3}) (\S+) "([^"]*)" "([^"]*)"')
NAMED = re.compile(
    rb'(?P<host>\S+) \S+ (?P<user>\S+) \[(?P<time>.*?)\] "(?P<request>.*?)" (?P<status>\d{3}) '
    rb'(?P<size>\S+) "(?P<referrer>.*?)" "(?P<agent>.*?)"'
)


def _inputs(lines: int) -> tuple[Path, Path]:
    d = OUT / "lifetime_scan"
    d.mkdir(parents=True, exist_ok=True)
    plain = d / f"combined-v{GENERATOR_VERSION}-s{SEED}-n{lines}.log"
    packed = plain.with_name(plain.name + ".gz")
    if not plain.exists():
        print(f"generating {plain} (once; cached) ...", file=sys.stderr, flush=True)
        write_log(plain, lines, UAS, USERS, SEED)
    if not packed.exists():
        print("gzip -6 of it (once; cached) ...", file=sys.stderr, flush=True)
        gzip_file(plain, packed)
    return plain, packed


def _warm(path: Path) -> None:
    """Read the file once so that every timed run finds it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def _best(func, repeat: int):
    """Best wall time, best CPU time (this process and its children) and the last result of `repeat` runs."""
    wall = cpu = float("inf")
    out = None
    for _ in range(repeat):
        c0 = time.process_time() + _children_cpu()
        t0 = time.perf_counter()
        out = func()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() + _children_cpu() - c0)
    return wall, cpu, out


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _python_loop(path: Path, regex: re.Pattern[bytes]) -> tuple[int, int]:
    n = matched = 0
    match = regex.match
    with open(path, "rb") as f:
        for line in f:
            n += 1
            if match(line):
                matched += 1
    return n, matched


def _zcat_wc(path: Path) -> int:
    out = subprocess.run(
        ["bash", "-c", 'set -o pipefail; zcat "$1" | wc -l', "_", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


def main() -> None:
    from greendcn.lifetime.scan import scan_logs

    lines = int(os.environ.get("LIFETIME_BENCH_LINES", 10_000_000))
    repeat = int(os.environ.get("LIFETIME_BENCH_REPEAT", 2))
    plain, packed = _inputs(lines)
    plain_mb, packed_mb = plain.stat().st_size / 1e6, packed.stat().st_size / 1e6
    before = os.sched_getaffinity(0)
    core = max(before)
    os.sched_setaffinity(0, {core})  # this process and the zcat | wc children: one core
    try:
        _warm(plain)
        _warm(packed)
        plain_scan = _best(lambda: scan_logs(plain, progress=False), repeat)
        gzip_scan = _best(lambda: scan_logs(packed, progress=False), repeat)
        simple = _best(lambda: _python_loop(plain, SIMPLE), repeat)
        named = _best(lambda: _python_loop(plain, NAMED), repeat)
        zcat = _best(lambda: _zcat_wc(packed), repeat)
    finally:
        os.sched_setaffinity(0, before)
    r, r_gz = plain_scan[2], gzip_scan[2]
    st = r.stats
    assert st.lines_read == lines and zcat[2] == lines, (st.lines_read, zcat[2])
    assert simple[2] == (lines, lines) and named[2] == (lines, lines), (simple[2], named[2])
    assert r_gz.stats.kept == st.kept and len(r_gz.sightings) == len(r.sightings)
    users, uas = r.sightings.user.nunique(), r.sightings.ua.nunique()
    print(
        f"input: {lines:,} combined lines, {plain_mb:,.0f} MB plain, {packed_mb:,.0f} MB gzip -6; {uas:,} distinct "
        f"user agents, {users:,} users, {len(r.sightings):,} sightings (distinct user/UA/month keys); seed {SEED}"
    )
    print(
        f"one core (CPU {core}), files in the page cache, best of {repeat}; scans include building the DataFrame; "
        "CPU = this process and its children"
    )
    cases = [
        ("greendcn scan, plain", plain_scan),
        ("greendcn scan, gzip", gzip_scan),
        ("Python re.match loop, simple regex", simple),
        ("Python re.match loop, named groups", named),
        ("zcat | wc -l", zcat),
    ]
    for name, (wall, cpu, _) in cases:
        print(
            f"  {name:36s} wall {wall:7.2f} s  {lines / wall / 1e6:6.2f} M lines/s  {plain_mb / wall:6.0f} MB/s"
            f"   CPU {cpu:7.2f} s"
        )
    print(f"  greendcn scan, gzip: {packed_mb / gzip_scan[0]:.0f} MB/s of compressed input")
    ratios = {
        "plain_vs_simple_regex": simple[0] / plain_scan[0],
        "plain_vs_named_regex": named[0] / plain_scan[0],
        "gzip_vs_zcat_wc": zcat[0] / gzip_scan[0],
        "cpu_plain_vs_simple_regex": simple[1] / plain_scan[1],
        "cpu_plain_vs_named_regex": named[1] / plain_scan[1],
        "cpu_gzip_vs_zcat_wc": zcat[1] / gzip_scan[1],
    }
    print(
        f"ratios (wall; CPU): plain scan vs simple-regex loop {ratios['plain_vs_simple_regex']:.1f}x; "
        f"{ratios['cpu_plain_vs_simple_regex']:.1f}x (target >= 5x)"
    )
    print(
        f"                    plain scan vs named-group loop {ratios['plain_vs_named_regex']:.1f}x; "
        f"{ratios['cpu_plain_vs_named_regex']:.1f}x (target >= 5x)"
    )
    print(
        f"                    gzip scan vs zcat | wc -l      {ratios['gzip_vs_zcat_wc']:.2f}x; "
        f"{ratios['cpu_gzip_vs_zcat_wc']:.2f}x (target >= 1x)"
    )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (Python, pandas and the scans): {rss_mb:,.0f} MB")
    result = {
        "lines": lines,
        "plain_mb": plain_mb,
        "gzip_mb": packed_mb,
        "distinct_uas": int(uas),
        "users": int(users),
        "sightings": len(r.sightings),
        "repeat": repeat,
        "core": core,
        **{
            f"{name}_wall_s": c[0]
            for name, c in zip(
                ("scan_plain", "scan_gzip", "python_simple", "python_named", "zcat_wc"),
                (plain_scan, gzip_scan, simple, named, zcat),
            )
        },
        **{
            f"{name}_cpu_s": c[1]
            for name, c in zip(
                ("scan_plain", "scan_gzip", "python_simple", "python_named", "zcat_wc"),
                (plain_scan, gzip_scan, simple, named, zcat),
            )
        },
        **ratios,
        "peak_rss_mb": rss_mb,
    }
    (OUT / "lifetime_scan.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
