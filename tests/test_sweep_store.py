"""The results store: what a sweep writes, resuming without running anything twice (also after SIGKILL),
failed runs and --rerun-failed, bounded retries, the writer lock, and reading it back (query, open)."""

from __future__ import annotations

import json

import pytest

import greendcn.sweep
from greendcn.sweep import jobs
from greendcn.sweep.driver import run_sweep
from sweep_fixtures import (
    STATIC,
    check_consistent,
    kill,
    kill_and_resume,
    small_spec,
    start_sweep,
    wait_for,
    write_spec,
)
from conftest import assert_clean_error, run_greendcn


def test_sweep_writes_runs_summaries_flows_devices_and_resume_skips(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=2)
    store = tmp_path / "s.duckdb"
    out = run_sweep(spec, store=store, workers=1, progress=False)
    assert (out.runs, out.done, out.failed, out.skipped) == (4, 4, 0, 0)
    res = greendcn.sweep.open(store)
    check_consistent(res, 4)
    runs = res.runs
    assert set(runs["routing.scheme"]) == {"single", "rps"}
    assert set(runs["workload.long_flows"]) == {1, 2}
    # a summary agrees with its own flow table (long flows + the short one)
    s = res.query('SELECT s.flows, r."workload.long_flows" AS n FROM summaries s JOIN runs r USING (key)')
    assert (s["flows"] == s["n"] + 1).all()
    # each TCP flow's sender learns it finished one ACK trip after its receiver (docs/metrics.md)
    fl = res.query("SELECT fct_s, fct_ack_s FROM flows")
    assert (fl["fct_ack_s"] > fl["fct_s"]).all()
    assert len(res.devices) > 0 and (res.devices["energy_j"] > 0).all()
    again = run_sweep(spec, store=store, workers=2, progress=False)
    assert (again.skipped, again.done) == (4, 0)
    check_consistent(greendcn.sweep.open(store), 4)


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
    runs = greendcn.sweep.open(tmp_path / "s.duckdb").query(
        'SELECT "run.seed" AS seed, status, attempts, error FROM runs ORDER BY 1'
    )
    assert runs["attempts"].tolist() == [2, 3, 1]
    assert runs["status"].tolist() == ["done", "failed", "done"]
    assert "always crashes" in runs["error"][1]


def test_killed_sweep_resumes_without_repeating_or_losing_runs(tmp_path):
    kill_and_resume(tmp_path, ["--workers", "2"])


def test_a_running_sweep_refuses_a_second_sweep_but_not_readers(tmp_path):
    # one run that takes minutes (5 long flows of 5 GB): the sweep is running while the checks run
    spec = small_spec(tmp_path, seeds=1, long_flows=5, name="hold", long_size="5GB")
    store = tmp_path / "hold.duckdb"
    proc, buf, t = start_sweep(spec, store, ["--workers", "1"])
    try:
        assert wait_for(proc, buf, r"to run on local"), "".join(buf)
        second = run_greendcn("sweep", "run", spec, "--store", store, "--workers", "1")
        assert_clean_error(second, "in use")
        q = run_greendcn("sweep", "query", store, "SELECT count(*) AS n FROM sweep_runs", "--json", "-")
        assert q.returncode == 0, q.stderr
        assert json.loads(q.stdout)["rows"] == [{"n": 10}]  # the sweep's runs, registered before any finished
        page = run_greendcn("report", store, "-o", tmp_path / "r.html")
        assert page.returncode == 0, page.stderr
        assert proc.poll() is None  # the first sweep was never disturbed
    finally:
        kill(proc, t)
    assert len(greendcn.sweep.open(store).runs) == 0


def test_queries_read_the_store_while_the_sweep_writes_it(tmp_path):
    # 40 runs of a few tens of milliseconds, committed as they come: queries in between see the count grow
    spec = small_spec(tmp_path, seeds=4, long_flows=5, name="live")
    store = tmp_path / "live.duckdb"
    proc, buf, t = start_sweep(spec, store, ["--workers", "1"])
    seen = []
    try:
        assert wait_for(proc, buf, r"to run on local"), "".join(buf)
        while proc.poll() is None:
            q = run_greendcn("sweep", "query", store, "SELECT count(*) AS n FROM sweep_runs", "--json", "-")
            assert q.returncode == 0, q.stderr
            n = greendcn.sweep.open(store).query("SELECT count(*) AS n FROM runs")["n"][0]
            seen.append(int(n))
        assert proc.wait() == 0, "".join(buf)
    finally:
        if proc.poll() is None:
            kill(proc, t)
        else:
            t.join(timeout=10)
            proc.stderr.close()
    assert seen and seen == sorted(seen) and seen[-1] <= 40
    assert len(greendcn.sweep.open(store).runs) == 40


def test_query_cli_and_its_errors(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=1)
    store = tmp_path / "s.duckdb"
    run_sweep(spec, store=store, workers=1, progress=False)
    out = run_greendcn(
        "sweep",
        "query",
        store,
        'SELECT "routing.scheme" AS scheme, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1',
        "--json",
        "-",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rows"] == [{"scheme": "rps", "n": 1}, {"scheme": "single", "n": 1}]
    assert_clean_error(run_greendcn("sweep", "query", store, "SELECT nope FROM runs"), "query")
    assert_clean_error(
        run_greendcn("sweep", "query", tmp_path / "missing.duckdb", "SELECT 1"), "does not exist"
    )


@pytest.mark.parametrize("executor", ["local"])
def test_router_power_kind_runs_through_the_same_store(tmp_path, executor):
    spec = write_spec(
        tmp_path, '[sweep]\nkind = "router_power"\n[axes]\nload = ["500kpps", "1Mpps", "2Mpps"]\n'
    )
    out = run_sweep(spec, store=tmp_path / "r.duckdb", executor=executor, workers=1, progress=False)
    assert out.done == 3
    s = greendcn.sweep.open(tmp_path / "r.duckdb").query(
        "SELECT offered_pps, plan_power_w, default_power_w FROM summaries ORDER BY offered_pps"
    )
    assert s["offered_pps"].tolist() == [5e5, 1e6, 2e6]
    # the optimizer's plan never draws more than the all-cores default it searches around
    assert (s["plan_power_w"] <= s["default_power_w"] + 1e-9).all()


def test_a_lost_pool_worker_is_retried_and_counted(tmp_path, monkeypatch):
    from greendcn.sweep import executors
    from sweep_fixtures import die_once

    # the spawned workers import die_once from this folder (spawn passes sys.path on)
    monkeypatch.setattr(executors, "execute", die_once)
    spec = write_spec(
        tmp_path,
        f'[sweep]\nscenario = "{tmp_path / "base.toml"}"\n[base]\n"workload.long_size" = "100KB"\n'
        '[axes]\n"run.seed" = [1, 2, 3, 4]\n',
    )
    (tmp_path / "base.toml").write_text(STATIC.read_text())
    out = run_sweep(spec, store=tmp_path / "s.duckdb", workers=2, progress=False)
    assert (tmp_path / "died-once").exists()
    assert (out.done, out.failed) == (4, 0) and out.retried >= 1
    res = greendcn.sweep.open(tmp_path / "s.duckdb")
    lost = res.query("SELECT * FROM attempts WHERE status = 'error'")
    assert len(lost) == out.retried and lost["error"].str.contains("worker lost").all()
    assert res.runs["attempts"].sum() == 4 + out.retried


def test_nic_model_kind_gives_what_the_nic_model_command_gives(tmp_path):
    spec = write_spec(
        tmp_path,
        '[sweep]\nkind = "nic_model"\n[axes]\nsetting = ["interrupt", "napi:64"]\nrate = ["100kpps", "250kpps"]\n',
    )
    out = run_sweep(spec, store=tmp_path / "n.duckdb", workers=1, progress=False)
    assert out.done == 4
    res = greendcn.sweep.open(tmp_path / "n.duckdb")
    for setting in ("interrupt", "napi:64"):
        cli = run_greendcn("nic", "model", "--rate", "250kpps", "-s", setting, "--json", "-")
        assert cli.returncode == 0, cli.stderr
        want = json.loads(cli.stdout)["results"][0]
        got = res.query(
            "SELECT s.* FROM summaries s JOIN runs r USING (key) WHERE r.setting = ? AND r.rate = '250kpps'",
            [setting],
        ).iloc[0]
        for k in ("throughput_bps", "interrupts_per_s", "cpu_power_w", "drops_pps", "livelock"):
            assert got[k] == want[k], (setting, k)


def test_a_finished_sweep_run_again_says_nothing_is_left(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=1, name="again")
    store = tmp_path / "again.duckdb"
    first = run_greendcn("sweep", "run", spec, "--store", store, "--workers", "1")
    assert first.returncode == 0 and "to run on local (1 workers)" in first.stderr, first.stderr
    again = run_greendcn("sweep", "run", spec, "--store", store, "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert "2 already in" in again.stderr and "nothing left to do" in again.stderr
    assert "0 workers" not in again.stderr
