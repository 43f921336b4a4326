"""Optimization campaigns and experiments, stored and driven by clients (no optimizer)."""

from .repository import OptimizationRepository
from .service import (
    OptimizationConflict,
    OptimizationNotFound,
    OptimizationService,
    OptimizationValidationFailed,
)

__all__ = [
    "OptimizationConflict",
    "OptimizationNotFound",
    "OptimizationRepository",
    "OptimizationService",
    "OptimizationValidationFailed",
]
