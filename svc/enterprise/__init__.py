"""Enterprise onboarding: tenant context, readiness, onboarding previews, org units,
memberships, grants, connectors with credential references, source bindings that
ingest into tenant-scoped memory (with quarantine and review), and data-class-aware
memory search. See docs/enterprise.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .component import EnterpriseComponent as EnterpriseComponent
    from .component import enterprise_of as enterprise_of
    from .errors import EnterpriseError as EnterpriseError
    from .service import EnterpriseService as EnterpriseService
    from .tenant import Caller as Caller
    from .tenant import RequestPrincipal as RequestPrincipal
    from .tenant import TenantContext as TenantContext
    from .tenant import caller_from_headers as caller_from_headers

_exports = LazyExports(
    __name__,
    {
        ".component": ["EnterpriseComponent", "enterprise_of"],
        ".errors": ["EnterpriseError"],
        ".service": ["EnterpriseService"],
        ".tenant": ["Caller", "RequestPrincipal", "TenantContext", "caller_from_headers"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
