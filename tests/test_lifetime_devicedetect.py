"""Optional device-detector names for models the device table lacks, and their disk cache."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytest.importorskip("device_detector")  # the `devicedetector` extra; part of the dev install

from greendcn.lifetime.devicedetect import DeviceNamer  # noqa: E402
from greendcn.lifetime.uaclass import classify  # noqa: E402

XIAOMI = (
    "Mozilla/5.0 (Linux; Android 13; 2201116SG) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/118.0.0.0 Mobile Safari/537.36"
)
SAMSUNG = (
    "Mozilla/5.0 (Linux; Android 11; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/96.0.4664.45 Mobile Safari/537.36"
)


def test_names_unknown_models_and_caches_them_on_disk(tmp_path):
    cache = tmp_path / "dd.json"
    namer = DeviceNamer(cache)
    frame = pd.DataFrame({"ua": [XIAOMI, SAMSUNG, XIAOMI]})
    out = classify(frame, namer=namer)
    name = out.iloc[0]["device_name"]
    assert name.startswith("Xiaomi ") and len(name) > len("Xiaomi ")
    assert out.iloc[1]["device_name"] == "Galaxy S21 5G"  # the curated table wins; no question asked
    assert namer.asked == 1
    stored = json.loads(cache.read_text())
    assert list(stored) == [XIAOMI] and stored[XIAOMI]["brand"] == "Xiaomi"
    again = DeviceNamer(cache)  # a new process: the answer comes from the file
    assert classify(frame, namer=again).iloc[0]["device_name"] == name and again.asked == 0


def test_a_damaged_cache_is_rebuilt(tmp_path):
    cache = tmp_path / "dd.json"
    cache.write_text("{not json")
    namer = DeviceNamer(cache)
    assert namer.name(XIAOMI).startswith("Xiaomi") and namer.asked == 1
    namer.save()
    assert XIAOMI in json.loads(cache.read_text())
