"""scenarios/sweep-seed003.toml is the run matrix of `greendcn reproduce rps`: the same 380 scenarios and seeds;
run as a sweep with the default executor, killed halfway and resumed, it stores every run once, with the same
per-run metrics as the reproduction's own runner."""

from __future__ import annotations

import json

import pytest

import greendcn.sweep
from greendcn.sim.reproduce.rps import RpsConfig, cases, run_case
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sweep.spec import load_spec
from sweep_fixtures import ROOT, kill_and_resume

SPEC = ROOT / "scenarios" / "sweep-seed003.toml"


def _canonical(case) -> str:
    raw = {**case.raw, "run": {**case.raw["run"], "seed": case.seed}}
    return json.dumps(scenario_from_dict(raw).model_dump(mode="json", by_alias=True), sort_keys=True)


def test_spec_expands_to_the_reproductions_matrix():
    spec = load_spec(SPEC)
    ours = sorted(json.dumps(r.canonical, sort_keys=True) for r in spec.runs)
    theirs = sorted(_canonical(c) for c in cases(RpsConfig()))
    assert len(ours) == len(theirs) == 380
    assert ours == theirs
    # the grid names are the reproduction's experiments, run for run
    by_scenario = {json.dumps(r.canonical, sort_keys=True): r.grid for r in spec.runs}
    assert all(by_scenario[_canonical(c)] == c.experiment for c in cases(RpsConfig()))


@pytest.mark.slow
def test_seed003_sweep_resumes_after_a_kill_halfway_and_matches_the_reproduction(tmp_path):
    # the default executor, killed (SIGKILL) once about half the 380 runs are stored, then run again
    store = kill_and_resume(tmp_path, [], spec=SPEC, kill_at=150)
    res = greendcn.sweep.open(store)
    assert len(res.runs) == 380 and (res.runs["status"] == "done").all()
    keys = {json.dumps(r.canonical, sort_keys=True): r.key for r in load_spec(SPEC).runs}
    picked = [c for c in cases(RpsConfig()) if c.seed == 3 and c.n_long in (0, 4)][:4]
    for c in picked:
        row = run_case(c)
        s = res.query("SELECT * FROM summaries WHERE key = ?", [keys[_canonical(c)]]).iloc[0]
        for m in ("short_fct_s", "retransmits", "spurious_retransmits", "drops", "events"):
            assert s[m] == row[m], (c, m)  # the engine is deterministic: identical, not close
