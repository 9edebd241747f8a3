"""A sweep on a Ray cluster of two real nodes (a head and a worker node, each started by `ray start` as its own
processes) survives losing the worker node mid-sweep: the runs in flight there are retried on what remains,
and the store ends with every run once, none lost and none done twice."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from sweep_fixtures import small_spec, start_sweep, wait_for

import greendcn.sweep

pytest.importorskip("ray")
RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out[int(d)] = (ppid, cmd)
    return out


def _tree(match: str) -> set[int]:
    """The processes whose command line contains `match`, and all their descendants (Ray's workers rename
    themselves, `ray::IDLE`, but stay children of their node's raylet)."""
    ps = _processes()
    tree = {p for p, (_, cmd) in ps.items() if match in cmd and p != os.getpid()}
    grown = True
    while grown:
        grown = False
        for p, (parent, _) in ps.items():
            if parent in tree and p not in tree:
                tree.add(p)
                grown = True
    return tree


def _kill(pids: set[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def two_node_cluster():
    # a short temp dir: Ray's unix sockets live under it and their paths must stay under 108 bytes
    temp = tempfile.mkdtemp(prefix="gdnray", dir="/tmp")
    port, node_port = _free_port(), _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--disable-usage-stats"]
    try:
        subprocess.run(
            [RAY, "start", "--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
             f"--temp-dir={temp}", *common],
            check=True, capture_output=True, env=env, timeout=300,
        )  # fmt: skip
        subprocess.run(
            [RAY, "start", f"--address=127.0.0.1:{port}", "--num-cpus=2", f"--node-manager-port={node_port}",
             *common],
            check=True, capture_output=True, env=env, timeout=300,
        )  # fmt: skip
        yield f"127.0.0.1:{port}", f"--node_manager_port={node_port}"
    finally:
        _kill(_tree(temp))  # every process of both nodes, and only those: they all name the temp dir
        shutil.rmtree(temp, ignore_errors=True)


def test_a_sweep_survives_losing_a_worker_node(tmp_path, two_node_cluster):
    address, worker_node = two_node_cluster
    # 20 runs of about a second each; three CPUs (head 1, worker node 2), so the worker node has runs in flight
    spec = small_spec(tmp_path, seeds=2, long_flows=5, name="nodes", long_size="20MB")
    store = tmp_path / "nodes.duckdb"
    proc, buf, t = start_sweep(spec, store, ["--executor", "ray", "--address", address])
    try:
        assert wait_for(proc, buf, r"to run on ray \(3 workers\)"), "".join(buf)
        # wait until some runs are stored, then kill the worker node: its raylet and everything under it
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if len(greendcn.sweep.open(store).runs) >= 2:
                break
            time.sleep(0.2)
        raylets = _tree(worker_node)
        assert raylets, "the worker node's raylet was not found"
        _kill(raylets)
        assert proc.wait(timeout=600) == 0, "".join(buf)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        t.join(timeout=10)
        proc.stderr.close()
    res = greendcn.sweep.open(store)
    runs, att = res.runs, res.attempts
    assert len(runs) == 20 and runs["key"].is_unique and (runs["status"] == "done").all()  # none lost
    done = att[att["status"] == "done"]
    assert done["key"].is_unique and len(done) == 20  # none done twice
    lost = att[att["status"] != "done"]
    assert len(lost) >= 1, "no run was in flight on the killed node"  # the kill hit work in progress
    assert set(lost["key"]) <= set(done["key"])  # each lost one was retried to completion
    assert len(res.summaries) == 20 and not res.flows.duplicated(["key", "id"]).any()
