"""Device lifetimes from access logs (seed 001 ch. 4): browser, device and OS oldness, upgrades, embodied
carbon, and a synthetic log generator with a known truth. See docs/lifetime.md."""

from .carbon import carbon_per_year, lifetimes_from_upgrades, load_factors
from .oldness import OldnessResult, browser_oldness, device_oldness, for_month, oldness, os_oldness, summarize
from .sightings import classified_sightings
from .upgrades import UpgradeResult, UpgradeRules, detect_upgrades, device_table, upgrades

__all__ = [
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
