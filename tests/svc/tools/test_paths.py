"""Workspace confinement: what a file tool may reach, and how paths are shown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import (
    PathOutsideWorkspace,
    ToolDenied,
    ToolFailed,
    resolve_in_workspace,
    workspace_relative,
)
from svc.tools.paths import is_inside_workspace, resolve_cwd


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("secret")
    return path


def test_relative_paths_resolve_against_the_workspace(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "a/b.txt") == workspace.resolve() / "a" / "b.txt"
    assert resolve_in_workspace(workspace, ".") == workspace.resolve()


def test_relative_paths_resolve_against_cwd(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    assert (
        resolve_in_workspace(workspace, "x.txt", cwd=workspace / "sub")
        == workspace.resolve() / "sub" / "x.txt"
    )
    assert (
        resolve_in_workspace(workspace, "x.txt", cwd=Path("sub"))
        == workspace.resolve() / "sub" / "x.txt"
    )
    assert (
        resolve_in_workspace(workspace, "../y.txt", cwd=workspace / "sub")
        == workspace.resolve() / "y.txt"
    )


def test_absolute_path_inside_is_allowed(workspace: Path) -> None:
    target = workspace / "f.txt"
    assert resolve_in_workspace(workspace, str(target)) == target.resolve()


@pytest.mark.parametrize("path", ["..", "../outside/secret.txt", "a/../../x", "./../workspace2"])
def test_dotdot_escapes_are_refused(workspace: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace) as info:
        resolve_in_workspace(workspace, path)
    err = info.value
    assert isinstance(err, ToolDenied)
    assert err.code == "PATH_OUTSIDE_WORKSPACE"
    assert err.status == 403
    assert f"`{path}` is outside the workspace" in err.message
    assert err.extra["path"] == path


def test_absolute_path_outside_is_refused(workspace: Path, outside: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, str(outside / "secret.txt"))
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, "/etc/passwd")


def test_symlink_leading_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "link").symlink_to(outside)
    (workspace / "filelink").symlink_to(outside / "secret.txt")
    for path in ("link/secret.txt", "filelink", "link/new.txt"):
        with pytest.raises(PathOutsideWorkspace) as info:
            resolve_in_workspace(workspace, path)
        assert "through a symlink" in info.value.message


def test_symlink_inside_the_workspace_is_fine(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "f.txt").write_text("x")
    (workspace / "alias").symlink_to(workspace / "real")
    assert (
        resolve_in_workspace(workspace, "alias/f.txt", must_exist=True)
        == (workspace / "real" / "f.txt").resolve()
    )


def test_workspace_reached_through_a_symlink(tmp_path: Path, workspace: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(workspace)
    (workspace / "f.txt").write_text("x")
    assert resolve_in_workspace(via, "f.txt") == (workspace / "f.txt").resolve()
    assert resolve_in_workspace(via, str(workspace / "f.txt")) == (workspace / "f.txt").resolve()
    assert resolve_in_workspace(via, str(via / "f.txt")) == (workspace / "f.txt").resolve()


def test_tilde_is_not_expanded(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "~/notes.txt") == workspace.resolve() / "~" / "notes.txt"


def test_must_exist(workspace: Path) -> None:
    with pytest.raises(ToolFailed) as info:
        resolve_in_workspace(workspace, "missing.txt", must_exist=True)
    assert info.value.message == "no such file or directory: missing.txt"


@pytest.mark.parametrize("path", ["", "   ", "a\0b"])
def test_empty_or_nul_paths_are_validation_errors(workspace: Path, path: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        resolve_in_workspace(workspace, path, field="args.file")
    assert info.value.extra["field"] == "args.file"


def test_symlink_loop_is_a_clear_failure(workspace: Path) -> None:
    (workspace / "loop").symlink_to(workspace / "loop")
    with pytest.raises(ToolFailed) as info:
        resolve_in_workspace(workspace, "loop/x")
    assert "cannot resolve" in info.value.message


def test_cwd_outside_the_workspace_is_refused(workspace: Path, outside: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, "x", cwd=outside)
    with pytest.raises(PathOutsideWorkspace):
        resolve_cwd(workspace, Path(".."))


def test_workspace_relative(workspace: Path, outside: Path) -> None:
    assert workspace_relative(workspace, workspace.resolve() / "a" / "b.txt") == "a/b.txt"
    assert workspace_relative(workspace, workspace.resolve()) == "."
    assert workspace_relative(workspace, Path(os.path.abspath(workspace)) / "c") == "c"
    assert workspace_relative(workspace, outside) == str(outside)


def test_is_inside_workspace(workspace: Path, outside: Path) -> None:
    (workspace / "out").symlink_to(outside)
    assert is_inside_workspace(workspace, workspace / "x")
    assert not is_inside_workspace(workspace, workspace / "out" / "secret.txt")
