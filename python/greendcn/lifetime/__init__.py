"""Device lifetimes from access logs (seed 001, ch. 4): scan logs, classify user agents, date browsers and
devices, measure oldness and upgrades, the embodied carbon of lifetimes, and a synthetic log generator with a
known truth. See docs/lifetime.md."""

__all__: list[str] = []

# --- scanner: greendcn.lifetime.scan (access logs -> sightings) ---
from .scan import ScanResult, ScanStats, scan_logs, scan_logs_reference  # noqa: E402

__all__ += ["ScanResult", "ScanStats", "scan_logs", "scan_logs_reference"]
# --- end scanner ---

# --- analyses: oldness, upgrades, embodied carbon ---
from .carbon import carbon_per_year, lifetimes_from_upgrades, load_factors  # noqa: E402
from .oldness import (  # noqa: E402
    OldnessResult,
    browser_oldness,
    device_oldness,
    for_month,
    oldness,
    os_oldness,
    summarize,
)
from .sightings import classified_sightings  # noqa: E402
from .upgrades import UpgradeResult, UpgradeRules, detect_upgrades, device_table, upgrades  # noqa: E402

__all__ += [
    "OldnessResult",
    "UpgradeResult",
    "UpgradeRules",
    "browser_oldness",
    "carbon_per_year",
    "classified_sightings",
    "detect_upgrades",
    "device_oldness",
    "device_table",
    "for_month",
    "lifetimes_from_upgrades",
    "load_factors",
    "oldness",
    "os_oldness",
    "summarize",
    "upgrades",
]
# --- end analyses ---
