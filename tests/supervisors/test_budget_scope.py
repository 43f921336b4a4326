"""Budget scopes: limits, nesting, and cancellation through the trio scope tree."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from supervisors import BudgetLimits, BudgetScope, BudgetUsage, Exhaustion


@pytest.mark.parametrize(
    ("limits", "field", "below", "reaching", "limit_name"),
    [
        (BudgetLimits(max_tokens=100), "tokens", 60, 41, "max_tokens"),
        (BudgetLimits(max_steps=3), "steps", 3, 1, "max_steps"),
        (BudgetLimits(max_tool_calls=2), "tool_calls", 1, 5, "max_tool_calls"),
        (BudgetLimits(max_cost_usd=0.5), "cost_usd", 0.25, 0.5, "max_cost_usd"),
    ],
)
async def test_each_usage_limit_exhausts_cancels_and_records_limit_and_usage(
    limits: BudgetLimits, field: str, below: float, reaching: float, limit_name: str
) -> None:
    seen: list[Exhaustion] = []
    budget = BudgetScope(limits, name="goal", on_exhausted=lambda scope, ex: seen.append(ex))
    reached_end = False
    with budget:
        assert budget.charge(**{field: below}) is None
        exhaustion = budget.charge(**{field: reaching})
        await trio.lowlevel.checkpoint()  # the first checkpoint after exhaustion is cancelled
        reached_end = True  # pragma: no cover
    assert not reached_end
    assert exhaustion is not None
    assert exhaustion.scope == "goal"
    assert exhaustion.limit == limit_name
    assert exhaustion.limits == budget.limits
    assert getattr(exhaustion.usage, field) == below + reaching
    assert budget.exhausted is exhaustion and budget.cancelled
    assert budget.usage == exhaustion.usage
    assert seen == [exhaustion]


async def test_max_duration_ms_is_a_deadline_recorded_when_the_block_ends(
    autojump_clock: trio.testing.MockClock,
) -> None:
    budget = BudgetScope(BudgetLimits(max_duration_ms=1500), name="slow")
    start = trio.current_time()
    with budget:
        await trio.sleep(10)
    assert trio.current_time() - start == pytest.approx(1.5)
    assert budget.exhausted is not None
    assert budget.exhausted.limit == "max_duration_ms"
    assert budget.exhausted.usage.duration_ms == 1500
    assert budget.usage.duration_ms == 1500  # frozen at the exhaustion
    await trio.sleep(5)
    assert budget.usage.duration_ms == 1500


async def test_duration_is_also_noticed_by_charge(autojump_clock: trio.testing.MockClock) -> None:
    budget = BudgetScope(BudgetLimits(max_duration_ms=1000))
    await trio.sleep(2)
    exhaustion = budget.charge(tokens=1)
    assert exhaustion is not None and exhaustion.limit == "max_duration_ms"


async def test_limits_are_checked_in_a_fixed_order() -> None:
    budget = BudgetScope(BudgetLimits(max_tokens=10, max_steps=1, max_cost_usd=0.1))
    exhaustion = budget.charge(tokens=11, steps=2, cost_usd=1.0)
    assert exhaustion is not None and exhaustion.limit == "max_tokens"


async def test_charging_a_child_charges_every_ancestor() -> None:
    root = BudgetScope(name="root")
    child = root.child(name="child")
    grandchild = child.child(name="grandchild")
    grandchild.charge(tokens=5, steps=1, tool_calls=2, cost_usd=0.25)
    child.charge(tokens=1)
    assert grandchild.usage.tokens == 5
    assert child.usage.tokens == 6
    assert (root.usage.tokens, root.usage.steps, root.usage.tool_calls) == (6, 1, 2)
    assert root.usage.cost_usd == pytest.approx(0.25)
    assert root.children == [child] and child.parent is root


async def test_an_exhausted_ancestor_is_reported_and_cancels_every_descendant_in_any_task() -> None:
    root = BudgetScope(BudgetLimits(max_tokens=100), name="root")
    child = root.child(BudgetLimits(max_tokens=80), name="child")
    other = root.child(name="other")
    other_grandchild = other.child(name="other-grandchild")
    cancelled_in_other_task: list[bool] = []

    async def work_under(scope: BudgetScope, *, task_status: trio.TaskStatus[None]) -> None:
        with scope:
            task_status.started()
            await trio.sleep_forever()
        cancelled_in_other_task.append(scope.cancelled)

    async with trio.open_nursery() as nursery:
        await nursery.start(work_under, other_grandchild)
        await nursery.start(work_under, child)
        other.charge(tokens=60)
        exhaustion = child.charge(tokens=50)  # child has 70 of 80; root has 110 of 100

    assert exhaustion is not None and exhaustion.scope == "root"
    assert root.exhausted is exhaustion
    assert child.exhausted is None and child.cancelled_by is exhaustion
    assert other_grandchild.cancelled_by is exhaustion
    assert cancelled_in_other_task == [True, True]
    assert child.charge(tokens=1) is exhaustion  # no-op on a finished scope
    assert root.usage.tokens == 110


async def test_a_child_is_capped_by_what_its_parent_has_left() -> None:
    root = BudgetScope(BudgetLimits(max_tokens=100, max_steps=10))
    root.charge(tokens=70, steps=9)
    child = root.child(BudgetLimits(max_tokens=50, max_tool_calls=4))
    assert child.limits == BudgetLimits(max_tokens=30, max_steps=1, max_tool_calls=4)
    assert child.remaining() == BudgetLimits(max_tokens=30, max_steps=1, max_tool_calls=4)
    other = root.child()
    other.charge(tokens=10)
    # Siblings share the parent: what is left for child shrinks too.
    assert child.remaining().max_tokens == 20


async def test_a_child_deadline_never_outlives_the_parents(
    autojump_clock: trio.testing.MockClock,
) -> None:
    root = BudgetScope(BudgetLimits(max_duration_ms=2000), name="root")
    await trio.sleep(0.5)
    child = root.child(BudgetLimits(max_duration_ms=60_000), name="child")
    assert child.deadline == root.deadline
    assert child.limits.max_duration_ms == 1500
    with child:
        await trio.sleep(100)
    # The time ran out for the root: reported top-down as the root's exhaustion.
    assert root.exhausted is not None and root.exhausted.limit == "max_duration_ms"
    assert child.cancelled_by is root.exhausted


async def test_cancel_cancels_the_scope_and_its_descendants_without_exhaustion() -> None:
    root = BudgetScope(name="root")
    child = root.child(name="child")
    with child:
        root.cancel("user aborted")
        await trio.lowlevel.checkpoint()
        pytest.fail("not cancelled")  # pragma: no cover
    assert root.cancelled and child.cancelled
    assert root.exhausted is None and child.cancelled_by is None
    assert root.cancel_reason == child.cancel_reason == "user aborted"
    assert root.charge(tokens=1) is None and root.usage.tokens == 0


async def test_entering_a_finished_scope_is_cancelled_at_once() -> None:
    budget = BudgetScope(BudgetLimits(max_steps=1))
    budget.charge(steps=2)
    with budget:
        await trio.lowlevel.checkpoint()
        pytest.fail("not cancelled")  # pragma: no cover
    late_child = budget.child()
    assert late_child.cancelled and late_child.cancelled_by is budget.exhausted


async def test_a_scope_can_be_entered_concurrently_from_several_tasks() -> None:
    budget = BudgetScope(BudgetLimits(max_tool_calls=1))
    ended: list[int] = []

    async def worker(i: int, *, task_status: trio.TaskStatus[None]) -> None:
        with budget:
            task_status.started()
            await trio.sleep_forever()
        ended.append(i)

    async with trio.open_nursery() as nursery:
        for i in range(3):
            await nursery.start(worker, i)
        budget.charge(tool_calls=2)
    assert sorted(ended) == [0, 1, 2]


async def test_attach_governs_an_existing_cancel_scope(
    autojump_clock: trio.testing.MockClock,
) -> None:
    budget = BudgetScope(BudgetLimits(max_tokens=5, max_duration_ms=3000))
    with trio.CancelScope() as external:
        detach = budget.attach(external)
        assert external.deadline == budget.deadline
        budget.charge(tokens=6)
        await trio.lowlevel.checkpoint()
    assert external.cancelled_caught

    other = BudgetScope(BudgetLimits(max_tokens=5))
    with trio.CancelScope() as detached_scope:
        detach = other.attach(detached_scope)
        detach()
        other.charge(tokens=6)
        await trio.lowlevel.checkpoint()
    assert not detached_scope.cancelled_caught


async def test_initial_usage_counts_towards_the_limits(
    autojump_clock: trio.testing.MockClock,
) -> None:
    budget = BudgetScope(
        BudgetLimits(max_tokens=100, max_duration_ms=10_000),
        initial_usage=BudgetUsage(tokens=90, duration_ms=9_000),
    )
    assert budget.remaining() == BudgetLimits(max_tokens=10, max_duration_ms=1000)
    await trio.sleep(0.25)
    assert budget.usage.duration_ms == 9_250
    assert budget.charge(tokens=11) is not None


async def test_on_exhausted_is_called_once_even_if_charged_again() -> None:
    calls: list[str] = []
    budget = BudgetScope(
        BudgetLimits(max_steps=1), name="b", on_exhausted=lambda scope, ex: calls.append(ex.limit)
    )
    first = budget.charge(steps=5)
    assert budget.charge(steps=5) is first
    assert calls == ["max_steps"]
    assert budget.usage.steps == 5


async def test_limits_merge_field_by_field_with_the_others_values_winning() -> None:
    base = BudgetLimits(max_tokens=100, max_steps=5)
    override = BudgetLimits(max_steps=7, max_cost_usd=1.0)
    assert base.merged(override) == BudgetLimits(max_tokens=100, max_steps=7, max_cost_usd=1.0)
    assert base.merged(None) is base
