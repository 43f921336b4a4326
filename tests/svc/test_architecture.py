"""The lines between layers, checked on the source (docs/architecture.md, "Storage").

* Only the store (``svc/store``) and repository modules (a file name containing
  ``repository``) import a database driver, use the unit-of-work type ``Tx``, or
  hold an SQL statement.
* ``actors`` imports nothing of ours; ``supervisors`` only ``actors``; no domain
  package imports the HTTP layer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVERS = ("apsw", "psycopg", "psycopg_pool")
# A string that starts like a statement (leading space and a trailing space or
# parenthesis after the keyword, so prose such as "Select a model" never matches).
SQL = re.compile(
    r"^\s*(SELECT\s.+\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s+(TABLE|INDEX|VIRTUAL)\s|WITH\s+\w+\s+AS\s*\()",
    re.DOTALL,
)


def modules(package: str) -> Iterator[Path]:
    for path in sorted((ROOT / package).rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield path


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def is_storage_module(path: Path) -> bool:
    name = rel(path)
    return name.startswith("svc/store/") or "repository" in path.name


def imported(tree: ast.AST) -> Iterator[tuple[str, list[str]]]:
    """(module, names) of every import; relative imports keep their leading dots."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or ""), [a.name for a in node.names]


def statements(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            yield node.value.strip().splitlines()[0][:60]


def test_only_the_store_and_repositories_touch_the_database() -> None:
    offenders: list[str] = []
    for path in modules("svc"):
        if is_storage_module(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for module, names in imported(tree):
            if module.split(".")[0] in DRIVERS:
                offenders.append(f"{rel(path)} imports {module}")
            if module.lstrip(".").endswith("store") and "Tx" in names:
                offenders.append(f"{rel(path)} uses the unit of work (Tx)")
        offenders.extend(f"{rel(path)} holds SQL: {sql!r}" for sql in statements(tree))
    for package in ("cli", "actors", "supervisors"):
        for path in modules(package):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            offenders.extend(
                f"{rel(path)} imports {module}"
                for module, _ in imported(tree)
                if module.split(".")[0] in DRIVERS
            )
            offenders.extend(f"{rel(path)} holds SQL: {sql!r}" for sql in statements(tree))
    assert offenders == []


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("actors", ("svc", "supervisors", "cli")),
        ("supervisors", ("svc", "cli")),
    ],
)
def test_the_kernel_layers_import_nothing_above_them(
    package: str, forbidden: tuple[str, ...]
) -> None:
    offenders = [
        f"{rel(path)} imports {module}"
        for path in modules(package)
        for module, _ in imported(ast.parse(path.read_text(encoding="utf-8")))
        if module.split(".")[0] in forbidden
    ]
    assert offenders == []


def absolute(path: Path, module: str) -> str:
    """``module`` as imported from ``path``, with a relative import resolved."""
    level = len(module) - len(module.lstrip("."))
    if level == 0:
        return module
    package = list(path.relative_to(ROOT).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (level - 1)]
    rest = module[level:]
    return ".".join(base + ([rest] if rest else []))


def test_domain_packages_never_import_the_http_layer() -> None:
    offenders = []
    for path in modules("svc"):
        name = rel(path)
        if name.startswith("svc/http/") or "/" not in name.removeprefix("svc/"):
            continue  # the HTTP layer itself, and the engine's top-level modules
        for module, names in imported(ast.parse(path.read_text(encoding="utf-8"))):
            target = absolute(path, module)
            targets = [target, *(f"{target}.{n}" for n in names)]
            if any(t == "svc.http" or t.startswith("svc.http.") for t in targets):
                offenders.append(f"{name} imports {target}")
    assert offenders == []


# SQLite-only spellings a repository must not use: the shared subset has ON CONFLICT,
# RETURNING and COALESCE, and the dialect gives the rest (docs/architecture.md, "Storage").
SQLITE_ONLY = re.compile(
    r"INSERT\s+OR\s|REPLACE\s+INTO\s|\browid\b|last_insert_rowid|\b(IFNULL|ifnull)\s*\("
    r"|\bGLOB\b|\bjson_extract\s*\(|\bstrftime\s*\(|\bjulianday\s*\("
)


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (prose, not SQL)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(id(value))
    return found


def is_backend_specific(path: Path) -> bool:
    """Modules written for one backend on purpose (a backend, an FTS5 or tsvector index)."""
    name = rel(path)
    if name == "svc/store/dialect.py":
        return True  # the pieces that differ, by definition
    return name.startswith(("svc/store/sqlite/", "svc/store/postgresql/")) or any(
        word in path.name for word in ("sqlite", "fts", "pg_", "postgres")
    )


def test_repositories_write_sql_both_backends_accept() -> None:
    offenders = []
    for path in modules("svc"):
        if not is_storage_module(path) or is_backend_specific(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = SQLITE_ONLY.search(node.value)
                if found and id(node) not in prose:
                    offenders.append(f"{rel(path)}: {found.group(0)!r} in {node.value[:50]!r}")
    assert offenders == []


def test_the_checks_see_what_they_look_for() -> None:
    """The SQL pattern finds statements and leaves prose alone."""
    assert SQL.match("SELECT id FROM sessions WHERE id = ?")
    assert SQL.match("  INSERT INTO kv(key) VALUES (?)")
    assert SQL.match("UPDATE runs SET status = ? WHERE id = ?")
    assert SQL.match("DELETE FROM events WHERE seq < ?")
    assert not SQL.match("Select a model from the list")
    assert not SQL.match("update the plan")
    assert SQLITE_ONLY.search("INSERT OR REPLACE INTO kv VALUES (?)")
    assert SQLITE_ONLY.search("SELECT rowid FROM t")
    assert not SQLITE_ONLY.search("INSERT INTO kv VALUES (?) ON CONFLICT(key) DO NOTHING")
