"""The incident monitor: governed failure intake, drafts, approvals, routing, destinations.

``engine.incidents`` (:class:`IncidentService`) is the front door; the
``incident-monitor`` child (:class:`~svc.incidents.monitor.IncidentMonitor`) follows
runtime failures, tails log sources, recovers timed-out triage and prunes by retention.
See docs/incidents.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .component import IncidentsComponent  # noqa: F401
    from .config import MonitorConfig  # noqa: F401
    from .errors import IncidentError  # noqa: F401
    from .redaction import PROFILES, redact_text  # noqa: F401
    from .service import INTAKE_KEY_PREFIX, IncidentService  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".component": ["IncidentsComponent"],
        ".config": ["MonitorConfig"],
        ".errors": ["IncidentError"],
        ".redaction": ["PROFILES", "redact_text"],
        ".service": ["INTAKE_KEY_PREFIX", "IncidentService"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
