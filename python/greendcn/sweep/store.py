"""The results store: one DuckDB file that only the sweep's driver writes, one transaction per finished run.

Tables (docs/sweeps.md lists every column):
- `sweeps`: one row per spec that ran into this store (name, kind, spec as JSON, axes, last start);
- `sweep_runs`: which run keys belong to which sweep (a run shared by two specs is stored once);
- `runs`: one row per finished run key: status (`done` or `failed`), attempts, error, wall time, versions, the
  resolved parameters as JSON and every key the spec sets as its own column (named as written, e.g.
  "routing.scheme": quote it in SQL) and, for a value with a unit, its number in SI units beside it in a
  typed column named with the unit ("topology.queue_pkt" = 50 beside "topology.queue" = '50pkt';
  `quantities.py`);
- `attempts`: one row per execution of a run (a retry adds one): the count that proves nothing ran twice;
- `summaries`, `flows`, `devices`: the job's output tables, each row tagged with its run key; columns are
  added as new job kinds bring new ones.

A run is written in one transaction with its summary, flows and devices, so a killed sweep loses only the
runs that had not come back to the driver. One sweep at a time: the driver holds an advisory lock on
`STORE.lock` for the whole sweep, and a second sweep gets a clean error saying the store is in use. Readers
(`sweep query`, `report`, `greendcn.sweep.open`) can read while a sweep runs: DuckDB locks the file for one
process at a time, so the driver opens it only to commit (milliseconds, docs/sweeps.md) and each side waits
for the other's short hold instead of failing."""

from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from .quantities import quantity_columns

__all__ = ["Results", "Store", "check_store_path"]

_RUNS_FIXED = """
    key VARCHAR PRIMARY KEY, grid VARCHAR, kind VARCHAR, status VARCHAR, attempts INTEGER, error VARCHAR,
    wall_s DOUBLE, worker VARCHAR, finished_at TIMESTAMP, package_version VARCHAR, engine_version VARCHAR,
    params_json VARCHAR"""


def check_store_path(p: Path) -> None:
    """Refuse, before anything is opened, a store path that is a folder or cannot be written. A file without
    any write permission bit counts as read-only even for root (our choice: the owner marked it so)."""
    if p.is_dir():
        raise InputError(f"store: {p} is a folder", hint="give a file name, e.g. --store results.duckdb")
    if p.exists():
        mode = p.stat().st_mode
        if not os.access(p, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise InputError(f"store: {p} is read-only", hint="make it writable or choose another --store")
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(
            f"store: {parent} is a file, so {p} cannot be created", hint="choose another --store"
        )
    pmode = parent.stat().st_mode
    if not os.access(parent, os.W_OK | os.X_OK) or not pmode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise InputError(
            f"store: cannot write in {parent} (read-only folder)",
            hint="DuckDB writes a journal beside the store; choose a writable folder for --store",
        )


# How long a reader or the driver waits for the other side's hold on the file (each holds it for one query or
# one commit); a hold longer than this is another program's, and the error says the store is in use.
WAIT_FOR_LOCK_S = 30.0


def _connect(p: Path, read_only: bool, wait_s: float = WAIT_FOR_LOCK_S) -> Any:
    import duckdb

    deadline = time.monotonic() + wait_s
    delay = 0.005
    while True:
        try:
            return _connect_once(p, read_only)
        except _Locked as e:
            if time.monotonic() >= deadline:
                raise e.error from None
            time.sleep(delay)
            delay = min(2 * delay, 0.2)
        except duckdb.Error:
            raise


class _Locked(Exception):
    def __init__(self, error: InputError):
        self.error = error


def _connect_once(p: Path, read_only: bool) -> Any:
    import duckdb

    try:
        return duckdb.connect(str(p), read_only=read_only)
    except duckdb.IOException as e:
        text = str(e)
        if "lock" in text.lower():
            pid = re.search(r"PID (\d+)", text)
            who = f" (process {pid.group(1)})" if pid else ""
            raise _Locked(
                InputError(
                    f"store: {p} is in use by another process{who}",
                    hint="another program holds the file open: close it, or use another --store",
                )
            ) from None
        raise InputError(
            f"store: cannot open {p}: {text.splitlines()[0]}", hint="is it a DuckDB file?"
        ) from None
    except duckdb.Error as e:
        raise InputError(
            f"store: cannot open {p}: {str(e).splitlines()[0]}",
            hint="give a DuckDB file written by greendcn sweep",
        ) from None


def _sweep_lock(p: Path) -> Any:
    """The advisory lock one sweep holds on `STORE.lock` for its whole run (a second sweep is refused)."""
    lock = open(f"{p}.lock", "a")  # noqa: SIM115 - held open for the sweep's life, closed by Store.close
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise InputError(
            f"store: {p} is in use by another process (a sweep is writing it)",
            hint="a sweep holds its store while it runs: wait for it to finish, or use another --store",
        ) from None
    return lock


def _sql_type(v: Any) -> str | None:
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, int):
        return "BIGINT"
    if isinstance(v, float):
        return "DOUBLE"
    if isinstance(v, str):
        return "VARCHAR"
    return None if v is None else "VARCHAR"  # lists and tables: their JSON text


def _value(v: Any) -> Any:
    return json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Store:
    """The writing side: `open` takes DuckDB's file lock for the life of the object."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        check_store_path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = _sweep_lock(self.path)
        self._con: Any = None
        try:
            self._cols: dict[str, dict[str, str]] = {}
            self._schema()
        except BaseException:
            self.close()
            raise

    @property
    def con(self) -> Any:
        """The open connection, opened again after `release` (waiting out a reader's short hold)."""
        if self._con is None:
            self._con = _connect(self.path, read_only=False)
        return self._con

    def release(self) -> None:
        """Close the file between commits, so that readers can open it; the sweep lock stays held."""
        if self._con is not None:
            self._con.close()
            self._con = None

    def close(self) -> None:
        self.release()
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the advisory lock
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _schema(self) -> None:
        c = self.con
        c.execute(
            "CREATE TABLE IF NOT EXISTS sweeps (name VARCHAR PRIMARY KEY, kind VARCHAR, spec_path VARCHAR, "
            "spec_json VARCHAR, axes_json VARCHAR, report VARCHAR, description VARCHAR, started_at TIMESTAMP)"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS sweep_runs (sweep VARCHAR, key VARCHAR, grid VARCHAR, idx INTEGER)"
        )
        c.execute(f"CREATE TABLE IF NOT EXISTS runs ({_RUNS_FIXED})")
        c.execute(
            "CREATE TABLE IF NOT EXISTS attempts (key VARCHAR, attempt INTEGER, status VARCHAR, error VARCHAR, "
            "wall_s DOUBLE, worker VARCHAR, finished_at TIMESTAMP)"
        )

    def columns(self, table: str) -> dict[str, str]:
        if table not in self._cols:
            rows = self.con.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position",
                [table],
            ).fetchall()
            self._cols[table] = {n: t for n, t in rows}
        return self._cols[table]

    def _add_columns(self, table: str, types: dict[str, str]) -> None:
        have = self.columns(table)
        for name, t in types.items():
            if name not in have:
                self.con.execute(f"ALTER TABLE {table} ADD COLUMN {_q(name)} {t}")
                have[name] = t

    def check_params(self, spec: Any) -> None:
        """A parameter column already in the store with another type would fail mid-sweep: refuse it now."""
        have = self.columns("runs")
        for run in spec.runs[:1000]:
            for k, v in run.params.items():
                t = _sql_type(v)
                if k in have and t and have[k] != t and not (have[k] == "DOUBLE" and t == "BIGINT"):
                    raise InputError(
                        f"{spec.path.name}: {k}: the store has this column as {have[k]}, the spec gives {t} ({v!r})",
                        hint="write the value as the earlier sweeps did, or use another --store",
                    )

    def begin_sweep(self, spec: Any) -> None:
        import pandas as pd

        from .jobs import to_jsonable_spec

        c = self.con
        c.execute("BEGIN")
        try:
            c.execute("DELETE FROM sweeps WHERE name = ?", [spec.name])
            c.execute(
                "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    spec.name,
                    spec.kind,
                    str(spec.path),
                    json.dumps(to_jsonable_spec(spec.raw), sort_keys=True),
                    json.dumps(spec.axes, default=str),
                    spec.report,
                    spec.description,
                    datetime.now(timezone.utc).replace(tzinfo=None),
                ],
            )
            c.execute("DELETE FROM sweep_runs WHERE sweep = ?", [spec.name])
            members = pd.DataFrame(
                {
                    "sweep": [spec.name] * len(spec.runs),
                    "key": [r.key for r in spec.runs],
                    "grid": [r.grid for r in spec.runs],
                    "idx": [r.index for r in spec.runs],
                }
            )
            c.register("_members", members)
            c.execute("INSERT INTO sweep_runs SELECT * FROM _members")
            c.unregister("_members")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        self.release()

    def finished(self, rerun_failed: bool) -> dict[str, str]:
        """key -> status of every run already stored (failed ones left out with `rerun_failed`)."""
        q = "SELECT key, status FROM runs" + (" WHERE status = 'done'" if rerun_failed else "")
        return dict(self.con.execute(q).fetchall())

    def write(
        self, run: Any, kind: str, result: dict[str, Any], attempts: list[dict[str, Any]], ver: dict[str, str]
    ) -> None:
        """Store one finished run (done, or failed after its retries) and everything it produced, atomically."""
        self.write_many([(run, result, attempts)], kind, ver)

    def write_many(
        self, items: list[tuple[Any, dict[str, Any], list[dict[str, Any]]]], kind: str, ver: dict[str, str]
    ) -> None:
        """Store finished runs in one transaction: each run whole or not at all. The driver hands over what came
        back together, so many tiny runs share a commit (docs/sweeps.md: what a kill can lose)."""
        import pandas as pd

        if not items:
            return
        c = self.con
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        keys = [run.key for run, _, _ in items]
        c.execute("BEGIN")
        try:
            prior: dict[str, int] = {}
            if self._stored_before(keys):  # failed runs being rerun: their old row goes, their attempts stay
                for t in ("runs", "summaries", "flows", "devices"):
                    if t in self._tables():
                        c.execute(f"DELETE FROM {t} WHERE list_contains(?, key)", [keys])
                prior = dict(
                    c.execute(
                        "SELECT key, count(*) FROM attempts WHERE list_contains(?, key) GROUP BY key", [keys]
                    ).fetchall()
                )
            attempt_rows, run_rows, summary_rows = [], [], []
            frames: dict[str, list[Any]] = {"flows": [], "devices": []}
            for run, result, attempts in items:
                base = prior.get(run.key, 0)
                for i, a in enumerate(attempts):
                    attempt_rows.append({"key": run.key, "attempt": base + i + 1, **a, "finished_at": now})
                run_rows.append(
                    {
                        **{k: _value(v) for k, v in run.params.items()},
                        **{c: n for k, v in run.params.items() for c, n in quantity_columns(k, v).items()},
                        "key": run.key,
                        "grid": run.grid,
                        "kind": kind,
                        "status": "done" if result["status"] == "done" else "failed",
                        "attempts": len(attempts),
                        "error": result.get("error"),
                        "wall_s": result.get("wall_s"),
                        "worker": result.get("worker"),
                        "finished_at": now,
                        "package_version": ver["package"],
                        "engine_version": ver["engine"],
                        "params_json": json.dumps(run.canonical, sort_keys=True),
                    }
                )
                out = result.get("output")
                if out is not None:
                    summary_rows.append({"key": run.key, **{k: _value(v) for k, v in out.summary.items()}})
                    for t, df in (("flows", out.flows), ("devices", out.devices)):
                        if df is not None and len(df):
                            df = df.copy()
                            df.insert(0, "key", run.key)
                            frames[t].append(df)
            self._insert_rows("attempts", attempt_rows)
            self._insert_rows("runs", run_rows)
            self._insert_rows("summaries", summary_rows)
            for t, dfs in frames.items():
                by_cols: dict[tuple[str, ...], list[Any]] = {}
                for df in dfs:
                    by_cols.setdefault(tuple(df.columns), []).append(df)
                for group in by_cols.values():
                    self._insert_frame(t, pd.concat(group, ignore_index=True) if len(group) > 1 else group[0])
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            self._cols.clear()  # tables and columns added in the rolled-back transaction are gone
            raise
        self.release()

    def _stored_before(self, keys: list[str]) -> bool:
        n = self.con.execute("SELECT count(*) FROM runs WHERE list_contains(?, key)", [keys]).fetchall()[0][0]
        return bool(n)

    def _tables(self) -> set[str]:
        if "_tables" not in self._cols:
            rows = self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()
            self._cols["_tables"] = {r[0]: "" for r in rows}
        return set(self._cols["_tables"])

    def _ensure_table(self, table: str, types: dict[str, str]) -> None:
        if table not in self._tables():
            cols = ", ".join(f"{_q(k)} {t}" for k, t in types.items())
            self.con.execute(f"CREATE TABLE {table} ({cols})")
            self._cols["_tables"][table] = ""
            self._cols[table] = dict(types)
        else:
            self._add_columns(table, types)

    def _insert_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Rows as dicts; a None value is left out (NULL), and rows with the same keys go in together, so no
        column is ever guessed from a missing value."""
        import pandas as pd

        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for r in rows:
            r = {k: v for k, v in r.items() if v is not None}
            groups.setdefault(tuple(r), []).append(r)
        for cols, group in groups.items():
            types = {k: _sql_type(group[0][k]) or "VARCHAR" for k in cols}
            for r in group[1:]:  # an int column that also holds floats is a DOUBLE
                for k in cols:
                    if types[k] == "BIGINT" and isinstance(r[k], float):
                        types[k] = "DOUBLE"
            self._ensure_table(table, types)
            self._insert_frame(table, pd.DataFrame(group, columns=list(cols)), check=False)

    def _insert_frame(self, table: str, df: Any, check: bool = True) -> None:
        self.con.register("_frame", df)
        try:
            if check and (
                table not in self._tables() or any(col not in self.columns(table) for col in df.columns)
            ):
                types = dict(
                    self.con.execute(
                        "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM _frame)"
                    ).fetchall()
                )
                self._ensure_table(table, types)
            self.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _frame")
        finally:
            self.con.unregister("_frame")


class Results:
    """The reading side (`greendcn.sweep.open`): every read opens the file read-only and closes it again."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(f"store: {self.path} is a folder", hint="give the .duckdb file a sweep wrote")
        if not self.path.exists():
            raise InputError(
                f"store: {self.path} does not exist", hint="run `greendcn sweep run SPEC.toml` first"
            )

    def query(self, sql: str, params: list[Any] | None = None) -> Any:
        """The result of one SQL statement as a pandas DataFrame."""
        import duckdb

        con = _connect(self.path, read_only=True)
        try:
            return con.execute(sql, params or []).df()
        except duckdb.Error as e:
            raise InputError(
                f"query: {str(e).splitlines()[0]}", hint="check the SQL; tables: " + _TABLES
            ) from None
        finally:
            con.close()

    def tables(self) -> list[str]:
        return list(self.query("SELECT table_name FROM information_schema.tables ORDER BY 1")["table_name"])

    def _table(self, name: str) -> Any:
        if name not in self.tables():
            import pandas as pd

            return pd.DataFrame()
        return self.query(f"SELECT * FROM {name}")

    @property
    def runs(self) -> Any:
        return self._table("runs")

    @property
    def summaries(self) -> Any:
        return self._table("summaries")

    @property
    def flows(self) -> Any:
        return self._table("flows")

    @property
    def devices(self) -> Any:
        return self._table("devices")

    @property
    def attempts(self) -> Any:
        return self._table("attempts")

    @property
    def sweeps(self) -> Any:
        return self._table("sweeps")


_TABLES = "sweeps, sweep_runs, runs, attempts, summaries, flows, devices"
