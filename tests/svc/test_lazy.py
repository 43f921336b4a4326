"""Lazy package namespaces (svc.lazy): every public name resolves, to what its module defines."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import svc
from svc.lazy import LazyExports


def lazy_packages() -> list[str]:
    found = []
    for info in pkgutil.walk_packages(svc.__path__, "svc."):
        if info.ispkg:
            module = importlib.import_module(info.name)
            if isinstance(vars(module).get("_exports"), LazyExports):
                found.append(info.name)
    return found


PACKAGES = lazy_packages()


def test_the_domain_packages_are_lazy() -> None:
    assert {
        "svc.goals",
        "svc.workflows",
        "svc.automations",
        "svc.mcp",
        "svc.teams",
        "svc.memory",
        "svc.sessions",
        "svc.tools",
        "svc.identity",
        "svc.files",
    } <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_export_resolves_to_its_module_attribute(package: str) -> None:
    module = importlib.import_module(package)
    exports: LazyExports = module._exports
    assert module.__all__ == sorted(exports.where)
    for name, (source, attribute) in exports.where.items():
        assert getattr(module, name) is getattr(
            importlib.import_module(source, package), attribute
        ), name
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("package", PACKAGES)
def test_no_export_is_shadowed_by_a_submodule(package: str) -> None:
    # Importing submodule `x` sets the package attribute `x` to the module; an
    # export of the same name would then be the module, not the exported value.
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not submodules & set(module._exports.where)


def test_a_name_loads_only_its_own_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from svc.lazy import LazyExports\n"
        "_exports = LazyExports(__name__, {'.alpha': ['A', 'B as Bee'], '.beta': ['C']})\n"
        "__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names\n"
    )
    (package / "alpha.py").write_text("A = 'a'\nB = 'b'\n")
    (package / "beta.py").write_text("C = 'c'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        lazypkg = importlib.import_module("lazypkg")
        assert lazypkg.__all__ == ["A", "Bee", "C"]
        assert "lazypkg.alpha" not in sys.modules and "lazypkg.beta" not in sys.modules
        assert lazypkg.Bee == "b"
        assert "lazypkg.alpha" in sys.modules and "lazypkg.beta" not in sys.modules
        assert vars(lazypkg)["Bee"] == "b"  # stored: the next read is a plain lookup
        from lazypkg import C

        assert C == "c"
        with pytest.raises(AttributeError, match="has no attribute 'missing'"):
            _ = lazypkg.missing
        assert {"A", "Bee", "C"} <= set(dir(lazypkg))
    finally:
        for name in [n for n in sys.modules if n == "lazypkg" or n.startswith("lazypkg.")]:
            del sys.modules[name]


def type_checking_names(package: str) -> dict[str, tuple[str, str]]:
    """``{name: (module, attribute)}`` imported under ``if TYPE_CHECKING:`` in the __init__."""
    import ast

    source = Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8")
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    module = "." * stmt.level + (stmt.module or "")
                    for alias in stmt.names:
                        found[alias.asname or alias.name] = (module, alias.name)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_type_checkers_see_every_export_with_its_real_type(package: str) -> None:
    """Beside the lazy table, an `if TYPE_CHECKING:` block imports the same names from the
    same modules, so mypy and editors see real types while start-up stays lazy."""
    module = importlib.import_module(package)
    exports: LazyExports = module._exports
    assert type_checking_names(package) == exports.where
