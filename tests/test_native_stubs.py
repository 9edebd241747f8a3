"""The type stubs of the compiled module (python/greendcn/_native.pyi) match what the binding exports: the same
public functions with the same parameters, the same exception classes with the same bases. An equivalent of
mypy's stubtest for this one module, without adding mypy to the build."""

import ast
import inspect
from pathlib import Path

import greendcn
from greendcn import _native

STUB = ast.parse((Path(greendcn.__file__).parent / "_native.pyi").read_text())


def stub_functions() -> dict[str, list[str]]:
    return {n.name: [a.arg for a in n.args.args] for n in STUB.body if isinstance(n, ast.FunctionDef)}


def stub_classes() -> dict[str, list[str]]:
    return {n.name: [ast.unparse(b) for b in n.bases] for n in STUB.body if isinstance(n, ast.ClassDef)}


def test_every_exported_name_is_in_the_stub_and_every_stub_name_is_exported():
    exported = {n for n in dir(_native) if not n.startswith("__")} - {"_native"}
    stubbed = set(stub_functions()) | set(stub_classes())
    assert exported == stubbed


def test_functions_have_the_stubbed_parameters_in_order():
    for name, params in stub_functions().items():
        assert list(inspect.signature(getattr(_native, name)).parameters) == params, name


def test_exception_classes_have_the_stubbed_bases():
    for name, bases in stub_classes().items():
        cls = getattr(_native, name)
        assert [b.__name__ for b in cls.__bases__] == bases, name
