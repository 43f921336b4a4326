"""Workspace roots: session directories and memory import paths stay inside them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest

import svc
from svc import Settings
from svc.roots import PathOutsideRoots, check_within_roots


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "shared" / "alice"
    outside = tmp_path / "elsewhere"
    (root / "project").mkdir(parents=True)
    (root / "project" / "todo.md").write_text("# todo\n")
    outside.mkdir()
    (outside / "notes.md").write_text("# notes\n")
    (root / "escape").symlink_to(outside)  # a symlink inside a root pointing out of it
    return {"root": root, "outside": outside}


def test_paths_inside_a_root_pass_and_symlinks_are_resolved(layout: dict[str, Path]) -> None:
    roots = [layout["root"]]
    assert (
        check_within_roots(layout["root"] / "project", roots, field="d")
        == (layout["root"] / "project").resolve()
    )
    for path in (layout["outside"], layout["root"] / "escape", layout["root"] / ".." / "x"):
        with pytest.raises(PathOutsideRoots) as info:
            check_within_roots(path, roots, field="directory")
        assert info.value.status == 403
        assert info.value.to_body()["field"] == "directory"
    # No roots: today's local behaviour, anything goes.
    assert check_within_roots(layout["outside"], [], field="d") == layout["outside"].resolve()


def test_roots_come_from_the_environment(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings({"SVC_WORKSPACE_ROOTS": "/srv/a:/srv/b,/srv/c"})
    assert settings.workspace_roots == [Path("/srv/a"), Path("/srv/b"), Path("/srv/c")]
    assert make_settings().workspace_roots == []


@pytest.fixture
async def rooted(
    make_settings: Callable[..., Settings], layout: dict[str, Path]
) -> AsyncIterator[httpx.AsyncClient]:
    settings = make_settings(workspace=layout["root"], workspace_roots=[layout["root"]])
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
    ):
        yield client


async def test_session_directories_must_lie_in_a_root(
    rooted: httpx.AsyncClient, layout: dict[str, Path]
) -> None:
    ok = await rooted.post("/session", json={"directory": str(layout["root"] / "project")})
    assert ok.status_code == 200, ok.text
    for directory in (str(layout["outside"]), str(layout["root"] / "escape"), "../../elsewhere"):
        refused = await rooted.post("/session", json={"directory": directory})
        assert refused.status_code == 403, (directory, refused.text)
        assert refused.json()["code"] == "PATH_OUTSIDE_WORKSPACE_ROOTS"
        assert refused.json()["field"] == "directory"


async def test_memory_import_paths_must_lie_in_a_root(
    rooted: httpx.AsyncClient, layout: dict[str, Path]
) -> None:
    for path in (str(layout["outside"]), str(layout["root"] / "escape")):
        refused = await rooted.post("/memory/import", json={"source": {"path": path}})
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "PATH_OUTSIDE_WORKSPACE_ROOTS"
    ok = await rooted.post(
        "/memory/import", json={"source": {"path": str(layout["root"] / "project")}}
    )
    assert ok.status_code == 200, ok.text


async def test_without_roots_any_directory_is_allowed(
    client: httpx.AsyncClient, layout: dict[str, Path]
) -> None:
    response = await client.post("/session", json={"directory": str(layout["outside"])})
    assert response.status_code == 200
