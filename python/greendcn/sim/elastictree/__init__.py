"""ElasticTree (Heller et al., NSDI 2010): a network-wide power manager that, every interval, keeps on the
switches and links of a fat-tree that carry the demand with a safety margin and turns the rest off
(docs/energy-saving.md, "ElasticTree")."""

from __future__ import annotations

from .config import ElasticTree
from .demand import offered_demand
from .exact import exact_subset
from .fabric import FatTreeView
from .heuristic import Subset, heuristic_subset
from .schedule import Plan, plan

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
