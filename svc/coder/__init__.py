"""Coder projects: repo and repohost project bindings, the project inbox, and intake of
project items as coder runs whose board status follows the run. See docs/enterprise.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .component import CoderComponent as CoderComponent
    from .component import coder_of as coder_of
    from .service import CoderService as CoderService

_exports = LazyExports(
    __name__,
    {
        ".component": ["CoderComponent", "coder_of"],
        ".service": ["CoderService"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
