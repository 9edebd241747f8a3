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
# The baseline: the common combined-log regex, matched per line on bytes. It ignores escaped quotes and does
# not decode: the simplest and fastest version, the kindest to Python.
COMBINED = re.compile(rb'(\S+) (\S+) (\S+) \[([^\]]+)\] "([^"]*)" (\d{3}) (\S+) "([^"]*)" "([^"]*)"')


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
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _python_loop(path: Path) -> tuple[int, int]:
    n = matched = 0
    match = COMBINED.match
    with open(path, "rb") as f:
        for line in f:
            n += 1
            if match(line):
                matched += 1
    return n, matched


def _zcat_wc(path: Path) -> int:
    out = subprocess.run(["bash", "-c", 'set -o pipefail; zcat "$1" | wc -l', "_", str(path)],
                         capture_output=True, text=True, check=True)
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
        t_plain, r = _best(lambda: scan_logs(plain, progress=False), repeat)
        t_gz, r_gz = _best(lambda: scan_logs(packed, progress=False), repeat)
        t_py, (n_py, matched) = _best(lambda: _python_loop(plain), repeat)
        t_zcat, n_zcat = _best(lambda: _zcat_wc(packed), repeat)
    finally:
        os.sched_setaffinity(0, before)
    st = r.stats
    assert st.lines_read == n_py == n_zcat == lines and matched == lines, (st.lines_read, n_py, n_zcat, matched)
    assert r_gz.stats.kept == st.kept and len(r_gz.sightings) == len(r.sightings)
    users, uas = r.sightings.user.nunique(), r.sightings.ua.nunique()
    print(f"input: {lines:,} combined lines, {plain_mb:,.0f} MB plain, {packed_mb:,.0f} MB gzip -6; {uas:,} distinct "
          f"user agents, {users:,} users, {len(r.sightings):,} sightings (distinct user/UA/month keys); seed {SEED}")
    print(f"one core (CPU {core}), files in the page cache, best of {repeat}; times include building the DataFrame")
    rows = [
        ("greendcn scan, plain", t_plain, plain_mb),
        ("greendcn scan, gzip", t_gz, plain_mb),
        ("python re.match loop, plain", t_py, plain_mb),
        ("zcat | wc -l, gzip", t_zcat, plain_mb),
    ]
    for name, t, mb in rows:
        print(f"  {name:30s} {t:7.2f} s  {lines / t / 1e6:6.2f} M lines/s  {mb / t:7.0f} MB/s (uncompressed)")
    print(f"  greendcn scan, gzip: {packed_mb / t_gz:.0f} MB/s of compressed input")
    ratio_py, ratio_zcat = t_py / t_plain, t_zcat / t_gz
    print(f"ratios: plain scan vs Python loop {ratio_py:.1f}x (target >= 5x); gzip scan vs zcat | wc -l "
          f"{ratio_zcat:.2f}x (target >= 1x)")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (Python, pandas and the scans): {rss_mb:,.0f} MB")
    result = {
        "lines": lines, "plain_mb": plain_mb, "gzip_mb": packed_mb, "distinct_uas": int(uas),
        "users": int(users), "sightings": len(r.sightings), "repeat": repeat, "core": core,
        "scan_plain_s": t_plain, "scan_gzip_s": t_gz, "python_loop_s": t_py, "zcat_wc_s": t_zcat,
        "ratio_python_loop": ratio_py, "ratio_zcat_wc": ratio_zcat, "peak_rss_mb": rss_mb,
    }
    (OUT / "lifetime_scan.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
