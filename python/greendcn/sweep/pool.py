"""Old home of the in-memory process pool, which now lives in `greendcn.core.pool`; kept so that
`from greendcn.sweep.pool import run_parallel` (and `greendcn.sweep.run_parallel`) keep working."""

from __future__ import annotations

from ..core.pool import default_workers, run_parallel, sweep

__all__ = ["default_workers", "run_parallel", "sweep"]
