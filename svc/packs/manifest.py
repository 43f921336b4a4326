"""A pack: a directory (or a ``.zip`` of one) with a manifest and the things it bundles.

Layout::

    pack.yaml            # or pack.yml / pack.json
    skills/<id>/SKILL.md # skills, each a directory (scripts and references come along)
    workflows/*.yaml     # automation/workflow definitions, carried as files

Manifest fields: ``name`` and ``version`` (required), ``pack_id`` (defaults to
the name made path-safe), ``description``, ``author``, ``homepage``, ``license``.
A zip may hold the pack at its top or inside one top-level directory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from ..errors import ValidationFailed
from ..skills import SkillsError, parse_skill

MANIFEST_NAMES = ("pack.yaml", "pack.yml", "pack.json")
_PACK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class PackInvalid(ValidationFailed):
    """The pack is not valid."""

    code = "PACK_INVALID"


@attrs.frozen
class PackContents:
    root: Path
    manifest_file: Path
    manifest: dict[str, Any]
    pack_id: str
    name: str
    version: str
    description: str | None
    skills: list[dict[str, Any]]
    workflows: list[str]

    def summary(self) -> dict[str, Any]:
        return {
            "pack_id": self.pack_id,
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "manifest": self.manifest,
            "contents": {"skills": self.skills, "workflows": self.workflows},
        }


def find_manifest(root: Path) -> Path | None:
    for name in MANIFEST_NAMES:
        if (root / name).is_file():
            return root / name
    return None


def pack_root(directory: Path) -> Path:
    """The directory holding the manifest: ``directory`` or its single subdirectory."""
    if find_manifest(directory) is not None:
        return directory
    entries = [p for p in directory.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and find_manifest(entries[0]) is not None:
        return entries[0]
    raise PackInvalid(f"no {', '.join(MANIFEST_NAMES)} found in the pack", field="path")


def read_pack(directory: Path) -> PackContents:
    root = pack_root(directory)
    manifest_file = find_manifest(root)
    assert manifest_file is not None
    manifest = _load(manifest_file)
    name = _required(manifest, "name")
    version = _required(manifest, "version")
    pack_id = manifest.get("pack_id") or manifest.get("id") or _slug(name)
    if not isinstance(pack_id, str) or not _PACK_ID.match(pack_id) or ".." in pack_id:
        raise PackInvalid("`pack_id` must be letters, digits, `.`, `_` or `-`", field="pack_id")
    description = manifest.get("description")
    return PackContents(
        root=root,
        manifest_file=manifest_file,
        manifest=manifest,
        pack_id=pack_id,
        name=name,
        version=version,
        description=description if isinstance(description, str) else None,
        skills=_skills(root),
        workflows=sorted(
            str(p.relative_to(root))
            for pattern in ("*.yaml", "*.yml", "*.json")
            for p in (root / "workflows").glob(pattern)
        ),
    )


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackInvalid(f"{path.name}: cannot read ({exc})", field="manifest") from None
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            # PyYAML is imported on first use (rare path, noticeable import).
            import yaml

            data = yaml.safe_load(text)
    except ValueError as exc:
        raise PackInvalid(f"{path.name}: not valid ({exc})", field="manifest") from None
    except Exception as exc:  # yaml.YAMLError without importing yaml up front
        raise PackInvalid(f"{path.name}: not valid YAML ({exc})", field="manifest") from None
    if not isinstance(data, dict):
        raise PackInvalid(f"{path.name}: the manifest must be a mapping", field="manifest")
    return {str(k): v for k, v in data.items()}


def _required(manifest: dict[str, Any], key: str) -> str:
    value = manifest.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise PackInvalid(f"the manifest must give `{key}`", field=key)
    return value.strip()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.").lower() or "pack"


def _skills(root: Path) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = []
    base = root / "skills"
    if not base.is_dir():
        return skills
    for directory in sorted(p for p in base.iterdir() if p.is_dir()):
        path = directory / "SKILL.md"
        if not path.is_file():
            continue
        try:
            doc = parse_skill(path.read_text(encoding="utf-8"), source=f"skills/{directory.name}")
        except (OSError, UnicodeDecodeError) as exc:
            raise PackInvalid(f"skills/{directory.name}: {exc}", field="skills") from None
        except SkillsError as exc:
            raise PackInvalid(exc.message, field="skills") from None
        skills.append(
            {
                "id": directory.name,
                "name": doc.name,
                "description": doc.description,
                "version": doc.version,
            }
        )
    return skills


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key for dotted versions: numbers compare as numbers, the rest as text."""
    parts = re.split(r"[.+-]", version.strip().lstrip("vV"))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def is_newer(candidate: str, current: str) -> bool:
    return version_key(candidate) > version_key(current)


__all__ = [
    "MANIFEST_NAMES",
    "PackContents",
    "PackInvalid",
    "find_manifest",
    "is_newer",
    "read_pack",
    "version_key",
]
