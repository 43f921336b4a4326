"""Replicas sharing one PostgreSQL store: liveness, entity leases, one leader."""

from .cluster import (
    FORWARDED_HEADER,
    LEASED_PREFIXES,
    SCHEDULER_LOCK_KEY,
    Cluster,
    LocalCluster,
    OwnedElsewhere,
    SharedCluster,
    open_cluster,
)
from .repository import Owner

__all__ = [
    "FORWARDED_HEADER",
    "LEASED_PREFIXES",
    "SCHEDULER_LOCK_KEY",
    "Cluster",
    "LocalCluster",
    "OwnedElsewhere",
    "Owner",
    "SharedCluster",
    "open_cluster",
]
