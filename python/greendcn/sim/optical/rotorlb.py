"""RotorLB (seed 001 Algorithm 1, lines 768-801, and the Figure 2.9 walk-through, lines 809-825) as a rack-level
fluid model, vectorized over many traffic matrices at once, with the one-hop-only baseline.

Units: one unit is what one circuit carries in one slot (the thesis normalizes Figure 2.9 the same way, line
809). Queues: `local[b, i, d]` is rack i's own traffic for rack d, `nonlocal_[b, i, d]` traffic rack i relays to
d. Each slot, for every circuit (rack i facing rack p on some switch):

- phase 1: i sends its stored relayed traffic for p, then its local traffic for p, up to one unit; what is left
  of the unit is i's spare capacity on that circuit;
- phase 2: p accepts, per destination d, at most one unit minus what p already holds for d (local and
  relayed), water-filling (our reading of "fair share") each neighbour's spare capacity over its offers and
  each destination's room over the neighbours, repeated until nothing changes;
- phase 3: i sends min(accepted, still queued) of its local traffic, stored at p as relayed traffic.

What the thesis states: the phases and their priorities, the bound that relayed traffic waits at most about one
cycle (line 817), the Figure 2.9 numbers (0.25 for R3 and 0.75 for R4), the N - 1 gain for one heavy flow and
ratio 1 for uniform traffic (line 884), and the traffic density of k of the 56 rack pairs with 32 random matrices
per density (lines 877-879). What is ours (docs/rotornet.md): accumulating the accepted amounts across
iterations (Algorithm 1 line 790 writes `indir <- tmpfs`), dropping a destination from the offers once its room
is used up (without it the loop of lines 786-793 would not end), offers equal to the whole remaining local queue
(as the public RotorNet model does; Algorithm 1 line 774), phase 1 on every circuit before any phase 2, backlogged
demand (a heavy connection never runs dry), the random matrices, and the warm-up."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import InputError

__all__ = [
    "BACKLOG",
    "FluidResult",
    "SlotOutcome",
    "density_matrices",
    "layout_partners",
    "permutation_matrices",
    "rotorlb_slot",
    "run_fluid",
    "waterfill",
]

BACKLOG = 1e6  # units a backlogged pair holds: more than any run can send, so it never empties
_EPS = 1e-9


def waterfill(x: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Max-min fair shares along the last axis: min(x_j, level) with the level that spends `cap` (or all of x
    when sum(x) <= cap). x >= 0 of shape (..., n), cap of shape (...)."""
    shape = x.shape
    n = shape[-1]
    flat = x.reshape(-1, n)
    c = np.broadcast_to(np.asarray(cap, dtype=np.float64), shape[:-1]).reshape(-1)
    out = np.zeros_like(flat)
    # only rows with capacity and something to share need the sort (in a dense sweep most links are full)
    # (x >= 0, so a positive row sum means something to share; einsum sums short rows fastest, without the
    # threads a BLAS matrix product would start)
    rows = np.flatnonzero((c > 0.0) & (np.einsum("ij->i", flat) > 0.0))
    if rows.size:
        xr, cr = flat[rows], c[rows]
        xs = np.sort(xr, axis=-1)
        before = np.cumsum(xs, axis=-1) - xs
        level = (cr[:, None] - before) / np.arange(n, 0, -1)
        capped = xs >= level
        first = np.argmax(capped, axis=-1)
        lam = np.where(capped.any(axis=-1), level[np.arange(rows.size), first], np.inf)
        out[rows] = np.minimum(xr, lam[:, None])
    return out.reshape(shape)


def layout_partners(matchings: Sequence[np.ndarray]) -> tuple[list[np.ndarray], int]:
    """Per switch its (M_s, N) partner rows; returns them as arrays and the cycle length in slots (the least
    common multiple of the M_s; every switch rotates one matching per slot, in lock-step)."""
    mats = [np.asarray(m, dtype=np.int64) for m in matchings]
    if not mats or any(m.ndim != 2 or m.shape[0] == 0 for m in mats):
        raise InputError(
            "matchings: need at least one switch with at least one matching",
            hint="use rotor_matchings(racks, switches)",
            loc=("matchings",),
        )
    n = mats[0].shape[1]
    for s, m in enumerate(mats):
        if m.shape[1] != n:
            raise InputError(
                f"matchings[{s}]: has {m.shape[1]} racks, switch 0 has {n}",
                hint="same racks",
                loc=("matchings", s),
            )
        for k, row in enumerate(m):
            if sorted(row.tolist()) != list(range(n)) or (row[row] != np.arange(n)).any():
                raise InputError(
                    f"matchings[{s}][{k}]: not a symmetric matching of {n} racks",
                    hint="each row is an involution: row[row[i]] == i",
                    loc=("matchings", s, k),
                )
    cycle = int(np.lcm.reduce([m.shape[0] for m in mats]))
    return mats, cycle


@dataclass
class SlotOutcome:
    """What one slot did, per switch s: `direct[s][b, i]` sent by rack i on its circuit (relayed + local),
    `relayed_out[s][b, i]` the relayed part of it, `accepted[s][b, p, d]` what acceptor p granted its neighbour
    on switch s for destination d, `sent[s][b, p, d]` what that neighbour then moved to p (phase 3)."""

    direct: list[np.ndarray] = field(default_factory=list)
    relayed_out: list[np.ndarray] = field(default_factory=list)
    accepted: list[np.ndarray] = field(default_factory=list)
    sent: list[np.ndarray] = field(default_factory=list)
    iterations: int = 0


def _share_two(a: np.ndarray, b: np.ndarray, room: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`waterfill` over two claimants, elementwise, without sorting (the 2 x 4 layout's hot spot)."""
    room = np.maximum(room, 0.0)
    half = 0.5 * room
    fits = a + b <= room
    sa = np.where(fits, a, np.where(a <= half, a, np.where(b <= half, room - b, half)))
    sb = np.where(fits, b, np.where(b <= half, b, np.where(a <= half, room - a, half)))
    return sa, sb


def _accept_loop(
    offers: list[np.ndarray], linkcap: list[np.ndarray], room: np.ndarray, n: int
) -> tuple[list[np.ndarray], int]:
    """Algorithm 1's phase-2 loop (lines 785-793): fair-share each neighbour's spare capacity over its offers,
    then each destination's room over the neighbours; repeat with what is left until nothing changes. Each pass
    works only on the matrices that still have something to share (after the first pass, few do)."""
    alloc = [np.zeros_like(o) for o in offers]
    room = room.copy()
    live = room > _EPS
    scaled = [waterfill(np.where(live, o, 0.0), lc) for o, lc in zip(offers, linkcap, strict=True)]
    idx = np.arange(room.shape[0])
    iterations = 0
    while idx.size and iterations < 4 * n + 8:  # each pass uses up a destination's room or a capacity
        iterations += 1
        rm = room[idx]
        if len(scaled) == 1:
            share = [np.minimum(scaled[0], rm)]
        elif len(scaled) == 2:
            share = list(_share_two(scaled[0], scaled[1], rm))
        else:
            stacked = waterfill(np.stack(scaled, axis=-1), rm)
            share = [stacked[..., s] for s in range(len(scaled))]
        subs = []
        for s, t in enumerate(share):
            a_s = alloc[s][idx] + t
            alloc[s][idx] = a_s
            subs.append(a_s)
            rm = rm - t
        rm = np.maximum(rm, 0.0)
        room[idx] = rm
        live = rm > _EPS
        scaled = [
            waterfill(
                np.where(live, np.maximum(o[idx] - a, 0.0), 0.0), np.maximum(lc[idx] - a.sum(axis=-1), 0.0)
            )
            for o, a, lc in zip(offers, subs, linkcap, strict=True)
        ]
        keep = np.zeros(idx.size, dtype=bool)
        for sc in scaled:
            keep |= sc.reshape(idx.size, -1).max(axis=1) > _EPS
        idx = idx[keep]
        scaled = [sc[keep] for sc in scaled]
    return alloc, iterations


def rotorlb_slot(
    local: np.ndarray,
    nonlocal_: np.ndarray,
    partners: Sequence[np.ndarray],
    rotorlb: bool = True,
    record: bool = False,
    loop: bool = False,
) -> tuple[np.ndarray, SlotOutcome | None]:
    """Run one slot in place on queues of shape (B, N, N); `partners[s]` is switch s's matching this slot.
    Returns the units delivered to their final rack per matrix (B,) and, with `record`, the slot's details.
    `rotorlb=False` is the one-hop baseline (phase 1 alone); `loop=True` runs Algorithm 1's loop even where one
    neighbour per rack lets the closed form replace it."""
    bsz, n, _ = local.shape
    ids = np.arange(n)
    delivered = np.zeros(bsz)
    out = SlotOutcome() if record else None
    spare = []
    for p in partners:
        act = p != ids
        rows, cols = ids[act], p[act]
        q = nonlocal_[:, rows, cols]
        x = np.minimum(q, 1.0)
        nonlocal_[:, rows, cols] = q - x
        c = 1.0 - x
        lo = local[:, rows, cols]
        y = np.minimum(lo, c)
        local[:, rows, cols] = lo - y
        c = c - y
        delivered += (x + y).sum(axis=-1)
        cap = np.zeros((bsz, n))
        cap[:, rows] = c
        spare.append(cap)
        if out is not None:
            d, r = np.zeros((bsz, n)), np.zeros((bsz, n))
            d[:, rows], r[:, rows] = x + y, x
            out.direct.append(d)
            out.relayed_out.append(r)
    if not rotorlb:
        return delivered, out

    if len(partners) == 1 and not loop:
        _one_neighbour(local, nonlocal_, partners[0], spare[0], out)
        return delivered, out

    # phase 2, seen from each acceptor p: its neighbour on switch s is partners[s][p]
    room = np.maximum(1.0 - local - nonlocal_, 0.0)
    room[:, ids, ids] = 0.0
    offers, linkcap = [], []
    for p, cap in zip(partners, spare, strict=True):
        off = local[:, p, :].copy()  # off[b, acceptor, d] = the neighbour's local queue for d
        off[:, ids, ids] = 0.0  # traffic for the acceptor itself is direct, not relayed
        off[:, ids[p == ids], :] = 0.0  # an idle port has no neighbour
        offers.append(off)
        linkcap.append(cap[:, p])
    alloc, iterations = _accept_loop(offers, linkcap, room, n)

    # phase 3: each sender moves min(accepted, still queued); with two circuits, in switch order
    for s, p in enumerate(partners):
        queued = local[:, p, :]
        moved = np.minimum(alloc[s], queued)
        local[:, p, :] = queued - moved  # p is an involution, so this writes each sender's row once
        nonlocal_ += moved
        if out is not None:
            out.accepted.append(alloc[s])
            out.sent.append(moved)
    if out is not None:
        out.iterations = iterations
    return delivered, out


def _one_neighbour(
    local: np.ndarray, nonlocal_: np.ndarray, p: np.ndarray, spare: np.ndarray, out: SlotOutcome | None
) -> None:
    """Phases 2 and 3 when every rack has one neighbour (one rotor switch). Algorithm 1's loop then ends at the
    max-min fair share of the neighbour's spare capacity with each destination bounded by min(offer, room), so
    it is computed at once (tests check it against the loop), and only for the (matrix, acceptor) pairs whose
    neighbour has spare capacity: in a busy fabric most circuits are full after phase 1."""
    bsz, n, _ = local.shape
    b_idx, acc = np.nonzero(spare[:, p] > _EPS)
    nbr = p[acc]
    offer = local[b_idx, nbr, :]
    room = np.maximum(1.0 - local[b_idx, acc, :] - nonlocal_[b_idx, acc, :], 0.0)
    rows = np.arange(acc.size)
    room[rows, acc] = 0.0  # traffic for the acceptor itself is direct, not relayed
    accepted = waterfill(np.minimum(offer, room), spare[b_idx, nbr])
    moved = np.minimum(accepted, offer)
    local[b_idx, nbr, :] = offer - moved
    nonlocal_[b_idx, acc, :] += moved
    if out is not None:
        full_acc, full_moved = np.zeros((bsz, n, n)), np.zeros((bsz, n, n))
        full_acc[b_idx, acc], full_moved[b_idx, acc] = accepted, moved
        out.accepted.append(full_acc)
        out.sent.append(full_moved)
        out.iterations = 1


@dataclass
class FluidResult:
    """Delivered units per cycle (averaged over the measured cycles), per matrix, and the capacity they are out
    of: racks x circuits per slot x slots per cycle (idle ports count as capacity never used)."""

    delivered_per_cycle: np.ndarray
    capacity_per_cycle: float
    cycle_slots: int
    per_cycle: np.ndarray  # (cycles measured, B)

    @property
    def normalized(self) -> np.ndarray:
        return self.delivered_per_cycle / self.capacity_per_cycle


def run_fluid(
    demand: np.ndarray,
    matchings: Sequence[np.ndarray],
    rotorlb: bool = True,
    warmup_cycles: int = 6,
    measure_cycles: int = 6,
    on_slot: Callable[[int, SlotOutcome], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> FluidResult:
    """Steady-state delivery of `demand` (B, N, N) or (N, N) in units (np.inf or any value >= BACKLOG means
    backlogged). Runs `warmup_cycles` unmeasured cycles, then averages `measure_cycles` (our defaults, 6 and 6:
    some matrices settle into a pattern longer than one cycle, so the average is over several; against 60 + 20
    cycles the ratios differ by 0.008 % on average and 0.7 % at worst, docs/rotornet.md). `on_slot(t, outcome)`
    sees every slot's details (slow: for tests); `progress(cycles done, cycles in all)` is called per cycle."""
    mats, cycle = layout_partners(matchings)
    d = np.asarray(demand, dtype=np.float64)
    if d.ndim == 2:
        d = d[None]
    n = mats[0].shape[1]
    if d.ndim != 3 or d.shape[1:] != (n, n):
        raise InputError(
            f"demand: need shape (B, {n}, {n}), got {d.shape}",
            hint="one row per source rack",
            loc=("demand",),
        )
    if np.isnan(d).any() or (d < 0).any():
        raise InputError(
            "demand: entries must be >= 0 (np.inf for backlogged)", hint="check the matrix", loc=("demand",)
        )
    if warmup_cycles < 0 or measure_cycles < 1:
        raise InputError(
            "measure_cycles: need warmup >= 0 and measure >= 1 cycles",
            hint="e.g. 4 and 4",
            loc=("measure_cycles",),
        )
    local = np.minimum(d, BACKLOG)
    local[:, np.arange(n), np.arange(n)] = 0.0
    nonlocal_ = np.zeros_like(local)
    per_cycle = np.zeros((measure_cycles, local.shape[0]))
    t = 0
    for c in range(warmup_cycles + measure_cycles):
        for _ in range(cycle):
            partners = [m[t % m.shape[0]] for m in mats]
            got, outcome = rotorlb_slot(local, nonlocal_, partners, rotorlb, record=on_slot is not None)
            if on_slot is not None and outcome is not None:
                on_slot(t, outcome)
            if c >= warmup_cycles:
                per_cycle[c - warmup_cycles] += got
            t += 1
        if progress is not None:
            progress(c + 1, warmup_cycles + measure_cycles)
    capacity = float(sum(int((m[k % m.shape[0]] != np.arange(n)).sum()) for m in mats for k in range(cycle)))
    return FluidResult(per_cycle.mean(axis=0), capacity, cycle, per_cycle)


def density_matrices(n: int, k: int, count: int, seed: int) -> np.ndarray:
    """`count` matrices of shape (N, N) in which k of the N (N - 1) ordered rack pairs (chosen uniformly, no
    repeats) are backlogged heavy connections (np.inf) and the rest carry nothing. Our choice: every
    density draws from its own generator seeded with (seed, k), so a density's matrices do not depend on which
    other densities run."""
    pairs = n * (n - 1)
    if not 1 <= k <= pairs:
        raise InputError(
            f"density: k must lie in 1..{pairs}, got {k}", hint=f"k = 1..{pairs}", loc=("density",)
        )
    rng = np.random.default_rng([seed, k])
    chosen = np.argsort(rng.random((count, pairs)), axis=1)[:, :k]
    src, dst = np.nonzero(~np.eye(n, dtype=bool))  # the off-diagonal pairs, row by row
    out = np.zeros((count, n, n))
    rows = np.repeat(np.arange(count), k)
    out[rows, src[chosen.ravel()], dst[chosen.ravel()]] = np.inf
    return out


def permutation_matrices(n: int, count: int, seed: int) -> np.ndarray:
    """`count` random permutations without fixed points (every rack sends to one other rack and receives from
    one), backlogged; drawn by rejection from one generator seeded with (seed, 'permutation')."""
    rng = np.random.default_rng([seed, 0x7065726D])
    out = np.zeros((count, n, n))
    made = 0
    while made < count:
        p = rng.permutation(n)
        if (p != np.arange(n)).all():
            out[made, np.arange(n), p] = np.inf
            made += 1
    return out
