"""Assembling streamed tool calls (shared by every wire; no I/O).

Wires stream a call as a start (id, name) followed by argument fragments. The
:class:`ToolCallAssembler` keys calls by whatever the wire uses (an index, an
id), numbers them in arrival order for :class:`ToolCallDelta.index`, maps wire
names back to tool names and parses the arguments once the stream is over.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Hashable, Mapping
from typing import Any

import attrs

from .tool_names import ToolNameMap
from .types import ToolCall, ToolCallDelta

_LAST = object()


def parse_arguments(raw: str) -> dict[str, Any]:
    """Arguments JSON as an object.

    Anything unusable becomes ``{}`` (the raw text is kept elsewhere).
    """
    if not raw.strip():
        return {}
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return {}
    if isinstance(value, str):
        # Some models double-encode: the arguments are a JSON string holding JSON.
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def new_call_id() -> str:
    """An id for a call the wire did not name (ids must be unique within a transcript)."""
    return "call_" + secrets.token_hex(12)


def arguments_json(arguments: Mapping[str, Any]) -> str:
    """Arguments as a wire string (always valid JSON, even when the model's raw text was not)."""
    return json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"))


@attrs.define
class _Slot:
    index: int
    id: str = ""
    name: str = ""
    fragments: list[str] = attrs.field(factory=list)


class ToolCallAssembler:
    def __init__(self, names: ToolNameMap) -> None:
        self._names = names
        self._slots: dict[Hashable, _Slot] = {}
        self._last: _Slot | None = None

    def __bool__(self) -> bool:
        return bool(self._slots)

    def delta(
        self,
        key: Hashable | None,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: str = "",
    ) -> ToolCallDelta | None:
        """Record a fragment of call ``key`` (``None``: the most recent call, or a new one).

        Returns the event to emit, or ``None`` when the fragment carried nothing.
        """
        slot = self._slot(key, id)
        if id:
            slot.id = id
        original = None
        if name:
            # Replace, do not append: some servers repeat the name in every chunk.
            original = self._names.original(name)
            slot.name = original
        if arguments:
            slot.fragments.append(arguments)
        if not (id or name or arguments):
            return None
        return ToolCallDelta(
            index=slot.index, id=id or None, name=original, arguments_delta=arguments
        )

    def _slot(self, key: Hashable | None, id: str | None) -> _Slot:
        if key is None:
            if id is not None and id in self._slots:
                key = id
            elif id is None and self._last is not None:
                return self._last
            else:
                key = id if id is not None else _LAST
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(index=len(self._slots))
        self._last = slot
        return slot

    def calls(self) -> tuple[ToolCall, ...]:
        """The calls so far, in arrival order, arguments parsed."""
        result = []
        for slot in sorted(self._slots.values(), key=lambda s: s.index):
            if not slot.name:
                continue  # a fragment without a name cannot be dispatched
            if not slot.id:
                slot.id = new_call_id()  # once, so repeated calls() agree
            raw = "".join(slot.fragments)
            result.append(
                ToolCall(
                    id=slot.id, name=slot.name, arguments=parse_arguments(raw), raw_arguments=raw
                )
            )
        return tuple(result)
