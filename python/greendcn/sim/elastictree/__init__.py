"""ElasticTree (Heller et al., NSDI 2010): a network-wide power manager that, every interval, keeps on the
switches and links of a fat-tree that carry the demand with a safety margin and turns the rest off
(docs/energy-saving.md, "ElasticTree")."""

from __future__ import annotations

from ...core.lazy import lazy_dir, lazy_getattr

# Each name loaded from its module on first use: a scenario imports the [elastictree] table's model
# (config.py), and a run that leaves ElasticTree off needs none of the planner.
_LAZY = {
    "ElasticTree": ".config",
    "offered_demand": ".demand",
    "exact_subset": ".exact",
    "FatTreeView": ".fabric",
    "Subset": ".heuristic",
    "heuristic_subset": ".heuristic",
    "Plan": ".schedule",
    "plan": ".schedule",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())
__dir__ = lazy_dir(_LAZY, globals())


__all__ = [
    "ElasticTree",
    "FatTreeView",
    "Plan",
    "Subset",
    "exact_subset",
    "heuristic_subset",
    "offered_demand",
    "plan",
]
