"""Which events a subscriber or a replay wants."""

from __future__ import annotations

from collections.abc import Callable, Collection

import attrs

from ._event import Event


@attrs.frozen
class EventFilter:
    """A conjunction of conditions; an empty filter matches every event.

    ``run_id`` follows the wire rule of ``GET /event``: an event carrying a run id
    must carry this one; an event without a run id passes only when a
    ``session_id`` condition is also set and matched (session-level events such as
    ``session.status`` belong to the run's stream).
    """

    session_id: str | None = None
    run_id: str | None = None
    topic: str | None = None
    types: Collection[str] | None = None
    type_prefixes: tuple[str, ...] = ()
    predicate: Callable[[Event], bool] | None = attrs.field(default=None, eq=False)

    def matches(self, event: Event) -> bool:
        if self.session_id is not None and event.session_id != self.session_id:
            return False
        if self.run_id is not None:
            if event.run_id is not None:
                if event.run_id != self.run_id:
                    return False
            elif self.session_id is None:
                return False
        if self.topic is not None and event.topic != self.topic:
            return False
        if self.types is not None and event.type not in self.types:
            return False
        if self.type_prefixes and not event.type.startswith(self.type_prefixes):
            return False
        return self.predicate is None or self.predicate(event)

    @property
    def index_key(self) -> tuple[str, str] | None:
        """The cheapest exact key to route live events by, if any."""
        if self.session_id is not None:
            return ("session", self.session_id)
        if self.run_id is not None:
            return ("run", self.run_id)
        if self.topic is not None:
            return ("topic", self.topic)
        return None


MATCH_ALL = EventFilter()
