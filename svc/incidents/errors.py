"""The incident monitor's errors: stable ``INCIDENT_MONITOR_*`` codes (reference §1.1)."""

from __future__ import annotations

from typing import Any

from ..errors import SvcError


class IncidentError(SvcError):
    """The incident monitor refused the request."""

    code = "INCIDENT_MONITOR_FAILED"
    status = 400


def bad_request(code: str, message: str, **extra: Any) -> IncidentError:
    return IncidentError(message, code=f"INCIDENT_MONITOR_{code}", status=400, **extra)


def not_found(code: str, message: str, **extra: Any) -> IncidentError:
    return IncidentError(message, code=f"INCIDENT_MONITOR_{code}", status=404, **extra)


def conflict(code: str, message: str, **extra: Any) -> IncidentError:
    return IncidentError(message, code=f"INCIDENT_MONITOR_{code}", status=409, **extra)


def unauthorized(code: str, message: str) -> IncidentError:
    return IncidentError(message, code=f"INCIDENT_MONITOR_{code}", status=401)


class ConfigInvalid(IncidentError):
    """The incident monitor configuration is invalid."""

    code = "INCIDENT_MONITOR_CONFIG_INVALID"

    def __init__(self, detail: str, *, field: str | None = None) -> None:
        extra: dict[str, Any] = {"detail": detail}
        if field is not None:
            extra["field"] = field
        super().__init__(f"invalid incident monitor config: {detail}", **extra)


class PublishFailed(Exception):
    """A destination adapter could not deliver (the outcome records the reason)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


class DestinationNotReady(Exception):
    """The readiness re-check at publish time failed: no delivery, no receipt."""

    def __init__(self, destination_id: str, reasons: list[str]) -> None:
        super().__init__(
            f"destination `{destination_id}` is not publish-ready: {'; '.join(reasons)}"
        )
        self.destination_id = destination_id
        self.reasons = reasons
