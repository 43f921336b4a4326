"""Opening a pack source: a directory as it is, a ``.zip`` unpacked into a scratch
directory (entries that would land outside it are refused), and exporting an
installed pack back into a zip."""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
import zipfile
from pathlib import Path, PurePosixPath

from .manifest import PackInvalid

MAX_PACK_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 5000


def unpack(path: Path, scratch: Path) -> Path:
    """The directory to read the pack from: ``path`` itself, or ``scratch`` holding the zip."""
    if path.is_dir():
        return path
    if not path.is_file():
        raise PackInvalid(f"`{path}` does not exist", field="path")
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise PackInvalid(f"`{path}` is neither a directory nor a zip ({exc})", field="path")
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES or sum(i.file_size for i in infos) > MAX_PACK_BYTES:
            raise PackInvalid("the pack archive is too large", field="path")
        scratch.mkdir(parents=True, exist_ok=True)
        for info in infos:
            rel = PurePosixPath(info.filename)
            if rel.is_absolute() or any(p == ".." for p in rel.parts) or "\\" in info.filename:
                raise PackInvalid(f"unsafe entry `{info.filename}` in the archive", field="path")
            if info.is_dir():
                continue
            out = scratch.joinpath(*rel.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.read(info))
    return scratch


def copy_tree(source: Path, target: Path) -> None:
    """Replace ``target`` with a copy of ``source`` (staged beside it, then swapped in)."""
    # A staging name of its own: two installs of one pack never write into each other.
    staging = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.installing")
    staging.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, staging, symlinks=False)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)


def export_zip(source: Path, output: Path) -> tuple[int, str]:
    """Zip ``source`` into ``output`` (written whole, then renamed); its size and sha256."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for dirpath, dirnames, filenames in os.walk(source):
            dirnames.sort()
            for name in sorted(filenames):
                full = Path(dirpath) / name
                archive.write(full, full.relative_to(source).as_posix())
    os.replace(partial, output)
    data = output.read_bytes()
    return len(data), hashlib.sha256(data).hexdigest()


__all__ = ["copy_tree", "export_zip", "unpack"]
