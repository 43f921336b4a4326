"""The compact memory of a conversation's completed exchanges (through ``svc.memory``'s API).

Each completed user and assistant exchange of a channel run is stored as one
small global-tier record tagged with the channel (``telegram``) and the
conversation (``telegram:<chat>``), so it outlives ``/new``: the next prompt
of the same conversation finds the exchanges relevant to it, and only those of
its own conversation (the tag is the filter).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import SvcError

if TYPE_CHECKING:
    from ..memory import MemoryService

log = logging.getLogger("svc.channels")

RECALL_LIMIT = 3
SIDE_CHARS = 600


def conversation_tag(channel: str, conversation: str) -> str:
    return f"{channel}:{conversation}"[:64].lower()


class ExchangeMemory:
    def __init__(self, memory: MemoryService | None) -> None:
        self.memory = memory

    async def remember(
        self,
        channel: str,
        conversation: str,
        *,
        user_text: str,
        assistant_text: str,
        session_id: str,
        run_id: str,
    ) -> str | None:
        """Store one exchange; returns the record id (None: memory is off or empty)."""
        if self.memory is None or not user_text.strip() or not assistant_text.strip():
            return None
        from ..memory import PutRequest, compact_exchange

        request = PutRequest(
            text=compact_exchange(user_text, assistant_text, side_chars=SIDE_CHARS),
            tags=[channel, conversation_tag(channel, conversation)],
            tier="global",
            kind="exchange",
            source="channel",
            metadata={
                "channel": channel,
                "conversation": conversation,
                "session_id": session_id,
                "run_id": run_id,
            },
        )
        try:
            stored = await self.memory.put(request)
        except SvcError:
            # Memory is an aid: a failed write must not fail the chat.
            log.exception("could not store a %s exchange", channel)
            return None
        return str(stored.get("id")) if stored.get("id") else None

    async def recall(self, channel: str, conversation: str, query: str) -> list[str]:
        """Earlier exchanges of this conversation relevant to ``query`` (best first)."""
        if self.memory is None or not query.strip():
            return []
        from ..memory import SearchRequest

        request = SearchRequest(
            query=query[:500],
            tags=[conversation_tag(channel, conversation)],
            tiers=["global"],
            limit=RECALL_LIMIT,
        )
        try:
            found: dict[str, Any] = await self.memory.search(request)
        except SvcError:
            log.exception("could not search the %s exchange memory", channel)
            return []
        return [str(hit.get("content", "")) for hit in found.get("results", []) if hit]


__all__ = ["ExchangeMemory", "conversation_tag"]
