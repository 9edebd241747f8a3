"""Benchmark of UA parsing for greendcn.lifetime: microseconds per distinct UA with ua-parser 1.0.2's
ua-parser-rs resolver and its pure-`re` resolver, device-detector 6.5.1 when installed, and the whole
classify() per distinct UA. The UAs are synthetic variants of real strings, each distinct."""

from __future__ import annotations

import time

import pandas as pd

_TEMPLATES = [
    "Mozilla/5.0 (Linux; Android {a}; SM-G99{m}B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.{b}.{p} "
    "Mobile Safari/537.36",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Mobile "
    "Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS {a}_{m} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/{a}.{m} Mobile/15E{b} Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.{b}.{p} "
    "Safari/537.36",
    "Mozilla/5.0 (Linux; Android {a}; SAMSUNG SM-S91{m}B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "SamsungBrowser/{a}.0 Chrome/{v}.0.{b}.{p} Mobile Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/{a}.{m} Safari/605.1.15",
]


def distinct_uas(n: int) -> list[str]:
    out: dict[str, None] = {}
    i = 0
    while len(out) < n:
        t = _TEMPLATES[i % len(_TEMPLATES)]
        out[t.format(a=10 + i % 8, m=i % 9, v=90 + i % 40, b=4000 + i, p=i % 200)] = None
        i += 1
    return list(out)


def _per_ua_us(fn, uas: list[str]) -> float:
    t0 = time.perf_counter()
    for ua in uas:
        fn(ua)
    return (time.perf_counter() - t0) / len(uas) * 1e6


def main() -> None:
    from greendcn.lifetime.uaclass import classify
    from greendcn.lifetime.uaparse import make_resolver, parse

    uas = distinct_uas(2000)
    rs, re_ = make_resolver("rs"), make_resolver("re")
    parse(uas[0], rs)  # build the matchers outside the timing
    parse(uas[0], re_)
    rs_us = _per_ua_us(lambda u: parse(u, rs), uas)
    re_us = _per_ua_us(lambda u: parse(u, re_), uas[:300])
    print(f"ua-parser 1.0.2 + ua-parser-rs 0.1.5: {rs_us:.1f} us per distinct UA ({len(uas)} UAs)")
    print(
        f"ua-parser 1.0.2 pure re resolver:    {re_us:.1f} us per distinct UA (300 UAs); "
        f"{re_us / rs_us:.0f}x the Rust resolver"
    )
    frame = pd.DataFrame({"ua": uas})
    classify(frame.head(5))  # load the tables and build the lookups outside the timing
    t0 = time.perf_counter()
    classify(frame)
    print(
        f"classify() end to end (parse + table lookups + censoring): "
        f"{(time.perf_counter() - t0) / len(uas) * 1e6:.1f} us per distinct UA"
    )
    try:
        from device_detector import DeviceDetector
    except ImportError:
        print("device-detector: not installed (the `devicedetector` extra)")
        return
    DeviceDetector(uas[0]).parse()
    dd_us = _per_ua_us(lambda u: DeviceDetector(u).parse(), uas[:100])
    print(f"device-detector 6.5.1: {dd_us / 1000:.1f} ms per distinct UA (100 UAs), uncached")


if __name__ == "__main__":
    main()
