"""The compact memory of a conversation's completed exchanges (through ``svc.memory``'s API).

Each completed user and assistant exchange of a channel run is stored once, by the
memory's exchange recorder (svc/memory/exchanges.py, which reads the run's channel
and conversation from its metadata), as one small global-tier record tagged with
the channel (``telegram``) and the conversation (``telegram:<chat>``), so it
outlives ``/new``. This module finds, for the next prompt of the same
conversation, the exchanges relevant to it, and only those of its own
conversation (the tag is the filter).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import SvcError

if TYPE_CHECKING:
    from ..memory import MemoryService

log = logging.getLogger("svc.channels")

RECALL_LIMIT = 3


def conversation_tag(channel: str, conversation: str) -> str:
    from ..memory import channel_tags

    return channel_tags(channel, conversation)[1]


class ExchangeMemory:
    def __init__(self, memory: MemoryService | None) -> None:
        self.memory = memory

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
