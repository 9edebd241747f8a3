"""The engine's link directions and nodes as numpy columns for the energy ledger (sim/ledger.py,
sim/port_energy.py), so that pricing a wide network reads each counter once as an array instead of a dict per
link direction and node. Works on the engine's `Records` (their columns shared, not copied) and on plain lists
of records (results built by hand or read back from JSON)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["DirColumns", "NodeColumns", "dir_columns", "node_columns"]

# EEE's per-direction counters of the low-power states, in ps (the engine writes them only where EEE is on)
_LOW_KEYS = ("sleep_ps", "lpi_ps", "wake_ps")


class DirColumns:
    """Link directions: `src`, `dst`, `link` (indices), `bytes_sent`, `packets_sent`, `busy_ps` (int64), and
    per EEE counter its values (0 where absent) and where a direction has it (`has`)."""

    def __init__(self, data: dict[str, np.ndarray], low: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        self.src = data["from"]
        self.dst = data["to"]
        self.link = data["link"]
        self.bytes_sent = data["bytes_sent"]
        self.packets_sent = data["packets_sent"]
        self.busy_ps = data["busy_ps"]
        self.low = low  # key -> (values, has)
        self.any_low = any(bool(has.any()) for _v, has in low.values())

    def __len__(self) -> int:
        return len(self.src)


class NodeColumns:
    """Nodes: `names` and `kinds` as tuples of str."""

    def __init__(self, names: Any, kinds: Any) -> None:
        self.names = tuple(names)
        self.kinds = tuple(kinds)

    def __len__(self) -> int:
        return len(self.names)


def _ints(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def dir_columns(dirs: Any) -> DirColumns:
    """The columns of `dirs` (the results' "links"); kept on a `Records` so that every reader shares them."""
    if isinstance(dirs, DirColumns):
        return dirs
    cached = getattr(dirs, "_dir_columns", None)
    if cached is not None:
        return cached
    table = getattr(dirs, "table", None)
    low: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if table is not None:  # the engine's Records: the columns as they are
        data = {k: table[k] for k in ("from", "to", "link", "bytes_sent", "packets_sent", "busy_ps")}
        for key in _LOW_KEYS:
            if key not in table:
                continue
            values = table[key]
            has = dirs.optional.get(key)
            if has is None:
                has = np.ones(len(values), dtype=bool)
            low[key] = (np.where(has, values, 0).astype(np.int64), np.asarray(has, dtype=bool))
    else:
        data = {
            k: _ints([d[k] for d in dirs])
            for k in ("from", "to", "link", "bytes_sent", "packets_sent", "busy_ps")
        }
        for key in _LOW_KEYS:
            has = np.array([key in d for d in dirs], dtype=bool)
            if has.any():
                low[key] = (_ints([d.get(key, 0) for d in dirs]), has)
    out = DirColumns(data, low)
    if table is not None:
        dirs._dir_columns = out
    return out


def node_columns(nodes: Any) -> NodeColumns:
    """The names and kinds of `nodes` (the results' "nodes")."""
    if isinstance(nodes, NodeColumns):
        return nodes
    cached = getattr(nodes, "_node_columns", None)
    if cached is not None:
        return cached
    table = getattr(nodes, "table", None)
    if table is not None:
        out = NodeColumns(table["name"].tolist(), table["kind"].tolist())
        nodes._node_columns = out
        return out
    return NodeColumns([n["name"] for n in nodes], [n["kind"] for n in nodes])
