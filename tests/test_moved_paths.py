"""Old import paths of moved modules (greendcn._moved) still work for one release, warn, and give the very
module at the new path, so code written against 0.1 keeps running while it is updated."""

import importlib
import sys

import pytest

from greendcn._moved import MOVED, new_name


@pytest.mark.parametrize("old", sorted(MOVED))
def test_each_old_path_imports_the_new_module_with_a_deprecation_warning(old, monkeypatch):
    import greendcn

    # Forget the old path so it is imported afresh; the import sets the old name as an attribute of its parent
    # (greendcn.simulate is also the package's function), which monkeypatch restores afterwards.
    monkeypatch.delitem(sys.modules, old, raising=False)
    parent, _, child = old.rpartition(".")
    monkeypatch.setattr(importlib.import_module(parent), child, None, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {MOVED[old]}"):
        module = importlib.import_module(old)
    new = importlib.import_module(MOVED[old])
    assert module is new
    assert new.__spec__.name == MOVED[old]  # the module keeps its own identity
    assert callable(greendcn.simulate) or old == "greendcn.simulate"


def test_a_submodule_of_a_moved_package_follows_the_package():
    assert new_name("greendcn.topology.fattree") == "greendcn.sim.topology.fattree"
    assert new_name("greendcn.power.models") is None  # power/ did not move
    import greendcn.sim.topology.fattree as new

    old = importlib.import_module("greendcn.topology")
    assert old is importlib.import_module("greendcn.sim.topology")
    assert old.fattree is new


def test_the_package_function_simulate_is_not_replaced_by_the_old_module_path():
    import greendcn

    importlib.import_module("greendcn.simulate")
    assert callable(greendcn.simulate)
    assert greendcn.simulate is importlib.import_module("greendcn.sim").simulate


def test_a_name_that_never_existed_still_fails():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("greendcn.circuit.no_such_module")
