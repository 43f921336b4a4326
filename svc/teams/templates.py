"""Agent templates: ``.svc/agent-team/templates/*.yaml`` in the workspace.

A template gives a spawned instance its role, skills, default budget, model,
system prompt and capabilities (tool allow/deny lists, file-system, network,
secret and version-control scopes). Capabilities default to the most
restrictive values: no file scopes, network off, no version-control rights.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..convert import aliases, path_like, unstructure
from .errors import TeamConfigInvalid
from .schema import BudgetSpec, Role, SkillRef
from .yaml_files import read_yaml, structure_document

TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json")


def normalize_tool_name(name: str) -> str:
    """Tool names and patterns compare lower-case with ``-`` read as ``_``."""
    return name.strip().lower().replace("-", "_")


@attrs.frozen
class FsScopes:
    read: list[str] = attrs.field(factory=list)
    write: list[str] = attrs.field(factory=list)


@attrs.frozen
class NetScopes:
    enabled: bool = False
    allow_hosts: list[str] = attrs.field(factory=list)


@attrs.frozen
class GitCaps:
    read: bool = False
    commit: bool = False
    push: bool = False
    push_requires_approval: bool = False


@attrs.frozen
class Capabilities:
    """What an instance may do; checked on every tool call of its runs."""

    tool_allowlist: list[str] = attrs.field(factory=list)
    """Tool-name patterns; empty means no allowlist restriction."""
    tool_denylist: list[str] = attrs.field(factory=list)
    """Checked first."""
    fs_scopes: FsScopes = attrs.field(factory=FsScopes)
    net_scopes: NetScopes = attrs.field(factory=NetScopes)
    secrets_scopes: list[str] = attrs.field(factory=list)
    git_caps: GitCaps = attrs.field(factory=GitCaps)

    def to_wire(self) -> dict[str, Any]:
        return unstructure(self)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any] | None) -> Capabilities:
        from ..convert import structure

        return structure(cls, dict(data or {}), what="capabilities")

    @property
    def allow_patterns(self) -> list[str]:
        return [normalize_tool_name(p) for p in self.tool_allowlist if p.strip()]

    @property
    def deny_patterns(self) -> list[str]:
        return [normalize_tool_name(p) for p in self.tool_denylist if p.strip()]


@attrs.frozen
class ModelChoice:
    provider_id: str = aliases("providerID", "provider")
    model_id: str = aliases("modelID", "model")


@attrs.frozen
class AgentTemplate:
    # A plain field with the aliases (not aliases()), so type checkers see no default here.
    template_id: str = attrs.field(
        metadata={"aliases": ("templateID", "templateId", "id")}, validator=path_like
    )
    role: Role
    display_name: str | None = aliases("displayName", default=None)
    avatar_url: str | None = aliases("avatarUrl", default=None)
    system_prompt: str | None = aliases("systemPrompt", default=None)
    default_model: ModelChoice | None = aliases("defaultModel", default=None)
    skills: list[SkillRef] = attrs.field(factory=list)
    default_budget: BudgetSpec | None = aliases("defaultBudget", default=None)
    capabilities: Capabilities = attrs.field(factory=Capabilities)

    def to_wire(self) -> dict[str, Any]:
        """The template as the API returns it (``id``/``name`` for clients that want them)."""
        wire: dict[str, Any] = {
            "templateID": self.template_id,
            "id": self.template_id,
            "name": self.display_name or self.template_id,
            "role": self.role,
            "display_name": self.display_name,
            "avatar_url": self.avatar_url,
            "system_prompt": self.system_prompt,
            "default_model": (
                {
                    "provider_id": self.default_model.provider_id,
                    "model_id": self.default_model.model_id,
                }
                if self.default_model
                else None
            ),
            "skills": [s.to_wire() for s in self.skills],
            "default_budget": (
                {k: v for k, v in unstructure(self.default_budget).items() if v is not None}
                if self.default_budget
                else None
            ),
            "capabilities": self.capabilities.to_wire(),
        }
        return {k: v for k, v in wire.items() if v is not None}

    def to_file(self) -> dict[str, Any]:
        """What is written to the template's YAML file."""
        wire = self.to_wire()
        wire.pop("id", None)
        wire.pop("name", None)
        return wire


def default_template(role: Role) -> AgentTemplate:
    """The template of a spawn whose role has none: no skills, no budget, least capabilities."""
    return AgentTemplate(template_id="default-template", role=role)


def load_template_file(path: Path) -> AgentTemplate:
    data, node = read_yaml(path)
    template = structure_document(AgentTemplate, data, node, path)
    if not template.template_id.strip():
        raise TeamConfigInvalid(
            f"{path}: `templateID` must not be empty", field="templateID", file=str(path)
        )
    return template


def template_files(directory: Path) -> list[Path]:
    """The template files of ``directory``, in name order (a later file wins an id clash)."""
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in TEMPLATE_SUFFIXES
    )


def template_filename(template_id: str) -> str:
    """``<id>.yaml`` with every character outside ``[A-Za-z0-9_-]`` replaced by ``_``."""
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", template_id.strip())
    return f"{stem or 'template'}.yaml"


def write_template(path: Path, template: AgentTemplate) -> None:
    """Write ``template`` to ``path`` atomically (a reader never sees half a file)."""
    # PyYAML is imported on first use: the files are read only when a team is
    # configured, and the import is a noticeable share of engine start-up.
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(template.to_file(), sort_keys=False, allow_unicode=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


__all__ = [
    "TEMPLATE_SUFFIXES",
    "AgentTemplate",
    "Capabilities",
    "FsScopes",
    "GitCaps",
    "ModelChoice",
    "NetScopes",
    "default_template",
    "load_template_file",
    "normalize_tool_name",
    "template_filename",
    "template_files",
    "write_template",
]
