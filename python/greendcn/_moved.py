"""Old import paths of modules that moved in the 0.2 layout, kept working for one release.

`import greendcn.scenario` (say) finds this table's entry and returns the module at its new home,
`greendcn.sim.scenario`: the very same module object, so monkeypatching through either name affects both.
Each old path warns once with a DeprecationWarning naming the new one; docs/architecture.md has the table.
Remove this file, and its installation in `greendcn/__init__.py`, in the release after 0.2."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "install"]

# old module -> new module; a moved package's submodules follow it (greendcn.topology.fattree ->
# greendcn.sim.topology.fattree) unless they have an entry of their own.
MOVED: dict[str, str] = {
    "greendcn._engine": "greendcn._native",
    "greendcn.errors": "greendcn.core.errors",
    "greendcn.units": "greendcn.core.units",
    "greendcn.clitools": "greendcn.core.clitools",
    "greendcn.scenario": "greendcn.sim.scenario",
    "greendcn.topology": "greendcn.sim.topology",
    "greendcn.workload": "greendcn.sim.workload",
    "greendcn.workload.seed003": "greendcn.sim.workload.rps_scenarios",
    "greendcn.engine": "greendcn.sim.engine",
    "greendcn.simulate": "greendcn.sim.run",
    "greendcn.simcli": "greendcn.sim.cli",
    "greendcn.experiments": "greendcn.sim.reproduce",
    "greendcn.experiments.cli": "greendcn.sim.cli",
    "greendcn.power.energy": "greendcn.sim.ledger",
    "greendcn.power.config": "greendcn.sim.power_table",
    "greendcn.circuit": "greendcn.host.tdma",
    "greendcn.circuit.tdma": "greendcn.host.tdma.model",
    "greendcn.circuit.tdma_checks": "greendcn.host.tdma.checks",
    "greendcn.circuit.tdma_fit": "greendcn.host.tdma.fit",
    "greendcn.nic.seed002": "greendcn.nic.transmissions",
}


def new_name(old: str) -> str | None:
    """The module's new name, or None when `old` did not move."""
    if old in MOVED:
        return MOVED[old]
    head, _, tail = old.rpartition(".")
    while head:
        if head in MOVED:
            return MOVED[head] + old[len(head) :]
        head, _, _ = head.rpartition(".")
    return None


class _MovedFinder:
    """Resolves an old path to the module already imported (or importable) under its new name. A meta path
    finder and loader by their methods (find_spec; create_module, exec_module): importlib.abc's base classes
    would import importlib.resources and its dependencies on every start."""

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        target_name = new_name(fullname)
        if target_name is None or importlib.util.find_spec(target_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        target_name = new_name(spec.name)
        assert target_name is not None
        warnings.warn(
            f"{spec.name} moved to {target_name}; the old path works until the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(target_name)
        spec.loader_state = module.__spec__  # the import system overwrites __spec__; exec_module puts it back
        return module

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        # The module is already executed under its new name; nothing to run twice. Its own spec goes back, so
        # it still reports its new name to reload(), pickling and multiprocessing.
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        # First in line, so that a stale folder left at an old path by an older checkout cannot shadow the move.
        sys.meta_path.insert(0, _MovedFinder())
    # `greendcn.simulate` is also the package's function: an import of the old module path must not replace
    # that attribute with the module, so the old path is registered up front (without its warning).
    run = sys.modules.get("greendcn.sim.run")
    if run is not None:
        sys.modules.setdefault("greendcn.simulate", run)
