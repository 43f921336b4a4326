"""Questions a run asks the user, and the answers that reach the waiting run.

The ``question`` tool calls :meth:`QuestionService.ask`: the question is
recorded, ``question.asked`` is announced, and the run waits (bounded by the
configured timeout) until ``POST /question/{id}/reply`` or ``/reject``.
Unlike a fire-and-forget design, the answer is the tool's result, so the model
actually sees it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import trio

from ..clock import Clock
from ..events import EventLog
from ..store import Store
from ..tools import ToolFailed
from .permission_records import ApprovalReplyInvalid
from .question_records import QuestionNotFound, QuestionRequest
from .question_repository import QuestionRepository

__all__ = ["QuestionNotFound", "QuestionRequest", "QuestionService"]


def normalize_questions(raw: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The wire form: ``{header, question, options: [{label, description}], multiple, custom}``."""
    out = []
    for item in raw:
        text = (
            item.get("question")
            or item.get("prompt")
            or item.get("query")
            or item.get("text")
            or ""
        )
        options = []
        for option in item.get("options") or item.get("choices") or []:
            if isinstance(option, Mapping):
                options.append(
                    {
                        "label": str(option.get("label", "")),
                        "description": str(option.get("description", "")),
                    }
                )
            else:
                options.append({"label": str(option), "description": ""})
        out.append(
            {
                "header": str(item.get("header") or "Question"),
                "question": str(text),
                "options": options,
                "multiple": bool(item.get("multiple", False)),
                "custom": bool(item.get("custom", not options)),
            }
        )
    return tuple(out)


def normalize_answers(body: Mapping[str, Any], count: int) -> tuple[tuple[str, ...], ...]:
    """Accept ``{answers: [[..], ..]}``, ``{answers: [..]}``, ``{answer: ".."}``, ``{_answers}``."""
    raw = body.get("answers", body.get("_answers"))
    if raw is None and "answer" in body:
        raw = [body["answer"]]
    if raw is None:
        raise ApprovalReplyInvalid("reply needs `answers` (a list) or `answer`", field="answers")
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise ApprovalReplyInvalid("`answers` must be a list", field="answers")
    answers = []
    for entry in raw:
        if isinstance(entry, str):
            answers.append((entry,))
        elif isinstance(entry, list) and all(isinstance(x, str) for x in entry):
            answers.append(tuple(entry))
        else:
            raise ApprovalReplyInvalid(
                "each answer must be a string or a list of strings", field="answers"
            )
    return tuple(answers)


class _Waiter:
    __slots__ = ("answers", "done")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.answers: tuple[tuple[str, ...], ...] | None = None


class QuestionService:
    def __init__(self, db: Store, events: EventLog, clock: Clock, *, wait_timeout_s: float) -> None:
        self._repo = QuestionRepository(db)
        self._events = events
        self._clock = clock
        self.wait_timeout_s = wait_timeout_s
        self._waiters: dict[str, _Waiter] = {}

    async def load(self) -> None:
        await self._repo.expire_pending()

    async def ask(
        self,
        questions: Sequence[Mapping[str, Any]],
        *,
        session_id: str | None,
        run_id: str | None,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> list[list[str]]:
        """Ask and wait; raise :class:`ToolFailed` on rejection or timeout."""
        now = self._clock.now_ms()
        timeout_ms = int(self.wait_timeout_s * 1000)
        request = QuestionRequest(
            id=str(uuid.uuid4()),
            questions=normalize_questions(questions),
            status="pending",
            requested_at_ms=now,
            expires_at_ms=now + timeout_ms,
            session_id=session_id,
            run_id=run_id,
            call_id=call_id,
            message_id=message_id,
        )
        waiter = _Waiter()
        self._waiters[request.id] = waiter
        try:
            await self._repo.save(request)
            self._events.publish(
                "question.asked", {**request.to_wire(), "sessionID": session_id, "runID": run_id}
            )
            with trio.move_on_after(self.wait_timeout_s):
                await waiter.done.wait()
            if not waiter.done.is_set():
                await self._repo.save(attrs.evolve(request, status="expired"))
                raise ToolFailed(
                    f"the question was not answered within {timeout_ms} ms", code="QUESTION_TIMEOUT"
                )
            if waiter.answers is None:
                raise ToolFailed(
                    "the user declined to answer the question", code="QUESTION_REJECTED"
                )
            return [list(a) for a in waiter.answers]
        except trio.Cancelled:
            # The run was cancelled: do not leave the question pending forever.
            with trio.CancelScope(shield=True):
                await self._repo.save(attrs.evolve(request, status="cancelled"))
            raise
        finally:
            self._waiters.pop(request.id, None)

    async def get(self, question_id: str) -> QuestionRequest | None:
        return await self._repo.get(question_id)

    async def pending(self) -> list[QuestionRequest]:
        return await self._repo.pending()

    async def reply(self, question_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        request = await self._pending_or_raise(question_id)
        answers = normalize_answers(body, len(request.questions))
        await self._repo.save(attrs.evolve(request, status="answered", answers=answers))
        self._events.publish(
            "question.replied",
            {
                "id": request.id,
                "sessionID": request.session_id,
                "runID": request.run_id,
                "ok": True,
                "answers": [list(a) for a in answers],
            },
        )
        waiter = self._waiters.get(request.id)
        if waiter is not None:
            waiter.answers = answers
            waiter.done.set()
        return {"ok": True}

    async def reject(self, question_id: str) -> dict[str, Any]:
        request = await self._pending_or_raise(question_id)
        await self._repo.save(attrs.evolve(request, status="rejected"))
        self._events.publish(
            "question.replied",
            {
                "id": request.id,
                "sessionID": request.session_id,
                "runID": request.run_id,
                "ok": False,
            },
        )
        waiter = self._waiters.get(request.id)
        if waiter is not None:
            waiter.done.set()
        return {"ok": True}

    async def _pending_or_raise(self, question_id: str) -> QuestionRequest:
        request = await self.get(question_id)
        if request is None:
            raise QuestionNotFound()
        if request.status != "pending":
            raise ApprovalReplyInvalid("Question request is no longer pending", status=409)
        if self._clock.now_ms() > request.expires_at_ms:
            raise ApprovalReplyInvalid("Question request has expired", status=409)
        return request
