"""Small sweep specs shared by the sweep tests: seed 003's static scenario with short flows, so a run takes a
few tens of milliseconds."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "scenarios" / "seed003-static.toml"


def write_spec(folder: Path, body: str, name: str = "spec.toml") -> Path:
    p = folder / name
    p.write_text(body)
    return p


def small_spec(
    folder: Path, seeds: int = 2, long_flows: int = 3, name: str = "small", extra: str = "", long_size: str = "200KB"
) -> Path:
    """2 schemes x long_flows x seeds runs of the static scenario with short long flows (200 KB)."""
    return write_spec(
        folder,
        f"""
[sweep]
name = "{name}"
scenario = "{STATIC}"
{extra}

[base]
"workload.long_size" = "{long_size}"

[axes]
"routing.scheme" = ["single", "rps"]
"workload.long_flows" = {{start = 1, stop = {long_flows}}}
"run.seed" = {{start = 1, stop = {seeds}}}
""",
        f"{name}.toml",
    )
