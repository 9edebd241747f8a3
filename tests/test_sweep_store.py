"""The results store: what a sweep writes, resuming without running anything twice (also after SIGKILL),
failed runs and --rerun-failed, bounded retries, the writer lock, and reading it back (query, open)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

import greendcn.sweep
from greendcn.sweep import jobs
from greendcn.sweep.driver import run_sweep
from greendcn.sweep.spec import load_spec
from sweep_fixtures import STATIC, small_spec, write_spec
from conftest import assert_clean_error, run_greendcn


def _check_consistent(res, expected_runs: int) -> None:
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


def test_sweep_writes_runs_summaries_flows_devices_and_resume_skips(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=2)
    store = tmp_path / "s.duckdb"
    out = run_sweep(spec, store=store, workers=1, progress=False)
    assert (out.runs, out.done, out.failed, out.skipped) == (4, 4, 0, 0)
    res = greendcn.sweep.open(store)
    _check_consistent(res, 4)
    runs = res.runs
    assert set(runs["routing.scheme"]) == {"single", "rps"}
    assert set(runs["workload.long_flows"]) == {1, 2}
    # a summary agrees with its own flow table (long flows + the short one)
    s = res.query('SELECT s.flows, r."workload.long_flows" AS n FROM summaries s JOIN runs r USING (key)')
    assert (s["flows"] == s["n"] + 1).all()
    assert len(res.devices) > 0 and (res.devices["energy_j"] > 0).all()
    again = run_sweep(spec, store=store, workers=2, progress=False)
    assert (again.skipped, again.done) == (4, 0)
    _check_consistent(greendcn.sweep.open(store), 4)


def test_failed_runs_are_recorded_and_rerun_on_request(tmp_path):
    # 20 long flows need 20 sources: the k=4 fat-tree has 15 besides the destination, so that run fails in
    # the worker (the spec itself is valid); the other run succeeds.
    spec = write_spec(
        tmp_path,
        f'[sweep]\nscenario = "{STATIC}"\n[base]\n"workload.long_size" = "100KB"\n'
        '[axes]\n"workload.long_flows" = [1, 20]\n',
    )
    store = tmp_path / "s.duckdb"
    out = run_sweep(spec, store=store, workers=1, progress=False)
    assert (out.done, out.failed, out.retried) == (1, 1, 0)  # bad input is not retried
    res = greendcn.sweep.open(store)
    bad = res.query("SELECT * FROM runs WHERE status = 'failed'")
    assert len(bad) == 1 and "long_flows" in bad["error"][0] and bad["attempts"][0] == 1
    assert run_sweep(spec, store=store, workers=1, progress=False).skipped == 2
    again = run_sweep(spec, store=store, workers=1, progress=False, rerun_failed=True)
    assert (again.skipped, again.failed) == (1, 1)
    att = res.query("SELECT key, attempt FROM attempts ORDER BY key, attempt")
    assert att.groupby("key")["attempt"].apply(list).sort_values().tolist() == [[1], [1, 2]]
    assert len(res.runs) == 2


def test_crashing_jobs_are_retried_a_bounded_number_of_times(tmp_path, monkeypatch):
    calls: dict[str, int] = {}
    real = jobs.KINDS["simulate"]

    def flaky(job):
        n = job["raw"]["run"]["seed"]
        calls[n] = calls.get(n, 0) + 1
        if n == 1 and calls[n] == 1:
            raise RuntimeError("transient crash")
        if n == 2:
            raise RuntimeError("always crashes")
        return real.run(job)

    monkeypatch.setitem(jobs.KINDS, "simulate", jobs.JobKind("simulate", real.resolve, flaky, real.metrics))
    spec = write_spec(
        tmp_path,
        f'[sweep]\nscenario = "{STATIC}"\nretries = 2\n[base]\n"workload.long_size" = "100KB"\n'
        '[axes]\n"run.seed" = [1, 2, 3]\n',
    )
    out = run_sweep(spec, store=tmp_path / "s.duckdb", workers=1, progress=False)
    assert calls == {1: 2, 2: 3, 3: 1}
    assert (out.done, out.failed, out.retried) == (2, 1, 1 + 2)
    runs = greendcn.sweep.open(tmp_path / "s.duckdb").query('SELECT "run.seed" AS seed, status, attempts, error FROM runs ORDER BY 1')
    assert runs["attempts"].tolist() == [2, 3, 1]
    assert runs["status"].tolist() == ["done", "failed", "done"]
    assert "always crashes" in runs["error"][1]


def _reader(proc: subprocess.Popen, buf: list[str]) -> None:
    while True:
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            return
        buf.append(chunk.decode(errors="replace"))


def test_killed_sweep_resumes_without_repeating_or_losing_runs_and_holds_its_lock(tmp_path):
    # 2 x 5 x 10 = 100 runs of 2 MB long flows: long enough that the checks below happen while it runs
    spec = small_spec(tmp_path, seeds=10, long_flows=5, name="kill", long_size="2MB")
    total = len(load_spec(spec).runs)
    store = tmp_path / "kill.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "greendcn.cli", "sweep", "run", str(spec), "--store", str(store), "--workers", "2"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so the pool's workers die with it
    )
    buf: list[str] = []
    t = threading.Thread(target=_reader, args=(proc, buf), daemon=True)
    t.start()
    done = 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.findall(r"(\d+)/%d " % total, "".join(buf))
        done = int(found[-1]) if found else 0
        if done >= 8:
            break
        time.sleep(0.05)
    assert proc.poll() is None and done >= 8, "".join(buf)[-2000:]
    # while it runs, a second sweep and a query on the same store are refused cleanly
    second = run_greendcn("sweep", "run", spec, "--store", store, "--workers", "1")
    assert_clean_error(second, "in use")
    q = run_greendcn("sweep", "query", store, "SELECT count(*) FROM runs")
    assert_clean_error(q, "in use")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    t.join(timeout=10)
    proc.stderr.close()
    res = greendcn.sweep.open(store)
    stored = len(res.runs)
    assert done <= stored < total  # what the bar showed was committed; the kill came before the end
    _check_consistent(res, stored)
    out = run_greendcn("sweep", "run", spec, "--store", store, "--workers", "2", "--json", tmp_path / "o.json")
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["skipped"] == stored and doc["done"] == total - stored and doc["failed"] == 0
    _check_consistent(greendcn.sweep.open(store), total)


def test_query_cli_and_its_errors(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=1)
    store = tmp_path / "s.duckdb"
    run_sweep(spec, store=store, workers=1, progress=False)
    out = run_greendcn("sweep", "query", store, 'SELECT "routing.scheme" AS scheme, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1', "--json", "-")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rows"] == [{"scheme": "rps", "n": 1}, {"scheme": "single", "n": 1}]
    assert_clean_error(run_greendcn("sweep", "query", store, "SELECT nope FROM runs"), "query")
    assert_clean_error(run_greendcn("sweep", "query", tmp_path / "missing.duckdb", "SELECT 1"), "does not exist")


@pytest.mark.parametrize("executor", ["local"])
def test_router_power_kind_runs_through_the_same_store(tmp_path, executor):
    spec = write_spec(tmp_path, '[sweep]\nkind = "router_power"\n[axes]\nload = ["500kpps", "1Mpps", "2Mpps"]\n')
    out = run_sweep(spec, store=tmp_path / "r.duckdb", executor=executor, workers=1, progress=False)
    assert out.done == 3
    s = greendcn.sweep.open(tmp_path / "r.duckdb").query(
        "SELECT offered_pps, plan_power_w, default_power_w FROM summaries ORDER BY offered_pps"
    )
    assert s["offered_pps"].tolist() == [5e5, 1e6, 2e6]
    # the optimizer's plan never draws more than the all-cores default it searches around
    assert (s["plan_power_w"] <= s["default_power_w"] + 1e-9).all()
