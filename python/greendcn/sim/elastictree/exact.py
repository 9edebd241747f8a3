"""The exact minimum-power subset for small fat-trees (k <= 4), to check the heuristic against: every choice of
aggregation and core switches, fewest switches first, is tested for carrying the demand as a multi-commodity
flow (flows split any way over the links on, each link filled to at most margin x rate; a linear program,
scipy's HiGHS); the first that does is the answer. Links between switches that are on stay on (our choice: the
shipped ledger prices switches, and a switch's links cost it nothing more)."""

from __future__ import annotations

import numpy as np

from ...core.errors import InputError
from .fabric import FatTreeView
from .heuristic import Subset

__all__ = ["carries", "connected", "exact_subset"]


def _arcs(view: FatTreeView, s: Subset) -> tuple[int, list[tuple[int, int]]]:
    """Nodes (edges 0..E-1, then aggs, then cores) and directed arcs of the subnet `s`."""
    half, n_e, n_a = view.half, len(view.edges), len(view.aggs)
    arcs = []
    for e in range(n_e):
        pod = e // half
        for j in range(half):
            a = pod * half + j
            if s.aggs_on[a]:
                arcs += [(e, n_e + a), (n_e + a, e)]
    for a in range(n_a):
        if not s.aggs_on[a]:
            continue
        j = a % half
        for c in range(j * half, j * half + half):
            if s.cores_on[c]:
                arcs += [(n_e + a, n_e + n_a + c), (n_e + n_a + c, n_e + a)]
    return n_e + n_a + len(view.cores), arcs


def connected(view: FatTreeView, s: Subset) -> bool:
    """Whether every edge switch reaches every other over the subnet `s`."""
    n_nodes, arcs = _arcs(view, s)
    adj: list[list[int]] = [[] for _ in range(n_nodes)]
    for u, v in arcs:
        adj[u].append(v)
    seen = {0}
    stack = [0]
    while stack:
        for v in adj[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return all(e in seen for e in range(len(view.edges)))


def carries(view: FatTreeView, s: Subset, demand: np.ndarray, margin: float) -> bool:
    """Whether subnet `s` carries the edge-to-edge demand (bit/s) as a multi-commodity flow, one commodity per
    destination edge switch, every arc at most margin x rate."""
    from scipy.optimize import linprog

    d = np.array(demand, dtype=float)
    np.fill_diagonal(d, 0.0)
    n_e = len(view.edges)
    dests = [t for t in range(n_e) if d[:, t].sum() > 0]
    if not dests:
        return True
    n_nodes, arcs = _arcs(view, s)
    cap = margin * view.rate_bps
    scale = 1.0 / cap  # flows in units of the usable capacity, for a well-conditioned program
    n_arc = len(arcs)
    n_var = n_arc * len(dests)
    rows, cols, vals = [], [], []
    b_eq = np.zeros(n_nodes * len(dests))
    for ci, t in enumerate(dests):
        for ai, (u, v) in enumerate(arcs):
            rows += [ci * n_nodes + u, ci * n_nodes + v]
            cols += [ci * n_arc + ai, ci * n_arc + ai]
            vals += [1.0, -1.0]
        for e in range(n_e):
            b_eq[ci * n_nodes + e] = d[e, t] * scale if e != t else -d[:, t].sum() * scale
    from scipy.sparse import csr_matrix

    a_eq = csr_matrix((vals, (rows, cols)), shape=(n_nodes * len(dests), n_var))
    ub_rows = [ci * n_arc + ai for ci in range(len(dests)) for ai in range(n_arc)]
    a_ub = csr_matrix((np.ones(n_var), (np.array(ub_rows) % n_arc, np.arange(n_var))), shape=(n_arc, n_var))
    res = linprog(
        np.zeros(n_var),
        A_ub=a_ub,
        b_ub=np.ones(n_arc),
        A_eq=a_eq,
        b_eq=b_eq,
        bounds=(0, None),
        method="highs",
    )
    return bool(res.status == 0)


def _all_subsets(k: int) -> np.ndarray:
    """Every (aggs on, cores on) of a k-ary fat-tree with a switch on in each pod and a core on, as bool rows,
    fewest switches first."""
    half = k // 2
    n_a, n_c = k * half, half * half
    bits = ((np.arange(2 ** (n_a + n_c))[:, None] >> np.arange(n_a + n_c)) & 1).astype(bool)
    keep = bits[:, n_a:].any(axis=1) & bits[:, :n_a].reshape(-1, k, half).any(axis=2).all(axis=1)
    bits = bits[keep]
    return bits[np.argsort(bits.sum(axis=1), kind="stable")]


def exact_subset(view: FatTreeView, demand: np.ndarray, margin: float) -> Subset | None:
    """The subset with the fewest switches on that carries the demand (ties: the first in a fixed order), or
    None if even the whole network cannot. Only for k <= 4 (every subset is tried)."""
    if view.k > 4:
        raise InputError(
            f"the exact subset is for k <= 4 fat-trees, got k = {view.k}", hint="use the heuristic"
        )
    k, half = view.k, view.half
    n_a = len(view.aggs)
    d = np.array(demand, dtype=float)
    np.fill_diagonal(d, 0.0)
    cap = margin * view.rate_bps * (1 + 1e-9)
    subsets = _all_subsets(k)
    # Cut conditions every carrying subset meets, for every subset at once (a quick filter before the linear
    # program): each edge's traffic up and down fits its links to the aggregation switches on, each pod's
    # traffic out and in fits its links to the cores on.
    aggs = subsets[:, :n_a].reshape(-1, k, half)
    edge_need = np.maximum(d.sum(axis=1), d.sum(axis=0)).reshape(k, half).max(axis=1)
    ok = (aggs.sum(axis=2) * cap >= edge_need[None, :]).all(axis=1)
    per_group = subsets[:, n_a:].reshape(-1, half, half).sum(axis=2)
    pods = d.reshape(k, half, k, half).sum(axis=(1, 3))
    np.fill_diagonal(pods, 0.0)
    pod_need = np.maximum(pods.sum(axis=1), pods.sum(axis=0))
    ok &= ((aggs * per_group[:, None, :]).sum(axis=2) * cap >= pod_need[None, :]).all(axis=1)
    for row in subsets[ok]:
        s = Subset(row[:n_a].copy(), row[n_a:].copy())
        if connected(view, s) and carries(view, s, d, margin):
            return s
    return None
