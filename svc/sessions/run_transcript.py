"""The assistant message a run builds, part by part."""

from __future__ import annotations

import uuid
from typing import Any

import attrs

from .records import Message, Run


class RunTranscript:
    """The parts of one run's assistant message, and what is in flight.

    ``inflight`` is the text of the model turn being streamed and ``current_tool``
    the tool call being executed: if the run ends while either is open, the
    settlement keeps the text and records the call as failed.
    """

    def __init__(self, run: Run) -> None:
        self.message = Message(
            id=str(uuid.uuid4()),
            session_id=run.session_id,
            role="assistant",
            parts=(),
            created_at_ms=run.started_at_ms,
            run_id=run.id,
            info={"runID": run.id},
        )
        self.parts: list[dict[str, Any]] = []
        self.inflight: list[str] | None = None
        self.current_tool: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.message.id

    def next_part_id(self) -> str:
        return f"{self.message.id}-t{len(self.parts)}"

    def append_text(self, text: str) -> None:
        if self.parts and self.parts[-1].get("type") == "text":
            self.parts[-1]["text"] += text
        else:
            self.parts.append(
                {
                    "id": self.next_part_id(),
                    "sessionID": self.message.session_id,
                    "messageID": self.message.id,
                    "type": "text",
                    "text": text,
                }
            )

    def text(self) -> str:
        return "".join(p.get("text", "") for p in self.parts if p.get("type") == "text")

    def keep_inflight(self) -> None:
        """What streamed of an unfinished turn joins the transcript."""
        if self.inflight:
            self.append_text("".join(self.inflight))
        self.inflight = None

    def snapshot(self, run: Run) -> Message:
        """The message as it stands, with the run's model."""
        return attrs.evolve(
            self.message,
            parts=tuple(dict(p) for p in self.parts),
            info={
                **self.message.info,
                "model": {"providerID": run.provider_id, "modelID": run.model_id},
            },
        )
