"""The Ray executor on a real local Ray (started by the test with two CPUs) stores exactly what the local
process pool stores for the same spec; only wall times and where a run ran may differ."""

from __future__ import annotations

import pandas as pd
import pytest

import greendcn.sweep
from greendcn.sweep.driver import run_sweep
from sweep_fixtures import kill_and_resume, small_spec

# Columns that record when, how long and where, not what: they differ between any two executions.
_VOLATILE = {"wall_s", "worker", "finished_at", "engine_wall_s"}


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    # Ray's start-up logs and its own deprecation notices are not ours; filterwarnings=error would turn a
    # warning raised inside ray.init into a failure of this test, so only that call ignores them.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def _table(store, name: str) -> pd.DataFrame:
    df = greendcn.sweep.open(store).query(f"SELECT * FROM {name}")
    df = df.drop(columns=[c for c in df.columns if c in _VOLATILE])
    sort = [c for c in ("key", "attempt", "id", "name") if c in df.columns]
    return df.sort_values(sort).reset_index(drop=True)


def test_ray_and_local_store_identical_results(tmp_path, ray_cluster):
    spec = small_spec(tmp_path, seeds=2, long_flows=2)
    local = run_sweep(spec, store=tmp_path / "local.duckdb", executor="local", workers=2, progress=False)
    remote = run_sweep(spec, store=tmp_path / "ray.duckdb", executor="ray", progress=False)
    assert local.done == remote.done == 8 and local.failed == remote.failed == 0
    for name in ("runs", "attempts", "summaries", "flows", "devices"):
        a, b = _table(tmp_path / "local.duckdb", name), _table(tmp_path / "ray.duckdb", name)
        assert len(a) > 0
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    # the runs really went through Ray's workers, not the driver
    import os

    workers = set(greendcn.sweep.open(tmp_path / "ray.duckdb").runs["worker"])
    assert all(not w.endswith(f":{os.getpid()}") for w in workers)
    # the existing Ray stays up for its owner (the fixture): the sweep did not shut it down
    assert ray_cluster.is_initialized()


def test_ray_sweep_resumes_after_its_driver_is_killed(tmp_path, ray_cluster):
    # the sweep attaches to the test's Ray through its address, as it would to a cluster (`--address`)
    address = ray_cluster.get_runtime_context().gcs_address
    kill_and_resume(tmp_path, ["--executor", "ray", "--address", address])
