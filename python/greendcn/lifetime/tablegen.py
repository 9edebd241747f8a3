"""Builds the shipped release-date and embodied-carbon tables from registry packages (stdlib only, so
`scripts/regen_tables` can load this file without importing greendcn).

Inputs: `data.json` of the npm package @mdn/browser-compat-data and `boaviztapi/data/factors.yml` of the
PyPI package boaviztapi. Outputs: CSV bytes that depend on nothing but those inputs (sorted rows, fixed
column order, `\\n` line ends), and a provenance record per table. See docs/lifetime.md, "Release tables"."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping

BROWSER_COLUMNS = ["browser", "version", "release_date", "status", "source"]
OS_COLUMNS = ["os", "version", "release_date", "source"]
CARBON_COLUMNS = ["device_class", "kg_co2e_lo", "kg_co2e_hi", "fossil_mj_lo", "fossil_mj_hi", "source"]

# MDN browser ids copied as they are. ie and the desktop browsers matter for logs reaching back to 2013.
MDN_BROWSERS = (
    "chrome",
    "chrome_android",
    "edge",
    "firefox",
    "firefox_android",
    "ie",
    "opera",
    "opera_android",
    "safari",
    "safari_ios",
    "samsunginternet_android",
    "webview_android",
    "webview_ios",
)
# Browsers MDN does not list, dated by the MDN browser that shares their version numbers and release train
# (our choice: Chrome, Firefox and Edge on iOS and Edge on Android take the desktop browser's major).
PROXIES = {"chrome_ios": "chrome", "firefox_ios": "firefox", "edge_android": "edge", "edge_ios": "edge"}
# Android WebView is dated by its own MDN entry; where that entry has no such version, by the Chrome for
# Android release of the same number (MDN 8.1.9 lacks WebView 18 and 25-36, the Chromium versions of the
# Android 4.4 WebView among them).
WEBVIEW, WEBVIEW_GAP_FROM = "webview_android", "chrome_android"

# boaviztapi's factors.yml keys -> our device classes. Where boaviztapi gives a "perso" and a "pro" figure
# (laptop, desktop) the table keeps the smaller as lo and the larger as hi.
CARBON_CLASSES = {"smartphone": "SMARTPHONE", "tablet": "TABLET", "laptop": "LAPTOP", "desktop": "DESKTOP"}


def version_key(v: str) -> tuple:
    """Numeric sort key of a dotted version ("4.4.3" -> (4, 4, 3)); non-numeric parts sort last."""
    return tuple(int(p) if p.isdigit() else 10**9 for p in str(v).split("."))


def mdn_source(browser: str) -> str:
    return f"mdn:{browser}"


def browser_rows(data: Mapping) -> list[dict]:
    """One row per (browser, version) from MDN's `browsers` object, plus the WebView gap and the proxies."""
    browsers = data["browsers"]
    rows: list[dict] = []
    for b in MDN_BROWSERS:
        for v, rel in browsers[b]["releases"].items():
            rows.append(_row(b, v, rel, mdn_source(b)))
    own = set(browsers[WEBVIEW]["releases"])
    for v, rel in browsers[WEBVIEW_GAP_FROM]["releases"].items():
        if v not in own:
            rows.append(_row(WEBVIEW, v, rel, f"{mdn_source(WEBVIEW_GAP_FROM)} (webview gap)"))
    for b, src in PROXIES.items():
        for v, rel in browsers[src]["releases"].items():
            rows.append(_row(b, v, rel, f"{mdn_source(src)} (proxy)"))
    rows.sort(key=lambda r: (r["browser"], version_key(r["version"])))
    return rows


def _row(browser: str, version: str, rel: Mapping, source: str) -> dict:
    return {
        "browser": browser,
        "version": version,
        "release_date": rel.get("release_date", ""),
        "status": rel.get("status", ""),
        "source": source,
    }


def ios_rows(data: Mapping) -> list[dict]:
    """iOS versions dated by Safari on iOS: Safari ships inside iOS and shares its version number, so MDN's
    `safari_ios` release X.Y is the iOS X.Y release. Versions still in beta (no date) are left out."""
    rows = []
    for v, rel in data["browsers"]["safari_ios"]["releases"].items():
        if rel.get("release_date"):
            rows.append(
                {
                    "os": "ios",
                    "version": v,
                    "release_date": rel["release_date"],
                    "source": mdn_source("safari_ios"),
                }
            )
    rows.sort(key=lambda r: version_key(r["version"]))
    return rows


def carbon_rows(factors: Mapping) -> list[dict]:
    """Embodied kg CO2e (`gwp`) and fossil-resource use in MJ (`adpf`) per device class from boaviztapi's
    factors.yml, whose user-terminal entries cite ADEME's Base Empreinte."""
    rows = []
    for cls, key in CARBON_CLASSES.items():
        entry = factors[key]
        gwp, gwp_src = _impacts(entry["gwp"])
        adpf, adpf_src = _impacts(entry["adpf"])
        rows.append(
            {
                "device_class": cls,
                "kg_co2e_lo": _num(min(gwp)),
                "kg_co2e_hi": _num(max(gwp)),
                "fossil_mj_lo": _num(min(adpf)),
                "fossil_mj_hi": _num(max(adpf)),
                "source": f"boaviztapi factors.yml {key}.gwp/adpf ({'; '.join(sorted(gwp_src | adpf_src))})",
            }
        )
    return rows


def _impacts(node: Mapping) -> tuple[list[float], set[str]]:
    """The impact figures of one criterion: a single {impact, source} or one per usage profile."""
    if "impact" in node:
        return [float(node["impact"])], {str(node.get("source", ""))}
    vals, srcs = [], set()
    for profile in sorted(node):
        v, s = _impacts(node[profile])
        vals += v
        srcs |= s
    return vals, srcs


def _num(x: float) -> str:
    return f"{x:g}"


def to_csv(rows: Iterable[Mapping], columns: list[str]) -> bytes:
    """CSV bytes with a fixed column order and `\\n` line ends: the same rows give the same bytes."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="raise")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue().encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def count_rows(data: bytes) -> int:
    return max(0, len(list(csv.reader(io.StringIO(data.decode("utf-8"))))) - 1)


def provenance(
    file: str,
    data: bytes,
    *,
    source: str,
    version: str,
    source_date: str,
    licence: str,
    extracted_on: str,
    command: str,
) -> dict:
    """The record written beside a table. `source_date` comes from the input (deterministic); only
    `extracted_on` says when the script ran, and it lives here, outside the bytes the sha256 covers."""
    return {
        "file": file,
        "source": source,
        "version": version,
        "source_date": source_date,
        "extracted_on": extracted_on,
        "licence": licence,
        "sha256": sha256(data),
        "rows": count_rows(data),
        "command": command,
    }


def provenance_json(record: Mapping) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
