"""NIC receive modes (per-packet interrupts, timer polling, watermark, NAPI): a fluid model, a packet-level
cross-check, and a multi-objective GA tuner, after seed 002 (Nurika et al.) and seed 004's NAPI account."""

from .crosscheck import crosscheck
from .eventsim import SimResult, simulate
from .linux import CAVEAT, linux_commands
from .model import PathResult, evaluate, evaluate_setting, evaluate_shared, napi_irq_per_packet
from .params import DEFAULT_HOST, MODES, Host, Setting, Transmission, default_setting, parse_setting
from .transmissions import load_transmissions, tune_rows
from .space import Catalogue, catalogue
from .tuner import TuneResult, choose, exhaustive, pareto_mask, tune

__all__ = [
    "CAVEAT",
    "DEFAULT_HOST",
    "MODES",
    "Catalogue",
    "Host",
    "PathResult",
    "Setting",
    "SimResult",
    "Transmission",
    "TuneResult",
    "catalogue",
    "choose",
    "crosscheck",
    "default_setting",
    "evaluate",
    "evaluate_setting",
    "evaluate_shared",
    "exhaustive",
    "linux_commands",
    "load_transmissions",
    "napi_irq_per_packet",
    "pareto_mask",
    "parse_setting",
    "simulate",
    "tune",
    "tune_rows",
]
