"""A session's history as clients shape it: fork, children, diff, revert and unrevert.

* A fork is a new session whose transcript is a copy of its parent's up to a message
  (every visible message when none is named), linked by ``parent_id``.
* A revert hides the messages from a point on (by default the last user prompt and what
  answered it): they leave the transcript the model sees and every listing, and come
  back with an unrevert. The next prompt makes a revert final (the hidden messages are
  deleted). Workspace files are not restored: the engine does not keep their earlier
  contents; the reply names the files the hidden messages changed.
* The diff is what the session's file tools (``write``, ``edit``) changed, rebuilt from
  their recorded arguments.
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..errors import ValidationFailed
from .history_repository import SessionHistoryRepository
from .records import Message, Session

FILE_TOOLS = ("write", "edit")
REVERT_KEY = "revert"
"""The session ``settings`` entry of a revert in effect: the point and the hidden ids."""


def fork_copies(messages: list[Message], child_id: str, up_to: str | None) -> list[Message]:
    """The visible messages up to and including ``up_to``, as new messages of ``child_id``."""
    visible = [m for m in messages if not m.info.get("reverted")]
    if up_to is not None:
        ids = [m.id for m in visible]
        if up_to not in ids:
            raise ValidationFailed(
                f"`messageID` {up_to} is not a message of this session", field="messageID"
            )
        visible = visible[: ids.index(up_to) + 1]
    return [
        attrs.evolve(
            m,
            id=str(uuid.uuid4()),
            session_id=child_id,
            run_id=None,
            info={**m.info, "forkedFrom": m.id},
        )
        for m in visible
    ]


def forked_session(parent: Session, *, now_ms: int) -> Session:
    return attrs.evolve(
        parent,
        id=str(uuid.uuid4()),
        title=f"{parent.title} (fork)",
        parent_id=parent.id,
        settings={k: v for k, v in parent.settings.items() if k != REVERT_KEY},
        archived=False,
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
    )


def revert_point(messages: list[Message], message_id: str | None) -> int:
    """Index of the first message to hide among the visible ``messages``."""
    if message_id is not None:
        for index, message in enumerate(messages):
            if message.id == message_id:
                return index
        raise ValidationFailed(
            f"`messageID` {message_id} is not a visible message of this session",
            field="messageID",
        )
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    raise ValidationFailed("the session has no prompt to revert", field="messageID")


def file_changes(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """Each completed ``write``/``edit`` call of ``messages``, with a unified diff."""
    changes: list[dict[str, Any]] = []
    for message in messages:
        for part in message.parts:
            if part.get("type") != "tool" or part.get("tool") not in FILE_TOOLS:
                continue
            if part.get("state") != "completed":
                continue
            args: Mapping[str, Any] = part.get("args") or {}
            path = str(args.get("path") or "")
            if not path:
                continue
            if part.get("tool") == "edit":
                before, after = str(args.get("old", "")), str(args.get("new", ""))
            else:
                before, after = "", str(args.get("content", ""))
            diff = "".join(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    after.splitlines(keepends=True),
                    fromfile=f"a/{path}",
                    tofile=f"b/{path}",
                )
            )
            changes.append(
                {
                    "path": path,
                    "tool": part.get("tool"),
                    "messageID": message.id,
                    "runID": message.run_id,
                    "diff": diff,
                }
            )
    return changes


def diff_wire(changes: list[dict[str, Any]]) -> dict[str, Any]:
    files = list(dict.fromkeys(c["path"] for c in changes))
    return {
        "diff": "".join(
            c["diff"] if c["diff"].endswith("\n") else c["diff"] + "\n"
            for c in changes
            if c["diff"]
        ),
        "files": files,
        "changes": changes,
        "source": "recorded_tool_calls",
    }


class SessionHistory:
    """The session-wide operations that need no actor (reads, and forks into a new session)."""

    def __init__(self, repo: SessionHistoryRepository) -> None:
        self.repo = repo

    async def fork(self, parent: Session, *, message_id: str | None, now_ms: int) -> Session:
        child = forked_session(parent, now_ms=now_ms)
        copies = fork_copies(await self.repo.all_messages(parent.id), child.id, message_id)
        await self.repo.fork(parent.id, child, copies)
        return child

    async def children(self, parent_id: str) -> list[Session]:
        return await self.repo.children(parent_id)

    async def diff(self, session_id: str) -> dict[str, Any]:
        messages = await self.repo.all_messages(session_id)
        return diff_wire(file_changes(m for m in messages if not m.info.get("reverted")))
