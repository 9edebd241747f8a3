"""Long runs report their progress on stderr, and Ctrl-C stops them cleanly with what was measured so far,
marked incomplete (exit 130). The run is a k=24 permutation, long enough to report on any machine; the test
waits for the first progress line (not for a time) before pressing Ctrl-C."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_ctrl_c_keeps_the_results_so_far_marked_incomplete(tmp_path):
    out_json = tmp_path / "r.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "greendcn.cli",
            "simulate",
            str(ROOT / "scenarios" / "bench-k8-permutation.toml"),
            "--set",
            "topology.k=24",
            "--set",
            "workload.size=10MB",
            "--json",
            str(out_json),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen = ""
        while "simulating:" not in seen:
            ch = proc.stderr.read(1)
            assert ch, f"the run ended before reporting progress: {seen}"
            seen += ch
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "incomplete" in err and "Traceback" not in err
    assert "(interrupted)" in out  # the summary printed, stopped by the interruption
    s = json.loads(out_json.read_text())["summary"]
    assert s["incomplete"] is True and s["stopped_by"] == "interrupted"
    # what was measured is consistent: every packet is delivered, dropped or still in flight
    assert s["packets_created"] == s["packets_delivered"] + s["drops"] + s["packets_in_flight"]
    assert s["packets_in_flight"] > 0


def test_a_library_caller_gets_keyboard_interrupt_by_default():
    # simulate() returns partial results only when asked (the CLI asks); a sweep must not store them as done.
    from greendcn.sim import run as run_module

    calls = []

    def fake_run_spec(spec, progress=None):
        calls.append(spec)
        return {"summary": {"stopped_by": "interrupted"}}

    import greendcn.sim.engine as engine

    original = engine.run_spec_columns  # simulate's door to the engine (per-flow results as columns)
    engine.run_spec_columns = fake_run_spec
    try:
        with pytest.raises(KeyboardInterrupt):
            run_module.simulate({"workload": {"kind": "static", "long_flows": 1, "long_size": "1MB"}})
    finally:
        engine.run_spec_columns = original
    assert calls
