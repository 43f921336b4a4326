from __future__ import annotations

import trio
import trio.testing

from actors import SerialByKey


async def test_turns_on_one_key_run_one_at_a_time_in_arrival_order() -> None:
    serial = SerialByKey()
    order: list[int] = []
    inside = 0

    async def work(i: int) -> None:
        nonlocal inside
        async with serial.turn("k"):
            inside += 1
            assert inside == 1
            await trio.sleep(0.01)
            order.append(i)
            inside -= 1

    async with trio.open_nursery() as nursery:
        for i in range(5):
            nursery.start_soon(work, i)
            await trio.testing.wait_all_tasks_blocked()
    assert order == [0, 1, 2, 3, 4]
    assert len(serial) == 0


async def test_different_keys_do_not_wait_for_each_other() -> None:
    serial = SerialByKey()
    async with serial.turn("a"):
        with trio.fail_after(1):
            async with serial.turn("b"):
                assert serial.busy("a") and serial.busy("b")
    assert not serial.busy("a") and not serial.busy("b")


async def test_a_cancelled_waiter_leaves_the_queue_and_the_key_is_released() -> None:
    serial = SerialByKey()
    got_turn = trio.Event()

    async def waiter(scope_box: list[trio.CancelScope]) -> None:
        with trio.CancelScope() as scope:
            scope_box.append(scope)
            async with serial.turn("k"):
                got_turn.set()

    box: list[trio.CancelScope] = []
    async with trio.open_nursery() as nursery, serial.turn("k"):
        nursery.start_soon(waiter, box)
        await trio.testing.wait_all_tasks_blocked()
        box[0].cancel()
        await trio.testing.wait_all_tasks_blocked()
    assert not got_turn.is_set()
    assert len(serial) == 0
