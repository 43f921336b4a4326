"""Capabilities: discovery from the tool registry, stored bindings, resolution."""

from .service import CapabilityService, normalize_bindings, provider_of

__all__ = ["CapabilityService", "normalize_bindings", "provider_of"]
