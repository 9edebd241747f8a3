"""Device lifetimes from access logs (seed 001, ch. 4): scan logs, classify user agents, date browsers and
devices, measure oldness and upgrades, and the embodied carbon of lifetimes. See docs/lifetime.md."""

__all__: list[str] = []

# --- scanner: greendcn.lifetime.scan (access logs -> sightings) ---
from .scan import ScanResult, ScanStats, scan_logs, scan_logs_reference  # noqa: E402

__all__ += ["ScanResult", "ScanStats", "scan_logs", "scan_logs_reference"]
# --- end scanner ---
