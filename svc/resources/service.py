"""The key/value resource store: validated, revisioned writes announced as events.

Every change publishes ``resource.updated`` or ``resource.deleted`` on the
``resource`` topic (``GET /resource/events`` streams them). A write naming
``if_match_rev`` succeeds only when that is the entry's current revision (``0``:
the key must not exist); otherwise it is a 409 ``RESOURCE_REVISION_CONFLICT``
carrying ``current_rev``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import Conflict, NotFound, ValidationFailed
from .repository import Outcome, Resource, ResourceRepository

if TYPE_CHECKING:
    from ..clock import Clock
    from ..events import EventLog
    from ..store import Store

TOPIC = "resource"
MAX_KEY_LENGTH = 512
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


class ResourceNotFound(NotFound):
    """No resource is stored under this key."""

    code = "RESOURCE_NOT_FOUND"


class ResourceRevisionConflict(Conflict):
    """The resource's revision is not the one the request expected."""

    code = "RESOURCE_REVISION_CONFLICT"


def check_key(key: Any, *, field: str = "key") -> str:
    if not isinstance(key, str) or not key.strip():
        raise ValidationFailed(f"`{field}` must be a non-empty string", field=field)
    if len(key) > MAX_KEY_LENGTH:
        raise ValidationFailed(
            f"`{field}` must be at most {MAX_KEY_LENGTH} characters", field=field
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in key):
        raise ValidationFailed(f"`{field}` must not contain control characters", field=field)
    return key


def optional_int(body: Mapping[str, Any], *names: str, minimum: int = 0) -> int | None:
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValidationFailed(f"`{name}` must be an integer >= {minimum}", field=name)
        return value
    return None


def optional_str(body: Mapping[str, Any], *names: str) -> str | None:
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValidationFailed(f"`{name}` must be a string", field=name)
        return value
    return None


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge key by key, ``null`` removes a key."""
    if not isinstance(patch, dict):
        return patch
    merged: dict[str, Any] = dict(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = merge_patch(merged.get(name), value)
    return merged


class ResourceService:
    def __init__(self, store: Store, events: EventLog, clock: Clock) -> None:
        self._repo = ResourceRepository(store)
        self._events = events
        self._clock = clock

    async def get(self, key: str) -> Resource:
        found = await self._repo.get(check_key(key), now_ms=self._clock.now_ms())
        if found is None:
            raise ResourceNotFound(f"no resource is stored under `{key}`", key=key)
        return found

    async def page(self, *, prefix: str | None, limit: int | None) -> list[Resource]:
        return await self._repo.page(
            prefix=prefix or "",
            limit=min(limit or DEFAULT_LIMIT, MAX_LIMIT),
            now_ms=self._clock.now_ms(),
        )

    async def write(self, key: str, body: Mapping[str, Any], *, key_field: str = "key") -> Resource:
        """Store ``body["value"]`` under ``key`` (``if_match_rev``, ``updated_by``, ``ttl_ms``)."""
        check_key(key, field=key_field)
        if "value" not in body:
            raise ValidationFailed("`value` is required", field="value")
        value = body["value"]
        return await self._write(key, body, lambda _current: value)

    async def patch(self, key: str, body: Mapping[str, Any]) -> Resource:
        """Merge-patch the stored value.

        The body is the patch itself; ``{"patch": {...}, "if_match_rev": n}`` is
        also read, so a patch can carry a revision and an author.
        """
        check_key(key)
        options: Mapping[str, Any] = {}
        patch: Any = dict(body)
        if isinstance(body.get("patch"), dict):
            options, patch = body, body["patch"]

        def apply(current: Resource | None) -> Any:
            return merge_patch(current.value if current else None, patch)

        return await self._write(key, options, apply)

    async def _write(self, key: str, body: Mapping[str, Any], make_value: Any) -> Resource:
        expected = optional_int(body, "if_match_rev", "ifMatchRev")
        updated_by = optional_str(body, "updated_by", "updatedBy")
        ttl_ms = optional_int(body, "ttl_ms", "ttlMs", minimum=1)
        now = self._clock.now_ms()
        outcome = await self._repo.put(
            key,
            make_value,
            expected_rev=expected,
            updated_by=updated_by,
            expires_at_ms=now + ttl_ms if ttl_ms is not None else None,
            now_ms=now,
        )
        self._check(key, expected, outcome)
        assert outcome.resource is not None  # a write that did not conflict wrote
        written = outcome.resource
        self._events.publish(
            "resource.updated",
            {
                "key": key,
                "rev": written.rev,
                "previous_rev": outcome.current_rev,
                "updated_by": written.updated_by,
                "updated_at_ms": written.updated_at_ms,
            },
            topic=TOPIC,
        )
        return written

    async def delete(self, key: str, *, expected_rev: int | None = None) -> Resource:
        check_key(key)
        outcome = await self._repo.delete(
            key, expected_rev=expected_rev, now_ms=self._clock.now_ms()
        )
        self._check(key, expected_rev, outcome)
        if outcome.resource is None:
            raise ResourceNotFound(f"no resource is stored under `{key}`", key=key)
        self._events.publish(
            "resource.deleted", {"key": key, "rev": outcome.resource.rev}, topic=TOPIC
        )
        return outcome.resource

    @staticmethod
    def _check(key: str, expected: int | None, outcome: Outcome) -> None:
        if outcome.conflict:
            raise ResourceRevisionConflict(
                f"`{key}` is at revision {outcome.current_rev}, not {expected}",
                key=key,
                expected_rev=expected,
                current_rev=outcome.current_rev,
            )


__all__ = [
    "TOPIC",
    "ResourceNotFound",
    "ResourceRevisionConflict",
    "ResourceService",
    "check_key",
    "merge_patch",
    "optional_int",
]
