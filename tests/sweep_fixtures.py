"""Small sweep specs shared by the sweep tests: seed 003's static scenario with short flows, so a run takes a
few tens of milliseconds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import greendcn.sweep
from greendcn.sweep.spec import load_spec
from conftest import run_greendcn

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "scenarios" / "seed003-static.toml"


def write_spec(folder: Path, body: str, name: str = "spec.toml") -> Path:
    p = folder / name
    p.write_text(body)
    return p


def small_spec(
    folder: Path,
    seeds: int = 2,
    long_flows: int = 3,
    name: str = "small",
    extra: str = "",
    long_size: str = "200KB",
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


def check_consistent(res, expected_runs: int) -> None:
    """One row per run key, every execution counted, summaries and flows neither lost nor duplicated."""
    runs, summ, flows, att = res.runs, res.summaries, res.flows, res.attempts
    assert len(runs) == expected_runs and runs["key"].is_unique
    assert (runs["status"] == "done").all()
    assert len(summ) == expected_runs and summ["key"].is_unique
    assert set(summ["key"]) == set(runs["key"])
    # each run's flows stored once: the flow count of its summary, ids unique within the run
    per_run = flows.groupby("key").size()
    assert per_run.to_dict() == summ.set_index("key")["flows"].to_dict()
    assert not flows.duplicated(["key", "id"]).any()
    # no run executed twice: one attempt per key, and the runs table agrees
    assert att.groupby("key").size().eq(1).all() and len(att) == expected_runs
    assert (runs["attempts"] == 1).all()


def _reader(proc: subprocess.Popen, buf: list[str]) -> None:
    while True:
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            return
        buf.append(chunk.decode(errors="replace"))


def start_sweep(
    spec: Path, store: Path, args: list[str]
) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """`greendcn sweep run` in the background, in its own process group; its stderr collects in a list."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "greendcn.cli", "sweep", "run", str(spec), "--store", str(store), *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so the pool's workers die with it
    )
    buf: list[str] = []
    t = threading.Thread(target=_reader, args=(proc, buf), daemon=True)
    t.start()
    return proc, buf, t


def wait_for(proc: subprocess.Popen, buf: list[str], pattern: str, timeout: float = 300) -> re.Match | None:
    """The last match of `pattern` in the sweep's stderr once one appears (None if it ended or timed out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        found = list(re.finditer(pattern, "".join(buf)))
        if found:
            return found[-1]
        time.sleep(0.05)
    return None


def kill(proc: subprocess.Popen, t: threading.Thread) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    t.join(timeout=10)
    proc.stderr.close()


def kill_and_resume(tmp_path: Path, args: list[str], spec: Path | None = None, kill_at: int = 8) -> Path:
    """Start `greendcn sweep run ARGS` (default: 100 small runs), SIGKILL it once `kill_at` runs are stored,
    run it again: nothing repeated, lost or duplicated. Returns the store."""
    if spec is None:
        spec = small_spec(tmp_path, seeds=10, long_flows=5, name="kill", long_size="2MB")  # 2 x 5 x 10 runs
    total = len(load_spec(spec).runs)
    store = tmp_path / "kill.duckdb"
    proc, buf, t = start_sweep(spec, store, args)
    done = 0
    while proc.poll() is None:  # the progress bar counts committed runs: wait for at least 8
        m = wait_for(proc, buf, r"(\d+)/%d " % total)
        done = int(m.group(1)) if m else 0
        if done >= kill_at or m is None:
            break
    assert proc.poll() is None and done >= kill_at, "".join(buf)[-2000:]
    kill(proc, t)
    res = greendcn.sweep.open(store)
    stored = len(res.runs)
    assert done <= stored < total  # what the bar showed was committed; the kill came before the end
    check_consistent(res, stored)
    out = run_greendcn("sweep", "run", spec, "--store", store, *args, "--json", tmp_path / "o.json")
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["skipped"] == stored and doc["done"] == total - stored and doc["failed"] == 0
    check_consistent(greendcn.sweep.open(store), total)
    return store


def die_once(kind: str, job: dict) -> dict:
    """An executor job that kills its worker process the first time it runs anywhere (a marker file beside
    the sweep says it happened), then behaves as `jobs.execute`: a worker lost once, as to the OOM killer."""
    from greendcn.sweep.jobs import execute

    flag = Path(job["base_dir"]) / "died-once"
    try:
        fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return execute(kind, job)
    os.close(fd)
    os._exit(1)
