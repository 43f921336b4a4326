"""Importing skills into a root: from inline content, a ``SKILL.md`` file, a skill
directory, a directory of skill directories, or a ``.zip`` holding them.

Every candidate is validated before anything is written; a preview runs the same
plan and writes nothing. A candidate whose id is taken follows the conflict
policy: ``skip`` (default), ``overwrite``, ``rename`` (``<id>-2``, ...) or
``fail`` (409 ``SKILLS_CONFLICT``, nothing written).
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

import attrs

from ..errors import Conflict
from .document import SkillDocument, SkillsError, parse_skill, skill_id

POLICIES = ("skip", "overwrite", "rename", "fail")
MAX_SKILLS = 200
MAX_DEPTH = 3
MAX_ZIP_BYTES = 32 * 1024 * 1024


class SkillsConflict(Conflict):
    """A skill with this id already exists."""

    code = "SKILLS_CONFLICT"


@attrs.frozen
class Candidate:
    """One skill found in the source, not yet written."""

    origin: str
    document: SkillDocument
    hint: str | None = None
    """The directory name it came in (its id unless a namespace or rename changes it)."""
    directory: Path | None = None
    """A skill directory to copy whole (its scripts and references come along)."""
    zip_path: Path | None = None
    zip_prefix: str = ""


@attrs.frozen
class Planned:
    candidate: Candidate
    id: str
    target: Path
    action: str
    """``create``, ``overwrite``, ``rename`` or ``skip``."""

    def to_wire(self) -> dict[str, Any]:
        doc = self.candidate.document
        return {
            "id": self.id,
            "name": doc.name,
            "description": doc.description,
            "version": doc.version,
            "source": self.candidate.origin,
            "path": str(self.target / "SKILL.md"),
            "action": self.action,
        }


def candidates(*, content: str | None, path: Path | None) -> list[Candidate]:
    """The skills in the source; SkillsError when there is none or one is invalid."""
    if content is not None:
        return [Candidate("content", parse_skill(content, source="content"))]
    assert path is not None
    if not path.exists():
        raise SkillsError(f"file_or_path: `{path}` does not exist", field="file_or_path")
    if path.is_file() and path.suffix.lower() == ".zip":
        found = _from_zip(path)
    elif path.is_file():
        found = [Candidate(str(path), _read(path), hint=_hint(path))]
    else:
        found = _from_directory(path)
    if not found:
        raise SkillsError(f"file_or_path: no SKILL.md found under `{path}`", field="file_or_path")
    return found


def _hint(path: Path) -> str | None:
    return path.parent.name if path.name == "SKILL.md" else None


def _read(path: Path) -> SkillDocument:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillsError(f"file_or_path: cannot read `{path}` ({exc})", field="file_or_path")
    return parse_skill(text, source=str(path))


def _from_directory(root: Path) -> list[Candidate]:
    if (root / "SKILL.md").is_file():
        return [Candidate(str(root), _read(root / "SKILL.md"), root.name, directory=root)]
    found: list[Candidate] = []
    for path in sorted(root.rglob("SKILL.md")):
        rel = path.relative_to(root)
        if len(rel.parts) > MAX_DEPTH + 1 or any(p.startswith(".") for p in rel.parts[:-1]):
            continue
        # A skill directory inside another skill's directory belongs to that skill.
        if any(c.directory is not None and c.directory in path.parents for c in found):
            continue
        found.append(Candidate(str(path.parent), _read(path), path.parent.name, path.parent))
        if len(found) > MAX_SKILLS:
            raise SkillsError(f"at most {MAX_SKILLS} skills per import", field="file_or_path")
    return found


def _from_zip(path: Path) -> list[Candidate]:
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SkillsError(f"file_or_path: `{path}` is not a zip ({exc})", field="file_or_path")
    found: list[Candidate] = []
    with archive:
        if sum(info.file_size for info in archive.infolist()) > MAX_ZIP_BYTES:
            raise SkillsError("file_or_path: the archive is too large", field="file_or_path")
        names = sorted(n for n in archive.namelist() if PurePosixPath(n).name == "SKILL.md")
        for name in names:
            parts = PurePosixPath(name).parts
            if any(p in ("..", "") or p.startswith(".") for p in parts[:-1]) or name.startswith(
                "/"
            ):
                continue
            prefix = name[: -len("SKILL.md")]
            if any(c.zip_prefix and prefix.startswith(c.zip_prefix) for c in found):
                continue
            try:
                text = archive.read(name).decode("utf-8")
            except UnicodeDecodeError:
                raise SkillsError(f"{name}: not UTF-8 text", field="file_or_path") from None
            hint = parts[-2] if len(parts) > 1 else path.stem
            document = parse_skill(text, source=f"{path.name}:{name}")
            found.append(
                Candidate(f"{path}:{name}", document, hint, zip_path=path, zip_prefix=prefix)
            )
    return found[:MAX_SKILLS]


def plan(
    found: list[Candidate], root: Path, *, namespace: str | None, policy: str
) -> list[Planned]:
    planned: list[Planned] = []
    taken: set[str] = set()
    for candidate in found:
        base = skill_id(candidate.hint or candidate.document.name, namespace=namespace)
        ident, action = base, "create"
        if (root / ident).exists() or ident in taken:
            if policy == "fail":
                raise SkillsConflict(f"a skill `{ident}` already exists in `{root}`", id=ident)
            if policy == "overwrite":
                action = "overwrite"
            elif policy == "rename":
                n = 2
                while (root / f"{base}-{n}").exists() or f"{base}-{n}" in taken:
                    n += 1
                ident, action = f"{base}-{n}", "rename"
            else:
                action = "skip"
        taken.add(ident)
        planned.append(Planned(candidate, ident, root / ident, action))
    return planned


def write(planned: list[Planned]) -> None:
    for item in planned:
        if item.action == "skip":
            continue
        _write_one(item)


def _write_one(item: Planned) -> None:
    candidate, target = item.candidate, item.target
    # Written beside the target, then swapped in: a failed copy leaves the old skill.
    staging = target.with_name(f".{target.name}.importing")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    if candidate.directory is not None:
        shutil.copytree(candidate.directory, staging, symlinks=False)
    elif candidate.zip_path is not None:
        _extract(candidate.zip_path, candidate.zip_prefix, staging)
    else:
        staging.mkdir()
        (staging / "SKILL.md").write_text(candidate.document.text, encoding="utf-8")
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)


def _extract(archive_path: Path, prefix: str, dest: Path) -> None:
    dest.mkdir(parents=True)
    with zipfile.ZipFile(archive_path) as archive:
        for info in archive.infolist():
            if info.is_dir() or not info.filename.startswith(prefix):
                continue
            rel = PurePosixPath(info.filename[len(prefix) :])
            # Never outside the skill's directory (a crafted name like ../../x).
            if rel.is_absolute() or any(p in ("..", "") for p in rel.parts):
                continue
            out = dest.joinpath(*rel.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.read(info))


__all__ = ["POLICIES", "Candidate", "Planned", "SkillsConflict", "candidates", "plan", "write"]
