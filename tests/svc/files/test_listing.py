"""``list_storage_files``: what ``GET /global/storage/files`` returns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from svc.files import StoragePathInvalid, StoragePathNotFound, list_storage_files


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "state"
    for rel, size in {
        "channel_uploads/telegram/1/photo.jpg": 1234,
        "channel_uploads/slack/a.txt": 3,
        "svc.db": 10,
        ".cache/x": 1,
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
    return root


def test_lists_a_subdirectory_with_paths_relative_to_root_and_base(root: Path) -> None:
    body = list_storage_files(root, "channel_uploads")
    assert body["root"] == str(root.resolve())
    assert body["base"] == str((root / "channel_uploads").resolve())
    assert (body["count"], body["limit"], body["truncated"]) == (2, 500, False)
    photo = body["files"][1]
    assert photo["path"] == "channel_uploads/telegram/1/photo.jpg"
    assert photo["relative_to_base"] == "telegram/1/photo.jpg"
    assert photo["size_bytes"] == 1234
    mtime = (root / "channel_uploads/telegram/1/photo.jpg").stat().st_mtime_ns // 1_000_000
    assert photo["modified_at_ms"] == mtime


def test_the_whole_root_skips_hidden_entries(root: Path) -> None:
    paths = [f["path"] for f in list_storage_files(root)["files"]]
    assert paths == [
        "channel_uploads/slack/a.txt",
        "channel_uploads/telegram/1/photo.jpg",
        "svc.db",
    ]


def test_limit_is_clamped_and_truncation_reported(root: Path) -> None:
    body = list_storage_files(root, limit=1)
    assert (body["count"], body["limit"], body["truncated"]) == (1, 1, True)
    assert list_storage_files(root, limit=0)["limit"] == 1
    assert list_storage_files(root, limit=999_999)["limit"] == 5000


@pytest.mark.parametrize(
    "path", ["..", "../etc", "channel_uploads/../../x", "/etc", "C:\\Windows", "a\\..\\..\\b"]
)
def test_escaping_paths_are_refused(root: Path, path: str) -> None:
    with pytest.raises(StoragePathInvalid) as caught:
        list_storage_files(root, path)
    assert caught.value.status == 400 and caught.value.extra["field"] == "path"


def test_a_symlink_out_of_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "escape")
    with pytest.raises(StoragePathInvalid):
        list_storage_files(root, "escape")


def test_missing_path_is_404_and_a_file_is_400(root: Path) -> None:
    with pytest.raises(StoragePathNotFound) as missing:
        list_storage_files(root, "nope")
    assert missing.value.status == 404
    with pytest.raises(StoragePathInvalid, match="not a directory"):
        list_storage_files(root, "svc.db")
