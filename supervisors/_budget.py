"""BudgetScope: a tree of resource budgets wired to trio cancel scopes.

Charges flow up (a child's usage is its ancestors' usage); cancellation flows down (an
exhausted or cancelled scope cancels every descendant and every trio cancel scope entered in
or attached to them, whichever task runs it). Nothing polls: usage limits are checked when
charged, the duration limit is a trio deadline on the cancel scopes and is recorded when it is
noticed (at the next charge() or when a ``with`` block of the scope exits).
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import TypeVar

import attrs
import trio

from ._budget_records import BudgetLimits, BudgetUsage, Exhaustion, LimitName

ExhaustedCallback = Callable[["BudgetScope", Exhaustion], None]

_child_ids = itertools.count()


N = TypeVar("N", int, float)


def _cap(own: N | None, left: N | None) -> N | None:
    """The tighter of two optional limits (None = unlimited)."""
    if own is None:
        return left
    if left is None:
        return own
    return min(own, left)


def _left(limit: N | None, used: N) -> N | None:
    return None if limit is None else max(limit - used, type(limit)(0))


class BudgetScope:
    """A budget for a unit of work (a goal, a step, a tool call) that can nest.

    Must be created inside trio: its clock starts at creation (``trio.current_time()``), so
    ``max_duration_ms`` gives a deadline, never later than the parent's. A child's effective
    limits are capped by what its parent has left at creation.

    A limit is a number of units that may be used: charging past it (usage > limit; for
    duration, reaching the deadline) exhausts the scope. Charge discrete work (a step, a tool
    call) *before* doing it, so the call that would go over is the one refused. The first
    exhaustion (checked in the order tokens, steps, tool calls, duration, cost) records an
    Exhaustion, calls ``on_exhausted``, and cancels this scope and
    every descendant. Ancestors are checked first: an exhausted ancestor is reported as the
    ancestor's exhaustion, and the descendants only get ``cancelled_by``.

    ``with scope:`` runs the block in a fresh trio CancelScope with the budget's deadline; the
    block is cancelled (and the Cancelled absorbed, like ``move_on_after``) when the budget is
    exhausted or cancelled, from any task. It may be entered many times, concurrently.
    """

    __slots__ = (
        "__weakref__",
        "_base_ms",
        "_cancel_reason",
        "_cancelled",
        "_cancelled_by",
        "_children",
        "_cost_usd",
        "_ended_at",
        "_entered",
        "_exhausted",
        "_on_exhausted",
        "_scopes",
        "_start",
        "_steps",
        "_tokens",
        "_tool_calls",
        "deadline",
        "limits",
        "name",
        "parent",
    )

    def __init__(
        self,
        limits: BudgetLimits | None = None,
        *,
        name: str = "",
        parent: BudgetScope | None = None,
        on_exhausted: ExhaustedCallback | None = None,
        initial_usage: BudgetUsage | None = None,
    ) -> None:
        now = trio.current_time()
        own = limits if limits is not None else BudgetLimits()
        used = initial_usage if initial_usage is not None else BudgetUsage()
        self.name = name
        self.parent = parent
        self._on_exhausted = on_exhausted
        self._start = now
        self._base_ms = used.duration_ms
        self._tokens = used.tokens
        self._steps = used.steps
        self._tool_calls = used.tool_calls
        self._cost_usd = used.cost_usd
        self._ended_at: float | None = None
        self._exhausted: Exhaustion | None = None
        self._cancelled_by: Exhaustion | None = None
        self._cancel_reason: str | None = None
        self._cancelled = False
        # Weak: a long-lived root must not keep every finished step scope alive. A scope in
        # use is referenced by whoever uses it (the `with` block, the caller charging it).
        self._children: weakref.WeakValueDictionary[int, BudgetScope] = (
            weakref.WeakValueDictionary()
        )
        self._scopes: set[trio.CancelScope] = set()
        self._entered: dict[trio.lowlevel.Task, list[trio.CancelScope]] = {}

        deadline: float = math.inf
        if own.max_duration_ms is not None:
            deadline = now + (own.max_duration_ms - used.duration_ms) / 1000
        if parent is not None:
            left = parent.remaining()
            own = BudgetLimits(
                max_tokens=_cap(own.max_tokens, left.max_tokens),
                max_steps=_cap(own.max_steps, left.max_steps),
                max_tool_calls=_cap(own.max_tool_calls, left.max_tool_calls),
                max_cost_usd=_cap(own.max_cost_usd, left.max_cost_usd),
            )
            deadline = min(deadline, parent.deadline)
        self.deadline: float = deadline
        self.limits = attrs.evolve(
            own,
            max_duration_ms=(
                None if deadline == math.inf else self._base_ms + round((deadline - now) * 1000)
            ),
        )
        if parent is not None:
            parent._children[next(_child_ids)] = self
            if parent._cancelled:
                # Born under a finished parent: finished from the start, for the same reason.
                self._cancelled = True
                self._cancelled_by = parent._exhausted or parent._cancelled_by
                self._cancel_reason = parent._cancel_reason
                self._ended_at = now

    def __repr__(self) -> str:
        state = "exhausted" if self._exhausted else "cancelled" if self._cancelled else "open"
        return f"<BudgetScope {self.name!r} {state} usage={self.usage!r}>"

    # -- tree ----------------------------------------------------------------------------

    def child(
        self,
        limits: BudgetLimits | None = None,
        *,
        name: str = "",
        on_exhausted: ExhaustedCallback | None = None,
    ) -> BudgetScope:
        """A nested scope; its limits are capped by what this scope has left now."""
        return BudgetScope(limits, name=name, parent=self, on_exhausted=on_exhausted)

    @property
    def children(self) -> list[BudgetScope]:
        """Child scopes still referenced somewhere, in creation order."""
        return list(self._children.values())

    def _chain(self) -> list[BudgetScope]:
        chain: list[BudgetScope] = []
        scope: BudgetScope | None = self
        while scope is not None:
            chain.append(scope)
            scope = scope.parent
        return chain

    # -- state ---------------------------------------------------------------------------

    @property
    def usage(self) -> BudgetUsage:
        """Usage including descendants' charges; duration runs until the scope finished."""
        return self._usage_at(self._ended_at if self._ended_at is not None else trio.current_time())

    def _usage_at(self, moment: float) -> BudgetUsage:
        return BudgetUsage(
            tokens=self._tokens,
            steps=self._steps,
            tool_calls=self._tool_calls,
            cost_usd=self._cost_usd,
            duration_ms=self._base_ms + round((moment - self._start) * 1000),
        )

    @property
    def exhausted(self) -> Exhaustion | None:
        """This scope's own exhaustion, if it ran out."""
        return self._exhausted

    @property
    def cancelled_by(self) -> Exhaustion | None:
        """The exhaustion of the ancestor that cancelled this scope, if that is how it ended."""
        return self._cancelled_by

    @property
    def cancelled(self) -> bool:
        """True once exhausted, cancelled, or cancelled by an ancestor."""
        return self._cancelled

    @property
    def cancel_reason(self) -> str | None:
        return self._cancel_reason

    def remaining(self) -> BudgetLimits:
        """What is left, per limited dimension (the tightest of this scope and its ancestors)."""
        now = trio.current_time()
        tokens: int | None = None
        steps: int | None = None
        tool_calls: int | None = None
        cost: float | None = None
        for scope in self._chain():
            limits = scope.limits
            tokens = _cap(tokens, _left(limits.max_tokens, scope._tokens))
            steps = _cap(steps, _left(limits.max_steps, scope._steps))
            tool_calls = _cap(tool_calls, _left(limits.max_tool_calls, scope._tool_calls))
            cost = _cap(cost, _left(limits.max_cost_usd, scope._cost_usd))
        return BudgetLimits(
            max_tokens=tokens,
            max_steps=steps,
            max_tool_calls=tool_calls,
            max_duration_ms=(
                None if self.deadline == math.inf else max(0, round((self.deadline - now) * 1000))
            ),
            max_cost_usd=cost,
        )

    # -- charging and exhaustion -----------------------------------------------------------

    def charge(
        self, *, tokens: int = 0, steps: int = 0, tool_calls: int = 0, cost_usd: float = 0.0
    ) -> Exhaustion | None:
        """Add usage to this scope and every ancestor; return the exhaustion it caused, if any.

        Synchronous. A no-op on a finished scope (returns its exhaustion, or the ancestor's that
        cancelled it, or None if it was simply cancelled).
        """
        if self._cancelled:
            return self._exhausted or self._cancelled_by
        chain = self._chain()
        for scope in chain:
            scope._tokens += tokens
            scope._steps += steps
            scope._tool_calls += tool_calls
            scope._cost_usd += cost_usd
        return _check(chain)

    def _first_exceeded(self, now: float) -> LimitName | None:
        limits = self.limits
        if limits.max_tokens is not None and self._tokens > limits.max_tokens:
            return "max_tokens"
        if limits.max_steps is not None and self._steps > limits.max_steps:
            return "max_steps"
        if limits.max_tool_calls is not None and self._tool_calls > limits.max_tool_calls:
            return "max_tool_calls"
        if now >= self.deadline:
            return "max_duration_ms"
        if limits.max_cost_usd is not None and self._cost_usd > limits.max_cost_usd:
            return "max_cost_usd"
        return None

    def _exhaust(self, limit: LimitName, now: float) -> Exhaustion:
        exhaustion = Exhaustion(self.name, limit, self._usage_at(now), self.limits)
        # Finished before the callback runs, so a charge() from inside it is a no-op.
        self._exhausted = exhaustion
        self._cancelled = True
        self._cancel_reason = f"budget {self.name!r} exhausted: {limit}"
        self._ended_at = now
        try:
            if self._on_exhausted is not None:
                self._on_exhausted(self, exhaustion)
        finally:
            # Even if the callback raised, the work under this budget must stop.
            self._cancel_tree(now, exhaustion)
        return exhaustion

    def cancel(self, reason: str = "cancelled") -> None:
        """Cancel this scope and all descendants, without an exhaustion. Idempotent."""
        if self._cancelled:
            return
        now = trio.current_time()
        self._cancelled = True
        self._cancel_reason = reason
        self._ended_at = now
        self._cancel_tree(now, None)

    def _cancel_tree(self, now: float, cause: Exhaustion | None) -> None:
        """Cancel the trio scopes of self and every descendant; mark the descendants finished."""
        stack: list[BudgetScope] = [self]
        while stack:
            scope = stack.pop()
            if scope is not self:
                if scope._cancelled:
                    continue  # finished earlier on its own; its subtree went with it
                scope._cancelled = True
                scope._cancelled_by = cause
                scope._cancel_reason = self._cancel_reason
                scope._ended_at = now
            # The trio scopes entered in or attached to this budget, in whatever task: this is
            # how an exhaustion reaches the work itself (at its next checkpoint).
            for cancel_scope in list(scope._scopes):
                cancel_scope.cancel()
            stack.extend(scope._children.values())

    # -- trio integration ----------------------------------------------------------------

    def __enter__(self) -> BudgetScope:
        cancel_scope = trio.CancelScope(deadline=self.deadline)
        if self._cancelled:
            # Entering a finished budget: the block is cancelled at its first checkpoint.
            cancel_scope.cancel()
        task = trio.lowlevel.current_task()
        self._entered.setdefault(task, []).append(cancel_scope)
        self._scopes.add(cancel_scope)
        cancel_scope.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        task = trio.lowlevel.current_task()
        stack = self._entered[task]
        cancel_scope = stack.pop()
        if not stack:
            del self._entered[task]
        self._scopes.discard(cancel_scope)
        suppress = cancel_scope.__exit__(exc_type, exc, tb)
        if not self._cancelled and trio.current_time() >= self.deadline:
            # The deadline passed (trio cancelled the block, or it ended right then). Nothing
            # polls for it, so this is where max_duration_ms is recorded, top-down as always.
            _check(self._chain())
        return suppress

    def attach(self, cancel_scope: trio.CancelScope) -> Callable[[], None]:
        """Govern an existing cancel scope: its deadline is lowered to the budget's, and it is
        cancelled on exhaustion/cancel. Returns ``detach()``. Keep a reference to this
        BudgetScope (or to ``detach``) while it matters: parents hold children weakly."""
        if self.deadline < cancel_scope.deadline:
            cancel_scope.deadline = self.deadline
        if self._cancelled:
            # Attaching to a finished budget: the governed work must not start/continue.
            cancel_scope.cancel()
        self._scopes.add(cancel_scope)

        def detach() -> None:
            self._scopes.discard(cancel_scope)

        return detach


def _check(chain: list[BudgetScope]) -> Exhaustion | None:
    """Check ``chain`` (self .. root) root first; exhaust the topmost scope over a limit."""
    now = trio.current_time()
    for scope in reversed(chain):
        if scope._cancelled:
            return scope._exhausted or scope._cancelled_by
        limit = scope._first_exceeded(now)
        if limit is not None:
            return scope._exhaust(limit, now)
    return None
