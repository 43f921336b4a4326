"""The flow DAG: cycles, dependency waves, and which nodes are ready. Pure functions."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence


def find_cycle(order: Sequence[str], deps: Mapping[str, Sequence[str]]) -> list[str] | None:
    """A dependency cycle as a path ``[a, b, ..., a]``, or None. Nodes are visited in ``order``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in deps.get(node, ()):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep in deps and state.get(dep) is None:
                found = visit(dep)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in order:
        if state.get(node) is None:
            found = visit(node)
            if found:
                return found
    return None


def waves(order: Sequence[str], deps: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Dependency waves: each wave's nodes depend only on earlier waves (declared order kept).

    The DAG must be acyclic (check with :func:`find_cycle` first).
    """
    level: dict[str, int] = {}

    def depth(node: str) -> int:
        if node not in level:
            level[node] = 1 + max((depth(d) for d in deps.get(node, ()) if d in deps), default=-1)
        return level[node]

    out: list[list[str]] = []
    for node in order:
        d = depth(node)
        while len(out) <= d:
            out.append([])
        out[d].append(node)
    return out


def ready(
    order: Sequence[str],
    deps: Mapping[str, Sequence[str]],
    done: Collection[str],
    started: Collection[str],
) -> list[str]:
    """Nodes not started whose every dependency is done, in declared order."""
    return [
        n
        for n in order
        if n not in started and n not in done and all(d in done for d in deps.get(n, ()))
    ]


def descendants(deps: Mapping[str, Sequence[str]], roots: Iterable[str]) -> set[str]:
    """Every node that depends, directly or not, on one of ``roots`` (roots excluded)."""
    dependants: dict[str, list[str]] = {}
    for node, ds in deps.items():
        for d in ds:
            dependants.setdefault(d, []).append(node)
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        for child in dependants.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def ancestors(deps: Mapping[str, Sequence[str]], node: str) -> set[str]:
    seen: set[str] = set()
    stack = list(deps.get(node, ()))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(deps.get(current, ()))
    return seen


__all__ = ["ancestors", "descendants", "find_cycle", "ready", "waves"]
