"""Every blueprint, one per area of the spec. A new area adds its module here."""

from quart import Blueprint

from . import events, global_

BLUEPRINTS: list[Blueprint] = [
    global_.bp,
    events.bp,
]
