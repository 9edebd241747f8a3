"""The sweep runner keeps task order, runs on a real process pool, and reports a failing job."""

import pytest

from greendcn.sweep import run_parallel


def square(x: int) -> int:
    return x * x


def explode(x: int) -> int:
    if x == 3:
        raise ValueError("three is bad")
    return x


def test_results_come_back_in_task_order_on_a_pool():
    assert run_parallel(square, list(range(20)), workers=2, progress=False) == [x * x for x in range(20)]


def test_inline_and_pool_agree():
    tasks = list(range(7))
    assert run_parallel(square, tasks, workers=1) == run_parallel(square, tasks, workers=2)


def test_a_failing_job_raises_with_its_index():
    with pytest.raises(ValueError, match="three is bad") as info:
        run_parallel(explode, list(range(6)), workers=2, progress=False)
    assert any("in job 3" in note for note in info.value.__notes__)


def test_progress_goes_to_stderr_and_can_be_turned_off(capsys):
    run_parallel(square, list(range(3)), workers=1, desc="squares")
    out = capsys.readouterr()
    assert out.out == "" and "squares" in out.err
    run_parallel(square, list(range(3)), workers=1, desc="squares", progress=False)
    assert capsys.readouterr().err == ""
