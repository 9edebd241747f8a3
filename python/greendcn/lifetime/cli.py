"""`greendcn lifetime ...`: browser/device/OS oldness and upgrades from access logs, embodied carbon per
device-year, synthetic logs with a known truth, and the shipped release tables."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.clitools import JsonOption, echo_table, fail, info, write_json, finite_float
from . import pipeline
from .oldness import PERCENTILES
from .upgrades import SEED_RULES, UpgradeRules, upgrades

app = typer.Typer(
    help="Device lifetimes from access logs (McGuinness 2021 ch. 4): oldness, upgrades, embodied carbon.",
    no_args_is_help=True,
)

LogsArg = typer.Argument(
    ..., help="Access logs: combined, CSV or JSON lines; plain or .gz.", show_default=False
)
FormatOpt = typer.Option(
    "auto", "--format", help="combined, csv, jsonl or auto (per file, from its first line)."
)
ColumnOpt = typer.Option(
    None,
    "--column",
    help="Map a field to a CSV/JSON column, FIELD=NAME (repeat). Fields: " + ", ".join(pipeline.FIELDS) + ".",
)
EventsOpt = typer.Option(
    pipeline.AUTO,
    "--events",
    help="Keep only these events (comma-separated). auto: login,logout where a file has an "
    "event column (McGuinness 2021 kept successful logins and logouts); all: no event filter.",
)
StatusOpt = typer.Option(
    pipeline.AUTO,
    "--status",
    help="Keep only these HTTP statuses or classes (e.g. 2xx,302). auto: 2xx,3xx where a "
    "file has a status; all: no status filter.",
)
MaxLineOpt = typer.Option(
    65536, "--max-line-bytes", help="Longer lines are counted as malformed (over_long)."
)
FiguresOpt = typer.Option(None, "--figures", help="Also draw PNG figures into this directory.")


def _read(logs, fmt, column, events, status, max_line_bytes):
    if fmt not in ("auto", "combined", "csv", "jsonl"):
        fail(f"--format: unknown format {fmt!r}", hint="use combined, csv, jsonl or auto")
    if max_line_bytes < 256:
        fail(f"--max-line-bytes: {max_line_bytes} is too small", hint="give at least 256 (default 65536)")
    cs, stats = pipeline.read_logs(
        logs,
        fmt,
        pipeline.parse_columns(column),
        pipeline.parse_filter(events, "events"),
        pipeline.parse_filter(status, "status"),
        max_line_bytes,
    )
    return cs, {**stats, "format": fmt}


def _print_input(stats: dict) -> None:
    for err in stats.get("gzip_errors") or []:
        e = err if isinstance(err, dict) else {"error": str(err)}
        info(
            f"warning: {e.get('file', 'input')}: gzip stream {e.get('error', 'damaged')} "
            f"({e.get('detail', '')}); the lines before it were read"
        )
    bad = stats.get("malformed", {})
    filtered = sum(v for k, v in stats.items() if k.startswith("filtered_") and isinstance(v, int))
    print(
        f"lines read {stats.get('lines_read', 0)}, kept {stats.get('kept', 0)}, filtered {filtered}, "
        f"malformed {sum(bad.values())}"
        + (f" ({', '.join(f'{k} {v}' for k, v in bad.items() if v)})" if any(bad.values()) else "")
    )


def _floats(text: str, name: str) -> list[float]:
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{name}: expected numbers separated by commas, got {text!r}", hint="e.g. 1,5,50,95,99")
    if not vals:
        fail(f"{name}: empty", hint="e.g. 1,5,50,95,99")
    return vals


HEADLINE_STATEMENT = (
    'McGuinness 2021, section 4.4.1 states: "nearly 99%" of all users access the LMS with a browser '
    'released within a four-year window (mobile plotted; desktop "similar")'
)


@app.command("oldness")
def oldness_cmd(
    logs: list[Path] = LogsArg,
    fmt: str = FormatOpt,
    column: list[str] = ColumnOpt,
    events: str = EventsOpt,
    status: str = StatusOpt,
    max_line_bytes: int = MaxLineOpt,
    month: int = typer.Option(
        10, "--month", help="The calendar month shown per year (McGuinness 2021 plots October)."
    ),
    months: str | None = typer.Option(
        None,
        "--months",
        help="Months shown per year: all, a month, or a list (1,4,10 or 9-11); overrides --month.",
    ),
    percentiles: str = typer.Option(",".join(f"{q:g}" for q in PERCENTILES), "--percentiles"),
    within: float = typer.Option(
        4.0,
        "--within",
        parser=finite_float,
        help="Years for the within-window shares and the headline (McGuinness 2021: four).",
    ),
    within_days: int | None = typer.Option(
        None, "--within-days", help="The same window in days (overrides --within)."
    ),
    figures: Path = FiguresOpt,
    json_out: Path = JsonOption,
) -> None:
    """Browser, device and OS age at the latest use per user and month, per platform and over all platforms;
    censored ages as bounds; the share of users whose browser is within N years (McGuinness 2021's headline)."""
    from .oldness import ALL_PLATFORMS, oldness_report, parse_months

    if not 1 <= month <= 12:
        fail(f"--month: {month} is not a month", hint="give 1-12 (10 = October)")
    chosen = parse_months(months) if months is not None else [month]
    if within <= 0:
        fail(f"--within: must be positive, got {within:g}", hint="give years, e.g. --within 4")
    window_days = within_days if within_days is not None else round(within * 365.25)
    if window_days <= 0:
        fail(f"--within-days: must be positive, got {window_days}", hint="e.g. --within-days 1461")
    qs = _floats(percentiles, "--percentiles")
    if any(not 0 <= q <= 100 for q in qs):
        fail(f"--percentiles: each must be in [0, 100], got {percentiles!r}", hint="e.g. 1,50,99")
    cs, stats = _read(logs, fmt, column, events, status, max_line_bytes)
    out = oldness_report(cs, chosen, qs, window_days)
    out = {"input": stats, **out, "params": {"month": month, "within_years": within, **out["params"]}}
    out["headline"]["seed_statement"] = HEADLINE_STATEMENT
    shown = [q for q in qs if q in (1, 50, 99)] or qs[:3]
    label = out["params"]["label"]
    tables = [(kind, out[kind]["by_year"]) for kind in ("browser", "device", "os")]
    head = out["headline"]["rows"]
    # Files first, so that a reader closing stdout early (| head) still gets them.
    write_json(json_out, out)
    if figures is not None:
        from .figures import oldness_figures

        paths = oldness_figures(
            out["browser"]["by_year"], out["device"]["by_year"], out["os"]["by_year"], figures
        )
        info("figures: " + ", ".join(str(p) for p in paths))
    _print_input(stats)
    for kind, year in tables:
        exact = kind == "browser"
        cols = ["platform", "year", "rows"] + (
            [f"p{q:g}_days" for q in shown] + ["within_share"]
            if exact
            else ["censored_share"]
            + [f"p{q:g}_{s}_days" for q in shown for s in ("lo", "hi")]
            + ["within_share_lo", "within_share_hi"]
        )
        cols = cols[:2] + ["month"] + cols[2:] if chosen is None or len(chosen) > 1 else cols
        print(
            f"\n{kind} age in {label} of each year (days{'' if exact else '; censored: lo-hi bounds'}; "
            f"platform '{ALL_PLATFORMS}' = every user's rows)"
        )
        echo_table(
            year[[c for c in cols if c in year.columns]].to_dict(orient="records") if len(year) else []
        )
    print(f"\nheadline: {out['headline']['measure']}")
    echo_table(
        [
            {
                "platform": r["platform"],
                "users": r["users"],
                "dated_users": r["dated_users"],
                "share_lo_%": None if r["share_lo"] is None else 100 * r["share_lo"],
                "share_hi_%": None if r["share_hi"] is None else 100 * r["share_hi"],
            }
            for r in head.to_dict(orient="records")
        ]
    )
    print(f"  {HEADLINE_STATEMENT}")
    print(
        "  ours: the all-platforms row above (lo-hi: users without a dated browser counted as older / within)"
    )


def _rules(**kw) -> UpgradeRules:
    classes = tuple(c.strip() for c in kw.pop("classes").split(",") if c.strip())
    for k, v in kw.items():
        if v < 0:
            fail(f"--{k.replace('_', '-')}: must not be negative, got {v}", hint="give a number of days")
    if not classes:
        fail("--classes: empty", hint="e.g. smartphone or smartphone,tablet")
    return UpgradeRules(classes=classes, **kw)


def _opt(name: str, help_text: str):
    return typer.Option(getattr(SEED_RULES, name), f"--{name.replace('_', '-')}", help=help_text)


@app.command("upgrades")
def upgrades_cmd(
    logs: list[Path] = LogsArg,
    fmt: str = FormatOpt,
    column: list[str] = ColumnOpt,
    events: str = EventsOpt,
    status: str = StatusOpt,
    max_line_bytes: int = MaxLineOpt,
    recent_release_days: int = _opt(
        "recent_release_days", "Rule 1a: new released at most this long before its first use."
    ),
    newer_by_days: int = _opt("newer_by_days", "Rule 1b: ... or released this much after the old device."),
    min_release_gap_days: int = _opt(
        "min_release_gap_days", "Rule 2: new released at least this after the old."
    ),
    max_gap_days: int = _opt("max_gap_days", "Rule 3: new first used at most this after the old's last use."),
    max_overlap_days: int = _opt(
        "max_overlap_days", "Rule 4: old last used at most this after the new's first."
    ),
    min_outlast_days: int = _opt(
        "min_outlast_days", "Rule 5: new last used at least this after the old's last."
    ),
    dedupe_days: int = _opt(
        "dedupe_days", "Rule 6: devices added/dropped this close to an upgrade don't count."
    ),
    classes: str = typer.Option(",".join(SEED_RULES.classes), "--classes", help="Device classes to pair."),
    figures: Path = FiguresOpt,
    json_out: Path = JsonOption,
) -> None:
    """Device upgrades by McGuinness 2021's criteria: per month and platform, old-device age percentiles, new-device
    age by old-age group."""
    rules = _rules(
        recent_release_days=recent_release_days,
        newer_by_days=newer_by_days,
        min_release_gap_days=min_release_gap_days,
        max_gap_days=max_gap_days,
        max_overlap_days=max_overlap_days,
        min_outlast_days=min_outlast_days,
        dedupe_days=dedupe_days,
        classes=classes,
    )
    cs, stats = _read(logs, fmt, column, events, status, max_line_bytes)
    res = upgrades(cs, rules)
    summary = res.summary()
    if figures is not None:
        from .figures import upgrade_figures

        paths = upgrade_figures(res.monthly, res.old_age, res.new_age, figures)
        info("figures: " + ", ".join(str(p) for p in paths))
    write_json(
        json_out,
        {
            "input": stats,
            "rules": rules.as_dict(),
            "summary": summary,
            "monthly": res.monthly,
            "old_age_percentiles": res.old_age,
            "new_age_cdf": res.new_age,
            "events": res.events,
        },
    )
    _print_input(stats)
    print(
        f"\n{summary['events']} upgrades among {summary['devices']} dated devices "
        f"({', '.join(f'{k} {v}' for k, v in summary['events_by_platform'].items()) or 'none'})"
    )
    if len(res.events):
        per_year = (
            res.events.assign(year=res.events["month"].str.slice(0, 4)).groupby(["year", "platform"]).size()
        )
        print("\nupgrades per year")
        echo_table([{"year": y, "platform": p, "upgrades": int(n)} for (y, p), n in per_year.items()])
        print("\nold device's age at upgrade (days), all platforms")
        oa = res.old_age[(res.old_age["platform"] == "all") & (res.old_age["percentile"] % 10 == 0)]
        echo_table(oa[["percentile", "old_age_days"]].to_dict(orient="records"))
        print("\nnew device's age at first use by old-age group (days)")
        med = (
            res.new_age[res.new_age["cdf_share"].isin([0.1, 0.5, 0.9])]
            .pivot_table(
                index=["group", "old_age_lo_days", "old_age_hi_days", "events"],
                columns="cdf_share",
                values="new_age_days",
            )
            .reset_index()
        )
        med.columns = [
            "group",
            "old_age_lo_days",
            "old_age_hi_days",
            "events",
            "new_p10_days",
            "new_p50_days",
            "new_p90_days",
        ]
        echo_table(med.to_dict(orient="records"))


@app.command("carbon")
def carbon_cmd(
    logs: list[Path] = typer.Argument(
        None, help="Logs to take lifetimes from (detected upgrades).", show_default=False
    ),
    lifetime_years: float = typer.Option(
        None,
        "--lifetime-years",
        help="Use this lifetime for every class instead of logs.",
        parser=finite_float,
    ),
    device_class: list[str] = typer.Option(None, "--class", help="Classes to report (repeat); default all."),
    extend_years: list[float] = typer.Option(
        [1.0], "--extend-years", help="Lifetime growth to price (repeat).", parser=finite_float
    ),
    factors: Path = typer.Option(
        None,
        "--factors",
        help="CSV overriding the shipped factors: device_class,kg_co2e[,fossil_mj] (or _lo/_hi columns).",
    ),
    fmt: str = FormatOpt,
    column: list[str] = ColumnOpt,
    events: str = EventsOpt,
    status: str = StatusOpt,
    json_out: Path = JsonOption,
) -> None:
    """Embodied kg CO2e and fossil MJ per device-year over observed lifetimes, and the saving if they grew."""
    from .carbon import carbon_per_year, lifetimes_from_upgrades, load_factors

    if bool(logs) == (lifetime_years is not None):
        fail("give either logs or --lifetime-years", hint="e.g. greendcn lifetime carbon --lifetime-years 4")
    if any(n < 0 for n in extend_years):
        fail("--extend-years: must not be negative", hint="e.g. --extend-years 1")
    table = load_factors(factors)
    if logs:
        classes = tuple(device_class) if device_class else SEED_RULES.classes
        cs, stats = _read(logs, fmt, column, events, status, 65536)
        res = upgrades(cs, UpgradeRules(classes=classes))
        lifetimes = lifetimes_from_upgrades(res.events)
        if lifetimes.empty:
            fail("no upgrades detected, so no observed lifetimes", hint="give --lifetime-years instead")
        source = {"input": stats, "lifetime": "old device's age at its upgrade"}
    else:
        if lifetime_years <= 0:
            fail(f"--lifetime-years: must be positive, got {lifetime_years}", hint="e.g. --lifetime-years 4")
        classes = tuple(device_class) if device_class else tuple(table["device_class"])
        lifetimes = {c: lifetime_years for c in classes}
        source = {"lifetime": f"{lifetime_years:g} years for every class (given)"}
    result = carbon_per_year(table, lifetimes, extend_years)
    cols = [
        "device_class",
        "devices",
        "mean_lifetime_years",
        "extend_years",
        "kg_co2e_lo",
        "kg_co2e_hi",
        "kg_co2e_per_year_lo",
        "kg_co2e_per_year_hi",
        "kg_co2e_per_year_extended_lo",
        "kg_co2e_per_year_extended_hi",
        "saving_share",
    ]
    echo_table(result[cols].to_dict(orient="records"))
    write_json(json_out, {**source, "carbon": result})


@app.command("synth")
def synth_cmd(
    out: Path = typer.Option(..., "--out", help="Directory for the log and its truth."),
    seed: int = typer.Option(0, "--seed"),
    users: int = typer.Option(500, "--users"),
    fmt: str = typer.Option("combined", "--format", help="combined, csv or jsonl."),
    gz: bool = typer.Option(False, "--gzip", help="Write the log gzip-compressed."),
    start: str = typer.Option("2018-01", "--start", help="First month, YYYY-MM."),
    end: str = typer.Option("2026-10", "--end", help="Last month, YYYY-MM."),
    reduced_share: float = typer.Option(
        1.0, "--reduced-share", help="Chrome (>= 110) lines with reduced UAs.", parser=finite_float
    ),
    frozen_ios_share: float = typer.Option(
        1.0, "--frozen-ios-share", help="Safari 26+ lines with frozen iOS.", parser=finite_float
    ),
    client_hints: float = typer.Option(
        0.25,
        "--client-hints",
        help="Reduced lines logging Sec-CH-UA-Model (CSV/JSONL only).",
        parser=finite_float,
    ),
    app_share: float = typer.Option(0.55, "--app-share", help="Users with the LMS app.", parser=finite_float),
    second_hand_share: float = typer.Option(
        0.3, "--second-hand-share", help="Users buying second-hand.", parser=finite_float
    ),
    malformed_share: float = typer.Option(0.003, "--malformed-share", parser=finite_float),
    score: bool = typer.Option(
        False, "--score", help="Then read the log back with the analyses and score them against the truth."
    ),
    json_out: Path = JsonOption,
) -> None:
    """Write a synthetic access log and its truth (upgrades, oldness, censored rows). Deterministic per seed."""
    from .synth import FORMATS, SynthParams, synthesize, write_synth

    if fmt not in FORMATS:
        fail(f"--format: unknown format {fmt!r}", hint="use combined, csv or jsonl")
    params = SynthParams(
        users=users,
        start=start,
        end=end,
        reduced_share=reduced_share,
        frozen_ios_share=frozen_ios_share,
        client_hints_share=client_hints,
        app_share=app_share,
        second_hand_share=second_hand_share,
        malformed_share=malformed_share,
    )
    info(f"synth: {users} users, {start}..{end}, seed {seed}")
    log = synthesize(seed, params, progress=True)
    try:
        meta = write_synth(log, out, fmt, gz)
    except OSError as e:
        fail(f"--out {out}: cannot write ({e.strerror})", hint="choose a writable directory")
    c = meta["counts"]
    print(
        f"wrote {out / meta['log']}: {c['lines']} lines ({c['malformed']} malformed, {c['filtered_records']} "
        f"failed logins), {c['users']} users, {c['devices']} devices"
    )
    print(
        f"truth: {c['replacements']} phone replacements, {c['upgrades_meeting_rules_observed']} of them "
        "upgrades by the criteria and visible in the log; truth_*.csv and truth.json beside the log"
    )
    if score:
        from .synth.score import score_dir

        meta["score"] = _print_score(score_dir(out))
    write_json(json_out, meta)


def _print_score(s: dict) -> dict:
    u = s["upgrades"]
    print(
        f"\nupgrades: {u['found']} of {u['true_upgrades']} true upgrades found (recall {u['recall_share']:.3f}), "
        f"{u['detected'] - u['found']} of {u['detected']} detected are false (share {u['false_share']:.3f})"
    )
    rows = []
    for kind, r in s["oldness"].items():
        rows.append(
            {
                "kind": kind,
                "exact_rows": r["exact_rows"],
                "exact_rows_truth": r["exact_rows_truth"],
                "worst_percentile_gap_days": r["worst_percentile_gap_days"],
                "censored_rows": r.get("censored_rows"),
                "censored_rows_truth": r.get("censored_rows_truth"),
                "truth_inside_bounds_share": r.get("truth_inside_bounds_share"),
            }
        )
    print("\noldness against the truth")
    echo_table(rows)
    print("\nheadline shares (synthetic data; the generator's parameters are ours)")
    echo_table([{"measure": k, "value": v} for k, v in s["headline"].items()])
    return s


@app.command("tables")
def tables_cmd(json_out: Path = JsonOption) -> None:
    """The shipped release-date and embodied-carbon tables: source, version, extraction date, licence, sha256."""
    from .tables import tables_info

    info_rows = tables_info()
    rows = info_rows.to_dict(orient="records") if hasattr(info_rows, "to_dict") else list(info_rows)
    echo_table(rows)
    write_json(json_out, {"tables": rows})
