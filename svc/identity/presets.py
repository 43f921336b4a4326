"""The personality presets: how the assistant sounds, as system-prompt instructions."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Preset:
    id: str
    label: str
    description: str
    instructions: str
    """Added to the system prompt; empty for ``balanced``, the engine's own voice."""

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "description": self.description}


PRESETS: tuple[Preset, ...] = (
    Preset(
        "balanced",
        "Balanced",
        "Clear, helpful answers with as much detail as the question needs.",
        "",
    ),
    Preset(
        "concise",
        "Concise",
        "Short, direct answers; details only when asked.",
        "Be concise: answer directly in as few words as the task allows, skip pleasantries and "
        "preamble, and give details only when asked.",
    ),
    Preset(
        "friendly",
        "Friendly",
        "Warm, encouraging and in plain language.",
        "Be warm and approachable: use plain, friendly language, acknowledge what the user is "
        "trying to do, and keep an encouraging tone without giving up accuracy.",
    ),
    Preset(
        "mentor",
        "Mentor",
        "Explains the why and teaches along the way.",
        "Act as a mentor: explain the reasoning behind your answers, name the underlying concepts, "
        "and suggest how the user could approach similar problems on their own next time.",
    ),
    Preset(
        "critical",
        "Critical",
        "Challenges assumptions and points out risks.",
        "Be a critical reviewer: question assumptions, point out risks, edge cases and weaknesses "
        "plainly, and say when something is a bad idea and why.",
    ),
)

BY_ID: dict[str, Preset] = {p.id: p for p in PRESETS}
DEFAULT_PRESET = "balanced"

__all__ = ["BY_ID", "DEFAULT_PRESET", "PRESETS", "Preset"]
