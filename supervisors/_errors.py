"""Errors raised by supervisors."""

from __future__ import annotations


class SupervisorEscalation(Exception):
    """A supervisor's restart intensity was exceeded: it stopped all its children and gave up.

    Raised out of ``open_supervisor``/``open_dynamic_supervisor`` (and so out of the
    ``run_*`` forms into the parent supervisor, which treats it as a failure of that child).
    ``error`` is the failure that tipped it over (also ``__cause__``), None for a normal exit of
    a permanent child.
    """

    def __init__(self, supervisor: str, child_id: str, error: BaseException | None) -> None:
        super().__init__(
            f"supervisor {supervisor!r} gave up: child {child_id!r} failed too often"
            + (f" (last error: {error!r})" if error is not None else "")
        )
        self.supervisor = supervisor
        self.child_id = child_id
        self.error = error
