"""Optional marketing names from device-detector 6.5.1 (PyPI `device-detector`, the `devicedetector` extra)
for models the curated table lacks. It takes tens of milliseconds per UA, so answers are kept in a JSON file
on disk, keyed by the UA string, and each distinct UA is asked at most once across runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.errors import InputError

__all__ = ["DeviceNamer", "default_cache_path"]

VERSION = "6.5.1"


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "greendcn" / f"device-detector-{VERSION}.json"


class DeviceNamer:
    """brand, model and device type for a UA, from the disk cache or device-detector."""

    def __init__(self, cache_path: str | Path | None = None):
        try:
            from device_detector import DeviceDetector
        except ImportError as e:
            raise InputError(
                "device-detector is not installed",
                hint="pip install 'greendcn[devicedetector]' (device-detector==6.5.1)",
            ) from e
        self._detector = DeviceDetector
        self.cache_path = Path(cache_path) if cache_path else default_cache_path()
        self.cache: dict[str, dict[str, str]] = {}
        if self.cache_path.exists():
            try:
                self.cache = json.loads(self.cache_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.cache = {}  # a damaged cache is rebuilt, never trusted
        self.asked = 0  # UAs sent to device-detector in this process (the cache's misses)
        self._dirty = False

    def lookup(self, ua: str) -> dict[str, str]:
        hit = self.cache.get(ua)
        if hit is not None:
            return hit
        d = self._detector(ua).parse()
        self.asked += 1
        rec = {
            "brand": d.device_brand() or "",
            "model": d.device_model() or "",
            "type": d.device_type() or "",
        }
        self.cache[ua] = rec
        self._dirty = True
        return rec

    def name(self, ua: str) -> str:
        rec = self.lookup(ua)
        return f"{rec['brand']} {rec['model']}".strip() if rec["model"] else ""

    def save(self) -> None:
        """Write the cache atomically (a temporary file renamed over the old one)."""
        if not self._dirty:
            return
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.cache, sort_keys=True, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.cache_path)
        self._dirty = False
